"""Step 1 of [WJ18]_ Algorithm 1: rescale D and E into [0, 1]^p by the *public* ranges.

Continuous columns are min-max scaled by the range of E, and private values outside it are
truncated to its ends (so no bound is read off D); categorical columns become one-hot items
divided by sqrt(2), so two different levels are at L2 distance 1. The public points are then made
distinct (duplicates merged, [WJ18]_ Sect. 2.1 assumes distinct y's and Sect. 5.2 removes
replicates), keeping the order of first appearance.

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), *Selecting optimal subset to release under
   differentially private M-estimators from hybrid datasets*, IEEE TKDE 30(3), Sect. 3.2.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dpcore.rows import distinct_rows
from dpcore.validation import DataError

__all__ = ["Rescaled", "display_plane", "rescale", "scenario_arguments"]

#: Divisor of one-hot items: two levels of one categorical variable are at L2 distance 1.
ONEHOT_SCALE = math.sqrt(2.0)


@dataclass(frozen=True)
class Rescaled:
    """D and the distinct points of E after Step 1, as float arrays of the same columns.

    Attributes
    ----------
    private : ndarray of shape (n_D, q)
        Rescaled private points (each column in [0, 1]; one-hot items in {0, 1/sqrt(2)}).
    public : ndarray of shape (m, q)
        The m distinct rescaled public points, in order of first appearance in E.
    columns : list of str
        Names of the q columns.
    multiplicity : ndarray of int of shape (m,)
        How many rows of E each distinct point stands for.
    public_rows : ndarray of int of shape (m,)
        Row of E (position) where each distinct point first appears.
    target : int or None
        Column index of the 0/1 label (the last column) for logistic regression, else None.
    radius : float
        Domain bound ``max ||x||_2`` of a covariate vector with its intercept (public: it
        follows from the column kinds, not from data).
    """

    private: np.ndarray
    public: np.ndarray
    columns: list[str]
    multiplicity: np.ndarray
    public_rows: np.ndarray
    target: int | None
    radius: float

    @property
    def n_private(self) -> int:
        return self.private.shape[0]

    @property
    def n_public(self) -> int:
        return self.public.shape[0]

    @property
    def covariates(self) -> list[int]:
        """Column indices of the covariates (every column but the target)."""
        return [j for j in range(len(self.columns)) if j != self.target]


def _frame(data: Any, name: str) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        return data.reset_index(drop=True)
    arr = np.asarray(data)
    if arr.ndim != 2:
        raise DataError(f"Expected a 2D table for {name}, got {arr.ndim}D. Pass a DataFrame.")
    return pd.DataFrame(arr, columns=[f"x{j + 1}" for j in range(arr.shape[1])])


def rescale(
    private: Any,
    public: Any,
    *,
    target: str | None = None,
    groups: Mapping[str, Sequence[str]] | None = None,
    kinds: Mapping[str, str] | None = None,
) -> Rescaled:
    """Step 1 of [WJ18]_ Algorithm 1, then merge duplicate public points.

    Parameters
    ----------
    private, public : DataFrame or array-like of shape (n, q0)
        The same columns in both. Numeric columns are continuous unless ``groups``/``kinds``
        say they are one-hot items; text or categorical columns are one-hot encoded by the
        levels that occur in E (a private level that E lacks is an all-zero group).
    target : str, default=None
        A 0/1 column to keep as the label of logistic regression (placed last, unscaled:
        its two values are at distance 1, as two one-hot levels divided by sqrt(2)). Other
        items of the target's group (e.g. ``income=<=50K`` next to ``income=>50K``) are dropped.
    groups, kinds : mapping, default=None
        The encoded groups of a :class:`~dpcore.datasets.Scenario` and their kinds. Columns of
        ``"onehot"`` or ``"dummy"`` groups are items: divided by sqrt(2). ``"binary"`` columns
        are kept (range {0, 1}); every other numeric column is min-max scaled by E's range.

    Returns
    -------
    Rescaled

    Notes
    -----
    Continuous column j: ``z~ = (clip(z, a_j, b_j) - a_j) / (b_j - a_j)`` with ``a_j, b_j``
    the minimum and maximum over E ([WJ18]_ Algorithm 1 step 1). A column constant in E
    carries no information about where a record lies relative to E and becomes 0.

    Examples
    --------
    >>> E = pd.DataFrame({"x": [0.0, 2.0, 2.0], "c": ["a", "b", "b"]})
    >>> D = pd.DataFrame({"x": [5.0], "c": ["a"]})
    >>> r = rescale(D, E)
    >>> r.private.round(3).tolist(), r.public.shape, r.multiplicity.tolist()
    ([[1.0, 0.707, 0.0]], (2, 3), [1, 2])
    """
    D, E = _frame(private, "private"), _frame(public, "public")
    if list(D.columns) != list(E.columns):
        raise DataError(
            "private and public must have the same columns in the same order; got "
            f"{list(D.columns)[:5]}... and {list(E.columns)[:5]}.... Align them first "
            "(dpcore.datasets.align_columns)."
        )
    if len(E) < 1 or len(D) < 1:
        raise DataError("private and public need at least one row each.")
    item_kind, item_group = {}, {}
    drop: set[str] = set()
    for group, cols in (groups or {}).items():
        kind = (kinds or {}).get(group, "")
        for col in cols:
            item_kind[col], item_group[col] = kind, group
        if target is not None and target in cols:
            drop.update(c for c in cols if c != target)
    if target is not None and target not in D.columns:
        raise DataError(f"target {target!r} is not a column; columns are {list(D.columns)}.")
    blocks_D, blocks_E, names, sq_bound = [], [], [], 1.0  # 1.0: the intercept
    counted: set[str] = set()  # item groups already in the bound (one item per record each)
    for col in D.columns:
        if col == target or col in drop:
            continue
        zd, ze = D[col], E[col]
        if pd.api.types.is_numeric_dtype(ze) and pd.api.types.is_numeric_dtype(zd):
            zd, ze = zd.to_numpy(float), ze.to_numpy(float)
            if np.isnan(ze).any() or np.isnan(zd).any():
                raise DataError(f"Column {col!r} has missing values; drop or impute them first.")
            kind = item_kind.get(col, "")
            if kind in ("onehot", "dummy"):
                blocks_D.append(zd / ONEHOT_SCALE)
                blocks_E.append(ze / ONEHOT_SCALE)
                if item_group[col] not in counted:  # at most one item of a group is set
                    counted.add(item_group[col])
                    sq_bound += 0.5
            else:
                a, b = float(ze.min()), float(ze.max())
                width = b - a
                scale = 1.0 / width if width > 0 else 0.0
                blocks_D.append((np.clip(zd, a, b) - a) * scale)
                blocks_E.append((ze - a) * scale)
                sq_bound += 1.0
            names.append(str(col))
        else:  # categorical: one-hot by E's levels, divided by sqrt(2)
            levels = pd.unique(ze.dropna())
            for level in levels:
                blocks_D.append((zd == level).to_numpy(float) / ONEHOT_SCALE)
                blocks_E.append((ze == level).to_numpy(float) / ONEHOT_SCALE)
                names.append(f"{col}={level}")
            sq_bound += 0.5  # one level per record: squared norm 1/2 per group
    target_index = None
    if target is not None:
        yd, ye = _binary_target(D[target], target, "private"), _binary_target(E[target], target,
                                                                               "public")
        blocks_D.append(yd)
        blocks_E.append(ye)
        names.append(str(target))
        target_index = len(names) - 1
    if not blocks_D:
        raise DataError("No columns left to rescale; pass at least one covariate.")
    XD, XE = np.column_stack(blocks_D), np.column_stack(blocks_E)
    first, inverse = distinct_rows(XE)  # in order of first appearance
    distinct, counts = XE[first], np.bincount(inverse)
    return Rescaled(
        private=XD,
        public=distinct,
        columns=names,
        multiplicity=counts,
        public_rows=first,
        target=target_index,
        radius=math.sqrt(sq_bound),
    )


def _binary_target(y: pd.Series, target: str, part: str) -> np.ndarray:
    """The target column of one set as floats, if it holds only 0 and 1; else a
    :class:`~dpcore.validation.DataError` that says how to make it so. Only the public set's
    message shows its values: the private set's names none."""
    if not pd.api.types.is_numeric_dtype(y):  # bool is numeric: True/False become 1/0
        if part == "private":
            raise DataError(f"target {target!r} must be a 0/1 column; the private set holds "
                            f"other values. Map it to 0/1 first, e.g. df[{target!r}] = "
                            f"(df[{target!r}] == <positive class>).astype(int).")
        levels = [str(v) for v in pd.unique(y.dropna())[:3]]
        raise DataError(
            f"target {target!r} must be a 0/1 column; the {part} set holds {levels}. Map it to "
            f"0/1 first, e.g. df[{target!r}] = (df[{target!r}] == {levels[-1]!r}).astype(int)."
        )
    values = y.to_numpy(float)
    if not np.all((values == 0) | (values == 1)):
        raise DataError(f"target {target!r} must be a 0/1 column; the {part} set has other "
                        "values (or missing ones).")
    return values


def scenario_arguments(scenario: Any) -> dict[str, Any]:
    """Keyword arguments of :func:`rescale` (and :func:`~dpcore.subset.select_subset`) for a
    :class:`~dpcore.datasets.Scenario`: its target, groups and kinds."""
    return {"target": scenario.target, "groups": scenario.groups, "kinds": scenario.kinds}


def display_plane(data: Rescaled) -> tuple[np.ndarray, np.ndarray, tuple[str, str]]:
    """Two display coordinates of the rescaled covariates, for the scatter plots (Figs 2-3).

    With two covariates (or one), the covariates themselves; otherwise the first two principal
    axes of the *public* covariates (computed from E only), so the picture reveals nothing about
    D beyond its points, which the page labels non-private.

    Returns
    -------
    public_xy : ndarray of shape (m, 2)
    private_xy : ndarray of shape (n_D, 2)
    labels : (str, str)
    """
    cols = data.covariates
    E, D = data.public[:, cols], data.private[:, cols]
    if len(cols) <= 2:
        names = [data.columns[j] for j in cols]
        if len(cols) == 1:
            return (np.c_[E, np.zeros(len(E))], np.c_[D, np.zeros(len(D))],
                    (f"{names[0]} (rescaled)", ""))
        return E, D, (f"{names[0]} (rescaled)", f"{names[1]} (rescaled)")
    centre = E.mean(axis=0)
    _, _, vt = np.linalg.svd(E - centre, full_matrices=False)
    axes = vt[:2].T
    return (E - centre) @ axes, (D - centre) @ axes, ("1st principal axis of E",
                                                      "2nd principal axis of E")
