"""dpcore.primer (the mechanism primer's computations), run on its example, and its figures.

Statistical tests use fixed seeds and tolerances derived from theory (stated where used).
"""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore import primer
from dpcore.datasets import load_scenario
from dpcore.figures import primer as primer_figures
from dpcore.mechanisms import Exponential
from dpcore.planning import compose
from dpcore.primer import PrimerQuery
from dpcore.runs import RunConfig, run
from dpcore.studies import primer as primer_study
from dpcore.validation import DataError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "dpcore" / "examples" / "primer-adult.json"


@pytest.fixture(scope="module")
def adult():
    return load_scenario("adult")


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


# ------------------------------------------------------------------------------ queries --

@pytest.mark.parametrize("kind, relation, expected", [
    ("count", "replace", 1.0), ("count", "add_remove", 1.0),
    ("sum", "replace", 8.0), ("sum", "add_remove", 5.0),
    ("mean", "replace", 8.0 / 40),
])
def test_sensitivity_table(kind, relation, expected):
    query = (primer.count("x", 1) if kind == "count"
             else PrimerQuery(kind, "x", low=-5.0, high=3.0))
    assert primer.sensitivity(query, 40, relation) == pytest.approx(expected, rel=1e-15)


def test_mean_under_add_remove_is_refused_with_the_reason():
    with pytest.raises(DataError, match="denominator"):
        primer.sensitivity(PrimerQuery("mean", "x", low=0, high=1), 10, "add_remove")


@pytest.mark.parametrize("kind, relation", [("sum", "replace"), ("sum", "add_remove"),
                                            ("mean", "replace")])  # mean + add_remove: refused
def test_sensitivity_bounds_every_neighbour_and_is_attained(kind, relation):
    """|f(D) - f(D')| <= sensitivity over random neighbours, with equality at the extremes."""
    rng = np.random.default_rng(0)
    low, high = -2.0, 7.0
    query = PrimerQuery(kind, "x", low=low, high=high)
    data = pd.DataFrame({"x": rng.uniform(-10, 15, size=50)})
    sens = primer.sensitivity(query, len(data), relation)
    base = primer.true_answer(query, data)
    changes = []
    for i in range(50):
        for new in (-1e6, low, high, 1e6, rng.uniform(-10, 15)):
            if relation == "replace":
                other = data.copy()
                other.iloc[i, 0] = new
            else:
                other = pd.concat([data, pd.DataFrame({"x": [new]})], ignore_index=True)
            changes.append(abs(primer.true_answer(query, other) - base))
        if relation == "add_remove":
            changes.append(abs(primer.true_answer(query, data.drop(index=i)) - base))
    assert max(changes) <= sens * (1 + 1e-12)
    # Attained: the worst neighbour moves the answer by the sensitivity (up to rounding).
    extreme = pd.DataFrame({"x": np.r_[low, np.full(49, 0.0)]})
    other = extreme.copy()
    if relation == "replace":
        other.iloc[0, 0] = high
    else:
        furthest = high if abs(high) >= abs(low) else low
        other = pd.concat([extreme, pd.DataFrame({"x": [furthest]})], ignore_index=True)
    moved = abs(primer.true_answer(query, other) - primer.true_answer(query, extreme))
    assert moved == pytest.approx(sens, rel=1e-12)


def test_count_changes_by_at_most_one():
    data = pd.DataFrame({"c": list("aabbbc")})
    query = primer.count("c", "b")
    assert primer.true_answer(query, data) == 3.0
    for i in range(len(data)):
        for new in "abcz":
            other = data.copy()
            other.iloc[i, 0] = new
            assert abs(primer.true_answer(query, other) - 3.0) <= 1.0


def test_values_clip_and_missing_values_count_as_the_midpoint():
    query = PrimerQuery("sum", "x", low=0.0, high=10.0)
    frame = pd.DataFrame({"x": [-5.0, 3.0, 50.0, np.nan]})
    assert query.values(frame).tolist() == [0.0, 3.0, 10.0, 5.0]
    assert primer.true_answer(query, frame) == 18.0
    threshold = primer.count("x", 3, threshold=True)
    assert threshold.values(frame).tolist() == [0.0, 1.0, 1.0, 0.0]
    assert str(threshold) == "count of records with x >= 3"


@pytest.mark.parametrize("args, error", [
    (dict(kind="median", column="x", low=0, high=1), ValueError),
    (dict(kind="sum", column=3, low=0, high=1), TypeError),
    (dict(kind="sum", column="x"), ValueError),
    (dict(kind="sum", column="x", low=2, high=1), ValueError),
    (dict(kind="sum", column="x", low=0, high=math.inf), ValueError),
    (dict(kind="sum", column="x", low="0", high=1), TypeError),
    (dict(kind="count", column="x"), ValueError),
])
def test_invalid_queries(args, error):
    with pytest.raises(error):
        PrimerQuery(**args)


def test_unknown_column_is_a_data_error():
    with pytest.raises(DataError, match="does not have"):
        primer.true_answer(primer.count("nope", 1), pd.DataFrame({"x": [1]}))


def test_bound_problems_lists_every_problem():
    assert primer.bound_problems(0.0, 1.0) == []
    assert len(primer.bound_problems(None, math.nan)) == 2
    assert primer.bound_problems(3, 3) == [
        "The upper bound (3) must be larger than the lower bound (3)."]


# ------------------------------------------------------------------------------ bounds --

def test_private_bounds_are_refused_with_the_reason(adult):
    with pytest.raises(DataError, match="never taken from the private data"):
        primer.suggest_bounds(adult, "age", "private")


def test_default_bounds_come_from_public_information_only(adult, wine):
    low, high, where = primer.default_bounds(adult, "age")
    assert where == "public"
    assert (low, high) == (adult.raw_public["age"].min(), adult.raw_public["age"].max())
    assert primer.default_bounds(wine, "alcohol") == (*wine.bounds["alcohol"], "scaling")
    # Changing D changes no default: nothing is read from the private data.
    extreme = adult.raw_private.assign(age=1000, **{"hours-per-week": -5})
    changed = dataclasses.replace(adult, raw_private=extreme)
    for column in ("age", "hours-per-week"):
        assert primer.default_bounds(changed, column) == primer.default_bounds(adult, column)
        assert primer.default_threshold(changed, column) == primer.default_threshold(
            adult, column)


def test_public_range_is_refused_when_E_was_derived_from_D():
    derived = load_scenario("wine", public="identical")
    with pytest.raises(DataError, match="derived from the private data"):
        primer.suggest_bounds(derived, "alcohol", "public")
    # The scaling range was fixed on the original public set: still offered.
    assert primer.default_bounds(derived, "alcohol")[2] == "scaling"


def test_candidates_are_public_levels_never_read_from_D(adult):
    levels = primer.candidates(adult, "workclass")
    assert levels == list(adult.categories["workclass"])
    private = adult.raw_private.copy()
    private.loc[:200, "workclass"] = "Only-in-D"
    changed = dataclasses.replace(adult, raw_private=private)
    assert "Only-in-D" not in primer.candidates(changed, "workclass")
    table = primer.selection_study(changed, "workclass", 1.0, n_draws=100, seed=0)
    assert "Only-in-D" not in set(table["candidate"])


def test_columns(adult):
    assert "age" in primer.numeric_columns(adult) and "age" not in primer.category_columns(adult)
    assert "workclass" in primer.category_columns(adult)
    assert primer.column_options(adult, "mean") == primer.numeric_columns(adult)


# ------------------------------------------------------------------------------ noise --

N_DRAWS = 100_000


@pytest.fixture(scope="module")
def study_half():
    """A study at epsilon = 0.5 (all three mechanisms available)."""
    return primer.answer_study(40.0, 0.25, 0.5, 1e-6, n_draws=N_DRAWS, seed=11)


def test_coverage_matches_the_level(study_half):
    # Coverage is a binomial share: SD sqrt(0.95 * 0.05 / 1e5) = 6.9e-4; 5 SD = 0.0034.
    _, summary = study_half
    assert summary["available"].all()
    tolerance = 5 * math.sqrt(0.95 * 0.05 / N_DRAWS)
    for row in summary.itertuples():
        assert abs(row.coverage - 0.95) < tolerance, row.name


def test_measured_sd_matches_theory(study_half):
    # Relative SD of a sample SD: ~sqrt((kurtosis - 1) / (4 n)); Laplace kurtosis 6 ->
    # sqrt(5 / 4e5) = 0.0035, Gaussian kurtosis 3 -> 0.0022; tolerance 5 of those.
    _, summary = study_half
    for row in summary.itertuples():
        kurtosis = 6.0 if row.mechanism == "laplace" else 3.0
        tolerance = 5 * math.sqrt((kurtosis - 1) / (4 * N_DRAWS))
        assert abs(row.measured_sd / row.noise_sd - 1) < tolerance, row.name


def test_draws_follow_the_exact_law(study_half):
    # KS against the exact noise law (fixed seed: a fixed p-value). Power check: a scale off by
    # a factor 1 + r moves the CDF by about r max|t f(t)| (1/(2e) = 0.18 for Laplace, phi(1) =
    # 0.24 for the normal), 0.018 at r = 10 %, while p = 1e-6 at n = 1e5 needs a KS distance
    # of only sqrt(ln(2e6) / (2n)) = 0.0085: so a 10 % wrong scale must be rejected.
    draws, summary = study_half
    for row in summary.itertuples():
        noise = draws.loc[draws["mechanism"] == row.mechanism, "answer"].to_numpy() - 40.0
        law = "laplace" if row.mechanism == "laplace" else "norm"
        assert stats.kstest(noise, law, args=(0.0, row.scale)).pvalue > 1e-3, row.name
        assert stats.kstest(noise, law, args=(0.0, 1.10 * row.scale)).pvalue < 1e-6


def test_half_width_is_the_exact_quantile(study_half):
    _, summary = study_half
    row = summary.set_index("mechanism")
    lap, gau = row.loc["laplace"], row.loc["gaussian_analytic"]
    assert stats.laplace.cdf(lap.half_width, scale=lap.scale) * 2 - 1 == pytest.approx(0.95)
    assert stats.norm.cdf(gau.half_width, scale=gau.scale) * 2 - 1 == pytest.approx(0.95)
    # Laplace scale = sensitivity / epsilon; the classic Gaussian is wider than the analytic.
    assert lap.scale == pytest.approx(0.25 / 0.5)
    assert row.loc["gaussian_classic"].half_width > gau.half_width
    assert (row["interval_high_nonprivate"] - row["interval_low_nonprivate"]).to_numpy() \
        == pytest.approx(2 * row["half_width"].to_numpy())


def test_studies_are_seeded_and_each_mechanism_has_its_own_stream():
    a, _ = primer.answer_study(5.0, 1.0, 0.5, 1e-6, n_draws=1000, seed=3)
    b, _ = primer.answer_study(5.0, 1.0, 0.5, 1e-6, n_draws=1000, seed=3)
    c, _ = primer.answer_study(5.0, 1.0, 0.5, 1e-6, n_draws=1000, seed=4)
    d, _ = primer.answer_study(5.0, 1.0, 0.5, 1e-3, n_draws=1000, seed=3)  # other delta
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["answer"], c["answer"])
    lap = a["mechanism"] == "laplace"
    np.testing.assert_array_equal(a.loc[lap, "answer"], d.loc[lap, "answer"])


def test_classic_gaussian_is_unavailable_at_epsilon_one_or_more():
    draws, summary = primer.answer_study(0.0, 1.0, 1.0, 1e-6, n_draws=10, seed=0)
    row = summary.set_index("mechanism").loc["gaussian_classic"]
    assert not row.available and "epsilon < 1" in row.note
    assert set(draws["mechanism"]) == {"laplace", "gaussian_analytic"}


@pytest.mark.parametrize("n_draws, error", [(0, ValueError), (2.5, TypeError),
                                            (True, TypeError), (10**7, ValueError)])
def test_invalid_draws(n_draws, error):
    with pytest.raises(error):
        primer.answer_study(0.0, 1.0, 1.0, 1e-6, n_draws=n_draws, seed=0)


# ------------------------------------------------------------------------ exponential --

def test_exponential_frequencies_match_the_exact_probabilities(wine):
    # Each frequency is a binomial share: |f - p| < 5 sqrt(p (1 - p) / n).
    n = 50_000
    table = primer.selection_study(wine, "cultivar", 0.1, n_draws=n, seed=5)
    assert table["probability_nonprivate"].sum() == pytest.approx(1.0)
    for row in table.itertuples():
        p = row.probability_nonprivate
        assert abs(row.frequency - p) < 5 * math.sqrt(p * (1 - p) / n) + 1e-12
    counts = wine.raw_private["cultivar"].value_counts()
    assert table["count_nonprivate"].tolist() == [float(counts.get(v, 0)) for v in (1, 2, 3)]
    assert table.loc[table["best_nonprivate"], "count_nonprivate"].item() == counts.max()


def test_exponential_probabilities_move_by_at_most_e_to_the_epsilon(wine):
    """Replacing one record moves one count up and another down by 1: every selection
    probability changes by a factor of at most e^epsilon (DR14 Theorem 3.10)."""
    eps = 0.7
    mech = Exponential(eps, 1.0)
    counts = primer.selection_study(wine, "cultivar", eps, n_draws=10, seed=0)[
        "count_nonprivate"].to_numpy()
    worst = 0.0
    for i in range(3):
        for j in range(3):
            if i != j and counts[i] > 0:
                other = counts.copy()
                other[i] -= 1
                other[j] += 1
                ratio = np.abs(np.log(mech.probabilities(other) / mech.probabilities(counts)))
                worst = max(worst, ratio.max())
    assert worst <= eps + 1e-12
    assert worst > eps / 2  # the bound is not vacuous: the change is of order epsilon


# ------------------------------------------------------------------------ composition --

@pytest.mark.parametrize("total", [0.1, 0.3, 1.0, 2.0, 5.0, 10.0])
@pytest.mark.parametrize("eps", [0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 1.0])
def test_answers_in_budget_is_the_largest_k_that_composes_within_the_total(total, eps):
    k = primer.answers_in_budget(total, eps)
    assert compose([eps] * k)[0] <= total * (1 + 1e-9) if k else True
    assert compose([eps] * (k + 1))[0] > total * (1 + 1e-9)


def test_answers_in_budget_with_delta():
    assert primer.answers_in_budget(10.0, 0.1, total_delta=1e-5, delta=1e-6) == 10
    assert primer.answers_in_budget(0.05, 0.1) == 0
    with pytest.raises(ValueError):
        primer.answers_in_budget(1.0, 0.0)
    with pytest.raises(TypeError):
        primer.answers_in_budget("1", 0.1)


# ------------------------------------------------------------------------ page numbers --

def test_defaults_on_adult_count_the_positive_class(adult):
    c = primer.resolve_controls(adult, {})
    assert (c["pr_kind"], c["pr_column"], c["pr_value"]) == ("count", "income", ">50K")
    assert c["pr_choice_column"] == "occupation"  # the closest race in E
    mean = primer.resolve_controls(adult, {"pr_kind": "mean", "pr_column": "income"})
    assert mean["pr_column"] == "age" and (mean["pr_low"], mean["pr_high"]) == (17.0, 90.0)
    with pytest.raises(ValueError, match="Unknown primer controls"):
        primer.resolve_controls(adult, {"iw_epsilon": 1.0})


def test_study_tables_and_nonprivate_labels(adult):
    numbers = primer.study(adult, {"pr_kind": "sum", "pr_column": "hours-per-week",
                                   "pr_low": 0.0, "pr_high": 80.0, "pr_draws": 1000}, 0)
    assert set(numbers) == {"query", "mechanisms", "answers", "exponential", "budget"}
    info = numbers["query"].iloc[0]
    truth = adult.raw_private["hours-per-week"].clip(0, 80).sum()
    assert info["truth_nonprivate"] == pytest.approx(truth)
    assert info["sensitivity"] == 80.0 and info["relation"] == "replace one record"
    for name in ("truth_nonprivate", "interval_low_nonprivate"):
        assert name in numbers["mechanisms"]
    assert "count_nonprivate" in numbers["exponential"]


def test_run_reproduces_the_study_numbers(adult):
    """dpcore.runs.run on the example config gives study()'s numbers, bit for bit."""
    config = RunConfig.load(EXAMPLE)
    assert config.page == "primer" and primer_study.SEED_KEY == "pr_seed"
    assert set(config.controls) <= set(primer_study.CONTROLS)
    result = run(config)
    expected = primer.study(adult, config.controls, config.seed)
    assert set(result.numbers) == set(expected)
    for name, table in expected.items():
        pd.testing.assert_frame_equal(result.numbers[name], table, check_exact=True)
    text = result.takeaway()
    lap = expected["mechanisms"].set_index("mechanism").loc["laplace"]
    assert f"±{lap['half_width']:.4g}" in text
    assert f"fits {int(expected['budget']['answers'].iloc[0])}" in text
    assert text.count(". ") >= 1 and text.endswith(".")


def test_example_config_is_valid_json():
    config = json.loads(EXAMPLE.read_text())
    assert config["page"] == "primer" and config["format"] == "privacy-utility-explorer/run"


# ------------------------------------------------------------------------------ figures --

def test_figures(adult):
    params = primer_study.Params(epsilon=0.5, draws=1000)
    numbers = primer_study.compute(adult, params)
    figures = primer_figures.figures(numbers, params)
    assert set(figures) == {"answers", "exponential"}
    names = [t.name for t in figures["answers"].data]
    assert "true answer (non-private)" in names and names.count("Laplace") == 1
    # One histogram per available mechanism (three at epsilon = 0.5).
    assert sum(t.type == "bar" for t in figures["answers"].data) == 3
    bars = figures["exponential"].data[0]
    assert list(bars.x) == list(numbers["exponential"]["candidate"])
    assert np.allclose(bars.y, 100 * numbers["exponential"]["frequency"])
    params = params.replace(epsilon=1.0)
    one = primer_figures.figures(primer_study.compute(adult, params), params)
    assert sum(t.type == "bar" for t in one["answers"].data) == 2  # classic unavailable


def test_figure_module_imports_no_streamlit():
    code = "import sys, dpcore.figures.primer, dpcore.primer, dpcore.studies.primer; " \
           "print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "False"
