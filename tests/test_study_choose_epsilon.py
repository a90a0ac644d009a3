"""The "Choose epsilon" study (dpcore.studies.choose_epsilon) and its figures, without Streamlit:
its parameters, its two stages, each view's tables and the takeaway."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpcore.accountant import BudgetAccountant
from dpcore.datasets import load_scenario
from dpcore.domains import query_domains
from dpcore.figures.choose_epsilon import figure_titles, figures
from dpcore.planning import (
    COARSE_GRID,
    compose,
    epsilon_for_gaussian,
    epsilon_for_laplace,
    mean_sensitivity,
    posterior_bound,
)
from dpcore.runs import RunConfig, run
from dpcore.studies.choose_epsilon import (
    CONTROLS,
    DOMAINS,
    PREPARED,
    QUERY_KEY,
    SEED_KEY,
    Params,
    Prepared,
    at,
    compute,
    prepare,
    takeaway,
)
from dpcore.validation import DataError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


def params(seed: int = 0, **controls) -> Params:
    return Params.from_controls({**CONTROLS, **controls}, seed)


def assert_same(first: dict[str, pd.DataFrame], second: dict[str, pd.DataFrame]) -> None:
    assert list(first) == list(second)
    for name in first:
        pd.testing.assert_frame_equal(first[name], second[name], check_exact=True)


def numbers_in(text: str) -> set[str]:
    return set(re.findall(r"\d[\d.,e+-]*\d|\d", text))


# --- parameters ---------------------------------------------------------------------------------

def test_params_round_trip_through_the_page_controls():
    assert Params().controls() == CONTROLS
    assert set(DOMAINS) <= set(CONTROLS) | {SEED_KEY}
    assert {k for k in CONTROLS if k.startswith(f"{QUERY_KEY}_")} == set(query_domains(QUERY_KEY))
    changed = {"ce_view": "composition", "ce_lambda": 0.3, "budget_epsilon": 5.0, "ce_n": 20,
               "ce_run_lr": True, "ce_q_value_1": 13.5,
               "ce_plan": {"edited_rows": {"0": {"epsilon": 0.2}}}}
    p = params(7, **changed)
    assert (p.seed, p.lambda_, p.budget, p.n, p.run_lr) == (7, 0.3, 5.0, 20, True)
    assert p.controls() == {**CONTROLS, **changed}
    assert Params.from_controls(p.controls(), 7) == p
    # numbers from JSON or numpy take the field's type; the ledger is not a control
    q = Params.from_controls({"ce_n": 20.0, "ce_epsilon": np.float64(0.5), "ce_lambda": "0.3"})
    assert (type(q.n), q.epsilon, q.lambda_) == (int, 0.5, 0.3)
    assert "ce_ledger" not in q.replace(ledger=({"epsilon": 1.0},)).controls()


def test_prepare_key_holds_what_prepare_reads_for_the_mode():
    base = params()
    # an ε move, and any control of a closed form, never invalidates the prepared part
    for change in ({"epsilon": 0.3}, {"err_count": 1.0}, {"query": "mean"}, {"prior": 0.5}):
        assert base.replace(**change).prepare_key() == base.prepare_key()
    theory = params(ce_target="iw_theory")
    assert theory.replace(err_iw=0.2, kind="plugin", tail="chebyshev", level=0.5,
                          epsilon=3.0).prepare_key() == theory.prepare_key()
    for change in ({"lambda_": 0.3}, {"reps": 20}, {"route": "public"}, {"seed": 1},
                   {"q_n": 2}):
        assert theory.replace(**change).prepare_key() != theory.prepare_key()
    mc = params(ce_target="iw_mc")  # the fits are prepared; the target's search is in at()
    assert mc.replace(err_iw=0.2, level=0.9).prepare_key() == mc.prepare_key()
    assert mc.replace(lambda_=0.3).prepare_key() != mc.prepare_key()
    lr = params(ce_target="lr", ce_run_lr=True)
    assert lr.replace(err_lr=0.3, epsilon=0.1).prepare_key() == lr.prepare_key()
    assert lr.replace(restarts=3).prepare_key() != lr.prepare_key()
    assert set(PREPARED) == {"iw_theory", "iw_mc", "lr", "subset"}
    assert params(ce_view="risk").mode == "risk"
    assert params(ce_view=None, ce_target="gaussian").mode == "gaussian"  # a cleared view


# --- the two stages -----------------------------------------------------------------------------

@pytest.mark.parametrize("controls", [
    {"ce_target": "iw_theory", "ce_reps": 20, "ce_kind": "plugin"},
    {"ce_target": "iw_mc", "ce_reps": 20, "ce_route": "public", "ce_err_iw": 0.2},
    {"ce_target": "lr", "ce_run_lr": True, "ce_restarts": 3},
    {"ce_view": "risk", "ce_risk_delta": 1e-4},
    {"ce_view": "composition"},
])
def test_compute_is_at_of_prepare_and_at_reuses_the_prepared_part(wine, controls):
    p = params(9, **controls)
    ready = prepare(wine, p)
    assert_same(compute(wine, p), at(ready, p))
    other = p.replace(epsilon=0.03)  # an ε no stage has seen
    assert other.prepare_key() == p.prepare_key()
    assert_same(at(ready, other), compute(wine, other))


def test_the_grid_studies_error_target_reuses_the_grid(wine):
    # a strict target: the release, centred on a public model that already learns wine's
    # cultivar, meets a loose one at the grid's smallest ε
    p = params(9, ce_target="lr", ce_run_lr=True, ce_restarts=3, ce_err_lr=0.02)
    ready = prepare(wine, p)
    assert isinstance(ready, Prepared) and ready.runs.shape == (len(COARSE_GRID), 9)
    looser = p.replace(err_lr=0.3)
    assert_same(at(ready, looser), compute(wine, looser))
    assert (at(ready, looser)["metrics"]["smallest_epsilon"].iloc[0]
            < at(ready, p)["metrics"]["smallest_epsilon"].iloc[0])


def test_closed_forms_and_views_prepare_nothing():
    for p in (params(), params(ce_target="gaussian"), params(ce_view="risk"),
              params(ce_view="composition")):
        assert prepare(None, p) == Prepared()


def test_bad_targets_and_missing_data_say_so():
    with pytest.raises(DataError, match="Unknown target 'nope'"):
        prepare(None, params(ce_target="nope"))
    with pytest.raises(DataError, match="needs a scenario"):
        prepare(None, params(ce_target="iw_mc"))


# --- each view's tables -------------------------------------------------------------------------

def test_laplace_and_gaussian_targets_invert_their_closed_forms():
    numbers = compute(None, params())
    assert list(numbers) == ["metrics", "curve"]
    row = numbers["metrics"].iloc[0]
    # a count within ±10 in 95 % of releases: ε = ln(20) / 10
    assert row["smallest_epsilon"] == pytest.approx(math.log(20) / 10, rel=1e-6)
    assert row["smallest_epsilon"] == pytest.approx(epsilon_for_laplace(1.0, 10.0), rel=1e-9)
    assert (row["runs_per_epsilon"], row["sensitivity"], row["delta"]) == (0, 1.0, 0.0)
    assert row["risk_of_1pct_prior"] == pytest.approx(posterior_bound(0.01,
                                                                      row["smallest_epsilon"]))
    mean = compute(None, params(ce_target="gaussian", ce_query="mean", ce_n=500,
                                ce_err_mean=0.3, ce_delta=1e-5, ce_level=0.9))
    row = mean["metrics"].iloc[0]
    sensitivity = mean_sensitivity(500, 0.0, 100.0)
    assert (row["sensitivity"], row["delta"], row["level"]) == (sensitivity, 1e-5, 0.9)
    assert row["smallest_epsilon"] == pytest.approx(
        epsilon_for_gaussian(sensitivity, 0.3, 0.9, delta=1e-5), rel=1e-6)
    unmet = compute(None, params(ce_err_count=0.01))["metrics"].iloc[0]  # needs ε = 300
    assert not unmet["met"] and math.isnan(unmet["smallest_epsilon"])


def test_data_targets_name_their_curve_by_the_data_they_read(wine):
    private = compute(wine, params(9, ce_target="iw_theory", ce_reps=20))
    assert list(private) == ["metrics", "curve_nonprivate"]
    row = private["metrics"].iloc[0]
    assert (row["route"], row["query"], row["replicates"]) == ("private", "I(cultivar == 1)", 20)
    public = compute(wine, params(9, ce_target="lr", ce_run_lr=True, ce_restarts=3,
                                  ce_route="public"))
    assert list(public) == ["metrics", "curve", "runs"]
    assert list(public["runs"]["epsilon"]) == list(COARSE_GRID)
    assert public["runs"].shape[1] == 1 + public["metrics"]["runs_per_epsilon"].iloc[0]
    off = compute(wine, params(ce_target="subset"))
    assert list(off) == ["metrics"] and not off["metrics"]["study_run"].iloc[0]
    assert figures(off, params(ce_target="subset")) == {}


def test_risk_view_bounds_the_posterior_at_the_slider(wine):
    numbers = compute(wine, params(ce_view="risk", ce_epsilon=2.0, ce_prior=0.1,
                                   ce_risk_delta=1e-3))
    assert list(numbers) == ["metrics", "posterior_curves", "posterior_curve_delta",
                             "attacker", "interval", "deployments", "odds"]
    # the published deployments, each with its source, and the chosen ε marked among them
    assert numbers["deployments"]["source"].notna().all() and len(numbers["deployments"]) >= 10
    row = numbers["metrics"].iloc[0]
    assert row["posterior_at_most"] == posterior_bound(0.1, 2.0)
    assert row["posterior_expected_with_delta"] == posterior_bound(0.1, 2.0, 1e-3)
    odds = numbers["odds"]
    assert 2.0 in set(odds["epsilon"]) and np.allclose(odds["odds_ratio"], np.exp(odds["epsilon"]))
    assert "posterior_curve_delta" not in compute(wine, params(ce_view="risk"))


def test_composition_view_totals_the_plan_and_adds_the_ledger_when_asked():
    numbers = compute(None, params(ce_view="composition"))
    assert list(numbers) == ["metrics", "composition", "interval", "growth"]
    row, table = numbers["metrics"].iloc[0], numbers["composition"]
    # the default plan: 100 Laplace at 0.05, 4 Gaussian at (0.5, 1e-6), 1 importance at 0.1
    assert row["sequential_epsilon"] == pytest.approx(7.1) and row["releases"] == 105
    eps, deltas = [0.05] * 100 + [0.5] * 4 + [0.1], [0] * 100 + [1e-6] * 4 + [0]
    assert row["advanced_epsilon"] == compose(eps, deltas, "advanced", 1e-6)[0]
    assert (row["growth_from"], row["growth_epsilon_each"]) == ("plan", 0.05)
    assert not row["sequential_fits_budget"] and not row["ledger_included"]
    assert list(table["method"]) == ["sequential", "advanced", "zcdp", "rdp", "pld"]
    # dp-accounting's totals are the tightest of the five on this plan (issue 25)
    totals = table.set_index("method")["epsilon"]
    assert totals["pld"] < totals["rdp"] < min(totals["advanced"], totals["zcdp"])
    accountant = BudgetAccountant(epsilon=10.0)
    accountant.spend(0.5, mechanism="Laplace", dataset="wine")
    ledger = tuple(accountant.records.to_dict("records"))
    p = params(ce_view="composition", budget_epsilon=10.0).replace(ledger=ledger)
    ignored = compute(None, p)  # the toggle is off
    pd.testing.assert_frame_equal(ignored["composition"], table)
    assert not ignored["metrics"]["ledger_included"].iloc[0]
    added = compute(None, p.replace(with_ledger=True))["metrics"].iloc[0]
    assert added["ledger_included"] and added["releases"] == 106
    assert added["sequential_epsilon"] == pytest.approx(7.6) and added["sequential_fits_budget"]
    slider = compute(None, params(ce_view="composition", ce_epsilon=0.3,
                                  ce_plan={"deleted_rows": [0]}))["metrics"].iloc[0]
    assert (slider["growth_from"], slider["growth_epsilon_each"]) == ("slider", 0.3)


# --- takeaway and figures -----------------------------------------------------------------------

@pytest.mark.parametrize("controls", [{}, {"ce_err_count": 0.01}, {"ce_view": "risk"},
                                      {"ce_view": "composition"}, {"ce_target": "lr"}])
def test_takeaway_quotes_the_numbers(wine, controls):
    p = params(**controls)
    numbers = compute(wine, p)
    text = takeaway(numbers, p)
    assert text.count(". ") == 1 and text.endswith(".")
    row = numbers["metrics"].iloc[0]
    words = numbers_in(text)
    if "posterior_at_most" in row:
        assert f"{100 * row['posterior_at_most']:.2f}" in words
    elif "composition" in numbers:
        assert {f"{row['sequential_epsilon']:.3g}", str(row["releases"])} <= words
    elif not row.get("study_run", True):
        assert "switched off" in text
    elif row["met"]:
        assert {f"{row['smallest_epsilon']:.3g}", f"{100 * row['risk_of_1pct_prior']:.1f}"} \
            <= words
    else:
        assert f"{row['achieved']:.3g}" in words
    other = takeaway(compute(wine, p.replace(epsilon=0.3, budget=20.0, err_count=5.0)), p)
    assert (other != text) == ("ce_target" not in controls)  # nothing canned


def test_example_config_runs_and_its_takeaway_quotes_its_numbers():
    result = run(RunConfig.load(ROOT / "dpcore" / "examples" / "choose_epsilon-adult.json"))
    row = result.numbers["metrics"].iloc[0]
    assert {f"{row['smallest_epsilon']:.3g}", f"{100 * row['risk_of_1pct_prior']:.1f}"} \
        <= numbers_in(result.takeaway())


@pytest.mark.parametrize("controls, names", [
    ({}, ["target"]), ({"ce_view": "risk", "ce_risk_delta": 1e-4}, ["risk", "deployments"]),
    ({"ce_view": "composition"}, ["composition", "growth"]),
])
def test_figures_are_titled_and_mark_the_slider(controls, names):
    p = params(**controls, ce_epsilon=2.0)
    numbers = compute(None, p)
    figs, titles = figures(numbers, p), figure_titles(numbers, p)
    assert list(figs) == list(titles) == names
    for name, fig in figs.items():
        assert fig.data and fig.layout.title.text.startswith(titles[name][0])
    if "target" in figs:
        assert any(t.name == "the slider's ε = 2" for t in figs["target"].data)
        assert titles["target"] == ("95% noise radius vs ε (closed form: Laplace tail)",
                                    "a count (add or remove one record); Laplace")
    if "risk" in figs:
        assert any(t.name.startswith("ε = 2, δ = 0.0001") for t in figs["risk"].data)


def test_a_data_targets_figure_context_starts_with_the_data(wine):
    p = params(9, ce_target="iw_theory", ce_reps=20)
    numbers = compute(wine, p)
    title, context = figure_titles(numbers, p, data=wine.title)["target"]
    assert context == (f"{wine.title}; I(cultivar == 1); λ = 0.1; "
                       "Private D (a non-private study)")
    assert figure_titles(numbers, p)["target"][1].startswith("I(cultivar == 1)")


def test_a_target_met_at_the_grids_smallest_epsilon_says_it_says_little():
    row = {"target": "lr", "statistic": "test error", "source": "simulated", "target_value": 0.17,
           "met": True, "smallest_epsilon": 0.01, "risk_of_1pct_prior": 0.0101,
           "route": "private", "study_run": True, "grid_smallest": 0.01}
    text = takeaway({"metrics": pd.DataFrame([row])}, None)
    assert "met already at the smallest ε tried (0.01)" in text
    assert "centred on a model fitted on the public set" in text
    text = takeaway({"metrics": pd.DataFrame([row | {"smallest_epsilon": 0.3}])}, None)
    assert "smallest ε tried" not in text
