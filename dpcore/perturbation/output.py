"""Output perturbation of a regularised ERM minimiser ([CM08]_ Algorithm 1).

The released vector is ``w* + eta`` where ``w*`` minimises the averaged, ``lam``-regularised
objective ``(lam/2)||w||^2 + (1/n) sum_i loss(y_i w.x_i)``. In the paper (and in every study
here) ``eta`` has density proportional to ``exp(-epsilon ||eta|| / Delta)`` (the L2-Laplace, or
"gamma", mechanism: norm ~ Gamma(d, Delta / epsilon), direction uniform). A release
(``rng=None``) draws the same law float-safe, as a Gaussian scale mixture around OpenDP's exact
discrete Gaussian (:meth:`dpcore.mechanisms.L2Laplace.release`).

Neighbouring relation: replace one record (``n`` fixed). Data bounds assumed and enforced by the
caller: every record has ``||x_i|| <= data_norm`` (scale by a bound from the domain, clip what is
still above it), the loss is ``lipschitz``-Lipschitz in the margin ``y w.x`` (1 for the logistic
loss) and ``lam > 0``.

References
----------
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS,
   Corollary 2 and Algorithm 1.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.mechanisms import L2Laplace
from dpcore.validation import (
    DataError,
    check_epsilon,
    check_scalar,
    check_study_or_release,
)

__all__ = ["REPLACE_ONE", "check_certified", "output_sensitivity", "perturb_output"]

#: The neighbouring relation of [CM08]_: two datasets of the same size ``n`` that differ in one
#: record (features and label).
REPLACE_ONE = "replace one record (n fixed)"


UNCERTIFIED = (
    "The solver could not certify the fit to the accuracy the privacy proof needs (objective gap "
    "{tol:g}) with lam = {lam:g} on {n} records. Raise lam (or use more records); nothing was "
    "released."
)


def check_certified(certified: bool, *, tol: float, lam: float, n: int) -> None:
    """Refuse a release whose solve is not certified to the objective gap ``tol`` that the
    solver term of its sensitivity assumes (:func:`output_sensitivity`'s ``gap``).

    Call it before any budget is spent. The message names the public tolerance only, never the
    gap the solve reached on the private data.

    Raises
    ------
    DataError
        If ``certified`` is false.
    """
    if not certified:
        raise DataError(UNCERTIFIED.format(tol=tol, lam=lam, n=n))


def output_sensitivity(n: int, lam: float, data_norm: float = 1.0, lipschitz: float = 1.0,
                       gap: float = 0.0) -> float:
    """L2 sensitivity of the (approximate) minimiser of the averaged regularised objective.

    ``2 * lipschitz * data_norm / (n * lam)`` for the exact minimiser ([CM08]_ Corollary 2,
    replace-one neighbours, ``||x_i|| <= data_norm``), plus ``2 * sqrt(2 * gap / lam)`` for a solve
    whose certified sub-optimality is ``gap``: the objective is ``lam``-strongly convex, so such a
    solution lies within ``sqrt(2 gap / lam)`` of the exact minimiser, on either neighbour.

    Parameters
    ----------
    n : int
        Number of records, >= 1.
    lam : float
        Regularisation strength of the *averaged* objective, > 0.
    data_norm : float, default=1.0
        Bound on every record's L2 norm (from the domain, never from the data).
    lipschitz : float, default=1.0
        Lipschitz constant of the loss in the margin (1 for the logistic loss).
    gap : float, default=0.0
        Certified bound on ``J(w) - min J`` of the averaged objective for the released solve.

    Returns
    -------
    float

    Examples
    --------
    >>> output_sensitivity(100, 0.01)
    2.0
    >>> round(output_sensitivity(100, 0.01, gap=0.005), 6)
    4.0
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an int, got {type(n).__name__} ({n!r}).")
    if n < 1:
        raise ValueError(f"n == {n}, must be >= 1.")
    lam = check_scalar(lam, "lam", min_val=0.0)
    data_norm = check_scalar(data_norm, "data_norm", min_val=0.0)
    lipschitz = check_scalar(lipschitz, "lipschitz", min_val=0.0)
    gap = check_scalar(gap, "gap", min_val=0.0, include_min=True)
    return 2.0 * lipschitz * data_norm / (n * lam) + 2.0 * math.sqrt(2.0 * gap / lam)


def perturb_output(coef, *, n: int, lam: float, epsilon: float, data_norm: float = 1.0,
                   lipschitz: float = 1.0, gap: float = 0.0, rng=None, accountant=None,
                   dataset: str = "", mechanism: str = "output perturbation") -> np.ndarray:
    """Release ``coef`` with L2-Laplace noise calibrated to :func:`output_sensitivity`.

    Parameters
    ----------
    coef : array-like of shape (..., n_features)
        Minimiser(s) of the averaged objective; any leading axes are replicates (or the rows of
        a flattened multiclass matrix) and each row gets an independent noise vector.
    n, lam, data_norm, lipschitz, gap : see :func:`output_sensitivity`
    epsilon : float
        Privacy budget of each row's release, > 0 (pure epsilon-DP, delta = 0).
    rng : None, int or numpy.random.Generator, default=None
        None: a release (the L2-Laplace drawn float-safe from fresh OS entropy, module
        docstring); a seed or Generator: a study (the same law drawn by numpy).
    accountant : dpcore.accountant.BudgetAccountant, default=None
        If given, ``epsilon`` is spent through it *before* any noise is drawn (it raises
        ``BudgetExceeded`` and nothing is released when over budget). Only with ``rng=None``.
    dataset, mechanism : str
        Recorded in the accountant's ledger.

    Returns
    -------
    ndarray of shape (..., n_features)
        ``coef + eta``, independently per row: ``||eta|| ~ Gamma(n_features, sensitivity /
        epsilon)`` with a uniform direction ([CM08]_ Algorithm 1; a release's scale also covers
        OpenDP's 2^-60 grid, :attr:`dpcore.mechanisms.L2Laplace.release_scale`).

    Examples
    --------
    >>> w = perturb_output([0.5, -0.5], n=10_000, lam=0.1, epsilon=1.0, rng=0)
    >>> w.shape
    (2,)
    """
    coef = np.asarray(coef, dtype=float)
    if coef.ndim < 1 or coef.shape[-1] < 1:
        raise ValueError(f"coef must have shape (..., n_features), got shape {coef.shape}.")
    if not np.all(np.isfinite(coef)):
        raise ValueError("coef contains NaN or infinite values; fit the model first.")
    epsilon = check_epsilon(epsilon)
    check_study_or_release(rng, accountant)
    sensitivity = output_sensitivity(n, lam, data_norm, lipschitz, gap)
    mech = L2Laplace(epsilon=epsilon, sensitivity=sensitivity, dim=coef.shape[-1],
                     neighbouring=REPLACE_ONE)
    if accountant is not None:
        accountant.spend(epsilon, 0.0, mechanism=mechanism, dataset=dataset,
                         note=f"n={n}, lam={lam:g}, sensitivity={sensitivity:.4g}; noise: "
                              "L2-Laplace (OpenDP)", relation="replace")
    return mech.draw(coef, rng=rng)
