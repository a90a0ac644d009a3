"""Optimal public subset (Wang et al. 2018): how much of E to release with DP weights.

The views study Algorithm 2 over repeated runs with independent noise (seeded simulations, not
releases); the "Publish" view makes the only thing a data owner would release: the selected
public rows with their DP weights.
"""

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.figures.subset import distance_curve, error_curve, points_map
from dpcore.studies.subset import GRIDS, SPLITS, grid_sizes, split_epsilon
from dpcore.subset import (
    display_plane,
    prepare_selection,
    rescale,
    scenario_arguments,
    select_subset,
    subset_study,
)
from dpcore.subset.weights import COUNT_SENSITIVITY
from dpcore.text import csv_bytes
from ui.budget import budget_sidebar
from ui.cache import is_cached, memo
from ui.errors import show_errors
from ui.export import export_panel, refresh_export
from ui.navigation import require_router
from ui.release import publish_panel
from ui.show import show
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.widgets import epsilon_slider, lambda_slider, replicates_slider, seed_input

require_router()

VIEWS = ("Error vs size", "Distance vs size", "Points and weights", "Publish")
ACCOUNTING = {"calibrated": "Calibrated (correct): selection costs ε₃",
              "as-printed": "As printed: k noisy criteria, counted as ε₃"}
SELECTION = {"exponential": "Exponential mechanism (index only)",
             "noisy-curve": "Noisy curve, Laplace(kS/ε₃) each"}

scenario = scenario_sidebar()
keep_widget_state({"sub_view": VIEWS[0], "sub_split": next(iter(SPLITS)), "sub_grid": GRIDS[0],
                   "sub_accounting": "calibrated", "sub_selection": "exponential",
                   "sub_start": 10, "sub_step": 50, "sub_count": 30})
with st.sidebar:
    st.header("Optimal public subset")
    epsilon_slot = st.container()  # the ε slider, drawn by live() below
    split_name = st.select_slider(
        "Split ε₁ : ε₂ : ε₃ (× ε)", list(SPLITS), key="sub_split",
        help="ε₁ ranks the public points, ε₂ weights the k candidate subsets (ε₂/k each), "
             "ε₃ selects one. The paper uses 0.8 : 0.2 : 1 in its simulations.")
    accounting = st.radio("Accounting of the selection", list(ACCOUNTING), key="sub_accounting",
                          format_func=ACCOUNTING.get)
    selection = "exponential"
    if accounting == "calibrated":
        selection = st.radio("Selection", list(SELECTION), key="sub_selection",
                             format_func=SELECTION.get)
    grid = st.selectbox("Candidate sizes", GRIDS, key="sub_grid")
    if grid == "Custom":
        c1, c2, c3 = st.columns(3)
        start = int(c1.number_input("First", 1, 100_000, key="sub_start"))
        step = int(c2.number_input("Step", 1, 100_000, key="sub_step"))
        count = int(c3.number_input("Count", 2, 100, key="sub_count"))
    lam = lambda_slider("sub_lambda", 0.01, help="L2 penalty of every logistic fit. It bounds "
                        "how far one record moves θ_D, hence the criterion's sensitivity S.")
    n_reps = replicates_slider("sub_reps", 3, options=(1, 2, 3, 5, 10), label="Repeats",
                               help="Independent runs of Algorithm 2 on the same D and E; the "
                                    "curves average them (the paper uses 10).")
    sim_seed = seed_input("sub_seed")
budget_sidebar()
export_panel("subset")

st.title("Optimal public subset: how much of E to release")
st.markdown(
    "Each public point gets a weight: the share of private records nearest to it, released "
    "with Laplace noise. Releasing **more** public points lowers the bias of E but spreads the "
    "noise over more weights; Algorithm 2 of Wang et al. (2018) picks the size under DP."
)
PUBLISH = VIEWS[-1]

view = st.segmented_control("View", VIEWS, key="sub_view", label_visibility="collapsed") or VIEWS[0]


def live(view: str) -> None:
    """Everything the ε slider changes: the slider (drawn into its sidebar slot), the study at
    the split ε and ``view``; in a study view also the export's config and the link.

    A study view runs this as a fragment, so that an ε move (or the inspected size) reruns this
    function alone, not the scenario, budget and export panels. The Publish view calls it in the
    page's own run, so that a release and the budget panel on screen always come from the same
    run.
    """
    with epsilon_slot:
        epsilon = epsilon_slider("sub_epsilon", 3.0)
    eps = split_epsilon(epsilon, split_name)
    if view != PUBLISH:
        refresh_export("subset")  # a fragment rerun: the config and the URL follow ε
    with show_errors():
        if scenario is None:
            st.info("Choose a scenario in the sidebar to begin.")
            st.stop()
        if scenario.target is None:
            st.info("This page fits a logistic regression: choose a scenario with a 0/1 target.")
            st.stop()
        scenario_id = st.session_state["scenario_id"]
        data = memo(scenario, scenario_id, ("subset rescaled",),
                    lambda: rescale(scenario.private, scenario.public,
                                    **scenario_arguments(scenario)))
        if grid == GRIDS[3]:
            sizes = grid_sizes(grid, data.n_public, start, step, count)
        else:
            sizes = grid_sizes(grid, data.n_public)
        if sizes.size < 2:
            st.error(f"The grid has fewer than two sizes within the {data.n_public:,} distinct "
                     "public points: lower the first size or the step.")
            st.stop()
        sizes_key = tuple(int(s) for s in sizes)
        # θ_D and the nearest public points: what neither ε nor the noise changes, once per λ.
        prepared = memo(scenario, scenario_id, ("subset prepared", lam),
                        lambda: prepare_selection(data, "logistic", lam))

        def compute_study(progress):
            return subset_study(data, epsilon=eps, sizes=sizes, repeats=n_reps, lam=lam,
                                accounting=accounting, selection=selection, rng=sim_seed,
                                progress=progress, prepared=prepared)

        parts = ("subset study", eps, sizes_key, n_reps, accounting, selection, lam, sim_seed)
        bar = None  # a bar only when there is work
        if not is_cached(scenario, scenario_id, parts):
            bar = st.progress(0.0, text="Running Algorithm 2…")
        study = memo(scenario, scenario_id, parts, lambda: compute_study(
            None if bar is None else lambda f, text: bar.progress(min(f, 1.0), text=text)))
        if bar is not None:
            bar.empty()

        # The subset-size slider only re-reads the computed curve.
        options = list(sizes_key)
        if st.session_state.get("sub_size") not in options:
            st.session_state["sub_size"] = int(study.sizes[study.selected[0]])
        size = st.select_slider("Inspect a subset size", options, key="sub_size",
                                help="Look at any candidate: its DP weights, its estimate and its "
                                     "error. Moving this reuses the computed curve.")
        j = options.index(size)
        first = study.first
        context = (f"{scenario.title}; ε = ({', '.join(f'{e:g}' for e in eps)}), λ = {lam:g}, "
                   f"{n_reps} repeat(s), {accounting}")
        cols = st.columns(5)
        cols[0].metric("Selected size (repeat 1)", f"{int(study.sizes[study.selected[0]]):,}")
        cols[1].metric("Error here (non-private)", f"{study.dp_curve[j]:.3g}",
                       help="t = ‖h(θ_i) − h(θ_D)‖₂ over the private covariates, averaged over the "
                            "repeats. Measured against D without noise: a non-private evaluation.")
        cols[2].metric("Public only (non-private)", f"{study.public_only:.3g}",
                       help="The same error for the fit on E alone (free, but biased).")
        cols[3].metric("ε spent per run", f"{study.epsilon_spent:.3g}",
                       delta=(f"paper counts {study.epsilon_claimed:.3g}"
                              if accounting == "as-printed" else None),
                       delta_color="inverse" if accounting == "as-printed" else "off")
        cols[4].metric("Sensitivity S of t", f"{study.sensitivity_bound:.3g}",
                       help="How much one private record can move one criterion t: 1 for its own "
                            "row plus the shift of θ_D (at most 2R/(n_D λ)) felt by every other "
                            "row. The paper uses 1.")
        st.caption(
            f"{len(study.sizes)} candidate sizes from {study.sizes[0]:,} to {study.sizes[-1]:,} of "
            f"{data.n_public:,} distinct public points; n_D = {data.n_private:,}. Each candidate's "
            f"weights get Laplace({COUNT_SENSITIVITY:g}k/ε₂) noise per count. These are "
            "simulations of the mechanism, seeded and reproducible: none of them is a release."
        )
        if study.dp_curve[j] >= study.public_only:
            st.warning(
                f"At this size the DP weights do worse than no weights at all: error "
                f"{study.dp_curve[j]:.3g} against {study.public_only:.3g} for the public data "
                "alone (both non-private evaluations). The noise on the counts swamps what they "
                "say about D, so this release would buy nothing: raise ε₂, release fewer points, "
                "or use the public data as it is.", icon=":material/blur_on:")
        if accounting == "as-printed":
            st.warning(
                f"As printed, the paper releases {len(study.sizes)} noisy criteria with "
                f"Laplace(1/ε₃) each and counts ε₃ = {eps[2]:g}. Their true cost, with the correct "
                f"sensitivity S = {study.sensitivity_bound:.3g}, is k·S·ε₃: the run spends "
                f"ε = {study.epsilon_spent:.3g}, not {study.epsilon_claimed:.3g}.", icon="⚠️")

        if view == "Error vs size":
            show(error_curve(study, j), "fig_subset_error",
                 title="Prediction error vs released size (Wang et al. Figs 5-6)", context=context)
            st.caption(
                "Blue: error of the DP estimate per candidate size (band: ±1 SD over repeats). "
                "Few points: little noise in total but E's few points fit D badly; many points: "
                "each weight drowns in noise and the fit drifts back to E's bias. Green dotted: "
                "the same subsets with exact weights (non-private). Stars: sizes Algorithm 2 "
                "selected (bigger: selected in more repeats). Errors use D without noise "
                "(non-private evaluation).")
        elif view == "Distance vs size":
            show(distance_curve(study, j), "fig_subset_distance",
                 title="d(D, E′) vs size of the nested subsets (Wang et al. Fig. 4)",
                 context=context)
            st.caption("The mean distance of a private point to its nearest released public point "
                       "(eq. 5): it bounds the bias. Where it is flat, releasing more points only "
                       "adds noise. Non-private (computed from D).")
        elif view == "Points and weights":
            public_xy, private_xy, labels = display_plane(data)
            weights = np.zeros(data.n_public)
            weights[first.order] = first.candidate_weights[:, j]
            in_subset = np.zeros(data.n_public, dtype=bool)
            in_subset[first.order[:size]] = True
            show(points_map(public_xy, weights, in_subset, private_xy, labels), "fig_subset_points",
                 title="Rescaled points and DP weights (Wang et al. Figs 2-3)",
                 context=f"{context}; size {size:,}, repeat 1")
            st.caption("Left: the public points after Step 1, the inspected subset coloured by its "
                       "DP weight (repeat 1). Right: the private points after the "
                       "same rescaling (non-private, for comparison only).")
            estimate = pd.DataFrame({"coefficient": [data.columns[c] for c in data.covariates]
                                     + ["intercept"], "DP estimate": first.estimates[j],
                                     "θ_D (non-private)": first.reference})
            left, right = st.columns(2)
            with left.expander(f"Estimate of this candidate ({len(estimate)} coefficients)",
                               expanded=len(estimate) <= 12):
                st.table(estimate.set_index("coefficient").style.format("{:.3g}"))
            w = first.candidate_weights[:size, j]
            right.table(pd.DataFrame({"value": [f"{size:,}", f"{w.sum():.3g}",
                                                f"{np.mean(w == 0):.0%}", f"{w.max():.3g}"]},
                                     index=["points released", "total DP weight",
                                            "share of weights at 0", "largest weight"]))
        else:
            total = float(sum(eps))
            st.markdown(
                f"**One release** at ε = ({', '.join(f'{e:g}' for e in eps)}) with {len(sizes)} "
                "candidate sizes: the selected public rows and their DP weights. Fresh randomness; "
                "ε₁, ε₂ and ε₃ go into the ledger as three entries.")

            def release(accountant):
                with st.spinner("Running Algorithm 2 with fresh noise…"):
                    return select_subset(data, None, eps, sizes, "logistic", accounting, None,
                                         None, selection=selection, lam=lam,
                                         accountant=accountant, dataset=scenario.title,
                                         prepared=prepared)

            spend = study.epsilon_spent if accounting == "as-printed" else total
            published = publish_panel(
                "subset", scenario=scenario, scenario_id=scenario_id, epsilon=spend,
                settings=f"ε = ({', '.join(f'{e:g}' for e in eps)}), λ = {lam:g}, {accounting}",
                release=release, label="Publish the subset",
                noise="Laplace on the counts and criteria, the exponential mechanism for the "
                      "size")
            if published is not None:
                res = published.value
                st.success(f"Published {res.size:,} public rows with DP weights at "
                           f"{published.settings} ({published.time:%H:%M:%S} UTC); "
                           f"ε spent {res.epsilon_spent:g}.", icon="✅")
                shown = (scenario.raw_public if scenario.raw_public is not None
                         else scenario.public)
                released = shown.iloc[res.public_rows].reset_index(drop=True)
                released.insert(0, "dp_weight", res.weights)
                merged = res.rescaled.multiplicity[res.order[:res.size]]
                released.insert(1, "public_rows_alike", merged)
                st.dataframe(released.head(200), hide_index=True)
                st.caption("One row per distinct public point after Step 1 (its first row in E); "
                           "public_rows_alike counts the rows of E it stands for.")
                st.download_button("Download the release (public rows + DP weights, CSV)",
                                   csv_bytes(released), "public_subset.csv",
                                   "text/csv", key="sub_download")


# A study view is a fragment: an ε move reruns live() alone.
(live if view == PUBLISH else st.fragment(live))(view)
