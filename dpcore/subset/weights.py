"""Hybrid weights of public points ([WJ18]_ eq. (3), Definitions 5 and 6) and d(D, E') (eq. 5).

Each private point counts for its nearest public point in L2 (``D_y`` of eq. (3)); the weight of
a public point y is ``|D_y| / n_D``. Nearest points are found for every *prefix* of the public
order at once (the nested candidate subsets of [WJ18]_ Algorithm 2), by a k-d tree in low
dimension and by chunked matrix products otherwise; there is no Python loop over points.

Tie rule
--------
A private point at the same distance from several public points (up to ``TIE_TOL`` in squared
distance) counts for the one that comes *first in the public order* (for a candidate subset, the
one ranked higher). The rule looks only at that private point and E, so every private point maps
to exactly one public point: replacing one record moves one unit of count from one public point
to another, and the count vector has L1 sensitivity 2 ([WJ18]_ Proposition 1).

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3), Sect. 3.1 and 4.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from dpcore.mechanisms import DiscreteLaplace, Laplace
from dpcore.validation import DataError, check_array, check_epsilon

__all__ = [
    "COUNT_SENSITIVITY",
    "NEIGHBOURING",
    "TIE_TOL",
    "check_sizes",
    "nearest_public",
    "hybrid_counts",
    "hybrid_weights",
    "noisy_counts",
    "noisy_weights",
    "distance_to_subset",
]

#: Squared distances closer than this are a tie (broken by the public order).
TIE_TOL = 1e-9
#: L1 sensitivity of the count vector (|D_y|)_y under replace-one ([WJ18]_ Proposition 1).
COUNT_SENSITIVITY = 2.0
#: The neighbouring relation of every mechanism in this package.
NEIGHBOURING = "replace one private record (n_D fixed)"
#: Dimension up to which a k-d tree is used; above it, chunked matrix products.
TREE_MAX_DIM = 8
#: Elements of a distance block of the matrix method (about 32 MB in float64).
BLOCK_ELEMENTS = 4_000_000


def check_sizes(sizes: Any, n_public: int) -> np.ndarray:
    """``sizes`` as an int array if they increase strictly from 1 to at most ``n_public``.

    Candidate sizes of nested subsets ``public[:n]`` (:func:`nearest_public`, [WJ18]_
    Algorithm 2 step 4). Raises ``TypeError`` for anything but a 1D sequence of integers,
    ``ValueError`` when they do not increase, and :class:`~dpcore.validation.DataError` when the
    largest exceeds the ``n_public`` distinct public points.

    >>> check_sizes([10, 60], 100).tolist()
    [10, 60]
    """
    arr = np.asarray(sizes)
    if arr.ndim != 1 or arr.size < 1 or arr.dtype.kind not in "iu":
        raise TypeError(f"sizes must be a 1D sequence of integers, got {sizes!r}.")
    if np.any(np.diff(arr) <= 0) or arr[0] < 1:
        raise ValueError(f"sizes must increase strictly from >= 1, got {arr.tolist()[:6]}...")
    if arr[-1] > n_public:
        raise DataError(
            f"The largest candidate size {arr[-1]} exceeds the {n_public} distinct public "
            "points; trim the grid."
        )
    return arr.astype(int)


def nearest_public(
    private: Any, public: Any, sizes: Sequence[int] | None = None, *, method: str = "auto"
) -> tuple[np.ndarray, np.ndarray]:
    """Nearest public point of every private point within each prefix ``public[:n]``.

    Parameters
    ----------
    private : array-like of shape (n_D, q)
    public : array-like of shape (m, q)
        Public points in the order that defines the prefixes (and breaks ties).
    sizes : sequence of int, default=None
        Increasing prefix sizes ``n_1 < ... < n_k <= m``; None means ``[m]``.
    method : {"auto", "tree", "matrix"}, default="auto"
        ``"tree"``: a :class:`scipy.spatial.cKDTree` per prefix (fast for q <= 8);
        ``"matrix"``: blocks of ``-2 x.y + ||y||^2`` (BLAS), one pass for all prefixes.

    Returns
    -------
    index : ndarray of int of shape (n_D, k)
        Position in ``public`` of the nearest point within each prefix (tie rule: module doc).
    sqdist : ndarray of shape (n_D, k)
        The squared distance to it.
    """
    X = check_array(private, "private")
    Y = check_array(public, "public")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"private has {X.shape[1]} columns, public {Y.shape[1]}.")
    sizes = np.array([Y.shape[0]]) if sizes is None else check_sizes(sizes, Y.shape[0])
    if method not in ("auto", "tree", "matrix"):
        raise ValueError(f"method == {method!r}, must be 'auto', 'tree' or 'matrix'.")
    # Equal private points have equal nearest points: search once per distinct point (one-hot
    # data repeat many records, e.g. Adult's 20,688 private rows hold far fewer distinct ones).
    X_distinct, inverse = _distinct(X)
    if method == "tree" or (method == "auto" and X.shape[1] <= TREE_MAX_DIM):
        index, sqdist = _nearest_tree(X_distinct, Y, sizes)
    else:
        index, sqdist = _nearest_matrix(X_distinct, Y, sizes)
    return index[inverse], sqdist[inverse]


def _distinct(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of X and the map back, by hashing rows with two fixed projections
    (verified exactly; a collision falls back to :func:`numpy.unique`)."""
    proj = X @ np.random.default_rng(0).standard_normal((X.shape[1], 2))  # a fixed hash
    codes, _ = pd.factorize(proj[:, 0] + 1j * proj[:, 1])
    first = np.unique(codes, return_index=True)[1]
    if np.array_equal(X[first][codes], X):
        return X[first], codes
    distinct, inverse = np.unique(X, axis=0, return_inverse=True)
    return distinct, inverse.reshape(-1)


def _nearest_tree(X: np.ndarray, Y: np.ndarray, sizes: np.ndarray):
    """A k-d tree per segment ``[n_{j-1}, n_j)`` of the order, combined by a running minimum."""
    n_D = X.shape[0]
    index = np.empty((n_D, sizes.size), dtype=np.int64)
    sqdist = np.empty((n_D, sizes.size))
    best = np.full(n_D, np.inf)
    arg = np.zeros(n_D, dtype=np.int64)
    for j, (a, b) in enumerate(zip(np.r_[0, sizes[:-1]], sizes, strict=True)):
        seg = Y[a:b]
        if b - a == 1:
            low, first = np.sum((X - seg[0]) ** 2, axis=1), np.zeros(n_D, dtype=np.int64)
        else:
            dist, idx = cKDTree(seg).query(X, k=2)
            d2 = dist**2
            low, first = d2[:, 0], idx[:, 0]
            tied = np.flatnonzero(d2[:, 1] - d2[:, 0] <= TIE_TOL)
            if tied.size:  # two or more at the minimum: resolve exactly by the order
                i2, s2 = _nearest_matrix(X[tied], seg, np.array([b - a]))
                low[tied], first[tied] = s2[:, 0], i2[:, 0]
        better = low < best - TIE_TOL  # a later segment must beat, not tie
        best = np.where(better, low, best)
        arg = np.where(better, first + a, arg)
        index[:, j], sqdist[:, j] = arg, best
    return index, sqdist


def _nearest_matrix(X: np.ndarray, Y: np.ndarray, sizes: np.ndarray):
    n_D, m = X.shape[0], int(sizes[-1])
    Y = Y[:m]
    y2 = np.einsum("ij,ij->i", Y, Y)
    x2 = np.einsum("ij,ij->i", X, X)
    starts = np.r_[0, sizes[:-1]]
    index = np.empty((n_D, sizes.size), dtype=np.int64)
    sqdist = np.empty((n_D, sizes.size))
    rows = max(1, BLOCK_ELEMENTS // m)
    for lo in range(0, n_D, rows):
        block = X[lo : lo + rows] @ Y.T
        block *= -2.0
        block += y2  # ||y||^2 - 2 x.y: ||x - y||^2 up to the row constant ||x||^2
        best = np.full(block.shape[0], np.inf)
        arg = np.zeros(block.shape[0], dtype=np.int64)
        for j, (a, b) in enumerate(zip(starts, sizes, strict=True)):
            seg = block[:, a:b]
            low = seg.min(axis=1)
            first = np.argmax(seg <= (low + TIE_TOL)[:, None], axis=1) + a  # earliest tie
            better = low < best - TIE_TOL  # a later segment must beat, not tie
            best = np.where(better, low, best)
            arg = np.where(better, first, arg)
            index[lo : lo + rows, j] = arg
            sqdist[lo : lo + rows, j] = best
    sqdist += x2[:, None]
    np.maximum(sqdist, 0.0, out=sqdist)  # rounding of the expansion
    return index, sqdist


def hybrid_counts(index: np.ndarray, n_public: int) -> np.ndarray:
    """Counts ``|D_y|`` per public point and prefix, shape (m, k), from :func:`nearest_public`."""
    index = np.asarray(index)
    k = index.shape[1]
    flat = (index + np.arange(k) * n_public).ravel()
    return np.bincount(flat, minlength=n_public * k).reshape(k, n_public).T.astype(float)


def hybrid_weights(private: Any, public: Any, *, method: str = "auto") -> np.ndarray:
    """Non-private hybrid weights ``w_y = |D_y| / n_D`` of [WJ18]_ eq. (3); they sum to 1.

    Computed from the private data without noise: for studies and comparisons only, never to
    be released (:func:`noisy_weights` is the release).

    Examples
    --------
    >>> hybrid_weights([[0.0], [0.2], [0.9]], [[0.0], [1.0]]).tolist()
    [0.6666666666666666, 0.3333333333333333]
    """
    index, _ = nearest_public(private, public, method=method)
    return hybrid_counts(index, np.asarray(public).shape[0])[:, 0] / index.shape[0]


def noisy_counts(counts: Any, epsilon: float, *, rng: Any = None) -> np.ndarray:
    """``|D_y| + Z_y``, every count with noise of scale ``2/epsilon`` ([WJ18]_ Def. 5).

    ``rng=None`` is a release: exact *discrete* Laplace noise on the integer counts
    (:class:`~dpcore.mechanisms.DiscreteLaplace`, fresh OS entropy; integers in, integers out).
    A seed or Generator is a study: the paper's Laplace, drawn by numpy. Sensitivity
    :data:`COUNT_SENSITIVITY` under replace-one (see :func:`noisy_weights`).
    """
    counts = np.asarray(counts, dtype=float)
    if rng is None:
        mech = DiscreteLaplace(epsilon, COUNT_SENSITIVITY, neighbouring=NEIGHBOURING)
        return mech.release(counts).astype(float)
    mech = Laplace(epsilon, COUNT_SENSITIVITY, neighbouring=NEIGHBOURING)
    return mech.randomise(counts, rng=rng)


def noisy_weights(
    counts: Any, n_private: int, epsilon: float, *, truncate: bool = True, rng: Any = None
) -> np.ndarray:
    """DP weights ``(|D_y| + Z_y) / n_D`` with ``Z_y ~ Laplace(2/epsilon)`` ([WJ18]_ Def. 5).

    Parameters
    ----------
    counts : array-like of shape (m,) or (m, R)
        Counts ``|D_y|`` (columns: independent releases, each epsilon-DP).
    n_private : int
        n_D, public under replace-one.
    epsilon : float
        Privacy loss of each column.
    truncate : bool, default=True
        Replace negative weights by 0 ([WJ18]_ Definition 6; post-processing).
    rng : None, int or numpy.random.Generator, default=None
        None: a release, whose noise is the exact *discrete* Laplace of the same scale on the
        integer counts (:class:`~dpcore.mechanisms.DiscreteLaplace`, fresh OS entropy); a seed or
        Generator: a study (the paper's Laplace, numpy).

    Notes
    -----
    Neighbouring relation: replace one private record. Sensitivity: one record moves one unit
    of count between two public points, so the L1 change of the count vector is at most 2
    (:data:`COUNT_SENSITIVITY`). The counts are exact integers: no numerical error.
    """
    w = noisy_counts(counts, check_epsilon(epsilon), rng=rng) / n_private
    return np.maximum(w, 0.0) if truncate else w


def distance_to_subset(sqdist: np.ndarray) -> np.ndarray:
    """``d(D, E')`` of [WJ18]_ eq. (5) per prefix: the mean distance of a private point to its
    nearest point of ``E'``, from the squared distances of :func:`nearest_public`.

    Non-private (computed from D without noise).
    """
    return np.sqrt(np.asarray(sqdist)).mean(axis=0)
