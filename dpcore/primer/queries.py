"""The primer's query, its exact answer and its sensitivity.

A *query* ([JLE14]_ Definition 4) is asked of the scenario's private records in their own units
(the un-encoded columns ``scenario.raw_private``): a **count** of records in a category (or at or
above a threshold), or the **sum** or **mean** of a numeric column clipped to bounds ``[low,
high]`` that the user gives. Its *sensitivity* ([JLE14]_ Definition 5) is the largest change of
the answer between two neighbouring datasets, under a neighbouring relation this module states:

=========  ==================================  =====================================
query      "replace one record"                "add or remove one record"
=========  ==================================  =====================================
count      1                                   1
sum        ``high - low``                      ``max(|low|, |high|)``
mean       ``(high - low) / n``                refused (``n`` itself changes)
=========  ==================================  =====================================

(For one number the L1 and L2 sensitivities coincide, so the Laplace and the Gaussian mechanism
use the same value.) Under "replace one record" every neighbour has the same number of records
``n``, so ``n`` is treated as public. The true answer (:func:`true_answer`) is computed from the
private data without noise: it is **non-private** and never released.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1.1-1.2 (Definitions 2-5).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpcore.validation import DataError, check_choice, check_scalar

__all__ = [
    "KINDS",
    "RELATIONS",
    "PrimerQuery",
    "count",
    "show_value",
    "true_answer",
    "sensitivity",
    "group_sensitivity",
    "describe_relation",
    "answer_range",
]

#: The queries the primer asks.
KINDS = ("count", "sum", "mean")
#: Neighbouring relations ([JLE14]_ Sect. 1.1, after Definition 3), by key.
RELATIONS = {"replace": "replace one record", "add_remove": "add or remove one record"}


@dataclass(frozen=True)
class PrimerQuery:
    """A query on the raw private records, in their own units.

    Parameters
    ----------
    kind : {"count", "sum", "mean"}
    column : str
        A raw column of the scenario (``scenario.raw_private``).
    value : object, default=None
        Count only: the category counted, or, for a numeric column, the threshold (records with
        a value at or above it are counted).
    low, high : float, default=None
        Sum and mean only: the clipping bounds in the column's units, from public knowledge;
        each value is clipped to ``[low, high]`` and a missing value counts as the midpoint.
    threshold : bool, default=False
        Count only: count records with ``column >= value`` (a numeric column) instead of
        ``column == value``.
    """

    kind: str
    column: str
    value: Any = None
    low: float | None = None
    high: float | None = None
    threshold: bool = False

    def __post_init__(self) -> None:
        check_choice(self.kind, "kind", KINDS)
        if not isinstance(self.column, str):
            raise TypeError(f"column must be a str, got {type(self.column).__name__}.")
        if self.kind == "count":
            if self.value is None:
                raise ValueError("A count needs value: the category counted, or a threshold.")
            if self.threshold:
                object.__setattr__(self, "value", check_scalar(self.value, "value"))
            return
        if self.low is None or self.high is None:
            raise ValueError(
                f"A {self.kind} needs clipping bounds low and high in the column's units, "
                "from public knowledge (never from the private data)."
            )
        low, high = check_scalar(self.low, "low"), check_scalar(self.high, "high")
        if not high > low:
            raise ValueError(
                f"high == {high:g} must be > low == {low:g}: the clipping range of the column."
            )
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    def __str__(self) -> str:
        if self.kind == "count":
            op = ">=" if self.threshold else "=="
            return f"count of records with {self.column} {op} {show_value(self.value)}"
        return (f"{self.kind} of {self.column} clipped to "
                f"[{show_value(self.low)}, {show_value(self.high)}]")

    def values(self, frame: pd.DataFrame) -> np.ndarray:
        """Each record's contribution: 0/1 for a count, the clipped value for a sum or mean."""
        if self.column not in frame.columns:
            raise DataError(
                f"The query uses column {self.column!r}, which the data does not have. Pick one "
                f"of: {', '.join(map(str, list(frame.columns)[:10]))}."
            )
        column = frame[self.column]
        if self.kind == "count":
            if self.threshold:
                x = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
                return (x >= float(self.value)).astype(float)  # NaN compares False
            return (column == self.value).fillna(False).to_numpy(dtype=float)
        x = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
        x = np.where(np.isnan(x), (self.low + self.high) / 2.0, x)
        return np.clip(x, self.low, self.high)


def count(column: str, value: Any, *, threshold: bool = False) -> PrimerQuery:
    """A count query: records with ``column == value`` (or ``>= value`` if ``threshold``).

    >>> str(count("age", 50, threshold=True))
    'count of records with age >= 50'
    """
    return PrimerQuery("count", column, value=value, threshold=bool(threshold))


def show_value(value: Any) -> str:
    """A value as people write it: ``50.0`` as ``50``, other floats in ``%g``, the rest as is.

    >>> show_value(50.0), show_value(0.25), show_value(">50K")
    ('50', '0.25', '>50K')
    """
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, float | np.floating):
        return f"{value:g}"
    return str(value)


def true_answer(query: PrimerQuery, frame: pd.DataFrame) -> float:
    """The query's exact answer on ``frame`` (on D: **non-private**, never released)."""
    values = query.values(frame)
    if query.kind == "mean":
        if values.size == 0:
            raise DataError("The mean of no records is undefined: the data is empty.")
        return float(values.mean())
    return float(values.sum())


def sensitivity(query: PrimerQuery, n_records: int, relation: str = "replace") -> float:
    """The query's sensitivity under ``relation`` ([JLE14]_ Definition 5; table in the module).

    Parameters
    ----------
    query : PrimerQuery
    n_records : int
        Number of records (public under "replace one record"; used by the mean only).
    relation : {"replace", "add_remove"}, default="replace"

    Raises
    ------
    DataError
        For a mean under "add or remove one record".

    Examples
    --------
    >>> sensitivity(PrimerQuery("sum", "age", low=17, high=90), 100)
    73.0
    >>> sensitivity(PrimerQuery("sum", "age", low=-5, high=3), 100, "add_remove")
    5.0
    >>> sensitivity(PrimerQuery("mean", "age", low=0, high=100), 1000)
    0.1
    """
    check_choice(relation, "relation", tuple(RELATIONS))
    if isinstance(n_records, bool) or not isinstance(n_records, numbers.Integral) \
            or n_records < 1:
        raise ValueError(f"n_records == {n_records!r}, must be an int >= 1.")
    if query.kind == "count":
        return 1.0
    width = query.high - query.low
    if query.kind == "sum":
        return width if relation == "replace" else max(abs(query.low), abs(query.high))
    if relation == "add_remove":
        raise DataError(
            "A mean has no fixed sensitivity under 'add or remove one record': its denominator "
            "(the number of records) changes too and is itself private. Use 'replace one "
            "record' (the size is then public), or release a noisy sum and a noisy count."
        )
    return width / int(n_records)


def group_sensitivity(query: PrimerQuery) -> float:
    """L1 sensitivity of the vector of per-group answers under "replace one record".

    A replaced record may leave one group and join another: a count changes by 1 in two
    groups (2 in all); a sum changes by ``x' - x`` within one group (at most ``high - low``) or
    by ``-x`` in one and ``+x'`` in another (at most ``2 max(|low|, |high|)``). A per-group mean
    has no fixed sensitivity (the groups' sizes change). Under "add or remove one record" the
    groups compose in parallel instead (:func:`dpcore.primer.release.release_answers`).

    Examples
    --------
    >>> group_sensitivity(count("region", "north"))
    2.0
    >>> group_sensitivity(PrimerQuery("sum", "age", low=17, high=90))
    180.0
    >>> group_sensitivity(PrimerQuery("sum", "x", low=-5, high=5))
    10.0
    """
    if query.kind == "count":
        return 2.0
    if query.kind == "sum":
        largest = max(abs(query.low), abs(query.high))
        return float(max(query.high - query.low, 2.0 * largest))
    raise DataError("A per-group mean has no fixed sensitivity (each group's size changes); "
                    "publish per-group counts or sums instead.")


def describe_relation(relation: str) -> str:
    """The neighbouring relation in words."""
    return RELATIONS[check_choice(relation, "relation", tuple(RELATIONS))]


def answer_range(query: PrimerQuery, n_records: int) -> float:
    """The width of the interval every possible answer lies in, from public facts only: ``n``
    for a count, ``n (high - low)`` for a sum, ``high - low`` for a mean.

    When a mechanism's 95 % interval is wider than this, a noisy answer says nothing.

    >>> answer_range(PrimerQuery("mean", "age", low=17, high=90), 100)
    73.0
    """
    if query.kind == "count":
        return float(n_records)
    width = float(query.high - query.low)
    return width * n_records if query.kind == "sum" else width

