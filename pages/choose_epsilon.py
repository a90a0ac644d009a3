"""Choose epsilon: from an accuracy target, as a risk, and across the session's releases.

Nothing on this page is a release and nothing spends budget. The closed forms read no data; the
Monte-Carlo answers are seeded studies, labelled non-private when they read D (a public stand-in
is offered); the composition table plans releases without making them.
"""

import math

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.figures.choose_epsilon import (
    composition_bars,
    growth_figure,
    posterior_figure,
    target_curve,
)
from dpcore.importance import BootstrapStudy, variance_terms
from dpcore.planning import (
    COARSE_GRID,
    COMPOSITION_ASSUMPTIONS,
    EPSILON_RANGE,
    PLANNABLE,
    compare_compositions,
    composition_growth,
    epsilon_for_importance_theory,
    epsilon_from_curve,
    importance_errors,
    logistic_errors,
    mean_sensitivity,
    noise_answer,
    planned_releases,
    posterior_bound,
    posterior_curves,
    search_epsilon,
    subset_errors,
)
from dpcore.studies.choose_epsilon import (
    DEFAULT_PLAN,
    PRIORS,
    logistic_arrays,
    risk_grid,
    route_data,
    subset_data,
    subset_sizes,
)
from ui import importance as iw_cache
from ui.budget import budget_sidebar
from ui.cache import memo
from ui.errors import show_errors
from ui.export import export_panel
from ui.navigation import require_router
from ui.query import query_sidebar
from ui.show import show
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.widgets import epsilon_slider, lambda_slider, log_slider, replicates_slider, seed_input

require_router()

VIEWS = ("Target → ε", "ε as risk", "Composition")
TARGETS = {
    "laplace": "A count or a mean, Laplace noise (closed form)",
    "gaussian": "A count or a mean, Gaussian noise (closed form)",
    "iw_theory": "Importance weights: Theorem 2 variance (closed form)",
    "iw_mc": "Importance weights: Monte Carlo",
    "lr": "Private logistic regression: test error",
    "subset": "Optimal public subset: prediction error",
}
STUDIES = ("iw_theory", "iw_mc", "lr", "subset")
LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99)
DELTAS = (1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4)
ROUTES = ("private", "public")
ROUTE_LABELS = {"private": "Private D (a non-private study)",
                "public": "Public stand-in (halves of E)"}
RISK_DELTAS = (0.0, 1e-6, 1e-4, 1e-3, 1e-2)
QUERIES = ("count", "mean")
# PRIORS, DEFAULT_PLAN and the study helpers live in dpcore.studies.choose_epsilon (the CLI's run).

scenario = scenario_sidebar()
keep_widget_state({
    "ce_view": VIEWS[0], "ce_target": "laplace", "ce_level": 0.95, "ce_query": "count",
    "ce_low": 0.0, "ce_high": 100.0, "ce_n": 1000, "ce_err_count": 10.0, "ce_err_mean": 0.5,
    "ce_delta": 1e-6, "ce_route": "private", "ce_err_iw": 0.05, "ce_kind": "bound",
    "ce_tail": "normal", "ce_err_lr": 0.17, "ce_err_sub": 2.0, "ce_run_lr": False,
    "ce_run_sub": False, "ce_risk_delta": 0.0, "ce_slack": 1e-6, "ce_with_ledger": False,
})
with st.sidebar:
    st.header("Choose epsilon")
    epsilon = epsilon_slider("ce_epsilon", 1.0)
    seed = seed_input("ce_seed")
accountant = budget_sidebar()
export_panel("choose_epsilon")

st.title("Choose epsilon")
st.markdown(
    "Say what a release must achieve and get the **smallest ε** that achieves it; see what ε "
    "means as a **risk** to the people in the data; and add up **several releases** before "
    "making them. Nothing on this page is a release, and nothing spends budget."
)



def study_caption(route: str, runs: str) -> None:
    if route == "private":
        st.caption(
            f"A seeded simulation ({runs}), not a release. It measures errors against the "
            "private data itself, so the ε it returns is a **non-private** study of D: reading "
            "it is a look at D. To choose ε without looking at D, pick the public stand-in "
            "(E split in two) or spend a little budget on a DP pilot release first.")
    else:
        st.caption(
            f"A seeded simulation ({runs}) on the public set only: a random half of E plays D, "
            "the other half plays E. It never reads D, so the answer is a guide: no shift "
            "between the sets and fewer records than D (more noise, so usually conservative).")


def answer_panel(answer, *, unit: str, ytitle: str, measured: str, fitted: str,
                 context: str) -> None:
    """Metrics, the warning when the target is out of reach, the curve and its numbers."""
    cols = st.columns(4)
    if answer.met:
        cols[0].metric("Smallest ε", f"{answer.epsilon:.3g}",
                       help=f"The smallest ε in {EPSILON_RANGE[0]:g}–{EPSILON_RANGE[1]:g} whose "
                            f"{answer.statistic} is at most {answer.target:g} {unit}.")
        risk = posterior_bound(0.01, answer.epsilon)
        cols[3].metric("Risk at that ε", f"1 % → {100 * risk:.1f} %",
                       help="How far one release at this ε can raise a 1 % belief that a given "
                            "person is in the data (the 'ε as risk' view).")
    else:
        cols[0].metric("Smallest ε", "none ≤ 10")
        cols[3].metric("Best reachable", f"{answer.achieved:.3g}",
                       help=f"at ε = {answer.best_epsilon:.3g}")
    if answer.n_runs:
        if math.isfinite(answer.low):
            high = "not met ≤ 10" if math.isinf(answer.high) else f"{answer.high:.3g}"
            cols[1].metric("90 % interval", f"{answer.low:.3g} – {high}",
                           help="From 200 bootstrap resamples of the runs, each refitted.")
        cols[2].metric("Runs per ε", f"{answer.n_runs}",
                       help=f"{len(answer.curve)} values of ε were simulated.")
    else:
        cols[1].metric("Uncertainty", "none (exact)",
                       help="A closed form: the answer is exact for the stated assumptions.")
        cols[2].metric("Source", answer.source.split(":")[0])
    if not answer.met:
        st.warning(f"No ε up to {EPSILON_RANGE[1]:g} meets the target {answer.target:g}: the best "
                   f"reachable is {answer.achieved:.3g} at ε = {answer.best_epsilon:.3g}. Relax "
                   "the target, or change the settings (λ, the data).",
                   icon=":material/block:")
    show(target_curve(answer, ytitle=ytitle, measured_name=measured, fitted_name=fitted,
                      chosen=epsilon),
         "fig_ce_target", title=f"{answer.statistic.capitalize()} vs ε ({answer.source})",
         context=context)
    with st.expander("Numbers behind the curve"):
        st.dataframe(answer.curve, hide_index=True)


def noise_target(mechanism: str, level: float) -> None:
    left, right = st.columns(2)
    kind = left.radio("The released value", QUERIES, key="ce_query", horizontal=True,
                      format_func={"count": "a count (Δ = 1)",
                                   "mean": "a mean of values in [low, high]"}.get)
    if kind == "count":
        sensitivity = 1.0
        error = right.number_input("Largest acceptable error ± (records)", min_value=1e-6,
                                   key="ce_err_count", format="%g")
        what = "a count (add or remove one record)"
    else:
        c1, c2, c3 = left.columns(3)
        low = c1.number_input("low", key="ce_low", format="%g")
        high = c2.number_input("high", key="ce_high", format="%g")
        n = int(c3.number_input("records n", min_value=1, step=1, key="ce_n",
                                help="A public number (here the default comes from no data)."))
        sensitivity = mean_sensitivity(n, low, high)
        error = right.number_input("Largest acceptable error ± (value units)", min_value=1e-9,
                                   key="ce_err_mean", format="%g")
        what = f"a mean of {n:,} values in [{low:g}, {high:g}] (replace one record)"
    delta = 1e-6
    if mechanism == "Gaussian":
        delta = right.select_slider("δ of the Gaussian release", DELTAS, key="ce_delta",
                                    format_func=lambda v: f"{v:g}")
    answer = noise_answer(mechanism, sensitivity, float(error), level, delta=delta)
    st.caption(f"Closed form for {what}: sensitivity Δ = {sensitivity:g} from the domain "
               "bounds, no data read. The noise stays within ± the error in "
               f"{level:.0%} of releases exactly at the ε shown"
               + (f" (analytic Gaussian calibration, δ = {delta:g})." if mechanism == "Gaussian"
                  else "."))
    answer_panel(answer, unit="", ytitle=f"{level:.0%} radius of the noise",
                 measured="", fitted=f"{mechanism} noise radius (closed form)",
                 context=f"{what}; {mechanism}" + (f", δ = {delta:g}" if delta != 1e-6 or
                                                   mechanism == "Gaussian" else ""))


def data_for(route: str):
    """(private, public) frames of the chosen route: D and E, or two halves of E."""
    if route == "private":
        return scenario.private, scenario.public
    return memo(scenario, scenario_id, ("ce stand-in", seed),
                lambda: route_data(scenario, route, seed))


def importance_target(kind: str, level: float, route: str) -> None:
    with st.sidebar:
        query = query_sidebar(scenario, key="ce_q")
    c1, c2, c3 = st.columns(3)
    with c3:
        lam = lambda_slider("ce_lambda", 0.1,
                            help="λ of the importance weights, as on that page.")
    with c1:
        error = st.number_input("Largest acceptable error ± of the estimate", min_value=1e-6,
                                key="ce_err_iw", format="%g")
    with c2:
        reps = replicates_slider("ce_reps", 100, options=(20, 50, 100, 200),
                                 label="Replicates (bootstrap resamples)")
    private, public = data_for(route)
    if route == "private":
        fits = iw_cache.fits(scenario, scenario_id, reps, seed, lam)  # the importance page's
    else:
        fits = memo(scenario, scenario_id, ("ce stand-in fits", reps, seed, lam),
                    lambda: BootstrapStudy(private, public, reps, rng=seed).fit(lam))
    b_D, b_E = query.evaluate(private), query.evaluate(public)
    truth = float(b_D.mean())
    context = f"{scenario.title}; {query}; λ = {lam:g}; {ROUTE_LABELS[route]}"
    if kind == "iw_theory":
        f1, f2 = st.columns(2)
        with f1:
            form = st.radio("Form", ("bound", "plugin"), key="ce_kind", horizontal=True,
                            format_func={"bound": "Theorem 2 bound",
                                         "plugin": "plug-in prediction"}.get)
        with f2:
            tail = st.radio("Tail", ("normal", "chebyshev"), key="ce_tail", horizontal=True,
                            help="normal: the estimate is asymptotically normal; Chebyshev: "
                                 "holds for any distribution with that variance (larger ε).")
        terms = memo(scenario, scenario_id, ("ce terms", route, query, lam, reps, seed),
                     lambda: variance_terms(private, public, query, lam, beta0=fits.coef_full))
        answer = epsilon_for_importance_theory(terms, float(error), level, kind=form, tail=tail)
        st.caption("Closed form from Ji & Elkan's Theorem 2 (delta-method form) or the plug-in "
                   "prediction, plus Theorem 3's bias: both read the data without noise "
                   "(non-private references)" + (" of D." if route == "private" else
                                                 " of the stand-in."))
        answer_panel(answer, unit="", ytitle=f"{level:.0%} error radius of the estimate",
                     measured="", fitted=f"{answer.source.split(': ')[1]}", context=context)
    else:
        answer = memo(scenario, scenario_id,
                      ("ce iw answer", route, query, lam, reps, seed, float(error), level),
                      lambda: search_epsilon(lambda e: importance_errors(fits, b_E, truth, e),
                                             float(error), statistic=level, rng=seed,
                                             name="|estimate − truth|"))
        study_caption(route, f"{reps} bootstrap replicates at each of {len(answer.curve)} ε, "
                             "a coarse grid refined by bisection near the target")
        answer_panel(answer, unit="", ytitle=f"{level:.0%} quantile of |estimate − truth|",
                     measured="measured (non-private truth)" if route == "private" else
                     "measured (stand-in)", fitted="monotone fit", context=context)


def has_target() -> bool:
    """Whether the scenario has the 0/1 target the model-based targets need (else say so)."""
    if scenario.target is None:
        st.info("This target needs a scenario with a 0/1 target column.")
    return scenario.target is not None


def run_study(switch: str, key: str, off: str, busy: str, parts: tuple,
              compute) -> np.ndarray | None:
    """A study behind an on/off toggle (label ``switch``; ``off`` explains it while off), with a
    progress bar: ``compute(progress)`` memoised under ``parts``. None while switched off."""
    if not st.toggle(switch, key=key):
        st.info(off)
        return None
    bar = st.progress(0.0, text=busy)
    values = memo(scenario, scenario_id, parts, lambda: compute(lambda f: bar.progress(f)))
    bar.empty()
    return values


def logistic_target(route: str) -> None:
    if not has_target():
        return
    c1, c2 = st.columns(2)
    error = c1.number_input("Largest acceptable mean test error", min_value=0.0,
                            max_value=1.0, key="ce_err_lr", format="%g")
    with c2:
        restarts = replicates_slider("ce_restarts", 5, options=(3, 5, 10, 20),
                                     label="Restarts (noise draws per ε)")
    arrays, onehot = logistic_arrays(scenario, route)
    rows = arrays.X.shape[0]
    values = run_study(
        f"Run the study ({len(COARSE_GRID)} values of ε on {rows:,} records; can take a minute "
        "on Adult)", "ce_run_lr",
        "The study fits objective perturbation (λ by the rule of the perturbation page) at every "
        "ε of a coarse grid; switch it on to answer the target.",
        "Fitting private models at every ε…", ("ce lr curve", route, restarts, seed),
        lambda progress: logistic_errors(arrays.X, arrays.y, COARSE_GRID, X_test=arrays.X_test,
                                         y_test=arrays.y_test, restarts=restarts,
                                         data_norm=arrays.data_norm, fit_intercept=not onehot,
                                         seed=seed, progress=progress))
    if values is None:
        return
    answer = epsilon_from_curve(COARSE_GRID, values, float(error), rng=seed, name="test error")
    held = "the held-out test part" if arrays.X_test is not None else "3-fold cross-validation"
    study_caption(route, f"{values.shape[1]} fits at each of {len(COARSE_GRID)} ε, test error "
                         f"on {held}")
    answer_panel(answer, unit="", ytitle="mean test error", measured="measured",
                 fitted="monotone fit",
                 context=f"{scenario.title}; objective perturbation, λ by rule; "
                         f"{ROUTE_LABELS[route]}")


def subset_target(route: str) -> None:
    if not has_target():
        return
    c1, c2 = st.columns(2)
    error = c1.number_input("Largest acceptable prediction error t", min_value=0.0,
                            key="ce_err_sub", format="%g")
    with c2:
        repeats = replicates_slider("ce_sub_reps", 2, options=(1, 2, 3, 5),
                                    label="Repeats of Algorithm 2 per ε")
    if route == "private":  # the same cache entry as the optimal-subset page
        data = memo(scenario, scenario_id, ("subset rescaled",),
                    lambda: subset_data(scenario, route, seed))
    else:
        data = memo(scenario, scenario_id, ("ce stand-in rescaled", seed),
                    lambda: subset_data(scenario, route, seed))
    sizes = subset_sizes(data.n_public)
    values = run_study(
        f"Run the study ({len(COARSE_GRID)} values of ε × {repeats} repeats; minutes on Adult, "
        "seconds on the simulations)", "ce_run_sub",
        "The study runs Algorithm 2 (split 0.8 : 0.2 : 1 of ε) at every ε of a coarse grid over "
        "13 candidate sizes; switch it on to answer the target.",
        "Running Algorithm 2 at every ε…",
        ("ce subset curve", route, repeats, seed, tuple(int(s) for s in sizes)),
        lambda progress: subset_errors(data, COARSE_GRID, sizes=sizes, repeats=repeats,
                                       seed=seed, progress=progress))
    if values is None:
        return
    answer = epsilon_from_curve(COARSE_GRID, values, float(error), rng=seed,
                                name="prediction error t")
    study_caption(route, f"{values.shape[1]} repeats at each of {len(COARSE_GRID)} ε")
    answer_panel(answer, unit="", ytitle="mean prediction error t of the selected subset",
                 measured="measured", fitted="monotone fit",
                 context=f"{scenario.title}; Algorithm 2, split 0.8 : 0.2 : 1; "
                         f"{ROUTE_LABELS[route]}")


def risk_view() -> None:
    left, right = st.columns(2)
    with left:
        prior = log_slider("Prior belief that a given person is in the data", PRIORS,
                           "ce_prior", 0.01,
                           help="What an attacker believes before the release, from everything "
                                "else they know.")
    with right:
        delta = st.select_slider("δ of an (ε, δ) release (dashed curve)", RISK_DELTAS,
                                 key="ce_risk_delta", format_func=lambda v: f"{v:g}")
    after = posterior_bound(prior, epsilon)
    cols = st.columns(3)
    cols[0].metric("Prior", f"{100 * prior:g} %")
    cols[1].metric(f"At most, after one ε = {epsilon:g} release", f"{100 * after:.2f} %",
                   help="Posterior odds are at most e^ε times the prior odds.")
    if delta > 0:
        cols[2].metric(f"(ε, δ) = ({epsilon:g}, {delta:g}), expected",
                       f"{100 * posterior_bound(prior, epsilon, delta):.2f} %",
                       help="Expected over releases: with probability up to δ an (ε, δ) "
                            "release may reveal the record outright.")
    priors, eps_set = risk_grid(epsilon)
    curves = posterior_curves(priors, eps_set)
    delta_curve = posterior_curves(priors, [epsilon], delta) if delta > 0 else None
    show(posterior_figure(curves, prior, epsilon, delta_curve), "fig_ce_risk",
         title="Worst-case belief after one release vs the prior belief",
         context=f"ε-DP: posterior odds ≤ e^ε × prior odds; chosen ε = {epsilon:g}")
    st.caption(
        "Each line is one ε: whatever the release shows and whatever else the attacker knows, "
        "their belief that a given person's record is in the data (or that one of their "
        "attributes takes a value) cannot rise above the line. The dotted diagonal is no "
        "release. For an (ε, δ) release such as the Gaussian mechanism the dashed line bounds "
        "the belief *on average over releases*: with probability up to δ a release may reveal "
        "the record outright.")
    table = pd.DataFrame({"ε": eps_set,
                          "posterior odds / prior odds (e^ε)": np.exp(eps_set),
                          f"belief after one release (prior {100 * prior:g} %)":
                              [f"{100 * posterior_bound(prior, e):.2f} %" for e in eps_set]})
    st.dataframe(table, hide_index=True)


def composition_view() -> None:
    st.markdown("**Plan the releases** (edit the table: mechanism, ε, δ, how many, and "
                "optionally the part of the rows each reads). Pure mechanisms need δ = 0; a "
                "Gaussian release needs δ > 0. Releases on different parts (for example one "
                "count per region) compose in **parallel**: a person in one region is exposed "
                "to that region's releases only.")
    plan = st.data_editor(
        DEFAULT_PLAN, key="ce_plan", num_rows="dynamic", hide_index=True,
        column_config={
            "mechanism": st.column_config.SelectboxColumn("mechanism", options=list(PLANNABLE),
                                                          required=True),
            "epsilon": st.column_config.NumberColumn("ε", min_value=1e-6, format="%g"),
            "delta": st.column_config.NumberColumn("δ", min_value=0.0, max_value=0.1,
                                                   format="%g"),
            "count": st.column_config.NumberColumn("count", min_value=0, step=1),
            "part": st.column_config.TextColumn(
                "part (disjoint rows)",
                help="Leave empty for a release on every row. Name a part (e.g. 'region = "
                     "North') for a release that reads only those rows: releases on different "
                     "parts compose in parallel, since each person is in one part only."),
        })
    c1, c2 = st.columns(2)
    slack = c1.select_slider("δ′ of advanced and zCDP", DELTAS, key="ce_slack",
                             format_func=lambda v: f"{v:g}",
                             help="The probability that the tighter totals fail; it is added "
                                  "to their δ.")
    with_ledger = c2.toggle(f"Add this session's {len(accountant)} recorded releases",
                            key="ce_with_ledger")
    planned = planned_releases(plan)
    table = compare_compositions(planned, slack,
                                 ledger=accountant.records if with_ledger else None)
    budget = accountant.budget[0]
    cols = st.columns(3)
    for col, row in zip(cols, table.itertuples(index=False), strict=True):
        if math.isnan(row.epsilon):
            col.metric(row.method, "cannot account", help=row.problem)
        else:
            fits = "fits" if row.epsilon <= budget else "exceeds"
            col.metric(row.method, f"ε = {row.epsilon:.3g}",
                       delta=f"{fits} the budget {budget:g}; δ = {row.delta:.2g}",
                       delta_color="normal" if fits == "fits" else "inverse",
                       help=COMPOSITION_ASSUMPTIONS[row.method])
    method, chosen_slack = accountant.composition
    try:
        total = accountant.preview(planned, method, chosen_slack)
        st.caption(f"\"What if\" with the sidebar's composition ({method}, δ′ = "
                   f"{chosen_slack:g}): this session's ledger plus the plan would total "
                   f"ε = {total[0]:.3g}, δ = {total[1]:.2g} of the budget ε = {budget:g}. "
                   "Nothing was spent.")
    except ValueError as exc:
        st.caption(f"The sidebar's composition ({method}) cannot account for the ledger plus "
                   f"the plan: {exc}")
    left, right = st.columns(2)
    with left:
        show(composition_bars(table), "fig_ce_bars", title="Total ε of the plan, by method",
             context=f"{int(table['releases'].iloc[0])} releases; δ′ = {slack:g}")
    with right:
        from_plan = bool(planned) and planned[0].delta == 0.0
        each = planned[0].epsilon if from_plan else epsilon
        growth = composition_growth(each, delta_slack=slack)
        show(growth_figure(growth, budget), "fig_ce_growth",
             title=f"Total ε of k pure releases at ε = {each:g}",
             context=f"δ′ = {slack:g}; ε of "
                     + ("the plan's first row" if from_plan else "the sidebar's slider"))
    for problem in table["problem"]:
        if problem:
            st.info(problem, icon=":material/info:")
    st.dataframe(table.drop(columns="problem").rename(columns={"epsilon": "total ε",
                                                               "delta": "total δ"}),
                 hide_index=True)
    st.caption("Sequential composition is always valid. Advanced composition (Kairouz, Oh & "
               "Viswanath 2015, Thm 3.5) grows like √k for k small releases; zCDP (Bun & "
               "Steinke 2016) is tighter still for Gaussian releases, but needs their σ, not "
               "only (ε, δ). Each total holds for adaptively chosen releases on the same people; "
               "releases on disjoint rows add only within a part (parallel composition).")


with show_errors():
    view = st.segmented_control("View", VIEWS, key="ce_view",
                                label_visibility="collapsed") or VIEWS[0]
    if view == "ε as risk":
        risk_view()
    elif view == "Composition":
        composition_view()
    else:
        target = st.selectbox("What must one release achieve?", list(TARGETS), key="ce_target",
                              format_func=TARGETS.get)
        needs_level = target in ("laplace", "gaussian", "iw_theory", "iw_mc")
        level = 0.95
        if needs_level:
            level = st.select_slider("Share of releases that must meet it", LEVELS,
                                     key="ce_level", format_func=lambda v: f"{v:.0%}")
        if target in ("laplace", "gaussian"):
            noise_target("Laplace" if target == "laplace" else "Gaussian", level)
        else:
            if scenario is None:
                st.info("Choose a scenario in the sidebar for this target.")
                st.stop()
            scenario_id = st.session_state["scenario_id"]
            route = st.radio("Study on", ROUTES, key="ce_route", horizontal=True,
                             format_func=ROUTE_LABELS.get,
                             help="The answer depends on the data it is computed on. On D it "
                                  "is a non-private study of D; the public stand-in never "
                                  "reads D.")
            if target in ("iw_theory", "iw_mc"):
                importance_target(target, level, route)
            elif target == "lr":
                logistic_target(route)
            else:
                subset_target(route)
