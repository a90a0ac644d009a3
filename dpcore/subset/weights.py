"""Hybrid weights of public points ([WJ18]_ eq. (3), Definitions 5 and 6) and d(D, E') (eq. 5).

Each private point counts for its nearest public point in L2 (``D_y`` of eq. (3)); the weight of
a public point y is ``|D_y| / n_D``. Nearest points are found for every *prefix* of the public
order at once (the nested candidate subsets of [WJ18]_ Algorithm 2), by a k-d tree in low
dimension and by chunked matrix products otherwise; there is no Python loop over points.

Algorithm 2 ranks E anew at every ε and seed, but the distances do not change:
:func:`neighbour_lists` keeps each distinct private point's :data:`NEIGHBOURS` nearest public
points, sorted and grouped into ties, once per (D, E); :func:`nearest_in_prefixes` then finds the
nearest point of every prefix of any ranking from the ranks of those neighbours (a cumulative
minimum), and computes exactly, as :func:`nearest_public`, only the rows and small prefixes that
none of the neighbours reaches.

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

import functools
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from dpcore.mechanisms import DiscreteLaplace, Laplace
from dpcore.rows import distinct_rows
from dpcore.threads import threads
from dpcore.validation import DataError, check_array, check_epsilon

__all__ = [
    "COUNT_SENSITIVITY",
    "NEIGHBOURING",
    "NEIGHBOURS",
    "TIE_TOL",
    "Neighbours",
    "check_sizes",
    "nearest_in_prefixes",
    "nearest_public",
    "neighbour_lists",
    "hybrid_counts",
    "hybrid_weights",
    "noisy_counts",
    "noisy_weights",
    "skip_laplace_draws",
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
#: Nearest public points listed per distinct private point by :func:`neighbour_lists` (at most).
NEIGHBOURS = 128
#: The matrix method bounds each list by a quantile of about LIST_SAMPLE * NEIGHBOURS public
#: points (:func:`neighbour_lists`).
LIST_SAMPLE = 8
#: Threads that compute the distance blocks of :func:`neighbour_lists` at once.
LIST_THREADS = 2


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
    first, inverse = distinct_rows(X)
    X_distinct = X[first]
    if method == "tree" or (method == "auto" and X.shape[1] <= TREE_MAX_DIM):
        index, sqdist = _nearest_tree(X_distinct, Y, sizes)
    else:
        index, sqdist = _nearest_matrix(X_distinct, Y, sizes)
    return index[inverse], sqdist[inverse]


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


def _block_rows(Y: np.ndarray) -> int:
    """Rows of X per distance block against every row of ``Y`` (:data:`BLOCK_ELEMENTS`)."""
    return max(1, BLOCK_ELEMENTS // Y.shape[0])


def _distance_block(X: np.ndarray, Y: np.ndarray, y2: np.ndarray, lo: int,
                    rows: int) -> np.ndarray:
    """``||y||^2 - 2 x.y`` for the rows ``lo:lo + rows`` of X against every row of Y (BLAS):
    ``||x - y||^2`` up to the row constant ``||x||^2``; ``y2`` holds ``||y||^2``."""
    block = X[lo : lo + rows] @ Y.T
    block *= -2.0
    block += y2
    return block


def _blocks(X: np.ndarray, Y: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """Row blocks ``(lo, ||y||^2 - 2 x.y)`` of X against every row of Y, in order
    (:func:`_distance_block`)."""
    y2 = np.einsum("ij,ij->i", Y, Y)
    rows = _block_rows(Y)
    for lo in range(0, X.shape[0], rows):
        yield lo, _distance_block(X, Y, y2, lo, rows)


def _nearest_matrix(X: np.ndarray, Y: np.ndarray, sizes: np.ndarray):
    n_D, m = X.shape[0], int(sizes[-1])
    x2 = np.einsum("ij,ij->i", X, X)
    starts = np.r_[0, sizes[:-1]]
    index = np.empty((n_D, sizes.size), dtype=np.int64)
    sqdist = np.empty((n_D, sizes.size))
    for lo, block in _blocks(X, Y[:m]):
        hi = lo + block.shape[0]
        best = np.full(block.shape[0], np.inf)
        arg = np.zeros(block.shape[0], dtype=np.int64)
        for j, (a, b) in enumerate(zip(starts, sizes, strict=True)):
            seg = block[:, a:b]
            low = seg.min(axis=1)
            first = np.argmax(seg <= (low + TIE_TOL)[:, None], axis=1) + a  # earliest tie
            better = low < best - TIE_TOL  # a later segment must beat, not tie
            best = np.where(better, low, best)
            arg = np.where(better, first, arg)
            index[lo:hi, j] = arg
            sqdist[lo:hi, j] = best
    sqdist += x2[:, None]
    np.maximum(sqdist, 0.0, out=sqdist)  # rounding of the expansion
    return index, sqdist


@dataclass(frozen=True, eq=False)
class Neighbours:
    """Each distinct private point's nearest public points, sorted and grouped into ties: what
    :func:`nearest_in_prefixes` needs for any ranking of E (:func:`neighbour_lists`).

    Non-private (distances within D and E, without noise): for the computation only, never
    released nor shown.

    Attributes
    ----------
    private : ndarray of shape (n, q)
        The distinct private points.
    inverse : ndarray of int of shape (n_D,)
        Row of ``private`` of every private record.
    public : ndarray of shape (m, q)
        E, in its own order.
    members : ndarray of int32 of shape (n, K)
        Positions in ``public`` of each point's nearest, by increasing squared distance: every
        point up to a bound per row, at most K (0 after a row's last listed point, a slot that
        no complete group holds).
    starts : ndarray of int
        Flat positions (in ``members.ravel()``) where each tie group starts.
    slots : ndarray of int
        For every *complete* group (all of E's points at its distance are listed, ties
        separated from the other groups by more than ``2 TIE_TOL``), its flat position in an
        array of shape ``(n, width)`` with one column per group of a row.
    complete : ndarray of int
        Which groups (positions in ``starts``) are complete.
    group_sqdist : ndarray of shape (n, width)
        Squared distance of each group (inf where a row has fewer groups).
    x2 : ndarray of shape (n,)
        ``||x||^2`` of every distinct private point.
    nearest : ndarray of int of shape (n_D,)
        Every private record's nearest point in all of E (tie rule of the module).
    """

    private: np.ndarray
    inverse: np.ndarray
    public: np.ndarray
    members: np.ndarray
    starts: np.ndarray
    slots: np.ndarray
    complete: np.ndarray
    group_sqdist: np.ndarray
    x2: np.ndarray
    nearest: np.ndarray

    @property
    def width(self) -> int:
        """Most tie groups of one point."""
        return self.group_sqdist.shape[1]

    @functools.cached_property
    def complete_members(self) -> tuple[np.ndarray, np.ndarray]:
        """The members of the complete groups (positions in ``public``), group after group,
        and where each group starts among them: all that :func:`nearest_in_prefixes` reads of
        ``members`` (computed once, then kept with the lists)."""
        n, K = self.members.shape
        sizes = np.diff(np.r_[self.starts, n * K])[self.complete]
        offsets = np.cumsum(sizes) - sizes
        flat = np.repeat(self.starts[self.complete] - offsets, sizes) + np.arange(sizes.sum())
        return self.members.ravel()[flat], offsets


def neighbour_lists(private: Any, public: Any, k: int = NEIGHBOURS, *,
                    method: str = "auto") -> Neighbours:
    """Each distinct private point's ``k`` nearest public points, grouped into ties, and its
    nearest point in all of E: computed once per (D, E), for :func:`nearest_in_prefixes`.

    Parameters
    ----------
    private : array-like of shape (n_D, q)
    public : array-like of shape (m, q)
    k : int, default=NEIGHBOURS
        Most neighbours kept per distinct private point (all of E when m <= k). The tree
        method lists the k nearest; the matrix method every point up to a bound per row that
        leaves about k (:data:`LIST_SAMPLE`), cut at k.
    method : {"auto", "tree", "matrix"}, default="auto"
        As in :func:`nearest_public`; the matrix method reads each distance block once for the
        nearest point and the neighbours.

    Returns
    -------
    Neighbours
        ``nearest`` equals ``nearest_public(private, public)[0][:, 0]``.
    """
    X = check_array(private, "private")
    Y = check_array(public, "public")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"private has {X.shape[1]} columns, public {Y.shape[1]}.")
    if method not in ("auto", "tree", "matrix"):
        raise ValueError(f"method == {method!r}, must be 'auto', 'tree' or 'matrix'.")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ValueError(f"k == {k!r}, must be an integer >= 1.")
    first, inverse = distinct_rows(X)
    X_distinct = X[first]
    n, m = X_distinct.shape[0], Y.shape[0]
    K = min(int(k), m)
    members = np.zeros((n, K), dtype=np.int64)
    sq = np.full((n, K), np.inf)  # inf: fewer than K listed (the row's points up to a bound)
    if method == "tree" or (method == "auto" and X.shape[1] <= TREE_MAX_DIM):
        nearest = _nearest_tree(X_distinct, Y, np.array([m]))[0][:, 0]
        members[:] = cKDTree(Y).query(X_distinct, k=[*range(1, K + 1)])[1]
        diff = X_distinct[:, None, :] - Y[members]
        sq[:] = np.einsum("ijk,ijk->ij", diff, diff) - np.einsum("ij,ij->i", X_distinct,
                                                                X_distinct)[:, None]
        order = np.argsort(sq, axis=1, kind="stable")
        members = np.take_along_axis(members, order, axis=1)
        sq = np.take_along_axis(sq, order, axis=1)
    else:
        nearest = np.empty(n, dtype=np.int64)
        y2, rows = np.einsum("ij,ij->i", Y, Y), _block_rows(Y)

        def fill(lo: int) -> None:  # rows lo:lo + rows of every output: blocks apart
            block = _distance_block(X_distinct, Y, y2, lo, rows)
            low = block.min(axis=1)  # as _nearest_matrix with one prefix, all of E
            nearest[lo : lo + block.shape[0]] = np.argmax(block <= (low + TIE_TOL)[:, None],
                                                          axis=1)
            _list_block(block, members[lo:], sq[lo:])

        # The blocks' BLAS products and numpy passes release the interpreter's lock: two
        # threads use two cores (each block's numbers are the same as in one thread).
        with ThreadPoolExecutor(threads(LIST_THREADS)) as pool:
            list(pool.map(fill, range(0, n, rows)))  # raises a block's error, if any
    starts, slots, complete, group_sqdist = _tie_groups(sq, listed_all=K == m)
    return Neighbours(X_distinct, inverse, Y, members.astype(np.int32), starts, slots,
                      complete, group_sqdist, np.einsum("ij,ij->i", X_distinct, X_distinct),
                      nearest[inverse])


def _list_block(block: np.ndarray, members: np.ndarray, sq: np.ndarray) -> None:
    """Fill the first rows of ``members`` and ``sq`` with each row's smallest entries of
    ``block``, sorted, at most K: every entry up to a bound per row, cut at K. The bound is a
    low quantile of a sample of every ``stride``-th column, set so that about K entries fall
    below it (far cheaper to find than the K-th smallest; a row may list fewer)."""
    K, m = members.shape[1], block.shape[1]
    stride = max(1, m // (LIST_SAMPLE * K))
    sample = block[:, ::stride]
    kth = min(max(0, round(K / stride) - 1), sample.shape[1] - 1)
    bound = np.partition(sample, kth, axis=1)[:, kth]
    flat = np.flatnonzero(block <= bound[:, None])
    rows, cols = np.divmod(flat, m)
    values = block.ravel()[flat]
    by_row = np.lexsort((values, rows))
    rows, cols, values = rows[by_row], cols[by_row], values[by_row]
    count = np.bincount(rows, minlength=block.shape[0])
    place = np.arange(rows.size) - (np.cumsum(count) - count)[rows]
    keep = place < K
    members[rows[keep], place[keep]] = cols[keep]
    sq[rows[keep], place[keep]] = values[keep]


def _tie_groups(sq: np.ndarray, *, listed_all: bool) -> tuple:
    """Tie groups of each row of sorted (squared) distances, inf after a row's last listed
    point: runs whose adjacent gaps are at most ``TIE_TOL``. A group is *complete* when no
    unlisted point can be at its distance or tie with it: it is not the row's last listed group
    (unless the list holds all of E), and the row's groups are clear-cut (each within
    ``TIE_TOL / 4``, apart by more than ``2 TIE_TOL``), so that rounding in another order of the
    same sums cannot regroup them."""
    n, K = sq.shape
    listed = np.isfinite(sq)
    new = np.ones((n, K), dtype=bool)
    with np.errstate(invalid="ignore"):
        new[:, 1:] = (np.diff(sq, axis=1) > TIE_TOL) & listed[:, 1:]
    starts = np.flatnonzero(new.ravel())
    row = starts // K
    col = np.cumsum(new, axis=1).ravel()[starts] - 1
    ends = np.r_[starts[1:], n * K] - 1  # last member of each group
    flat = sq.ravel()
    real = np.isfinite(flat[starts])
    ends = np.where(real & ~np.isfinite(flat[ends]),
                    starts + listed.sum(axis=1)[row] - (starts - row * K) - 1, ends)
    spread = flat[ends] - flat[starts]
    apart = np.ones(starts.size, dtype=bool)
    previous = np.flatnonzero(row[1:] == row[:-1]) + 1
    apart[previous] = flat[starts[previous]] - flat[ends[previous - 1]] > 2.0 * TIE_TOL
    clear = np.ones(n, dtype=bool)
    np.logical_and.at(clear, row, ~real | ((spread <= TIE_TOL / 4) & apart))
    count = np.bincount(row[real], minlength=n)  # listed groups per row
    last = col >= count[row] - 1
    complete = np.flatnonzero(real & clear[row] & (~last | listed_all))
    width = max(1, int(count.max()))
    group_sqdist = np.full((n, width), np.inf)
    group_sqdist[row[real], col[real]] = flat[starts[real]]
    return starts, row[complete] * width + col[complete], complete, group_sqdist


def nearest_in_prefixes(neighbours: Neighbours, order: Any, sizes: Sequence[int], *,
                        distinct: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """:func:`nearest_public` of the private points within every prefix of ``public[order]``,
    from :func:`neighbour_lists`.

    For a prefix of size s, a point's nearest is its first complete tie group with a member
    ranked below s, and within it the member ranked first (the module's tie rule): with each
    group's best rank, a cumulative minimum over the groups gives every prefix at once. The
    (row, prefix) pairs that no complete group reaches, a prefix of the sizes per row, are
    computed exactly by :func:`nearest_public`'s matrix method on those rows.

    Parameters
    ----------
    neighbours : Neighbours
    order : array-like of int of shape (m,)
        A permutation of E's points: the ranking whose prefixes are the candidates.
    sizes : sequence of int
        Increasing prefix sizes (:func:`check_sizes`).
    distinct : bool, default=False
        Return the rows of the distinct private points (``neighbours.private``, shape (n, k))
        instead of every record's; weigh them by ``np.bincount(neighbours.inverse)``.

    Returns
    -------
    index, sqdist : ndarray of shape (n_D, k)
        As :func:`nearest_public` of ``(private, public[order], sizes)``: positions in the
        ranked order and squared distances (the same up to the rounding of the distance sums;
        the same positions whenever ties are clear-cut, as the groups here are).
    """
    m = neighbours.public.shape[0]
    order = np.asarray(order)
    if order.shape != (m,) or not np.array_equal(np.sort(order), np.arange(m)):
        raise ValueError(f"order must be a permutation of the {m} public points.")
    sizes = check_sizes(sizes, m)
    n, width, k = neighbours.private.shape[0], neighbours.width, sizes.size
    rank_type = np.int32 if m < 2**31 else np.int64  # half the memory traffic of int64
    rank = np.empty(m, dtype=rank_type)
    rank[order] = np.arange(m, dtype=rank_type)
    members, group_starts = neighbours.complete_members
    best = (np.minimum.reduceat(rank[members], group_starts) if group_starts.size
            else np.empty(0, dtype=rank_type))
    first = np.full(n * width, m, dtype=rank_type)  # m: no complete group there
    first[neighbours.slots] = best
    first = np.minimum.accumulate(first.reshape(n, width), axis=1)
    # Group g serves the prefixes j with first[g] < sizes[j]; the first such group is the
    # nearest, so group g is passed over by prefix j iff bucket[g] > j. Every row has width
    # slots (bucket k where no complete group is: m >= every size).
    bucket = np.searchsorted(sizes, first, side="right")
    hist = np.bincount((np.arange(n)[:, None] * (k + 1) + bucket).ravel(),
                       minlength=n * (k + 1)).reshape(n, k + 1)
    passed = width - np.cumsum(hist[:, :k], axis=1)  # (n, k): groups passed over
    at = np.minimum(passed, width - 1)
    at += (np.arange(n) * width)[:, None]  # flat positions in (n, width)
    index = first.ravel()[at].astype(np.int64)
    sqdist = neighbours.group_sqdist.ravel()[at]
    sqdist += neighbours.x2[:, None]
    np.maximum(sqdist, 0.0, out=sqdist)
    missing = (passed == width).sum(axis=1)  # prefixes 0..missing-1 that no group reaches
    # One product per group of rows whose exact prefixes need about as many columns (a factor
    # of 4 at most): far cheaper than one per row, or than every row to the largest.
    need = np.log(sizes[np.maximum(missing, 1) - 1]) // np.log(4.0)
    for level in np.unique(need[missing > 0]):
        rows = np.flatnonzero((missing > 0) & (need == level))
        u = int(missing[rows].max())
        exact = _nearest_matrix(neighbours.private[rows],
                                neighbours.public[order[: sizes[u - 1]]], sizes[:u])
        fill = np.arange(u) < missing[rows, None]
        index[rows, :u] = np.where(fill, exact[0], index[rows, :u])
        sqdist[rows, :u] = np.where(fill, exact[1], sqdist[rows, :u])
    if distinct:
        return index, sqdist
    return index[neighbours.inverse], sqdist[neighbours.inverse]


def hybrid_counts(index: np.ndarray, n_public: int, copies: np.ndarray | None = None) -> np.ndarray:
    """Counts ``|D_y|`` per public point and prefix, shape (m, k), from :func:`nearest_public`.

    ``copies``: how many private records each row of ``index`` stands for (the distinct points
    of :func:`nearest_in_prefixes` with ``distinct=True``); None: one each.
    """
    index = np.asarray(index)
    k = index.shape[1]
    flat = (index + np.arange(k) * n_public).ravel()
    weights = None if copies is None else np.repeat(np.asarray(copies, dtype=float), k)
    return np.bincount(flat, weights, minlength=n_public * k).reshape(k, n_public).T.astype(float)


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


def skip_laplace_draws(gen: np.random.Generator, count: int) -> None:
    """Advance a study's generator past ``count`` Laplace draws (the study noise of
    :func:`noisy_counts` on ``count`` values) without computing them: the draws after them are
    the same as if they had been made.

    numpy draws each Laplace value from one uniform double, and draws again only when that
    double is exactly 0 (probability 2^-53 each); the uniforms here are drawn the same way, and
    on a 0 the generator is put back and the Laplace values are drawn after all
    (``tests/test_subset_fits.py`` compares the states with a full draw).
    """
    state = gen.bit_generator.state
    if np.any(gen.random(int(count)) == 0.0):
        gen.bit_generator.state = state
        gen.laplace(size=int(count))


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


def distance_to_subset(sqdist: np.ndarray, copies: np.ndarray | None = None) -> np.ndarray:
    """``d(D, E')`` of [WJ18]_ eq. (5) per prefix: the mean distance of a private point to its
    nearest point of ``E'``, from the squared distances of :func:`nearest_public`.

    ``copies``: as in :func:`hybrid_counts`. Non-private (computed from D without noise).
    """
    if copies is None:
        return np.sqrt(np.asarray(sqdist)).mean(axis=0)
    return copies @ np.sqrt(np.asarray(sqdist)) / np.sum(copies)
