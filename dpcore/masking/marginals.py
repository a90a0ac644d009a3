"""Binned columns, the 2-way k-marginal score and the exact-match share of a masked table.

A masked table is judged on the table's own columns, not on the model's encoded features: a
one-hot or dummy group is one column (its category: the nearest one-hot vertex of a record's
values), a binary column is 0 or 1 (cut at 0.5) and a scaled column falls into :data:`BINS`
equal-width bins of its public range. :class:`Binning` holds that recipe;
:meth:`Binning.codes` applies it to any batch of records (masked records that left the domain
fall into the nearest bin).

:func:`k_marginal_score` is SDNist's 2-way k-marginal score: for every pair of columns, the L1
distance between the two tables' 2-way marginal distributions (0 when they are equal, 2 when
their supports are disjoint), and ``(2 - mean over pairs) * 500`` (0 to 1000; 1000 is
identical marginals). :func:`exact_match_share` is the share of masked records whose binned
columns all equal those of some original record (SDNist's "unique exact match" and SDMetrics'
``NewRowSynthesis`` count the same rows on discretised data). Both read the original records
without noise: non-private numbers, for judging a mechanism.

References
----------
.. [SDNist] NIST CRC Data and Metrics Archive, *SDNist v2: Deidentified data report*, section
   "K-marginal" (``sdnist.metrics.kmarginal``: 2-way and 3-way scores, ``(2 - TVD sum) * 500``).
.. [SDM] DataCebo, *SDMetrics*, ``ContingencySimilarity`` (one minus half the L1 distance of a
   pair's contingency tables) and ``NewRowSynthesis``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.validation import DataError, check_choice

__all__ = ["BINS", "KINDS", "Binning", "Column", "columns_of", "default_binning",
           "exact_match_share", "exact_match_shares", "k_marginal_score", "k_marginal_scores",
           "labelled", "pair_distances"]

#: Equal-width bins of a scaled column (SDNist bins numeric columns into 10 bins too).
BINS = 10
#: How a column is stored among the features (:mod:`dpcore.datasets.encoding`'s kinds).
KINDS = ("onehot", "dummy", "binary", "scaled", "category")


@dataclass(frozen=True)
class Column:
    """One column of a table and the features that store it.

    Attributes
    ----------
    name : str
    kind : str
        One of :data:`KINDS`: ``"onehot"`` (one feature per category: the largest is the
        category), ``"dummy"`` (the first category dropped: it is the category when no feature
        reaches 0.5), ``"binary"`` (cut at 0.5), ``"scaled"`` (``bins`` equal-width bins of
        ``[low, high]``) or ``"category"`` (a feature that already holds codes ``0 .. levels -
        1``).
    index : tuple of int
        The features, by position.
    low, high : float, default=0.0, 1.0
        The public range of a scaled column.
    levels : int, default=BINS
        Categories of a ``"category"`` column, or bins of a scaled one.
    """

    name: str
    kind: str
    index: tuple[int, ...]
    low: float = 0.0
    high: float = 1.0
    levels: int = BINS

    def __post_init__(self) -> None:
        check_choice(self.kind, "kind", KINDS)
        if not self.index:
            raise ValueError(f"Column {self.name!r} has no features; give their positions.")

    @property
    def size(self) -> int:
        """Number of cells the column can fall into."""
        if self.kind == "onehot":
            return len(self.index)
        if self.kind == "dummy":
            return len(self.index) + 1
        if self.kind == "binary":
            return 2
        return int(self.levels)

    def codes(self, X: np.ndarray) -> np.ndarray:
        """The column's cell ``0 .. size - 1`` for every record of ``X`` (shape (..., n, d))."""
        values = X[..., list(self.index)]
        if self.kind == "onehot":
            return np.argmax(values, axis=-1)
        if self.kind == "dummy":
            top = np.argmax(values, axis=-1)
            return np.where(np.take_along_axis(values, top[..., None], -1)[..., 0] > 0.5,
                            top + 1, 0)
        value = values[..., 0]
        if self.kind == "binary":
            return (value > 0.5).astype(np.intp)
        if self.kind == "category":
            return np.clip(np.rint(value), 0, self.levels - 1).astype(np.intp)
        width = (self.high - self.low) / self.levels
        return np.clip(np.floor((value - self.low) / width), 0, self.levels - 1).astype(np.intp)


@dataclass(frozen=True)
class Binning:
    """How records (rows of features) become a table of binned columns.

    Attributes
    ----------
    columns : tuple of Column
    offset : ndarray of shape (d,) or None, default=None
        Added to the records before binning (the masking page's public centring undone).
    """

    columns: tuple[Column, ...]
    offset: np.ndarray | None = None

    @property
    def sizes(self) -> np.ndarray:
        """Cells of each column."""
        return np.array([c.size for c in self.columns], dtype=np.intp)

    def codes(self, X) -> np.ndarray:
        """The binned table of records ``X`` (shape (..., n, d)): codes of shape (..., n, c)."""
        X = np.asarray(X, dtype=float)
        if self.offset is not None:
            X = X + self.offset
        return np.stack([c.codes(X) for c in self.columns], axis=-1)


def labelled(binning: Binning, n_classes: int, name: str = "label") -> Binning:
    """``binning`` with one more column after its features: the label, codes ``0 ..
    n_classes - 1`` (records then carry their label as a last feature, ``np.c_[X, y]``).

    >>> labelled(Binning((Column("x", "binary", (0,)),)), 3).sizes.tolist()
    [2, 3]
    """
    d = 1 + max((i for c in binning.columns for i in c.index), default=-1)
    offset = None if binning.offset is None else np.r_[binning.offset, 0.0]
    return Binning((*binning.columns, Column(name, "category", (d,), levels=int(n_classes))),
                   offset)


def default_binning(original: pd.DataFrame, masked: pd.DataFrame | None = None,
                    *, bins: int = BINS) -> tuple[Binning, np.ndarray, np.ndarray | None]:
    """A binning read off the tables themselves, and both tables as feature codes.

    A column that is not numeric, or that holds at most ``bins`` distinct values in the two
    tables together, keeps its values as categories; any other numeric column gets ``bins``
    equal-width bins over the range of the two tables together. It reads the data: for a
    non-private yardstick only (the masking page passes its public :class:`Binning`).

    Returns
    -------
    binning : Binning
        Of ``"category"`` columns, over the returned codes.
    original_codes, masked_codes : ndarray
        Each table as one float feature per column (``masked_codes`` None without ``masked``).
    """
    both = original if masked is None else pd.concat([original, masked], ignore_index=True)
    columns, features = [], []
    for j, name in enumerate(original.columns):
        values = both[name]
        numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(
            values)
        levels = pd.unique(values)
        if numeric and len(levels) > bins:
            x = values.to_numpy(dtype=float)
            low, high = float(np.min(x)), float(np.max(x))
            width = (high - low) / bins if high > low else 1.0
            code = np.clip(np.floor((x - low) / width), 0, bins - 1)
            columns.append(Column(str(name), "category", (j,), levels=bins))
        else:
            code = pd.Categorical(values, categories=levels).codes.astype(float)
            columns.append(Column(str(name), "category", (j,), levels=max(len(levels), 1)))
        features.append(code)
    table = np.column_stack(features) if features else np.empty((len(both), 0))
    n = len(original)
    return (Binning(tuple(columns)), table[:n],
            None if masked is None else table[n:])


def _pairs(c: int) -> tuple[np.ndarray, np.ndarray]:
    first, second = np.triu_indices(c, k=1)
    return first, second


def pair_distances(original_codes, masked_codes, sizes) -> np.ndarray:
    """L1 distance between the 2-way marginal distributions of every pair of columns.

    Parameters
    ----------
    original_codes : ndarray of shape (n, c)
        The original table's cells (:meth:`Binning.codes`).
    masked_codes : ndarray of shape (..., m, c)
        One or more masked tables (leading axes: repetitions, ε, ...).
    sizes : array-like of int of shape (c,)
        Cells of each column.

    Returns
    -------
    ndarray of shape (..., c * (c - 1) / 2)
        ``sum over cells |p - q|`` for pairs ``(i, j)``, ``i < j``, in ``np.triu_indices``
        order: 0 for equal marginals, 2 for disjoint supports.

    Notes
    -----
    A pair's cell is ``code_i * size_j + code_j``, shifted by the pair's offset in one long
    vector of every pair's cells, so a table's marginals are one ``np.bincount``.
    """
    original = np.asarray(original_codes, dtype=np.intp)
    masked = np.asarray(masked_codes, dtype=np.intp)
    sizes = np.asarray(sizes, dtype=np.intp)
    first, second = _pairs(sizes.size)
    if first.size == 0:
        raise DataError("A 2-way marginal needs at least two columns; got "
                        f"{sizes.size}.")
    cells = sizes[first] * sizes[second]
    starts = np.r_[0, np.cumsum(cells)[:-1]]
    total = int(cells.sum())

    def marginals(codes: np.ndarray) -> np.ndarray:
        flat = codes[:, first] * sizes[second] + codes[:, second] + starts
        return np.bincount(flat.ravel(), minlength=total) / codes.shape[0]

    p = marginals(original)
    batch = masked.shape[:-2]
    tables = masked.reshape(-1, *masked.shape[-2:])
    out = np.empty((tables.shape[0], first.size))
    for b, table in enumerate(tables):
        out[b] = np.add.reduceat(np.abs(marginals(table) - p), starts)
    return out.reshape(*batch, first.size)


def k_marginal_scores(original_codes, masked_codes, sizes) -> np.ndarray:
    """SDNist's 2-way k-marginal score of one or more masked tables, from their cells:
    ``(2 - mean of pair_distances) * 500`` (0 to 1000), shape ``masked_codes.shape[:-2]``."""
    return (2.0 - pair_distances(original_codes, masked_codes, sizes).mean(axis=-1)) * 500.0


def _tables(original, masked, binning: Binning | None) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """Both tables' cells and the columns' sizes, binned by ``binning`` or by the tables."""
    if binning is None:
        original = pd.DataFrame(original) if not isinstance(original, pd.DataFrame) else original
        masked = (pd.DataFrame(masked, columns=original.columns)
                  if not isinstance(masked, pd.DataFrame) else masked)
        if list(masked.columns) != list(original.columns):
            raise DataError(f"The masked table has columns {list(masked.columns)}; the original "
                            f"has {list(original.columns)}. Give both the same columns.")
        binning, original, masked = default_binning(original, masked)
    original, masked = np.asarray(original, dtype=float), np.asarray(masked, dtype=float)
    for name, table in (("original", original), ("masked", masked)):
        if table.ndim != 2 or table.shape[0] == 0:
            raise DataError(f"The {name} table must have rows and columns; got shape "
                            f"{table.shape}.")
    if original.shape[1] != masked.shape[1]:
        raise DataError(f"The masked table has {masked.shape[1]} columns; the original has "
                        f"{original.shape[1]}.")
    return binning.codes(original), binning.codes(masked), binning.sizes


def k_marginal_score(original, masked, *, binning: Binning | None = None) -> float:
    """SDNist's 2-way k-marginal score of ``masked`` against ``original`` (0 to 1000).

    Over every pair of columns, the L1 distance ``sum |p - q|`` between the two tables' 2-way
    marginal distributions (0 to 2); the score is ``(2 - mean over pairs) * 500``: 1000 for
    identical marginals, 0 when every pair's supports are disjoint.

    Parameters
    ----------
    original, masked : DataFrame or array-like of shape (n, d) and (m, d)
        The two tables, with the same columns.
    binning : Binning, optional
        How features become binned columns (the masking page's: public groups and ranges).
        By default :func:`default_binning`: each column's values are its categories, or a
        numeric column with more than :data:`BINS` values gets that many equal-width bins.

    Returns
    -------
    float

    References
    ----------
    .. [SDNist] NIST CRC, *SDNist v2*, K-marginal (2-way).

    Examples
    --------
    >>> a = pd.DataFrame({"x": [0, 0, 1, 1], "y": [0, 1, 0, 1]})
    >>> k_marginal_score(a, a)
    1000.0
    >>> k_marginal_score(a, pd.DataFrame({"x": [0, 0], "y": [0, 0]}))  # |1 - 1/4| + 3/4
    250.0
    """
    original_codes, masked_codes, sizes = _tables(original, masked, binning)
    return float(k_marginal_scores(original_codes, masked_codes, sizes))


def exact_match_shares(original_codes, masked_codes) -> np.ndarray:
    """Share of the records of one or more masked tables (shape (..., m, c)) whose cells
    equal those of a record of the original table (shape (n, c)), shape
    ``masked_codes.shape[:-2]``."""
    original = np.asarray(original_codes, dtype=np.int64)
    masked = np.asarray(masked_codes, dtype=np.int64)
    batch, (m, c) = masked.shape[:-2], masked.shape[-2:]
    rows = np.concatenate([original, masked.reshape(-1, c)])
    base = rows.max(axis=0, initial=0) + 1
    if np.sum(np.log2(base)) < 62:  # one int64 per row: code_0 + base_0 (code_1 + ...)
        ids = rows @ np.cumprod(np.r_[1, base[:-1]])
    else:  # too many cells for one integer: number the distinct rows
        ids = np.unique(rows, axis=0, return_inverse=True)[1].ravel()
    seen = np.isin(ids[len(original):], ids[:len(original)])
    return seen.reshape(*batch, m).mean(axis=-1)


def exact_match_share(original, masked, *, binning: Binning | None = None) -> float:
    """Share of ``masked``'s records equal to some record of ``original`` in every binned
    column (0 to 1), with the binning of :func:`k_marginal_score`.

    Examples
    --------
    >>> a = pd.DataFrame({"x": [0, 1], "y": [1, 1]})
    >>> exact_match_share(a, pd.DataFrame({"x": [0, 1, 1, 0], "y": [1, 1, 0, 0]}))
    0.5
    """
    original_codes, masked_codes, _ = _tables(original, masked, binning)
    return float(exact_match_shares(original_codes, masked_codes))


def columns_of(groups: dict[str, Sequence[str]], kinds: dict[str, str],
               features: Sequence[str]) -> tuple[Column, ...]:
    """The columns of an encoded table (:mod:`dpcore.datasets.encoding`'s ``groups`` and
    ``kinds``) among ``features``, each scaled column over the encoding's range [0, 1]."""
    position = {f: i for i, f in enumerate(features)}
    columns = []
    for group, members in groups.items():
        index = tuple(position[m] for m in members if m in position)
        if not index:
            continue
        kind = kinds.get(group, "scaled")
        if kind in ("onehot", "dummy") and len(index) == 1:
            kind = "binary"
        columns.append(Column(str(group), kind, index))
    return tuple(columns)
