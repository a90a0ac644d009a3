"""Greedy growth of the masked set ([PGY]_ Algorithm 1, step 3; eqs. (4)-(5)), batched over draws.

Label convention (see :mod:`dpcore.masking.model`): integer codes ``0 .. C-1``; ``K = 1`` weight
row with ``p = sigmoid(w.x)`` for two classes, ``K = C`` rows with ``p = softmax(W x)`` otherwise;
residual ``r(x) = p(x) - t`` with ``t = y`` (binary) or ``t = e_y``.

Eq. (4), written for a minimisation: the masked set ``S`` should zero the gradient of the *summed*
regularised objective of ``N`` records at the noisy classifier ``W'``,
``G(S) = sum_{i in S} r_i x_i^T + N lam W'``. With ``G`` the current value, a new sample
``(x, y)`` is chosen to minimise::

    f(x) = ||G + r(x) x^T||_F^2 = ||G||^2 + 2 r^T G x + ||r||^2 ||x||^2.

Its gradient (the corrected eq. (5) and its C-class form), with ``M = G + r x^T`` and the
Jacobian of the probabilities ``A = diag(p) - p p^T`` (``p (1 - p)`` for one sigmoid row),
``dr/dx = A W``::

    grad f(x) = 2 (W^T A M x + M^T r),   M x = G x + r ||x||^2,   M^T r = G^T r + ||r||^2 x.

The paper's eq. (5) multiplies by ``(y - p) I - (w^T x) p (1 - p) I``, a multiple of the identity;
the Jacobian of ``r(x) x`` is ``r I + p (1 - p) x w^T``, which is what is used here (see
``docs/paper-notes.md``).

How labels are chosen: for every new sample all ``C`` labels are tried, each from ``n_starts``
starting points (the previous sample, the origin, and random points of the ball), and the
(label, point) pair with the smallest ``f`` is added. The
search runs projected backtracking gradient descent on every candidate of every draw at once:
each iteration tries ``x - t grad f(x)`` (projected onto the ball of radius ``radius``, the
domain of a record after scaling, when ``radius`` is finite), keeps it if it decreases ``f`` by
the Armijo amount ``1e-4 ||x_new - x||^2 / t`` and doubles ``t``, else halves ``t`` and tries
again (a backtracking search spread over iterations, vectorised across candidates).

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithm 1 and
   eqs. (3)-(5).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dpcore.masking.model import one_blas_thread

__all__ = ["GreedyResult", "greedy_masked_batches", "greedy_masked_samples", "masking_objective"]

#: Armijo constant of the backtracking search.
ARMIJO = 1e-4


#: Axes this short or shorter are summed by :func:`_sum1` one entry at a time.
_SHORT = 8


def _sum1(A, keepdims=False):
    """``np.add.reduce(A, axis=1)`` of an array ``A`` of shape (R, k, M), the same numbers.

    With ``M >= 2`` numpy's reduce over the middle axis adds its ``k`` entries one after the
    other, as this does; for a short axis and small arrays (the search's: ``k`` classes or
    features, ``M`` candidates) one vector addition per entry takes a third of its time. Long
    axes and ``M == 1`` (where numpy's reduce adds in another order) go to numpy.
    """
    k = A.shape[1]
    if k > _SHORT or A.shape[-1] < 2:
        return np.add.reduce(A, axis=1, keepdims=keepdims)
    out = A[:, :1].copy() if keepdims else A[:, 0].copy()
    for i in range(1, k):
        out += A[:, i:i + 1] if keepdims else A[:, i]
    return out


def _max1(A, keepdims=False):
    """``A.max(axis=1)`` of an array ``A`` of shape (R, k, M) (a maximum is exact: any order of
    comparisons gives it), one comparison per entry for a short axis, as :func:`_sum1`."""
    k = A.shape[1]
    if k > _SHORT:
        return A.max(axis=1, keepdims=keepdims)
    out = A[:, :1].copy() if keepdims else A[:, 0].copy()
    for i in range(1, k):
        np.maximum(out, A[:, i:i + 1] if keepdims else A[:, i], out=out)
    return out


def _stack(W, G):
    """``[W; G]`` of shape (R, 2K, d) and its transpose, for one product each way."""
    WG = np.concatenate([W, G], axis=1)
    return WG, np.ascontiguousarray(np.swapaxes(WG, 1, 2))


def _evaluate(X, WG, WGt, GG, T, K):
    """``f`` of eq. (4) and its gradient for candidates ``X`` of shape (R, d, M).

    Candidates run along the *last* axis, so every sum over classes or features is a reduction
    over a leading axis, vectorised across candidates. ``WG = [W; G]`` (R, 2K, d) and its
    transpose (:func:`_stack`); ``GG``: (R,) = ``||G||^2``; ``T``: targets (K, M), shared across
    draws. Returns ``f`` (R, M) and the gradient (R, d, M).
    """
    ZG = WG @ X  # (R, 2K, M): the logits W x, then G x
    Z, Gx = ZG[:, :K], ZG[:, K:]
    if K == 1:
        P = 1.0 / (1.0 + np.exp(-Z))
    else:
        P = np.exp(Z - _max1(Z, keepdims=True))
        P /= _sum1(P, keepdims=True)
    r = P - T
    xx = _sum1(X * X)  # (R, M)
    rr = _sum1(r * r)
    f = GG[:, None] + 2.0 * _sum1(r * Gx) + rr * xx
    Mx = Gx + r * xx[:, None]
    if K == 1:
        AMx = P * (1.0 - P) * Mx
    else:
        AMx = P * (Mx - _sum1(P * Mx, keepdims=True))
    grad = WGt @ np.concatenate([AMx, r], axis=1)  # W^T A M x + G^T r
    grad += X * rr[:, None]
    grad *= 2.0
    return f, grad


def masking_objective(x, y: int, coef, G) -> tuple[float, np.ndarray]:
    """``f(x)`` of eq. (4) and its gradient (corrected eq. (5)) for one candidate.

    Parameters
    ----------
    x : array-like of shape (n_features,)
    y : int
        Label code of the candidate.
    coef : array-like of shape (K, n_features)
        Noisy classifier ``W'`` (``K = 1`` binary).
    G : array-like of shape (K, n_features)
        Current summed gradient ``sum_{i in S} r_i x_i^T + N lam W'``.

    Returns
    -------
    f : float
    grad : ndarray of shape (n_features,)

    Examples
    --------
    >>> f, g = masking_objective([0.0, 0.0], 1, [[1.0, -1.0]], [[0.5, 0.5]])
    >>> float(f), g.tolist()
    (0.5, [-0.5, -0.5])
    """
    W = np.asarray(coef, dtype=float)[None]
    G = np.asarray(G, dtype=float)[None]
    K = W.shape[1]
    T = np.array([[float(y)]]) if K == 1 else (np.arange(K) == y)[:, None].astype(float)
    f, grad = _evaluate(np.asarray(x, dtype=float)[None, :, None], *_stack(W, G),
                        np.sum(G * G, axis=(-2, -1)), T, K)
    return float(f[0, 0]), grad[0, :, 0]


def _project(X, radius, fixed=None):
    """Project candidates (R, d, M) onto the ball of ``radius`` (nothing when infinite); with
    ``fixed``, onto its section where the last coordinate is ``fixed`` (that coordinate set,
    the others projected onto the ball of radius ``sqrt(radius^2 - fixed^2)``)."""
    if fixed is not None:
        X = X.copy()
        X[:, -1] = fixed
        return np.concatenate([_project(X[:, :-1], _free_radius(radius, fixed)), X[:, -1:]],
                              axis=1)
    if not np.isfinite(radius):
        return X
    norm = np.sqrt(_sum1(X * X, keepdims=True))
    return X * np.minimum(1.0, radius / np.maximum(norm, 1e-300))


def _free_radius(radius, fixed):
    """Radius left to the free coordinates when the last one is ``fixed``."""
    return np.sqrt(max(radius**2 - fixed**2, 0.0)) if np.isfinite(radius) else radius


def _ball(rng, R, d, M, radius, fixed=None):
    """Uniform points in the ball of ``radius`` (unit ball when unbounded), shape (R, d, M);
    with ``fixed``, in its section where the last coordinate is ``fixed``."""
    if fixed is not None:
        free = _ball(rng, R, d - 1, M, _free_radius(radius, fixed))
        return np.concatenate([free, np.full((R, 1, M), float(fixed))], axis=1)
    U = rng.standard_normal((R, d, M))
    U /= np.sqrt(np.add.reduce(U * U, axis=1, keepdims=True))
    rho = rng.random((R, 1, M)) ** (1.0 / d)
    return U * rho * (radius if np.isfinite(radius) else 1.0)


@dataclass(frozen=True)
class GreedyResult:
    """Samples added by :func:`greedy_masked_samples`.

    Attributes
    ----------
    X : ndarray of shape (R, n_add, n_features)
        New masked samples in order of addition.
    y : ndarray of shape (R, n_add)
        Their label codes.
    G : ndarray of shape (R, K, n_features)
        Summed gradient of the final set at ``W'``.
    trace : ndarray of shape (R, n_add + 1)
        ``||G||`` before the first and after every addition.
    """

    X: np.ndarray
    y: np.ndarray
    G: np.ndarray
    trace: np.ndarray


def greedy_masked_samples(W, G0, n_add: int, *, n_classes: int, rng: np.random.Generator,
                          n_starts: int = 8, max_iter: int = 10,
                          radius: float = 1.0, fixed: float | None = None,
                          callback: Callable[[int, int], None] | None = None) -> GreedyResult:
    """Add ``n_add`` samples to each of ``R`` masked sets greedily ([PGY]_ Algorithm 1, step 3).

    Parameters
    ----------
    W : ndarray of shape (R, K, n_features)
        Noisy classifiers ``W'``, one per draw.
    G0 : ndarray of shape (R, K, n_features)
        Summed gradient of the initial set plus ``N lam W'``.
    n_add : int
        Samples to add to each set.
    n_classes : int
        ``C``; every label ``0 .. C-1`` is tried for every new sample.
    rng : numpy.random.Generator
        Draws the starting points (already resolved by the caller).
    n_starts : int, default=8
        Starting points per label: the previous sample (a warm start), the origin (``f =
        ||G||^2`` there and the search only descends, so with ``n_starts >= 2`` the gradient
        norm never grows), and ``n_starts - 2`` points uniform in the ball of ``radius``.
    max_iter : int, default=10
        Backtracking gradient steps per sample.
    radius : float, default=1.0
        Samples are kept in this ball (the scaled record domain); ``inf`` for the paper's
        unconstrained search.
    fixed : float or None, default=None
        The last coordinate of every sample is this constant (the model's intercept column,
        :func:`dpcore.masking.generator.design_records`); the search runs over the others, in
        the ball's section. Its "origin" start is then ``(0, ..., 0, fixed)``.
    callback : callable(j, n_add), default=None
        Called before sample ``j`` is searched (for a progress bar).

    Returns
    -------
    GreedyResult
    """
    return greedy_masked_batches([(W, G0, n_add, rng)], n_classes=n_classes, n_starts=n_starts,
                                 max_iter=max_iter, radius=radius, fixed=fixed,
                                 callback=callback)[0]


def greedy_masked_batches(batches: Sequence[tuple[np.ndarray, np.ndarray, int,
                                                  np.random.Generator]],
                          *, n_classes: int, n_starts: int = 8, max_iter: int = 10,
                          radius: float = 1.0, fixed: float | None = None,
                          callback: Callable[[int, int], None] | None = None
                          ) -> list[GreedyResult]:
    """:func:`greedy_masked_samples` for several batches of masked sets in one loop.

    Each batch ``(W, G0, n_add, rng)`` gets the result :func:`greedy_masked_samples` gives it
    alone (each draws its starting points from its own ``rng``, in the same order, and every
    row's arithmetic is the same), but the batches' steps run together: ``max(n_add)`` steps in
    all, every step on the rows of the batches that still add a sample, instead of
    ``sum(n_add)`` steps one batch after the other.

    Parameters
    ----------
    batches : sequence of (W, G0, n_add, rng)
        As the parameters of :func:`greedy_masked_samples`, per batch (the ``R`` may differ,
        ``K`` and ``n_features`` must not).
    n_classes, n_starts, max_iter, radius, fixed
        As for :func:`greedy_masked_samples`, shared by the batches.
    callback : callable(j, n_steps), default=None
        Called before step ``j`` of ``n_steps = max(n_add)``.

    Returns
    -------
    list of GreedyResult
        One per batch, in the order given.
    """
    with one_blas_thread():  # many tiny products: one thread
        return _greedy([(np.asarray(W, dtype=float), np.array(G0, dtype=float), int(n_add), rng)
                        for W, G0, n_add, rng in batches],
                       n_classes, n_starts, max_iter, radius, fixed, callback)


def _greedy(batches, n_classes, n_starts, max_iter, radius, fixed, callback
            ) -> list[GreedyResult]:
    """Implementation of :func:`greedy_masked_batches`.

    The batches' rows are stacked longest ``n_add`` first, so that the rows still searching at
    any step are a prefix of the stack (views, no copies)."""
    if fixed is not None and np.isfinite(radius) and abs(fixed) > radius:
        raise ValueError(f"fixed == {fixed:g} lies outside the ball of radius {radius:g}.")
    order = sorted(range(len(batches)), key=lambda b: -batches[b][2])  # stable
    W = np.concatenate([batches[b][0] for b in order])
    G = np.concatenate([batches[b][1] for b in order])
    _, K, d = W.shape
    C = n_classes
    S = n_starts
    labels = np.repeat(np.arange(C), S)  # candidate m has label labels[m]
    T = labels[None].astype(float) if K == 1 else (np.arange(K)[:, None] == labels) * 1.0
    M = labels.size
    sizes = [len(batches[b][0]) for b in order]
    ends = np.cumsum(sizes)
    n_adds = [batches[b][2] for b in order]
    rngs = [batches[b][3] for b in order]
    n_steps = max(n_adds, default=0)
    # Every row's samples, labels and trace in one array each (a row leaves when its batch
    # has added all its samples), split by batch at the end.
    out_X = np.empty((len(W), n_steps, d))
    out_y = np.empty((len(W), n_steps), dtype=np.intp)
    trace = np.empty((len(W), n_steps + 1))
    trace[:, 0] = np.sqrt(np.sum(G * G, axis=(-2, -1)))
    warm = np.concatenate([_ball(rng, R, d, 1, radius, fixed)
                           for rng, R in zip(rngs, sizes, strict=True)])
    scale = radius if np.isfinite(radius) else 1.0
    for j in range(n_steps):
        if callback is not None:
            callback(j, n_steps)
        active = sum(1 for n in n_adds if n > j)  # the batches still adding: a prefix
        A = int(ends[active - 1])
        Wa, Ga = W[:A], G[:A]
        X = np.concatenate([_ball(rngs[i], sizes[i], d, M, radius, fixed)
                            for i in range(active)]) if active > 1 else _ball(
            rngs[0], sizes[0], d, M, radius, fixed)
        X[:, :, ::S] = warm[:A]  # the first start of every label: the previous winner
        if S > 1:  # the second: the origin, where f = ||G||^2, so no step can make G worse
            X[:, :, 1::S] = 0.0  # (with a fixed intercept column: the section's centre)
            if fixed is not None:
                X[:, -1, 1::S] = fixed
        GG = np.sum(Ga * Ga, axis=(-2, -1))
        WG, WGt = _stack(Wa, Ga)
        f, grad = _evaluate(X, WG, WGt, GG, T, K)
        gnorm = np.sqrt(_sum1(grad * grad))
        t = 0.5 * scale / np.maximum(gnorm, 1e-12)  # first step moves at most half the radius
        for _ in range(max_iter):
            X_try = _project(X - t[:, None] * grad, radius, fixed)
            f_try, grad_try = _evaluate(X_try, WG, WGt, GG, T, K)
            step = X_try - X
            ok = f_try <= f - ARMIJO * _sum1(step * step) / t
            okd = ok[:, None]
            np.copyto(X, X_try, where=okd)  # the candidates whose step is kept move
            np.copyto(grad, grad_try, where=okd)
            np.copyto(f, f_try, where=ok)
            t = np.where(ok, 2.0 * t, 0.5 * t)
        best = np.argmin(f, axis=1)
        x_new = X[np.arange(A), :, best]  # (A, d)
        z = np.einsum("rkd,rd->rk", Wa, x_new)
        p = 1.0 / (1.0 + np.exp(-z)) if K == 1 else np.exp(z - z.max(axis=1, keepdims=True))
        p = p if K == 1 else p / p.sum(axis=1, keepdims=True)
        r_new = p - T[:, best].T  # (A, K)
        Ga += r_new[:, :, None] * x_new[:, None, :]
        out_X[:A, j], out_y[:A, j] = x_new, labels[best]
        trace[:A, j + 1] = np.sqrt(np.sum(Ga * Ga, axis=(-2, -1)))
        warm[:A] = x_new[:, :, None]
    results = [GreedyResult(out_X[end - R:end, :n].copy(), out_y[end - R:end, :n].copy(),
                            G[end - R:end].copy(), trace[end - R:end, :n + 1].copy())
               for R, end, n in zip(sizes, ends, n_adds, strict=True)]
    return [results[order.index(b)] for b in range(len(batches))]
