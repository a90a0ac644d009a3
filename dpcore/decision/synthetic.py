"""The utility report of a masked (synthetic) release: how close the masked records are to the
real ones.

What users of synthetic data keep writing by hand, computed in one call by
:func:`synthetic_report`:

* per-feature marginal distances: the Kolmogorov-Smirnov statistic between a feature's masked and
  real values (0: the same distribution, 1: disjoint), and the difference of their means in
  units of the real standard deviation;
* the difference of the correlation matrices (masked minus real), and its largest entry;
* the propensity mean squared error (pMSE, Woo et al. 2009; Snoke et al. 2018): a main-effects
  logistic regression (the features, no squares; not the masking report card's
  :func:`dpcore.masking.utility.propensity_mse`, which adds the squares) tries to tell masked
  from real records; pMSE is the mean of ``(p_i - c)^2`` with
  ``c`` the masked share, 0 when it cannot, ``c (1 - c)`` at most; reported with its ratio to
  the value expected when the two sets come from one law (``(k - 1)(1 - c)^2 c / N`` for ``k``
  parameters, Snoke et al. Eq. 3);
* train on masked, test on real (TSTR) accuracy beside train on real, test on real (TRTR), and
  the majority class;
* SDNist's 2-way k-marginal score and the share of masked records that equal a real one, on
  binned columns with the label (:mod:`dpcore.masking.marginals`, as the masking page's report
  card computes them).

Every number here reads the private records without noise, so each is *non-private*: a check
for the data owner before publishing, not something to publish.

References
----------
.. [WRK09] Woo, Reiter, Oganian & Karr (2009), *Global measures of data utility for
   microdata masked for disclosure limitation*, J. Privacy and Confidentiality 1(1).
.. [SRS18] Snoke, Raab, Nowok, Dibben & Slavkovic (2018), *General and specific utility measures
   for synthetic data*, JRSS A 181(3), Eq. 3.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.linear_model import LogisticRegression

from dpcore.masking.marginals import Binning, exact_match_share, k_marginal_score, labelled
from dpcore.validation import DataError

__all__ = ["synthetic_report"]

_MAX_ITER = 500


def _check(name: str, X: np.ndarray, d: int | None) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < 2:
        raise DataError(f"{name} must be a 2-D array with at least two records; got shape "
                        f"{X.shape}.")
    if d is not None and X.shape[1] != d:
        raise DataError(f"{name} has {X.shape[1]} features; the real records have {d}.")
    if not np.isfinite(X).all():
        raise DataError(f"{name} holds missing or infinite values; drop or impute them first.")
    return X


def _marginals(masked: np.ndarray, real: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    rows = []
    for j, name in enumerate(names):
        sd = float(real[:, j].std())
        rows.append({
            "feature": name,
            "ks_distance_nonprivate": float(stats.ks_2samp(masked[:, j], real[:, j]).statistic),
            "mean_difference_in_sd_nonprivate": (
                float((masked[:, j].mean() - real[:, j].mean()) / sd) if sd > 0 else np.nan),
        })
    return pd.DataFrame(rows)


def _correlation(X: np.ndarray) -> np.ndarray:
    """Pearson correlations, 0 where a feature is constant (no correlation to speak of)."""
    sd = X.std(axis=0)
    Z = np.where(sd > 0, (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0), 0.0)
    corr = Z.T @ Z / X.shape[0]
    np.fill_diagonal(corr, np.where(sd > 0, 1.0, 0.0))
    return corr


def _pmse(masked: np.ndarray, real: np.ndarray) -> tuple[float, float]:
    """pMSE of a main-effects logistic propensity model, and its ratio to the null expectation."""
    X = np.vstack([masked, real])
    label = np.r_[np.ones(len(masked)), np.zeros(len(real))]
    scale = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0)
    model = LogisticRegression(C=1e6, max_iter=_MAX_ITER).fit(X, label)
    share = len(masked) / len(X)
    p = model.predict_proba(X)[:, 1]
    pmse = float(np.mean((p - share) ** 2))
    k = X.shape[1] + 1  # the propensity model's parameters, intercept included
    null = (k - 1) * (1 - share) ** 2 * share / len(X)
    return pmse, pmse / null if null > 0 else np.nan


def _accuracy(X: np.ndarray, y: np.ndarray, X_test: np.ndarray, y_test: np.ndarray) -> float:
    if np.unique(y).size < 2:  # one class only: the model predicts it
        return float(np.mean(y_test == y[0]))
    model = LogisticRegression(max_iter=_MAX_ITER).fit(X, y)
    return float(np.mean(model.predict(X_test) == y_test))


def synthetic_report(masked_X: np.ndarray, masked_y: np.ndarray, real_X: np.ndarray,
                     real_y: np.ndarray, test_X: np.ndarray, test_y: np.ndarray, *,
                     feature_names: Sequence[str] | None = None,
                     binning: Binning | None = None) -> dict[str, pd.DataFrame]:
    """Marginal distances, correlation difference, pMSE and TSTR/TRTR of a masked release.

    Parameters
    ----------
    masked_X, masked_y : array-like of shape (m, d) and (m,)
        The masked records and their labels (what would be published).
    real_X, real_y : array-like of shape (n, d) and (n,)
        The real (private) records they stand for.
    test_X, test_y : array-like
        Real records held out from both, on which the two classifiers are tested.
    feature_names : sequence of str, optional
        One name per feature (default ``x1 .. xd``).
    binning : Binning, optional
        How features become the table's binned columns for the k-marginal score and the exact
        matches (the masking page's :func:`dpcore.masking.card.task_binning`); by default
        :func:`dpcore.masking.marginals.default_binning` of the two tables.

    Returns
    -------
    dict of str to DataFrame
        ``synthetic_summary`` (one row: ``pmse_nonprivate``, ``pmse_ratio_nonprivate``,
        ``max_correlation_difference_nonprivate``, ``mean_ks_distance_nonprivate``,
        ``tstr_accuracy_nonprivate``, ``trtr_accuracy_nonprivate``,
        ``majority_accuracy_nonprivate``, ``k_marginal_nonprivate``,
        ``exact_match_share_nonprivate``, ``masked_records``, ``real_records``);
        ``synthetic_marginals`` (one row per feature); ``synthetic_correlation_difference``
        (masked minus real, features by features).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2)); y = (X[:, 0] > 0).astype(int)
    >>> out = synthetic_report(X[:200], y[:200], X[200:300], y[200:300], X[300:], y[300:])
    >>> bool(out["synthetic_summary"].loc[0, "pmse_ratio_nonprivate"] < 5)
    True
    """
    real = _check("real_X", real_X, None)
    d = real.shape[1]
    masked = _check("masked_X", masked_X, d)
    test = _check("test_X", test_X, d)
    masked_y, real_y, test_y = (np.asarray(v).ravel() for v in (masked_y, real_y, test_y))
    names = list(feature_names) if feature_names is not None else [f"x{j + 1}" for j in range(d)]
    if len(names) != d:
        raise DataError(f"feature_names has {len(names)} names for {d} features.")
    marginals = _marginals(masked, real, names)
    difference = _correlation(masked) - _correlation(real)
    pmse, ratio = _pmse(masked, real)
    _, counts = np.unique(test_y, return_counts=True)
    tables = np.c_[real, real_y], np.c_[masked, masked_y]
    if binning is not None:  # the label is the table's last column
        binning = labelled(binning, int(max(real_y.max(), masked_y.max())) + 1)
    summary = {
        "pmse_nonprivate": pmse, "pmse_ratio_nonprivate": ratio,
        "max_correlation_difference_nonprivate": float(np.abs(difference).max()),
        "mean_ks_distance_nonprivate": float(marginals["ks_distance_nonprivate"].mean()),
        "tstr_accuracy_nonprivate": _accuracy(masked, masked_y, test, test_y),
        "trtr_accuracy_nonprivate": _accuracy(real, real_y, test, test_y),
        "majority_accuracy_nonprivate": float(counts.max() / counts.sum()),
        "k_marginal_nonprivate": k_marginal_score(*tables, binning=binning),
        "exact_match_share_nonprivate": exact_match_share(*tables, binning=binning),
        "masked_records": int(len(masked)), "real_records": int(len(real)),
    }
    return {"synthetic_summary": pd.DataFrame([summary]), "synthetic_marginals": marginals,
            "synthetic_correlation_difference": pd.DataFrame(difference, index=names,
                                                             columns=names)}
