"""L2-regularised logistic regression with sample weights and a linear term, single and batched.

The objective, for labels ``y`` in {0, 1}, non-negative sample weights ``s``, ``lam > 0`` and an
optional linear term ``b`` (objective perturbation, [CM08]_ Algorithm 2), is::

    J(w) = sum_i s_i * (log(1 + exp(x_i.w)) - y_i * x_i.w) + lam/2 ||w||^2 + b.w

No intercept is added: append a constant column if you want one (it is then penalised like every
other component, as the privacy proofs assume). ``J`` is ``lam``-strongly convex, so Newton's
method with a backtracking line search converges from anywhere.

:func:`fit_logistic_batched` fits one weight vector per column of a weight matrix (for example
bootstrap counts, shape ``(n, R)``) at once: a quasi-Newton iteration whose Hessian is shared by all
replicates (the Hessian at the fit on the mean weights), so each step is two matrix products and
one triangular solve for all ``R`` replicates; stragglers fall back to exact Newton.

References
----------
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.special import expit

from dpcore.rows import distinct_rows
from dpcore.validation import check_array, check_scalar

#: Objective tolerance of the rough fit whose Hessian the batched solver shares.
W0_TOL = 1e-6

__all__ = ["LogisticFit", "BatchedProblem", "logistic_objective", "logistic_gradient",
           "fit_logistic", "fit_logistic_batched"]

@dataclass(frozen=True)
class LogisticFit:
    """Result of :func:`fit_logistic`: the minimiser, the iterations used and its certified gap.

    ``gap`` bounds ``J(coef) - min J`` by ``||grad J(coef)||^2 / (2 lam)`` (strong convexity).
    """

    coef: np.ndarray
    n_iter: int
    gap: float


class _Design:
    """The design matrix and the products the solvers need."""

    def __init__(self, X) -> None:
        self.X = check_array(X, "X")
        self.n, self.d = self.X.shape

    @functools.cached_property
    def X32(self) -> np.ndarray:
        """Single-precision copy for the batched solver's bulk iterations."""
        return self.X.astype(np.float32)

    def dot(self, W: np.ndarray) -> np.ndarray:
        return self.X @ W

    def hessian(self, w: np.ndarray, s: np.ndarray, lam: float,
                single: bool = False) -> np.ndarray:
        """Exact Hessian of the objective at ``w``.

        ``single=True`` forms it in float32, for the batched solver's shared Hessian: it only
        sets step directions, never the accuracy, which the float64 gradient certifies.
        """
        p = expit(self.dot(w))
        c = s * p * (1.0 - p)
        X = self.X32 if single else self.X
        H = ((X * c.astype(X.dtype)[:, None]).T @ X).astype(float)
        H[np.diag_indices_from(H)] += lam
        return H


def _merge_duplicates(X: np.ndarray, y: np.ndarray, S: np.ndarray):
    """Merge rows with equal (x, y), summing their weights: the objective is unchanged.

    One-hot data repeats many records (Adult: 32,561 rows, 18,105 distinct with the label), and
    every step of the batched solver costs in proportion to the number of rows
    (:func:`~dpcore.rows.distinct_rows`).
    """
    first, inverse = distinct_rows(X, y)
    if first.size == X.shape[0]:
        return X, y, S
    merge = sp.csr_matrix((np.ones(X.shape[0]), (inverse, np.arange(X.shape[0]))),
                          shape=(first.size, X.shape[0]))
    return X[first], y[first], np.asarray(merge @ S)


def _check_problem(design: _Design, y, sample_weight, lam, linear):
    """``y``, ``sample_weight``, ``lam`` and ``linear`` checked against ``design`` (0/1 labels
    and finite weights >= 0, one per row; a linear term per feature, zeros for None)."""
    y = np.asarray(y, dtype=float).reshape(-1)
    if y.shape[0] != design.n:
        raise ValueError(f"y has {y.shape[0]} entries but X has {design.n} rows.")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must hold labels 0 and 1 only.")
    lam = check_scalar(lam, "lam", min_val=0.0)
    if linear is None:
        linear = np.zeros(design.d)
    else:
        linear = np.asarray(linear, dtype=float).reshape(-1)
        if linear.shape[0] != design.d:
            raise ValueError(f"linear has {linear.shape[0]} entries, expected {design.d}.")
    if sample_weight is None:
        sample_weight = np.ones(design.n)
    sample_weight = np.asarray(sample_weight, dtype=float)
    if sample_weight.shape[0] != design.n:
        raise ValueError(f"sample_weight has {sample_weight.shape[0]} rows, X has {design.n}.")
    if not np.all(np.isfinite(sample_weight)) or np.any(sample_weight < 0):
        raise ValueError("sample_weight must be finite and >= 0.")
    return y, sample_weight, lam, linear


def _objective(design: _Design, w, y, s, lam, linear) -> float:
    z = design.dot(w)
    return float(s @ (np.logaddexp(0.0, z) - y * z) + 0.5 * lam * (w @ w) + linear @ w)


def _sigmoid_inplace(Z: np.ndarray) -> None:
    """``Z <- 1 / (1 + exp(-Z))`` without temporaries; faster than ``expit`` on large arrays.

    ``exp`` overflows to inf for very negative ``Z``, which gives the correct limit 0.
    """
    with np.errstate(over="ignore"):
        np.negative(Z, out=Z)
        np.exp(Z, out=Z)
    Z += 1.0
    np.reciprocal(Z, out=Z)


def _gradient(design: _Design, W, y, S, lam, linear, single: bool = False) -> np.ndarray:
    """Gradient for one (W of shape (d,)) or many (W of shape (d, R), S of shape (n, R)) fits.

    For many fits ``S`` may also have one column (shared weights) and ``linear`` shape (d, R)
    (one linear term per fit).

    ``single=True`` forms the products in float32 (``S`` must then be float32): twice as fast,
    accurate to about 1e-7 relative, and only used before a float64 check.
    """
    X = design.X32 if single else design.X
    residual = X @ W.astype(X.dtype, copy=False)
    _sigmoid_inplace(residual)
    residual -= y if W.ndim == 1 else y[:, None]
    residual *= S
    G = (X.T @ residual).astype(float)
    G += lam * W
    G += linear if W.ndim == 1 or linear.ndim == 2 else linear[:, None]
    return G


def _gap_bound(G: np.ndarray, lam: float) -> np.ndarray:
    """Certified sub-optimality ``J(w) - min J <= ||grad||^2 / (2 lam)`` (strong convexity)."""
    return np.sum(G * G, axis=0) / (2.0 * lam)


def logistic_objective(coef, X, y, sample_weight=None, *, lam: float, linear=None) -> float:
    """Value of the objective ``J`` (module docstring) at ``coef``."""
    design = _Design(X)
    y, s, lam, linear = _check_problem(design, y, sample_weight, lam, linear)
    return _objective(design, np.asarray(coef, dtype=float), y, s, lam, linear)


def logistic_gradient(coef, X, y, sample_weight=None, *, lam: float, linear=None) -> np.ndarray:
    """Gradient of the objective ``J`` at ``coef``."""
    design = _Design(X)
    y, s, lam, linear = _check_problem(design, y, sample_weight, lam, linear)
    return _gradient(design, np.asarray(coef, dtype=float), y, s, lam, linear)


def _newton(design, y, s, lam, linear, w, tol, max_iter,
            single: bool = False) -> tuple[LogisticFit, np.ndarray | None]:
    """Newton's method with Armijo backtracking; also returns the last Hessian it formed.

    Stops when the gap is at most ``tol`` times the total weight (at least 1), or when no step
    decreases the objective any more (rounding); warns if that leaves the gap above it.
    """
    tol_abs = tol * max(1.0, float(s.sum()))
    f = _objective(design, w, y, s, lam, linear)
    H = None
    for it in range(1, max_iter + 1):
        g = _gradient(design, w, y, s, lam, linear)
        gap = float(_gap_bound(g, lam))
        if gap <= tol_abs:
            return LogisticFit(w, it - 1, gap), H
        H = design.hessian(w, s, lam, single)
        step = scipy.linalg.solve(H, g, assume_a="pos")
        t, slope = 1.0, float(g @ step)
        while True:  # Armijo backtracking; J is strongly convex, so this terminates.
            w_new = w - t * step
            f_new = _objective(design, w_new, y, s, lam, linear)
            if f_new <= f - 1e-4 * t * slope or t < 1e-10:
                break
            t *= 0.5
        if t < 1e-10:  # rounding: the objective cannot decrease any further
            break
        w, f = w_new, f_new
    gap = float(_gap_bound(_gradient(design, w, y, s, lam, linear), lam))
    if gap > tol_abs:
        warnings.warn(f"Newton's method stopped after {it} steps with objective gap {gap:.2g}, "
                      f"above the tolerance {tol_abs:.2g}; raise max_iter or lam.",
                      RuntimeWarning, stacklevel=3)
    return LogisticFit(w, it, gap), H


def fit_logistic(X, y, sample_weight=None, *, lam: float, linear=None, coef_init=None,
                 tol: float = 1e-10, max_iter: int = 100) -> LogisticFit:
    """Minimise ``J`` (module docstring) by Newton's method with a line search.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels in {0, 1}.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights ``s_i`` (ones when None).
    lam : float
        Strength of the L2 penalty ``lam/2 ||w||^2``, > 0.
    linear : array-like of shape (n_features,), default=None
        Linear term ``b`` of the objective ([CM08]_ Algorithm 2).
    coef_init : array-like of shape (n_features,), default=None
        Starting point (zeros when None).
    tol : float, default=1e-10
        Stop when the certified sub-optimality ``||grad J||^2 / (2 lam)`` is at most
        ``tol * max(1, sum(sample_weight))``: the objective is then within that of its minimum
        (relative to the total weight, which sets the objective's scale; with weights summing
        to at most 1, as in the importance-weighting objective, an absolute ``tol``).
    max_iter : int, default=100
    """
    design = _Design(X)
    y, s, lam, linear = _check_problem(design, y, sample_weight, lam, linear)
    X_m, y, S = _merge_duplicates(design.X, y, s[:, None])
    w = np.zeros(design.d) if coef_init is None else np.array(coef_init, dtype=float)
    return _newton(_Design(X_m), y, S[:, 0], lam, linear, w, tol, max_iter)[0]


class BatchedProblem:
    """One design and many weight columns, validated and de-duplicated once, fitted at any lam.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels in {0, 1}.
    sample_weights : array-like of shape (n_samples, n_reps)
        One column of non-negative weights per replicate (for example bootstrap counts).
    merge : bool, default=True
        Merge rows with equal (x, y). False skips the search for them, for callers whose rows
        are distinct (the objectives are the same either way).

    Notes
    -----
    Rows with equal (x, y) are merged and their weights summed, which leaves every objective
    unchanged; reusing the problem across values of ``lam`` (a slider, a grid) pays for that once.
    """

    def __init__(self, X, y, sample_weights, *, merge: bool = True) -> None:
        design = _Design(X)
        S = np.asarray(sample_weights, dtype=float)
        if S.ndim != 2 or S.shape[0] != design.n:
            raise ValueError(
                f"sample_weights must have shape (n_samples, n_reps) = ({design.n}, R), "
                f"got {S.shape}."
            )
        y, _, _, _ = _check_problem(design, y, S[:, 0], 1.0, None)
        if not np.all(np.isfinite(S)) or np.any(S < 0):
            raise ValueError("sample_weights must be finite and >= 0.")
        X_m, self.y, self.S = _merge_duplicates(design.X, y, S) if merge else (design.X, y, S)
        self.design = _Design(X_m)
        self.S32, self.y32 = self.S.astype(np.float32), self.y.astype(np.float32)
        self.s_mean = self.S.mean(axis=1)
        self.scale = np.maximum(1.0, self.S.sum(axis=0))  # tolerances are relative to this

    @property
    def n_reps(self) -> int:
        return self.S.shape[1]

    def fit(self, *, lam: float, linear=None, coef_init=None, tol: float = 1e-10,
            max_iter: int = 50, refresh: int = 0) -> np.ndarray:
        """Minimisers of every replicate's objective, shape (n_reps, n_features).

        Each step updates every unconverged replicate ``r`` by ``w_r -= H^{-1} g_r`` with one
        shared Hessian ``H``, the Hessian near the fit on the mean weights (at ``coef_init`` if
        given, else Newton's last one). Bootstrap replicates lie close to that fit, so the
        iteration contracts quickly; a replicate whose certified gap stops shrinking is finished
        by exact Newton. Every returned fit has a certified gap ``||grad||^2 / (2 lam)`` of at
        most ``tol`` times its total weight (at least 1), as in :func:`fit_logistic`.

        ``linear`` may have shape (n_features,) (shared) or (n_features, R): one linear term per
        replicate, for objective perturbation ([CM08]_ Algorithm 2) with one noise vector per
        (epsilon, restart) pair. With a single weight column, R fits share that column (the
        result then has R rows); otherwise R must equal ``n_reps``. The shared Hessian is then
        taken near the fit with the mean linear term.

        ``refresh`` > 0 takes the shared Hessian again after that many steps, at the mean of
        the replicates' iterates (for replicates far from ``coef_init``, such as fits of
        noisy weights, it then suits them better); 0 keeps the first one throughout. Only the
        path changes: every fit keeps its certified gap.
        """
        design, y = self.design, self.y
        linear, n_reps = self._check_linear(linear)
        _, _, lam, mean_linear = _check_problem(design, y, self.s_mean, lam,
                                                linear.mean(axis=1) if linear.ndim == 2 else linear)
        if linear.ndim == 1:
            linear = mean_linear
        H = None
        if coef_init is None:  # the shared Hessian needs w0 only roughly
            fit, H = _newton(design, y, self.s_mean, lam, mean_linear, np.zeros(design.d),
                             W0_TOL, 100, single=True)
            w0 = fit.coef
        else:
            w0 = np.asarray(coef_init, dtype=float)
        if H is None:
            H = design.hessian(w0, self.s_mean, lam, single=True)
        h_inv = np.linalg.inv(H)  # H >= lam I: well conditioned, and d is small
        # First step: every replicate starts at w0, so one sigmoid over n values serves all.
        residual = (expit(design.dot(w0)) - y).astype(np.float32)[:, None] * self.S32
        step = (design.X32.T @ residual).astype(float) + (lam * w0)[:, None]
        step = step + (linear if linear.ndim == 2 else linear[:, None])
        W = w0[:, None] - h_inv @ step  # shape (d, n_reps)
        # Bulk of the steps in float32, then float64 steps until every gap is certified.
        self._iterate(W, lam, linear, h_inv, tol, refresh or max_iter, single=True)
        if refresh:
            h_inv = np.linalg.inv(design.hessian(W.mean(axis=1), self.s_mean, lam, single=True))
            self._iterate(W, lam, linear, h_inv, tol, max_iter, single=True)
        self._iterate(W, lam, linear, h_inv, tol, max_iter, single=False)
        return W.T

    def _check_linear(self, linear) -> tuple[np.ndarray, int]:
        """The linear term as shape (d,) or (d, R), and the number of fits it asks for.

        A (d, R) term gives replicate ``r`` its own linear term ``linear[:, r]`` (objective
        perturbation: one noise vector per replicate). With a single weight column the R fits
        share it; otherwise R must equal the number of weight columns.
        """
        d = self.design.d
        if linear is None:
            return np.zeros(d), self.n_reps
        linear = np.asarray(linear, dtype=float)
        if linear.ndim != 2:
            return linear.reshape(-1), self.n_reps
        if linear.shape[0] != d or linear.shape[1] < 1:
            raise ValueError(f"linear must have shape ({d},) or ({d}, n_reps), "
                             f"got {linear.shape}.")
        if self.n_reps not in (1, linear.shape[1]):
            raise ValueError(f"linear has {linear.shape[1]} columns but sample_weights has "
                             f"{self.n_reps}; pass one column of each per replicate, or a "
                             "single weight column shared by every linear term.")
        if not np.all(np.isfinite(linear)):
            raise ValueError("linear must be finite.")
        return linear, linear.shape[1]

    def fit_penalties(self, *, lams, groups, linear, tol, centres=None, coef_init=None,
                      max_iter: int = 50, finish: bool = True) -> np.ndarray:
        """Minimisers of many objectives that differ in their penalty and their linear term,
        one weight column shared by all, shape (K, n_features).

        Fit ``j`` minimises ``J`` (module docstring) at ``lam = lams[groups[j]]`` with the
        linear term ``linear[:, j]``, to a certified gap of at most ``tol[groups[j]]`` times the
        total weight (at least 1), as in :func:`fit_logistic`. The fits of one group share one
        Hessian: the exact Hessian (float32) at the group's fit with its mean linear term,
        found by Newton's method to :data:`W0_TOL` (or at the group's fit with the linear term
        ``centres[:, g]``), the groups taken from the largest penalty down, each starting from
        the one before (from ``coef_init``, else 0, for the first). Where the linear terms are
        noise, a centre without noise is the better start: the mean of a few large noise vectors
        can put the shared Hessian where the sigmoids are flat, and its steps then overshoot.
        Then every fit of every group takes shared-Hessian steps together, as in :meth:`fit`:
        one product with the design per step for all K fits (a study of many penalties, each
        with a few noise vectors, e.g. :func:`dpcore.perturbation.amp.amp_study`), a fit whose
        gap stops shrinking finished by exact Newton.

        Parameters
        ----------
        lams : array-like of shape (L,)
            Penalties, > 0.
        groups : array-like of int, shape (K,)
            The group (index into ``lams``) of each fit; every group has at least one fit.
        linear : array-like of shape (n_features, K)
        tol : array-like of shape (L,)
            Certified gap of each group, relative to the total weight.
        centres : array-like of shape (n_features, L), default=None
            The linear term of each group's start; None: the mean of its columns.
        coef_init : array-like of shape (n_features,), default=None
        max_iter : int, default=50
        finish : bool, default=True
            Finish the fits whose gap stopped shrinking by exact Newton (:func:`fit_logistic`'s
            line search); False leaves them where they stopped, above their gap, for the caller
            to finish (:func:`dpcore.perturbation.solver.fit_penalties`, whose line search
            tolerates the rounding of a large objective, where a gap far below that rounding
            is asked for).
        """
        if self.n_reps != 1:
            raise ValueError("fit_penalties needs a problem with one weight column.")
        design, y, s = self.design, self.y, self.S[:, 0]
        lams = np.array([check_scalar(float(v), "lam", min_val=0.0) for v in lams])
        groups = np.asarray(groups, dtype=int).reshape(-1)
        linear = np.asarray(linear, dtype=float)
        if linear.shape != (design.d, groups.size) or not np.all(np.isfinite(linear)):
            raise ValueError(f"linear must be finite, of shape ({design.d}, {groups.size}) (one "
                             f"column per fit), got {linear.shape}.")
        if groups.size == 0 or np.any((groups < 0) | (groups >= lams.size)) or \
                np.unique(groups).size != lams.size:
            raise ValueError(f"groups must name each of the {lams.size} penalties, with indices "
                             f"in [0, {lams.size}).")
        tol = np.broadcast_to(np.asarray(tol, dtype=float), lams.shape)
        h_inv = np.empty((lams.size, design.d, design.d))
        starts = np.empty((design.d, lams.size))
        w = np.zeros(design.d) if coef_init is None else np.asarray(coef_init, dtype=float)
        for g in np.argsort(-lams, kind="stable"):  # the largest penalty first
            centre = (linear[:, groups == g].mean(axis=1) if centres is None
                      else np.asarray(centres, dtype=float)[:, g])
            w = starts[:, g] = _newton(design, y, s, lams[g], centre, w, W0_TOL, 100,
                                       single=True)[0].coef
            # at the start itself: Newton's last Hessian is at the step before, which for a
            # start from another penalty's fit can be far from this one's
            h_inv[g] = np.linalg.inv(design.hessian(w, s, lams[g], single=True))
        W = starts[:, groups].copy()
        lam, tols = lams[groups], tol[groups]
        self._iterate(W, lam, linear, h_inv, tols, max_iter, single=True, groups=groups)
        self._iterate(W, lam, linear, h_inv, tols, max_iter, single=False, groups=groups,
                      finish=finish)
        return W.T

    def _iterate(self, W: np.ndarray, lam, linear: np.ndarray, h_inv: np.ndarray, tol,
                 max_iter: int, *, single: bool, groups: np.ndarray | None = None,
                 finish: bool = True) -> None:
        """Shared-Hessian steps on ``W`` (in place) until each replicate's gap is at most ``tol``
        times its total weight.

        In float32 a replicate leaves when its gap stops shrinking (rounding); in float64 it is
        then finished by exact Newton, on the rows its weights use (sparse weight columns, such
        as the subset page's truncated DP weights, need far smaller Hessians).

        ``lam`` and ``tol`` are one number, or one per replicate; with ``groups`` (one index per
        replicate), ``h_inv`` holds one inverse Hessian per group (:meth:`fit_penalties`), and a
        step that raised a replicate's gap is undone before it leaves (its Newton then starts
        from the better point: one Hessian for many penalties and large noise vectors fits some
        replicates poorly, and a step that overshoots can land where Newton's method is slow).
        ``finish=False``: no exact Newton; a replicate that stops leaves as it is.
        """
        design = self.design
        S, y = (self.S32, self.y32) if single else (self.S, self.y)
        n_reps = W.shape[1]
        shared = S.shape[1] != n_reps  # one weight column for every (per-replicate) linear term
        per_rep = linear.ndim == 2
        lams = np.broadcast_to(np.asarray(lam, dtype=float), (n_reps,))
        each = np.ndim(lam) > 0  # one penalty per replicate
        tol_abs = np.broadcast_to(tol * self.scale, (n_reps,))
        active = np.arange(n_reps)
        last = np.full(n_reps, np.inf)
        previous = W.copy() if groups is not None else None

        def newton(j: int) -> np.ndarray:
            s, part, labels = self.S[:, 0 if shared else j], design, self.y
            rows = np.flatnonzero(s)  # a row without weight changes no term: fit on the others
            if 0 < rows.size < s.size:
                s, part, labels = s[rows], _Design(design.X[rows]), labels[rows]
            return _newton(part, labels, s, lams[j], linear[:, j] if per_rep else linear,
                           W[:, j], tol if np.ndim(tol) == 0 else tol[j], 100)[0].coef

        for _ in range(max_iter):
            every = active.size == n_reps  # avoid copying S while all are active
            lam_a = lam if not each else lams if every else lams[active]
            G = _gradient(design, W if every else W[:, active], y,
                          S if every or shared else S[:, active], lam_a,
                          linear[:, active] if per_rep and not every else linear, single)
            gap = _gap_bound(G, lam_a)
            stalled = gap >= last[active]
            unfinished = gap > tol_abs[active]
            if previous is not None:  # undo the steps that raised a gap
                worse = active[stalled & (gap > last[active])]
                W[:, worse] = previous[:, worse]
                gap[stalled] = np.minimum(gap[stalled], last[active[stalled]])
            if not single and finish:
                for j in active[unfinished & stalled]:
                    W[:, j] = newton(j)
            last[active] = gap
            keep = unfinished & ~stalled
            active, G = active[keep], G[:, keep]
            if active.size == 0:
                return
            if groups is None:
                W[:, active] -= h_inv @ G
            else:
                previous[:, active] = W[:, active]
                W[:, active] -= np.matmul(h_inv[groups[active]], G.T[:, :, None])[:, :, 0].T
        if not single and finish:
            for j in active:
                W[:, j] = newton(j)


def fit_logistic_batched(X, y, sample_weights, *, lam: float, linear=None, coef_init=None,
                         tol: float = 1e-10, max_iter: int = 50, merge: bool = True,
                         refresh: int = 0) -> np.ndarray:
    """Fit one weight vector per column of ``sample_weights``, vectorised across replicates.

    A shared-Hessian quasi-Newton iteration over all replicates at once; see
    :class:`BatchedProblem`, which this builds and fits once.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_weights : array-like of shape (n_samples, n_reps)
        One column of non-negative weights per replicate.
    lam, linear, tol : see :func:`fit_logistic`; ``linear`` may also have shape
        (n_features, R), one linear term per replicate (see :meth:`BatchedProblem.fit`).
    coef_init : array-like of shape (n_features,), default=None
        The fit on the mean weights, if already known (it is computed otherwise).
    max_iter : int, default=50
    merge : bool, default=True
        As in :class:`BatchedProblem`: False when the rows of (X, y) are distinct.
    refresh : int, default=0
        As in :meth:`BatchedProblem.fit`.

    Returns
    -------
    coef : ndarray of shape (n_reps, n_features)
        ``n_reps`` is R when a single weight column is shared by R linear terms.
    """
    return BatchedProblem(X, y, sample_weights, merge=merge).fit(
        lam=lam, linear=linear, coef_init=coef_init, tol=tol, max_iter=max_iter,
        refresh=refresh)
