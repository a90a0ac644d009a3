"""Importance weighting (Ji & Elkan 2013): what epsilon and lambda cost, live.

The Monte-Carlo panels study the mechanism over bootstrap resamples of D; the "Publish once"
panel is the only thing a data owner would release.
"""

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.importance import (
    bootstrap_estimates,
    expected_noise_norm,
    model_distances,
    summarise,
)
from ui import study
from ui.errors import show_errors
from ui.importance_figures import (
    baselines_figure,
    bias_sd_figure,
    distance_boxes,
    estimate_boxes,
    variance_figure,
    weights_histogram,
)
from ui.query import query_sidebar
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state

EPSILONS = (0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
LAMBDAS = (0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0,
           3.0, 5.0, 10.0)
LAMBDA_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)  # Fig. 1
EPSILON_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)  # Fig. 2
REPLICATES = (20, 50, 100, 200)
MODEL_EPSILONS = (0.1, 1.0, 10.0)
PAPER_D = 63

DEFAULTS = {"iw_epsilon": 0.1, "iw_lambda": 0.1, "iw_reps": 100, "iw_seed": 0,
            "iw_model_reps": 10, "iw_models": False, "iw_release_seed": 0}

scenario = scenario_sidebar()
keep_widget_state(DEFAULTS)
with st.sidebar:
    st.header("Importance weighting")
    epsilon = st.select_slider("Privacy budget ε", EPSILONS, key="iw_epsilon",
                               help="Smaller ε: stronger privacy, more noise.")
    lam = st.select_slider("Regularisation λ", LAMBDAS, key="iw_lambda",
                           help="Larger λ: less noise, weights closer to 1 (more bias).")
    n_reps = st.select_slider("Replicates (bootstrap resamples of D)", REPLICATES, key="iw_reps")
    sim_seed = int(st.number_input("Simulation seed", 0, 2**31 - 1, key="iw_seed"))
    query = query_sidebar(scenario, key="iw_q") if scenario is not None else None

st.title("Importance weighting: publish weights, not data")
st.markdown(
    "The data owner fits a model that tells D's records from E's, adds noise calibrated to ε, "
    "and publishes **one weight per public record**. Weighted averages over E then estimate "
    "averages over the private D, for any question, without spending more budget "
    "(Ji & Elkan 2013, Algorithm 1)."
)

with show_errors():
    if scenario is None or query is None:
        st.info("Choose a scenario in the sidebar to begin.")
        st.stop()
    scenario_id = st.session_state["scenario_id"]
    D, E = scenario.private, scenario.public
    b_D, b_E = query.evaluate(D), query.evaluate(E)
    truth, public_mean = float(b_D.mean()), float(b_E.mean())

    def fits_at(lam_value: float):
        return study.fits(scenario, scenario_id, n_reps, sim_seed, lam_value)

    def estimates(lams, epss) -> pd.DataFrame:
        rows = [pd.DataFrame({"lam": lv, "epsilon": ev, "rep": np.arange(n_reps),
                              "estimate": bootstrap_estimates(fits_at(lv), b_E, ev)})
                for lv in lams for ev in epss]
        return pd.concat(rows, ignore_index=True).assign(truth=truth)

    lam_axis = tuple(sorted(set(LAMBDA_GRID) | {lam}))
    eps_axis = tuple(sorted(set(EPSILON_GRID) | {epsilon}))
    bar = st.progress(0.0, text="Fitting the bootstrap replicates…")
    for i, lam_value in enumerate(lam_axis):
        fits_at(lam_value)
        bar.progress((i + 1) / len(lam_axis), text=f"Fitted λ = {lam_value:g}")
    bar.empty()
    d = fits_at(lam).d  # components of a record, the intercept included
    by_lam = estimates(lam_axis, [epsilon])
    by_eps = estimates([lam], eps_axis)
    here = by_eps[by_eps.epsilon == epsilon].estimate

    st.subheader(f"Query: {query}")
    cols = st.columns(5)
    cols[0].metric("Truth on D (non-private)", f"{truth:.4f}")
    cols[1].metric("Unweighted public mean", f"{public_mean:.4f}")
    cols[2].metric("Median DP estimate", f"{here.median():.4f}",
                   delta=f"{here.median() - truth:+.4f} vs truth", delta_color="off")
    cols[3].metric("SD over replicates", f"{here.std():.4f}")
    cols[4].metric("Noise norm E‖δ‖", f"{expected_noise_norm(d, len(D), lam, epsilon):.3g}",
                   help="Mean norm of the noise added to β: d·√d/(N_D λ ε).")
    st.caption(
        f"ε = {epsilon:g}, λ = {lam:g}, {n_reps} bootstrap resamples of D ({len(D):,} records) "
        f"against E ({len(E):,} records); d = {d} components (with the intercept; Ji & Elkan's "
        f"Adult encoding had {PAPER_D}). The noise grows like d^1.5 / (N_D λ ε)."
    )

    tabs = st.tabs(["Estimates vs λ", "Estimates vs ε", "Bias vs SD", "Variance: theory",
                    "Baselines", "Model training", "Publish once"])
    with tabs[0]:
        st.plotly_chart(estimate_boxes(by_lam, "lam", lam, truth, public_mean, "λ"),
                        key="fig_lambda")
        st.caption("Each box is the spread of the DP estimate over resamples of D. Small λ: "
                   "centred on the truth but noisy; large λ: steady but pulled towards the "
                   "public mean (Fig. 1).")
    with tabs[1]:
        st.plotly_chart(estimate_boxes(by_eps, "epsilon", epsilon, truth, public_mean, "ε"),
                        key="fig_epsilon")
        st.caption("A larger budget ε shrinks the spread; the centre barely moves, so privacy "
                   "costs variance, not bias (Fig. 2).")
    summary_lam = summarise(by_lam)
    terms = {lv: study.variance_terms(scenario, scenario_id, query, n_reps, sim_seed, lv)
             for lv in lam_axis}
    theory_eps = pd.DataFrame([terms[lam].at(ev) for ev in eps_axis])
    theory_lam = pd.DataFrame([terms[lv].at(epsilon) for lv in lam_axis])
    with tabs[2]:
        st.plotly_chart(bias_sd_figure(summary_lam, theory_lam, lam), key="fig_bias_sd")
        st.caption("Raising λ trades standard deviation for bias; the best λ sits at the knee "
                   "(Fig. 4). The dashed curve predicts both without simulation.")
    with tabs[3]:
        left, right = st.columns(2)
        left.plotly_chart(variance_figure(summarise(by_eps), theory_eps, "epsilon", "ε"),
                          key="fig_var_eps")
        right.plotly_chart(variance_figure(summary_lam, theory_lam, "lam", "λ"),
                           key="fig_var_lam")
        st.caption("Dots: measured variance of the DP estimates. Theorem 2 bounds it from above "
                   "(the printed form is 4× the delta-method form); the plug-in curve predicts "
                   "it without simulation. Curves read D without noise: non-private references.")
        with st.expander("Numbers"):
            st.dataframe(summarise(by_eps).merge(theory_eps, on=["lam", "epsilon"]),
                         hide_index=True)
    with tabs[4]:
        base = study.baselines(scenario, scenario_id, query, epsilon, n_reps, sim_seed)
        ours = by_eps[by_eps.epsilon == epsilon].assign(method="importance weights (this page)")
        frame = pd.concat([ours[["method", "estimate"]], base[["method", "estimate"]]])
        st.plotly_chart(baselines_figure(frame, truth, public_mean), key="fig_baselines")
        st.caption("Every method on the same resamples at this ε. Laplace perturbation of the "
                   f"records (L1 sensitivity {scenario.record_l1_sensitivity:g} per record) is "
                   "either hopelessly noisy (raw; most of it lies off this chart) or biased "
                   "towards ½ (trimmed); the Laplace mechanism answers this one query well but "
                   "spends budget on every question asked.")
        st.dataframe(frame.groupby("method", sort=False).estimate
                     .agg(median="median", sd="std").reset_index(), hide_index=True)
    with tabs[5]:
        if scenario.target is None:
            st.info("This scenario has no target to train a classifier on.")
        else:
            group = next((cols for cols in scenario.groups.values() if scenario.target in cols),
                         [scenario.target])
            model_reps = st.select_slider("Replicates for the model comparison", (5, 10, 20, 50),
                                          key="iw_model_reps")
            if st.toggle("Train the models (takes a few seconds)", key="iw_models"):
                bar = st.progress(0.0, text="Training SVMs and logistic regressions…")
                dist = model_distances(D, E, scenario.target, lam, MODEL_EPSILONS, model_reps,
                                       sim_seed, exclude=group,
                                       progress=lambda f: bar.progress(f))
                bar.empty()
                norms = dist.attrs["reference_norm"]
                left, right = st.columns(2)
                left.plotly_chart(distance_boxes(dist, "linear SVM"), key="fig_svm")
                right.plotly_chart(distance_boxes(dist, "logistic regression"), key="fig_lr")
                st.caption(
                    "How far a classifier trained on weighted E lands from the one trained on D "
                    f"(norms {norms['linear SVM']:.2f} for the SVM, "
                    f"{norms['logistic regression']:.2f} for logistic regression; non-private "
                    "references), against releasing the SVM itself by output perturbation (Fig. 3)."
                )
    with tabs[6]:
        st.markdown(
            f"One release at ε = {epsilon:g} and λ = {lam:g}: the only output that leaves the "
            "data owner. Everything else on this page is a simulation of the mechanism."
        )
        release_seed = int(st.number_input("Release seed", 0, 2**31 - 1, key="iw_release_seed"))
        iw = study.release(scenario, scenario_id, epsilon, lam, release_seed)
        st.metric("DP estimate of the query from this release", f"{iw.estimate(b_E):.4f}")
        st.plotly_chart(weights_histogram(iw.weights_), key="fig_weights")
        st.caption("How the weights spread: records like D's are weighted up, the rest down.")
        shown = scenario.raw_public if scenario.raw_public is not None else E
        released = shown.reset_index(drop=True).assign(weight=iw.weights_)
        st.markdown("**Most-weighted public records**")
        st.dataframe(released.nlargest(10, "weight"), hide_index=True)
        st.download_button("Download the release (public rows + weights, CSV)",
                           released.to_csv(index=False).encode(), "importance_weights.csv",
                           "text/csv", key="iw_download")
