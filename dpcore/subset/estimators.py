"""M-estimators from weighted public points ([WJ18]_ Definitions 5 and 6, Algorithm 1 step 4).

``theta = argmin_theta sum_i w_i m(y_i, theta)`` for three contrast functions ([WJ18]_ Sect. 2.3):

* ``"squared"``: ``||y - theta||^2``, the weighted mean (every column);
* ``"absolute"``: ``||y - theta||_1``, the coordinate-wise weighted (lower) median;
* ``"logistic"``: the negative log-likelihood of logistic regression of the label column on the
  covariates with an intercept, plus ``lam/2 ||theta||^2`` (:mod:`dpcore.logistic`).

Every function takes a weight *matrix* of shape (m, R), one column per candidate subset or
repeat, and solves all columns at once.

Negative weights ([WJ18]_ Sect. 3.1): the untruncated weights of Definition 5 make the objective
non-convex for the absolute and logistic losses, so those require the truncated weights of
Definition 6 (``w >= 0``). The squared loss stays a strictly convex quadratic whenever the
weights sum to a positive number, so it accepts untruncated weights; its minimiser is then
``sum w y / sum w``.

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcore.logistic import fit_logistic, fit_logistic_batched
from dpcore.validation import DataError, check_choice, check_scalar

__all__ = ["LOSSES", "check_loss", "design", "logistic_estimates", "m_estimate",
           "reference_estimate", "reference_fit", "predict"]

LOSSES = ("logistic", "squared", "absolute")
#: Solver tolerance (certified objective gap, relative to the total weight) of every logistic fit.
SOLVER_TOL = 1e-12
#: Columns fitted together have support sizes within this factor, at most GROUP_COLUMNS of them.
GROUP_SPAN = 1.5
GROUP_COLUMNS = 32


def check_loss(loss: Any) -> str:
    """``loss`` if it is one of :data:`LOSSES`, else a ``ValueError`` that lists them."""
    return check_choice(loss, "loss", LOSSES)


def design(points: np.ndarray, target: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Covariates with an intercept column (last) and the 0/1 labels of rescaled points."""
    if target is None:
        raise DataError(
            "The logistic loss needs a 0/1 target column; pass target= (a scenario's target)."
        )
    X = np.empty(points.shape)  # the columns but the target's, then 1 (copies, by slices)
    X[:, :target] = points[:, :target]
    X[:, target:-1] = points[:, target + 1 :]
    X[:, -1] = 1.0
    return X, points[:, target]


def _weighted_median(points: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Lower weighted median of every column of ``points`` for every weight column of W."""
    order = np.argsort(points, axis=0, kind="stable")  # (m, q)
    out = np.empty((W.shape[1], points.shape[1]))
    total = W.sum(axis=0)
    for j in range(points.shape[1]):  # loop over coordinates (q), vectorised over points/columns
        cum = np.cumsum(W[order[:, j]], axis=0)  # (m, R)
        pos = np.argmax(cum >= total / 2.0, axis=0)
        out[:, j] = points[order[pos, j], j]
    return out


def m_estimate(
    points: Any,
    weights: Any,
    loss: str = "logistic",
    *,
    target: int | None = None,
    lam: float = 1e-2,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """The M-estimator ``argmin sum_i w_i m(y_i, theta)`` for each weight column.

    Parameters
    ----------
    points : array-like of shape (m, q)
        Rescaled public points.
    weights : array-like of shape (m,) or (m, R)
        Weights (noisy DP weights for a DP estimator, [WJ18]_ Definition 5 or 6).
    loss : {"logistic", "squared", "absolute"}, default="logistic"
    target : int, default=None
        Column of the 0/1 label (logistic loss only).
    lam : float, default=1e-2
        L2 penalty of the logistic loss, ``lam/2 ||theta||^2``, next to the weights of each
        column *normalised to total 1* (without the penalty the minimiser does not depend on
        the scale of the weights; with it, normalising makes lam mean the same for every
        candidate and for ``theta_D``, whose weights are 1/n_D). The penalty keeps the fit
        finite on small or separable subsets. Normalising is post-processing of DP weights.
    start : ndarray of shape (q,), default=None
        Logistic loss only: a point near every column's fit (Algorithm 2 passes ``theta_D``,
        which the candidates estimate), where the batched solver takes the Hessian it shares
        (:meth:`dpcore.logistic.BatchedProblem.fit`'s ``coef_init``) instead of first fitting
        the mean weights of each group of columns. Every fit keeps its certified gap; only the
        path to it changes. None: the solver's own start.

    Returns
    -------
    theta : ndarray of shape (R, q) (squared, absolute) or (R, q) with the intercept last
        (logistic: q - 1 covariate coefficients and the intercept); shape (q,) for 1D weights.

    Examples
    --------
    >>> m_estimate([[0.0], [1.0], [3.0]], [0.2, 0.3, 0.5], "squared").tolist()
    [1.8]
    >>> m_estimate([[0.0], [1.0], [3.0]], [0.2, 0.3, 0.5], "absolute").tolist()
    [1.0]
    """
    loss = check_loss(loss)
    Y = np.asarray(points, dtype=float)
    W = np.asarray(weights, dtype=float)
    single = W.ndim == 1
    W = W[:, None] if single else W
    if W.shape[0] != Y.shape[0]:
        raise ValueError(f"weights has {W.shape[0]} rows, points {Y.shape[0]}.")
    if loss != "squared" and np.any(W < 0):
        raise ValueError(
            f"The {loss} loss needs non-negative weights (negative weights make the objective "
            "non-convex, [WJ18] Sect. 3.1); use the truncated weights of Definition 6."
        )
    if loss == "squared":
        total = W.sum(axis=0)
        if np.any(total <= 0):
            raise DataError(
                "The weights of a candidate sum to <= 0, so the squared loss has no minimiser; "
                "use the truncated weights (Definition 6) or a larger subset or epsilon."
            )
        theta = (W.T @ Y) / total[:, None]
    elif loss == "absolute":
        if np.any(W.sum(axis=0) <= 0):
            raise DataError("A weight column is all zero: the median is undefined.")
        theta = _weighted_median(Y, W)
    else:
        lam = check_scalar(lam, "lam", min_val=0.0)
        X, y = design(Y, target)
        total = W.sum(axis=0)
        W = W / np.where(total > 0, total, 1.0)  # total weight 1: lam means the same for all
        theta = _fit_logistic_groups(X, y, W, lam, start)
    return theta[0] if single else theta


def logistic_estimates(X: np.ndarray, y: np.ndarray, order: np.ndarray, weights: np.ndarray,
                       *, lam: float, start: np.ndarray | None = None,
                       refresh: int = 0, groups: tuple[float, int] = (GROUP_SPAN, GROUP_COLUMNS),
                       ) -> np.ndarray:
    """:func:`m_estimate`'s logistic fits of the weight columns on the points ``X[order]``,
    read from a design made once (no copy of the points in ``order``).

    Parameters
    ----------
    X : ndarray of shape (m, q)
        Covariates with an intercept (:func:`design`) of *distinct* points (so that no
        duplicate rows are searched for).
    y : ndarray of shape (m,)
        Their 0/1 labels.
    order : ndarray of int of shape (r,)
        Row ``i`` of ``weights`` is the weight of point ``order[i]`` (the points not in
        ``order`` weigh nothing).
    weights : ndarray of shape (r, R)
        Non-negative weight columns.
    lam : float
    start : ndarray of shape (q,), default=None
        As in :func:`m_estimate`.
    refresh : int, default=0
        Steps after which each group's shared Hessian is taken again, at the mean of its
        iterates (:meth:`dpcore.logistic.BatchedProblem.fit`); 0: never.
    groups : (float, int), default=(GROUP_SPAN, GROUP_COLUMNS)
        Columns fitted together have support sizes within this factor, at most this many.

    Returns
    -------
    theta : ndarray of shape (R, q)
        The same fits as ``m_estimate(points[order], weights, "logistic", ...)`` of the points
        whose design is ``(X, y)``.
    """
    W = np.asarray(weights, dtype=float)
    if np.any(W < 0):
        raise ValueError("The logistic loss needs non-negative weights; use the truncated "
                         "weights of Definition 6.")
    total = W.sum(axis=0)
    W = W / np.where(total > 0, total, 1.0)  # total weight 1, as in m_estimate
    return _fit_logistic_groups(X, y, W, check_scalar(lam, "lam", min_val=0.0), start,
                                ranked=np.asarray(order), refresh=refresh, groups=groups)


def _fit_logistic_groups(X: np.ndarray, y: np.ndarray, W: np.ndarray, lam: float,
                         near: np.ndarray | None = None, *,
                         ranked: np.ndarray | None = None, refresh: int = 0,
                         groups: tuple[float, int] = (GROUP_SPAN, GROUP_COLUMNS)) -> np.ndarray:
    """Batched logistic fits of the weight columns, in groups of columns of similar support.

    Rows with zero weight do not change an objective, so each group is fitted on the rows its
    columns use. Nested candidate subsets have supports from a few points to all of E: grouped
    by support size (within a factor ``GROUP_SPAN``), each batch is small where the subsets are
    small, and the batched solver's shared Hessian suits every column of its group. Every fit
    keeps the certified gap of :func:`dpcore.logistic.fit_logistic_batched`; ``near``, if
    given, is where every group's shared Hessian is taken (:func:`m_estimate`). ``ranked``, if
    given: row ``i`` of W weighs row ``ranked[i]`` of the distinct rows of (X, y)
    (:func:`logistic_estimates`), whose ``refresh`` is passed on; ``groups`` replaces
    ``(GROUP_SPAN, GROUP_COLUMNS)``.
    """
    span, most = groups
    support = W > 0
    count = support.sum(axis=0)
    order = np.argsort(count, kind="stable")
    theta = np.zeros((W.shape[1], X.shape[1]))
    start = 0
    while start < order.size:
        stop = start + 1
        while (stop < order.size and stop - start < most
               and count[order[stop]] <= span * max(1, count[order[start]])):
            stop += 1
        cols = order[start:stop]
        rows = np.flatnonzero(support[:, cols].any(axis=1))
        if rows.size:
            points = rows if ranked is None else ranked[rows]
            theta[cols] = fit_logistic_batched(X[points], y[points], W[np.ix_(rows, cols)],
                                               lam=lam, coef_init=near, tol=SOLVER_TOL,
                                               merge=ranked is None, refresh=refresh)
        start = stop  # a column without support keeps theta = 0, the penalty's minimiser
    return theta


#: What a release says when ``theta_D`` cannot be certified (names only public numbers).
UNCERTIFIED = (
    "The reference fit θ_D could not be certified to the objective gap {tol:g} that the "
    "criterion's sensitivity assumes, with λ = {lam:g}. Raise λ; nothing was released."
)


def reference_fit(
    private: np.ndarray, loss: str, *, target: int | None = None, lam: float = 1e-2
) -> tuple[np.ndarray, bool]:
    """``theta_D`` and whether it is certified: the M-estimator on the private points with
    weights ``1/n_D``.

    Non-private: it is the reference of the criterion t_i, which is only released with noise.
    The criterion's sensitivity (:func:`dpcore.subset.criterion_sensitivity`) assumes the
    logistic fit certified to the objective gap ``SOLVER_TOL``; the flag says whether it is
    (always True for the losses without a solver). A release refuses an uncertified fit;
    studies keep the last iterate.
    """
    loss = check_loss(loss)
    n = private.shape[0]
    if loss != "logistic":
        return m_estimate(private, np.full(n, 1.0 / n), loss), True
    X, y = design(private, target)
    fit = fit_logistic(X, y, np.full(n, 1.0 / n), lam=lam, tol=SOLVER_TOL)
    return fit.coef, bool(fit.gap <= SOLVER_TOL)


def reference_estimate(
    private: np.ndarray, loss: str, *, target: int | None = None, lam: float = 1e-2
) -> np.ndarray:
    """``theta_D`` (:func:`reference_fit` without its certificate)."""
    return reference_fit(private, loss, target=target, lam=lam)[0]


def predict(private: np.ndarray, theta: np.ndarray, loss: str, target: int | None) -> np.ndarray:
    """The transformation h of [WJ18]_ Algorithm 2 step 4 for each row of ``theta``.

    Logistic: ``h_D(theta) = sigmoid(X^D theta)``, the predicted probabilities on the private
    covariates (shape (R, n_D)); squared and absolute: ``h(theta) = theta`` (shape (R, q)).
    """
    theta = np.atleast_2d(theta)
    if loss != "logistic":
        return theta
    X, _ = design(private, target)
    Z = theta @ X.T
    return 0.5 * (1.0 + np.tanh(0.5 * Z))  # expit, no overflow warnings
