"""Choose epsilon: from an accuracy target, as a risk, and across the session's releases.

Nothing on this page is a release and nothing spends budget. The closed forms read no data; the
Monte-Carlo answers are seeded studies, labelled non-private when they read D (a public stand-in
is offered); the composition table plans releases without making them. The numbers come from
the page's study (:mod:`dpcore.studies.choose_epsilon`) and its figures
(:mod:`dpcore.figures.choose_epsilon`), as in an exported run.
"""

import math
from collections.abc import Callable

import pandas as pd
import streamlit as st

from dpcore.decision import choose_epsilon_tuning, refusal
from dpcore.figures.choose_epsilon import answer_curve, figure_titles, figures, released_value
from dpcore.planning import (
    COARSE_GRID,
    COMPOSITION_ASSUMPTIONS,
    COMPOSITION_NAMES,
    COMPOSITIONS,
    EPSILON_RANGE,
    PLANNABLE,
    TARGET_MECHANISM_NAMES,
    TARGET_MECHANISMS,
)
from dpcore.studies import choose_epsilon as study
from dpcore.studies.choose_epsilon import (
    CONTROLS,
    DEFAULT_PLAN,
    DEFAULT_STATS,
    DELTAS,
    IW_REPLICATES,
    LEVEL_TARGETS,
    LEVELS,
    PREPARED,
    PRIORS,
    QUERIES,
    QUERY_KEY,
    RESTARTS,
    RISK_DELTAS,
    ROUTE_LABELS,
    ROUTES,
    STUDY_REPEATS,
    TARGETS,
    VIEW_LABELS,
    VIEWS,
    Params,
    plan_releases,
)
from dpcore.text import md
from ui.budget import budget_sidebar
from ui.errors import show_errors
from ui.export import export_panel, refresh_export
from ui.navigation import require_router
from ui.query import query_sidebar
from ui.show import show
from ui.sidebar import ask_for_scenario, scenario_sidebar
from ui.state import keep_widget_state
from ui.study import numbers as study_numbers
from ui.tuning import tuning_panel
from ui.widgets import epsilon_slider, lambda_slider, log_slider, replicates_slider, seed_input

require_router()

TARGET_LABELS = {
    "laplace": "A count or a mean, Laplace noise (closed form)",
    "gaussian": "A count or a mean, Gaussian noise (closed form)",
    "iw_theory": "Importance weights: Theorem 2 variance (closed form)",
    "iw_mc": "Importance weights: Monte Carlo",
    "lr": "Private logistic regression: test error",
    "subset": "Optimal public subset: prediction error",
}
#: The widget key of each figure of the study (:func:`dpcore.figures.choose_epsilon.figures`).
FIGURE_KEYS = {"target": "fig_ce_target", "risk": "fig_ce_risk", "composition": "fig_ce_bars",
               "growth": "fig_ce_growth", "deployments": "fig_ce_deployments",
               "stats_totals": "fig_ce_stats_totals", "stats_split": "fig_ce_stats_split"}
#: The controls kept across pages here (the sliders, the seed, the query and the plan table
#: keep their own).
KEPT = ("ce_view", "ce_target", "ce_level", "ce_query", "ce_low", "ce_high", "ce_n",
        "ce_err_count", "ce_err_mean", "ce_delta", "ce_route", "ce_err_iw", "ce_kind", "ce_tail",
        "ce_err_lr", "ce_err_sub", "ce_run_lr", "ce_run_sub", "ce_risk_delta", "ce_slack",
        "ce_with_ledger", "ce_stats_method", "ce_stats_delta", "ce_stats_split", "ce_stats_total")

scenario = scenario_sidebar()
keep_widget_state({key: CONTROLS[key] for key in KEPT})
with st.sidebar:
    st.header("Choose epsilon")
    epsilon_slider("ce_epsilon", 1.0)
    if (st.session_state["ce_view"] == "target"
            and st.session_state["ce_target"] in PREPARED):  # a Monte-Carlo target
        seed = seed_input("ce_seed")
    else:  # closed forms, the risk and the composition read no seed: no control that does nothing
        keep_widget_state({"ce_seed": 0})  # seed_input's default
        seed = int(st.session_state["ce_seed"] or 0)
accountant = budget_sidebar()
export_panel("choose_epsilon")

st.title("Choose epsilon")
st.markdown(
    "Say what a release must achieve and get the **smallest ε** that achieves it; see what ε "
    "means as a **risk** to the people in the data; and add up **several releases** before "
    "making them. Nothing on this page is a release, and nothing spends budget."
)


def page_params(ledger: pd.DataFrame | None = None) -> Params:
    """The study's parameters: the controls as they are on screen (what an exported run reads)
    and, when the composition view adds it, the session's ledger."""
    controls = {key: st.session_state[key] for key in CONTROLS if key in st.session_state}
    records = () if ledger is None else tuple(ledger.to_dict("records"))
    return Params.from_controls(controls, seed).replace(ledger=records)


def figure_drawer(numbers: dict[str, pd.DataFrame], params: Params, *,
                  data: str = "") -> Callable[[str], None]:
    """A function that draws the study's figure of a name with its title and settings (``data``:
    the scenario's title, for a data target)."""
    figs, titles = figures(numbers, params), figure_titles(numbers, params, data=data)

    def draw(name: str) -> None:
        title, context = titles[name]
        show(figs[name], FIGURE_KEYS[name], title=title, context=context)

    return draw


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


def answer_metrics(m: pd.Series, curve: pd.DataFrame) -> None:
    """The answer's four metrics, and the warning when the target is out of reach."""
    cols = st.columns(4)
    if m["met"]:
        cols[0].metric("Smallest ε", f"{m['smallest_epsilon']:.3g}",
                       help=f"The smallest ε in {EPSILON_RANGE[0]:g}–{EPSILON_RANGE[1]:g} whose "
                            f"{m['statistic']} is at most {m['target_value']:g}.")
        cols[3].metric("Risk at that ε", f"1 % → {100 * m['risk_of_1pct_prior']:.1f} %",
                       help="How far one release at this ε can raise a 1 % belief that a given "
                            "person is in the data (the 'ε as risk' view).")
    else:
        cols[0].metric("Smallest ε", "none ≤ 10")
        cols[3].metric("Best reachable", f"{m['achieved']:.3g}",
                       help=f"at ε = {m['best_epsilon']:.3g}")
    if m["runs_per_epsilon"]:
        if math.isfinite(m["interval_low"]):
            high = ("not met ≤ 10" if math.isinf(m["interval_high"])
                    else f"{m['interval_high']:.3g}")
            cols[1].metric("90 % interval", f"{m['interval_low']:.3g} – {high}",
                           help="From 200 bootstrap resamples of the runs, each refitted.")
        cols[2].metric("Runs per ε", f"{int(m['runs_per_epsilon'])}",
                       help=f"{len(curve)} values of ε were simulated.")
    else:
        cols[1].metric("Uncertainty", "none (exact)",
                       help="A closed form: the answer is exact for the stated assumptions.")
        cols[2].metric("Source", m["source"].split(":")[0])
    if not m["met"]:
        st.warning(f"No ε up to {EPSILON_RANGE[1]:g} meets the target {m['target_value']:g}: the "
                   f"best reachable is {m['achieved']:.3g} at ε = {m['best_epsilon']:.3g}. Relax "
                   "the target, or change the settings (λ, the data).",
                   icon=":material/block:")


def answer_panel(numbers: dict[str, pd.DataFrame], params: Params, *,
                 data: str = "") -> pd.DataFrame:
    """Metrics, the warning when the target is out of reach, the curve and its numbers; returns
    the tuning table (:func:`choose_epsilon_tuning` of ``params``) whose refusal it showed, for
    the page's tuning panel."""
    curve = answer_curve(numbers)
    answer_metrics(numbers["metrics"].iloc[0], curve)
    tuning = choose_epsilon_tuning(params)
    refused = refusal(tuning)
    if refused:
        st.warning(refused, icon=":material/block:")
    figure_drawer(numbers, params, data=data)("target")
    with st.expander("Numbers behind the curve"):
        st.dataframe(curve, hide_index=True)
    return tuning


def noise_target(target: str) -> pd.DataFrame:
    left, right = st.columns(2)
    kind = left.radio("The released value", QUERIES, key="ce_query", horizontal=True,
                      format_func={"count": "a count (Δ = 1)",
                                   "mean": "a mean of values in [low, high]"}.get)
    if kind == "count":
        right.number_input("Largest acceptable error ± (records)", min_value=1e-6,
                           key="ce_err_count", format="%g")
    else:
        c1, c2, c3 = left.columns(3)
        c1.number_input("low", key="ce_low", format="%g")
        c2.number_input("high", key="ce_high", format="%g")
        c3.number_input("records n", min_value=1, step=1, key="ce_n",
                        help="A public number (here the default comes from no data).")
        right.number_input("Largest acceptable error ± (value units)", min_value=1e-9,
                           key="ce_err_mean", format="%g")
    gaussian = target == "gaussian"
    if gaussian:
        right.select_slider("δ of the Gaussian release", DELTAS, key="ce_delta",
                            format_func=lambda v: f"{v:g}")
    params = page_params()
    numbers = study_numbers(study, None, None, params)
    m = numbers["metrics"].iloc[0]
    st.caption(f"Closed form for {released_value(params)}: sensitivity Δ = {m['sensitivity']:g} "
               "from the domain bounds, no data read. The noise stays within ± the error in "
               f"{m['level']:.0%} of releases exactly at the ε shown"
               + (f" (analytic Gaussian calibration, δ = {m['delta']:g})." if gaussian else "."))
    return answer_panel(numbers, params)


def importance_target(target: str) -> pd.DataFrame:
    with st.sidebar:
        query_sidebar(scenario, key=QUERY_KEY)
    c1, c2, c3 = st.columns(3)
    with c3:
        lambda_slider("ce_lambda", 0.1, help="λ of the importance weights, as on that page.")
    with c1:
        st.number_input("Largest acceptable error ± of the estimate", min_value=1e-6,
                        key="ce_err_iw", format="%g")
    with c2:
        replicates_slider("ce_reps", 100, options=IW_REPLICATES,
                          label="Replicates (bootstrap resamples)")
    if target == "iw_theory":
        f1, f2 = st.columns(2)
        with f1:
            st.radio("Form", ("bound", "plugin"), key="ce_kind", horizontal=True,
                     format_func={"bound": "Theorem 2 bound", "plugin": "plug-in prediction"}.get)
        with f2:
            st.radio("Tail", ("normal", "chebyshev"), key="ce_tail", horizontal=True,
                     help="normal: the estimate is asymptotically normal; Chebyshev: holds for "
                          "any distribution with that variance (larger ε).")
    params = page_params()
    numbers = study_numbers(study, scenario, st.session_state["scenario_id"], params,
                            text="Fitting the importance weights on every resample…")
    if target == "iw_theory":
        st.caption("Closed form from Ji & Elkan's Theorem 2 (delta-method form) or the plug-in "
                   "prediction, plus Theorem 3's bias: both read the data without noise "
                   "(non-private references)" + (" of D." if params.route == "private" else
                                                 " of the stand-in."))
    else:
        study_caption(params.route, f"{params.reps} bootstrap replicates at each of "
                                    f"{len(answer_curve(numbers))} ε, a coarse grid refined by "
                                    "bisection near the target")
    return answer_panel(numbers, params, data=scenario.title)


def has_target() -> bool:
    """Whether the scenario has the 0/1 target the model-based targets need (else say so)."""
    if scenario.target is None:
        st.info("This target needs a scenario with a 0/1 target column.")
    return scenario.target is not None


def study_switch(label: str, key: str, off: str) -> bool:
    """A study's on/off toggle; while off, ``off`` explains what it would do."""
    if st.toggle(label, key=key):
        return True
    st.info(off)
    return False


def grid_study(busy: str, runs: str) -> pd.DataFrame:
    """A switched-on grid study (logistic regression, subset): its numbers, with a progress bar
    while they compute, its caption (the number of runs, then ``runs``) and its answer."""
    params = page_params()
    numbers = study_numbers(study, scenario, st.session_state["scenario_id"], params, text=busy)
    n_runs = int(numbers["metrics"].iloc[0]["runs_per_epsilon"])
    study_caption(params.route, f"{n_runs} {runs}")
    return answer_panel(numbers, params, data=scenario.title)


def logistic_target(route: str) -> pd.DataFrame | None:
    if not has_target():
        return None
    c1, c2 = st.columns(2)
    c1.number_input("Largest acceptable mean test error", min_value=0.0, max_value=1.0,
                    key="ce_err_lr", format="%g")
    with c2:
        replicates_slider("ce_restarts", 5, options=RESTARTS,
                          label="Restarts (noise draws per ε)")
    rows = len(scenario.private if route == "private" else scenario.public)
    if not study_switch(
            f"Run the study ({len(COARSE_GRID)} values of ε on {rows:,} records; seconds "
            "on Adult)", "ce_run_lr",
            "The study simulates the release the perturbation page publishes (approximate "
            "minima perturbation centred on the public model fitted on E, at the λ it picks "
            "by simulating itself on the public set E) at every ε of a coarse grid, seeded; "
            "switch it on to answer the target."):
        return None
    held = "the held-out test part" if scenario.test is not None else "3-fold cross-validation"
    return grid_study("Fitting private models at every ε…",
               f"fits at each of {len(COARSE_GRID)} ε, test error on {held}")


def subset_target() -> pd.DataFrame | None:
    if not has_target():
        return None
    c1, c2 = st.columns(2)
    c1.number_input("Largest acceptable prediction error t", min_value=0.0, key="ce_err_sub",
                    format="%g")
    with c2:
        repeats = replicates_slider("ce_sub_reps", 2, options=STUDY_REPEATS,
                                    label="Repeats of Algorithm 2 per ε")
    if not study_switch(
            f"Run the study ({len(COARSE_GRID)} values of ε × {repeats} repeats; minutes on "
            "Adult, seconds on the simulations)", "ce_run_sub",
            "The study runs Algorithm 2 (split 0.8 : 0.2 : 1 of ε) at every ε of a coarse grid "
            "over 13 candidate sizes; switch it on to answer the target."):
        return None
    return grid_study("Running Algorithm 2 at every ε…",
                      f"repeats at each of {len(COARSE_GRID)} ε")


def target_view() -> pd.DataFrame | None:
    target = st.selectbox("What must one release achieve?", TARGETS, key="ce_target",
                          format_func=TARGET_LABELS.get)
    if target in LEVEL_TARGETS:
        st.select_slider("Share of releases that must meet it", LEVELS, key="ce_level",
                         format_func=lambda v: f"{v:.0%}")
    if target in ("laplace", "gaussian"):
        return noise_target(target)
    if scenario is None:
        ask_for_scenario("Choose a scenario in the sidebar for this target.")
        st.stop()
    route = st.radio("Study on", ROUTES, key="ce_route", horizontal=True,
                     format_func=ROUTE_LABELS.get,
                     help="The answer depends on the data it is computed on. On D it is a "
                          "non-private study of D; the public stand-in never reads D.")
    if target in ("iw_theory", "iw_mc"):
        return importance_target(target)
    if target == "lr":
        return logistic_target(route)
    return subset_target()


def risk_view() -> None:
    left, right = st.columns(2)
    with left:
        log_slider("Prior belief that a given person is in the data", PRIORS, "ce_prior", 0.01,
                   help="What an attacker believes before the release, from everything else "
                        "they know.")
    with right:
        st.select_slider("δ of an (ε, δ) release (dashed curve)", RISK_DELTAS,
                         key="ce_risk_delta", format_func=lambda v: f"{v:g}")
    params = page_params()
    numbers = study_numbers(study, None, None, params)
    m = numbers["metrics"].iloc[0]
    epsilon, prior, delta = m["epsilon"], m["prior"], m["delta"]
    cols = st.columns(3)
    cols[0].metric("Prior", f"{100 * prior:g} %")
    cols[1].metric(f"At most, after one ε = {epsilon:g} release",
                   f"{100 * m['posterior_at_most']:.2f} %",
                   help="Posterior odds are at most e^ε times the prior odds.")
    if delta > 0:
        cols[2].metric(f"(ε, δ) = ({epsilon:g}, {delta:g}), expected",
                       f"{100 * m['posterior_expected_with_delta']:.2f} %",
                       help="Expected over releases: with probability up to δ an (ε, δ) "
                            "release may reveal the record outright.")
    attacker_panel(numbers)
    figure_drawer(numbers, params)("risk")
    st.caption(
        "Each line is one ε: whatever the release shows and whatever else the attacker knows, "
        "their belief that a given person's record is in the data (or that one of their "
        "attributes takes a value) cannot rise above the line. The dotted diagonal is no "
        "release. For an (ε, δ) release such as the Gaussian mechanism the dashed line bounds "
        "the belief *on average over releases*: with probability up to δ a release may reveal "
        "the record outright.")
    odds = numbers["odds"]
    st.dataframe(pd.DataFrame({
        "ε": odds["epsilon"], "posterior odds / prior odds (e^ε)": odds["odds_ratio"],
        f"belief after one release (prior {100 * prior:g} %)":
            [f"{100 * b:.2f} %" for b in odds["belief_after_one_release"]]}), hide_index=True)
    deployments_panel(numbers, params)


def attacker_panel(numbers: dict[str, pd.DataFrame]) -> None:
    """What a membership attacker can do at 1 % and 10 % false alarms (the trade-off curve of
    one Laplace release at ε), and ε as an interval by privacy loss distributions."""
    attacker, interval = numbers["attacker"], numbers["interval"].iloc[0]
    epsilon = numbers["metrics"].iloc[0]["epsilon"]
    st.markdown(f"**What an attacker can do against one Laplace release at ε = {epsilon:g}**")
    cols = st.columns(len(attacker) + 1)
    for col, row in zip(cols, attacker.itertuples(index=False), strict=False):
        col.metric(f"Caught at {100 * row.fpr:g} % false alarms",
                   f"at most {100 * row.tpr:.1f} %",
                   delta=f"any ε-DP release: {100 * row.tpr_any_pure_dp:.1f} %",
                   delta_color="off",
                   help=f"Of the people whose record is in the data, the share a test that "
                        f"wrongly accuses {100 * row.fpr:g} % of the others can find, at best "
                        "(the f-DP trade-off curve). The delta is the worst case of any "
                        "mechanism with this ε (randomised response).")
    cols[-1].metric(f"ε by privacy loss distribution (δ = {interval['delta']:g})",
                    f"{interval['point']:.4g}",
                    delta=f"between {interval['optimistic']:.4g} and "
                          f"{interval['pessimistic']:.4g}", delta_color="off",
                    help="The point value (connect-the-dots discretisation) with the "
                         "optimistic and pessimistic discretisations around it; the exact ε "
                         f"at this δ lies between the optimistic and the point value. "
                         f"Claimed: ε = {interval['sequential']:g} at δ = 0.")
    st.caption(
        "ε as an attacker's power: a test that wrongly flags a share of the people not in "
        "the data (false alarms) catches at most the share above of those who are. At ε = "
        f"{epsilon:g} the Laplace release allows e^ε times the false-alarm rate at small "
        "rates, and less beyond.")


def deployments_panel(numbers: dict[str, pd.DataFrame], params: Params) -> None:
    """The chosen ε among published deployments, with their units and sources."""
    st.subheader("Where this ε sits among published deployments")
    figure_drawer(numbers, params)("deployments")
    table = numbers["deployments"]
    rho_only = table[table["epsilon"].isna()]
    st.caption(
        "Units differ, so these are landmarks, not a ranking: a budget per user per day is "
        "spent again every day, one per person covers a whole release, and a local-DP "
        "budget protects each report before it is collected. Numbers as published, from "
        "the sources below (shipped with the app, never fetched)."
        + "".join(f" {md(row.organisation)} ({md(row.name)}) publishes only a zCDP "
                  f"ρ = {row.rho:g}, {md(row.unit)}." for row in rho_only.itertuples()))
    with st.expander("Sources"):
        st.dataframe(table, hide_index=True, column_config={
            "url": st.column_config.LinkColumn("source address")})


def plan_editor() -> None:
    """The plan's table (its edits are the ``ce_plan`` control) and the composition's options."""
    st.markdown("**Plan the releases** (edit the table: mechanism, ε, δ, how many, and "
                "optionally the part of the rows each reads). Pure mechanisms need δ = 0; a "
                "Gaussian release needs δ > 0. Releases on different parts (for example one "
                "count per region) compose in **parallel**: a person in one region is exposed "
                "to that region's releases only.")
    st.data_editor(
        DEFAULT_PLAN, key="ce_plan", num_rows="dynamic", hide_index=True, placeholder="",
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
    c1.select_slider("δ′ of the tighter totals", DELTAS, key="ce_slack",
                     format_func=lambda v: f"{v:g}",
                     help="The probability that the tighter totals fail; it is added to their "
                          "δ.")
    c2.toggle(f"Add this session's {len(accountant)} recorded releases", key="ce_with_ledger")


def composition_metrics(table: pd.DataFrame, budget: float) -> None:
    """One metric per method: its total, and whether it fits the budget (a badge short enough
    for a fifth of the page; the total's δ is in the help, the bars and the table)."""
    for col, row in zip(st.columns(len(table)), table.itertuples(index=False), strict=True):
        name = COMPOSITION_NAMES[row.method]
        if math.isnan(row.epsilon):
            col.metric(name, "cannot account", help=row.problem)
        else:
            fits = row.epsilon <= budget
            col.metric(name, f"ε = {row.epsilon:.3g}",
                       delta=f"{'fits' if fits else 'over'} budget {budget:g}",
                       delta_color="normal" if fits else "inverse",
                       help=f"Total δ = {row.delta:.2g}, ε {'within' if fits else 'over'} the "
                            f"budget ε = {budget:g}. {COMPOSITION_ASSUMPTIONS[row.method]}")


def interval_line(interval: pd.Series, pld: float) -> None:
    """The plan's PLD total as an interval beside its point value (``interval`` of the study's
    ``interval`` table, ``pld`` the PLD row's total)."""
    if interval["problem"]:
        st.caption(f"The PLD total cannot be given as an interval: {interval['problem']}")
        return
    shown = ("" if math.isclose(pld, interval["point"]) else
             f" The PLD row shows the sequential total {pld:.4g}, which is smaller.")
    st.caption(
        f"**ε by privacy loss distribution, as an interval** (δ = {interval['delta']:.2g}, "
        f"grid Δ = {interval['discretisation']:g}): {interval['optimistic']:.5g} (optimistic, "
        f"every loss rounded down) ≤ **{interval['point']:.5g}** (point, connect-the-dots) ≤ "
        f"{interval['pessimistic']:.5g} (pessimistic, rounded up). The exact ε lies between the "
        f"optimistic and the point value; sequential composition (always valid) gives "
        f"{interval['sequential']:.5g}.{shown}")


def what_if(params: Params, budget: float) -> None:
    """The sidebar's composition of this session's ledger plus the plan (nothing is spent)."""
    method, chosen_slack = accountant.composition
    try:
        total = accountant.preview(plan_releases(params.plan), method, chosen_slack)
        st.caption(f"\"What if\" with the sidebar's composition ({COMPOSITION_NAMES[method]}, "
                   f"δ′ = {chosen_slack:g}): this session's ledger plus the plan would total "
                   f"ε = {total[0]:.3g}, δ = {total[1]:.2g} of the budget ε = {budget:g}. "
                   "Nothing was spent.")
    except ValueError as exc:
        st.caption(f"The sidebar's composition ({COMPOSITION_NAMES[method]}) cannot account "
                   f"for the ledger plus the plan: {exc}")


def composition_view() -> None:
    plan_editor()
    params = page_params(accountant.records if st.session_state["ce_with_ledger"] else None)
    numbers = study_numbers(study, None, None, params)
    table, budget = numbers["composition"], float(numbers["metrics"].iloc[0]["budget"])
    composition_metrics(table, budget)
    interval = numbers["interval"].iloc[0]
    interval_line(interval, float(table.set_index("method").loc["pld", "epsilon"]))
    what_if(params, budget)
    draw = figure_drawer(numbers, params)
    left, right = st.columns(2)
    with left:
        draw("composition")
    with right:
        draw("growth")
    for problem in table["problem"]:
        if problem:
            st.info(problem, icon=":material/info:")
    pld = table["method"] == "pld"
    shown = table.drop(columns="problem").assign(
        method=table["method"].map(COMPOSITION_NAMES),
        optimistic=interval["optimistic"], pessimistic=interval["pessimistic"])
    shown.loc[~pld, ["optimistic", "pessimistic"]] = math.nan
    shown = shown[["method", "epsilon", "optimistic", "pessimistic", "delta", "releases",
                   "assumptions"]]
    st.dataframe(shown.rename(columns={"epsilon": "total ε", "delta": "total δ",
                                       "optimistic": "ε, optimistic (PLD)",
                                       "pessimistic": "ε, pessimistic (PLD)"}),
                 hide_index=True, placeholder="—")
    st.caption("Sequential composition is always valid. Advanced composition (Kairouz, Oh & "
               "Viswanath 2015, Thm 3.5) grows like √k for k small releases; zCDP (Bun & "
               "Steinke 2016) is tighter still for Gaussian releases, but needs their σ, not "
               "only (ε, δ). Rényi DP and privacy loss distributions (PLD), computed by "
               "Google's dp-accounting, are the tightest: a Laplace release counts by its own "
               "curve, any other pure release as its worst case (randomised response); they "
               "hold for a plan fixed in advance, so the session's filter never uses them. "
               "Releases on disjoint rows add only within a part (parallel composition).")


def stats_editor() -> None:
    """The statistics' table (its edits are the ``ce_stats`` control)."""
    st.markdown(
        "**List what you will release**, each with its sensitivity (from the domain: 1 for a "
        "count, (high − low) / n for a mean of n values in [low, high], the cap for a sum), "
        "the error bar it must meet and the share of releases that must meet it. A model or a "
        "subset has no closed form: answer it on the *Target → ε* view and add it here as "
        "*fixed ε (from a study)* with the ε its study returned.")
    st.data_editor(
        DEFAULT_STATS, key="ce_stats", num_rows="dynamic", hide_index=True, placeholder="",
        column_config={
            "statistic": st.column_config.TextColumn("statistic", required=True),
            "mechanism": st.column_config.SelectboxColumn(
                "mechanism", options=list(TARGET_MECHANISMS), required=True,
                format_func=TARGET_MECHANISM_NAMES.get,
                help="Laplace or Gaussian: planned in closed form; fixed ε: the ε column is "
                     "spent as it is."),
            "sensitivity": st.column_config.NumberColumn("sensitivity Δ", min_value=0.0,
                                                         format="%g"),
            "error": st.column_config.NumberColumn("error bar ±", min_value=0.0, format="%g"),
            "level": st.column_config.NumberColumn("share of releases", min_value=0.01,
                                                   max_value=0.999, format="%g"),
            "epsilon": st.column_config.NumberColumn("ε (fixed rows)", min_value=1e-6,
                                                     format="%g"),
        })


def stats_options() -> None:
    """The plan's options: the method of the split, the Gaussian statistics' δ, a fixed
    total."""
    c1, c2, c3 = st.columns(3)
    c1.selectbox("Composition of the split", COMPOSITIONS, key="ce_stats_method",
                 format_func=COMPOSITION_NAMES.get,
                 help="The method whose split the bars and the table detail; the metrics show "
                      "all five.")
    c2.select_slider("Total δ of the Gaussian statistics", DELTAS, key="ce_stats_delta",
                     format_func=lambda v: f"{v:g}")
    with c3:
        if st.toggle("Split a fixed total instead", key="ce_stats_split"):
            st.number_input("Total ε to split", min_value=0.001, max_value=100.0,
                            key="ce_stats_total", format="%g")


def stats_view() -> None:
    stats_editor()
    # A fragment: a move of the plan's options reruns the answer alone, not the sidebar and
    # the table editor (issue 25: within 2x of the one-figure floor page).
    st.fragment(stats_answer)()


def stats_answer() -> None:
    refresh_export("choose_epsilon")  # a fragment rerun: the config and the URL follow
    with show_errors():
        stats_options()
        stats_numbers()


def stats_numbers() -> None:
    """The totals by method, the split, its figures, the table and its CSV."""
    params = page_params()
    numbers = study_numbers(study, None, None, params)
    m, plan = numbers["metrics"].iloc[0], numbers["stats_plan"]
    totals = numbers["stats_totals"]
    st.markdown("**The smallest total ε that meets every target**, by composition method "
                f"(answering each alone: ε = {m['separately']:.3g} in all):")
    composition_metrics(totals, float(m["budget"]))
    interval_line(numbers["stats_interval"].iloc[0],
                  float(totals.set_index("method").loc["pld", "epsilon"]))
    if m["split_total"]:
        (st.success if m["all_met"] else st.warning)(
            f"Split under {COMPOSITION_NAMES[m['method']]}, the total ε = "
            f"{m['total_epsilon']:.3g} brings every statistic within {m['factor']:.3g} × its "
            "error bar (the smallest worst shortfall)."
            + ("" if m["all_met"] else " Not every target is met: raise the total or relax a "
               "target."), icon=":material/call_split:")
    draw = figure_drawer(numbers, params)
    left, right = st.columns(2)
    with left:
        draw("stats_totals")
    with right:
        draw("stats_split")
    shown = plan.rename(columns={"error_reached": "error reached", "error": "error bar"})
    st.dataframe(shown.assign(mechanism=plan["mechanism"].map(TARGET_MECHANISM_NAMES)),
                 hide_index=True, placeholder="—")
    st.download_button("Download the plan (CSV)", shown.to_csv(index=False),
                       file_name="statistics-plan.csv", mime="text/csv", key="ce_stats_csv",
                       on_click="ignore", icon=":material/download:")
    st.caption("Closed forms, no data read: a Laplace statistic meets its bar at ε = "
               "Δ·ln(1/(1 − level))/error, a Gaussian one by the analytic calibration (Balle & "
               "Wang 2018) at its share of δ. The totals compose those ε with each method of the "
               "Composition view; Rényi DP and PLD count a Laplace statistic by its own curve and "
               "a fixed one as its worst case. Nothing is spent. The sidebar's *Export this run* "
               "carries the table.")


with show_errors():
    view = st.segmented_control("View", VIEWS, format_func=VIEW_LABELS.get, key="ce_view",
                                label_visibility="collapsed") or VIEWS[0]
    # The target view's answer returns the tuning table it built; the other views build none.
    tuning = {"target": target_view, "risk": risk_view, "composition": composition_view,
              "stats": stats_view}[view]()
    tuning_panel(choose_epsilon_tuning(page_params()) if tuning is None else tuning)
