"""Private logistic regression (Chaudhuri & Monteleoni 2008): output vs objective perturbation.

The views draw the study :mod:`dpcore.studies.perturbation` (seeded simulations, not releases)
with :func:`dpcore.figures.perturbation.figures`; the "Publish" view makes the only thing a data
owner would release: one private model.
"""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import streamlit as st

from dpcore.datasets.dimension import Dimension
from dpcore.figures.perturbation import TITLES, coefficient_bars, figures
from dpcore.perturbation.experiments import (
    CENTRED_MIN_ROWS,
    ReleaseSimulation,
    ScenarioArrays,
    is_centred,
    public_prior,
    release_simulation,
    scenario_arrays,
    simulated_release,
)
from dpcore.planning.release import (
    ReleasePlan,
    public_reference,
    reach_note,
    release_plan,
    release_point,
)
from dpcore.releases import perturbation as release
from dpcore.studies import perturbation as study
from dpcore.studies.perturbation import (
    EPSILON_GRIDS,
    LAMBDA_MODES,
    LAMBDAS,
    PAPER_N,
    SOURCES,
    SYNTHETIC,
    SYNTHETIC_TEST,
    VIEW_LABELS,
    VIEWS,
    Params,
    n_options,
)
from dpcore.validation import DataError
from ui.budget import budget_sidebar
from ui.cache import is_builtin, memo
from ui.errors import show_errors
from ui.export import export_panel, refresh_export
from ui.navigation import require_router
from ui.release import publish_panel
from ui.show import show
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.study import figures as study_figures
from ui.study import numbers as study_numbers
from ui.study import prepared as study_prepared
from ui.widgets import EPSILONS, epsilon_slider, log_slider, replicates_slider, seed_input

require_router()

scenario = scenario_sidebar()
keep_widget_state({"lr_view": VIEWS[0], "lr_source": SOURCES[0],
                   "lr_lambda_mode": LAMBDA_MODES[0], "lr_grid": next(iter(EPSILON_GRIDS))})
with st.sidebar:
    st.header("Private logistic regression")
    source = st.radio("Training data", SOURCES, key="lr_source",
                      help="The scenario's private set D, or the paper's synthetic data "
                           "(Sect. 6: uniform on the unit sphere in 10 dimensions).")
    epsilon_slot = st.container()  # the ε slider, drawn by live() below
    lambda_mode = st.radio(
        "Choose λ by", LAMBDA_MODES, key="lr_lambda_mode",
        help="Rule: λ = 0.2·k/(n·ε) at each ε, k the model's coefficients (d, plus one for an "
             "intercept); it reads no data and spends nothing. By hand: a λ "
             "slider appears below. CV: 3-fold cross-validation of the non-private model on "
             "public data (the scenario's E, or a fresh synthetic sample of 10,000 points as in "
             "the paper), never on D.")
    use_rule = lambda_mode == LAMBDA_MODES[0]
    if lambda_mode == LAMBDA_MODES[1]:
        lam_set = log_slider("Regularisation λ", LAMBDAS, "lr_lambda", 0.01,
                             help="Larger λ: less noise, more bias.")
    else:  # the rule or CV chooses λ: no slider that would do nothing; its value is kept
        keep_widget_state({"lr_lambda": 0.01})
        lam_set = float(st.session_state["lr_lambda"])
    sizes = n_options(scenario, source)  # every step trains on a different n
    if len(sizes) > 1:
        n_choice = int(log_slider("Training size n", sizes, "lr_n", min(PAPER_N, sizes[-1]),
                                  help="Rows used for training; the largest uses all the rows "
                                       "there are."))
    else:  # fewer rows than the smallest size: all of them, and no slider that does nothing
        n_choice = sizes[0]
        st.caption(f"Training size: every row of D (fewer than {sizes[0]:,}).")
    restarts = replicates_slider("lr_restarts", 10, options=(5, 10, 20, 50),
                                 label="Restarts (noise draws)",
                                 help="Each restart draws fresh noise for every method and ε; "
                                      "the bands show the spread over restarts and folds.")
    grid = st.selectbox("ε grid of the curves", list(EPSILON_GRIDS), key="lr_grid",
                        help="The ε at which the curves against ε are computed (the chosen ε "
                             "is added). The paper's Figs. 1-2 live at small ε: its Fig. 1 "
                             "errors are reproduced near ε = 0.02.")
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
PUBLISH = "publish"
#: Each figure's chart key (:data:`dpcore.figures.perturbation.TITLES` names the figures).
CHART_KEYS = {"error_vs_epsilon": "fig_error_eps", "learning_curve": "fig_learning",
              "distance": "fig_distance", "bounds": "fig_bounds"}
#: The progress bar's text while the study prepares each view's part.
PROGRESS = {"curve": "Fitting every method at every ε…",
            "curve with excess loss": "Fitting every method at every ε…",
            "learning curve": "Fitting at every training size…",
            "data": "Preparing the data…"}
#: The caption under each view's figure.
CAPTIONS = {
    "error_vs_epsilon": "Bands: ±1 SD over folds and restarts; dashed: the error of always "
                        "guessing the most frequent class. Objective perturbation adds its noise "
                        "to the objective before the fit, output perturbation to the fitted "
                        "coefficients (scale 2/(nλε)); the 2008 calibration spends slightly less "
                        "budget on the Jacobian term than the corrected one. These curves are "
                        "the paper's mechanisms, their penalty centred on zero; the release "
                        "Publish makes is centred on the public model, and the note above (if "
                        "any) is about it.",
    "learning_curve": "More records make every private method cheaper: the noise of both "
                      "shrinks like 1/n. λ stays fixed across sizes here; dashed: the error of "
                      "always guessing the most frequent class.",
    "distance": "‖w_private − w_non-private‖ over restarts and folds, for records scaled to "
                "norm ≤ 1. Boxes: median and middle half; whiskers to the furthest draw within "
                "1.5 box-lengths (Tukey), dots beyond.",
    "bounds": "Excess regularised training loss f̂(w_private) − f̂(w_non-private). Lemma 3 "
              "(output) and Lemma 4 (objective, as printed for the 2008 calibration) bound it "
              "with probability 1 − δ = 0.95: the measured 95th percentiles must lie below the "
              "dashed lines of their colour.",
}
#: How the figures' context names the λ mode.
MODE_NOTE = {LAMBDA_MODES[0]: " (rule)", LAMBDA_MODES[1]: "",
             LAMBDA_MODES[2]: " (CV on public data)"}

view = st.segmented_control("View", VIEWS, format_func=VIEW_LABELS.get, key="lr_view",
                            label_visibility="collapsed") or VIEWS[0]


def page_params(epsilon: float) -> Params:
    """The study's parameters: the sidebar's widgets, ``epsilon`` and the view."""
    return Params(source=source, epsilon=epsilon, lambda_mode=lambda_mode, lam=lam_set,
                  n=n_choice, restarts=restarts, grid=grid, view=view, seed=seed)


def lambda_note(m: pd.Series, params: Params) -> str:
    """λ as the figures' context names it: under the rule, an ε curve has its own λ at each ε."""
    if params.lambda_mode == LAMBDA_MODES[0] and params.stage().startswith("curve"):
        return f"λ by the rule at each ε ({m['lam']:.3g} at ε = {params.epsilon:g})"
    return f"λ = {m['lam']:.3g}{MODE_NOTE[params.lambda_mode]}"


def data_caption(m: pd.Series, held_out: bool) -> None:
    """How the records are scaled and where the test error is measured."""
    tested = (f"{SYNTHETIC_TEST:,} fresh test points" if source in SYNTHETIC
              else "the held-out test part" if held_out else "3-fold cross-validation")
    dim = Dimension(int(m["d"]), int(m["target_columns"]))
    st.caption(
        f"Records scaled by a norm bound of {m['data_norm']:.3g} from the domain (never from "
        f"the data) and clipped to norm 1; {dim.text()}; the model fits "
        f"{dim.model_text(intercept=bool(m['intercept']))}; test error on {tested}. These are "
        "seeded simulations (restarts = noise draws), not releases; the non-private curve is "
        "computed without noise. The data-masking page fits Pham et al.'s model to the same "
        "tables with an intercept and a penalty centred at the model of the public set (its "
        "λ read off the public set, records centred by the public mean, its own norm bound "
        "and split), so its accuracy there differs.")


def error_metrics(m: pd.Series, params: Params, reach: str | None) -> None:
    """Under the ε curve: the methods swamped by noise at ε (unless the non-private model itself
    learns nothing at this λ, which :func:`no_better_than_guessing` says), each method's error
    there, the non-private model at its own best λ, and what ε or n would do (``reach``)."""
    epsilon, guess = m["epsilon"], m["guessing_error_nonprivate"]
    notes = st.container()  # always drawn, so a warning that comes and goes moves no metric
    if m["swamped"] and m["error non-private"] < guess:
        notes.warning(
            f"At ε = {epsilon:g} and λ = {m['lam']:.3g}, "
            f"{' and '.join(m['swamped'].split(', '))} cannot be told from always guessing the "
            f"most frequent class (test error {guess:.3f}, non-private): the noise has erased "
            f"what the model learned, so these errors mean nothing. {less_noise(params)}",
            icon=":material/blur_on:")
    if reach:
        notes.info(reach, icon=":material/query_stats:")
    methods = [c.removeprefix("error ") for c in m.index if c.startswith("error ")]
    columns = st.columns(len(methods) + 1)
    for col, method in zip(columns, methods, strict=False):
        col.metric(method if method != "non-private" else "non-private (no noise)",
                   f"{m[f'error {method}']:.3f}", help=f"Mean test error at ε = {epsilon:g}; SD "
                   f"{m[f'sd {method}']:.3f} over folds and restarts.")
    columns[-1].metric("non-private, own best λ", f"{m['best_error_nonprivate']:.3f}",
                       help="The model without noise at the λ that cross-validation on the "
                            f"training rows chose ({best_lambdas(m)}): what a logistic "
                            "regression can reach on these records. Non-private.")


def less_noise(params: Params) -> str:
    """What would shrink a swamped method's noise, among the settings the page still offers:
    a larger ε only below the slider's largest, a larger λ only when λ is set by hand (under
    the rule or CV another message may find λ too large, and λ is not this control's)."""
    ways = ["a larger ε"] if params.epsilon < max(EPSILONS) else []
    ways.append("more records (n)")
    if params.lambda_mode == LAMBDA_MODES[1]:
        ways.append("a larger λ")
    return (f"{', '.join(ways[:-1])} or {ways[-1]}" if len(ways) > 1 else ways[0]).capitalize() \
        + " would shrink the noise."


def release_reach(m: pd.Series, epsilon: float, n: int, scenario_id: str,
                  lam: float | None = None) -> str | None:
    """What the release Publish makes (approximate minima perturbation centred on the public
    model, at the λ it picks on E) of ``n`` records gives at ``epsilon``, and which ε or n
    would make it useful: the planner (:func:`dpcore.planning.release.reach_note`), from
    public information only (E, or the paper's fresh synthetic holdout; n; d). ``lam``: the
    release's own λ at ``epsilon`` when the page has it (the Publish view), else the
    planner's. Each simulated ε is cached, and the reference and E's roles in the simulation
    (:func:`~dpcore.planning.release.release_plan`: the public models fitted on its parts)
    once, so an ε move simulates at most one new ε (and the curve above it, if needed) and
    fits no public model."""
    return shown_reach(reach_job(m, epsilon, n, scenario_id, lam))


def reach_job(m: pd.Series, epsilon: float, n: int, scenario_id: str,
              lam: float | None = None) -> Callable[[], str | None]:
    """:func:`release_reach`'s computation, without Streamlit: E's arrays are read here, the
    simulations when the returned function is called (it may raise
    :class:`~dpcore.validation.DataError`)."""
    data = None if source in SYNTHETIC else scenario
    if data is None:
        X_pub, y_pub = study.public_data(None, source, seed)
        classes = None
    else:
        public = arrays_of("public")
        X_pub, y_pub, classes = public.X, public.y, public.classes
    scenario_id = scenario_id if data is not None else "no scenario"
    norm, intercept = float(m["data_norm"]), bool(m["intercept"])
    base = ("release plan", source, seed, norm, intercept)

    def plan() -> ReleasePlan:  # E in the simulation's roles: no ε or n changes it
        return memo(data, scenario_id, (*base, "plan"), lambda: release_plan(
            X_pub, y_pub, data_norm=norm, fit_intercept=intercept, classes=classes, seed=seed))

    def point(eps: float) -> tuple[float, float]:
        given = lam if eps == epsilon else None
        return memo(data, scenario_id, (*base, n, eps, given), lambda: release_point(
            X_pub, y_pub, eps, n_private=n, data_norm=norm, fit_intercept=intercept,
            classes=classes, seed=seed, lam=given, plan=plan()))

    def job() -> str | None:
        reference = memo(data, scenario_id, (*base, "reference"), lambda: public_reference(
            X_pub, y_pub, data_norm=norm, fit_intercept=intercept, seed=seed))
        return reach_note(point, epsilon=epsilon, n=n, d=int(m["d"]), reference=reference)

    return job


def reach_beside(numbers: dict[str, pd.DataFrame], params: Params,
                 scenario_id: str) -> Callable[[], str | None] | None:
    """The "Error vs ε" view's planner note (:func:`reach_job`), started now on a thread of
    its own when its results go to the store every session shares (built-in or synthetic
    data), so that it computes on the second core while this run builds and draws the
    figures; None for the other views. Returns what gives the note (waiting for it)."""
    if params.view != "error_vs_epsilon":
        return None
    m = numbers["metrics"].iloc[0]
    job = reach_job(m, params.epsilon, int(m["n"]), scenario_id)
    if not is_builtin(None if source in SYNTHETIC else scenario):
        return job  # an upload's results live in this session's memory: this thread only
    beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reach")
    running = beside.submit(job)
    beside.shutdown(wait=False)
    return running.result


def shown_reach(job: Callable[[], str | None]) -> str | None:
    """The planner's note from ``job`` (:func:`reach_job`), under a spinner; what stops the
    planner, said, when E is too small to simulate the release."""
    with st.spinner("Simulating the release on the public set…"):
        try:
            return job()
        except DataError as err:  # E too small to simulate the release in three parts
            return f"The planner cannot simulate the release Publish makes: {err}"


def best_lambdas(m: pd.Series) -> str:
    """The best λ of the non-private reference: one value, or the range over the folds."""
    low, high = float(m["lam_best_low"]), float(m["lam_best_high"])
    return f"λ = {low:.3g}" if low == high else f"λ from {low:.3g} to {high:.3g} over the folds"


def lambda_caption(params: Params) -> str:
    """How λ was chosen for the ε curve: its own at each ε under the rule, else one value."""
    if params.lambda_mode == LAMBDA_MODES[0]:
        return (" λ follows objective perturbation's rule 0.2·k/(n·ε) at each ε (k the model's "
                "coefficients above), for both methods, so the non-private line moves with ε "
                "too. Output perturbation's own rule is 0.07·(k/(n·ε))^(2/3); to compare the two "
                "at one λ chosen for neither, set λ by hand or by CV.")
    return " λ is the same at every ε (the value above)."


#: What to change when λ itself is too large, by how λ is chosen: never the setting in force.
SMALLER_LAMBDA = {
    LAMBDA_MODES[0]: "choose λ by CV on public data, or set it by hand",
    LAMBDA_MODES[1]: "set a smaller λ",
    LAMBDA_MODES[2]: "set λ by hand (cross-validation on the public set chose this one)",
}


def no_better_than_guessing(m: pd.Series, summary: pd.DataFrame, by: str,
                            params: Params) -> None:
    """Warn when the non-private model at the page's λ does no better than always guessing
    (then no private model at that λ can show anything): at the chosen ε, or at the largest
    training size. The non-private model at its own best λ (the "Error vs ε" view) says why:
    if it learns, λ is too large, and the advice names a setting other than the one in force;
    if it does not, the columns carry no linear signal, and no λ is blamed. Without it (the
    learning curve), both causes are named."""
    rows = summary[summary["method"] == "non-private"]
    row = rows.loc[rows[by].idxmax()] if by == "n" else rows.loc[
        (rows["epsilon"] - m["epsilon"]).abs().idxmin()]
    guess = float(m["guessing_error_nonprivate"])
    if row["mean"] < guess:
        return
    at_lambda = f"λ = {m['lam']:.3g}{MODE_NOTE[params.lambda_mode]}"

    def guessing(at: str) -> str:
        return (f"even without noise, a model at {at} has the test error of always guessing the "
                f"most frequent class ({row['mean']:.3f} against {guess:.3f}), and so has every "
                "private model at this λ.")

    same = guessing(at_lambda)
    action = SMALLER_LAMBDA[params.lambda_mode]
    best = m.get("best_error_nonprivate")
    if best is None or pd.isna(best):
        st.warning(
            f"{same[0].upper()}{same[1:]} Either this λ is too large for the table, or its "
            "columns do not predict the target (the view 'Error vs ε' shows the model at its "
            f"own best λ, which tells the two apart). If λ is too large: {action}.",
            icon=":material/warning:")
    elif best < guess:
        st.warning(
            f"At {at_lambda} the penalty outweighs what the records say: {guessing('this λ')} The "
            f"non-private model at its own best λ ({best_lambdas(m)}, chosen by "
            f"cross-validation on the training rows) reaches {best:.3f}, so the records do "
            f"predict the target: this λ is too large for the table. To fix it, {action}.",
            icon=":material/warning:")
    else:
        st.warning(
            f"{same[0].upper()}{same[1:]} So has the model without noise at its own best λ "
            f"({best_lambdas(m)}; non-private: {best:.3f}): these columns do not predict the "
            "target better than its base rate with a linear model, so no private model can "
            "either, at any λ.",
            icon=":material/warning:")


def draw(numbers: dict[str, pd.DataFrame], params: Params, context: str, figs: dict,
         reach: Callable[[], str | None] | None) -> None:
    """The view's figure (``figs``: :func:`dpcore.figures.perturbation.figures`, cached) and
    what goes under it (the planner's note, from :func:`reach_beside`)."""
    if params.view == "learning_curve":
        context = f"{context}; ε = {params.epsilon:g}"
    for name, fig in figs.items():
        show(fig, CHART_KEYS[name], title=TITLES[name], context=context)
    m = numbers["metrics"].iloc[0]
    if params.view == "error_vs_epsilon":
        no_better_than_guessing(m, numbers["summary"], "epsilon", params)
        error_metrics(m, params, shown_reach(reach) if reach is not None else None)
    elif params.view == "learning_curve":
        no_better_than_guessing(m, numbers["summary"], "n", params)
    st.caption(CAPTIONS[params.view]
               + (lambda_caption(params) if params.view == "error_vs_epsilon" else ""))


#: The releases of the Publish view: label -> method of PrivateLogisticRegression.
RELEASE_METHODS = {"approximate minima perturbation (default)": "amp",
                   "output perturbation (Algorithm 1)": "output"}


def arrays_of(part: str = "private") -> ScenarioArrays:
    """The scenario's ``part`` (D or E) as arrays (:func:`scenario_arrays`), encoded once per
    scenario where :func:`ui.cache.memo` keeps it (an upload's in this session only), read-only
    (every session's runs read the same arrays)."""
    def encoded() -> ScenarioArrays:
        arrays = scenario_arrays(scenario, part=part)
        for values in (arrays.X, arrays.y, arrays.X_test, arrays.y_test):
            if values is not None:
                values.flags.writeable = False
        return arrays

    return memo(scenario, st.session_state.get("scenario_id", "none"), ("arrays", part), encoded)


def release_lam(epsilon: float, intercept: bool, method: str, scenario_id: str) -> float:
    """λ of the release of ``method`` at ``epsilon``: the one that did best when the release,
    centred on the public model (when E has :data:`CENTRED_MIN_ROWS` rows), was simulated on
    the public set E with the noise of N_D records (public data only; cached, shared by the
    Publish view's planner note). E's roles in the simulation (the public models fitted on its
    parts, :func:`~dpcore.perturbation.experiments.release_simulation`) are kept once for
    every ε."""
    arrays, public = arrays_of(), arrays_of("public")
    centred = is_centred(public.X.shape[0])

    def simulation() -> ReleaseSimulation:
        return memo(scenario, scenario_id, ("release simulation", intercept, centred),
                    lambda: release_simulation(
                        public.X, public.y, data_norm=arrays.data_norm, fit_intercept=intercept,
                        classes=arrays.classes, centred=centred))

    return memo(scenario, scenario_id, ("release λ", epsilon, intercept, method, centred),
                lambda: simulated_release(simulation(), n_private=arrays.X.shape[0],
                                          epsilon=epsilon, method=method))[0]


def publish(epsilon: float, lam: float, intercept: bool, scenario_id: str) -> None:
    """The release (:func:`dpcore.releases.perturbation.publish`: fresh OS entropy, spent
    through the session's accountant, never cached) and what it publishes."""
    if source in SYNTHETIC:
        st.info("Publishing is for a scenario's private set: choose 'Scenario (sidebar)' as "
                "training data.")
        st.stop()
    keep_widget_state({"lr_release_method": next(iter(RELEASE_METHODS))})
    label = st.radio(
        "Release by", list(RELEASE_METHODS), key="lr_release_method", horizontal=True,
        help="Approximate minima perturbation (Iyengar et al. 2019): objective perturbation's "
             "noise, float-safe, with a certified solve and 1 % of ε as output noise; the "
             "accuracy of objective perturbation. Output perturbation: noise on the fitted "
             "coefficients (Chaudhuri & Monteleoni Algorithm 1).")
    method = RELEASE_METHODS[label]
    arrays, public = arrays_of(), arrays_of("public")
    n_all = arrays.X.shape[0]
    # the release's penalty is centred on a model fitted on the public set E alone, when E has
    # the rows to fit it and to choose λ for it (a public fact: E's size)
    centred = is_centred(public.X.shape[0])
    prior = memo(scenario, scenario_id, ("public prior", intercept),
                 lambda: public_prior(public.X, public.y, data_norm=arrays.data_norm,
                                      fit_intercept=intercept, classes=arrays.classes)
                 ) if centred else None
    lam_release = release_lam(epsilon, intercept, method, scenario_id) if use_rule else lam
    what = ("an approximate-minima-perturbation model (objective perturbation, Algorithm 2 "
            "with its 2011 correction, made float-safe)" if method == "amp"
            else "an output-perturbation model (Algorithm 1)")
    if centred:
        st.markdown(
            f"**One release** at ε = {epsilon:g}, λ = {lam_release:.3g}: {what} trained on all "
            f"{n_all:,} records of D, its penalty λ/2·‖w − w₀‖² centred on the public model w₀ "
            "(a logistic regression fitted on the public set E alone), so where the noise swamps "
            "the records the release stays near w₀. Everything else on this page is a "
            "simulation.")
    else:
        st.markdown(
            f"**One release** at ε = {epsilon:g}, λ = {lam_release:.3g}: {what} trained on all "
            f"{n_all:,} records of D, its penalty λ/2·‖w‖². The public set has "
            f"{public.X.shape[0]} rows, too few to fit a public model and choose λ for a release "
            f"centred on it ({CENTRED_MIN_ROWS} or more), so this release is not centred: where "
            "the noise swamps the records it is no better than guessing. Everything else on this "
            "page is a simulation.")
    if use_rule:
        st.caption(
            "λ of the release: the one that did best when this release was simulated on the "
            "public set E (in three parts taking turns as the public model's rows, the private "
            f"set with the release's noise for N_D = {n_all:,} records, and the scoring rows). "
            "It reads no private data and "
            "spends nothing. The study's rule of (ε, n, d) reads none either, but its constants "
            "were fixed on the paper's synthetic data and a validation split of Adult's training "
            "part (docs/paper-notes.md), so they may suit another table less well.")
    st.caption(
        "Both releases draw the papers' L2-Laplace noise, made safe on floating point: a "
        "Gaussian of random variance (the Gamma mixture that is the L2-Laplace) through "
        "OpenDP's exact discrete sampler. Approximate minima perturbation puts it in the "
        "objective, certifies how close the solver came to the exact minimum, and covers that "
        "gap with a little output noise (1 % of ε), so its proof holds on floating point "
        "(docs/privacy.md); objective perturbation exactly as the papers state it is studied, "
        "not released.")
    X_eval, y_eval, eval_name = release.evaluation_set(arrays, public)
    published = publish_panel(
        "perturbation", scenario=scenario, scenario_id=scenario_id, epsilon=epsilon,
        settings=release.settings(epsilon, lam_release, method, centred),
        release=lambda accountant: release.publish(
            scenario, arrays, epsilon=epsilon, lam=lam_release, method=method,
            intercept=intercept, prior=prior, accountant=accountant),
        label="Publish the model", noise=release.NOISE[method])
    if published is not None:
        model = published.value
        error = 1.0 - model.score(X_eval, y_eval)
        st.success(f"Published at {published.settings} ({published.time:%H:%M:%S} UTC).",
                   icon=":material/check_circle:")
        flatters = arrays.X_test is None and centred
        st.metric(f"Test error on {eval_name}", f"{error:.4f}",
                  help="Measured on data the model was not trained on; the released model "
                       "itself is the private output."
                       + (" E is also where the public model w₀ that the release is centred on "
                          "was fitted, so this error flatters the release." if flatters else ""))
        show(coefficient_bars(model.coef_[0], arrays.features), "fig_coef",
             title="Released coefficients (largest 20)",
             context=f"{scenario.title}; {published.settings}")
        st.download_button("Download the model (JSON)", release.released_json(
            model, arrays, error=error, test_set=eval_name, dataset=scenario.title,
            published=published.time), "private_logistic_regression.json", "application/json",
            key="lr_download")


def live(view: str) -> None:
    """Everything the ε slider changes: the slider (drawn into its sidebar slot) and ``view``
    (the study's :func:`~dpcore.studies.perturbation.at` on its cached prepared part; with the
    rule, λ follows ε); in a study view also the export's config and the link.

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
        params = page_params(epsilon)
        data = None if source in SYNTHETIC else scenario  # synthetic: built by the study
        scenario_id = st.session_state.get("scenario_id", "none")
        text = PROGRESS[params.stage()]
        ready = study_prepared(study, data, scenario_id, params, text=text)
        numbers = study_numbers(study, data, scenario_id, params, text=text)
        m = numbers["metrics"].iloc[0]
        data_caption(m, ready.held_out)
        if view == PUBLISH:
            if use_rule and source not in SYNTHETIC:  # the release's λ is the one planned
                lam_here = release_lam(epsilon, bool(m["intercept"]), "amp", scenario_id)
                reach = release_reach(m, epsilon, len(scenario.private), scenario_id, lam_here)
                if reach:
                    st.info(reach, icon=":material/query_stats:")
            publish(epsilon, float(m["lam"]), bool(m["intercept"]), scenario_id)
        else:
            context = f"{ready.data.where}; {lambda_note(m, params)}"
            reach = reach_beside(numbers, params, scenario_id)  # computes while figures build
            draw(numbers, params, context, study_figures(
                study, data, scenario_id, params, lambda: figures(numbers, params)), reach)


# A study view is a fragment: an ε move reruns live() alone.
(live if view == PUBLISH else st.fragment(live))(view)
