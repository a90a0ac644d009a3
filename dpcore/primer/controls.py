"""The primer page's controls: their defaults, resolved on a scenario, and the query they ask.

A control left at None takes the scenario's default (:func:`resolve_controls`), computed from
public information only (:mod:`dpcore.primer.columns`): on Adult, the count of records with
income >50K.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpcore.primer.columns import (
    candidates,
    category_columns,
    default_bounds,
    default_threshold,
    numeric_columns,
)
from dpcore.primer.queries import KINDS, RELATIONS, PrimerQuery, count
from dpcore.validation import DataError, check_choice

__all__ = [
    "CONTROLS",
    "default_count",
    "default_choice_column",
    "column_options",
    "resolve_controls",
    "query_from_controls",
]

#: Every control of the primer page with its default; None means "the scenario's default".
CONTROLS: dict[str, Any] = {
    "pr_kind": "count",
    "pr_column": None,
    "pr_value": None,
    "pr_threshold": None,
    "pr_low": None,
    "pr_high": None,
    "pr_relation": "replace",
    "pr_epsilon": 0.1,
    "pr_delta": 1e-6,
    "pr_draws": 10_000,
    "pr_total": 1.0,
    "pr_total_delta": 1e-5,
    "pr_choice_column": None,
}


def default_count(scenario: Any) -> tuple[str, Any, bool]:
    """The default count: the target's positive class, else a category, else E's median.

    Returns ``(column, value, threshold)``.
    """
    cats = category_columns(scenario)
    target = getattr(scenario, "target", None)
    for column, items in scenario.groups.items():
        if target in items and column in cats:
            kind = scenario.kinds.get(column)
            if kind == "binary":
                return column, 1, False
            levels = candidates(scenario, column)
            return column, levels[items.index(target) + (kind == "dummy")], False
    if cats:
        return cats[0], candidates(scenario, cats[0])[0], False
    numeric = numeric_columns(scenario)
    if not numeric:
        raise DataError("The data has neither a categorical nor a numeric column to query.")
    return numeric[0], default_threshold(scenario, numeric[0]), True


def column_options(scenario: Any, kind: str) -> list[str]:
    """Columns a query of ``kind`` can use: categories and numbers for a count, numbers else."""
    check_choice(kind, "kind", KINDS)
    numeric = numeric_columns(scenario)
    if kind != "count":
        return numeric
    cats = category_columns(scenario)
    return cats + [c for c in numeric if c not in cats]


def default_choice_column(scenario: Any) -> str | None:
    """The exponential mechanism's default column: among those with 3+ public categories, the
    closest race in the public set E (the smallest gap between the shares of its two most common
    categories), so that the demo opens on a choice it can get wrong; read from E only.

    Without raw public records, the first column with 3+ categories.
    """
    cats = category_columns(scenario)
    many = [c for c in cats if len(candidates(scenario, c)) >= 3]
    public = getattr(scenario, "raw_public", None)
    if not many or public is None:
        return (many or cats or [None])[0]

    def lead(column: str) -> float:
        if column not in public.columns:
            return float("inf")
        shares = public[column].value_counts(normalize=True)
        top = sorted(shares.reindex(candidates(scenario, column), fill_value=0.0), reverse=True)
        return float(top[0] - top[1])

    return min(many, key=lead)


def resolve_controls(scenario: Any, controls: Mapping[str, Any]) -> dict[str, Any]:
    """Every control with its value: missing or None ones take the scenario's defaults.

    A column that does not fit the query kind, or a category that is not a public level of the
    column, falls back to the default (as the page's select boxes do).
    """
    unknown = sorted(set(controls) - set(CONTROLS))
    if unknown:
        raise ValueError(f"Unknown primer controls {unknown}; known: {sorted(CONTROLS)}.")
    out = {key: controls.get(key, default) for key, default in CONTROLS.items()}
    for key, default in CONTROLS.items():
        if out[key] is None and default is not None:
            out[key] = default
    kind = check_choice(out["pr_kind"], "pr_kind", KINDS)
    check_choice(out["pr_relation"], "pr_relation", tuple(RELATIONS))
    options = column_options(scenario, kind)
    if not options:
        raise DataError(f"The data has no column a {kind} can use; choose a count instead.")
    first_column, first_value, _ = default_count(scenario)
    if out["pr_column"] not in options:
        out["pr_column"] = first_column if kind == "count" and first_column in options \
            else options[0]
    column = out["pr_column"]
    if kind == "count" and column in category_columns(scenario):
        levels = candidates(scenario, column)
        if out["pr_value"] not in levels:
            out["pr_value"] = first_value if column == first_column else levels[0]
    elif kind == "count" and out["pr_threshold"] is None:
        out["pr_threshold"] = default_threshold(scenario, column)
    if kind != "count" and (out["pr_low"] is None or out["pr_high"] is None):
        low, high, _ = default_bounds(scenario, column)
        out["pr_low"] = low if out["pr_low"] is None else out["pr_low"]
        out["pr_high"] = high if out["pr_high"] is None else out["pr_high"]
    if out["pr_choice_column"] not in category_columns(scenario):
        out["pr_choice_column"] = default_choice_column(scenario)
    return out


def query_from_controls(scenario: Any, controls: Mapping[str, Any]) -> PrimerQuery:
    """The query that the primer's controls describe (shared by the study and the release)."""
    kind = controls["pr_kind"]
    column = controls["pr_column"]
    if kind == "count":
        if column in category_columns(scenario):
            return count(column, controls["pr_value"])
        return count(column, float(controls["pr_threshold"]), threshold=True)
    return PrimerQuery(kind, column, low=controls["pr_low"], high=controls["pr_high"])
