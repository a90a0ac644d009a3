"""A safe query builder: comparisons on columns, combined by AND or OR, or the mean of a column.

Queries are data, never evaluated text. A query maps each record to a value ``b(x)``; its answer on
a dataset is the mean of ``b`` (for an indicator, the fraction of records that satisfy it), the
quantity Ji & Elkan estimate as ``(1/N_E) sum_E b(x) w(x)`` ([JE13]_ eq. 1).

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.validation import DataError

__all__ = ["Condition", "Query", "indicator", "column_mean", "raw_indicator", "raw_mean",
           "OPERATORS", "INDICATOR", "MEAN", "MAX_CONDITIONS", "default_condition",
           "public_median", "query_from_controls"]

OPERATORS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


@dataclass(frozen=True)
class Condition:
    """``column op value``, for example ``Condition("income=>50K", "==", 1)``."""

    column: str
    op: str
    value: float

    def __post_init__(self) -> None:
        if self.op not in OPERATORS:
            raise ValueError(f"op == {self.op!r}; choose one of {sorted(OPERATORS)}.")
        object.__setattr__(self, "value", float(self.value))

    def __str__(self) -> str:
        return f"{self.column} {self.op} {self.value:g}"


@dataclass(frozen=True)
class Query:
    """A query ``b(x)``: an indicator of conditions joined by ``combine``, or a column's mean.

    Build one with :func:`indicator` or :func:`column_mean`.
    """

    conditions: tuple[Condition, ...] = ()
    combine: str = "and"
    mean_of: str | None = None
    #: A mean query answers ``offset + scale * x``: the raw units of a scaled column.
    scale: float = 1.0
    offset: float = 0.0
    #: How the query reads in the data's own units (``str(query)``), when it was written so.
    label: str | None = None

    def __post_init__(self) -> None:
        if self.combine not in ("and", "or"):
            raise ValueError(f"combine == {self.combine!r}; choose 'and' or 'or'.")
        if (self.mean_of is None) == (len(self.conditions) == 0):
            raise ValueError("A query needs either conditions or a column to average, not both.")

    @property
    def value_range(self) -> tuple[float, float]:
        """Range of ``b(x)`` on encoded records (in [0, 1]^d): a public fact, no data read."""
        if self.mean_of is None:
            return (0.0, 1.0)
        ends = sorted((self.offset, self.offset + self.scale))
        return (ends[0], ends[1])

    @property
    def columns(self) -> list[str]:
        """Columns the query reads."""
        if self.mean_of is not None:
            return [self.mean_of]
        return list(dict.fromkeys(c.column for c in self.conditions))

    def __str__(self) -> str:
        if self.label is not None:
            return self.label
        if self.mean_of is not None:
            return f"mean of {self.mean_of}"
        joiner = f" {self.combine.upper()} "
        return "I(" + joiner.join(str(c) for c in self.conditions) + ")"

    def _column(self, frame: pd.DataFrame | Mapping[str, np.ndarray], name: str) -> np.ndarray:
        names = list(frame.columns if isinstance(frame, pd.DataFrame) else frame.keys())
        if name not in names:
            raise DataError(
                f"The query uses column {name!r}, which the data does not have. Pick one of: "
                f"{', '.join(map(str, names[:10]))}{' ...' if len(names) > 10 else ''}."
            )
        return np.asarray(frame[name], dtype=float)

    def evaluate(self, frame: pd.DataFrame) -> np.ndarray:
        """The value ``b(x)`` for every row of ``frame``, as floats."""
        if self.mean_of is not None:
            return self.offset + self.scale * self._column(frame, self.mean_of)
        masks = [OPERATORS[c.op](self._column(frame, c.column), c.value) for c in self.conditions]
        combined = np.logical_and.reduce(masks) if self.combine == "and" else np.logical_or.reduce(
            masks
        )
        return combined.astype(float)

    def is_linear(self, binary: Sequence[str]) -> bool:
        """Whether ``b`` is the identity or complement of one 0/1 column, or a column's mean."""
        if self.mean_of is not None:
            return True
        return (
            len(self.conditions) == 1
            and self.conditions[0].column in binary
            and self.conditions[0].op in ("==", "!=")
            and self.conditions[0].value in (0.0, 1.0)
        )

    def relaxed(self, frame: pd.DataFrame | Mapping[str, np.ndarray],
                binary: Sequence[str]) -> np.ndarray:
        """The multilinear extension of ``b`` on possibly noisy records.

        On a 0/1 column, ``I(x == 1)`` is ``x`` and ``I(x == 0)`` is ``1 - x``; AND multiplies and
        OR is ``1 - prod(1 - .)``; other comparisons are applied as they are. On exact 0/1 data this
        equals :meth:`evaluate`; on records with independent zero-mean noise it is unbiased for
        AND of distinct binary columns, which is how a user would answer the query from records
        released by Laplace perturbation ([JE13]_ Sect. 5.1). ``frame`` may map column names to
        arrays of any (common) shape, for example one row of noisy records per replicate.
        """
        if self.mean_of is not None:
            return self.offset + self.scale * self._column(frame, self.mean_of)
        parts = []
        for c in self.conditions:
            x = self._column(frame, c.column)
            if c.column in binary and c.op in ("==", "!=") and c.value in (0.0, 1.0):
                hit = x if (c.value == 1.0) == (c.op == "==") else 1.0 - x
            else:
                hit = OPERATORS[c.op](x, c.value).astype(float)
            parts.append(hit)
        if self.combine == "and":
            return np.prod(parts, axis=0)
        return 1.0 - np.prod([1.0 - p for p in parts], axis=0)


def indicator(*conditions: Condition | tuple[str, str, float], combine: str = "and") -> Query:
    """An indicator query, for example ``indicator(("income=>50K", "==", 1))``."""
    conds = tuple(c if isinstance(c, Condition) else Condition(*c) for c in conditions)
    return Query(conditions=conds, combine=combine)


def column_mean(column: str) -> Query:
    """The query ``b(x) = x[column]``, whose answer is the column's mean."""
    return Query(mean_of=column)


def _show(value: object) -> str:
    """A value as a user writes it: 50, 0.5, Private (never np.float64(50.0))."""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, float | np.floating | np.integer):
        return f"{value:g}"
    return str(value)


def _raw_condition(scenario, column: str, op: str, value: object) -> list[Condition]:
    """``column op value`` in raw units, as conditions on the scenario's encoded columns."""
    if op not in OPERATORS:
        raise ValueError(f"op == {op!r}; choose one of {sorted(OPERATORS)}.")
    kind = scenario.kinds.get(column)
    if kind is None:
        raise DataError(
            f"There is no column {column!r} to query; pick one of "
            f"{', '.join(map(str, list(scenario.groups)[:10]))}."
        )
    if kind == "scaled":
        low, high = scenario.bounds[column]
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise DataError(f"{column!r} is numeric: compare it with a number, not "
                            f"{_show(value)!r}.") from None
        return [Condition(column, op, (number - low) / (high - low))]
    if kind == "binary":
        return [Condition(column, op, float(value))]
    if op not in ("==", "!="):
        raise DataError(f"{column!r} is categorical: use == or != with one of its values.")
    levels = list(scenario.categories[column])
    if value not in levels:
        raise DataError(f"{_show(value)!r} is not a value of {column!r}; choose one of "
                        f"{', '.join(map(_show, levels[:10]))}.")
    items = scenario.groups[column]
    if kind == "dummy" and value == levels[0]:  # the dropped reference level: every item is 0
        if op == "!=":
            raise DataError(f"{column!r} {op} {_show(value)} cannot be written with the compact "
                            "encoding (its first level has no item); use the one-hot encoding.")
        return [Condition(item, "==", 0.0) for item in items]
    item = items[levels.index(value) - (kind == "dummy")]
    return [Condition(item, "==", 1.0 if op == "==" else 0.0)]


def raw_indicator(scenario, *conditions: tuple[str, str, object], combine: str = "and") -> Query:
    """An indicator written in the data's own units, e.g. ``("age", ">", 50)``.

    Numeric columns are compared in raw units (converted with the scenario's public scaling
    bounds; values beyond them are clipped, as the encoding clips records), categorical columns
    with ``==``/``!=`` and one of their values. The query is evaluated on the encoded records,
    so the truth, the estimates and the baselines all answer the same question.
    """
    if not conditions:
        raise ValueError("An indicator needs at least one condition.")
    encoded: list[Condition] = []
    for column, op, value in conditions:
        encoded += _raw_condition(scenario, column, op, value)
    if combine == "or" and len(encoded) > len(conditions):
        raise DataError("A condition on the compact encoding's first level cannot be joined by OR; "
                        "use AND or the one-hot encoding.")
    label = f" {combine.upper()} ".join(f"{c} {op} {_show(v)}" for c, op, v in conditions)
    return Query(conditions=tuple(encoded), combine=combine, label=f"I({label})")


def raw_mean(scenario, column: str) -> Query:
    """The mean of a numeric or 0/1 column in its own units."""
    kind = scenario.kinds.get(column)
    if kind == "scaled":
        low, high = scenario.bounds[column]
        return Query(mean_of=column, scale=high - low, offset=low, label=f"mean of {column}")
    if kind == "binary":
        return Query(mean_of=column, label=f"mean of {column}")
    raise DataError(f"{column!r} is not numeric: ask for the fraction of records with one of its "
                    "values instead.")


#: The query builder's two kinds of question (the values of its ``<key>_kind`` control).
INDICATOR, MEAN = "Fraction of records where…", "Mean of a column"
#: Most conditions a query builder joins.
MAX_CONDITIONS = 3
_CATEGORICAL = ("onehot", "dummy")


def _target_condition(scenario) -> tuple[str, str, object] | None:
    """``(column, "==", positive class)`` for the scenario's target, if it has one."""
    for column, items in scenario.groups.items():
        if scenario.target in items:
            if scenario.kinds.get(column) in _CATEGORICAL:
                levels = scenario.categories[column]
                offset = scenario.kinds[column] == "dummy"
                return column, "==", levels[items.index(scenario.target) + offset]
            return column, "==", 1.0
    return None


def public_median(scenario, column: str) -> float:
    """A default threshold: the column's median in the *public* set (raw units).

    Read from E only (public data), so a default query reveals nothing about D; without raw
    public data, the middle of the column's public scaling bounds.
    """
    raw = scenario.raw_public
    if raw is not None and column in raw and raw[column].notna().any():
        return float(np.round(raw[column].median(), 6))
    low, high = scenario.bounds.get(column, (0.0, 1.0))
    return (low + high) / 2


def default_condition(scenario) -> tuple[str, str, object]:
    """The default query's condition: how often the target takes its positive class, or,
    without a target, how often the first numeric column exceeds its public median."""
    target = _target_condition(scenario)
    if target is not None:
        return target
    scaled = [col for col, kind in scenario.kinds.items() if kind == "scaled"]
    if scaled:
        return scaled[0], ">", public_median(scenario, scaled[0])
    column = next(iter(scenario.groups))
    if scenario.kinds.get(column) in _CATEGORICAL:
        return column, "==", scenario.categories[column][0]
    return column, "==", 1.0


def _pick(options: Sequence[object], value: object, default: object = None) -> object:
    """A select box's value: ``value`` if it is an option, else ``default`` if it is one, else
    the first option (how :func:`ui.state.choose` falls back)."""
    if value is not None and value in options:
        return value
    return default if default in options else options[0]


def query_from_controls(scenario, controls: Mapping[str, object], key: str = "q") -> Query:
    """The query that the query builder's controls describe (the widgets of ``ui/query.py``).

    ``controls`` maps the builder's widget keys to their values: ``<key>_kind`` (:data:`INDICATOR`
    or :data:`MEAN`), ``<key>_mean_column``, ``<key>_n`` (1 to :data:`MAX_CONDITIONS`),
    ``<key>_combine`` (``"and"``/``"or"``) and, per condition ``i``, ``<key>_col_i``,
    ``<key>_op_i`` and ``<key>_value_i`` (raw units). A missing (or None) value, or one that is
    not among the widget's options, takes the widget's default, which follows
    :func:`default_condition`. The page and a run config therefore build the same query.

    Examples
    --------
    >>> from dpcore.datasets import load_scenario
    >>> wine = load_scenario("wine")
    >>> str(query_from_controls(wine, {}, key="iw_q"))
    'I(cultivar == 1)'
    >>> str(query_from_controls(wine, {"iw_q_n": 2, "iw_q_combine": "or", "iw_q_col_1": "alcohol",
    ...                                "iw_q_op_1": ">", "iw_q_value_1": 13.5}, key="iw_q"))
    'I(cultivar == 1 OR alcohol > 13.5)'
    """
    columns = list(scenario.groups)
    first = default_condition(scenario)
    numeric = [col for col in columns if scenario.kinds.get(col) in ("scaled", "binary")]
    if controls.get(f"{key}_kind", INDICATOR) == MEAN and numeric:
        return raw_mean(scenario, _pick(numeric, controls.get(f"{key}_mean_column"), first[0]))
    n_terms = controls.get(f"{key}_n")
    n_terms = 1 if n_terms is None else int(n_terms)
    if not 1 <= n_terms <= MAX_CONDITIONS:
        raise ValueError(f"{key}_n == {n_terms}: a query joins 1 to {MAX_CONDITIONS} "
                         "conditions.")
    combine = _pick(("and", "or"), controls.get(f"{key}_combine")) if n_terms > 1 else "and"
    conditions = []
    for i in range(n_terms):
        column = _pick(columns, controls.get(f"{key}_col_{i}"), first[0])
        kind = scenario.kinds.get(column)
        categorical = kind in _CATEGORICAL
        ops = ["==", "!="] if categorical else list(OPERATORS)
        default_op = first[1] if column == first[0] else ("==" if categorical else ">")
        op = _pick(ops, controls.get(f"{key}_op_{i}"), default_op)
        default = first[2] if column == first[0] else None
        value = controls.get(f"{key}_value_{i}")
        if categorical:
            value = _pick(list(scenario.categories[column]), value, default)
        elif kind == "binary":
            value = _pick([1.0, 0.0], value, default)
        elif value is None:
            value = public_median(scenario, column) if default is None else default
        conditions.append((column, op, value))
    return raw_indicator(scenario, *conditions, combine=combine)
