"""The attacker's whole trade-off curve: the best true-positive rate at each false-positive rate.

Differential privacy as hypothesis testing ([KOV15]_, [DRS19]_): an attacker who sees the
releases tests "this person's record is in the data" against "it is not". Its false-positive
rate α (FPR: saying "in" when the record is out) and true-positive rate (TPR: saying "in" when it
is in) obey ``TPR <= 1 - f(α)`` for every test, where f is the plan's trade-off function (the
f-DP view). :func:`tradeoff` gives ``1 - f`` for a plan of Laplace releases, or of any pure
ε-DP releases counted as randomised response at their ε, the worst case of pure ε-DP
([KOV17]_).

From the privacy loss distribution (``method="pld"``). Let δ(ε') be the plan's privacy
profile: the hockey-stick divergence ``sup_S P(S) - e^ε' Q(S)`` of the composed output laws on
two neighbouring datasets, worst over their order (:func:`dpcore.composition.plan_pld`, read
by ``get_delta_for_epsilon``). The plan is (ε', δ(ε'))-DP for every ε' >= 0, and each such
guarantee bounds every test ([KOV15]_ Theorem 2.1; the trade-off function ``f_{ε,δ}`` of
[DRS19]_ Sect. 2):

``TPR <= δ(ε') + e^ε' α``   and   ``TPR <= 1 - e^-ε' (1 - δ(ε') - α)``.

The curve is the least of these bounds over ε' >= 0: the convex conjugate of the privacy
profile ([DRS19]_ Proposition 2.12, the primal-dual view; exact when f is symmetric, as for
Laplace and randomised-response releases and their compositions). It is concave and
non-decreasing in α (a minimum of non-decreasing affine functions) and at least α.

Discretisation and computation. The loss distribution is dp-accounting's pessimistic
connect-the-dots one ([DGK22]_) on its grid of step Δ (:data:`dpcore.composition.
PLD_DISCRETISATION`): a law ω on the losses kΔ and a mass ω_∞ at infinity, the same for both
orders of the neighbouring datasets (Laplace and randomised response releases). With ``U(ε') =
ω_∞ + P(L > ε')`` and ``W(ε') = Σ_{l > ε'} e^-l ω_l``, ``δ(ε') = U(ε') - e^ε' W(ε')``. Between
two consecutive grid points U and W are constant, and the bounds' derivatives in ε' have the
signs of ``α - W`` and ``1 - α - U``, which change once, from - to +, as ε' grows (U and W do
not increase). So the least first bound over ε' >= 0 is at the first grid point ε' = jΔ with
``W(jΔ) <= α``, the least second bound at the first one with ``U(jΔ) <= 1 - α``: the curve is
the exact minimum for the discretised distribution, found by two binary searches (ε' is capped
at 700, where ``e^ε'`` still fits a double; the cap only loosens the curve for α < e^-700).
The discretised δ is at least the true δ at every ε', so the curve is an upper bound on every
attacker's TPR. For one Laplace release connect-the-dots is exact at the grid points, and each
bound's slope in ε' is at most ``e^ε'`` in absolute value, so the curve exceeds the exact one
(``method="exact"``) by at most ``Δ e^(ε + Δ)``. For k releases, the discretised distribution
is no worse than every loss rounded up to the grid (privacy buckets, which connect-the-dots
tightens, [DGK22]_; randomised response is rounded so), at most Δ above the true loss per
release: ``δ~(ε') <= δ(ε' - kΔ)``, which moves the curve up by at most ``e^(kΔ) - 1``.

References
----------
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML, Theorem 2.1 (the region of (FPR, FNR) of an (ε, δ)-DP test).
.. [KOV17] Kairouz, Oh & Viswanath (2017), *The composition theorem for differential privacy*,
   IEEE Trans. Inf. Theory 63, Theorem 3.2: randomised response is the worst case of every
   pure ε-DP mechanism.
.. [DRS19] Dong, Roth & Su (2019), *Gaussian differential privacy*, arXiv:1905.02383 (J. R.
   Stat. Soc. B 84(1), 2022), Sect. 2: trade-off functions, ``f_{ε,δ}`` (the trade-off
   function of (ε, δ)-DP) and Proposition 2.12 (the primal-dual view).
.. [DGK22] Doroshenko, Ghazi, Kamath, Kumar & Manurangsi (2022), *Connect the dots: tighter
   discrete approximations of privacy loss distributions*, PoPETs 2022(4), Algorithm 1.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpcore.composition import PLD_DISCRETISATION, plan_pld
from dpcore.validation import check_choice, check_scalar

__all__ = ["TRADEOFF_MECHANISMS", "TRADEOFF_METHODS", "tradeoff"]

#: Mechanisms of the releases :func:`tradeoff` composes: the Laplace mechanism at ε, or any
#: pure ε-DP mechanism counted as its worst case (randomised response at ε).
TRADEOFF_MECHANISMS = ("laplace", "pure")
#: From the composed privacy loss distribution, or the closed form of one release.
TRADEOFF_METHODS = ("pld", "exact")
#: Largest ε' whose (ε', δ(ε')) guarantee :func:`tradeoff` reads (``e^ε'`` fits a double).
_MAX_EPSILON = 700.0


def _check_epsilons(epsilons: Any) -> np.ndarray:
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if eps.ndim != 1 or eps.size == 0:
        raise ValueError(f"epsilons must be a non-empty 1-D sequence (one ε per release), got "
                         f"{epsilons!r}. Pass e.g. [1.0] for one release at ε = 1.")
    if not np.all(np.isfinite(eps)) or np.any(eps < 0.0):
        raise ValueError(f"epsilons must be finite and >= 0, got {epsilons!r}.")
    return eps


def _check_fpr(fpr: Any) -> np.ndarray:
    alpha = np.asarray(fpr, dtype=float)
    if not np.all(np.isfinite(alpha)) or np.any((alpha < 0.0) | (alpha > 1.0)):
        raise ValueError(f"fpr must hold false-positive rates in [0, 1], got {fpr!r}. Pass "
                         "e.g. [0.01, 0.1].")
    return alpha


def laplace_tradeoff(epsilon: float, fpr: Any) -> np.ndarray:
    """Best TPR at each FPR against one Laplace release at ``epsilon`` (closed form).

    The release is ``x + Laplace(Δ/ε)``; in units of the noise scale the two laws are
    ``Lap(0, 1)`` and ``Lap(ε, 1)``. By the Neyman-Pearson lemma the best tests reject for
    large outputs (the likelihood ratio is non-decreasing in the output, constant beyond the
    two centres), and a threshold t gives ``α = P(X > t)``, ``TPR = P(X > t - ε)``, X ~
    Lap(0, 1):

    * ``α <= e^-ε / 2`` (t >= ε): ``TPR = e^ε α``;
    * ``e^-ε / 2 <= α <= 1/2`` (0 <= t <= ε): ``TPR = 1 - e^-ε / (4 α)``;
    * ``α >= 1/2`` (t <= 0): ``TPR = 1 - e^-ε (1 - α)``.

    Examples
    --------
    >>> float(laplace_tradeoff(1.0, 0.01)) == math.e * 0.01
    True
    """
    epsilon = check_scalar(epsilon, "epsilon", min_val=0.0, include_min=True)
    alpha = _check_fpr(fpr)
    knee = 0.5 * math.exp(-epsilon)
    with np.errstate(divide="ignore"):
        middle = 1.0 - knee / (2.0 * alpha)
    return np.where(alpha <= knee, math.exp(epsilon) * alpha,
                    np.where(alpha <= 0.5, middle, 1.0 - math.exp(-epsilon) * (1.0 - alpha)))


def dp_tradeoff(epsilon: float, fpr: Any, *, delta: float = 0.0) -> np.ndarray:
    """Best TPR at each FPR against one (ε, δ)-DP release, worst case: ``min(1, δ + e^ε α,
    1 - e^-ε (1 - δ - α))`` ([KOV15]_ Theorem 2.1; at δ = 0, ``1 - f_{ε,0}`` of [DRS19]_
    Sect. 2, which randomised response at ε attains).

    Examples
    --------
    >>> [round(float(v), 4) for v in dp_tradeoff(1.0, [0.01, 0.5, 1.0])]
    [0.0272, 0.8161, 1.0]
    >>> [round(float(v), 5) for v in dp_tradeoff(1.0, [0.0, 0.01], delta=0.01)]
    [0.01, 0.03718]
    """
    epsilon = check_scalar(epsilon, "epsilon", min_val=0.0, include_min=True)
    delta = check_scalar(delta, "delta", min_val=0.0, max_val=1.0, include_min=True)
    alpha = _check_fpr(fpr)
    return np.minimum(1.0, np.minimum(delta + math.exp(epsilon) * alpha,
                                      1.0 - math.exp(-epsilon) * (1.0 - delta - alpha)))


def _curve(loss: Any, alpha: np.ndarray) -> np.ndarray:
    """``min over ε' >= 0`` of the two bounds of the module's docstring, for the loss
    distribution ``loss`` of Laplace or randomised-response releases, kept in ``[α, 1]`` (every
    test reaches TPR = α by guessing; none passes 1).

    Reads the distribution's arrays, private in ``dp-accounting`` 0.6 (pinned below 0.7; a test
    compares the result with the minimum over the grid of its public ``get_delta_for_epsilon``).
    """
    pmf = loss._pmf_remove.to_dense_pmf()  # one law for both orders (symmetric distribution)
    step = pmf._discretization
    ks = np.arange(pmf.size) + pmf._lower_loss  # losses k Δ, ascending
    probs = np.asarray(pmf._probs, dtype=float)
    keep = ks > 0  # only positive losses exceed some ε' >= 0
    ks, probs = ks[keep], probs[keep]
    top = min(int(ks[-1]) if ks.size else 0, int(_MAX_EPSILON / step))
    grid = np.arange(top + 1)
    above = np.searchsorted(ks, grid, side="right")  # losses above jΔ: ks[above[j]:]
    suffix = np.r_[np.cumsum(probs[::-1])[::-1], 0.0]
    weighted = probs * np.exp(-ks * step)
    upper = pmf._infinity_mass + suffix[above]  # U(jΔ)
    lower = np.r_[np.cumsum(weighted[::-1])[::-1], 0.0][above]  # W(jΔ)
    eps = grid * step
    flat = alpha.ravel()
    # U and W do not increase with j: the first j with W <= α (U <= 1 - α), and the one before
    first = np.searchsorted(-lower, -flat, side="left").clip(0, top)
    second = np.searchsorted(-upper, flat - 1.0, side="left").clip(0, top)
    best = np.ones_like(flat)
    for j in (first, (first - 1).clip(0)):
        best = np.minimum(best, upper[j] + np.exp(eps[j]) * (flat - lower[j]))
    for j in (second, (second - 1).clip(0)):
        best = np.minimum(best, 1.0 - np.exp(-eps[j]) * (1.0 - flat - upper[j]) - lower[j])
    return np.clip(best, flat, 1.0).reshape(alpha.shape)


def tradeoff(epsilons: Any, fpr: Any, *, mechanism: str = "laplace", method: str = "pld",
             discretisation: float = PLD_DISCRETISATION) -> np.ndarray:
    """The attacker's best TPR at each FPR against a plan of releases at ``epsilons``.

    See the module's docstring for the mathematics.

    Parameters
    ----------
    epsilons : sequence of float
        ε_i >= 0 of each release (a release at ε = 0 reveals nothing).
    fpr : float or array-like of float
        False-positive rates in [0, 1].
    mechanism : {"laplace", "pure"}, default="laplace"
        Laplace releases, or any pure ε-DP releases (counted as randomised response, their
        worst case).
    method : {"pld", "exact"}, default="pld"
        ``"pld"``: from the composed privacy loss distribution (an upper bound, off by the
        discretisation only); ``"exact"``: the closed form of ONE release
        (:func:`laplace_tradeoff`, :func:`dp_tradeoff`).
    discretisation : float, default=PLD_DISCRETISATION
        Step Δ of the privacy loss grid of ``"pld"``, in (0, 1].

    Returns
    -------
    ndarray of the shape of ``fpr``
        Upper bounds on the TPR, non-decreasing and concave in the FPR, each at least the FPR.

    Examples
    --------
    >>> round(float(tradeoff([1.0], [0.01])[0]), 5)  # e * 0.01: ε-DP's bound is attained
    0.02718
    >>> round(float(tradeoff([0.05] * 100, [0.01])[0]), 3)  # sequential ε = 5: 1.0
    0.033
    """
    eps = _check_epsilons(epsilons)
    alpha = _check_fpr(fpr)
    mechanism = check_choice(mechanism, "mechanism", TRADEOFF_MECHANISMS)
    method = check_choice(method, "method", TRADEOFF_METHODS)
    if method == "exact":
        if eps.size != 1:
            raise ValueError(f"method='exact' is the closed form of one release; got "
                             f"{eps.size} epsilons. Use method='pld' for a plan of several.")
        one = laplace_tradeoff if mechanism == "laplace" else dp_tradeoff
        return one(float(eps[0]), alpha)
    step = check_scalar(discretisation, "discretisation", min_val=0.0, max_val=1.0)
    names = ["Laplace" if mechanism == "laplace" else None] * eps.size
    loss = plan_pld(eps, mechanisms=names, discretisation=step)
    if loss is None:  # every ε is 0: no test does better than guessing
        return alpha.copy()
    return _curve(loss, alpha)
