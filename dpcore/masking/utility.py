"""Correlation difference and propensity pMSE of masked tables, batched over repetitions.

Both compare masked records with original ones feature by feature (the model's encoded
features), for many masked tables at once (leading axes: repetitions, ε):

* :func:`correlation_differences`: the mean absolute difference of the pairwise Pearson
  correlations (0 for equal correlation matrices, at most 2);
* :func:`propensity_mse`: a logistic regression on the features and their squares tells the masked
  records from the original ones (the squares see a spread that noise widens around the right
  mean, which main effects alone miss); the pMSE is the mean of ``(p_i - c)^2`` over both sets,
  ``c`` the masked share: 0 when the model cannot tell them apart, ``c (1 - c)`` (0.25 for sets
  of one size) when it separates them (Woo et al. 2009; Snoke et al. 2018). The propensity
  models of all tables are one batched Newton fit (:func:`dpcore.masking.fit_logistic_model`).

Both read original records without noise: non-private numbers, for judging a mechanism.

References
----------
.. [WRK09] Woo, Reiter, Oganian & Karr (2009), *Global measures of data utility for
   microdata masked for disclosure limitation*, J. Privacy and Confidentiality 1(1).
.. [SRS18] Snoke, Raab, Nowok, Dibben & Slavkovic (2018), *General and specific utility measures
   for synthetic data*, JRSS A 181(3).
.. [SDM] DataCebo, *SDMetrics*, ``CorrelationSimilarity`` (``1 - |difference| / 2`` per pair).
"""

from __future__ import annotations

import numpy as np

from dpcore.masking.model import fit_logistic_model, predict_proba

__all__ = ["PROPENSITY_LAMBDA", "correlation_differences", "correlation_gaps", "correlations",
           "propensity_mse"]

#: Penalty of the propensity model's averaged loss on standardised features: small enough to
#: leave the fit of real differences alone, large enough for a unique fit when the sets separate.
PROPENSITY_LAMBDA = 1e-3


def correlations(X) -> np.ndarray:
    """Pearson correlations of the features of each table (shape (..., n, d) to (..., d, d)),
    0 for a constant feature (no correlation to speak of, 1 on its diagonal for none)."""
    X = np.asarray(X, dtype=float)
    centred = X - X.mean(axis=-2, keepdims=True)
    sd = np.sqrt(np.mean(centred**2, axis=-2))
    Z = centred / np.where(sd > 0, sd, 1.0)[..., None, :]
    return np.swapaxes(Z, -1, -2) @ Z / X.shape[-2]


def correlation_differences(original, masked) -> np.ndarray:
    """Mean absolute difference of the pairwise correlations (pairs ``i < j``) of each masked
    table (shape (..., m, d)) and the original one (shape (n, d)): shape ``masked.shape[:-2]``.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> [round(float(correlation_differences(X, Y)), 12) for Y in (X, X * [1, -1])]
    [0.0, 2.0]
    """
    return correlation_gaps(correlations(original), masked)


def correlation_gaps(reference: np.ndarray, masked) -> np.ndarray:
    """:func:`correlation_differences` given the original table's correlations ``reference``
    (shape (d, d), from :func:`correlations`), for callers that score many tables against one.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> round(float(correlation_gaps(correlations(X), X * [1, -1])), 12)
    2.0
    """
    first, second = np.triu_indices(reference.shape[-1], k=1)
    if first.size == 0:
        return np.zeros(np.shape(masked)[:-2])
    gap = correlations(masked)[..., first, second] - reference[first, second]
    return np.abs(gap).mean(axis=-1)


def propensity_mse(original, masked, *, lam: float = PROPENSITY_LAMBDA) -> np.ndarray:
    """pMSE of each masked table against its original one ([WRK09]_, [SRS18]_ Eq. 1).

    Parameters
    ----------
    original : ndarray of shape (..., n, d)
        Original records (leading axes broadcast against ``masked``'s).
    masked : ndarray of shape (..., m, d)
    lam : float, default=PROPENSITY_LAMBDA

    Returns
    -------
    ndarray of shape (...)
        ``mean_i (p_i - c)^2`` over the ``n + m`` records, ``p_i`` the fitted probability that
        record ``i`` is masked and ``c = m / (n + m)``.

    Notes
    -----
    The model is a logistic regression with an intercept on the features and their squares,
    each standardised over both sets (main effects and quadratic terms, one of [SRS18]_'s
    specifications), fitted with the penalty ``lam / 2 ||w||^2``.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 2))
    >>> bool(propensity_mse(X, X) < 1e-12), round(float(propensity_mse(X, X + 100.0)), 2)
    (True, 0.25)
    """
    original = np.asarray(original, dtype=float)
    masked = np.asarray(masked, dtype=float)
    batch = np.broadcast_shapes(original.shape[:-2], masked.shape[:-2])
    n, m = original.shape[-2], masked.shape[-2]
    X = np.concatenate([np.broadcast_to(original, batch + original.shape[-2:]),
                        np.broadcast_to(masked, batch + masked.shape[-2:])], axis=-2)
    X = np.concatenate([X, X**2], axis=-1)
    X = X - X.mean(axis=-2, keepdims=True)
    sd = np.sqrt(np.mean(X**2, axis=-2, keepdims=True))
    X = np.concatenate([X / np.where(sd > 0, sd, 1.0), np.ones(X.shape[:-1] + (1,))], axis=-1)
    label = np.broadcast_to(np.r_[np.zeros(n, np.intp), np.ones(m, np.intp)], batch + (n + m,))
    fit = fit_logistic_model(X, label, lam=lam, n_classes=2, tol=1e-10, max_iter=100)
    p = predict_proba(fit.coef, X)[..., 1]
    return np.mean((p - m / (n + m)) ** 2, axis=-1)
