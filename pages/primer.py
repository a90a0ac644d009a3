"""Mechanism primer (survey Sect. 1): a query, its sensitivity, and how each mechanism answers it.

Everything on this page but its Publish part is a seeded simulation, not a release, and spends
no budget. The numbers and figures come from the page's study (:mod:`dpcore.studies.primer`,
the same call as an exported run) and :func:`dpcore.figures.primer.figures`; the true answer is
read from the private data without noise and labelled non-private. The Publish part is a release
(fresh OS entropy, charged to the session's ledger), never cached.
"""

import datetime as dt
from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from dpcore.figures.primer import TITLES, contexts, figures
from dpcore.primer import (
    BOUND_SOURCES,
    KINDS,
    RELATIONS,
    STATISTICS,
    PrimerQuery,
    answer_range,
    bound_problems,
    candidates,
    category_columns,
    column_options,
    default_bounds,
    default_choice_column,
    default_count,
    default_threshold,
    describe_relation,
    laplace_release_interval,
    noise_half_width,
    numeric_columns,
    query_from_controls,
    raw_records,
    runner_up_epsilon,
    suggest_bounds,
)
from dpcore.primer.coverage import derived_study
from dpcore.primer.remeasure import combine_releases
from dpcore.releases import primer as release
from dpcore.studies import primer as study
from dpcore.studies.primer import CONTROLS, Params
from dpcore.text import csv_bytes, md
from dpcore.validation import DataError
from ui.budget import budget_sidebar, session_accountant
from ui.cache import memo
from ui.errors import show_errors
from ui.export import export_panel
from ui.navigation import require_router
from ui.release import Release, publish_panel
from ui.show import show
from ui.sidebar import ask_for_scenario, scenario_sidebar
from ui.state import choose, keep_widget_state
from ui.study import numbers as study_numbers
from ui.widgets import EPSILONS, epsilon_slider, log_slider, replicates_slider, seed_input

require_router()

KIND_LABELS = {"count": "A count", "sum": "A sum", "mean": "A mean"}
DELTAS = (1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3)
TOTAL_DELTAS = (1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3)
DRAWS = (1_000, 10_000, 100_000)
#: Simulated releases of a derived statistic at most (its coverage is measured over them).
DERIVED_RUNS = 10_000
BOUNDS_MESSAGE = "_pr_bounds_message"
#: This session's releases of each query (:func:`measurements`).
MEASURES_KEY = "_pr_measures"

scenario = scenario_sidebar()
keep_widget_state({"pr_kind": CONTROLS["pr_kind"], "pr_relation": CONTROLS["pr_relation"]})
with st.sidebar:
    st.header("Mechanism primer")
    epsilon_slider("pr_epsilon", CONTROLS["pr_epsilon"],
                   label="Privacy budget ε of one answer")
    log_slider("δ of the Gaussian mechanism", DELTAS, "pr_delta", CONTROLS["pr_delta"],
               help="The Gaussian mechanism is allowed to fail its ε guarantee with this small "
                    "probability. Keep it far below 1 / (number of records).")
    replicates_slider(
        "pr_draws", CONTROLS["pr_draws"], options=DRAWS, label="Simulated answers per mechanism",
        help="How many times the study asks the query through each mechanism. More draws: "
             "smoother histograms.")
    seed = seed_input("pr_seed")
budget_sidebar()
export_panel("primer")

st.title("Mechanism primer: how noise hides one person")
st.markdown(
    "A differentially private answer is the true answer **plus random noise**, with just "
    "enough noise that the answer would look about the same if any one person's record were "
    "different. This page asks one question of the private data and shows, step by step, how "
    "much one person can change the answer (the *sensitivity*), how the Laplace, Gaussian and "
    "exponential mechanisms blur it, and how many such answers a privacy budget pays for "
    "(Ji, Lipton & Elkan 2014, Sect. 1)."
)
with st.expander("Words used on this page"):
    st.markdown(
        "- **Query**: a question asked of the whole dataset, such as \"how many people earn "
        "more than $50K?\" (survey Definition 4).\n"
        "- **Neighbouring datasets**: two datasets that differ in one person's record. Either "
        "one record is *replaced* by another (the number of records stays the same, so it is "
        "public) or one record is *added or removed*. The guarantee is stated for one of them.\n"
        "- **Sensitivity**: the most the query's answer can change between neighbouring "
        "datasets (Definition 5). The noise is scaled to it.\n"
        "- **ε (epsilon)**: the privacy budget of one answer. Any output is at most e^ε times "
        "more likely with a person's record than without it: small ε, strong privacy, more "
        "noise.\n"
        "- **δ (delta)**: the Gaussian mechanism's small chance of missing that guarantee.\n"
        "- **Clipping bounds**: for sums and means, every value is moved into a range "
        "[low, high] chosen *without looking at the private data*, so that one person can "
        "move the answer only so far.\n"
        "- **Non-private**: computed from the private data without noise (the true answer). It "
        "is shown to explain the mechanisms and would never be published."
    )


def _use_bounds(source: str, column: str) -> None:
    """Button callback: set the clipping bounds from ``source``, or say why it is refused."""
    try:
        low, high = suggest_bounds(scenario, column, source)
    except DataError as exc:
        st.session_state[BOUNDS_MESSAGE] = str(exc)
        return
    st.session_state.pop(BOUNDS_MESSAGE, None)
    for key, value in (("pr_low", low), ("pr_high", high)):
        st.session_state[key] = st.session_state[f"_kept_{key}"] = value


def _reset_on_change(marker_key: str, marker: object, values: dict[str, float]) -> None:
    """Give ``values`` to their widgets when ``marker`` (scenario and column) changes; on the
    first visit keep values a link has already set."""
    previous = st.session_state.get(marker_key)
    if previous != marker:
        for key, value in values.items():
            if previous is not None or key not in st.session_state:
                st.session_state[key] = st.session_state[f"_kept_{key}"] = value
        st.session_state[marker_key] = marker
    keep_widget_state(values)


def fmt_number(value: float) -> str:
    return f"{value:,.6g}"


def question(scenario_id: str) -> None:
    """Step 1: the query's controls; stops the page on bad bounds."""
    st.header("1. The question")
    left, middle, right = st.columns([1, 2, 2])
    with left:
        kind = st.radio("Query", KINDS, key="pr_kind", format_func=KIND_LABELS.get,
                        help="A count adds 1 for every record that matches; a sum adds up "
                             "a numeric column; a mean divides that sum by the number of "
                             "records.")
    first_column, first_value, _ = default_count(scenario)
    options = column_options(scenario, kind)
    if not options:
        st.info("This data has no numeric column to add up: choose a count.")
        st.stop()
    with middle:
        column = choose("Column", options, "pr_column",
                        first_column if first_column in options else options[0],
                        format_func=str)
    with right:
        if kind == "count" and column in category_columns(scenario):
            levels = candidates(scenario, column)
            choose("Count the records whose value is", levels, "pr_value",
                   first_value if column == first_column else levels[0], format_func=str)
        elif kind == "count":
            _reset_on_change("_pr_threshold_for", (scenario_id, column),
                             {"pr_threshold": default_threshold(scenario, column)})
            st.number_input("Count the records with a value at least", key="pr_threshold",
                            format="%g", help="Opens at the public set's median.")
    if kind != "count":
        clipping_bounds(scenario_id, column)
    st.radio("Neighbouring datasets differ by", list(RELATIONS), key="pr_relation",
             format_func=RELATIONS.get, horizontal=True,
             help="What the guarantee protects against: one person's record replaced by "
                  "another (the dataset's size is public), or one record added or removed "
                  "(even being in the data is hidden).")


def clipping_bounds(scenario_id: str, column: str) -> None:
    """Step 1's clipping bounds of a sum or mean, from public information; stops the page when
    they are wrong."""
    low0, high0, where = default_bounds(scenario, column)
    _reset_on_change("_pr_bounds_for", (scenario_id, column),
                     {"pr_low": low0, "pr_high": high0})
    st.markdown("**Clipping bounds**, in the column's own units: every value below the "
                "lower bound counts as the lower bound, every value above the upper "
                "bound as the upper bound.")
    b1, b2 = st.columns(2)
    b1.number_input("Lower bound", key="pr_low", format="%g")
    b2.number_input("Upper bound", key="pr_high", format="%g")
    with st.container(horizontal=True, gap="small"):
        if column in scenario.bounds:
            st.button("Use the scenario's public range", key="pr_from_scaling",
                      on_click=_use_bounds, args=("scaling", column))
        st.button("Use the public set's range", key="pr_from_public",
                  on_click=_use_bounds, args=("public", column))
        st.button("Use the private data's range", key="pr_from_private",
                  on_click=_use_bounds, args=("private", column),
                  help="Refused, with the reason: bounds must not come from the data "
                       "they protect.")
    if where == "none":
        st.warning("No public range is known for this column: the bounds open at "
                   "[0, 1]. Type bounds from what you know about the column.")
    else:
        st.caption(f"The bounds opened at {BOUND_SOURCES[where]} "
                   f"[{low0:g}, {high0:g}]: public information, not read from D.")
    message = st.session_state.pop(BOUNDS_MESSAGE, None)
    if message:
        st.error(md(message), icon=":material/block:")
    problems = bound_problems(st.session_state["pr_low"], st.session_state["pr_high"])
    for problem in problems:
        st.error(md(problem))
    if problems:
        st.stop()


def why_sensitivity(info: pd.Series, params: Params) -> str:
    """Why the query's sensitivity is what it is, in words."""
    sens = float(info["sensitivity"])
    if params.kind == "count":
        return ("Under either relation one record can add or take away at most one match, "
                "so a count moves by at most 1.")
    if params.kind == "sum" and params.relation == "replace":
        return (f"Replacing one record can swap the lowest allowed value "
                f"({info['low']:g}) for the highest ({info['high']:g}), so the sum moves by "
                f"at most their difference, {sens:g}.")
    if params.kind == "sum":
        return (f"Adding or removing one record adds or takes away one clipped value, at "
                f"most {sens:g} in size (the larger of |{info['low']:g}| and "
                f"|{info['high']:g}|).")
    return (f"Replacing one record moves the sum by at most {info['high'] - info['low']:g}"
            f" and the mean by that divided by the {int(info['n_records']):,} records: "
            f"{sens:.4g}. The number of records is public under this relation.")


def show_sensitivity(numbers: dict[str, pd.DataFrame], params: Params) -> None:
    """Step 2: the query, its sensitivity and its true (non-private) answer."""
    info = numbers["query"].iloc[0]
    st.header("2. How much can one person change the answer?")
    st.markdown(f"**The query:** {md(str(info['label']))}.")
    cols = st.columns(3)
    cols[0].metric("Sensitivity", f"{float(info['sensitivity']):,.4g}",
                   help="The most the answer can change between neighbouring datasets, "
                        "whatever the data (survey Definition 5).")
    cols[1].metric("True answer (non-private)", fmt_number(float(info["truth_nonprivate"])),
                   help="Computed from the private data without noise: shown only to "
                        "explain the mechanisms, never published.")
    cols[2].metric("Records in the private data", f"{int(info['n_records']):,}")
    st.caption(f"Neighbouring relation: **{info['relation']}**. {why_sensitivity(info, params)} "
               "For one number the L1 and L2 sensitivities are the same, so the Laplace and "
               "Gaussian mechanisms use the same value.")
    if params.delta >= 1.0 / max(int(info["n_records"]), 1):
        st.warning(f"δ = {params.delta:g} is not small against 1 / {int(info['n_records']):,} "
                   "records: a mechanism that published each record with probability δ "
                   "would satisfy it. Lower δ in the sidebar.")


def show_answers(numbers: dict[str, pd.DataFrame], figs: dict, params: Params) -> None:
    """Step 3: each mechanism's 95 % interval, its simulated answers and their numbers."""
    info, summary = numbers["query"].iloc[0], numbers["mechanisms"]
    st.header("3. The noisy answers")
    cols = st.columns(3)
    for col, row in zip(cols, summary.itertuples(), strict=True):
        if row.available:
            col.metric(f"{row.name}: 95 % of answers within", f"±{row.half_width:,.4g}",
                       help=f"Noise scale {row.scale:,.4g}; standard deviation "
                            f"{row.noise_sd:,.4g}. In the study {100 * row.coverage:.1f} % "
                            "of the answers landed inside.")
        else:
            col.metric(f"{row.name}", "not available")
            col.caption("Its formula is proven only for ε < 1 (Dwork & Roth 2014, Theorem "
                        "A.1); the analytic calibration holds for every ε.")
    widest = answer_range(query_from_controls(scenario, params.controls()),
                          int(info["n_records"]))
    swamped = summary[summary["available"] & (summary["half_width"] >= widest)]
    if len(swamped):
        st.warning(
            f"At ε = {params.epsilon:g} the noise of {', '.join(swamped['name'])} is wider "
            f"than every possible answer (its 95 % interval "
            f"±{swamped['half_width'].min():,.4g} against a range of {widest:,.4g}): a noisy "
            "answer says nothing, so these results mean nothing. Raise ε, or ask a question "
            "with a smaller sensitivity (tighter bounds, a count instead of a sum).",
            icon=":material/blur_on:")
    show(figs["answers"], "fig_answers", title=TITLES["answers"],
         context=f"{scenario.title}; {contexts(numbers, params)['answers']}")
    lap = summary.set_index("mechanism").loc["laplace"]
    st.caption(
        f"Each histogram shows {params.draws:,} answers that the mechanism could have "
        f"published, drawn in a seeded simulation (not a release; no budget is spent). The "
        f"green line is the true answer {fmt_number(float(info['truth_nonprivate']))} "
        f"(non-private); the shaded band holds the noisy answer 95 % of the time. Read it the "
        f"other way round: someone who sees one Laplace answer knows the truth lies within "
        f"±{lap['half_width']:,.4g} of it with 95 % confidence, and nothing sharper about any "
        f"one person. The Laplace mechanism gives pure ε-DP; the Gaussian one allows a "
        f"δ = {params.delta:g} chance of failure and has lighter tails. Its analytic "
        "calibration (Balle & Wang 2018) finds the smallest noise that works; the classic "
        "formula adds more and is proven only for ε < 1.")
    with st.expander("Numbers"):
        st.dataframe(summary[["name", "available", "epsilon", "delta", "sensitivity",
                              "scale", "noise_sd", "half_width", "measured_sd",
                              "coverage", "truth_nonprivate", "interval_low_nonprivate",
                              "interval_high_nonprivate", "note"]], hide_index=True)


def show_choice(numbers: dict[str, pd.DataFrame], figs: dict, params: Params) -> None:
    """Step 4's figure and caption: how often the exponential mechanism chose each category."""
    choice = numbers["exponential"]
    if choice.empty:
        st.info("This data has no column with a public list of categories to choose from.")
        return
    ranked = choice.sort_values("count_nonprivate", ascending=False)
    top = ranked.iloc[0]
    show(figs["exponential"], "fig_choice", title=TITLES["exponential"],
         context=f"{scenario.title}; {contexts(numbers, params)['exponential']}")
    counts = ranked["count_nonprivate"].to_numpy()
    lead = counts[0] - counts[min(1, len(counts) - 1)]
    gap = f"; the runner-up has {lead:,.0f} fewer" if len(ranked) > 1 else ""
    st.caption(
        "Some answers are not numbers: here the mechanism names a category. Each "
        "candidate's score is how many records have it (one person changes any score "
        "by at most 1), and better-scoring candidates are exponentially more likely to "
        f"be picked. The candidates are the column's public categories. In {params.draws:,} "
        f"seeded draws it picked the truly most common one, {md(top['candidate'])} "
        f"(non-private: {top['count_nonprivate']:,.0f} records{gap}), "
        f"{100 * top['frequency']:.1f} % of the time. The bigger the lead and the "
        "larger ε, the surer the pick."
        + (f" With a lead this large, the runner-up would be picked once in ten or more only "
           f"at ε ≤ {runner_up_epsilon(lead):.2g} (non-private): the pick is sure because the "
           "counts are large, not because ε is. A column whose top categories are close, or "
           "a smaller data set, shows the mechanism hesitating."
           if top["frequency"] > 0.99 and lead > 0 else ""))


def show_budget(numbers: dict[str, pd.DataFrame], params: Params) -> None:
    """Step 5's numbers: how many answers of each mechanism the total budget pays for."""
    budget = numbers["budget"]
    cols = st.columns(len(budget))
    for col, row in zip(cols, budget.itertuples(), strict=True):
        col.metric(f"{row.name} answers", f"{row.answers:,}",
                   help=f"Each spends ε = {row.epsilon:g}"
                        + (f" and δ = {row.delta:g}" if row.delta else "") + ".")
    k = int(budget["answers"].iloc[0])
    st.caption(
        f"Every answer spends its own ε, and the amounts add up (sequential composition, "
        f"survey Sect. 1.6): a total of ε = {params.total:g} pays for {k:,} answers at "
        f"ε = {params.epsilon:g} each. Gaussian answers also spend δ = {params.delta:g} each "
        f"against the total δ = {params.total_delta:g}. To ask more questions, give each a "
        "smaller ε (and so more noise); the 'Choose epsilon' page shows tighter ways of adding "
        "up.")


def publish(scenario_id: str, params: Params, cats: list[str]) -> None:
    """Step 6: publish the query's answer (a release: fresh entropy, charged to the ledger)."""
    st.header("6. Publish an answer")
    keep_widget_state({"pr_by_group": False})
    by_group = st.toggle(
        "One answer per value of a column", key="pr_by_group",
        help="Split the records by a column's public values and publish one noisy answer "
             "per group. Under 'add or remove one record' each person is in one group "
             "only, so the groups together cost ε once (parallel composition); under "
             "'replace one record' a record can move between groups, so the answers are "
             "released as one vector with twice a count's sensitivity.")
    group = None
    if by_group and cats:
        group = choose("Group by", cats, "pr_group_column", cats[0], format_func=str)
    elif by_group:
        st.info("This data has no column with a public list of values to group by.")
    ledger = session_accountant()
    if params.relation != ledger.relation:
        st.info(f"This session counts every release under **{ledger.relation_text}** (the "
                "budget panel in the sidebar), so the release is calibrated under it, not "
                f"under step 2's '{describe_relation(params.relation)}'.",
                icon=":material/info:")
    epsilon = params.epsilon
    try:
        query = query_from_controls(scenario, params.controls())
        sens = release.release_sensitivity(scenario, query, ledger.relation, group)
    except DataError as exc:
        st.info(md(exc), icon=":material/info:")
        return
    store, measured_as = measurements(), (query, group, ledger.relation)
    published = publish_panel(
        "primer", scenario=scenario, scenario_id=scenario_id, epsilon=epsilon,
        settings=release.settings(epsilon, group),
        release=measured(store, measured_as, scenario_id, epsilon, query, group),
        label="Publish the answer", relation=ledger.relation,
        noise=release.noise(sens, epsilon, ledger.relation_text))
    if published is not None:
        show_release(published)
    remeasure(scenario_id, query, group, sens, (store, measured_as), epsilon)


def measurements() -> dict[tuple, list[Release]]:
    """This session's releases of each query, oldest first (every scenario's: each names its
    own). Kept in this session's state only, keyed by the query, its grouping and the ledger's
    relation: public choices, nothing read from the data."""
    return st.session_state.setdefault(MEASURES_KEY, {})


def measured(store: dict[tuple, list[Release]], key: tuple, scenario_id: str, epsilon: float,
             query: PrimerQuery, group: str | None) -> Callable[[Any], pd.DataFrame]:
    """The release function of a press that publishes ``query`` at ``epsilon`` (no Streamlit
    call: it runs while the press is served) and adds the release to its query's measurements
    in ``store`` under ``key``."""
    def publish_and_record(accountant: Any) -> pd.DataFrame:
        released = release.publish(scenario, query, epsilon=epsilon, group=group,
                                   accountant=accountant)
        store.setdefault(key, []).append(
            Release(released, epsilon, "", scenario_id, dt.datetime.now(dt.UTC)))
        return released
    return publish_and_record


def remeasure(scenario_id: str, query: PrimerQuery, group: str | None, sens: float,
              where: tuple[dict[tuple, list[Release]], tuple], epsilon: float) -> None:
    """Measure, observe, remeasure (Nanayakkara et al. 2024): every release of this query,
    their combination with its interval, and a press that spends more ε on the same query.
    ``where``: the store of :func:`measurements` and this query's key in it."""
    store, key = where
    mine = [m for m in store.get(key, []) if m.scenario_id == scenario_id]
    if not mine:
        return
    st.subheader("Measure, observe, remeasure")
    st.markdown("Too wide? Spend more ε on **the same question**: every release of it is "
                "combined into one answer with a narrower interval.")
    show_measurements(mine)
    ledger = session_accountant()
    more = log_slider("ε of one more measurement", EPSILONS, "pr_remeasure_epsilon", epsilon,
                      help="Charged to the ledger like any release; the combination of the "
                           "answers afterwards costs nothing.")
    publish_panel(
        "primer_remeasure", scenario=scenario, scenario_id=scenario_id, epsilon=more,
        settings=release.settings(more, group) + ", the same query again",
        release=measured(store, key, scenario_id, more, query, group),
        label="Remeasure", relation=ledger.relation,
        noise=release.noise(sens, more, ledger.relation_text))


def show_measurements(mine: list[Release]) -> None:
    """The releases of one query, each with its 95 % interval, and their combination (one
    release: nothing to combine yet; its interval is the release table's low_95 and high_95)."""
    if len(mine) == 1:
        st.caption(f"One release of this query so far (ε = {mine[0].epsilon:g}): press "
                   "**Remeasure** below for a second one.")
        return
    rows = pd.concat([m.value.assign(release=i, time=f"{m.time:%H:%M:%S}")
                      for i, m in enumerate(mine, start=1)], ignore_index=True)
    widths = noise_half_width(rows["scale"].to_numpy(float)[:, None])
    st.dataframe(pd.DataFrame({
        "release": rows["release"], "time": rows["time"], "part": rows["part"],
        "epsilon": rows["epsilon"], "released answer": rows["answer"].map(rounded),
        "95 % interval": [f"±{h:,.4g}" for h in widths]}), hide_index=True)
    combined = combine_releases([m.value for m in mine])
    if len(combined) == 1:
        row = combined.iloc[0]
        cols = st.columns(3)
        cols[0].metric(f"Combined answer ({len(mine)} releases)", rounded(row["estimate"]),
                       help="Inverse-variance weighting: each answer weighted by 1 / its "
                            "noise's variance, the best linear combination.")
        cols[1].metric("Combined 95 % interval", f"±{row['half_width']:,.4g}",
                       help="Exact for a weighted sum of Laplace noises (not a normal "
                            "approximation).")
        cols[2].metric("Pitman combination (best for Laplace)", rounded(row["best"]),
                       help=f"95 % interval {rounded(row['best_low'])} to "
                            f"{rounded(row['best_high'])}.")
    else:
        st.dataframe(pd.DataFrame({
            "part": combined["part"], "combined answer": combined["estimate"].map(rounded),
            "95 % interval": [f"±{h:,.4g}" for h in combined["half_width"]],
            "Pitman combination": combined["best"].map(rounded),
            "its 95 % interval": [f"{rounded(lo)} to {rounded(hi)}" for lo, hi in
                                  zip(combined["best_low"], combined["best_high"],
                                      strict=True)]}), hide_index=True)
    row = combined.iloc[0]
    total = sum(m.epsilon for m in mine)
    st.caption(
        f"{len(mine)} releases at ε = {', '.join(f'{m.epsilon:g}' for m in mine)} (total "
        f"{total:g}), combined after publication: the combination reads only the published "
        "answers and their public noise scales, so it spends nothing more (post-processing). "
        f"Inverse-variance weighting narrows the first release's ±{row['first_half_width']:,.4g}"
        f" to ±{row['half_width']:,.4g}. The Pitman combination is the mean of the answers' "
        "likelihood, the estimate of least error among all that move with the data: never "
        "worse than inverse-variance weighting, the same for two releases at one ε, better "
        f"with more or unequal ones; its 95 % interval, {rounded(row['best_low'])} to "
        f"{rounded(row['best_high'])}, holds the truth 95 % of the time.")
    st.caption(
        f"The price of measuring in steps with Laplace noise: the combination's variance is "
        f"{row['variance_ratio']:.3g} times that of one release at the total ε = {total:g} "
        f"(±{row['single_half_width']:,.4g}); two halves lose a factor 2. Gaussian noise "
        "counted under zCDP loses nothing: two releases at ρ/2 combine to exactly one release "
        "at ρ (docs/privacy.md).")


def rounded(value: float) -> str:
    """A released answer as a person reads it: a count or sum of 100 or more to the unit (its
    noise is far larger), a smaller value to 3 significant digits."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def show_release(published: Release) -> None:
    """The last release of this page: its answers, a download and what they cost."""
    released = published.value
    st.success(f"Published at {published.settings} ({published.time:%H:%M:%S} "
               "UTC): the only output of this page that leaves the data owner.",
               icon=":material/check_circle:")
    low, high = laplace_release_interval(released["answer"],
                                         sensitivity=float(released["sensitivity"].iloc[0]),
                                         epsilon=float(released["epsilon"].iloc[0]))
    released = released.assign(low_95=low, high_95=high)
    shown = released[["part", "answer", "low_95", "high_95", "epsilon", "sensitivity",
                      "scale"]].assign(**{k: released[k].map(rounded)
                                          for k in ("answer", "low_95", "high_95")})
    st.dataframe(shown, hide_index=True)  # the download keeps every digit
    st.caption("low_95 and high_95: each answer's 95 % interval for the noise (the answer "
               "± the Laplace noise's 95 % half-width at the scale the release added); it "
               "covers the question's value on these records, not sampling error.")
    st.download_button("Download the release (CSV)", lambda: csv_bytes(released),
                       "primer_release.csv", "text/csv", key="pr_download")
    if len(released) > 1 and released["relation"].iloc[0] == "replace one record":
        st.caption(
            f"{len(released)} answers, one per group (values outside the public "
            "list form one more group, so nobody is left out), released as one "
            f"vector at ε = {published.epsilon:g}: a replaced record can leave one "
            "group and join another, so the noise is calibrated to the vector's "
            f"sensitivity {released['sensitivity'].iloc[0]:g}.")
    elif len(released) > 1:
        st.caption(
            f"{len(released)} answers, one per group (values outside the public "
            "list form one more group, so nobody is left out), each with its own "
            f"Laplace noise at ε = {published.epsilon:g}. They read disjoint rows, "
            "so the ledger records each with its group and the budget counts them "
            "once (parallel composition, survey Sect. 1.6).")


def derived_controls(params: Params, cats: list[str]) -> dict | None:
    """Step 7's controls: the statistic, its column and bounds, its group or factor; None (and
    a note) when the data has nothing to compute it on."""
    numeric = numeric_columns(scenario)
    needs_group = {"rate", "difference"}
    options = [k for k in STATISTICS if k not in needs_group or cats]
    if not numeric:
        st.info("This data has no numeric column: derived statistics need one.")
        return None
    left, middle, right = st.columns(3)
    with left:
        statistic = choose("Statistic", options, "pr_derived", options[0],
                           format_func=STATISTICS.get)
    column = params.column if params.column in numeric else numeric[0]
    if statistic != "rate":
        with middle:
            column = choose("Numeric column", numeric, "pr_derived_column", column,
                            format_func=str)
    if params.kind != "count" and column == params.column:
        low, high, where = params.low, params.high, "step 1's bounds"
    else:
        low, high, source = default_bounds(scenario, column)
        where = BOUND_SOURCES.get(source, "a placeholder, [0, 1]")
    out = {"statistic": statistic, "column": column, "bounds": (low, high), "where": where,
           "group": None, "value": None, "factor": 1.0}
    with right:
        if statistic in needs_group:
            out["group"] = choose("Group A: records whose", cats, "pr_derived_group", cats[0],
                                  format_func=str)
            levels = candidates(scenario, out["group"])
            out["value"] = choose("is", levels, "pr_derived_value", levels[0], format_func=str)
        elif statistic == "scaled_sum":
            keep_widget_state({"pr_derived_factor": 0.001})
            out["factor"] = st.number_input(
                "Factor", key="pr_derived_factor", format="%g",
                help="A public constant, e.g. 0.001 for a total in thousands.")
    return out


def derived_statistics(scenario_id: str, params: Params, seed: int, cats: list[str]) -> None:
    """Step 7: a derived statistic with a 95 % interval for the noise of every part, and the
    interval's coverage measured over simulated releases (a study, spends nothing; kept in
    the scenario's study cache under the controls that shape it)."""
    st.header("7. Derived statistics with honest error bars")
    st.markdown(
        "People rarely publish one count: a mean is a noisy sum over a noisy count, a rate a "
        "noisy count over another, a difference of two groups' means four noisy answers. The "
        "95 % interval here accounts for the noise of **every** part, and holds its level even "
        "when a count is small (see docs/intervals.md).")
    choice = derived_controls(params, cats)
    if choice is None:
        return
    runs = min(params.draws, DERIVED_RUNS)

    def compute() -> pd.DataFrame:
        raw = raw_records(scenario, "private")
        values = pd.to_numeric(raw[choice["column"]], errors="coerce").to_numpy(dtype=float)
        mask = None if choice["group"] is None else (raw[choice["group"]] == choice["value"]
                                                     ).fillna(False).to_numpy(dtype=bool)
        return derived_study(choice["statistic"], values, epsilon=params.epsilon,
                             delta=params.delta, bounds=choice["bounds"],
                             relation=params.relation, mask=mask, factor=choice["factor"],
                             runs=runs, seed=seed)

    key = ("primer derived", choice["statistic"], choice["column"], *choice["bounds"],
           choice["group"], choice["value"], choice["factor"], params.epsilon, params.delta,
           params.relation, runs, seed)
    try:
        table = memo(scenario, scenario_id, key, compute)
    except DataError as exc:
        st.info(md(exc), icon=":material/info:")
        return
    cols = st.columns(len(table))
    for col, row in zip(cols, table.itertuples(), strict=True):
        col.metric(f"{row.name}: one simulated answer", f"{row.simulated_answer:,.4g}",
                   help=f"Built from: {row.parts}.")
        col.caption(f"95 % interval **[{row.low:,.4g}, {row.high:,.4g}]**. Over {runs:,} "
                    f"simulated releases the interval held the true value "
                    f"{100 * row.coverage:.1f} % of the time (median width "
                    f"{row.median_width:,.4g}).")
    first = table.iloc[0]
    group = ("" if choice["group"] is None
             else f" Group A: {md(choice['group'])} = {md(choice['value'])}; B: the rest.")
    sampling = (f" If the records are a sample of a population, sampling adds up to "
                f"±{first['sampling_half_width']:,.4g} (from the bounds and n only)."
                if choice["statistic"] == "mean" else "")
    st.caption(
        f"A seeded simulation (not a release; no budget is spent) at ε = {params.epsilon:g} "
        f"for the whole statistic, under '{describe_relation(params.relation)}'. Values "
        f"clipped to [{choice['bounds'][0]:g}, {choice['bounds'][1]:g}] ({choice['where']})."
        f"{group} The true value is {first['truth_nonprivate']:,.4g} (non-private). The "
        "interval covers the noise: the statistic of these records." + sampling)
    with st.expander("Numbers"):
        st.dataframe(table, hide_index=True)
    publish_derived(scenario_id, params, choice)


def publish_derived(scenario_id: str, params: Params, choice: dict) -> None:
    """Step 7's release: the chosen derived statistic with its 95 % interval (fresh entropy,
    charged to the ledger under its relation; :func:`dpcore.releases.primer.publish_derived`)."""
    st.subheader("Publish this statistic")
    ledger = session_accountant()
    epsilon = params.epsilon
    if params.relation != ledger.relation:
        st.info(f"This session counts every release under **{ledger.relation_text}**, so the "
                "statistic is published calibrated under it (its parts' sensitivities change), "
                f"not under the simulation's '{describe_relation(params.relation)}'.",
                icon=":material/info:")
    published = publish_panel(
        "primer_derived", scenario=scenario, scenario_id=scenario_id, epsilon=epsilon,
        settings=release.derived_settings(choice["statistic"], epsilon, choice["column"]),
        release=lambda accountant: release.publish_derived(
            scenario, choice["statistic"], column=choice["column"], bounds=choice["bounds"],
            epsilon=epsilon, group=choice["group"], value=choice["value"],
            factor=choice["factor"], accountant=accountant),
        label="Publish the statistic", relation=ledger.relation,
        noise=f"Laplace on each part at its share of ε, calibrated to its sensitivity under "
              f"{ledger.relation_text}")
    if published is not None:
        show_derived_release(published)


def show_derived_release(published: Release) -> None:
    """The last derived release: the statistic, its interval, its parts and a download."""
    released = published.value
    first = released.iloc[0]
    st.success(f"Published at {published.settings} ({published.time:%H:%M:%S} UTC), "
               f"calibrated under '{first['relation']}'.", icon=":material/check_circle:")
    cols = st.columns(2)
    cols[0].metric(f"Published: {first['statistic']}", f"{first['estimate']:,.4g}")
    cols[1].metric("Its 95 % interval", f"{first['low_95']:,.4g} to {first['high_95']:,.4g}")
    shown = released[["part", "noisy_part", "epsilon", "sensitivity", "scale", "estimate",
                      "low_95", "high_95"]]
    st.dataframe(shown.assign(noisy_part=shown["noisy_part"].map(rounded),
                              **{k: shown[k].map("{:,.4g}".format)
                                 for k in ("estimate", "low_95", "high_95")}),
                 hide_index=True)  # the download keeps every digit
    st.caption("Each part was released with its own Laplace noise; the statistic and its "
               "interval are computed from the noisy parts and their public noise scales "
               "(post-processing, no further cost). The interval covers the statistic of "
               "these records against the noise of every part, not sampling error.")
    st.download_button("Download the release (CSV)", lambda: csv_bytes(released),
                       "primer_derived_release.csv", "text/csv", key="pr_derived_download")


with show_errors():
    if scenario is None:
        ask_for_scenario("Choose a scenario in the sidebar to begin.")
        st.stop()
    scenario_id = st.session_state["scenario_id"]
    query_box, sensitivity_box, answers_box, choice_box, budget_box = (
        st.container() for _ in range(5))
    with query_box:
        question(scenario_id)
    cats = category_columns(scenario)
    with choice_box:
        st.header("4. Choosing among candidates: the exponential mechanism")
        if cats:
            choose("Which category is the most common? Column", cats, "pr_choice_column",
                   default_choice_column(scenario), format_func=str)
    with budget_box:
        st.header("5. How many answers fit in a budget")
        left, right = st.columns(2)
        with left:
            epsilon_slider("pr_total", CONTROLS["pr_total"],
                           label="Total budget ε for all answers together")
        with right:
            log_slider("Total δ", TOTAL_DELTAS, "pr_total_delta", CONTROLS["pr_total_delta"],
                       help="Gaussian answers spend δ each, too.")

    params = Params.from_controls(
        {key: st.session_state[key] for key in CONTROLS if key in st.session_state}, seed)
    try:
        numbers = study_numbers(study, scenario, scenario_id, params,
                                text="Asking the query of the private data…")
    except DataError as exc:  # e.g. a mean under add/remove: step 7 still has its own
        with sensitivity_box:
            st.error(md(exc), icon="⚠️")
    else:
        figs = figures(numbers, params)
        with sensitivity_box:
            show_sensitivity(numbers, params)
        with answers_box:
            show_answers(numbers, figs, params)
        with choice_box:
            show_choice(numbers, figs, params)
        with budget_box:
            show_budget(numbers, params)
        with st.container():
            publish(scenario_id, params, cats)
    with st.container():
        derived_statistics(scenario_id, params, seed, cats)
