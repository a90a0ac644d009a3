"""Optimal public subset (Wang et al. 2018): how much of E to release with DP weights.

The views study Algorithm 2 over repeated runs with independent noise (seeded simulations, not
releases; :mod:`dpcore.studies.subset`); the "Publish" view makes the only thing a data owner
would release: the selected public rows with their DP weights.
"""

from contextlib import suppress

import numpy as np
import pandas as pd
import streamlit as st

import ui.study
from dpcore.figures.subset import TITLES, figures, settings
from dpcore.releases import subset as release
from dpcore.studies import subset as study
from dpcore.studies.subset import (
    DEFAULT_GRID,
    GRIDS,
    LEI_BINS,
    LEI_BUDGETS,
    SLIDER_EPSILONS,
    SPLITS,
    VIEW_LABELS,
    VIEWS,
    Params,
    lei_applies,
    near_uniform_note,
    split_epsilon,
)
from dpcore.subset.weights import COUNT_SENSITIVITY
from dpcore.text import csv_bytes
from dpcore.validation import DataError
from ui.budget import budget_sidebar, fit_publish_epsilon
from ui.cache import memo
from ui.errors import show_errors
from ui.export import export_panel, refresh_export
from ui.links import data_default, settle
from ui.navigation import require_router
from ui.release import publish_panel
from ui.show import show
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.widgets import epsilon_slider, lambda_slider, replicates_slider, seed_input

require_router()

ACCOUNTING = {"calibrated": "Calibrated (correct): selection costs ε₃",
              "as-printed": "As printed: k noisy criteria, counted as ε₃"}
SELECTION = {"exponential": "Exponential mechanism (index only)",
             "noisy-curve": "Noisy curve, Laplace(kS/ε₃) each"}
#: The chart key of each figure, and what its caption says.
KEYS = {"error_vs_size": "fig_subset_error", "distance_vs_size": "fig_subset_distance",
        "points_and_weights": "fig_subset_points"}
CAPTIONS = {
    "error_vs_size":
        "Blue: error of the DP estimate per candidate size (band: ±1 SD over repeats). "
        "Few points: little noise in total but E's few points fit D badly; many points: "
        "each weight drowns in noise and the fit drifts back to E's bias. Green dotted: "
        "the same subsets with exact weights (non-private). Dash-dot (at most 3 "
        "covariates): Lei's perturbed histogram of D alone, at the ε and cells per axis its "
        "legend names. Stars: sizes Algorithm 2 selected (bigger: selected in more repeats). "
        "Errors use D without noise (non-private evaluation).",
    "distance_vs_size":
        "The mean distance of a private point to its nearest released public point "
        "(eq. 5): it bounds the bias. Where it is flat, releasing more points only "
        "adds noise. Non-private (computed from D).",
    "points_and_weights":
        "Left: the public points after Step 1, the inspected subset coloured by its "
        "DP weight (repeat 1). Right: the private points after the "
        "same rescaling (non-private, for comparison only).",
}
PUBLISH = "publish"

scenario = scenario_sidebar()
keep_widget_state({"sub_view": VIEWS[0], "sub_split": next(iter(SPLITS)), "sub_grid": DEFAULT_GRID,
                   "sub_accounting": "calibrated", "sub_selection": "exponential",
                   "sub_start": 10, "sub_step": 50, "sub_count": 30,
                   "sub_lei_budget": "paper", "sub_lei_bins": None})
if (scenario is not None and scenario.target is not None
        and st.session_state.get("_sub_defaults_for") != st.session_state.get("scenario_id")):
    # A new scenario opens at the λ cross-validated on the public set E alone (free, nothing
    # private); a link's own value stays (ui.links.data_default). The paper's slides set 0.01.
    st.session_state["_sub_defaults_for"] = st.session_state["scenario_id"]
    with show_errors():
        st.session_state["sub_lambda"] = st.session_state["_kept_sub_lambda"] = data_default(
            "sub_lambda", memo(scenario, st.session_state["scenario_id"], ("subset-lambda",),
                               lambda: study.default_lambda(scenario)))
not_offered = {}  # grids that would repeat another on this scenario's E, or cannot run on it
if scenario is not None and scenario.target is not None:
    with suppress(DataError):  # the study below says what is wrong with the data
        not_offered = memo(scenario, st.session_state["scenario_id"], ("subset-grids",),
                           lambda: study.grids_not_offered(scenario))
# A grid not offered here (kept from another scenario, or a link's) gives way to the one
# offered in its place.
settle("sub_grid", lambda value: value not in not_offered,
       not_offered.get(st.session_state["sub_grid"], DEFAULT_GRID))


def grid_label(grid: str) -> str:
    """The grid's name; the default's says when it stands for the paper's low-dimension grid."""
    if not_offered.get(GRIDS[0]) == grid:
        return f"{grid} (E too small: all the paper's low-dimension sizes, 10, 60, …)"
    return grid


with st.sidebar:
    st.header("Optimal public subset")
    epsilon_slot = st.container()  # the ε slider, drawn by live() below
    split_name = st.select_slider(
        "Split of ε into ε₁ : ε₂ : ε₃", list(SPLITS), key="sub_split",
        help="ε (the slider above) is what one run costs in total, shared in these ratios: ε₁ "
             "ranks the public points, ε₂ weights the k candidate subsets (ε₂/k each), ε₃ "
             "selects one. The paper uses 0.8 : 0.2 : 1 of its ε, a total of twice its ε.")
    accounting = st.radio("Accounting of the selection", list(ACCOUNTING), key="sub_accounting",
                          format_func=ACCOUNTING.get)
    selection = "exponential"
    if accounting == "calibrated":
        selection = st.radio("Selection", list(SELECTION), key="sub_selection",
                             format_func=SELECTION.get)
    grid = st.selectbox("Candidate sizes", [g for g in GRIDS if g not in not_offered],
                        key="sub_grid", format_func=grid_label)
    custom = {}
    if grid == "Custom":
        c1, c2, c3 = st.columns(3)
        custom = {"start": int(c1.number_input("First", 1, 100_000, key="sub_start")),
                  "step": int(c2.number_input("Step", 1, 100_000, key="sub_step")),
                  "count": int(c3.number_input("Count", 2, 100, key="sub_count"))}
    lam = lambda_slider("sub_lambda", 0.01, help="L2 penalty of every logistic fit. It bounds "
                        "how far one record moves θ_D, hence the criterion's sensitivity S. A "
                        "new scenario opens at the λ that cross-validates best on the public "
                        "set E alone (free).")
    n_reps = replicates_slider("sub_reps", 3, options=(1, 2, 3, 5, 10), label="Repeats",
                               help="Independent runs of Algorithm 2 on the same D and E; the "
                                    "curves average them (the paper uses 10).")
    if lei_applies(scenario):  # Lei's controls act only where its histogram is drawn
        with st.expander("Lei's histogram baseline (at most 3 covariates)"):
            lei_budget = st.radio(
                "Lei's privacy loss", list(LEI_BUDGETS), key="sub_lei_budget",
                format_func=LEI_BUDGETS.get,
                help="The paper gives Lei's perturbed histogram ε₁ + ε₂ ('to make it fair to the "
                     "perturbed histogram method', Sect. 5.1); ε₁ + ε₂ + ε₃ gives it Algorithm 2's "
                     "whole budget.")
            lei_bins = st.select_slider(
                "Cells per axis", list(LEI_BINS), key="sub_lei_bins",
                format_func=lambda b: "rule ⌈(n_D ε)^(1/(p+2))⌉" if b is None else str(b),
                help="The paper does not state Lei's bins. More cells: less bias, but each count "
                     "drowns in its Laplace noise, and the error grows.")
    else:
        lei_budget, lei_bins = (st.session_state["sub_lei_budget"],
                                st.session_state["sub_lei_bins"])
    seed_slot = st.container()  # the simulation seed, drawn by live() below: `at` alone reads it
budget_sidebar()
export_panel("subset")

st.title("Optimal public subset: how much of E to release")
st.markdown(
    "Each public point gets a weight: the share of private records nearest to it, released "
    "with Laplace noise. Releasing **more** public points lowers the bias of E but spreads the "
    "noise over more weights; Algorithm 2 of Wang et al. (2018) picks the size under DP."
)

view = st.segmented_control("View", VIEWS, format_func=VIEW_LABELS.get, key="sub_view",
                            label_visibility="collapsed") or VIEWS[0]


def size_slider(sizes: np.ndarray, numbers: dict[str, pd.DataFrame]) -> int:
    """The inspected candidate size: the study resolved an unset or off-grid size to the one
    Algorithm 2 selected in repeat 1, which the slider then starts at."""
    options = [int(s) for s in sizes]
    if st.session_state.get("sub_size") not in options:
        st.session_state["sub_size"] = int(numbers["metrics"]["inspected_size"].iloc[0])
    return st.select_slider("Inspect a subset size", options, key="sub_size",
                            help="Look at any candidate: its DP weights, its estimate and its "
                                 "error. Moving this reuses the computed curve.")


def show_metrics(m: pd.Series, sizes: np.ndarray) -> None:
    """The headline metrics of the inspected size, what the study is, and the warnings the
    metrics call for."""
    cols = st.columns(5)
    cols[0].metric("Selected size (repeat 1)", f"{int(m['selected_size_repeat1']):,}")
    cols[1].metric("Error here (non-private)", f"{m['error_here_nonprivate']:.3g}",
                   help="t = ‖h(θ_i) − h(θ_D)‖₂ over the private covariates, averaged over the "
                        "repeats. Measured against D without noise: a non-private evaluation.")
    cols[2].metric("Public only (non-private)", f"{m['public_only_error_nonprivate']:.3g}",
                   help="The same error for the fit on E alone (free, but biased).")
    printed = accounting == "as-printed"
    cols[3].metric("ε spent per run", f"{m['epsilon_spent']:.3g}",
                   delta=f"paper counts {m['epsilon_claimed']:.3g}" if printed else None,
                   delta_color="inverse" if printed else "off")
    cols[4].metric("Sensitivity S of t", f"{m['sensitivity_bound']:.3g}",
                   help="How much one private record can move one criterion t: 1 for its own "
                        "row plus the shift of θ_D (at most 2R/(n_D λ)) felt by every other "
                        "row. The paper uses 1.")
    st.caption(
        f"{int(m['n_sizes'])} candidate sizes from {sizes[0]:,} to {sizes[-1]:,} of "
        f"{int(m['n_public']):,} distinct public points; n_D = {int(m['n_private']):,}. Each "
        f"candidate's weights get Laplace({COUNT_SENSITIVITY:g}k/ε₂) noise per count. These "
        "are simulations of the mechanism, seeded and reproducible: none of them is a release.")
    if m["error_here_nonprivate"] >= m["public_only_error_nonprivate"]:
        st.warning(
            f"At this size the DP weights do worse than no weights at all: error "
            f"{m['error_here_nonprivate']:.3g} against {m['public_only_error_nonprivate']:.3g} "
            "for the public data alone (both non-private evaluations). The noise on the counts "
            "swamps what they say about D, so this release would buy nothing: raise ε₂, release "
            "fewer points, or use the public data as it is.", icon=":material/blur_on:")
    note = near_uniform_note(m)
    if note is not None:
        st.info(note, icon=":material/shuffle:")
    if printed:
        st.warning(
            f"As printed, the paper releases {int(m['n_sizes'])} noisy criteria with "
            f"Laplace(1/ε₃) each and counts ε₃ = {m['epsilon3']:g}. Their true cost, with the "
            f"correct sensitivity S = {m['sensitivity_bound']:.3g}, is k·S·ε₃: the run spends "
            f"ε = {m['epsilon_spent']:.3g}, not {m['epsilon_claimed']:.3g}.", icon="⚠️")


def show_points_tables(numbers: dict[str, pd.DataFrame]) -> None:
    """The inspected candidate's DP estimate next to θ_D, and a summary of its weights."""
    estimate = numbers["estimate"].rename(columns={"dp_estimate": "DP estimate",
                                                   "theta_D_nonprivate": "θ_D (non-private)"})
    s = numbers["subset_summary"].iloc[0]
    left, right = st.columns(2)
    with left.expander(f"Estimate of this candidate ({len(estimate)} coefficients)",
                       expanded=len(estimate) <= 12):
        st.table(estimate.set_index("coefficient").style.format("{:.3g}"))
    right.table(pd.DataFrame(
        {"value": [f"{int(s['points_released']):,}", f"{s['total_dp_weight']:.3g}",
                   f"{s['share_of_weights_at_0']:.0%}", f"{s['largest_weight']:.3g}"]},
        index=["points released", "total DP weight", "share of weights at 0", "largest weight"]))


def publish(prepared: study.PreparedStudy, sizes: np.ndarray, eps: tuple[float, float, float],
            numbers: dict[str, pd.DataFrame]) -> None:
    """One release of Algorithm 2 with fresh noise (:func:`dpcore.releases.subset.publish`; not
    a study, never cached), and its CSV."""
    scenario_id = st.session_state["scenario_id"]
    st.markdown(
        f"**One release** at ε = ({', '.join(f'{e:g}' for e in eps)}) with {len(sizes)} "
        "candidate sizes: the selected public rows and their DP weights. Fresh randomness; "
        "ε₁, ε₂ and ε₃ go into the ledger as three entries.")
    spent = float(numbers["metrics"]["epsilon_spent"].iloc[0])
    published = publish_panel(
        "subset", scenario=scenario, scenario_id=scenario_id,
        epsilon=release.charged_epsilon(eps, accounting, spent),
        settings=release.settings(eps, lam, accounting),
        release=lambda accountant: release.publish(  # Algorithm 2 when the press is served
            scenario, prepared.setup, epsilon=eps, sizes=sizes, accounting=accounting,
            selection=selection, lam=lam, accountant=accountant),
        label="Publish the subset", noise=release.NOISE)
    if published is None:
        return
    res = published.value
    st.success(f"Published {res.size:,} public rows with DP weights at {published.settings} "
               f"({published.time:%H:%M:%S} UTC); ε spent {res.epsilon_spent:g}.", icon="✅")
    released = release.released_table(scenario, res)
    st.dataframe(released.head(200), hide_index=True)
    st.caption("One row per distinct public point after Step 1 (its first row in E); "
               "public_rows_alike counts the rows of E it stands for.")
    st.download_button("Download the release (public rows + DP weights, CSV)",
                       lambda: csv_bytes(released), "public_subset.csv", "text/csv",
                       key="sub_download")


def live(view: str) -> None:
    """Everything the ε slider and the simulation seed change: the two (drawn into their
    sidebar slots), the study at the split ε and ``view``; in a study view also the export's
    config and the link.

    A study view runs this as a fragment, so that an ε move, a new seed (both read by the
    study's ``at`` alone, never by its ``prepare``) or the inspected size reruns this function
    alone, not the scenario, budget and export panels. The Publish view calls it in the
    page's own run, so that a release and the budget panel on screen always come from the same
    run.
    """
    fitted = (fit_publish_epsilon("sub_epsilon", 3.0, SLIDER_EPSILONS) if view == PUBLISH
              else None)
    with epsilon_slot:
        epsilon = epsilon_slider("sub_epsilon", 3.0, options=SLIDER_EPSILONS,
                                 label="Privacy budget ε (total per run)")
    with seed_slot:
        sim_seed = seed_input("sub_seed")
    if view != PUBLISH:
        refresh_export("subset")  # a fragment rerun: the config and the URL follow ε and the seed
    if fitted:
        st.info(fitted, icon=":material/tune:")
    with show_errors():
        if scenario is None:
            st.info("Choose a scenario in the sidebar to begin.")
            st.stop()
        if scenario.target is None:
            st.info("This page fits a logistic regression: choose a scenario with a 0/1 target.")
            st.stop()
        params = Params(seed=sim_seed, epsilon=epsilon, split=split_name, accounting=accounting,
                        selection=selection, grid=grid, lambda_=lam, reps=n_reps, view=view,
                        size=st.session_state.get("sub_size"), lei_budget=lei_budget,
                        lei_bins=lei_bins, **custom)
        scenario_id = st.session_state["scenario_id"]
        text = "Preparing θ_D and the nearest public points…"
        prepared = ui.study.prepared(study, scenario, scenario_id, params, text=text)
        sizes = study.candidate_sizes(prepared, params)
        with st.spinner("Running Algorithm 2…"):  # shown only if it takes over 0.5 s
            numbers = ui.study.numbers(study, scenario, scenario_id, params, text=text)
        size_slider(sizes, numbers)
        show_metrics(numbers["metrics"].iloc[0], sizes)
        # The figures read the inspected size from the numbers: a page's first run (no size
        # yet) and the runs after it (the size it resolved to) draw them under one key.
        inspected = params.replace(size=int(numbers["metrics"]["inspected_size"].iloc[0]))
        figs = ui.study.figures(study, scenario, scenario_id, inspected,
                                lambda: figures(numbers, params))
        for name, fig in figs.items():
            show(fig, KEYS[name], title=TITLES[name],
                 context=f"{scenario.title}; {settings(numbers, params, name)}")
            st.caption(CAPTIONS[name])
        if view == "points_and_weights":
            show_points_tables(numbers)
        elif view == PUBLISH:
            publish(prepared, sizes, split_epsilon(epsilon, split_name), numbers)


# A study view is a fragment: an ε move or a new seed reruns live() alone.
(live if view == PUBLISH else st.fragment(live))(view)
