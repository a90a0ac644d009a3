"""The session's privacy budget: one accountant per session, shown in every page's sidebar.

Every release of every page spends through :func:`session_accountant`, a
:class:`dpcore.accountant.BudgetAccountant` kept in ``st.session_state`` (never shared between
sessions). :func:`budget_sidebar` lets the user set the total, states the ledger's neighbouring
relation (chosen while nothing is released), shows what is spent as a bar and lists the ledger,
downloadable as CSV and as JSON. A select box chooses the privacy filter that refuses releases
(sequential, or the zCDP filter, each with its assumptions stated; both hold for ε chosen one
release after another), while nothing is released: like the relation, the filter is then fixed
(a filter switched after releases would add up both filters' δ). The bar shows that total
(:meth:`dpcore.accountant.BudgetAccountant.set_composition`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from dpcore import DataError
from dpcore.accountant import FILTERS, RELATIONS, BudgetAccountant
from dpcore.planning import COMPOSITION_ASSUMPTIONS, epsilon_rank
from dpcore.text import csv_bytes, md

ACCOUNTANT_KEY = "_budget_accountant"
_FITTED_KEY = "_budget_fitted"  # the ε controls fit_publish_epsilon has looked at
BUDGET_KEY = "budget_epsilon"
DEFAULT_BUDGET = 1.0
COMPOSITION_KEY = "budget_composition"
SLACK_KEY = "budget_delta_slack"
SLACKS = (1e-9, 1e-8, 1e-7, 1e-6, 1e-5)
RELATION_KEY = "budget_relation"
COMPOSITION_LABELS = {
    "sequential": "Sequential: ε add up (always valid)",
    "zcdp": "zCDP filter (pure and Gaussian releases): + δ′",
}
FILTER_NOTE = ("Both hold when each ε is chosen after seeing the earlier releases, and either "
               "way the session is (ε, δ)-DP for its budget: the zCDP filter holds δ′ of the δ "
               "budget for its total. Chosen before the first release, then fixed. Advanced "
               "composition (Kairouz-Oh-Viswanath) assumes every ε fixed in advance, so it never "
               "refuses here: it is a 'what if' on the choose-ε page.")
RELATION_HELP = ("What two neighbouring datasets are: every ε of this session is counted under "
                 "this relation. 'Replace one record' keeps the number of records public (every "
                 "model release uses it); 'add or remove one record' allows parallel composition "
                 "over groups (the primer), but model releases cannot be charged under it. "
                 "Fixed once something is released.")


def ledger_json(accountant: BudgetAccountant) -> bytes:
    """The ledger as JSON: the budget, the composition, what is spent, and one record per
    release with the same fields and values as the CSV (times in ISO 8601, UTC)."""

    def plain(value: object) -> object:
        if isinstance(value, pd.Timestamp):
            return value.isoformat()
        return value.item() if hasattr(value, "item") else value

    records = [{column: plain(value) for column, value in row.items()}
               for row in accountant.ledger.to_dict(orient="records")]
    method, slack = accountant.composition
    document = {
        "format": "privacy-utility-explorer/ledger",
        "budget": {"epsilon": None if math.isinf(accountant.budget[0]) else accountant.budget[0],
                   "delta": accountant.budget[1]},  # null: no limit
        "relation": accountant.relation_text,
        "composition": {"method": method, "delta_slack": slack},
        "spent": {"epsilon": accountant.spent[0], "delta": accountant.spent[1]},
        "releases": records,
    }
    return json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8")


def session_accountant() -> BudgetAccountant:
    """This session's accountant (created with the default budget on first use)."""
    if ACCOUNTANT_KEY not in st.session_state:
        st.session_state[ACCOUNTANT_KEY] = BudgetAccountant(epsilon=DEFAULT_BUDGET)
    return st.session_state[ACCOUNTANT_KEY]


def _set_budget() -> None:
    accountant = session_accountant()
    try:
        accountant.set_budget(float(st.session_state[BUDGET_KEY]), accountant.budget[1])
    except (DataError, ValueError) as exc:
        st.session_state["_budget_problem"] = str(exc)
        st.session_state[BUDGET_KEY] = accountant.budget[0]


def _set_composition() -> None:
    accountant = session_accountant()
    method = st.session_state[COMPOSITION_KEY]
    slack = float(st.session_state.get(SLACK_KEY, accountant.composition[1]))
    if method not in FILTERS:  # e.g. a stale value: the filter stays as it is
        return
    try:
        accountant.set_composition(method, slack)
    except ValueError as exc:  # a release was recorded since the page was drawn
        st.session_state["_budget_problem"] = str(exc)
        return
    if method != "sequential" and accountant.budget[1] < slack:
        # The tighter totals carry δ′: the δ budget must hold it (the caption says so).
        accountant.set_budget(None if accountant.budget[0] == float("inf")
                              else accountant.budget[0], slack)


def _composition_panel(accountant: BudgetAccountant) -> str:
    """The select box of the composition method (and its δ′) while nothing is released, then a
    statement of the fixed filter; returns the method."""
    method, slack = accountant.composition
    if len(accountant):
        held = f" (δ′ = {slack:g} of the δ budget)" if method != "sequential" else ""
        st.caption(f"Releases are refused by: **{COMPOSITION_LABELS[method]}**{held} (fixed: "
                   "releases are counted under it).")
        st.caption(COMPOSITION_ASSUMPTIONS[method])
        return method
    st.session_state[COMPOSITION_KEY] = method
    st.selectbox("Composition of releases", FILTERS, key=COMPOSITION_KEY,
                 format_func=COMPOSITION_LABELS.get, on_change=_set_composition,
                 help="How the releases of this session add up and which total refuses a "
                      "release. Sequential is always valid; the zCDP filter gives a smaller "
                      "total for many small releases at the price of a small extra δ′. "
                      + FILTER_NOTE)
    if method != "sequential":
        st.session_state[SLACK_KEY] = slack
        st.select_slider("δ′ of the total", SLACKS, key=SLACK_KEY, on_change=_set_composition,
                         format_func=lambda v: f"{v:g}",
                         help="The probability that the tighter total fails; it is added to "
                              "the total δ, so the δ budget is raised to hold it.")
    st.caption(COMPOSITION_ASSUMPTIONS[method])
    return method


def _set_relation() -> None:
    try:
        session_accountant().set_relation(st.session_state[RELATION_KEY])
    except ValueError as exc:
        st.session_state["_budget_problem"] = str(exc)


def _relation_panel(accountant: BudgetAccountant) -> None:
    """The ledger's neighbouring relation: a choice while nothing is released, then a statement."""
    if len(accountant):
        st.caption(f"Neighbouring relation of this session: **{accountant.relation_text}** "
                   "(fixed: releases are counted under it).")
        return
    st.session_state[RELATION_KEY] = accountant.relation
    st.radio("Neighbouring relation", tuple(RELATIONS), key=RELATION_KEY,
             format_func=lambda key: RELATIONS[key].capitalize(), on_change=_set_relation,
             help=RELATION_HELP)


def budget_sidebar() -> BudgetAccountant:
    """Draw the budget panel in the sidebar and return the session's accountant."""
    accountant = session_accountant()
    total, _ = accountant.budget
    spent, _ = accountant.spent
    # The accountant holds the budget; the widget shows it. Assigning the key on every run
    # keeps the widget's value through a page switch (Streamlit resets a widget that another
    # page draws: the field showed its minimum, 0.01, after a switch, while the ledger kept 1).
    st.session_state[BUDGET_KEY] = total
    with st.sidebar:
        st.header("Privacy budget")
        st.number_input(
            "Total ε for this session", min_value=0.01, max_value=100.0, step=0.1,
            key=BUDGET_KEY, on_change=_set_budget, format="%g",
            help="Every release on every page spends from this total (sequential composition: "
                 "the ε of the releases add up). A release that would pass it is refused.",
        )
        problem = st.session_state.pop("_budget_problem", None)
        if problem:
            st.error(md(problem), icon="⚠️")
        _relation_panel(accountant)
        method = _composition_panel(accountant)
        n = len(accountant)
        releases = f"in {n} release{'s' if n != 1 else ''}"
        if method == "sequential":
            st.progress(min(1.0, spent / total) if total > 0 else 1.0,
                        text=f"spent ε = {spent:g} of {total:g} {releases}")
        else:
            try:
                eps_m, delta_m = accountant.total(method)
                st.progress(min(1.0, eps_m / total) if total > 0 else 1.0,
                            text=f"total ε = {eps_m:.3g} of {total:g} {releases} ({method}; "
                                 f"δ = {delta_m:g}; sequential sum {spent:g})")
            except ValueError as exc:
                st.progress(min(1.0, spent / total) if total > 0 else 1.0,
                            text=f"spent ε = {spent:g} of {total:g} {releases} (sequential)")
                st.caption(f"{method} cannot account for this ledger: {exc}")
        st.caption(deployments_line(total), help="Published deployments' ε, as shipped with "
                   "the app (each with its source on Choose epsilon → ε as risk). Units "
                   "differ: per person for a whole release, per user per day, per report.")
        if len(accountant):
            with st.expander("Ledger of releases"):
                ledger = accountant.ledger
                st.markdown(ledger_lines(ledger))
                st.caption("Each release's time, neighbouring relation and note are in the "
                           "downloads.")
                # Made when clicked, not on every rerun of every page (the ledger at the click).
                st.download_button("Download the ledger (CSV)",
                                   lambda: csv_bytes(accountant.ledger), "privacy_ledger.csv",
                                   "text/csv", key="ledger_download")
                st.download_button("Download the ledger (JSON)",
                                   lambda: ledger_json(accountant), "privacy_ledger.json",
                                   "application/json", key="ledger_download_json")
    return accountant


def deployments_line(epsilon: float) -> str:
    """Where a budget ε sits among the published deployments' ε, in one line."""
    smaller, published = epsilon_rank(epsilon)
    return (f"Among {published} published deployments, {smaller} used a smaller ε than "
            f"{epsilon:g} and {published - smaller} a larger or equal one (units differ).")


def ledger_lines(ledger: pd.DataFrame) -> str:
    """The ledger as a numbered list that fits the sidebar: what was released, on which data,
    and its ε (and δ when there is one)."""
    lines = []
    for i, row in enumerate(ledger.itertuples(index=False), start=1):
        cost = f"ε = {row.epsilon:g}" + (f", δ = {row.delta:g}" if row.delta > 0 else "")
        data = f" on {md(row.dataset)}" if row.dataset else ""
        lines.append(f"{i}. {md(row.mechanism)}{data}: **{cost}**")
    return "\n".join(lines)


def fit_publish_epsilon(key: str, default: float, options: Sequence[float]) -> str | None:
    """On a Publish view, before the ε control ``key`` is drawn: a page default ε above what is
    left of the session's budget becomes the largest of ``options`` within it, so that a first
    Publish is not refused by a default.

    Only the page's own default is lowered (an ε the user or a link chose stays, and the Publish
    panel says why it is refused), and once per control and session. Returns the note to show
    where the control is used (None when nothing changed).
    """
    done = st.session_state.setdefault(_FITTED_KEY, set())
    if key in done:
        return None
    done.add(key)
    epsilon = st.session_state.get(key, default)
    remaining, _ = session_accountant().remaining
    within = [value for value in options if value <= remaining]
    if epsilon != default or epsilon <= remaining or not within:
        return None
    st.session_state[key] = st.session_state[f"_kept_{key}"] = max(within)
    return (f"ε is set to {max(within):g}, the largest this session's remaining budget "
            f"({remaining:g}) allows: the page's default ε = {default:g} would be refused. Raise "
            "the budget in the sidebar (**Privacy budget**) to publish at a larger ε; every ε "
            "spent counts against it.")
