"""Importance weighting (Ji & Elkan 2013): what epsilon and lambda cost, live.

The views draw the study :mod:`dpcore.studies.importance` (bootstrap resamples of D through the
mechanism: seeded simulations, not releases) with :func:`dpcore.figures.importance.figures`; the
"Publish" view makes the only thing a data owner would release.
"""

from contextlib import nullcontext

import pandas as pd
import streamlit as st

from dpcore.figures.importance import (
    TITLES,
    box_legend,
    distance_legend,
    figures,
    weights_histogram,
)
from dpcore.importance import (
    LOG_WEIGHT_NOISE_LIMIT,
    balanced_fit,
    correcting_epsilon,
    default_lambda,
    pulled_to_public,
    smallest_epsilon,
)
from dpcore.releases import importance as release
from dpcore.simulation import default_replicates
from dpcore.studies import importance as study
from dpcore.studies.importance import (
    CONTROLS,
    MODEL_EPSILONS,
    REPLICATES,
    VIEW_LABELS,
    VIEWS,
    Params,
)
from dpcore.text import csv_bytes, md
from ui.budget import budget_sidebar
from ui.cache import memo
from ui.errors import show_errors
from ui.export import export_panel, refresh_export
from ui.links import data_default
from ui.navigation import require_router
from ui.query import query_sidebar
from ui.release import publish_panel
from ui.show import show
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.study import figures as study_figures
from ui.study import numbers as study_numbers
from ui.study import prepared as study_prepared
from ui.widgets import (
    EPSILONS,
    LAMBDAS,
    epsilon_slider,
    lambda_slider,
    replicates_slider,
    seed_input,
)

require_router()

PAPER_D = 63
PUBLISH = "publish"
MODELS = "models"
# The first view needs one lambda only, so a page opens fast even on a large upload; the lambda
# views fit the whole grid when they are chosen (dpcore.studies.importance.Params.stage).

scenario = scenario_sidebar()
keep_widget_state({"iw_view": VIEWS[0], "iw_model_reps": 10, "iw_models": False,
                   "iw_epsilon": 0.1})
if scenario is not None and st.session_state.get("_iw_defaults_for") != st.session_state.get(
        "scenario_id"):
    # A new scenario opens at the smallest λ whose noise moves a typical log-weight by at most
    # PAGE_LOG_WEIGHT_NOISE: a rule of N_D, d, ε and the public records (nothing private).
    st.session_state["_iw_defaults_for"] = st.session_state["scenario_id"]
    # A link's own values stay (ui.links.data_default).
    st.session_state["iw_lambda"] = st.session_state["_kept_iw_lambda"] = data_default(
        "iw_lambda", default_lambda(scenario.public, len(scenario.private),
                                    st.session_state["iw_epsilon"], LAMBDAS))
    # Large data: fewer replicates by default (each estimate varies less; the page opens sooner).
    st.session_state["iw_reps"] = st.session_state["_kept_iw_reps"] = data_default(
        "iw_reps", default_replicates(len(scenario.private), REPLICATES))
with st.sidebar:
    st.header("Importance weighting")
    epsilon_slot = st.container()  # the ε slider, drawn by live() below
    lam = lambda_slider("iw_lambda", 0.1,
                        help="Larger λ: less noise, weights closer to 1 (more bias).")
    n_reps = replicates_slider(
        "iw_reps", 100, options=REPLICATES, label="Replicates (bootstrap resamples of D)",
        help="A replicate is one resample of D (drawn with replacement) run through the "
             "mechanism; the spread over replicates is what the box plots show.")
    sim_seed = seed_input("iw_seed")
    query = query_sidebar(scenario, key="iw_q") if scenario is not None else None
budget_sidebar()
export_panel("importance")

st.title("Importance weighting: publish weights, not data")
st.markdown(
    "The data owner fits a model that tells D's records from E's, adds noise calibrated to ε, "
    "and publishes **one weight per public record**. Weighted averages over E then estimate "
    "averages over the private D, for any question, without spending more budget "
    "(Ji & Elkan 2013, Algorithm 1)."
)

with st.expander("How to read this page"):
    st.markdown(
        "- **The query** is the question the weights answer, in the data's own units. An "
        "indicator such as *I(income == >50K)* reads \"the share of people whose income is "
        "above $50K\": I(…) is 1 for a record that satisfies the condition and 0 otherwise, so "
        "its average is a fraction; *mean of age* is the average of a column.\n"
        "- **A replicate** is one bootstrap resample of D (as many records, drawn with "
        "replacement) run through the whole mechanism. The spread over replicates shows how "
        "much the answer would vary from one release to the next.\n"
        "- **A box plot**: the line is the median replicate, the box holds the middle half, the "
        "whiskers end at the 2.5 % and 97.5 % quantiles, so they span the middle 95 % of the "
        "replicates (as in Ji & Elkan's figures), and dots are the replicates beyond.\n"
        "- **E‖δ‖** is the average length of the random vector δ that the mechanism adds to the "
        "model's coefficients before release: the bigger it is, the noisier the weights.\n"
        "- **Three sources of randomness**, kept apart on purpose: the scenario's seed fixes how "
        "the data was split into D and E (the same for everyone); the simulation seed fixes the "
        "replicates, so every figure can be reproduced; a **release** uses neither and draws "
        "fresh randomness from the operating system, so nobody can rebuild its noise. Uploads "
        "split at random use the scenario seed too; two uploaded files use none.\n"
        "- **Non-private** marks numbers computed from D without noise (the truth, the bounds): "
        "they are shown to explain the mechanism and would never be published."
    )

view = st.segmented_control("View", VIEWS, format_func=VIEW_LABELS.get, key="iw_view",
                            label_visibility="collapsed") or VIEWS[0]
#: The box views' symbol, for the legend drawn once above the figure.
BOX_VIEWS = {"by_lambda": "λ", "by_epsilon": "ε"}
#: Each figure's chart key (:data:`dpcore.figures.importance.TITLES` names the figures).
CHART_KEYS = {"estimates_by_epsilon": "fig_epsilon", "estimates_by_lambda": "fig_lambda",
              "bias_sd": "fig_bias_sd", "variance_by_epsilon": "fig_var_eps",
              "variance_by_lambda": "fig_var_lam", "baselines": "fig_baselines",
              "model_distances_svm": "fig_svm", "model_distances_lr": "fig_lr"}
OWN_EPS = ", ".join(f"{e:g}" for e in MODEL_EPSILONS)


def page_params(epsilon: float) -> Params:
    """The study's parameters: the page's controls as this session holds them (the query
    builder's and the model view's included), at ``epsilon``."""
    state = {key: st.session_state[key] for key in CONTROLS if key in st.session_state}
    return Params.from_controls({**state, "iw_view": view, "iw_epsilon": epsilon}, sim_seed)


def progress_text(params: Params) -> str:
    """What the progress bar says while the study prepares."""
    return ("Training SVMs and logistic regressions…" if params.stage()[1] is not None
            else "Fitting the bootstrap replicates…")


def show_metrics(m: pd.Series) -> None:
    """The three ε-dependent numbers, into their slot in the row of metrics."""
    slot.metric("Median DP estimate", f"{m['median_estimate']:.4f}",
                delta=f"{m['median_estimate'] - m['truth_nonprivate']:+.4f} vs truth",
                delta_color="off")
    slot.metric("SD over replicates", f"{m['sd_estimate']:.4f}")
    slot.metric("Noise norm E‖δ‖", f"{m['noise_norm']:.3g}",
                help="The average length of the random vector δ added to the model's "
                     "coefficients β before release: k·√k/(N_D λ ε) for β's k components "
                     "(see below), plus a small term for the solver's accuracy.")


def advise(m: pd.Series) -> None:
    """Say when the noise swamps the weights, or λ's bias holds them at the public mean, and
    which setting helps (rules of N_D, d and the public records only)."""
    E, n_private = scenario.public, len(scenario.private)
    epsilon, log_noise = m["epsilon"], m["log_weight_noise"]
    truth, public_mean = m["truth_nonprivate"], m["public_mean"]
    if log_noise > LOG_WEIGHT_NOISE_LIMIT:
        better_lam = default_lambda(E, n_private, epsilon, LAMBDAS)
        better_eps = smallest_epsilon(E, n_private, lam, EPSILONS)
        fixes = [f"raise λ to {better_lam:g}"] if better_lam > lam else []
        fixes += [f"raise ε to {better_eps:g}"] if better_eps is not None else []
        st.warning(
            f"At ε = {epsilon:g} and λ = {lam:g} the noise moves a typical record's log-weight "
            f"by about {log_noise:.1f} (a factor of e^{log_noise:.1f} on its weight): the "
            "weights are mostly noise, so the estimates scatter over the whole range. "
            f"To see the signal, {' or '.join(fixes) or 'use a larger dataset'}.",
            icon=":material/blur_on:")
    elif pulled_to_public(m["median_estimate"], truth, public_mean):
        remedy = correcting_epsilon(E, n_private, lam, EPSILONS, LAMBDAS)
        st.info(
            f"At λ = {lam:g} the weights stay close to 1, so the estimates sit near the "
            f"unweighted public mean ({public_mean:.3f}), not the truth ({truth:.3f}, "
            f"non-private): the regularisation that keeps the noise of ε = {epsilon:g} in "
            f"check on {n_private:,} private records leaves E almost uncorrected. That is λ's "
            "bias, which no ε removes at this λ. "
            + (f"With more budget a much smaller λ suffices (at ε = {remedy[0]:g} the rule "
               f"picks λ = {remedy[1]:g}); " if remedy else "")
            + "a smaller λ corrects more and adds noise (see Estimates vs λ).",
            icon=":material/balance:")


def model_controls() -> None:
    """The Model training view's own controls (read back by :func:`page_params`)."""
    if scenario.target is None:
        st.info("This scenario has no target to train a classifier on: choose one in the "
                "sidebar (uploads: the target column) to compare models.")
        return
    st.markdown(
        "Train a linear SVM and a logistic regression on **weighted E** and measure "
        "how far each lands from the same model trained on D (non-private). Their penalty is "
        "chosen by cross-validation on E alone (free: it reads nothing private). This view "
        f"uses its own budgets ε = {OWN_EPS}, not the slider's.")
    st.select_slider("Replicates for the model comparison", (5, 10, 20, 50),
                     key="iw_model_reps")
    st.toggle("Train the models (takes a few seconds)", key="iw_models")


def draw(numbers: dict[str, pd.DataFrame], params: Params) -> None:
    """The view's figures (side by side when two), and the tables and captions beside them."""
    figs = study_figures(study, scenario, scenario_id, params,
                         lambda: figures(numbers, params, legend=False), "no legend")
    if params.view == MODELS:
        context = (f"{scenario.title}; λ = {lam:g}; this view's own ε = {OWN_EPS}; "
                   f"{params.model_reps} replicates")
        if figs:
            st.caption(distance_legend(), unsafe_allow_html=True)
    else:
        context = f"{scenario.title}; {query}; ε = {params.epsilon:g}, λ = {lam:g}"
    slots = st.columns(2) if len(figs) == 2 else [nullcontext()] * len(figs)
    for where, (name, fig) in zip(slots, figs.items(), strict=True):
        with where:
            show(fig, CHART_KEYS[name], title=TITLES[name], context=context,
                 export=lambda name=name: figures(numbers, params)[name])
    # Every trend in the caption is computed from the numbers drawn (study.caption).
    words = study.caption(numbers, params)
    if params.view == "baselines":
        words = (f"Laplace perturbation calibrates its noise to an L1 sensitivity of "
                 f"{scenario.record_l1_sensitivity:g} per record. {words}")
    if words and params.view != MODELS:
        st.caption(words)
    if params.view == "variance":
        with st.expander("Numbers"):
            st.dataframe(numbers["summary_by_epsilon"].merge(
                numbers["theory_by_epsilon_nonprivate"], on=["lam", "epsilon"]), hide_index=True)
    elif params.view == "baselines":
        st.dataframe(numbers["baselines_summary"], hide_index=True)
    elif "model_reference_norms_nonprivate" in numbers:
        norms = numbers["model_reference_norms_nonprivate"].set_index("model")["reference_norm"]
        penalty = numbers["model_accuracy_nonprivate"]["penalty"].iloc[0]
        st.caption(
            "How far a classifier trained on weighted E lands from the one trained on D at the "
            f"same penalty Λ = {penalty:g} (cross-validated on E; norms "
            f"{norms['linear SVM']:.2f} for the SVM, {norms['logistic regression']:.2f} for "
            "logistic regression; non-private references), against releasing the SVM itself "
            f"by output perturbation. {words}")
        st.markdown("**Does the logistic regression learn?** Accuracy on D of each model "
                    "(non-private evaluations; the model on D is scored by cross-validation at "
                    "its own best penalty)")
        st.dataframe(numbers["model_accuracy_nonprivate"], hide_index=True)


def publish(epsilon: float) -> None:
    """The release (:func:`dpcore.releases.importance.publish`: fresh OS entropy, spent through
    the session's accountant, never cached) and what it publishes."""
    st.markdown(
        f"**One release** at ε = {epsilon:g} and λ = {lam:g}: the only output on this page "
        "that leaves the data owner. Everything else is a simulation of the mechanism.")
    # Step 1 of Algorithm 1 (non-private, no noise yet) is reused when only ε moves.
    step1 = memo(scenario, scenario_id, ("balanced fit", lam),
                 lambda: balanced_fit(scenario.private, scenario.public, lam))
    published = publish_panel("importance", scenario=scenario, scenario_id=scenario_id,
                              epsilon=epsilon, settings=release.settings(epsilon, lam),
                              release=lambda accountant: release.publish(
                                  scenario, epsilon=epsilon, lam=lam, accountant=accountant,
                                  step1=step1),
                              label="Publish the weights", noise=release.NOISE)
    if published is not None:
        iw = published.value
        st.success(f"Published at {published.settings} "
                   f"({published.time:%H:%M:%S} UTC).", icon=":material/check_circle:")
        st.metric("DP estimate of the query from this release", f"{iw.estimate(query):.4f}")
        show(weights_histogram(iw.weights_), "fig_weights", title="Released weights",
             context=f"{scenario.title}; {published.settings}")
        st.caption("How the weights spread: records like D's are weighted up, the rest "
                   "down.")
        released = release.released_table(scenario, iw.weights_)
        st.markdown("**Most-weighted public records**")
        st.dataframe(released.nlargest(10, "weight"), hide_index=True)
        st.download_button("Download the release (public rows + weights, CSV)",
                           lambda: csv_bytes(released), "importance_weights.csv",
                           "text/csv", key="iw_download")


def live(view: str) -> None:
    """Everything the ε slider changes: the slider (drawn into its sidebar slot), the three
    ε-dependent numbers (into their slot in the row of metrics), the advice and the view; in a
    study view also the export's config and the link.

    A study view runs this as a fragment, so that an ε move reruns this function alone (the
    study's :func:`~dpcore.studies.importance.at`, on its cached prepared part): the scenario,
    the query, the fits, the budget and the export panels, and every text that ε does not
    change, stay as drawn. The Publish view calls it in the page's own run, so that a release
    and the budget panel on screen always come from the same run.
    """
    with epsilon_slot:
        epsilon = epsilon_slider("iw_epsilon", 0.1)
    if view != PUBLISH:
        refresh_export("importance")  # a fragment rerun: the config and the URL follow the slider
    with show_errors():
        notes = st.container()  # the advice, above the view's own controls
        if view == MODELS:
            model_controls()
        params = page_params(epsilon)
        numbers = study_numbers(study, scenario, scenario_id, params,
                                text=progress_text(params))
        metrics = numbers["metrics"].iloc[0]
        show_metrics(metrics)
        with notes:
            advise(metrics)
        if view == PUBLISH:
            publish(epsilon)
        else:
            draw(numbers, params)


with show_errors():
    if scenario is None or query is None:
        with epsilon_slot:
            epsilon_slider("iw_epsilon", 0.1)
        st.info("Choose a scenario in the sidebar to begin.")
        st.stop()
    scenario_id = st.session_state["scenario_id"]
    base = page_params(st.session_state["iw_epsilon"])
    ready = study_prepared(study, scenario, scenario_id, base, text=progress_text(base))

    st.subheader(f"Query: {md(ready.query)}")
    truth_col, public_col, live_col = st.columns([1, 1, 3])
    truth_col.metric("Truth on D (non-private)", f"{ready.truth:.4f}",
                     help="The answer on the private data itself, without noise: shown for "
                          "comparison only, never released.")
    public_col.metric("Unweighted public mean", f"{ready.public_mean:.4f}",
                      help="The answer on E without weights: free, but biased when E differs "
                           "from D.")
    slot = live_col.container(horizontal=True)  # the ε-dependent numbers, drawn by live()
    dim = scenario.dimension
    st.caption(
        f"λ = {lam:g}, {n_reps} bootstrap resamples of D ({len(scenario.private):,} records) "
        f"against E ({len(scenario.public):,} records); {dim.text()}. The weighting model "
        "reads whole records, so β has k = "
        f"{dim.model_text(intercept=ready.d > dim.columns, target=True)}"
        + (f" (Ji & Elkan's Adult encoding: {PAPER_D})" if scenario.name == "adult" else "")
        + ". The noise grows like k^1.5 / (N_D λ ε). These are simulations of the mechanism, "
        "seeded and reproducible: none of them is a release."
    )
    if view in BOX_VIEWS:
        st.caption(box_legend(f"at the chosen {BOX_VIEWS[view]}"), unsafe_allow_html=True)
    (live if view == PUBLISH else st.fragment(live))(view)
