"""Many objective-perturbation fits at once: exact Newton with one Hessian per fit, vectorised.

Objective perturbation's noise moves every fit far from the non-private one when ``n lam`` is
small, so the shared-Hessian iteration of :class:`dpcore.logistic.BatchedProblem` contracts
slowly there. For small ``d`` this module runs exact Newton on all fits together: the ``K``
Hessians ``Z^T diag(c_k) Z + lam I`` come from one matrix product with the rows' outer products
(shape ``(n, d^2)``), the steps from one batched solve, and a vectorised Armijo line search.
For larger ``d`` (more than :data:`MAX_OUTER` numbers in the outer products) it hands over to
:class:`~dpcore.logistic.BatchedProblem` with the noise vectors as per-replicate linear terms.

Each fit is certified like :func:`dpcore.logistic.fit_logistic`: ``||grad||^2 / (2 lam) <= tol *
n`` for the summed objective, i.e. an objective gap <= ``tol`` for the averaged one.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from dpcore.logistic import BatchedProblem

__all__ = ["MAX_OUTER", "Fits", "fit_linear_terms", "fit_penalties"]

#: Largest ``n_rows * d^2`` for which exact batched Newton forms the rows' outer products.
MAX_OUTER = 4_000_000


def _objectives(Z, y, S, W, lam, B) -> np.ndarray:
    M = Z @ W
    return S @ (np.logaddexp(0.0, M) - y[:, None] * M) + 0.5 * lam * np.sum(W * W, 0) + np.sum(
        B * W, 0)


def _shared_steps_single(Z, y, s, W, B, lam, H_inv, tol_abs, max_iter: int = 30) -> None:
    """Shared-Hessian steps in float32 on ``W`` (in place) while they contract the gap.

    Half the cost of float64 steps; a fit leaves when its float32 gap is below ``tol_abs`` or
    stops shrinking fourfold (a step that raised it is undone). The float64 loop certifies.
    """
    Z32, y32, s32 = Z.astype(np.float32), y.astype(np.float32), s.astype(np.float32)
    H32, B32 = H_inv.astype(np.float32), B.astype(np.float32)
    W32 = W.astype(np.float32)
    active = np.arange(W.shape[1])
    last = np.full(W.shape[1], np.inf, dtype=np.float32)
    previous = W32.copy()
    for _ in range(max_iter):
        Wa = W32[:, active]
        M = Z32 @ Wa
        np.negative(M, out=M)
        with np.errstate(over="ignore"):  # exp -> inf gives the right limit 0
            np.exp(M, out=M)
        M += 1.0
        np.reciprocal(M, out=M)  # sigmoid
        M -= y32[:, None]
        M *= s32[:, None]
        G = Z32.T @ M + lam * Wa + B32[:, active]
        gap = np.sum(G * G, 0) / (2.0 * lam)
        worse = gap > last[active]
        W32[:, active[worse]] = previous[:, active[worse]]
        go = ~worse & (gap > tol_abs) & (gap < 0.25 * last[active])
        go |= ~worse & ~np.isfinite(last[active])
        last[active] = gap
        active, G = active[go], G[:, go]
        if active.size == 0:
            break
        previous[:, active] = W32[:, active]
        W32[:, active] -= H32 @ G
    W[:] = W32


def _gaps(Z, y, s, W, B, lam) -> np.ndarray:
    """Certified gaps ``||grad||^2 / (2 lam)`` of every column of W, in float64."""
    P = expit(Z @ W)
    G = Z.T @ (s[:, None] * (P - y[:, None])) + lam * W + B
    return np.sum(G * G, 0) / (2.0 * lam)


def _polish(Z, y, s, w, lam, b, tol_abs, max_iter: int = 50) -> np.ndarray:
    """Exact Newton on one fit, with a line search that tolerates the rounding of the objective.

    For the few fits the batched iterations leave above ``tol_abs``.
    """
    for _ in range(max_iter):
        p = expit(Z @ w)
        g = Z.T @ (s * (p - y)) + lam * w + b
        if g @ g / (2.0 * lam) <= tol_abs:
            break
        H = (Z * (s * p * (1.0 - p))[:, None]).T @ Z
        H[np.diag_indices_from(H)] += lam
        step = np.linalg.solve(H, g)
        f = _objectives(Z, y, s, w[:, None], lam, b[:, None])[0]
        t = 1.0
        for _ in range(40):
            f_new = _objectives(Z, y, s, (w - t * step)[:, None], lam, b[:, None])[0]
            if f_new <= f - 1e-4 * t * (g @ step) + 1e-13 * abs(f):
                break
            t *= 0.5
        w = w - t * step
    return w


@dataclass(frozen=True)
class Fits:
    """Minimisers of many objectives and their certified gaps (summed objective).

    Attributes
    ----------
    coef : ndarray of shape (K, d)
    gaps : ndarray of shape (K,)
        ``||grad||^2 / (2 lam)`` at each ``coef``: ``J(coef) - min J`` is at most this.
    tol_abs : float or ndarray of shape (K,)
        The gap asked for (``tol`` times the total weight), of every fit or of each.
    """

    coef: np.ndarray
    gaps: np.ndarray
    tol_abs: float | np.ndarray

    @property
    def certified(self) -> bool:
        """Whether every fit reached the asked-for gap."""
        return bool(np.all(self.gaps <= self.tol_abs))


def fit_linear_terms(problem: BatchedProblem, *, lam: float, linear: np.ndarray, tol: float,
                     coef_init: np.ndarray | None = None, max_iter: int = 60) -> Fits:
    """Minimise ``sum_i s_i logloss_i(w) + lam/2 ||w||^2 + b_k.w`` for every column ``b_k``.

    Parameters
    ----------
    problem : BatchedProblem
        De-duplicated design, 0/1 labels and one weight column.
    lam : float
        Penalty of the summed objective (``n`` times that of the averaged one).
    linear : ndarray of shape (d, K)
    tol : float
        Certified gap relative to the total weight, as in :func:`dpcore.logistic.fit_logistic`.
    coef_init : ndarray of shape (d,), default=None
        Fit without a linear term, if known (the iteration starts one shared step from it).
    max_iter : int, default=60

    Returns
    -------
    Fits
        Fits still above the gap after the batched iterations are finished one by one by exact
        Newton; :attr:`Fits.certified` says whether all of them reached it (rounding can stop a
        fit with a tiny ``lam`` short of a very small ``tol``).
    """
    Z, y = problem.design.X, problem.y
    n, d = Z.shape
    if problem.S.shape[1] != 1:
        raise ValueError("fit_linear_terms needs a problem with one weight column.")
    s = problem.S[:, 0]
    B = np.asarray(linear, dtype=float)
    tol_abs = tol * float(problem.scale[0])
    if n * d * d > MAX_OUTER:
        with warnings.catch_warnings():  # stragglers are finished and checked below
            warnings.simplefilter("ignore", RuntimeWarning)
            W = problem.fit(lam=lam, linear=B, coef_init=coef_init, tol=tol).T.copy()
    else:
        W = _batched_newton(problem, lam, B, tol_abs, coef_init, max_iter)
    return _certified(Z, y, s, W, B, lam, tol_abs)


def _certified(Z, y, s, W, B, lam, tol_abs) -> Fits:
    """The float64 gaps of every column of W; a column above its ``tol_abs`` is finished by
    exact Newton (:func:`_polish`). ``lam`` and ``tol_abs``: one number, or one per column."""
    lam = np.broadcast_to(np.asarray(lam, dtype=float), (W.shape[1],))
    asked = np.broadcast_to(np.asarray(tol_abs, dtype=float), (W.shape[1],))
    gaps = _gaps(Z, y, s, W, B, lam)
    for j in np.flatnonzero(gaps > asked):
        W[:, j] = _polish(Z, y, s, W[:, j], lam[j], B[:, j], asked[j])
        gaps[j] = _gaps(Z, y, s, W[:, j:j + 1], B[:, j:j + 1], lam[j])[0]
    return Fits(W.T, gaps, tol_abs)


def fit_penalties(problem: BatchedProblem, *, lams, groups, linear: np.ndarray,
                  tol, centres=None) -> Fits:
    """:func:`fit_linear_terms` for fits that differ in their penalty too, in one batch.

    Fit ``j`` minimises ``sum_i s_i logloss_i(w) + lams[g]/2 ||w||^2 + b_j.w`` (``g =
    groups[j]``, ``b_j = linear[:, j]``) to a certified gap of ``tol[g]`` times the total
    weight: :meth:`~dpcore.logistic.BatchedProblem.fit_penalties` (one shared Hessian per
    penalty, one product with the design per step for every fit), then the float64 check and
    exact Newton of :func:`fit_linear_terms` (:func:`_polish`, whose line search tolerates the
    objective's rounding) for any fit still above its gap.

    Parameters
    ----------
    problem : BatchedProblem
        De-duplicated design, 0/1 labels and one weight column.
    lams : array-like of shape (L,)
        Penalties of the summed objective.
    groups : array-like of int, shape (K,)
        Each fit's penalty (an index into ``lams``).
    linear : ndarray of shape (d, K)
    tol : array-like of shape (L,)
        Certified gap of each penalty's fits, relative to the total weight.
    centres : array-like of shape (d, L), default=None
        The linear term without noise of each penalty's fits: their shared Hessian is taken
        near its fit (None: near the fit with their mean linear term).

    Returns
    -------
    Fits
        ``tol_abs`` per fit.
    """
    Z, y = problem.design.X, problem.y
    s = problem.S[:, 0]
    B = np.asarray(linear, dtype=float)
    lams = np.asarray(lams, dtype=float)
    groups = np.asarray(groups, dtype=int)
    tol = np.broadcast_to(np.asarray(tol, dtype=float), lams.shape)
    with warnings.catch_warnings():  # stragglers are finished and checked below
        warnings.simplefilter("ignore", RuntimeWarning)
        W = problem.fit_penalties(lams=lams, groups=groups, linear=B, tol=tol,
                                  centres=centres, finish=False).T.copy()
    return _certified(Z, y, s, W, B, lams[groups], tol[groups] * float(problem.scale[0]))


def _batched_newton(problem, lam, B, tol_abs, coef_init, max_iter) -> np.ndarray:
    """Shared-Hessian steps, then exact Newton with one Hessian per fit, all vectorised."""
    Z, y = problem.design.X, problem.y
    n, d = Z.shape
    s = problem.S[:, 0]
    K = B.shape[1]
    outer = (Z[:, :, None] * Z[:, None, :]).reshape(n, d * d)
    outer32 = outer.astype(np.float32)  # Newton directions only; the float64 gradient certifies
    eye = lam * np.eye(d)
    if coef_init is None:
        coef_init = problem.fit(lam=lam, tol=1e-6)[0]
    p0 = expit(Z @ coef_init)
    H0 = (outer.T @ (s * p0 * (1 - p0))).reshape(d, d) + eye
    g0 = Z.T @ (s * (p0 - y)) + lam * coef_init
    H0_inv = np.linalg.inv(H0)
    W = coef_init[:, None] - H0_inv @ (g0[:, None] + B)  # one shared Newton step
    _shared_steps_single(Z, y, s, W, B, lam, H0_inv, tol_abs)
    active = np.arange(K)
    done = np.zeros(K, dtype=bool)
    newton = np.zeros(K, dtype=bool)  # switched to exact Newton (sticky)
    last = np.full(K, np.inf)
    for _ in range(max_iter):
        Wa, Ba = W[:, active], B[:, active]
        P = expit(Z @ Wa)
        G = Z.T @ (s[:, None] * (P - y[:, None])) + lam * Wa + Ba
        gap = np.sum(G * G, 0) / (2.0 * lam)
        done[active[gap <= tol_abs]] = True
        # the shared Hessian is kept while it contracts the gap fast enough
        newton[active[gap > 0.1 * last[active]]] = True
        last[active] = gap
        keep = ~done[active]
        if not keep.any():
            break
        active, Wa, Ba, P, G = active[keep], Wa[:, keep], Ba[:, keep], P[:, keep], G[:, keep]
        shared = ~newton[active]
        W[:, active[shared]] = Wa[:, shared] - H0_inv @ G[:, shared]
        exact = ~shared
        if not exact.any():
            continue
        cols, Wa, Ba, P, G = active[exact], Wa[:, exact], Ba[:, exact], P[:, exact], G[:, exact]
        C = s[:, None] * P * (1.0 - P)
        H = (outer32.T @ C.astype(np.float32)).T.reshape(-1, d, d) + eye
        step = np.linalg.solve(H, G.T[:, :, None])[:, :, 0].T  # (d, k)
        f = _objectives(Z, y, s, Wa, lam, Ba)
        slope = np.sum(G * step, 0)
        t = np.ones(cols.size)
        for _ in range(30):  # vectorised Armijo backtracking
            f_new = _objectives(Z, y, s, Wa - t * step, lam, Ba)
            # Armijo, up to the rounding of f (near the minimum only the gradient is exact)
            bad = f_new > f - 1e-4 * t * slope + 1e-13 * np.abs(f)
            if not bad.any():
                break
            t[bad] *= 0.5
        W[:, cols] = Wa - t * step
    return W
