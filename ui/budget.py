"""The session's privacy budget: one accountant per session, shown in every page's sidebar.

Every release of every page spends through :func:`session_accountant`, a
:class:`dpcore.accountant.BudgetAccountant` kept in ``st.session_state`` (never shared between
sessions). :func:`budget_sidebar` lets the user set the total, shows what is spent as a bar and
lists the ledger, downloadable as CSV.
"""

from __future__ import annotations

import streamlit as st

from dpcore import DataError
from dpcore.accountant import BudgetAccountant

ACCOUNTANT_KEY = "_budget_accountant"
BUDGET_KEY = "budget_epsilon"
DEFAULT_BUDGET = 1.0


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


def budget_sidebar() -> BudgetAccountant:
    """Draw the budget panel in the sidebar and return the session's accountant."""
    accountant = session_accountant()
    total, _ = accountant.budget
    spent, _ = accountant.spent
    st.session_state.setdefault(BUDGET_KEY, total)
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
            st.error(problem, icon="⚠️")
        st.progress(min(1.0, spent / total) if total > 0 else 1.0,
                    text=f"spent ε = {spent:g} of {total:g} in {len(accountant)} "
                         f"release{'s' if len(accountant) != 1 else ''}")
        if len(accountant):
            with st.expander("Ledger of releases"):
                ledger = accountant.ledger
                st.dataframe(ledger, hide_index=True)
                st.download_button("Download the ledger (CSV)",
                                   ledger.to_csv(index=False).encode(), "privacy_ledger.csv",
                                   "text/csv", key="ledger_download")
    return accountant
