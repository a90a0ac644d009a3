"""Regularised binary and multinomial logistic regression, batched over independent problems.

The model of Pham et al. ([PGY]_ eq. (1)) with one label convention throughout this package:
labels are integer codes ``y`` in ``{0, ..., C-1}``.

* Binary (``C = 2``): one weight vector ``w`` of shape ``(1, d)``, ``p = sigmoid(w.x)`` is the
  probability of class 1 (labels 0/1, as :mod:`dpcore.logistic`; the paper's ``{-1, 1}`` labels
  map to 0/1 by ``(y + 1) / 2``).
* Multinomial (``C > 2``): a weight matrix ``W`` of shape ``(C, d)``, ``p = softmax(W x)``.

Both are written as ``K`` logits ``z = W x`` (``K = 1`` binary, ``K = C`` multinomial), target
``t`` (``t = y`` binary, ``t = e_y`` multinomial) and residual ``r = p - t``. The objective is the
*averaged* negative log-likelihood plus the L2 penalty ([PGY]_ eq. (1), sign flipped to a
minimisation)::

    J(W) = (1/n) sum_i s_i * loss(W; x_i, y_i) + lam/2 ||W - W_0||_F^2,      n = sum_i s_i,

with gradient ``(1/n) sum_i s_i r_i x_i^T + lam (W - W_0)`` ([PGY]_ eq. (2), and the C-class
gradient after eq. (5)). The paper's penalty is centred at ``W_0 = 0`` (the default); a public
``W_0`` (``coef_prior``, e.g. a model fitted on the public set) shifts the penalty's centre and
changes neither its strong convexity nor the Hessian. ``J`` is ``lam``-strongly convex, so
Newton's method with a backtracking line search converges from anywhere, and any ``W``
satisfies ``J(W) - min J <= ||grad J(W)||^2 / (2 lam)`` and ``||W - argmin J|| <= ||grad J(W)||
/ lam``: the certified gap and distance.

No intercept is added here (the paper has none; :func:`dpcore.masking.generator.design_records`
appends a constant column when one is wanted); the overparametrised softmax (``C`` full rows) is
identifiable because of the penalty.

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*.
"""

from __future__ import annotations

import functools
import numbers
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import expit, logsumexp
from threadpoolctl import ThreadpoolController

from dpcore.validation import DataError, check_scalar

__all__ = ["LogisticModelFit", "check_labels", "fit_logistic_model", "model_gradient",
           "model_objective", "n_logits", "one_blas_thread", "predict_labels", "predict_proba",
           "probabilities", "targets"]


@functools.cache
def _blas() -> ThreadpoolController:
    """The process's BLAS libraries, found once (a search reads ``/proc/self/maps``: 3-4 ms,
    more than a small fit)."""
    return ThreadpoolController()


def one_blas_thread():
    """A context in which BLAS runs one thread (:mod:`threadpoolctl`), for the many small
    batched products and solves of this package (a thread pool per call oversubscribes busy
    cores). The libraries are those loaded at the first call (numpy's and scipy's BLAS, loaded
    when this package is imported)."""
    return _blas().limit(limits=1, user_api="blas")


@dataclass(frozen=True)
class LogisticModelFit:
    """Result of :func:`fit_logistic_model`.

    Attributes
    ----------
    coef : ndarray of shape (..., K, n_features)
        Minimisers (``K = 1`` binary, ``K = C`` multinomial).
    gap : ndarray of shape (...)
        Certified ``J(coef) - min J <= ||grad J(coef)||^2 / (2 lam)`` of each problem.
    grad_norm : ndarray of shape (...)
        ``||grad J(coef)||_F``; ``||coef - argmin J|| <= grad_norm / lam``.
    n_iter : int
        Newton iterations used by the slowest problem.
    """

    coef: np.ndarray
    gap: np.ndarray
    grad_norm: np.ndarray
    n_iter: int


def n_logits(n_classes: int) -> int:
    """Number of weight rows ``K``: 1 for a binary problem, ``C`` for ``C > 2`` classes."""
    return 1 if n_classes == 2 else n_classes


def check_labels(y, n_classes, name: str = "y", *, clip: bool = False) -> np.ndarray:
    """Integer labels in ``{0, ..., n_classes - 1}``; anything else is a :class:`DataError`.

    With ``clip`` (private labels: a refusal would depend on one record) a code outside the
    public range is clipped to the nearest code, 0 or ``n_classes - 1``, a rule fixed by
    ``n_classes`` alone; only a label that is no integer code at all is refused. A message
    never names a label (they may be private).
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, numbers.Integral):
        raise TypeError(f"n_classes must be an int, got {type(n_classes).__name__}.")
    if n_classes < 2:
        raise ValueError(f"n_classes == {n_classes}, must be >= 2.")
    arr = np.asarray(y)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise DataError(f"{name} must hold integer class codes 0 .. {n_classes - 1}.")
    elif arr.dtype.kind not in "iub":
        raise DataError(
            f"{name} must hold integer class codes 0 .. {n_classes - 1}, got dtype {arr.dtype}. "
            "Encode the labels first, e.g. with numpy.unique(y, return_inverse=True)."
        )
    arr = arr.astype(np.intp)
    if clip:
        return np.clip(arr, 0, n_classes - 1)
    if arr.size and (arr.min() < 0 or arr.max() >= n_classes):
        raise DataError(
            f"{name} has labels outside 0 .. {n_classes - 1}; pass the right n_classes or "
            "encode the labels as 0 .. C-1."
        )
    return arr


def targets(y: np.ndarray, K: int) -> np.ndarray:
    """The model's targets ``t`` of shape ``y.shape + (K,)``: ``y`` itself (binary, ``K = 1``)
    or one-hot ``e_y``."""
    if K == 1:
        return y[..., None].astype(float)
    return (y[..., None] == np.arange(K)).astype(float)


def probabilities(Z: np.ndarray) -> np.ndarray:
    """The model's probabilities of logits ``Z``: ``sigmoid(z)`` for one logit, ``softmax(z)``
    over the last axis for several."""
    if Z.shape[-1] == 1:
        return expit(Z)
    E = np.exp(Z - Z.max(axis=-1, keepdims=True))
    E /= E.sum(axis=-1, keepdims=True)
    return E


def _losses(Z: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Per-record negative log-likelihood, shape ``Z.shape[:-1]``."""
    if Z.shape[-1] == 1:
        return (np.logaddexp(0.0, Z) - T * Z)[..., 0]
    return logsumexp(Z, axis=-1) - np.sum(T * Z, axis=-1)


def _logits(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    return X @ np.swapaxes(W, -1, -2)


def _objective(W, X, T, wt, lam, W0=0.0) -> np.ndarray:
    Z = _logits(X, W)
    V = W - W0
    return np.sum(wt * _losses(Z, T), axis=-1) + 0.5 * lam * np.sum(V * V, axis=(-2, -1))


def _gradient(W, X, T, wt, lam, W0=0.0) -> np.ndarray:
    R = probabilities(_logits(X, W)) - T
    R *= wt[..., None]
    return np.swapaxes(R, -1, -2) @ X + lam * (W - W0)


def _prior(coef_prior, K: int, d: int):
    """The penalty's centre ``W_0``: 0, or a finite array broadcastable to (..., K, d)."""
    if coef_prior is None:
        return 0.0
    W0 = np.asarray(coef_prior, dtype=float)
    if W0.ndim < 2 or W0.shape[-2:] != (K, d) or not np.all(np.isfinite(W0)):
        raise ValueError(f"coef_prior has shape {W0.shape}, expected a finite array of shape "
                         f"(..., {K}, {d}) (one weight row per logit, one column per feature).")
    return W0


def _hessian(W, X, wt, lam) -> np.ndarray:
    """Exact Hessian in the flattened parameter (row-major ``(K, d)``), shape (..., Kd, Kd).

    ``sum_i wt_i kron(A_i, x_i x_i^T) + lam I`` with ``A_i = diag(p_i) - p_i p_i^T`` (softmax)
    or ``p_i (1 - p_i)`` (sigmoid); one batched ``X^T diag(.) X`` per pair of classes.
    """
    P = probabilities(_logits(X, W))
    K, d = W.shape[-2:]
    H = np.zeros(W.shape[:-2] + (K, d, K, d))
    Xt = np.swapaxes(X, -1, -2)
    for k in range(K):
        for j in range(k, K):
            a = P[..., k] * ((k == j) - P[..., j]) if K > 1 else P[..., 0] * (1 - P[..., 0])
            block = (Xt * (wt * a)[..., None, :]) @ X
            H[..., k, :, j, :] = block
            if j != k:
                H[..., j, :, k, :] = block
    H = H.reshape(W.shape[:-2] + (K * d, K * d))
    H[..., np.arange(K * d), np.arange(K * d)] += lam
    return H


def _prepare(X, y, sample_weight, n_classes):
    X = np.asarray(X, dtype=float)
    if X.ndim < 2:
        raise DataError(f"Expected X of shape (..., n_samples, n_features), got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise DataError("X contains NaN or infinite values. Drop or impute them before fitting.")
    y = check_labels(y, n_classes)
    if y.shape != X.shape[:-1]:
        raise DataError(f"y has shape {y.shape}, expected {X.shape[:-1]} to match X.")
    s = np.ones(y.shape) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    if s.shape != y.shape:
        raise ValueError(f"sample_weight has shape {s.shape}, expected {y.shape}.")
    if not np.all(np.isfinite(s)) or np.any(s < 0) or np.any(s.sum(axis=-1) <= 0):
        raise ValueError("sample_weight must be finite, >= 0 and not all zero in any problem.")
    wt = s / s.sum(axis=-1, keepdims=True)
    return X, targets(y, n_logits(n_classes)), wt


def model_objective(coef, X, y, sample_weight=None, *, lam: float, n_classes: int,
                    coef_prior=None) -> np.ndarray:
    """The averaged objective ``J`` (module docstring) of each problem at ``coef``.

    Parameters
    ----------
    coef : array-like of shape (..., K, n_features)
    X : array-like of shape (..., n_samples, n_features)
    y : array-like of shape (..., n_samples)
        Integer labels ``0 .. n_classes - 1``.
    sample_weight : array-like of shape (..., n_samples), default=None
    lam : float
    n_classes : int
    coef_prior : array-like of shape (..., K, n_features), default=None
        Centre ``W_0`` of the penalty (0 when None).

    Returns
    -------
    ndarray of shape (...)
    """
    X, T, wt = _prepare(X, y, sample_weight, n_classes)
    lam = check_scalar(lam, "lam", min_val=0.0, include_min=True)
    W0 = _prior(coef_prior, T.shape[-1], X.shape[-1])
    return _objective(np.asarray(coef, dtype=float), X, T, wt, lam, W0)


def model_gradient(coef, X, y, sample_weight=None, *, lam: float, n_classes: int,
                   coef_prior=None) -> np.ndarray:
    """Gradient of ``J`` at ``coef``, shape (..., K, n_features) ([PGY]_ eq. (2));
    ``coef_prior`` as :func:`model_objective`."""
    X, T, wt = _prepare(X, y, sample_weight, n_classes)
    lam = check_scalar(lam, "lam", min_val=0.0, include_min=True)
    W0 = _prior(coef_prior, T.shape[-1], X.shape[-1])
    return _gradient(np.asarray(coef, dtype=float), X, T, wt, lam, W0)


def predict_proba(coef, X) -> np.ndarray:
    """Class probabilities, shape (..., n_samples, C) (``C = 2`` for one weight row)."""
    coef = np.asarray(coef, dtype=float)
    P = probabilities(_logits(np.asarray(X, dtype=float), coef))
    if coef.shape[-2] == 1:
        P = np.concatenate([1.0 - P, P], axis=-1)
    return P


def predict_labels(coef, X) -> np.ndarray:
    """Most probable class codes, shape (..., n_samples)."""
    coef = np.asarray(coef, dtype=float)
    Z = _logits(np.asarray(X, dtype=float), coef)
    if coef.shape[-2] == 1:
        return (Z[..., 0] > 0).astype(np.intp)
    return np.argmax(Z, axis=-1)


def fit_logistic_model(X, y, sample_weight=None, *, lam: float, n_classes: int,
                       coef_init=None, coef_prior=None, tol: float = 1e-12,
                       max_iter: int = 50) -> LogisticModelFit:
    """Minimise ``J`` (module docstring) for every problem at once by batched Newton steps.

    Each iteration forms every unconverged problem's exact Hessian (one batched
    ``X^T diag(.) X`` per pair of classes), solves all Newton systems in one batched call, and
    backtracks (Armijo) per problem; no Python loop runs over problems.

    Parameters
    ----------
    X : array-like of shape (..., n_samples, n_features)
        Leading axes index independent problems (draws, epsilons).
    y : array-like of shape (..., n_samples)
        Integer labels ``0 .. n_classes - 1``.
    sample_weight : array-like of shape (..., n_samples), default=None
        Non-negative record weights (ones when None); ``n`` in ``J`` is their sum.
    lam : float
        Strength of the penalty ``lam/2 ||W||^2`` of the averaged objective, > 0.
    n_classes : int
        ``C >= 2``; 2 fits one sigmoid weight row, more fit a softmax with ``C`` rows.
    coef_init : array-like of shape (..., K, n_features), default=None
        Starting point (zeros when None).
    coef_prior : array-like of shape (..., K, n_features), default=None
        Centre ``W_0`` of the penalty ``lam/2 ||W - W_0||^2`` (0 when None, the paper's).
    tol : float, default=1e-12
        Stop when every problem's certified gap ``||grad J||^2 / (2 lam)`` is at most ``tol``
        (``J`` is averaged, so of order 1 whatever ``n``).
    max_iter : int, default=50

    Returns
    -------
    LogisticModelFit

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> fit = fit_logistic_model(X, [0, 1, 2, 2], lam=0.1, n_classes=3)
    >>> fit.coef.shape, bool(fit.gap <= 1e-12)
    ((3, 2), True)
    """
    # Many small products and solves: one BLAS thread is much faster than a thread pool per
    # call (which oversubscribes busy cores), so the solver runs with one.
    with one_blas_thread():
        return _fit_logistic_model(X, y, sample_weight, lam=lam, n_classes=n_classes,
                                   coef_init=coef_init, coef_prior=coef_prior, tol=tol,
                                   max_iter=max_iter)


def _fit_logistic_model(X, y, sample_weight=None, *, lam: float, n_classes: int,
                        coef_init=None, coef_prior=None, tol: float = 1e-12, max_iter: int = 50
                        ) -> LogisticModelFit:
    """Implementation of :func:`fit_logistic_model`."""
    X, T, wt = _prepare(X, y, sample_weight, n_classes)
    lam = check_scalar(lam, "lam", min_val=0.0)
    K, d = T.shape[-1], X.shape[-1]
    batch = X.shape[:-2]
    R = int(np.prod(batch, dtype=int))
    Xb, Tb, wb = X.reshape(R, *X.shape[-2:]), T.reshape(R, *T.shape[-2:]), wt.reshape(R, -1)
    W0 = _prior(coef_prior, K, d)
    W0b = (np.zeros((R, K, d)) if coef_prior is None else
           np.array(np.broadcast_to(W0, batch + (K, d))).reshape(R, K, d))
    if coef_init is None:
        W = np.zeros((R, K, d))
    else:
        W = np.array(np.broadcast_to(np.asarray(coef_init, dtype=float), batch + (K, d)))
        W = W.reshape(R, K, d)
    active = np.arange(R)
    gap = np.full(R, np.inf)
    f = _objective(W, Xb, Tb, wb, lam, W0b)
    n_iter = 0
    for n_iter in range(max_iter + 1):  # noqa: B007 (reported below)
        Wa, Xa, Ta, wa, W0a = W[active], Xb[active], Tb[active], wb[active], W0b[active]
        G = _gradient(Wa, Xa, Ta, wa, lam, W0a)
        gap[active] = np.sum(G * G, axis=(-2, -1)) / (2.0 * lam)
        keep = gap[active] > tol
        if n_iter == max_iter or not keep.any():
            break
        active, Wa, Xa, Ta, wa, W0a, G = (a[keep] for a in (active, Wa, Xa, Ta, wa, W0a, G))
        H = _hessian(Wa, Xa, wa, lam)
        step = np.linalg.solve(H, G.reshape(-1, K * d, 1)).reshape(G.shape)
        slope = np.sum(G * step, axis=(-2, -1))
        fa = f[active]
        t = np.ones(active.size)
        moved = np.zeros(active.size, dtype=bool)
        for _ in range(40):  # Armijo backtracking, vectorised across problems
            todo = ~moved
            W_try = Wa[todo] - t[todo, None, None] * step[todo]
            f_try = _objective(W_try, Xa[todo], Ta[todo], wa[todo], lam, W0a[todo])
            ok = f_try <= fa[todo] - 1e-4 * t[todo] * slope[todo]
            idx = np.flatnonzero(todo)[ok]
            Wa[idx], fa[idx], moved[idx] = W_try[ok], f_try[ok], True
            if moved.all():
                break
            t[~moved] *= 0.5
        W[active], f[active] = Wa, fa
        stuck = ~moved  # rounding: no step decreases J any more
        if stuck.any():
            active = active[~stuck]
            if active.size == 0:
                break
    G = _gradient(W, Xb, Tb, wb, lam, W0b)
    grad_norm = np.sqrt(np.sum(G * G, axis=(-2, -1)))
    gap = grad_norm**2 / (2.0 * lam)
    if np.any(gap > max(tol, 1e-9)):  # the gap reached on the data is not named: it may be D's
        warnings.warn(f"Newton's method stopped above the certified gap tol={tol:g}; raise "
                      "max_iter or lam.", RuntimeWarning, stacklevel=3)
    return LogisticModelFit(W.reshape(batch + (K, d)), gap.reshape(batch),
                            grad_norm.reshape(batch), n_iter)
