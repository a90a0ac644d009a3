"""The columns a query can use, their candidates and their clipping bounds: public information only.

The clipping bounds of a sum or a mean are inputs: this module never reads them from the private
data and refuses to (:func:`suggest_bounds` with ``source="private"``). The candidates of the
exponential mechanism are a column's public levels, never read from the private data either.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd

from dpcore.primer.queries import show_value
from dpcore.validation import DataError, check_choice

__all__ = [
    "BOUND_SOURCES",
    "raw_records",
    "numeric_columns",
    "category_columns",
    "candidates",
    "suggest_bounds",
    "default_bounds",
    "default_threshold",
    "bound_problems",
]

#: Where default clipping bounds may come from ("private" is always refused).
BOUND_SOURCES = {
    "scaling": "the scenario's public scaling range",
    "public": "the public set's range",
    "private": "the private data's range",
}

_PRIVATE_BOUNDS_REFUSED = (
    "Bounds are never taken from the private data. The smallest and largest values of D are "
    "themselves facts about single people (the oldest person's age, the largest income), and "
    "a sensitivity computed from them would not hold for a neighbouring dataset, so the noise "
    "would be calibrated to the data it should hide. Type bounds from what is known about the "
    "column without looking at D (its domain, a published range), or take them from the "
    "public set E."
)


def raw_records(scenario: Any, which: str) -> pd.DataFrame:
    """The scenario's raw (un-encoded) records, ``which`` being ``"private"`` or ``"public"``.

    Raises
    ------
    DataError
        When the scenario has none (it holds encoded records only).
    """
    frame = getattr(scenario, f"raw_{which}", None)
    if frame is None:
        raise DataError(
            f"This scenario has no raw (un-encoded) {which} records, which the primer queries. "
            "Choose a scenario with its original columns (every built-in one with its default "
            "public set, or an upload)."
        )
    return frame


def numeric_columns(scenario: Any) -> list[str]:
    """Raw columns holding numbers (the columns a sum or a mean can add up)."""
    raw = raw_records(scenario, "private")
    return [c for c in raw.columns
            if pd.api.types.is_numeric_dtype(raw[c]) and not pd.api.types.is_bool_dtype(raw[c])]


def category_columns(scenario: Any) -> list[str]:
    """Raw columns with a public list of categories (candidates of the exponential mechanism).

    A column qualifies when the scenario's public encoding lists its levels as they appear in
    the raw column (``scenario.categories``), or when it is a 0/1 column. Adult's ``age`` is
    numeric in the raw data and binned in the encoding, so it is not one.
    """
    raw = raw_records(scenario, "private")
    names = []
    for column in raw.columns:
        if column in scenario.categories and len(scenario.categories[column]) >= 2:
            levels = list(scenario.categories[column])
            numeric = pd.api.types.is_numeric_dtype(raw[column])
            if numeric == all(isinstance(v, numbers.Real) for v in levels):
                names.append(column)
        elif scenario.kinds.get(column) == "binary":
            names.append(column)
    return names


def candidates(scenario: Any, column: str) -> list:
    """The candidates of ``column``: its public levels (never read from the private data).

    A category that occurs only in D would reveal that someone in D has it, so the levels come
    from the scenario's public encoding (fitted on E) or, for a 0/1 column, are ``[0, 1]``.
    """
    if column in scenario.categories:
        return [v.item() if isinstance(v, np.generic) else v
                for v in scenario.categories[column]]
    if scenario.kinds.get(column) == "binary":
        return [0, 1]
    raise DataError(
        f"{column!r} has no public list of categories; choose one of "
        f"{', '.join(map(str, category_columns(scenario)[:10])) or '(none in this scenario)'}."
    )


def suggest_bounds(scenario: Any, column: str, source: str) -> tuple[float, float]:
    """Clipping bounds for ``column`` from a public ``source``; ``"private"`` is refused.

    Parameters
    ----------
    scenario : Scenario
    column : str
    source : {"scaling", "public", "private"}
        ``"scaling"``: the scenario's public scaling range ``scenario.bounds`` (fixed in advance
        or read off E); ``"public"``: the smallest and largest value of the column in E, refused
        when E was derived from D (``scenario.public_independent`` is False); ``"private"``:
        always refused with the reason.

    Raises
    ------
    DataError
        When the source is the private data, or holds no bounds for the column.
    """
    check_choice(source, "source", tuple(BOUND_SOURCES))
    if source == "private":
        raise DataError(_PRIVATE_BOUNDS_REFUSED)
    if source == "scaling":
        if column not in scenario.bounds:
            raise DataError(
                f"The scenario has no public scaling range for {column!r}; take the bounds from "
                "the public set or type them."
            )
        low, high = scenario.bounds[column]
        return float(low), float(high)
    if not scenario.public_independent:
        raise DataError(
            f"The public set E was derived from the private data ({scenario.public_origin}), so "
            "its range is D's range and would leak it. Type the bounds from public knowledge."
        )
    raw = raw_records(scenario, "public")
    if column not in raw.columns:
        raise DataError(f"The public set has no column {column!r}; type the bounds.")
    x = pd.to_numeric(raw[column], errors="coerce").dropna()
    if x.empty or not x.max() > x.min():
        raise DataError(f"The public set gives no range for {column!r}; type the bounds.")
    return float(x.min()), float(x.max())


def default_bounds(scenario: Any, column: str) -> tuple[float, float, str]:
    """The bounds a page opens with: the scaling range, else E's range, else a placeholder.

    Returns ``(low, high, where)``, ``where`` a key of :data:`BOUND_SOURCES` or ``"none"`` for
    the placeholder ``(0, 1)`` that the user must replace. Reads no private data.
    """
    for source in ("scaling", "public"):
        try:
            low, high = suggest_bounds(scenario, column, source)
        except DataError:
            continue
        return low, high, source
    return 0.0, 1.0, "none"


def default_threshold(scenario: Any, column: str) -> float:
    """A threshold for a count on a numeric column: E's median, else the bounds' midpoint."""
    if scenario.public_independent and getattr(scenario, "raw_public", None) is not None \
            and column in scenario.raw_public.columns:
        x = pd.to_numeric(scenario.raw_public[column], errors="coerce").dropna()
        if not x.empty:
            return float(np.round(x.median(), 6))
    low, high, _ = default_bounds(scenario, column)
    return (low + high) / 2.0


def bound_problems(low: Any, high: Any) -> list[str]:
    """Everything wrong with a pair of clipping bounds, as messages (empty when fine).

    >>> bound_problems(10, 5)
    ['The upper bound (5) must be larger than the lower bound (10).']
    """
    problems = []
    for name, value in (("lower", low), ("upper", high)):
        if value is None or isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not math.isfinite(value):
            problems.append(f"The {name} bound must be a finite number, got {value!r}.")
    if not problems and not high > low:
        problems.append(
            f"The upper bound ({show_value(high)}) must be larger than the lower bound "
            f"({show_value(low)})."
        )
    return problems

