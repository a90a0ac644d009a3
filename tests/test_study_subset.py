"""The optimal-public-subset study (dpcore.studies.subset): parameters, stages, views, takeaway.

Runs on the mvn-shift scenario (p = 2) with the coarse grid of 13 sizes and one or two repeats,
so that each set of Algorithm 2 runs takes a fraction of a second.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from dpcore.datasets import load_scenario
from dpcore.figures.subset import TITLES, figures
from dpcore.runs import RunConfig, run
from dpcore.studies import subset as study
from dpcore.studies.subset import CONTROLS, GRIDS, SEED_KEY, VIEWS, Params
from dpcore.subset import (
    lei_bins,
    lei_errors,
    paper_split,
    prepare_study,
    rescale,
    run_study,
    scenario_arguments,
    subset_study,
)
from dpcore.validation import DataError

COARSE = GRIDS[2]
BASE = Params(grid=COARSE, reps=2, seed=3)


def assert_same_numbers(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> None:
    assert list(a) == list(b)
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], check_exact=True)


@pytest.fixture(scope="module")
def mvn():
    return load_scenario("mvn-shift", p=2)


@pytest.fixture(scope="module")
def prepared(mvn):
    return study.prepare(mvn, BASE)


# --- parameters ---------------------------------------------------------------------------------

def test_controls_and_keys_are_the_pages():
    assert CONTROLS == {
        "sub_epsilon": 3.0, "sub_split": "0.8 : 0.2 : 1 (Sect. 5.1)",
        "sub_accounting": "calibrated", "sub_selection": "exponential",
        "sub_grid": "Low dimension from 10 points per coefficient", "sub_start": 10,
        "sub_step": 50, "sub_count": 30, "sub_lambda": 0.01, "sub_reps": 3,
        "sub_view": "error_vs_size", "sub_size": None, "sub_lei_budget": "paper",
        "sub_lei_bins": None}
    assert SEED_KEY == "sub_seed" and set(study.DOMAINS) == {*CONTROLS, SEED_KEY}


def test_params_round_trip_through_the_controls():
    params = Params(seed=7, epsilon=0.5, split="1 : 1 : 1 (Sect. 5.2)", accounting="as-printed",
                    grid=GRIDS[3], start=100, step=900, count=5, lambda_=0.1, reps=5,
                    view=VIEWS[2], size=1000, lei_budget="total", lei_bins=20)
    controls = params.controls()
    assert controls["sub_lambda"] == 0.1 and "sub_lambda_" not in controls
    assert Params.from_controls(controls, seed=7) == params
    # Values as a link or a JSON config gives them are converted; other pages' keys ignored.
    read = Params.from_controls({"sub_lambda": "0.1", "sub_epsilon": np.float64(2.0),
                                 "lr_lambda": 5.0}, seed=1)
    assert read == Params(seed=1, lambda_=0.1, epsilon=2.0)


def test_prepare_key_reads_lambda_only():
    key = BASE.prepare_key()
    for change in ({"epsilon": 0.1}, {"split": "0.5 : 1 : 0.5"}, {"accounting": "as-printed"},
                   {"selection": "noisy-curve"}, {"reps": 5}, {"view": VIEWS[1]},
                   {"size": 300}, {"seed": 99}, {"grid": GRIDS[3], "start": 200},
                   {"lei_budget": "total"}, {"lei_bins": 20}):
        assert BASE.replace(**change).prepare_key() == key, change
    assert BASE.replace(lambda_=0.1).prepare_key() != key


# --- the two stages -----------------------------------------------------------------------------

def test_compute_is_at_of_prepare(mvn, prepared):
    assert_same_numbers(study.compute(mvn, BASE), study.at(prepared, BASE))


@pytest.mark.slow  # Algorithm 2 run several times
@pytest.mark.parametrize("change", [{"epsilon": 0.5}, {"grid": GRIDS[3], "count": 8},
                                    {"seed": 11}])
def test_a_new_epsilon_grid_or_seed_reuses_the_prepared_part(mvn, prepared, change):
    other = BASE.replace(**change)
    misses = prepared.runs.computed
    numbers = study.at(prepared, other)
    assert prepared.runs.computed == misses + 1  # one new set of runs, nothing else
    assert_same_numbers(numbers, study.compute(mvn, other))


def test_view_size_and_revisited_epsilon_reread_the_runs(prepared):
    study.at(prepared, BASE)
    misses, kept = prepared.runs.computed, dict(prepared.runs.kept_selection)
    for change in ({"view": VIEWS[1]}, {"view": VIEWS[2]}, {"view": VIEWS[3]}, {"size": 300}):
        study.at(prepared, BASE.replace(**change))
    assert prepared.runs.computed == misses
    assert all(prepared.runs.kept_selection[key] is value for key, value in kept.items())


@pytest.mark.slow  # Algorithm 2 run several times
def test_staged_subset_study_is_the_one_call_study(mvn):
    data = rescale(mvn.private, mvn.public, **scenario_arguments(mvn))
    sizes = study.grid_sizes(COARSE, data.n_public)
    whole = subset_study(data, epsilon=paper_split(1.0), sizes=sizes, repeats=2, rng=4)
    staged = run_study(prepare_study(data), epsilon=paper_split(1.0), sizes=tuple(sizes),
                       repeats=2, rng=4)
    for name in ("dp_curves", "hybrid_curves", "distance", "selected", "lei"):
        np.testing.assert_array_equal(getattr(staged, name), getattr(whole, name))
    assert staged.public_only == whole.public_only


# --- the views ----------------------------------------------------------------------------------

@pytest.mark.parametrize("view, tables", [
    (VIEWS[0], ["metrics", "error_curve", "error_by_repeat", "selected"]),
    (VIEWS[1], ["metrics", "distance_curve_nonprivate"]),
    (VIEWS[2], ["metrics", "public_points", "private_points_nonprivate", "axes", "estimate",
                "subset_summary"]),
    (VIEWS[3], ["metrics"]),
])
def test_each_view_has_its_tables(prepared, view, tables):
    numbers = study.at(prepared, BASE.replace(view=view))
    assert list(numbers) == tables
    m = numbers["metrics"].iloc[0]
    # the slider's ε is what a run costs (calibrated accounting)
    assert m["n_sizes"] == 13 and m["repeats"] == 2 and m["epsilon_spent"] == pytest.approx(3.0)
    assert m["lei_error_mean_nonprivate"] > 0  # p = 2: Lei's histogram runs


def test_error_tables_agree_with_each_other(prepared):
    numbers = study.at(prepared, BASE)
    curve, by_repeat = numbers["error_curve"], numbers["error_by_repeat"]
    assert "noisy_criterion_repeat1" not in curve  # the exponential mechanism: index only
    mean = by_repeat.groupby("size")["dp_error_nonprivate"].mean()
    np.testing.assert_allclose(curve["dp_error_mean_nonprivate"], mean.to_numpy(), rtol=1e-12)
    assert curve["times_selected"].sum() == 2
    first = numbers["selected"]["selected_size"].iloc[0]
    assert numbers["metrics"]["selected_size_repeat1"].iloc[0] == first


@pytest.mark.parametrize("change", [{"selection": "noisy-curve"}, {"accounting": "as-printed"}])
def test_released_noisy_criteria_are_tabled(prepared, change):
    numbers = study.at(prepared, BASE.replace(**change))
    assert "noisy_criterion_repeat1" in numbers["error_curve"]


def test_as_printed_accounting_spends_more_than_it_counts(prepared):
    m = study.at(prepared, BASE.replace(accounting="as-printed"))["metrics"].iloc[0]
    assert m["epsilon_claimed"] == pytest.approx(3.0) and m["epsilon_spent"] > 3.0


def test_points_view_shows_the_inspected_candidate(prepared):
    numbers = study.at(prepared, BASE.replace(view=VIEWS[2], size=300))
    points, summary = numbers["public_points"], numbers["subset_summary"].iloc[0]
    assert numbers["metrics"]["inspected_size"].iloc[0] == 300
    assert points["in_subset"].sum() == 300 == summary["points_released"]
    assert points.loc[points["in_subset"], "dp_weight"].sum() == pytest.approx(
        summary["total_dp_weight"])
    assert len(numbers["estimate"]) == 3  # two covariates and the intercept


def test_the_display_plane_waits_for_the_points_view(mvn):
    """The first view computes only what it shows: the points view's plane comes later."""
    ready = study.prepare(mvn, BASE)
    study.at(ready, BASE)
    assert ready.runs.kept_plane is None
    numbers = study.at(ready, BASE.replace(view=VIEWS[2]))
    public_xy, _, _ = ready.runs.plane()
    np.testing.assert_array_equal(numbers["public_points"][["x", "y"]].to_numpy(), public_xy)


@pytest.mark.parametrize("size", [None, 7])
def test_an_unset_or_off_grid_size_inspects_the_selected_one(prepared, size):
    m = study.at(prepared, BASE.replace(size=size))["metrics"].iloc[0]
    assert m["inspected_size"] == m["selected_size_repeat1"]


def test_split_epsilon_scales_the_split():
    assert study.split_epsilon(2.0, "0.5 : 1 : 0.5") == (0.5, 1.0, 0.5)  # shares of the total
    for split in study.SPLITS:
        assert sum(study.split_epsilon(3.0, split)) == pytest.approx(3.0)
    with pytest.raises(DataError, match="Unknown split"):
        study.split_epsilon(1.0, "1 : 2 : 3")


def test_bad_scenario_and_grid_are_refused(mvn, prepared):
    with pytest.raises(DataError, match="fewer than two sizes"):
        study.at(prepared, Params(grid=GRIDS[3], start=9_999, step=5_000, count=3))
    with pytest.raises(DataError, match="0/1 target"):
        study.prepare(dataclasses.replace(mvn, target=None), Params())



@pytest.mark.parametrize("name", ["breast-cancer", "wine", "mvn-shift"])
def test_the_page_offers_no_two_grids_alike_and_none_that_cannot_run(name):
    """On a small E the default grid falls back to the paper's (issue 34): the page then
    offers one of the two, and no fixed grid with fewer than the two sizes Algorithm 2 needs."""
    scenario = load_scenario(name)
    left_out = study.grids_not_offered(scenario)
    public = rescale(scenario.public, scenario.public, **scenario_arguments(scenario))

    def sizes(grid: str) -> tuple[int, ...]:
        return tuple(study.grid_sizes(grid, public.n_public,
                                      coefficients=len(public.covariates) + 1).tolist())

    offered = [g for g in GRIDS if g not in left_out and g != GRIDS[3]]
    assert GRIDS[3] not in left_out and study.DEFAULT_GRID in offered
    assert len({sizes(g) for g in offered}) == len(offered)  # no two alike
    assert all(len(sizes(g)) >= 2 for g in offered)
    for grid, instead in left_out.items():
        assert instead in offered
        assert sizes(grid) == sizes(instead) or (len(sizes(grid)) < 2
                                                 and instead == study.DEFAULT_GRID)
    if name == "mvn-shift":  # 10,000 points, 3 coefficients: every grid differs
        assert left_out == {}
    else:  # fewer points than 10 per coefficient times 2: the paper's sizes, offered once
        assert left_out[GRIDS[0]] == study.DEFAULT_GRID
    # Public information only: another private set leaves the offer as it is.
    half = dataclasses.replace(scenario, private=scenario.private.iloc[::2])
    assert study.grids_not_offered(half) == left_out

# --- Lei's baseline ------------------------------------------------------------------------------

def test_lei_gets_the_papers_budget_and_the_rules_bins_by_default(prepared):
    """Total ε = 3 split 0.8 : 0.2 : 1 (ε₁, ε₂, ε₃ = 1.2, 0.3, 1.5): Lei at ε₁ + ε₂ = 1.5
    (Sect. 5.1), ⌈(10⁴ × 1.5)^(1/4)⌉ = 12 cells; at the total 3, ⌈(3 × 10⁴)^(1/4)⌉ = 14."""
    m = study.at(prepared, BASE)["metrics"].iloc[0]
    assert m["lei_epsilon"] == pytest.approx(m["epsilon1"] + m["epsilon2"]) == pytest.approx(1.5)
    assert m["lei_bins"] == lei_bins(10_000, 2, 1.5) == 12
    total = study.at(prepared, BASE.replace(lei_budget="total"))["metrics"].iloc[0]
    assert total["lei_epsilon"] == pytest.approx(3.0)
    assert total["lei_bins"] == lei_bins(10_000, 2, 3.0) == 14  # (3 x 10^4)^(1/4) = 13.2


def test_a_user_set_bin_count_is_used_without_rerunning_algorithm2(prepared):
    study.at(prepared, BASE)
    runs = prepared.runs.computed
    m = study.at(prepared, BASE.replace(lei_bins=50))["metrics"].iloc[0]
    errors, bins = lei_errors(prepared.setup, 1.5, bins=50, repeats=2, rng=BASE.seed)
    assert m["lei_bins"] == bins == 50
    assert m["lei_error_mean_nonprivate"] == pytest.approx(errors.mean(), rel=1e-12)
    assert prepared.runs.computed == runs  # Lei's settings are read in at() only


def test_the_legend_names_leis_epsilon_and_bins(prepared):
    for params, text in ((BASE, "ε = 1.5, 12 bins per axis"),
                         (BASE.replace(lei_budget="total", lei_bins=20),
                          "ε = 3, 20 bins per axis")):
        fig = figures(study.at(prepared, params), params)["error_vs_size"]
        names = [trace.name for trace in fig.data if trace.name]
        assert any("Lei" in name and text in name for name in names), names


def test_an_unknown_lei_budget_is_refused(prepared):
    with pytest.raises(DataError, match="Unknown Lei budget"):
        study.at(prepared, BASE.replace(lei_budget="double"))


# --- how uniform the selection is ---------------------------------------------------------------

def test_the_page_says_when_the_selection_is_nearly_uniform(prepared):
    """P(i) ∝ exp(-ε₃ tᵢ / 2S) with S = 2.5 here: at ε₃ = 3 the criteria's spread of about 10
    gives a max/min ratio near e⁶ (no note); at ε = 0.1 (ε₃ = 0.1) about e^0.2 (a note)."""
    far = study.at(prepared, BASE)["metrics"].iloc[0]
    assert far["selection_max_min_ratio_nonprivate"] > study.NEAR_UNIFORM_RATIO
    assert study.near_uniform_note(far) is None
    near = study.at(prepared, BASE.replace(epsilon=0.1))["metrics"].iloc[0]
    ratio = near["selection_max_min_ratio_nonprivate"]
    assert ratio <= study.NEAR_UNIFORM_RATIO
    tv = near["selection_tv_to_uniform_nonprivate"]
    assert 0 <= tv < far["selection_tv_to_uniform_nonprivate"]
    note = study.near_uniform_note(near)
    assert note is not None and f"{ratio:.3g} times" in note
    assert f"S = {near['sensitivity_bound']:.3g}" in note


# --- figures and takeaway -----------------------------------------------------------------------

@pytest.mark.parametrize("view, name", [(VIEWS[0], "error_vs_size"),
                                        (VIEWS[1], "distance_vs_size"),
                                        (VIEWS[2], "points_and_weights"), (VIEWS[3], None)])
def test_figures_draw_the_view_titled(prepared, view, name):
    params = BASE.replace(view=view)
    figs = figures(study.at(prepared, params), params)
    assert list(figs) == ([name] if name else [])
    for fig in figs.values():
        assert fig.data and fig.layout.title.text.startswith(TITLES[name])


def test_takeaway_quotes_the_numbers(prepared):
    numbers = study.at(prepared, BASE)
    m, selected = numbers["metrics"].iloc[0], numbers["selected"]
    text = study.takeaway(numbers, BASE)
    assert text.count(". ") == 1 and text.endswith(".")
    assert f"{int(m['selected_size_repeat1']):,} of" in text
    errors = selected["dp_error_nonprivate"]
    assert f"{errors.min():.3g} to {errors.max():.3g} over {len(errors)} repeats" in text
    assert f"{m['public_only_error_nonprivate']:.3g} for the public set" in text
    other = BASE.replace(view=VIEWS[1], epsilon=0.3)
    numbers = study.at(prepared, other)
    m = numbers["metrics"].iloc[0]
    second = study.takeaway(numbers, other)
    assert "ε = 0.3" in second and f"{m['error_here_nonprivate']:.3g}" in second
    assert second != text


def test_the_takeaway_quotes_what_the_selection_delivers_not_the_curves_best(prepared):
    """Issue 34: the best point of the DP error curve is known only with the private data
    (and at p = 100 the selection is near uniform); the takeaway quotes the error of the
    subsets Algorithm 2 selected, beside the public set alone."""
    numbers = study.at(prepared, BASE)
    curve, selected = numbers["error_curve"].copy(), numbers["selected"].copy()
    selected["dp_error_nonprivate"] = [17.2, 16.2, 16.9][:len(selected)]
    curve.loc[curve.index[0], "dp_error_mean_nonprivate"] = 3.21  # a best point no run picked
    metrics = numbers["metrics"].assign(public_only_error_nonprivate=17.4)
    text = study.takeaway({**numbers, "metrics": metrics, "error_curve": curve,
                           "selected": selected}, BASE)
    errors = selected["dp_error_nonprivate"]
    assert f"an error of {errors.min():.3g} to {errors.max():.3g}" in text
    assert "against 17.4 for the public set alone" in text
    assert "3.21" not in text and "smallest" not in text
    one = study.takeaway({**numbers, "metrics": metrics, "selected": selected.head(1)}, BASE)
    assert "The subset it selected predicts with an error of 17.2 over 1 repeat " in one


def test_a_run_config_recomputes_the_study():
    controls = {"sub_grid": COARSE, "sub_reps": 1, "sub_epsilon": 1.0,
                "sub_split": "1 : 1 : 1 (Sect. 5.2)", "sub_selection": "noisy-curve",
                "sub_lambda": 0.1, "sub_size": 300}
    result = run(RunConfig("subset", {"builtin_name": "mvn-shift"}, controls, 3))
    assert result.params == Params.from_controls(controls, seed=3)
    m = result.numbers["metrics"].iloc[0]
    assert (m["epsilon3"], m["repeats"], m["inspected_size"]) == (pytest.approx(1 / 3), 1, 300)
    assert m["epsilon1"] == m["epsilon2"] == m["epsilon3"]  # 1 : 1 : 1 of the total 1
    assert "noisy_criterion_repeat1" in result.numbers["error_curve"]


def test_runs_kept_cover_two_walks_across_the_slider():
    """A walk across every ε of the slider, then back, computes each set of runs once (with
    fewer kept than the slider's values, every step evicted the set the walk needed next)."""
    computed = []
    runs = study.StudyRuns(setup=None)

    def compute(_setup, **arguments):
        computed.append(arguments["epsilon"])
        return arguments["epsilon"]

    for walk in (study.SLIDER_EPSILONS, study.SLIDER_EPSILONS[::-1], study.SLIDER_EPSILONS):
        for epsilon in walk:
            assert runs._kept(runs.kept, compute, {"epsilon": epsilon, "reps": 3})[0] == epsilon
    assert computed == list(study.SLIDER_EPSILONS)


def test_the_wang_slides_give_lei_the_same_epsilon_as_algorithm_2():
    """A slide's comparison is like for like: Lei's histogram spends Algorithm 2's whole ε
    (the paper gave it ε₁ + ε₂ only), and the caption says so."""
    from ui.registry import presets

    slides = [p for p in presets() if p.page == "subset"]
    assert len(slides) == 2
    for slide in slides:
        params = Params.from_controls(slide.config().controls, seed=slide.seed)
        eps = study.split_epsilon(params.epsilon, params.split)
        assert study.lei_epsilon(eps, params.lei_budget) == pytest.approx(params.epsilon)
    p2 = next(p for p in slides if p.scenario["builtin_p"] == 2)
    assert "Algorithm 2's whole ε = 2" in p2.remark and "ε₁ + ε₂ = 1" in p2.remark
