"""Equal rows of a table, found by hashing (one job: group the rows that repeat).

One-hot data repeat many records (Adult: 32,561 rows, 18,105 distinct with the label), and the
solvers, distances and counts that read every row cost in proportion to their number. Rows are
grouped by two fixed random projections (a hash, far cheaper than sorting the rows), and the
grouping is verified exactly; a hash collision falls back to :func:`numpy.unique`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["distinct_rows"]


def distinct_rows(X: np.ndarray, y: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``X`` (of ``(X, y)`` when a column ``y`` is given).

    Parameters
    ----------
    X : ndarray of shape (n, q)
    y : ndarray of shape (n,), default=None
        A last column, hashed and compared with ``X`` (not stacked into a copy).

    Returns
    -------
    first : ndarray of int of shape (k,)
        The first row of each distinct row, in order of first appearance.
    inverse : ndarray of int of shape (n,)
        The distinct row of every row: row ``i`` equals row ``first[inverse[i]]``.
    """
    q = X.shape[1]
    hash_ = np.random.default_rng(0).standard_normal((q + (y is not None), 2))  # a fixed hash
    proj = X @ hash_[:q]
    if y is not None:
        proj += y[:, None] * hash_[q]
    inverse = pd.factorize(proj[:, 0] + 1j * proj[:, 1])[0]  # in order of first appearance
    first = np.unique(inverse, return_index=True)[1]
    rep = first[inverse]  # each row's first equal row, if the hash groups exactly
    if np.array_equal(X[rep], X) and (y is None or np.array_equal(y[rep], y)):
        return first, inverse
    rows = X if y is None else np.c_[X, y]  # a hash collision: sort the rows (equal values)
    _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # in order of first appearance, as above
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse.reshape(-1)]
