"""The L2 penalty of a logistic regression, chosen by cross-validation on the rows it is given.

A page's default penalty comes from public information: called on the public set E (free), it
reads nothing private and spends nothing; called on the private set D it is a non-private
reference ("how well can this model do at its own best penalty?"), to be labelled so.

The model is :mod:`dpcore.logistic`'s ``sum_i s_i loss_i + lam/2 ||w||^2`` with the sample
weights of each fit normalised to total 1 (as the importance-weighting and optimal-subset pages
fit theirs, so that a penalty means the same model there), the intercept a column of ``X``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dpcore.logistic import fit_logistic_batched
from dpcore.random import stream
from dpcore.validation import DataError, check_array, check_scalar

__all__ = ["CV_FOLDS", "CV_MAX_ROWS", "PENALTIES", "cv_accuracy", "cv_penalty"]

#: Folds of :func:`cv_penalty`.
CV_FOLDS = 5
#: The penalties :func:`cv_penalty` tries by default: the λ slider's values (log-spaced).
PENALTIES = (0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0,
             3.0, 5.0, 10.0)
#: Objective tolerance of the folds' fits: they only rank penalties.
CV_TOL = 1e-8
#: Rows :func:`cv_accuracy` cross-validates on at most (a seeded sample beyond): enough to rank
#: penalties, and a page opens in about a second on a large public set (Adult's 11,873 rows
#: took 21 s).
CV_MAX_ROWS = 2000


def _folds(n: int, folds: int, seed: int) -> np.ndarray:
    """The fold of each of ``n`` rows: a seeded permutation cut into ``folds`` near-equal parts."""
    order = stream(seed, "cv penalty", n).permutation(n)
    fold = np.empty(n, dtype=int)
    fold[order] = np.arange(n) % folds
    return fold


def cv_accuracy(X, y, penalties: Sequence[float] = PENALTIES, *, folds: int = CV_FOLDS,
                seed: int = 0, max_rows: int | None = CV_MAX_ROWS) -> np.ndarray:
    """Held-out accuracy of the logistic regression at each penalty, ``folds``-fold.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Design rows (append a column of ones for an intercept).
    y : array-like of shape (n,)
        Labels in {0, 1}.
    penalties : sequence of float
        Each > 0.
    folds : int, default=CV_FOLDS
        At least 2 and at most n.
    seed : int, default=0
        Seeds the folds (:func:`dpcore.random.stream`).
    max_rows : int or None, default=CV_MAX_ROWS
        Cross-validate on a seeded sample of this many rows when there are more (None: all).

    Returns
    -------
    ndarray of shape (len(penalties),)
        The share of rows predicted right when held out.
    """
    X = check_array(X, "X")
    y = np.asarray(y, dtype=float).ravel()
    if y.shape[0] != X.shape[0] or not np.all((y == 0) | (y == 1)):
        raise DataError(f"y needs one 0/1 label per row of X ({X.shape[0]}).")
    if max_rows is not None and X.shape[0] > max_rows:
        keep = np.sort(stream(int(seed), "cv penalty", "rows").permutation(X.shape[0])[:max_rows])
        X, y = X[keep], y[keep]
    n = X.shape[0]
    if isinstance(folds, bool) or not 2 <= int(folds) <= n:
        raise ValueError(f"folds == {folds!r}; pass an integer from 2 to the {n} rows.")
    fold = _folds(n, int(folds), int(seed))
    train = fold[:, None] != np.arange(int(folds))[None, :]  # (n, folds)
    W = train / train.sum(axis=0)
    scores = []
    for lam in penalties:
        coef = fit_logistic_batched(X, y, W, lam=check_scalar(float(lam), "lam", min_val=0.0),
                                    tol=CV_TOL)  # (folds, d)
        right = ((X @ coef.T) > 0) == (y[:, None] == 1)  # (n, folds)
        scores.append(float(right[~train].sum()) / n)
    return np.array(scores)


def cv_penalty(X, y, penalties: Sequence[float] = PENALTIES, *, folds: int = CV_FOLDS,
               seed: int = 0, max_rows: int | None = CV_MAX_ROWS,
               one_se: bool = False) -> float:
    """The penalty of ``penalties`` with the best :func:`cv_accuracy`; a tie goes to the larger.

    A tie goes to the larger penalty: where the features say nothing, every penalty predicts
    the majority class alike, and the larger one does so with the smaller coefficients. Fewer
    rows than ``folds`` (or a single class) cannot rank penalties: the largest is returned.
    ``one_se=True`` takes the largest penalty whose accuracy is within one standard error
    ``sqrt(a (1 - a) / n)`` of the best ``a`` (the one-standard-error rule of Hastie, Tibshirani
    & Friedman, *The Elements of Statistical Learning*, Sect. 7.10): the simplest model that the
    rows cannot tell from the best, for fits that noise will perturb further.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.random(300)
    >>> X = np.column_stack([x, np.ones(300)])
    >>> cv_penalty(X, (x > 0.5).astype(int)) <= 0.01
    True
    >>> cv_penalty(X, (rng.random(300) < 0.8).astype(int))  # nothing to learn: the largest
    10.0
    """
    ordered = sorted(float(v) for v in penalties)
    y = np.asarray(y, dtype=float).ravel()
    if y.shape[0] < folds or np.unique(y).size < 2:
        return ordered[-1]
    scores = cv_accuracy(X, y, ordered, folds=folds, seed=seed, max_rows=max_rows)
    best = float(scores.max())
    n = y.shape[0] if max_rows is None else min(y.shape[0], max_rows)
    slack = np.sqrt(best * (1.0 - best) / n) if one_se else 0.0
    return float(max(lam for lam, s in zip(ordered, scores, strict=True)
                     if s >= best - slack - 1e-12))
