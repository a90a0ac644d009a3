"""The importance-weighting page's study (:mod:`dpcore.studies.importance`) and figures
(:mod:`dpcore.figures.importance`): parameters keyed like the page's widgets, a prepared part
that every ε move reuses, each view's tables, and a takeaway that quotes them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from dpcore.datasets import load_scenario
from dpcore.figures import figures
from dpcore.figures.importance import TITLES
from dpcore.figures.importance import figures as importance_figures
from dpcore.importance import BootstrapStudy, bootstrap_estimates, expected_noise_norm
from dpcore.importance import experiments as iw_experiments
from dpcore.runs import RunConfig, run
from dpcore.runs.domains import query_domains
from dpcore.studies import importance as study
from dpcore.studies.importance import (
    EPSILON_GRID,
    MODEL_EPSILONS,
    VIEWS,
    Params,
    epsilon_axis,
    lambda_axis,
)

REPS = 20  # replicates: enough for every table's shape, a fraction of a second on Wine
#: The tables of each view, after the metrics row (on Wine, which has a target).
TABLES = {
    "Estimates vs ε": ["estimates_by_epsilon"],
    "Estimates vs λ": ["estimates_by_lambda"],
    "Bias vs SD": ["summary_by_lambda", "theory_by_lambda_nonprivate"],
    "Variance: theory": ["summary_by_lambda", "theory_by_lambda_nonprivate",
                         "summary_by_epsilon", "theory_by_epsilon_nonprivate"],
    "Baselines": ["baselines", "baselines_summary"],
    "Model training": ["model_distances", "model_reference_norms_nonprivate"],
    "Publish": [],
}
#: The figures each view draws, by name.
FIGURES = {
    "Estimates vs ε": ["estimates_by_epsilon"],
    "Estimates vs λ": ["estimates_by_lambda"],
    "Bias vs SD": ["bias_sd"],
    "Variance: theory": ["variance_by_epsilon", "variance_by_lambda"],
    "Baselines": ["baselines"],
    "Model training": ["model_distances_svm", "model_distances_lr"],
    "Publish": [],
}


def params_of(view: str, **fields) -> Params:
    """Wine-sized parameters of ``view``: 20 replicates, seed 7 (models trained on 5)."""
    return Params(**{"view": view, "reps": REPS, "models": True, "model_reps": 5, "seed": 7,
                     **fields})


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


@pytest.fixture(scope="module")
def prepared(wine):
    """Each view's prepared part at ε = 0.1, λ = 0.1."""
    return {view: study.prepare(wine, params_of(view)) for view in VIEWS}


@pytest.fixture(scope="module")
def numbers(prepared):
    return {view: study.at(ready, params_of(view)) for view, ready in prepared.items()}


# --- parameters ---------------------------------------------------------------------------------

def test_controls_are_the_pages_widget_keys_and_defaults():
    assert study.SEED_KEY == "iw_seed"
    assert {"iw_epsilon", "iw_lambda", "iw_reps", "iw_view", "iw_models",
            "iw_model_reps"} <= set(study.CONTROLS)
    assert study.CONTROLS["iw_lambda"] == 0.1 and study.CONTROLS["iw_view"] == VIEWS[0]
    # The query builder's controls, every one with a field (None: the widget's default).
    assert set(query_domains(study.QUERY_KEY)) <= set(study.CONTROLS)
    assert set(study.DOMAINS) <= set(study.CONTROLS) | {study.SEED_KEY}


def test_params_round_trip_through_the_controls():
    params = Params(epsilon=0.5, lam=0.03, reps=50, view="Baselines", q_n=2, q_combine="or",
                    q_col_1="alcohol", q_op_1=">", q_value_1=13.5, seed=4)
    controls = params.controls()
    assert controls["iw_lambda"] == 0.03 and "iw_lam" not in controls  # λ keeps its widget key
    assert Params.from_controls(controls, seed=4) == params
    assert Params.from_controls({**study.CONTROLS, "iw_lambda": "0.3", "iw_reps": 20.0},
                                seed=1) == Params(lam=0.3, reps=20, seed=1)
    assert Params.from_controls({"iw_view": None}).view == VIEWS[0]  # nothing chosen: the first
    with pytest.raises(ValueError, match="iw_view == 'Fig. 9'; choose one of"):
        Params(view="Fig. 9")


def test_prepare_key_ignores_epsilon_and_shares_what_views_prepare_alike():
    base = params_of("Estimates vs ε")
    keys = {view: params_of(view, models=False).prepare_key() for view in VIEWS}
    assert base.prepare_key() == base.replace(epsilon=3.0).prepare_key()
    # One λ: the ε boxes, the baselines, publishing and untrained models share their fits.
    assert (keys["Estimates vs ε"] == keys["Baselines"] == keys["Publish"]
            == keys["Model training"])
    assert keys["Estimates vs λ"] == keys["Bias vs SD"] == keys["Variance: theory"]
    assert keys["Estimates vs λ"] != keys["Estimates vs ε"]
    trained = params_of("Model training")
    assert trained.prepare_key() != keys["Model training"]
    assert trained.prepare_key() != trained.replace(model_reps=10).prepare_key()
    for change in ({"lam": 0.3}, {"reps": 50}, {"seed": 8}, {"q_kind": "Mean of a column"}):
        assert base.replace(**change).prepare_key() != base.prepare_key(), change


# --- the two stages ----------------------------------------------------------------------------

@pytest.mark.parametrize("view", VIEWS)
def test_compute_is_at_of_prepare(wine, numbers, view):
    again = study.compute(wine, params_of(view))
    assert list(again) == list(numbers[view]) == ["metrics", *TABLES[view]]
    for name, table in numbers[view].items():
        pd.testing.assert_frame_equal(again[name], table, check_exact=True)


@pytest.mark.parametrize("view", VIEWS)
def test_at_another_epsilon_reuses_the_prepared_part(wine, prepared, monkeypatch, view):
    fresh = study.compute(wine, params_of(view, epsilon=0.5))  # 0.5: not on the ε grid

    def no_fit(*args, **kwargs):
        raise AssertionError("an ε move fitted")

    monkeypatch.setattr(iw_experiments.BootstrapStudy, "fit", no_fit)
    monkeypatch.setattr(iw_experiments.BootstrapStudy, "fit_many", no_fit)
    moved = study.at(prepared[view], params_of(view, epsilon=0.5))
    assert list(moved) == list(fresh)
    for name, table in fresh.items():
        pd.testing.assert_frame_equal(moved[name], table, check_exact=True)


def test_at_refuses_a_part_prepared_for_other_parameters(prepared):
    with pytest.raises(ValueError, match="computed for other parameters"):
        study.at(prepared["Estimates vs ε"], params_of("Estimates vs ε", lam=0.3))
    with pytest.raises(ValueError, match="other parameters"):
        study.at(prepared["Estimates vs ε"], params_of("Bias vs SD"))


def test_each_cell_draws_its_own_stream(wine, prepared, numbers):
    """A cell's noise depends on (seed, λ, ε) only: the prepared cells at the grid's budgets and
    a cell drawn alone, from a study of its own, agree to the bit."""
    ready = prepared["Estimates vs ε"]
    fits = BootstrapStudy(wine.private, wine.public, REPS, rng=7).fit(0.1)
    b_E = ready.query.evaluate(wine.public)
    for eps in (*EPSILON_GRID, 0.5):
        np.testing.assert_array_equal(ready.estimates(0.1, eps),
                                      bootstrap_estimates(fits, b_E, eps))
    assert set(ready.by_epsilon) == set(EPSILON_GRID)
    # The metrics summarise the cell at the slider's ε (0.1, a prepared one).
    here = ready.by_epsilon[0.1]
    metrics = numbers["Estimates vs ε"]["metrics"].iloc[0]
    assert metrics["median_estimate"] == float(np.median(here))
    assert metrics["sd_estimate"] == pytest.approx(np.std(here, ddof=1), rel=1e-12)


# --- each view's tables ------------------------------------------------------------------------

def test_metrics_hold_the_headline_numbers(wine, numbers):
    m = numbers["Publish"]["metrics"].iloc[0]
    assert m["query"] == "I(cultivar == 1)"
    raw = wine.raw_private
    assert m["truth_nonprivate"] == pytest.approx((raw["cultivar"] == 1).mean(), abs=1e-12)
    assert (m["epsilon"], m["lam"], m["replicates"]) == (0.1, 0.1, REPS)
    assert (m["n_private"], m["n_public"], m["d"]) == (len(wine.private), len(wine.public),
                                                       wine.d + 1)
    assert m["noise_norm"] == expected_noise_norm(wine.d + 1, len(wine.private), 0.1, 0.1)
    assert m["log_weight_noise"] > 0


def test_estimates_by_epsilon_box_every_grid_budget_and_the_sliders(numbers):
    table = numbers["Estimates vs ε"]["estimates_by_epsilon"]
    assert list(table.columns) == ["lam", "epsilon", "rep", "estimate", "truth_nonprivate"]
    assert tuple(table["epsilon"].unique()) == epsilon_axis(0.1) == EPSILON_GRID  # 0.1 is in it
    assert (table.groupby("epsilon").size() == REPS).all() and set(table["lam"]) == {0.1}


def test_estimates_by_lambda_box_every_grid_lambda_at_the_sliders_epsilon(numbers):
    table = numbers["Estimates vs λ"]["estimates_by_lambda"]
    assert tuple(table["lam"].unique()) == lambda_axis(0.1) and set(table["epsilon"]) == {0.1}
    assert (table.groupby("lam").size() == REPS).all()


def test_bias_and_variance_views_pair_measurements_with_theory(numbers):
    bias = numbers["Bias vs SD"]
    summary, theory = bias["summary_by_lambda"], bias["theory_by_lambda_nonprivate"]
    assert list(summary["lam"]) == list(theory["lam"]) == list(lambda_axis(0.1))
    assert {"median", "sd", "variance", "bias", "mse"} <= set(summary.columns)
    variance = numbers["Variance: theory"]
    theory_eps = variance["theory_by_epsilon_nonprivate"]
    assert list(theory_eps["epsilon"]) == list(epsilon_axis(0.1))
    # Theorem 2's printed form is 4x the delta-method form, and a bound sits above the variance.
    np.testing.assert_allclose(theory_eps["bound_printed"], 4 * theory_eps["bound_delta"])
    pd.testing.assert_frame_equal(variance["summary_by_lambda"], summary)


def test_baselines_run_every_method_on_the_same_resamples(numbers):
    tables = numbers["Baselines"]
    frame, summary = tables["baselines"], tables["baselines_summary"]
    ours = frame[frame["method"] == "importance weights (this page)"]["estimate"].to_numpy()
    m = tables["metrics"].iloc[0]
    assert len(ours) == REPS and float(np.median(ours)) == m["median_estimate"]
    assert list(summary["method"]) == list(frame["method"].unique())
    assert {"public mean", "truth (non-private)", "Laplace mechanism (this query)"} <= set(
        summary["method"])


def test_model_training_uses_its_own_budgets(numbers):
    dist = numbers["Model training"]["model_distances"]
    assert set(dist["epsilon"].dropna()) == set(MODEL_EPSILONS)
    assert set(dist["model"]) == {"linear SVM", "logistic regression"}
    norms = numbers["Model training"]["model_reference_norms_nonprivate"]
    assert list(norms["model"]) == ["linear SVM", "logistic regression"]
    assert (norms["reference_norm"] > 0).all()


def test_model_training_without_training_or_target_gives_the_headline_only(wine):
    assert list(study.compute(wine, params_of("Model training", models=False))) == ["metrics"]
    untargeted = dataclasses.replace(wine, target=None)  # an upload without a target
    assert list(study.compute(untargeted, params_of("Model training"))) == ["metrics"]


def test_a_mean_query_and_a_two_condition_query(wine):
    mean = study.compute(wine, Params(q_kind="Mean of a column", q_mean_column="alcohol",
                                      reps=REPS, view="Publish"))
    assert mean["metrics"].iloc[0]["query"].startswith("mean of alcohol")
    either = study.compute(wine, Params(q_n=2, q_combine="or", q_col_1="alcohol", q_op_1=">",
                                        q_value_1=13.5, reps=REPS, view="Publish"))
    m = either["metrics"].iloc[0]
    raw = wine.raw_private
    assert m["query"] == "I(cultivar == 1 OR alcohol > 13.5)"
    assert m["truth_nonprivate"] == pytest.approx(
        ((raw["cultivar"] == 1) | (raw["alcohol"] > 13.5)).mean(), abs=1e-12)


# --- takeaway, runs and figures ----------------------------------------------------------------

@pytest.mark.parametrize("view", VIEWS)
def test_takeaway_quotes_the_numbers(numbers, view):
    tables = numbers[view]
    m = tables["metrics"].iloc[0]
    text = study.takeaway(tables, params_of(view))
    assert f"median {m['median_estimate']:.3f}" in text
    assert f"truth {m['truth_nonprivate']:.3f}" in text
    if view == "Estimates vs ε":
        sd = tables["estimates_by_epsilon"].groupby("epsilon")["estimate"].std()
        assert f"from {sd.iloc[0]:.3f} to {sd.iloc[-1]:.3f}" in text
    elif view == "Bias vs SD":
        summary = tables["summary_by_lambda"]
        assert f"smallest at λ = {summary.loc[summary['mse'].idxmin(), 'lam']:g}" in text
    elif view == "Variance: theory":
        row = tables["theory_by_epsilon_nonprivate"].iloc[2]  # ε = 0.1
        assert f"bound {row['bound_delta']:.3g}" in text
    elif view == "Baselines":
        assert "lands closest" in text
    elif view == "Publish":
        assert f"noise norm E‖δ‖ of {m['noise_norm']:.3g}" in text


def test_a_different_epsilon_says_different_things(prepared):
    params = params_of("Estimates vs λ")
    one = study.takeaway(study.at(prepared["Estimates vs λ"], params), params)
    moved = params.replace(epsilon=5.0)
    other = study.takeaway(study.at(prepared["Estimates vs λ"], moved), moved)
    assert one != other and "ε = 5" in other


def test_a_run_of_a_config_is_the_study():
    config = RunConfig("importance", {"builtin_name": "wine"},
                       {"iw_epsilon": 0.3, "iw_lambda": 0.03, "iw_reps": REPS,
                        "iw_view": "Bias vs SD"}, 7)
    result = run(config)
    assert result.params == Params(epsilon=0.3, lam=0.03, reps=REPS, view="Bias vs SD", seed=7)
    expected = study.compute(load_scenario("wine"), result.params)
    for name, table in expected.items():
        pd.testing.assert_frame_equal(result.numbers[name], table, check_exact=True)
    assert list(figures(result)) == ["bias_sd"]


@pytest.mark.parametrize("view", VIEWS)
def test_figures_are_the_views_and_titled(numbers, view):
    figs = importance_figures(numbers[view], params_of(view))
    assert list(figs) == FIGURES[view]
    for name, fig in figs.items():
        assert fig.layout.title.text.startswith(TITLES[name].replace("&", "&amp;"))
        assert fig.data


def test_the_page_draws_the_boxes_without_their_legend(numbers):
    shown = importance_figures(numbers["Estimates vs ε"], params_of("Estimates vs ε"),
                               legend=False)["estimates_by_epsilon"]
    exported = importance_figures(numbers["Estimates vs ε"],
                                  params_of("Estimates vs ε"))["estimates_by_epsilon"]
    assert {t.type for t in shown.data} == {"box"} and not shown.layout.showlegend
    assert exported.layout.showlegend
    boxes = [t for t in shown.data if t.type == "box"]
    chosen = boxes[-1]  # the slider's ε is drawn apart, in its own colour
    assert set(chosen.x) == {"0.1"}
    np.testing.assert_array_equal(
        chosen.y, numbers["Estimates vs ε"]["estimates_by_epsilon"].query("epsilon == 0.1")[
            "estimate"].to_numpy())
