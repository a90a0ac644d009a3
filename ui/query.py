"""Sidebar widgets that build a query in the data's own units (no free text is ever evaluated).

Columns are the scenario's original features (age, workclass, ...), values are raw numbers or
categories; :func:`dpcore.queries.raw_indicator` converts them to the encoded records with the
scenario's public scaling bounds. The default query asks something meaningful: how often the
target takes its positive class, or, without a target, how often a numeric column exceeds its
public median.
"""

from __future__ import annotations

import streamlit as st

from dpcore.datasets import Scenario
from dpcore.queries import (
    INDICATOR,
    MAX_CONDITIONS,
    MEAN,
    OPERATORS,
    Query,
    default_condition,
    public_median,
    query_from_controls,
)
from ui.state import choose, keep_widget_state

__all__ = ["INDICATOR", "MEAN", "default_condition", "public_median", "query_sidebar"]

CATEGORICAL = ("onehot", "dummy")


def _start_column(column: str, key: str, dependents: tuple[str, ...]) -> None:
    """When a condition's column changes, its comparison and value start from their defaults."""
    marker = f"{key}__was"
    if st.session_state.get(marker, column) != column:
        for name in dependents:
            st.session_state.pop(name, None)
            st.session_state.pop(f"_kept_{name}", None)
    st.session_state[marker] = column


def _value_widget(scenario: Scenario, column: str, key: str, label: str,
                  default: object = None) -> object:
    """A select box of the column's categories, or a number input in its raw units."""
    kind = scenario.kinds.get(column)
    if kind in CATEGORICAL:
        levels = list(scenario.categories[column])
        return choose(label, levels, key, default, format_func=str)
    if kind == "binary":
        return choose(label, [1.0, 0.0], key, default, format_func=lambda v: f"{v:g}")
    keep_widget_state({key: public_median(scenario, column) if default is None else default})
    low, high = scenario.bounds[column]
    return st.number_input(label, key=key, format="%g", step=(high - low) / 100,
                           help=f"In the column's own units; the public range is "
                                f"[{low:g}, {high:g}] and values beyond it are clipped.")


def query_sidebar(scenario: Scenario, key: str = "q") -> Query:
    """Draw the query builder and return the query (in encoded form, labelled in raw units)."""
    columns = list(scenario.groups)
    first = default_condition(scenario)
    numeric = [col for col in columns if scenario.kinds.get(col) in ("scaled", "binary")]
    defaults = {f"{key}_kind": INDICATOR, f"{key}_n": 1, f"{key}_combine": "and"}
    for i in range(MAX_CONDITIONS):
        defaults |= {f"{key}_col_{i}": first[0]}
    keep_widget_state(defaults)
    st.subheader("Query")
    kind = st.radio("Question", (INDICATOR, MEAN), key=f"{key}_kind",
                    help="What the published weights are used to estimate: the share of records "
                         "that satisfy some conditions, or the average of a numeric column.")
    values: dict[str, object] = {f"{key}_kind": kind}
    if kind == MEAN:
        if not numeric:
            st.warning("This data has no numeric column to average; showing a fraction instead.")
        else:
            values[f"{key}_mean_column"] = choose("Column", numeric, f"{key}_mean_column",
                                                  first[0])
            return query_from_controls(scenario, values, key)
    n_terms = st.number_input("Conditions", 1, MAX_CONDITIONS, key=f"{key}_n")
    values[f"{key}_n"] = int(n_terms)
    if n_terms > 1:
        values[f"{key}_combine"] = st.radio("Combine with", ("and", "or"), key=f"{key}_combine",
                                            horizontal=True, format_func=str.upper)
    for i in range(int(n_terms)):
        column = choose(f"Column {i + 1}", columns, f"{key}_col_{i}", first[0])
        categorical = scenario.kinds.get(column) in CATEGORICAL
        _start_column(column, f"{key}_col_{i}", (f"{key}_op_{i}", f"{key}_value_{i}"))
        ops = ["==", "!="] if categorical else list(OPERATORS)
        default_op = first[1] if column == first[0] else ("==" if categorical else ">")
        left, right = st.columns(2)
        with left:
            op = choose("Comparison", ops, f"{key}_op_{i}", default_op)
        with right:
            value = _value_widget(scenario, column, f"{key}_value_{i}", "Value",
                                  first[2] if column == first[0] else None)
        values |= {f"{key}_col_{i}": column, f"{key}_op_{i}": op, f"{key}_value_{i}": value}
    # The same function rebuilds the query from a run config (dpcore.runs).
    return query_from_controls(scenario, values, key)
