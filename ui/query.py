"""Sidebar widgets that build a query in the data's own units (no free text is ever evaluated).

Columns are the scenario's original features (age, workclass, ...), values are raw numbers or
categories; :func:`dpcore.queries.raw_indicator` converts them to the encoded records with the
scenario's public scaling bounds. The default query asks something meaningful: how often the
target takes its positive class, or, without a target, how often a numeric column exceeds its
public median.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpcore.datasets import Scenario
from dpcore.queries import OPERATORS, Query, raw_indicator, raw_mean
from ui.state import choose, keep_widget_state

INDICATOR, MEAN = "Fraction of records where…", "Mean of a column"
MAX_CONDITIONS = 3
CATEGORICAL = ("onehot", "dummy")


def _target_condition(scenario: Scenario) -> tuple[str, str, object] | None:
    """``(column, "==", positive class)`` for the scenario's target, if it has one."""
    for column, items in scenario.groups.items():
        if scenario.target in items:
            if scenario.kinds.get(column) in CATEGORICAL:
                levels = scenario.categories[column]
                offset = scenario.kinds[column] == "dummy"
                return column, "==", levels[items.index(scenario.target) + offset]
            return column, "==", 1.0
    return None


def public_median(scenario: Scenario, column: str) -> float:
    """A default threshold: the column's median in the *public* set (raw units)."""
    raw = scenario.raw_public
    if raw is not None and column in raw and raw[column].notna().any():
        return float(np.round(raw[column].median(), 6))
    low, high = scenario.bounds.get(column, (0.0, 1.0))
    return (low + high) / 2


def default_condition(scenario: Scenario) -> tuple[str, str, object]:
    """The default query's condition (see the module docstring)."""
    target = _target_condition(scenario)
    if target is not None:
        return target
    scaled = [col for col, kind in scenario.kinds.items() if kind == "scaled"]
    if scaled:
        return scaled[0], ">", public_median(scenario, scaled[0])
    column = next(iter(scenario.groups))
    if scenario.kinds.get(column) in CATEGORICAL:
        return column, "==", scenario.categories[column][0]
    return column, "==", 1.0


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
    if kind == MEAN:
        if not numeric:
            st.warning("This data has no numeric column to average; showing a fraction instead.")
        else:
            return raw_mean(scenario, choose("Column", numeric, f"{key}_mean_column", first[0]))
    n_terms = st.number_input("Conditions", 1, MAX_CONDITIONS, key=f"{key}_n")
    combine = "and"
    if n_terms > 1:
        combine = st.radio("Combine with", ("and", "or"), key=f"{key}_combine", horizontal=True,
                           format_func=str.upper)
    conditions = []
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
        conditions.append((column, op, value))
    return raw_indicator(scenario, *conditions, combine=combine)
