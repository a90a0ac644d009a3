"""Sidebar widgets that build a :class:`~dpcore.queries.Query` (no free text is ever evaluated)."""

from __future__ import annotations

import streamlit as st

from dpcore.datasets import Scenario
from dpcore.queries import OPERATORS, Condition, Query, column_mean
from ui.state import choose, keep_widget_state

INDICATOR, MEAN = "Fraction of records where…", "Mean of a column"
MAX_CONDITIONS = 3


def query_sidebar(scenario: Scenario, key: str = "q") -> Query:
    """Draw the query builder; the default asks how often the target is 1."""
    columns = scenario.features
    default_column = scenario.target if scenario.target in columns else columns[0]
    defaults = {f"{key}_kind": INDICATOR, f"{key}_n": 1, f"{key}_combine": "and",
                f"{key}_mean_column": default_column}
    for i in range(MAX_CONDITIONS):
        defaults |= {f"{key}_col_{i}": default_column, f"{key}_op_{i}": "==",
                     f"{key}_value_{i}": 1.0}
    keep_widget_state(defaults)
    st.subheader("Query")
    kind = st.radio("Question", (INDICATOR, MEAN), key=f"{key}_kind")
    if kind == MEAN:
        return column_mean(choose("Column", columns, f"{key}_mean_column", default_column))
    n_terms = st.number_input("Conditions", 1, MAX_CONDITIONS, key=f"{key}_n")
    combine = "and"
    if n_terms > 1:
        combine = st.radio("Combine with", ("and", "or"), key=f"{key}_combine", horizontal=True,
                           format_func=str.upper)
    conditions = []
    for i in range(int(n_terms)):
        column = choose(f"Column {i + 1}", columns, f"{key}_col_{i}", default_column)
        left, right = st.columns(2)
        op = left.selectbox("Comparison", list(OPERATORS), key=f"{key}_op_{i}")
        value = right.number_input("Value", step=0.1, key=f"{key}_value_{i}", format="%g")
        conditions.append(Condition(column, op, value))
    return Query(conditions=tuple(conditions), combine=combine)
