"""The mechanism primer's study (dpcore.studies.primer): parameters, stages, tables, takeaway.

The numbers are seeded simulations: equalities below are exact (same seed, same streams), the
statistical checks of the mechanisms themselves live in tests/test_primer.py.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dpcore import primer
from dpcore.datasets import load_scenario
from dpcore.figures import primer as primer_figures
from dpcore.mechanisms import Laplace
from dpcore.primer.stages import CHOICE_COLUMNS
from dpcore.studies import primer as study
from dpcore.studies.primer import Params
from dpcore.validation import DataError

TABLES = {"query", "mechanisms", "answers", "exponential", "budget"}
#: The example config's controls (dpcore/examples/primer-adult.json).
EXAMPLE = {"pr_kind": "mean", "pr_column": "age", "pr_low": 17.0, "pr_high": 90.0,
           "pr_epsilon": 0.5, "pr_draws": 1000, "pr_choice_column": "workclass"}


@pytest.fixture(scope="module")
def adult():
    return load_scenario("adult")


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


def assert_same(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> None:
    assert set(a) == set(b) == TABLES
    for name in TABLES:
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True)


# --------------------------------------------------------------------------- parameters --

def test_controls_are_the_primer_controls_with_their_defaults():
    assert study.CONTROLS == primer.CONTROLS
    assert list(study.CONTROLS) == list(primer.CONTROLS)  # the export writes them in order
    assert study.SEED_KEY == "pr_seed"
    assert set(study.CONTROLS) | {"pr_group_column", study.SEED_KEY} | \
        set(study.DERIVED_DOMAINS) == set(study.DOMAINS)


def test_params_round_trip_through_the_controls():
    params = Params.from_controls({**EXAMPLE, "pr_draws": "1000", "pr_total": np.float64(2),
                                   "iw_epsilon": 3.0}, seed=7)
    assert params == Params(seed=7, kind="mean", column="age", low=17.0, high=90.0,
                            epsilon=0.5, draws=1000, total=2.0, choice_column="workclass")
    assert isinstance(params.draws, int) and isinstance(params.total, float)
    assert Params.from_controls(params.controls(), seed=7) == params
    assert set(params.controls()) == set(study.CONTROLS)


def test_prepare_key_ignores_the_cheap_fields_only():
    params = Params.from_controls(EXAMPLE, seed=1)
    for cheap in (dict(epsilon=2.0), dict(delta=1e-8), dict(draws=100_000), dict(total=3.0),
                  dict(total_delta=1e-3)):
        assert params.replace(**cheap).prepare_key() == params.prepare_key()
    for dear in (dict(kind="sum"), dict(column="hours-per-week"), dict(low=0.0),
                 dict(relation="add_remove"), dict(choice_column="race"), dict(seed=2)):
        assert params.replace(**dear).prepare_key() != params.prepare_key()


# --------------------------------------------------------------------------- the stages --

def test_compute_is_at_on_prepare(adult):
    params = Params.from_controls(EXAMPLE, seed=3)
    assert_same(study.compute(adult, params), study.at(study.prepare(adult, params), params))


def test_compute_is_the_primer_study_of_the_controls(adult):
    params = Params.from_controls(EXAMPLE, seed=3)
    assert_same(study.compute(adult, params), primer.study(adult, EXAMPLE, 3))


def test_at_another_epsilon_reuses_the_prepared_part(adult):
    params = Params.from_controls(EXAMPLE, seed=4)
    ready = study.prepare(adult, params)
    for cheap in (dict(epsilon=0.05), dict(epsilon=2.0, delta=1e-8, draws=2000, total=4.0)):
        moved = params.replace(**cheap)
        assert moved.prepare_key() == params.prepare_key()
        assert_same(study.at(ready, moved), study.compute(adult, moved))


def test_prepare_reads_the_private_data_once_and_reports_done(adult):
    seen = []
    ready = study.prepare(adult, Params.from_controls(EXAMPLE), progress=seen.append)
    assert seen == [1.0]
    assert ready.truth == pytest.approx(adult.raw_private["age"].clip(17, 90).mean(), rel=1e-12)
    assert ready.sensitivity == (90 - 17) / len(adult.raw_private)
    assert ready.n_records == len(adult.raw_private) and ready.relation == "replace"
    assert ready.choice.column == "workclass"
    counts = adult.raw_private["workclass"].value_counts()
    assert ready.choice.counts.tolist() == [float(counts.get(v, 0))
                                            for v in ready.choice.levels]


def test_a_mean_under_add_remove_is_refused_by_prepare(adult):
    with pytest.raises(DataError, match="denominator"):
        study.prepare(adult, Params.from_controls({**EXAMPLE, "pr_relation": "add_remove"}))


# ------------------------------------------------------------------------------- tables --

def test_default_tables_on_adult(adult):
    numbers = study.compute(adult, Params(draws=1000))
    info = numbers["query"].iloc[0]
    assert info["label"] == "count of records with income == >50K"
    assert info["truth_nonprivate"] == (adult.raw_private["income"] == ">50K").sum()
    assert info["sensitivity"] == 1.0 and info["relation"] == "replace one record"
    summary = numbers["mechanisms"].set_index("mechanism")
    assert list(summary.index) == list(primer.MECHANISMS)
    assert summary.loc["laplace", "half_width"] == Laplace(0.1, 1.0).tail_bound(0.95)
    assert summary["available"].all()  # epsilon 0.1 < 1: the classic Gaussian too
    answers = numbers["answers"]
    assert answers.groupby("mechanism").size().to_dict() == dict.fromkeys(primer.MECHANISMS,
                                                                           1000)


def test_the_answers_are_the_seeded_streams(adult):
    """Each mechanism's answers are the truth plus its own stream's noise (stream keyed by the
    seed and the mechanism, so ε moves rescale the same draws)."""
    small = study.compute(adult, Params(seed=5, draws=1000, epsilon=0.1))
    large = study.compute(adult, Params(seed=5, draws=1000, epsilon=0.4))
    truth = float(small["query"]["truth_nonprivate"].iloc[0])
    lap = [t.loc[t["mechanism"] == "laplace", "answer"].to_numpy() - truth
           for t in (small["answers"], large["answers"])]
    np.testing.assert_allclose(lap[0], 4 * lap[1], rtol=1e-9, atol=1e-9)


def test_exponential_table(adult):
    numbers = study.compute(adult, Params(choice_column="race", draws=1000, epsilon=0.5))
    choice = numbers["exponential"]
    assert list(choice.columns) == CHOICE_COLUMNS
    assert set(choice["column"]) == {"race"}
    assert choice["frequency"].sum() == pytest.approx(1.0)
    assert choice["probability_nonprivate"].sum() == pytest.approx(1.0)
    assert choice.loc[choice["best_nonprivate"], "candidate"].tolist() == ["White"]


def test_without_a_category_column_the_exponential_table_is_empty(adult):
    params = Params(draws=100)
    ready = study.prepare(adult, params)._replace(choice=None)
    numbers = study.at(ready, params)
    assert numbers["exponential"].empty
    assert list(numbers["exponential"].columns) == CHOICE_COLUMNS
    assert "exponential" not in set(numbers["budget"]["mechanism"])
    assert set(primer_figures.figures(numbers, params)) == {"answers"}


def test_budget_table_counts_the_answers(wine):
    numbers = study.compute(wine, Params(total=0.3, total_delta=1e-6, draws=100))
    budget = numbers["budget"].set_index("mechanism")
    assert budget.loc["laplace", "answers"] == 3
    assert budget.loc["gaussian_analytic", "answers"] == 1  # δ 1e-6 each, 1e-6 in all
    assert budget.loc["exponential", "answers"] == 3


def test_classic_gaussian_is_unavailable_at_epsilon_one(wine):
    numbers = study.compute(wine, Params(epsilon=1.0, draws=100))
    row = numbers["mechanisms"].set_index("mechanism").loc["gaussian_classic"]
    assert not row["available"] and "epsilon < 1" in row["note"]
    assert "gaussian_classic" not in set(numbers["budget"]["mechanism"])


def test_sum_under_add_remove(adult):
    params = Params(kind="sum", column="hours-per-week", low=-5.0, high=80.0,
                    relation="add_remove", draws=100)
    info = study.compute(adult, params)["query"].iloc[0]
    assert info["sensitivity"] == 80.0 and info["relation"] == "add or remove one record"


def test_count_over_a_threshold_opens_at_the_public_median():
    mvn = load_scenario("mvn-shift")
    numbers = study.compute(mvn, Params(column="x1", draws=100))
    info = numbers["query"].iloc[0]
    median = float(np.round(mvn.raw_public["x1"].median(), 6))
    assert info["label"] == f"count of records with x1 >= {median:g}"
    assert info["truth_nonprivate"] == (mvn.raw_private["x1"] >= median).sum()


# ----------------------------------------------------------------------------- takeaway --

def test_takeaway_quotes_the_numbers(adult):
    params = Params.from_controls(EXAMPLE, seed=0)
    numbers = study.compute(adult, params)
    text = study.takeaway(numbers, params)
    lap = numbers["mechanisms"].set_index("mechanism").loc["laplace"]
    gauss = numbers["mechanisms"].set_index("mechanism").loc["gaussian_analytic"]
    truth = numbers["query"]["truth_nonprivate"].iloc[0]
    assert "At ε = 0.5" in text and "mean of age clipped to [17, 90]" in text
    assert f"±{lap['half_width']:.4g}" in text and f"±{gauss['half_width']:.4g}" in text
    assert f"truth {truth:.6g}" in text
    assert f"(measured {100 * lap['coverage']:.1f} %)" in text
    assert "fits 2 such Laplace answers" in text and "and 2 Gaussian ones" in text
    other = study.takeaway(study.compute(adult, params.replace(epsilon=0.1)), params)
    assert other != text and "fits 10 such" in other


def test_figures_are_titled_with_the_settings(adult):
    params = Params.from_controls(EXAMPLE, seed=0)
    numbers = study.compute(adult, params)
    figures = primer_figures.figures(numbers, params)
    assert set(figures) == {"answers", "exponential"}
    for name, fig in figures.items():
        assert primer_figures.TITLES[name] in fig.layout.title.text
    assert "ε = 0.5, δ = 1e-06" in figures["answers"].layout.title.text
    assert not math.isnan(figures["answers"].data[0].y[0])
