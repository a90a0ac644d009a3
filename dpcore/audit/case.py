"""One audit case: a mechanism, its claim, a hard pair and a sampler of scores, with the scores'
shared pieces (log-likelihood ratios of the noise laws, the wording of what a pair allows).

The mechanisms' cases are :mod:`dpcore.audit.cases`, a release's own live with the release
(:mod:`dpcore.releases`), and the whole catalogue is :mod:`dpcore.releases.catalogue`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from dpcore.audit.statistics import GaussianTradeoff
from dpcore.mechanisms import L2Laplace

__all__ = ["AuditCase", "capped_note", "l2laplace_llr", "laplace_llr", "objective_llr",
           "release_law_case"]


def l2laplace_llr(out, a, b, scale_a, scale_b=None) -> np.ndarray:
    """``log p_a(out) - log p_b(out)`` for L2-Laplace laws centred at ``a``, ``b``."""
    scale_b = scale_a if scale_b is None else scale_b
    d = np.asarray(out).shape[-1]
    ra = np.linalg.norm(out - a, axis=-1)
    rb = np.linalg.norm(out - b, axis=-1)
    return -ra / scale_a + rb / scale_b - d * math.log(scale_a) + d * math.log(scale_b)


def laplace_llr(out, a, b) -> np.ndarray:
    """``sum_j |out_j - b_j| - |out_j - a_j|``: the Laplace log-ratio times the scale."""
    return np.sum(np.abs(out - b) - np.abs(out - a), axis=-1)


@dataclass(frozen=True)
class AuditCase:
    """One mechanism on one hard pair of neighbouring datasets.

    Attributes
    ----------
    key : str
        Short identifier.
    name : str
        The mechanism as the product names it.
    epsilon, delta : float
        What the mechanism claims.
    neighbouring : str
        Its neighbouring relation (the pair is neighbouring under it).
    pair : str
        How the pair was built.
    fraction : float
        ``f``: distance between the noiseless outputs (or their largest change) as a fraction
        of the sensitivity the mechanism is calibrated to.
    statistic : str
        How each output is reduced to a scalar.
    sample : callable
        ``sample(runs, rng) -> (scores on D, scores on D')``, vectorised.
    broken : bool
        A deliberate fault ("broken on purpose"): the claim is known not to hold.
    refits : bool
        Each run refits a model (the page runs fewer of them).
    covers : str
        What part of the mechanism the runs execute.
    linear : bool
        The privacy loss is linear in the distance of the noiseless outputs (Laplace,
        L2-Laplace, discrete Laplace noise at a scale fixed in advance): see :attr:`pair_limit`.
    noise : str
        The noise law in words ("Laplace noise", "Gaussian noise", "exponential-mechanism
        noise", ...), for the result's wording ("correctly calibrated <noise> ...").
    note : str
        For a case whose loss is not linear: what limits it, in words with its numbers (see
        :attr:`limit_note`).
    tradeoff : callable or None
        ``tradeoff(fpr) -> fnr``: the trade-off function of the correct mechanism's two output
        laws on the pair (the least FNR of a test with that FPR), where known in closed form
        (the Gaussian's); :func:`dpcore.audit.audit_reach` turns it into what an audit with
        a given number of runs can expect to show.
    """

    key: str
    name: str
    epsilon: float
    delta: float
    neighbouring: str
    pair: str
    fraction: float
    statistic: str
    sample: Callable = field(repr=False, compare=False)
    broken: bool = False
    refits: bool = False
    covers: str = "the whole release"
    linear: bool = False
    noise: str = ""
    note: str = ""
    tradeoff: GaussianTradeoff | None = field(default=None, repr=False, compare=False)

    @property
    def pair_limit(self) -> float:
        """The most a correctly calibrated mechanism can lose on this pair: ``f * epsilon`` when
        the loss is linear in the distance (``linear``: Laplace, L2-Laplace, discrete Laplace
        noise at a fixed scale, whose log-density ratio of two outputs is at most
        their distance over the noise scale, so the loss on the pair is at most the noiseless
        outputs' distance over the scale, f epsilon), else the claimed epsilon."""
        return self.fraction * self.epsilon if self.linear else self.epsilon

    @property
    def limit_note(self) -> str:
        """What correctly calibrated noise of this law can lose on this pair, in words with
        its numbers: the share-f cap of :attr:`pair_limit` for a ``linear`` case (naming its
        noise), else :attr:`note` (the Gaussian's tails, an index, a solver's Jacobian)."""
        return _linear_note(self.noise, self.fraction, self.epsilon) if self.linear else self.note


def _linear_note(noise: str, fraction: float, epsilon: float) -> str:
    """What correct noise whose loss is linear in the distance allows on a pair, in words."""
    return (f"Correctly calibrated {noise} loses at most the distance of its centres over "
            f"its scale: on this pair, whose noiseless outputs are a share f = {fraction:.2f} of "
            f"the sensitivity apart, even a perfect test shows at most f × ε = "
            f"{fraction * epsilon:.2f}.")


def capped_note(what: str, epsilon: float) -> str:
    """What a correct mechanism whose loss has no share-f cap allows on a pair, in words."""
    return f"{what}: correctly calibrated, it loses at most the claimed ε = {epsilon:g}."


def objective_llr(w: np.ndarray, z: np.ndarray, y01: np.ndarray, n_lam: float,
                  eps_noise: float, centre: float = 0.0) -> np.ndarray:
    """``log p(w)`` of 1-D objective perturbation: ``p_b(b(w)) |b'(w)|``.

    The summed objective is ``sum_i logloss + (n lam)/2 (w - centre)^2 + b w``; its minimiser
    solves ``b(w) = -n lam (w - centre) + sum_i y_i z_i sigma(-y_i z_i w)`` (``y = +-1``), a
    bijection with ``|b'(w)| = n lam + sum_i z_i^2 sigma(z_i w) sigma(-z_i w)``; ``b`` is
    Laplace(2/eps') in 1-D.
    """
    s = 2.0 * y01 - 1.0
    m = np.outer(w, s * z)
    b = -n_lam * (w - centre) + np.sum(s * z * special.expit(-m), axis=1)
    jac = n_lam + np.sum(z * z * special.expit(m) * special.expit(-m), axis=1)
    return math.log(eps_noise / 4.0) - eps_noise * np.abs(b) / 2.0 + np.log(jac)


def release_law_case(key: str, name: str, epsilon: float, mech: L2Laplace, a: np.ndarray,
                     b: np.ndarray, neighbouring: str, pair: str, covers: str) -> AuditCase:
    """The release's own construction of an L2-Laplace mechanism: a Gamma variance times a
    Gaussian vector, at :attr:`~dpcore.mechanisms.L2Laplace.release_scale`
    (:meth:`~dpcore.mechanisms.L2Laplace.release`), drawn by its study twin
    ``randomise(law="release")`` (the same variances, numpy's normals where the release has
    OpenDP's lattice Gaussian; tested in ``tests/test_release_noise.py``), scored by the exact
    log-likelihood ratio of the L2-Laplace it is meant to be."""
    dim = a.size

    def sample(runs, rng):
        o0 = mech.randomise(np.broadcast_to(a, (runs, dim)), rng=rng, law="release")
        o1 = mech.randomise(np.broadcast_to(b, (runs, dim)), rng=rng, law="release")
        return (l2laplace_llr(o0, b, a, mech.release_scale),
                l2laplace_llr(o1, b, a, mech.release_scale))

    fraction = float(np.linalg.norm(a - b)) / mech.sensitivity
    return AuditCase(key, name, epsilon, 0.0, neighbouring, pair, fraction,
                     "log-likelihood ratio of the released vector", sample, linear=True,
                     covers=covers, noise="L2-Laplace noise drawn as a Gaussian scale mixture")
