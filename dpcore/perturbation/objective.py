"""Objective perturbation ([CM08]_ Algorithm 2, corrected by [CMS11]_ Algorithm 2).

The released vector minimises the averaged, regularised logistic objective plus a random linear
term::

    J_b(w) = (lam + Delta)/2 ||w||^2 + (1/n) sum_i log(1 + exp(-y_i w.x_i)) + b.w / n

with ``b`` of density proportional to ``exp(-epsilon' ||b|| / 2)`` (an L2-Laplace vector of
sensitivity 2: norm ~ Gamma(d, 2/epsilon'), uniform direction).

Neighbouring relation: replace one record (``n`` fixed). Assumed and enforced by the caller:
``||x_i|| <= 1``, labels in {-1, +1}, ``lam > 0``.

Privacy calibration (:func:`objective_calibration`):

* ``proof="2011"`` (default, [CMS11]_ Algorithm 2 with ``c = 1/4``, the bound on the logistic
  loss's second derivative): ``epsilon' = epsilon - log(1 + 2c/(n lam) + c^2/(n lam)^2)`` and
  ``Delta = 0``; if that is <= 0, ``Delta = c/(n (exp(epsilon/4) - 1)) - lam`` and
  ``epsilon' = epsilon/2``. The log term pays for the Jacobian of the map from ``b`` to ``w``.
* ``proof="2019"`` (the same proof with the Jacobian bounded for a loss whose Hessian has rank
  one, as the logistic loss's ``l''(y w.x) x x^T``, as in [IJ19]_ Theorem 1 with ``r = 1``):
  the Jacobians on neighbours differ by one rank-one term, so by the matrix determinant lemma
  their ratio is ``(1 + u)/(1 + u')`` with ``u, u'`` in ``[0, c/(n lam)]``, and the term is
  ``log(1 + c/(n lam))``, half of the 2011 one to first order. Where it would take more than half
  of ``epsilon`` (small ``n lam``), ``Delta`` raises the regularisation until it takes exactly
  half: ``Delta = c/(n (exp(epsilon/2) - 1)) - lam``, ``epsilon' = epsilon/2`` (a public choice
  of ``n``, ``lam`` and ``epsilon``, as the 2011 switch is). The release
  (:mod:`dpcore.perturbation.amp`) uses it.
* ``proof="2008"`` (as printed in [CM08]_ Theorem 2): ``epsilon' = epsilon``, ``Delta = 0``. The
  proof omits that Jacobian, so the stated guarantee does not hold; kept for comparison only,
  with :class:`FlawedProofWarning`.

Inexact solves ([IJ19]_, Approximate Minima Perturbation): the proofs need the exact minimiser.
We solve to a certified objective gap ``J_b(w) - min J_b <= tol`` (so ``||w - w*|| <=
sqrt(2 tol / mu)``, ``mu = lam + Delta`` the strong convexity), for any pair of neighbours that
is ``2 sqrt(2 tol / mu)`` apart at most, and add an L2-Laplace correction of that sensitivity
with a small share ``amp_fraction`` of epsilon. The total is epsilon-DP: ``epsilon_objective +
epsilon_correction = epsilon``.

References
----------
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS,
   Algorithm 2, Theorem 2, Lemma 4.
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12, Algorithm 2 and Theorem 9.
.. [IJ19] Iyengar, Near, Song, Thakkar, Thakurta & Wang (2019), *Towards practical
   differentially private convex optimization*, IEEE S&P, Algorithm 1 (AMP).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from dpcore.mechanisms import L2Laplace
from dpcore.perturbation.output import REPLACE_ONE
from dpcore.validation import check_choice, check_epsilon, check_random_state, check_scalar

__all__ = [
    "AMP_FRACTION",
    "LOGISTIC_C",
    "PROOFS",
    "FlawedProofWarning",
    "ObjectiveCalibration",
    "amp_sensitivity",
    "objective_calibration",
    "objective_noise",
]

#: Bound ``c`` on the second derivative of the logistic loss in the margin ([CMS11]_ Corollary 10).
LOGISTIC_C = 0.25
#: Share of epsilon spent on the Approximate Minima Perturbation correction ([IJ19]_).
AMP_FRACTION = 0.01
#: Privacy calibrations of objective perturbation: corrected (2011), as printed (2008), or the
#: corrected one with the rank-one Jacobian bound (2019).
PROOFS = ("2011", "2008", "2019")


class FlawedProofWarning(UserWarning):
    """A calibration whose published privacy proof is known to be incomplete was chosen."""


FLAWED_2008 = (
    "proof='2008' calibrates objective perturbation as printed in Chaudhuri & Monteleoni (2008), "
    "whose proof omits the Jacobian of the map from the noise b to the output w: the claimed "
    "epsilon is not guaranteed. Use proof='2011' (Chaudhuri, Monteleoni & Sarwate 2011, "
    "Algorithm 2) for a release."
)


@dataclass(frozen=True)
class ObjectiveCalibration:
    """Privacy parameters of one objective-perturbation release.

    Attributes
    ----------
    epsilon : float
        Total budget (``epsilon_objective + epsilon_correction``).
    epsilon_objective : float
        The budget of the perturbed objective itself (before the 2011 correction).
    epsilon_noise : float
        ``epsilon'``: the noise ``b`` has density proportional to ``exp(-epsilon' ||b|| / 2)``.
    epsilon_correction : float
        Budget of the AMP correction for the inexact solve.
    delta_reg : float
        Extra regularisation ``Delta`` ([CMS11]_ Algorithm 2 step 2); 0 when not needed.
    lam : float
        The user's regularisation; the objective uses ``lam + delta_reg``.
    proof : str
        ``"2011"`` or ``"2008"``.
    """

    epsilon: float
    epsilon_objective: float
    epsilon_noise: float
    epsilon_correction: float
    delta_reg: float
    lam: float
    proof: str

    @property
    def lam_total(self) -> float:
        """Strong convexity ``lam + Delta`` of the perturbed objective."""
        return self.lam + self.delta_reg

    @property
    def noise_scale(self) -> float:
        """Scale ``2 / epsilon'`` of ``||b|| ~ Gamma(d, 2 / epsilon')``."""
        return 2.0 / self.epsilon_noise


def objective_calibration(epsilon: float, *, n: int, lam: float, proof: str = "2011",
                          c: float = LOGISTIC_C, amp_fraction: float = AMP_FRACTION,
                          warn: bool = True) -> ObjectiveCalibration:
    """Split ``epsilon`` and calibrate the noise of objective perturbation.

    Parameters
    ----------
    epsilon : float
        Total privacy budget, > 0.
    n : int
        Number of records, >= 1.
    lam : float
        Regularisation of the averaged objective, > 0.
    proof : {"2011", "2008", "2019"}, default="2011"
        ``"2011"``: [CMS11]_ Algorithm 2 steps 1-2; ``"2008"``: [CM08]_ Algorithm 2 as printed
        (emits :class:`FlawedProofWarning` when ``warn``); ``"2019"``: the rank-one Jacobian
        term (module docstring).
    c : float, default=0.25
        Bound on the loss's second derivative (1/4 for the logistic loss).
    amp_fraction : float, default=0.01
        Share of ``epsilon`` for the correction of the inexact solve, in [0, 1).
    warn : bool, default=True
        Warn about ``proof="2008"``; studies that compare both forms on purpose pass False.

    Returns
    -------
    ObjectiveCalibration

    Examples
    --------
    >>> cal = objective_calibration(1.0, n=1000, lam=0.01, amp_fraction=0.0)
    >>> round(cal.epsilon_noise, 4), cal.delta_reg
    (0.9506, 0.0)
    >>> cal = objective_calibration(0.01, n=1000, lam=0.001, amp_fraction=0.0)
    >>> round(cal.epsilon_noise, 4), round(cal.lam_total, 5)
    (0.005, 0.09988)
    >>> cal = objective_calibration(1.0, n=1000, lam=0.01, proof="2019", amp_fraction=0.0)
    >>> round(cal.epsilon_noise, 4), cal.delta_reg
    (0.9753, 0.0)
    >>> cal = objective_calibration(0.01, n=1000, lam=0.001, proof="2019", amp_fraction=0.0)
    >>> round(cal.epsilon_noise, 4), round(cal.lam_total, 5)
    (0.005, 0.04988)
    """
    epsilon = check_epsilon(epsilon)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an int, got {type(n).__name__} ({n!r}).")
    if n < 1:
        raise ValueError(f"n == {n}, must be >= 1.")
    lam = check_scalar(lam, "lam", min_val=0.0)
    proof = check_choice(proof, "proof", PROOFS, advice="'2011' and its rank-one form '2019' "
                         "are correct calibrations.")
    c = check_scalar(c, "c", min_val=0.0)
    amp_fraction = check_scalar(amp_fraction, "amp_fraction", min_val=0.0, include_min=True,
                                max_val=1.0, include_max=False)
    eps_obj = epsilon * (1.0 - amp_fraction)
    delta_reg = 0.0
    if proof == "2008":
        if warn:
            warnings.warn(FLAWED_2008, FlawedProofWarning, stacklevel=2)
        eps_noise = eps_obj
    elif proof == "2019":
        eps_noise = eps_obj - math.log1p(c / (n * lam))
        if eps_noise < eps_obj / 2.0:  # regularise more until the Jacobian takes half
            delta_reg = c / (n * math.expm1(eps_obj / 2.0)) - lam
            eps_noise = eps_obj / 2.0
    else:
        ratio = c / (n * lam)
        eps_noise = eps_obj - math.log1p(2.0 * ratio + ratio * ratio)
        if eps_noise <= 0.0:  # [CMS11]_ Algorithm 2 step 2: regularise more, spend half
            delta_reg = c / (n * math.expm1(eps_obj / 4.0)) - lam
            eps_noise = eps_obj / 2.0
    return ObjectiveCalibration(epsilon, eps_obj, eps_noise, epsilon - eps_obj, max(delta_reg, 0.0),
                                lam, proof)


def amp_sensitivity(tol: float, lam_total: float) -> float:
    """Sensitivity of a solve certified to objective gap ``tol`` ([IJ19]_ Theorem 1, L2 form).

    Each neighbour's solve is within ``sqrt(2 tol / mu)`` of its exact minimiser (``mu``-strong
    convexity), and the exact minimisers coincide under the coupling of the objective-perturbation
    proof, so the released solves are at most ``2 sqrt(2 tol / mu)`` apart.

    >>> float(f"{amp_sensitivity(1e-16, 0.01):.3g}")
    2.83e-07
    """
    tol = check_scalar(tol, "tol", min_val=0.0)
    lam_total = check_scalar(lam_total, "lam_total", min_val=0.0)
    return 2.0 * math.sqrt(2.0 * tol / lam_total)


def objective_noise(cal: ObjectiveCalibration, dim: int, size: int | tuple[int, ...] = (),
                    *, rng=None) -> np.ndarray:
    """Draw ``b`` of density proportional to ``exp(-epsilon' ||b|| / 2)``, shape (*size, dim).

    The L2-Laplace mechanism with sensitivity 2 and ``epsilon'`` ([CM08]_ Algorithm 2 step 1):
    ``||b|| ~ Gamma(dim, 2 / epsilon')``, uniform direction.
    """
    rng = check_random_state(rng)
    size = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
    mech = L2Laplace(epsilon=cal.epsilon_noise, sensitivity=2.0, dim=dim, neighbouring=REPLACE_ONE)
    return mech.randomise(np.zeros((*size, dim)), rng=rng)


def amp_correction(cal: ObjectiveCalibration, dim: int, tol: float,
                   size: int | tuple[int, ...] = (), *, rng=None) -> np.ndarray:
    """The AMP correction noise of shape (*size, dim), or zeros if no budget is set aside."""
    size = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
    if cal.epsilon_correction <= 0.0:
        if tol > 0.0:
            raise ValueError("An inexact solve (tol > 0) needs amp_fraction > 0 to be private.")
        return np.zeros((*size, dim))
    mech = L2Laplace(epsilon=cal.epsilon_correction,
                     sensitivity=amp_sensitivity(tol, cal.lam_total), dim=dim,
                     neighbouring=REPLACE_ONE)
    return mech.randomise(np.zeros((*size, dim)), rng=check_random_state(rng))
