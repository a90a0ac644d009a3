"""The mechanism primer: one query, its sensitivity, and the noisy answers of each mechanism.

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
``n``, so ``n`` is treated as public. The clipping bounds are inputs: this module never reads
them from the private data and refuses to (:func:`suggest_bounds` with ``source="private"``).

The *studies* here draw many noisy answers from seeded streams (:func:`dpcore.random.stream`),
one vectorised call per mechanism: they show what a release would look like, spend no budget and
are not releases. The true answer they are centred on is computed from the private data without
noise: it is **non-private**, and so is everything in a column whose name says ``nonprivate``.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1.1-1.4 (Definitions 2-6, the Laplacian mechanism, its
   Gaussian variation and the exponential mechanism) and Sect. 1.6 (sequential composition).
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Found.
   Trends Theor. Comput. Sci. 9, Theorem 3.6 (Laplace), Theorem 3.10 (exponential), Theorem
   3.16 (sequential composition) and Theorem A.1 (classic Gaussian calibration).
.. [BW18] Balle & Wang (2018), *Improving the Gaussian mechanism for differential privacy*,
   ICML, Theorem 8 and Algorithm 1 (analytic Gaussian calibration).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpcore.mechanisms import Exponential, Gaussian, Laplace
from dpcore.random import stream
from dpcore.validation import (
    DataError,
    check_choice,
    check_probability,
    check_scalar,
    check_study_or_release,
)

__all__ = [
    "KINDS",
    "RELATIONS",
    "MECHANISMS",
    "BOUND_SOURCES",
    "CONTROLS",
    "PrimerQuery",
    "count",
    "numeric_columns",
    "category_columns",
    "candidates",
    "column_options",
    "suggest_bounds",
    "default_bounds",
    "default_threshold",
    "default_count",
    "default_choice_column",
    "bound_problems",
    "true_answer",
    "sensitivity",
    "describe_relation",
    "build_mechanisms",
    "answer_study",
    "selection_study",
    "answers_in_budget",
    "budget_table",
    "query_from_controls",
    "resolve_controls",
    "study",
    "OTHER_PART",
    "answer_range",
    "group_sensitivity",
    "release_answers",
]

#: The queries the primer asks.
KINDS = ("count", "sum", "mean")
#: Neighbouring relations ([JLE14]_ Sect. 1.1, after Definition 3), by key.
RELATIONS = {"replace": "replace one record", "add_remove": "add or remove one record"}
#: The noise-adding mechanisms of the study, by key, with a name for people.
MECHANISMS = {
    "laplace": "Laplace",
    "gaussian_analytic": "Gaussian (analytic)",
    "gaussian_classic": "Gaussian (classic)",
}
#: Where default clipping bounds may come from ("private" is always refused).
BOUND_SOURCES = {
    "scaling": "the scenario's public scaling range",
    "public": "the public set's range",
    "private": "the private data's range",
}
#: Largest number of distinct numeric levels that still makes a column categorical.
MAX_LEVELS = 30
#: Draws per study at most (one vectorised call draws them all).
MAX_DRAWS = 1_000_000

_PRIVATE_BOUNDS_REFUSED = (
    "Bounds are never taken from the private data. The smallest and largest values of D are "
    "themselves facts about single people (the oldest person's age, the largest income), and "
    "a sensitivity computed from them would not hold for a neighbouring dataset, so the noise "
    "would be calibrated to the data it should hide. Type bounds from what is known about the "
    "column without looking at D (its domain, a published range), or take them from the "
    "public set E."
)


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
            return f"count of records with {self.column} {op} {_show(self.value)}"
        return (f"{self.kind} of {self.column} clipped to "
                f"[{_show(self.low)}, {_show(self.high)}]")

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



def _show(value: Any) -> str:
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, float | np.floating):
        return f"{value:g}"
    return str(value)


# --------------------------------------------------------------------------------------------
# Columns and bounds (public information only)


def _raw(scenario: Any, which: str) -> pd.DataFrame:
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
    raw = _raw(scenario, "private")
    return [c for c in raw.columns
            if pd.api.types.is_numeric_dtype(raw[c]) and not pd.api.types.is_bool_dtype(raw[c])]


def category_columns(scenario: Any) -> list[str]:
    """Raw columns with a public list of categories (candidates of the exponential mechanism).

    A column qualifies when the scenario's public encoding lists its levels as they appear in
    the raw column (``scenario.categories``), or when it is a 0/1 column. Adult's ``age`` is
    numeric in the raw data and binned in the encoding, so it is not one.
    """
    raw = _raw(scenario, "private")
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
    raw = _raw(scenario, "public")
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
            f"The upper bound ({_show(high)}) must be larger than the lower bound ({_show(low)})."
        )
    return problems


# --------------------------------------------------------------------------------------------
# The query's answer and sensitivity


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
    groups compose in parallel instead (:func:`release_answers`).

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


# --------------------------------------------------------------------------------------------
# Studies: many noisy answers, one vectorised draw per mechanism


def _check_draws(n_draws: Any) -> int:
    if isinstance(n_draws, bool) or not isinstance(n_draws, numbers.Integral):
        raise TypeError(f"n_draws must be an int, got {type(n_draws).__name__} ({n_draws!r}).")
    if not 1 <= n_draws <= MAX_DRAWS:
        raise ValueError(f"n_draws == {n_draws}, must be in [1, {MAX_DRAWS}].")
    return int(n_draws)


def build_mechanisms(sens: float, epsilon: float, delta: float,
                     relation: str = "replace") -> dict[str, Laplace | Gaussian | str]:
    """The study's mechanisms by key (:data:`MECHANISMS`); a refused one maps to the reason.

    The classic Gaussian calibration is proven for epsilon < 1 only ([DR14]_ Theorem A.1), so at
    epsilon >= 1 its entry is the message of :class:`dpcore.mechanisms.Gaussian`.
    """
    text = RELATIONS[check_choice(relation, "relation", tuple(RELATIONS))]
    out: dict[str, Laplace | Gaussian | str] = {
        "laplace": Laplace(epsilon, sens, neighbouring=text),
        "gaussian_analytic": Gaussian(epsilon, delta, sens, "analytic", neighbouring=text),
    }
    try:
        out["gaussian_classic"] = Gaussian(epsilon, delta, sens, "classic", neighbouring=text)
    except ValueError as exc:
        out["gaussian_classic"] = str(exc)
    return out


def answer_study(truth: float, sens: float, epsilon: float, delta: float, *, n_draws: int,
                 seed: int, level: float = 0.95,
                 relation: str = "replace") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Many noisy answers of the Laplace and Gaussian mechanisms around ``truth``.

    Each mechanism draws all ``n_draws`` answers in one call from its own stream
    ``stream(seed, "primer", key)``, so its draws do not depend on the other mechanisms (and
    the same seed at another epsilon rescales the same standard draws).

    Parameters
    ----------
    truth : float
        The query's true answer (**non-private**).
    sens : float
        Its sensitivity (L1 = L2 for one number).
    epsilon, delta : float
        Privacy parameters; delta is used by the Gaussian mechanisms only.
    n_draws : int
    seed : int
    level : float, default=0.95
        Probability of the interval ``truth ± half_width``.
    relation : {"replace", "add_remove"}, default="replace"

    Returns
    -------
    draws : DataFrame
        Columns mechanism (key), draw, answer.
    summary : DataFrame
        One row per mechanism of :data:`MECHANISMS`: mechanism, name, available, note, epsilon,
        delta, sensitivity, scale, noise_sd (theory), half_width (``tail_bound(level)``),
        level, measured_sd, coverage (share of draws within ``± half_width``),
        truth_nonprivate, interval_low_nonprivate, interval_high_nonprivate.
    """
    truth = check_scalar(truth, "truth")
    n_draws = _check_draws(n_draws)
    level = check_probability(level, "level", "the probability of the interval (e.g. 0.95).")
    mechs = build_mechanisms(sens, epsilon, delta, relation)
    draws, rows = [], []
    for key, name in MECHANISMS.items():
        mech = mechs[key]
        row: dict[str, Any] = {"mechanism": key, "name": name, "epsilon": float(epsilon),
                               "delta": 0.0 if key == "laplace" else float(delta),
                               "sensitivity": float(sens), "level": level,
                               "truth_nonprivate": truth}
        if isinstance(mech, str):
            rows.append(row | {"available": False, "note": mech})
            continue
        answers = mech.randomise(np.full(n_draws, truth), rng=stream(seed, "primer", key))
        half = mech.tail_bound(level)
        draws.append(pd.DataFrame({"mechanism": key, "draw": np.arange(n_draws),
                                   "answer": answers}))
        rows.append(row | {
            "available": True, "note": "", "scale": mech.scale,
            "noise_sd": math.sqrt(mech.variance), "half_width": half,
            "measured_sd": float(np.std(answers, ddof=1)) if n_draws > 1 else math.nan,
            "coverage": float(np.mean(np.abs(answers - truth) <= half)),
            "interval_low_nonprivate": truth - half, "interval_high_nonprivate": truth + half,
        })
    columns = ["mechanism", "name", "available", "note", "epsilon", "delta", "sensitivity",
               "scale", "noise_sd", "half_width", "level", "measured_sd", "coverage",
               "truth_nonprivate", "interval_low_nonprivate", "interval_high_nonprivate"]
    summary = pd.DataFrame(rows).reindex(columns=columns)
    return pd.concat(draws, ignore_index=True), summary


def selection_study(scenario: Any, column: str, epsilon: float, *, n_draws: int,
                    seed: int) -> pd.DataFrame:
    """The exponential mechanism choosing the most common category of ``column``.

    Utility of a candidate = its count in D; sensitivity 1 under either relation (one record
    more, fewer or replaced moves any one count by at most 1); not monotonic under "replace"
    (one count rises while another falls), so the general form ``P(i) ∝ exp(epsilon u_i / 2)``
    is used ([JLE14]_ Sect. 1.4, Definition 6; [DR14]_ Theorem 3.10). The candidates are the
    column's public levels (:func:`candidates`). All draws come from one vectorised call on the
    stream ``stream(seed, "primer", "exponential")``.

    Returns
    -------
    DataFrame
        One row per candidate: candidate (as text), count_nonprivate, probability_nonprivate
        (the exact selection probability, computed from the counts), frequency (share of draws
        that chose it), best_nonprivate (whether it has the largest count).
    """
    n_draws = _check_draws(n_draws)
    levels = candidates(scenario, column)
    raw = _raw(scenario, "private")
    if column not in raw.columns:
        raise DataError(f"The private data has no column {column!r}.")
    counts = np.array([float((raw[column] == level).fillna(False).sum()) for level in levels])
    mech = Exponential(epsilon, 1.0, neighbouring="replace one record, or add or remove one")
    utilities = np.broadcast_to(counts, (n_draws, counts.size))
    chosen = mech.randomise(utilities, rng=stream(seed, "primer", "exponential"))
    frequency = np.bincount(np.atleast_1d(chosen), minlength=counts.size) / n_draws
    return pd.DataFrame({
        "candidate": [_show(v) for v in levels],
        "count_nonprivate": counts,
        "probability_nonprivate": mech.probabilities(counts),
        "frequency": frequency,
        "best_nonprivate": counts == counts.max(),
    })


# --------------------------------------------------------------------------------------------
# Sequential composition


def answers_in_budget(total_epsilon: float, epsilon: float, total_delta: float = 0.0,
                      delta: float = 0.0) -> int:
    """How many (epsilon, delta) answers fit in (total_epsilon, total_delta), sequentially.

    k answers cost ``(k epsilon, k delta)`` ([JLE14]_ Sect. 1.6; [DR14]_ Theorem 3.16), so
    ``k = min(floor(total_epsilon / epsilon), floor(total_delta / delta))`` (the delta term only
    when ``delta > 0``). A relative slack of 1e-9 absorbs rounding (0.3 / 0.1 gives 3), as the
    accountant does.

    >>> answers_in_budget(1.0, 0.1), answers_in_budget(0.3, 0.1)
    (10, 3)
    >>> answers_in_budget(1.0, 0.1, total_delta=1e-5, delta=1e-6)
    10
    >>> answers_in_budget(1.0, 0.1, total_delta=1e-5, delta=4e-6)
    2
    """
    total_epsilon = check_scalar(total_epsilon, "total_epsilon", min_val=0.0, include_min=True)
    epsilon = check_scalar(epsilon, "epsilon", min_val=0.0)
    total_delta = check_scalar(total_delta, "total_delta", min_val=0.0, include_min=True,
                               max_val=1.0)
    delta = check_scalar(delta, "delta", min_val=0.0, include_min=True, max_val=1.0)
    k = math.floor(total_epsilon / epsilon * (1.0 + 1e-9))
    if delta > 0.0:
        k = min(k, math.floor(total_delta / delta * (1.0 + 1e-9)))
    return int(k)


def budget_table(summary: pd.DataFrame, total_epsilon: float, total_delta: float,
                 selection_epsilon: float | None = None) -> pd.DataFrame:
    """Answers of each available mechanism that fit in the total budget (sequentially).

    Returns a DataFrame with columns mechanism, name, epsilon, delta, total_epsilon,
    total_delta, answers, spent_epsilon, spent_delta.
    """
    rows = []
    items = [(r.mechanism, r.name, r.epsilon, r.delta)
             for r in summary.itertuples() if r.available]
    if selection_epsilon is not None:
        items.append(("exponential", "Exponential (a choice)", float(selection_epsilon), 0.0))
    for key, name, eps, delta in items:
        k = answers_in_budget(total_epsilon, eps, total_delta, delta)
        rows.append({"mechanism": key, "name": name, "epsilon": eps, "delta": delta,
                     "total_epsilon": float(total_epsilon), "total_delta": float(total_delta),
                     "answers": k, "spent_epsilon": k * eps, "spent_delta": k * delta})
    return pd.DataFrame(rows, columns=["mechanism", "name", "epsilon", "delta", "total_epsilon",
                                       "total_delta", "answers", "spent_epsilon",
                                       "spent_delta"])


def describe_relation(relation: str) -> str:
    """The neighbouring relation in words."""
    return RELATIONS[check_choice(relation, "relation", tuple(RELATIONS))]


def query_from_controls(scenario: Any, controls: Mapping[str, Any]) -> PrimerQuery:
    """The query that the primer's controls describe (shared by the page and its run)."""
    kind = controls["pr_kind"]
    column = controls["pr_column"]
    if kind == "count":
        if column in category_columns(scenario):
            return count(column, controls["pr_value"])
        return count(column, float(controls["pr_threshold"]), threshold=True)
    return PrimerQuery(kind, column, low=controls["pr_low"], high=controls["pr_high"])



# --------------------------------------------------------------------------------------------
# The page's controls, resolved, and everything the page shows (shared with dpcore.studies.primer)

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


def default_choice_column(scenario: Any) -> str | None:
    """The exponential mechanism's default column: the first with 3+ public categories."""
    cats = category_columns(scenario)
    many = [c for c in cats if len(candidates(scenario, c)) >= 3]
    return (many or cats or [None])[0]


def study(scenario: Any, controls: Mapping[str, Any], seed: int) -> dict[str, pd.DataFrame]:
    """Everything the primer page shows, for its controls and study seed.

    Returns
    -------
    dict of str to DataFrame
        ``"query"`` (one row: kind, column, label, relation, low, high, n_records, sensitivity,
        truth_nonprivate), ``"mechanisms"`` and ``"answers"`` (:func:`answer_study`),
        ``"exponential"`` (:func:`selection_study`; empty without a category column) and
        ``"budget"`` (:func:`budget_table`).
    """
    c = resolve_controls(scenario, controls)
    query = query_from_controls(scenario, c)
    raw = _raw(scenario, "private")
    n = len(raw)
    sens = sensitivity(query, n, c["pr_relation"])
    truth = true_answer(query, raw)
    draws, summary = answer_study(truth, sens, c["pr_epsilon"], c["pr_delta"],
                                  n_draws=int(c["pr_draws"]), seed=seed,
                                  relation=c["pr_relation"])
    if c["pr_choice_column"] is not None:
        choice = selection_study(scenario, c["pr_choice_column"], c["pr_epsilon"],
                                 n_draws=int(c["pr_draws"]), seed=seed)
        choice.insert(0, "column", c["pr_choice_column"])
    else:
        choice = pd.DataFrame(columns=["column", "candidate", "count_nonprivate",
                                       "probability_nonprivate", "frequency", "best_nonprivate"])
    budget = budget_table(summary, c["pr_total"], c["pr_total_delta"],
                          c["pr_epsilon"] if c["pr_choice_column"] is not None else None)
    info = pd.DataFrame([{
        "kind": query.kind, "column": query.column, "label": str(query),
        "relation": describe_relation(c["pr_relation"]),
        "low": query.low, "high": query.high, "n_records": n, "sensitivity": sens,
        "truth_nonprivate": truth,
    }])
    return {"query": info, "mechanisms": summary, "answers": draws, "exponential": choice,
            "budget": budget}


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


# --------------------------------------------------------------------------------------------
# Releases: what a data owner would publish (fresh entropy, spent through an accountant)

#: The part of a per-group release that holds every value outside the column's public list.
OTHER_PART = "(any other value)"


def release_answers(query: PrimerQuery, private: pd.DataFrame, epsilon: float, *,
                    n_records: int, relation: str | None = None, group: str | None = None,
                    groups: list | None = None, accountant: Any, dataset: str,
                    rng: Any = None) -> pd.DataFrame:
    """Publish the query's answer under the Laplace mechanism ([JLE14]_ Sect. 1.3), once or
    once per group of the rows.

    The noise is drawn by :meth:`dpcore.mechanisms.Laplace.release` (OpenDP's float-safe
    sampler, fresh OS entropy), after the accountant has recorded the cost. The release is
    calibrated under ``relation``, by default the accountant's, and charged what it costs under
    the accountant's relation (:meth:`dpcore.accountant.BudgetAccountant.charge`).

    With ``group``, the rows are split by the value of that column into the public ``groups``
    (every other value, missing included, forms one more part, :data:`OTHER_PART`, so no record
    is dropped) and each part gets its own answer:

    * under "replace one record" the answers form one vector, released at ``epsilon`` with the
      vector's L1 sensitivity (:func:`group_sensitivity`: a replaced record can move between
      parts and change two answers);
    * under "add or remove one record" each part's answer has the query's own sensitivity and
      reads only its rows, so in an add/remove ledger the parts compose in **parallel**
      ([JLE14]_ Sect. 1.6): each is recorded with ``partition="<group> = <value>"`` and together
      they cost ``epsilon``. In a replace-one ledger the same release costs ``2 epsilon`` (group
      privacy) and is recorded once.

    Parameters
    ----------
    query : PrimerQuery
    private : DataFrame
        The raw private records (``scenario.raw_private``).
    epsilon : float
        ε of the release under ``relation``.
    n_records : int
        Public number of records (the mean's sensitivity under "replace one record").
    relation : {"replace", "add_remove"} or None, default=None
        The relation the noise is calibrated under; None: the accountant's.
    group : str, optional
        Column whose values define the parts (a rule applied record by record, never fitted on
        D).
    groups : list, optional
        The public values of ``group`` (its public categories).
    accountant : dpcore.accountant.BudgetAccountant
        Spent before any noise is drawn; raises BudgetExceeded (nothing recorded) when over.
    dataset : str
        The private data's name in the ledger.
    rng : None, int or numpy.random.Generator, default=None
        None: a release. A seed gives a study's numpy draws of the same law (never with an
        accountant).

    Returns
    -------
    DataFrame
        One row per part: part, answer (noisy, the release), epsilon, sensitivity, scale,
        relation.

    Raises
    ------
    DataError
        For a per-group mean, a release that cannot be charged under the accountant's relation,
        or over budget.
    """
    check_study_or_release(rng, accountant)
    if relation is None:
        relation = accountant.relation if accountant is not None else "replace"
    check_choice(relation, "relation", tuple(RELATIONS))
    ledger = accountant.relation if accountant is not None else relation
    if group is None:
        sens = sensitivity(query, n_records, relation)
        if accountant is not None:
            accountant.spend(epsilon, mechanism=f"Laplace: {query}", dataset=dataset,
                             relation=relation)
        answers = {"all records": true_answer(query, private)}
    else:
        if query.kind == "mean":
            raise DataError("A per-group mean has no fixed sensitivity (each group's size "
                            "changes); publish per-group counts or sums instead.")
        values = list(groups or [])
        column = private[group]
        parts = {f"{group} = {v}": (column == v).to_numpy() for v in values}
        parts[OTHER_PART] = ~column.isin(values).to_numpy()
        if relation == "replace":
            sens = group_sensitivity(query)
        else:
            sens = sensitivity(query, n_records, relation)
        if accountant is not None and relation == "add_remove" and ledger == "add_remove":
            for name in parts:  # check every part before recording any
                accountant.check(epsilon, dataset=dataset, partition=name, relation=relation)
            for name in parts:
                accountant.spend(epsilon, mechanism=f"Laplace: {query} (one part)",
                                 dataset=dataset, partition=name, relation=relation)
        elif accountant is not None:
            accountant.spend(epsilon, mechanism=f"Laplace: {query} per {group} "
                             f"({len(parts)} parts, one vector)", dataset=dataset,
                             relation=relation)
        answers = {name: true_answer(query, private[rows]) if rows.any() else 0.0
                   for name, rows in parts.items()}
    mech = Laplace(epsilon, sens, neighbouring=RELATIONS[relation])
    exact = np.array(list(answers.values()), dtype=float)
    noisy = mech.draw(exact, rng=rng)
    return pd.DataFrame({"part": list(answers), "answer": noisy, "epsilon": epsilon,
                         "sensitivity": sens, "scale": mech.scale,
                         "relation": RELATIONS[relation]})
