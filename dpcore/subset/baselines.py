"""Baselines of [WJ18]_ Sect. 5.1: the public set alone, and Lei's perturbed histogram of D.

* :func:`public_only_estimate`: the M-estimator on E with equal weights; costs no privacy.
* The non-private hybrid curve (weights without noise) is part of
  :func:`dpcore.subset.subset_study`; it is labelled non-private everywhere.
* :func:`lei_histogram`: [Lei11]_'s perturbed histogram from D alone: cells of side ``1/bins``
  in ``[0, 1]^p`` (times the two labels for logistic regression), Laplace(2/epsilon) noise on
  the counts (replace-one: one record leaves one cell and enters another, L1 sensitivity 2),
  negative counts truncated at 0 (as [Lei11]_'s non-negative version), synthetic points at the
  cell centres weighted by their noisy counts, then the same M-estimator. Only for p <= 3: the
  number of cells grows like ``bins^p``.

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3), Sect. 3.1 and 5.1.
.. [Lei11] J. Lei (2011), *Differentially private M-estimators*, NIPS 24, pp. 361-369.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpcore.mechanisms import Laplace
from dpcore.subset.estimators import m_estimate
from dpcore.subset.rescale import Rescaled
from dpcore.subset.weights import COUNT_SENSITIVITY, NEIGHBOURING
from dpcore.validation import DataError, check_epsilon, check_random_state

__all__ = ["LEI_MAX_DIM", "check_bins", "public_only_estimate", "lei_bins", "lei_histogram"]

#: Largest number of covariates for which the histogram baseline is offered.
LEI_MAX_DIM = 3


def public_only_estimate(data: Rescaled, loss: str = "logistic", *, lam: float = 1e-2):
    """The M-estimator on the public set alone (equal weights on E's rows; no privacy cost).

    Each distinct point is weighted by how many rows of E it stands for.
    """
    w = data.multiplicity / data.multiplicity.sum()
    return m_estimate(data.public, w.astype(float), loss, target=data.target, lam=lam)


def lei_bins(n_private: int, p: int, epsilon: float) -> int:
    """Default bins per axis: ``ceil((n_D epsilon)^(1/(p+2)))``.

    [WJ18]_ does not state the bins of its Lei baseline (Sect. 5.1 mentions "10 bins in each
    dimension" only to count the cells at p = 100). The bias of a histogram with cells of side
    h is O(h) and the noise of its ``h^-p`` cells adds O(h^-p / (n epsilon)) to the density in
    L1 ([Lei11]_ Sect. 3 balances these terms); we take ``h = (n epsilon)^(-1/(p+2))``, the
    choice of the same order for the M-estimator's gradient. A documented default, not tuned;
    pass ``bins`` to change it.

    >>> lei_bins(10_000, 2, 2.4)  # (24,000)^(1/4) = 12.4
    13
    """
    return max(1, math.ceil((n_private * epsilon) ** (1.0 / (p + 2))))


def check_bins(bins: Any) -> int:
    """``bins`` as an int if it is a whole number >= 1, else a ``ValueError`` that says so.

    >>> check_bins(10)
    10
    """
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
        raise ValueError(f"bins == {bins!r}, must be a whole number >= 1 (cells per axis), or "
                         "None for the rule of lei_bins().")
    return int(bins)


def lei_histogram(
    data: Rescaled,
    epsilon: float,
    loss: str = "logistic",
    *,
    bins: int | None = None,
    lam: float = 1e-2,
    rng: Any = None,
    repeats: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lei's perturbed-histogram M-estimator from the private data alone ([Lei11]_).

    Parameters
    ----------
    data : Rescaled
        Step-1 data; only its private part is used (the rescaling bounds come from E).
    epsilon : float
        Privacy loss of the histogram (the paper compares at the same total epsilon).
    loss : {"logistic", "squared", "absolute"}, default="logistic"
    bins : int, default=None
        Cells per axis (at least 1); None: :func:`lei_bins`.
    lam : float, default=1e-2
        Penalty of the logistic fit, as for the hybrid estimators.
    rng : None, int or numpy.random.Generator, default=None
    repeats : int, default=1
        Independent noisy histograms (vectorised).

    Returns
    -------
    theta : ndarray of shape (repeats, d)
    centres : ndarray of shape (cells, q)
        Cell centres (with the label as the last column for the logistic loss).
    weights : ndarray of shape (cells, repeats)
        Noisy truncated counts divided by n_D.

    Notes
    -----
    Neighbouring relation: replace one private record. The counts vector changes by at most 2
    in L1; epsilon-DP by the Laplace mechanism. Every record lies in [0, 1]^p after Step 1
    (bounds from E), so the cells cover the domain.
    """
    epsilon = check_epsilon(epsilon)
    gen = check_random_state(rng)
    X = data.private[:, data.covariates]
    p = X.shape[1]
    if p > LEI_MAX_DIM:
        raise DataError(
            f"The perturbed histogram needs bins^p cells; p = {p} covariates is too many "
            f"(at most {LEI_MAX_DIM}). Use the hybrid estimator instead."
        )
    n = X.shape[0]
    bins = lei_bins(n, p, epsilon) if bins is None else check_bins(bins)
    cell = np.minimum((X * bins).astype(int), bins - 1)  # column j in [0, 1]: cell floor(x b)
    flat = np.ravel_multi_index(cell.T, (bins,) * p) if p else np.zeros(n, dtype=int)
    n_cells = bins**p
    grid = (np.indices((bins,) * p).reshape(p, -1).T + 0.5) / bins
    if data.target is not None:
        y = data.private[:, data.target].astype(int)
        flat = flat + n_cells * y
        centres = np.vstack([np.c_[grid, np.zeros(n_cells)], np.c_[grid, np.ones(n_cells)]])
        n_cells *= 2
    else:
        centres = grid
    counts = np.bincount(flat, minlength=n_cells).astype(float)
    mech = Laplace(epsilon, COUNT_SENSITIVITY, neighbouring=NEIGHBOURING)
    noisy = mech.randomise(np.repeat(counts[:, None], repeats, axis=1), rng=gen)
    W = np.maximum(noisy, 0.0) / n
    W[:, W.sum(axis=0) <= 0] = 1.0 / n_cells  # all noise negative: no information, uniform
    target = p if data.target is not None else None  # the label is the last column
    theta = m_estimate(centres, W, loss, target=target, lam=lam)
    return np.atleast_2d(theta), centres, W
