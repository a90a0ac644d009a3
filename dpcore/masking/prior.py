"""The public model ``W_E``: the centre of the masking page's penalty, fitted on the public set.

The page's model penalises ``lam/2 ||W - W_E||^2`` instead of the paper's ``lam/2 ||W||^2``
(:class:`dpcore.masking.MaskedDataGenerator`'s ``coef_prior``). ``W_E`` is the same model fitted
on the public set E alone, at the λ of :data:`PRIOR_LAMBDAS` that scores best on a seeded 30 % of
E when fitted on the other 70 % (then refitted on all of E). It reads E only, so it costs no
privacy, and at a large λ the noisy release ``W'`` falls back to it: what a small ``epsilon * n``
can still say.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpcore.masking.generator import design_records
from dpcore.masking.model import fit_logistic_model, predict_labels
from dpcore.random import stream
from dpcore.validation import DataError

__all__ = ["PRIOR_LAMBDAS", "PRIOR_TRAIN", "PublicModel", "public_model"]

#: The λ tried for ``W_E`` (log-spaced, 0.001 to 1).
PRIOR_LAMBDAS = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0)
#: Share of E fitted when λ is chosen; the rest scores it.
PRIOR_TRAIN = 0.7


@dataclass(frozen=True)
class PublicModel:
    """Result of :func:`public_model`.

    Attributes
    ----------
    coef : ndarray of shape (K, n_features + intercept)
        ``W_E``, for design records (:func:`dpcore.masking.generator.design_records`).
    lam : float
        The λ it was fitted at.
    """

    coef: np.ndarray
    lam: float


def public_model(X, y, data_norm: float, *, n_classes: int = 2, intercept: bool = True,
                 lams: Sequence[float] = PRIOR_LAMBDAS, seed: int = 0) -> PublicModel:
    """``W_E``: the regularised logistic model of the public records ``(X, y)``.

    Parameters
    ----------
    X : array-like of shape (n, n_features)
        Public records, centred as the private ones will be.
    y : array-like of shape (n,)
        Their label codes ``0 .. n_classes - 1``.
    data_norm : float
        The records' norm bound (the same as the private fit's).
    n_classes : int, default=2
    intercept : bool, default=True
        Whether the model has the intercept column.
    lams : sequence of float, default=PRIOR_LAMBDAS
    seed : int, default=0
        Seeds the 70/30 split that chooses λ.

    Returns
    -------
    PublicModel

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)) * 0.3
    >>> model = public_model(X, (X[:, 0] > 0.1).astype(int), 1.0)
    >>> model.coef.shape, model.lam in PRIOR_LAMBDAS
    ((1, 3), True)
    """
    Xd, _ = design_records(X, data_norm, intercept=intercept)
    y = np.asarray(y).astype(np.intp)
    if len(y) < 4 or np.unique(y).size < 2:
        raise DataError(f"The public set has {len(y)} rows and {np.unique(y).size} class(es): "
                        "too few to fit the public model the masking page's penalty is centred "
                        "on. Upload a public file with records of every class.")
    order = stream(seed, "masking", "public model").permutation(len(y))
    cut = int(PRIOR_TRAIN * len(y))
    train, test = order[:cut], order[cut:]
    lam = float(max(lams))
    if np.unique(y[train]).size == n_classes:
        coefs = [fit_logistic_model(Xd[train], y[train], lam=float(v), n_classes=n_classes).coef
                 for v in lams]
        scores = np.array([np.mean(predict_labels(c, Xd[test]) == y[test]) for c in coefs])
        lam = float(max(v for v, s in zip(lams, scores, strict=True)
                        if s >= scores.max() - 1e-12))  # a tie: the larger λ
    return PublicModel(fit_logistic_model(Xd, y, lam=lam, n_classes=n_classes).coef, lam)
