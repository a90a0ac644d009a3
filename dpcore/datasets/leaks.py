"""Columns that give the target away, found on the public set E alone.

A column that (nearly) determines the target, such as ``affairs`` beside the target
``had_affair = affairs > 0``, makes every model learn the rule that made the target rather than
anything a release should teach; the person is told on Home and may leave the column out.

``target_leaks(public, target) -> list[Leak]``
    The columns whose value alone predicts the target on E with an accuracy of at least
    :data:`LEAK_ACCURACY`, while always guessing the most frequent class does markedly worse.

The accuracy of one column is that of the best rule on it alone: for a numeric column, a single
threshold (a decision stump, either side); for a text column, the most frequent target class among
the *other* public rows with the same value (leave one out, so a column with one value per row,
an ID, predicts nothing). Call it on public rows only: what it returns is shown and shapes the
columns a person keeps, which must not depend on the private data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["LEAK_ACCURACY", "LEAK_GAIN", "MIN_LEAK_ROWS", "Leak", "one_column_accuracy",
           "target_leaks"]

#: Least accuracy of one column alone for it to count as giving the target away: at most 1 row in
#: 50 is predicted wrong by the column's best rule.
LEAK_ACCURACY = 0.98
#: Least share of the majority guess's errors that the column's rule must remove: a column is not
#: flagged on a table where always guessing the most frequent class is nearly as good.
LEAK_GAIN = 0.75
#: Fewest public rows with a target for the check: in a handful of rows a threshold that
#: separates the classes is common and says nothing.
MIN_LEAK_ROWS = 30


@dataclass(frozen=True)
class Leak:
    """A column that alone predicts the target on the public set.

    Attributes
    ----------
    column : str
        The column's name.
    accuracy : float
        The accuracy of the column's best rule on the public rows (see module notes).
    majority : float
        The accuracy of always guessing the most frequent class on the same rows.
    """

    column: str
    accuracy: float
    majority: float


def one_column_accuracy(values: pd.Series, y: np.ndarray) -> float:
    """The accuracy of the best rule on ``values`` alone for the 0/1 labels ``y``.

    Parameters
    ----------
    values : Series
        One column, row by row with ``y``; numeric (missing values: no threshold puts them on
        either side, so they count as a value of their own below every number) or text (a
        missing value is a value of its own).
    y : ndarray of shape (n,)
        The target as 0/1.

    Returns
    -------
    accuracy : float
        Numeric: the best single threshold, either side. Text: the most frequent class among the
        other rows with the same value (ties and values seen once: the most frequent class of
        all rows).
    """
    y = np.asarray(y, dtype=int)
    if len(values) != len(y):
        raise ValueError(f"values has {len(values)} rows and y {len(y)}; pass them row by row.")
    n = len(y)
    if n == 0:
        raise ValueError("No rows: pass at least one row.")
    ones = int(y.sum())
    majority_class = int(2 * ones >= n)
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        x = pd.to_numeric(values).to_numpy(dtype=float)
        x = np.where(np.isnan(x), -np.inf, x)
        order = np.argsort(x, kind="stable")
        xs, ys = x[order], y[order]
        last = np.r_[xs[1:] != xs[:-1], True]  # a threshold only between distinct values
        below_ones = np.r_[0, np.cumsum(ys)[last]]
        below = np.r_[0, np.flatnonzero(last) + 1]
        below_zeros = below - below_ones
        # 0 below and 1 above the threshold, or the other way round
        right = np.maximum(below_zeros + (ones - below_ones), below_ones + (n - ones - below_zeros))
        return float(right.max() / n)
    key = values.astype(object).where(values.notna(), "\0missing")
    groups = pd.DataFrame({"key": key.to_numpy(), "y": y}).groupby("key")["y"]
    size = groups.transform("size").to_numpy() - 1  # the other rows with the same value
    others_ones = groups.transform("sum").to_numpy() - y
    guess = np.where(2 * others_ones > size, 1, np.where(2 * others_ones < size, 0,
                                                          majority_class))
    return float(np.mean(guess == y))


def target_leaks(public: pd.DataFrame, target: str, y: np.ndarray | None = None, *,
                 accuracy: float = LEAK_ACCURACY, gain: float = LEAK_GAIN) -> list[Leak]:
    """The columns of ``public`` that alone predict the target, best first.

    Parameters
    ----------
    public : DataFrame
        The public rows (never private ones: module notes), the target among the columns.
    target : str
        The target column, 0/1 unless ``y`` is given.
    y : ndarray of shape (n_rows,), default=None
        The target as 0/1 (the positive class as 1), row by row with ``public``; None reads
        ``public[target]`` as 0/1.
    accuracy : float, default=LEAK_ACCURACY
        Least accuracy of one column alone (:func:`one_column_accuracy`).
    gain : float, default=LEAK_GAIN
        Least share of the majority guess's errors that the column must remove.

    Returns
    -------
    leaks : list of Leak
        Empty with fewer than :data:`MIN_LEAK_ROWS` rows or a single target class.
    """
    if target not in public.columns:
        raise ValueError(f"target {target!r} is not a column of public; pass one of its columns.")
    if not 0.5 < accuracy <= 1 or not 0 < gain <= 1:
        raise ValueError(f"accuracy must be in (0.5, 1] and gain in (0, 1], got {accuracy} "
                         f"and {gain}.")
    labels = np.asarray(public[target] if y is None else y, dtype=int)
    if len(labels) != len(public):
        raise ValueError(f"y has {len(labels)} rows and public {len(public)}; pass one per row.")
    if len(labels) < MIN_LEAK_ROWS or labels.min() == labels.max():
        return []
    rate = float(labels.mean())
    majority = max(rate, 1 - rate)
    leaks = []
    for column in public.columns:
        if column == target:
            continue
        score = one_column_accuracy(public[column], labels)
        if score >= accuracy and 1 - score <= (1 - gain) * (1 - majority):
            leaks.append(Leak(str(column), score, majority))
    return sorted(leaks, key=lambda leak: -leak.accuracy)
