"""Private logistic regression (Chaudhuri & Monteleoni 2008): output vs objective perturbation.

The views are seeded simulations on the chosen data (not releases); the "Publish" view makes the
only thing a data owner would release: one private model.
"""

import datetime as dt
import json

import numpy as np
import streamlit as st

from dpcore.figures.perturbation import bounds_figure, coefficient_bars, distance_boxes, error_curve
from dpcore.perturbation import PrivateLogisticRegression
from dpcore.perturbation.experiments import (
    epsilon_curve,
    guessing_error,
    learning_curve,
    release_lambda,
    scenario_arrays,
    summarise,
    swamped_methods,
)
from dpcore.studies.perturbation import (
    EPSILON_GRID,
    LAMBDA_MODES,
    LAMBDAS,
    PAPER_N,
    SIZES,
    SOURCES,
    SYNTHETIC,
    SYNTHETIC_TEST,
    VIEWS,
    bound_curves,
    cv_lambda,
    learning_sizes,
    public_data,
    study_lambda,
    training_data,
)
from ui.budget import budget_sidebar
from ui.cache import is_cached, memo
from ui.errors import show_errors
from ui.export import export_panel, refresh_export
from ui.navigation import require_router
from ui.release import publish_panel
from ui.show import show
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.widgets import epsilon_slider, log_slider, replicates_slider, seed_input

require_router()

# The views, sources, grids and the study's data come from dpcore.studies.perturbation, which
# recomputes this page's numbers from an exported run config.

scenario = scenario_sidebar()
keep_widget_state({"lr_view": VIEWS[0], "lr_source": SOURCES[0],
                   "lr_lambda_mode": LAMBDA_MODES[0]})
with st.sidebar:
    st.header("Private logistic regression")
    source = st.radio("Training data", SOURCES, key="lr_source",
                      help="The scenario's private set D, or the paper's synthetic data "
                           "(Sect. 6: uniform on the unit sphere in 10 dimensions).")
    epsilon_slot = st.container()  # the ε slider, drawn by live() below
    lambda_mode = st.radio(
        "Choose λ by", LAMBDA_MODES, key="lr_lambda_mode",
        help="Rule: λ = 0.2·d/(n·ε) (objective perturbation; reads no data, spends nothing). "
             "By hand: the slider below. CV: 3-fold cross-validation of the non-private model "
             "on public data (the scenario's E, or a fresh synthetic sample of 10,000 points as "
             "in the paper), never on D.")
    use_rule = lambda_mode == LAMBDA_MODES[0]
    lam_set = log_slider("Regularisation λ", LAMBDAS, "lr_lambda", 0.01,
                         help="Used when λ is set by hand. Larger λ: less noise, more bias.")
    n_choice = int(log_slider("Training size n", SIZES, "lr_n", PAPER_N,
                              help="Rows used for training (capped at the data's size)."))
    restarts = replicates_slider("lr_restarts", 10, options=(5, 10, 20, 50),
                                 label="Restarts (noise draws)",
                                 help="Each restart draws fresh noise for every method and ε; "
                                      "the bands show the spread over restarts and folds.")
    seed = seed_input("lr_seed")
budget_sidebar()
export_panel("perturbation")

st.title("Private logistic regression: perturb the output or the objective?")
st.markdown(
    "Two ways to publish a logistic-regression classifier with ε-differential privacy "
    "(Chaudhuri & Monteleoni 2008): fit it and **add noise to the coefficients** (output "
    "perturbation, Algorithm 1), or **add a random linear term to the objective** before fitting "
    "(objective perturbation, Algorithm 2, with the 2011 correction of its proof). Which loses "
    "less accuracy, and how does that depend on ε, λ and n?"
)
PUBLISH = VIEWS[-1]


def _data():
    """Training arrays, held-out arrays (or None: cross-validation), norm bound, intercept."""
    return training_data(scenario, source, n_choice, seed)


def _public():
    """Public data for choosing λ: the scenario's E, or a fresh synthetic holdout (Sect. 6)."""
    return public_data(scenario, source, seed)


view = st.segmented_control("View", VIEWS, key="lr_view", label_visibility="collapsed") or VIEWS[0]


def live(view: str) -> None:
    """Everything the ε slider changes: the slider (drawn into its sidebar slot) and ``view``
    (with the rule, λ follows ε); in a study view also the export's config and the link.

    A study view runs this as a fragment, so that an ε move reruns this function alone, not the
    scenario, budget and export panels. The Publish view calls it in the page's own run, so that
    a release and the budget panel on screen always come from the same run.
    """
    with epsilon_slot:
        epsilon = epsilon_slider("lr_epsilon", 1.0)
    if view != PUBLISH:
        refresh_export("perturbation")  # a fragment rerun: the config and the URL follow ε
    with show_errors():
        if scenario is None and source not in SYNTHETIC:
            st.info("Choose a scenario in the sidebar, or the paper's synthetic data.")
            st.stop()
        scenario_id = st.session_state.get("scenario_id", "none")
        X, y, X_test, y_test, norm, intercept, where = _data()
        n, d = X.shape
        if lambda_mode == LAMBDA_MODES[2]:
            X_pub, y_pub = _public()
            with st.spinner("Cross-validating λ on public data…"):
                lam_cv = memo(scenario, scenario_id, ("lr cv", source, seed, norm, intercept),
                              lambda: cv_lambda(X_pub, y_pub, norm, intercept, seed))
        lam = study_lambda(lambda_mode, epsilon=epsilon, n=n, d=d, lam_set=lam_set,
                           lam_cv=lam_cv if lambda_mode == LAMBDA_MODES[2] else None)
        eps_axis = tuple(sorted(set(EPSILON_GRID) | {epsilon}))
        common = dict(lam=lam, restarts=restarts, X_test=X_test, y_test=y_test, data_norm=norm,
                      fit_intercept=intercept, seed=seed,
                      **({"folds": 3} if X_test is None else {}))
        key = (source, n, lam, restarts, seed, norm, intercept)
        context = f"{where}; λ = {lam:.3g}" + {LAMBDA_MODES[0]: " (rule)", LAMBDA_MODES[1]: "",
                                               LAMBDA_MODES[2]: " (CV on public data)"}[lambda_mode]
        held_out = ("the held-out test part" if X_test is not None and source not in SYNTHETIC
                    else f"{SYNTHETIC_TEST:,} fresh test points" if source in SYNTHETIC
                    else "3-fold cross-validation")

        st.caption(
            f"Records scaled by a norm bound of {norm:.3g} from the domain (never from the data) "
            "and "
            f"clipped to norm 1; d = {d}" + (" plus an intercept" if intercept else "")
            + f"; test error on {held_out}. These are seeded simulations (restarts = noise draws), "
            "not releases; the non-private curve is computed without noise."
        )

        def curve(excess: bool):
            parts = ("lr curve", *key, eps_axis, excess)
            bar = None  # a bar only when there is work
            if not is_cached(scenario, scenario_id, parts):
                bar = st.progress(0.0, text="Fitting every method at every ε…")
            result = memo(scenario, scenario_id, parts, lambda: epsilon_curve(
                X, y, epsilons=eps_axis, excess=excess,
                progress=None if bar is None else bar.progress, **common))
            if bar is not None:
                bar.empty()
            return result

        if view == "Error vs ε":
            res = curve(False)
            summary = summarise(res)
            show(error_curve(summary, by="epsilon", chosen=epsilon, xtitle="ε (log scale)"),
                 "fig_error_eps", title="Test error vs ε (Chaudhuri & Monteleoni Fig. 2c-d)",
                 context=context)
            here = summary[np.isclose(summary["epsilon"], epsilon)].set_index("method")
            guess = guessing_error(y_test if y_test is not None else y)
            swamped = swamped_methods(summary, epsilon, guess)
            if swamped:
                st.warning(
                    f"At ε = {epsilon:g}, {' and '.join(swamped)} cannot be told from always "
                    f"guessing the most frequent class (test error {guess:.3f}, non-private): the "
                    "noise has erased what the model learned, so these errors mean nothing. Raise "
                    "ε, use more records (n) or a larger λ.", icon=":material/blur_on:")
            cols = st.columns(len(here))
            for col, (method, row) in zip(cols, here.iterrows(), strict=True):
                col.metric(method if method != "non-private" else "non-private (no noise)",
                           f"{row['mean']:.3f}", help=f"Mean test error at ε = {epsilon:g}; SD "
                           f"{row['std']:.3f} over folds and restarts.")
            st.caption("Bands: ±1 SD over folds and restarts; λ is the same at every ε (the value "
                       "above, set for the chosen ε). Objective perturbation adds noise the "
                       "size of one record's influence to the objective, so it needs far less than "
                       "output perturbation's noise, whose scale is 2/(nλε); the 2008 calibration "
                       "spends slightly less budget on the Jacobian term than the corrected one.")
        elif view == "Learning curve":
            n_fold, sizes = learning_sizes(n, X_test is not None)  # training rows of a fold
            bar = st.progress(0.0, text="Fitting at every training size…")
            res = memo(scenario, scenario_id, ("lr learning", *key, epsilon, tuple(sizes)),
                       lambda: learning_curve(X, y, sizes=sizes, epsilon=epsilon,
                                              progress=lambda f: bar.progress(f), **common))
            bar.empty()
            show(error_curve(summarise(res, by="n"), by="n", chosen=n_fold,
                             xtitle="training size n",
                             log_x=False),
                 "fig_learning", title="Learning curves (Chaudhuri & Monteleoni Fig. 2a-b)",
                 context=f"{context}; ε = {epsilon:g}")
            st.caption("More records make every private method cheaper: the noise of both shrinks "
                       "like 1/n. λ stays fixed across sizes here.")
        elif view == "Distance to non-private":
            res = curve(False)
            show(distance_boxes(res, epsilon), "fig_distance",
                 title="How far the private model lands from the non-private one", context=context)
            st.caption("‖w_private − w_non-private‖ over restarts and folds, for records scaled to "
                       "norm ≤ 1. Boxes: median, middle half, whiskers to 1.5 box-lengths.")
        elif view == "Bounds (Lemmas 3-4)":
            res = curve(True)
            bounds = bound_curves(eps_axis, n=n, d=d, intercept=intercept,
                                  held_out=X_test is not None, lam=lam)
            show(bounds_figure(res, bounds, epsilon), "fig_bounds",
                 title="Excess training loss and the bounds of Lemmas 3 and 4", context=context)
            st.caption("Excess regularised training loss f̂(w_private) − f̂(w_non-private). Lemma 3 "
                       "(output) and Lemma 4 (objective, as printed for the 2008 calibration) "
                       "bound "
                       "it with probability 1 − δ = 0.95: the measured 95th percentiles must lie "
                       "below the dashed lines of their colour.")
        else:
            if source in SYNTHETIC:
                st.info("Publishing is for a scenario's private set: choose 'Scenario (sidebar)' "
                        "as training data.")
                st.stop()
            arrays = scenario_arrays(scenario)
            public = scenario_arrays(scenario, part="public")
            n_all = arrays.X.shape[0]
            if use_rule:  # public data only: E with the release's simulated noise at N_D
                lam_release, _ = memo(scenario, scenario_id, ("release λ", epsilon, intercept),
                                      lambda: release_lambda(
                                          public.X, public.y, n_private=n_all, epsilon=epsilon,
                                          data_norm=arrays.data_norm, fit_intercept=intercept,
                                          classes=arrays.classes))
            else:
                lam_release = lam
            st.markdown(
                f"**One release** at ε = {epsilon:g}, λ = {lam_release:.3g}: an "
                f"output-perturbation model (Algorithm 1) trained on all {n_all:,} records of "
                "D. Everything else on this page is a simulation.")
            if use_rule:
                st.caption(
                    "λ of the release: the one that did best when the release was simulated on "
                    "the public set E (a fit to 70 % of E, the release's noise for "
                    f"N_D = {n_all:,} records, scored on the other 30 %). It reads no private "
                    "data; the study's rule of (ε, n, d) suits the paper's data but can "
                    "regularise a table like Adult down to the majority class.")
            st.caption(
                "The release adds coordinate-wise Laplace noise, calibrated to √d times the L2 "
                "sensitivity, through OpenDP's exact sampler: safe on floating point, the same ε, "
                "and about √2 times the noise norm of the paper's L2-Laplace, which the studies "
                "draw. Objective perturbation is studied but not released: its proof needs noise "
                "from a continuous law and the exact minimiser, and floating point gives "
                "neither (docs/privacy.md).")
            if arrays.X_test is not None:
                X_eval, y_eval, eval_name = arrays.X_test, arrays.y_test, "the held-out test part"
            else:
                X_eval, y_eval, eval_name = public.X, public.y, "the public set E"
            settings = f"ε = {epsilon:g}, λ = {lam_release:.3g}, output perturbation"

            def release(accountant):
                model = PrivateLogisticRegression(
                    epsilon=epsilon, lam=lam_release, method="output",
                    data_norm=arrays.data_norm, fit_intercept=intercept, accountant=accountant,
                    dataset=scenario.title, classes=arrays.classes)
                return model.fit(arrays.X, arrays.y)

            published = publish_panel("perturbation", scenario=scenario, scenario_id=scenario_id,
                                      epsilon=epsilon, settings=settings, release=release,
                                      label="Publish the model",
                                      noise="coordinate-wise Laplace at √d × the L2 sensitivity")
            if published is not None:
                model = published.value
                error = 1.0 - model.score(X_eval, y_eval)
                st.success(f"Published at {published.settings} ({published.time:%H:%M:%S} UTC).",
                           icon=":material/check_circle:")
                st.metric(f"Test error on {eval_name}", f"{error:.4f}",
                          help="Measured on data the model was not trained on; the released model "
                               "itself is the private output.")
                show(coefficient_bars(model.coef_[0], arrays.features), "fig_coef",
                     title="Released coefficients (largest 20)",
                     context=f"{scenario.title}; {published.settings}")
                payload = model.to_dict() | {
                    "features": list(arrays.features), "classes": [str(c) for c in model.classes_],
                    "test_error": error, "test_set": eval_name, "n_train": n_all,
                    "dataset": scenario.title,
                    "published": published.time.astimezone(dt.UTC).isoformat(),
                }
                st.download_button("Download the model (JSON)", json.dumps(payload, indent=2),
                                   "private_logistic_regression.json", "application/json",
                                   key="lr_download")


# A study view is a fragment: an ε move reruns live() alone.
(live if view == PUBLISH else st.fragment(live))(view)
