"""The audit catalogue: every mechanism the product releases with, each on a hard pair.

:func:`audit_cases` builds the cases (:class:`AuditCase`: a mechanism, its claim, a pair of
neighbouring datasets and a vectorised sampler of scores on each) at a claimed epsilon: the
mechanisms of every page, the releases' own noise laws, and the deliberate faults ("broken on
purpose"): noise halved, a norm bound read from the private data, the 2008 objective
perturbation at a small ``n lam``, and Wang et al.'s as-printed accounting of the selection
step. Every case runs on built-in synthetic pairs (:mod:`dpcore.audit.pairs`, no user data)
with a seed; each output is reduced to a scalar score, mostly the log-likelihood ratio of the
two output laws (the optimal test, Neyman-Pearson).

References
----------
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12, Algorithm 2.
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS.
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn.
   93, Algorithm 1.
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3), Algorithm 2.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from dpcore.audit.pairs import importance_pair, logistic_pair
from dpcore.audit.statistics import GaussianTradeoff
from dpcore.importance import release_sensitivity
from dpcore.masking import fit_logistic_model, input_perturbation, lipschitz_constant
from dpcore.masking import scale_records as mask_scale
from dpcore.mechanisms import DiscreteLaplace, Exponential, Gaussian, L2Laplace, Laplace
from dpcore.perturbation import (
    objective_calibration,
    output_sensitivity,
    perturb_output,
    prepare,
    private_coefs,
)
from dpcore.perturbation.amp import amp_calibration, amp_coefs
from dpcore.perturbation.model import TOL, nonprivate_coef
from dpcore.subset.weights import noisy_weights
from dpcore.validation import PrivacyLeakWarning

__all__ = ["BROKEN_KEYS", "CASE_KEYS", "AuditCase", "audit_case", "audit_cases"]


def _l2laplace_llr(out, a, b, scale_a, scale_b=None) -> np.ndarray:
    """``log p_a(out) - log p_b(out)`` for L2-Laplace laws centred at ``a``, ``b``."""
    scale_b = scale_a if scale_b is None else scale_b
    d = np.asarray(out).shape[-1]
    ra = np.linalg.norm(out - a, axis=-1)
    rb = np.linalg.norm(out - b, axis=-1)
    return -ra / scale_a + rb / scale_b - d * math.log(scale_a) + d * math.log(scale_b)


def _laplace_llr(out, a, b) -> np.ndarray:
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


def _capped_note(what: str, epsilon: float) -> str:
    """What a correct mechanism whose loss has no share-f cap allows on a pair, in words."""
    return f"{what}: correctly calibrated, it loses at most the claimed ε = {epsilon:g}."


def _gaussian_note(epsilon: float, delta: float, sigma: float, distance: float) -> str:
    """Where the Gaussian's privacy loss reaches epsilon, in words with its numbers.

    With centres ``distance`` apart and noise SD ``sigma`` (``mu = distance / sigma``), the
    log-ratio of the two densities is linear in the output and reaches epsilon at
    ``epsilon / mu + mu / 2`` SDs from the nearer centre, i.e. ``epsilon / mu - mu / 2`` SDs
    beyond the farther one, where a share ``Phi(mu / 2 - epsilon / mu)`` of its runs land.
    """
    mu = distance / sigma
    beyond = epsilon / mu - mu / 2.0
    share = float(stats.norm.sf(beyond))
    return (f"Gaussian noise (SD {sigma:.3g} here) does not cap its privacy loss: the ratio of "
            f"the two output densities grows without bound into the tails and passes e^ε = "
            f"{math.exp(epsilon):,.2f} only {beyond:.1f} SDs beyond either centre, away from the "
            f"other, where 1 run in {1.0 / share:,.0f} lands; δ = {delta:g} pays for that tail. "
            "Where the runs land the ratio is smaller, so a feasible number of runs shows less "
            "than ε.")


def _laplace_case(epsilon: float, *, halved: bool = False) -> AuditCase:
    mech = Laplace(2.0 * epsilon if halved else epsilon, 1.0)

    def sample(runs, rng):
        return (mech.randomise(np.zeros(runs), rng=rng), mech.randomise(np.ones(runs), rng=rng))

    name = "Laplace" + (" with its noise scale halved" if halved else "")
    return AuditCase("laplace_halved" if halved else "laplace", name, epsilon, 0.0,
                     "any (sensitivity 1)", "f(D) = 0, f(D') = 1", 1.0, "the output", sample,
                     broken=halved, linear=True, noise="Laplace noise")


def _gaussian_case(epsilon: float, delta: float = 1e-5) -> AuditCase:
    mech = Gaussian(epsilon, delta, 1.0)

    def sample(runs, rng):
        return (mech.randomise(np.zeros(runs), rng=rng), mech.randomise(np.ones(runs), rng=rng))

    return AuditCase("gaussian", "Gaussian (analytic calibration)", epsilon, delta,
                     "any (L2 sensitivity 1)", "f(D) = 0, f(D') = 1", 1.0, "the output", sample,
                     noise="Gaussian noise", note=_gaussian_note(epsilon, delta, mech.sigma, 1.0),
                     tradeoff=GaussianTradeoff(1.0 / mech.sigma))


def _exponential_case(epsilon: float, k: int = 50) -> AuditCase:
    mech = Exponential(epsilon, 1.0)
    u_d = np.zeros(k)
    u_d[0] = 1.0
    u_dp = np.ones(k)
    u_dp[0] = 0.0

    def sample(runs, rng):
        a = mech.randomise(np.broadcast_to(u_d, (runs, k)), rng=rng) == 0
        b = mech.randomise(np.broadcast_to(u_dp, (runs, k)), rng=rng) == 0
        return a.astype(float), b.astype(float)

    return AuditCase("exponential", "Exponential mechanism", epsilon, 0.0,
                     "any (utility sensitivity 1)",
                     f"{k} candidates: u(D) = (1, 0, ..., 0), u(D') = (0, 1, ..., 1)", 1.0,
                     "candidate 0 chosen (0/1)", sample, noise="exponential-mechanism noise",
                     note=_capped_note("The exponential mechanism releases an index (the test: "
                                       "was candidate 0 chosen?)", epsilon))



def _importance_case(epsilon: float, *, n_private: int = 50, d: int = 3, lam: float = 0.01,
                     halved: bool = False, seed: int = 13) -> AuditCase:
    b_d, b_dp, dist, x, xp = importance_pair(n_private, d, lam, seed)
    dim = b_d.size
    sens = release_sensitivity(dim, n_private, lam)
    mech = L2Laplace(2.0 * epsilon if halved else epsilon, sens, dim)

    def sample(runs, rng):
        o0 = mech.randomise(np.broadcast_to(b_d, (runs, dim)), rng=rng)
        o1 = mech.randomise(np.broadcast_to(b_dp, (runs, dim)), rng=rng)
        return (_l2laplace_llr(o0, b_dp, b_d, mech.scale),
                _l2laplace_llr(o1, b_dp, b_d, mech.scale))

    name = "DP importance weights (Ji & Elkan Alg. 1)" + (" with noise halved" if halved else "")
    return AuditCase(
        "importance_halved" if halved else "importance", name, epsilon, 0.0,
        "replace one private record (N_D public)",
        f"N_D = {n_private}, d = {d}, lam = {lam:g}; changed record {np.round(x, 2).tolist()} "
        f"-> {np.round(xp, 2).tolist()} (hill-climbed)", dist / sens,
        "log-likelihood ratio of the noisy beta", sample, broken=halved, linear=True,
        covers="step 1 fitted once per dataset (deterministic), step 2 noise per run",
        noise="L2-Laplace noise")


def _release_law_case(key: str, name: str, epsilon: float, mech: L2Laplace, a: np.ndarray,
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
        return (_l2laplace_llr(o0, b, a, mech.release_scale),
                _l2laplace_llr(o1, b, a, mech.release_scale))

    fraction = float(np.linalg.norm(a - b)) / mech.sensitivity
    return AuditCase(key, name, epsilon, 0.0, neighbouring, pair, fraction,
                     "log-likelihood ratio of the released vector", sample, linear=True,
                     covers=covers, noise="L2-Laplace noise drawn as a Gaussian scale mixture")


def _importance_release_case(epsilon: float, *, n_private: int = 50, d: int = 3,
                             lam: float = 0.01, seed: int = 13) -> AuditCase:
    b_d, b_dp, _, x, xp = importance_pair(n_private, d, lam, seed)
    mech = L2Laplace(epsilon, release_sensitivity(b_d.size, n_private, lam), b_d.size)
    return _release_law_case(
        "importance_release", "DP importance weights as released (Gaussian scale mixture)",
        epsilon, mech, b_d, b_dp, "replace one private record (N_D public)",
        f"N_D = {n_private}, d = {d}, lam = {lam:g}; changed record {np.round(x, 2).tolist()} "
        f"-> {np.round(xp, 2).tolist()} (hill-climbed)",
        "step 1 fitted once per dataset, the release's noise per run")


def _output_release_case(epsilon: float, *, n: int = 50, d: int = 2,
                         lam: float = 0.1) -> AuditCase:
    X, y, Xp, yp = logistic_pair(n, d, 0)
    w0 = nonprivate_coef(prepare(X, y, data_norm=1.0), lam)
    w1 = nonprivate_coef(prepare(Xp, yp, data_norm=1.0), lam)
    mech = L2Laplace(epsilon, output_sensitivity(n, lam, gap=TOL), w0.size)
    return _release_law_case(
        "output_release", "Output perturbation as released (Gaussian scale mixture; also "
        "masking's W′)", epsilon, mech, w0, w1, "replace one record (n fixed)",
        f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1",
        "non-private fit once per dataset, the release's noise per run")


def _counts_release_case(epsilon: float) -> AuditCase:
    mech = DiscreteLaplace(epsilon, 2)
    c_d, c_dp = np.array([30, 70]), np.array([29, 71])

    def sample(runs, rng):
        a = mech.randomise(np.broadcast_to(c_d, (runs, 2)), rng=rng)
        b = mech.randomise(np.broadcast_to(c_dp, (runs, 2)), rng=rng)
        return _laplace_llr(a, c_dp, c_d), _laplace_llr(b, c_dp, c_d)

    return AuditCase("counts_release", "Wang et al. counts as released (discrete Laplace)",
                     epsilon, 0.0, "replace one private record",
                     "one record moves from one public point's cell to another's (L1 change 2)",
                     1.0, "discrete Laplace log-likelihood ratio of the noisy counts", sample,
                     covers="the noise step of the ranking and candidate counts", linear=True,
                     noise="discrete Laplace noise")


def _output_case(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.1,
                 seed: int = 13) -> AuditCase:
    X, y, Xp, yp = logistic_pair(n, d, seed)
    p0, p1 = prepare(X, y, data_norm=1.0), prepare(Xp, yp, data_norm=1.0)
    w0, w1 = nonprivate_coef(p0, lam), nonprivate_coef(p1, lam)
    sens = output_sensitivity(n, lam, gap=TOL)
    scale = sens / epsilon

    def sample(runs, rng):
        a = private_coefs(p0, epsilons=[epsilon], lam=lam, restarts=runs, method="output",
                          rng=rng, coef_nonprivate=w0)[0][0]
        b = private_coefs(p1, epsilons=[epsilon], lam=lam, restarts=runs, method="output",
                          rng=rng, coef_nonprivate=w1)[0][0]
        return _l2laplace_llr(a, w1, w0, scale), _l2laplace_llr(b, w1, w0, scale)

    fraction = float(np.linalg.norm(w0 - w1)) / sens
    return AuditCase("output", "Output perturbation (Chaudhuri & Monteleoni Alg. 1)", epsilon,
                     0.0, "replace one record (n fixed)",
                     f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1",
                     fraction, "log-likelihood ratio of the noisy coefficients", sample,
                     covers="non-private fit once per dataset, noise per run", linear=True,
                     noise="L2-Laplace noise")


def _norm_from_data_case(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.01,
                         seed: int = 13) -> AuditCase:
    """Output perturbation whose norm bound is read from the private data (a fault)."""
    X, y, _, _ = logistic_pair(n, d, seed)
    X = X * 0.1  # every record small ...
    Xp = X.copy()
    Xp[-1] = np.ones(d) / math.sqrt(d)  # ... but in D' one record at the domain's bound 1
    yp = y
    sens = output_sensitivity(n, lam, gap=TOL)
    preps, centres, scales = [], [], []
    for A, lab in ((X, y), (Xp, yp)):
        bound = float(np.linalg.norm(A, axis=1).max())  # THE FAULT: a bound read off the data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            prep = prepare(A, lab, data_norm=bound)
        preps.append(prep)
        centres.append(nonprivate_coef(prep, lam) / prep.factor)
        scales.append(sens / epsilon / prep.factor)

    def sample(runs, rng):
        outs = [private_coefs(p, epsilons=[epsilon], lam=lam, restarts=runs, method="output",
                              rng=rng, coef_nonprivate=c * p.factor)[0][0] / p.factor
                for p, c in zip(preps, centres, strict=True)]
        return tuple(_l2laplace_llr(o, centres[1], centres[0], scales[1], scales[0])
                     for o in outs)

    return AuditCase("norm_from_data", "Output perturbation with the norm bound read from the "
                     "private data", epsilon, 0.0, "replace one record (n fixed)",
                     f"n = {n}, d = {d}: all records of norm <= 0.1; D' has one at norm 1",
                     float(np.linalg.norm(centres[0] - centres[1])) / (sens / preps[0].factor),
                     "log-likelihood ratio (coefficients in the data's units)", sample,
                     broken=True, noise="L2-Laplace noise",
                     note=_capped_note("Here the L2-Laplace noise's scale follows a norm bound "
                                       "read from the data, so it differs between D and D′ and "
                                       "no share f caps the loss", epsilon))


def _objective_llr(w: np.ndarray, z: np.ndarray, y01: np.ndarray, n_lam: float,
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


def _objective_case(epsilon: float, *, proof: str = "2011", n: int = 10, lam: float = 0.001,
                    seed: int = 13) -> AuditCase:
    gen = np.random.default_rng(seed)
    X = np.zeros((n, 1))  # records at the origin carry no gradient ...
    y = gen.integers(0, 2, n)
    y[:2] = (0, 1)
    X[-1], y[-1] = 1.0, 1  # ... D's changed record at the boundary, D' has it at the origin
    Xp = X.copy()
    Xp[-1] = 0.0
    p0, p1 = prepare(X, y, data_norm=1.0), prepare(Xp, y, data_norm=1.0)
    cal = objective_calibration(epsilon, n=n, lam=lam, proof=proof, warn=False)
    n_lam = n * cal.lam_total

    def sample(runs, rng):
        outs = [private_coefs(p, epsilons=[epsilon], lam=lam, restarts=runs, method="objective",
                              proof=proof, rng=rng, warn=False)[0][0][:, 0] for p in (p0, p1)]
        return tuple(_objective_llr(w, p1.Z[:, 0], p1.y01, n_lam, cal.epsilon_noise)
                     - _objective_llr(w, p0.Z[:, 0], p0.y01, n_lam, cal.epsilon_noise)
                     for w in outs)

    broken = proof == "2008"
    label = ("as printed in 2008 (Chaudhuri & Monteleoni Alg. 2)" if broken
             else "corrected (Chaudhuri, Monteleoni & Sarwate 2011 Alg. 2)")
    return AuditCase(
        "objective2008" if broken else "objective2011", f"Objective perturbation, {label}",
        epsilon, 0.0, "replace one record (n fixed)",
        f"n = {n}, d = 1, n lam = {n * lam:g}: changed record x = 1 -> x = 0", 0.5,
        "exact log-likelihood ratio of the 1-D output (Jacobian included)", sample,
        broken=broken, refits=True, covers="the whole release, one batched refit per run",
        noise="objective-perturbation noise",
        note=_capped_note("Objective perturbation puts its L2-Laplace noise in the objective, "
                          "not on the output, so the output's loss includes the solver's "
                          "Jacobian and no share f caps it", epsilon))


def _masking_case(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.1,
                  seed: int = 13) -> AuditCase:
    X, y, Xp, yp = logistic_pair(n, d, seed)
    L = lipschitz_constant(2)
    fits = [fit_logistic_model(mask_scale(A)[0], lab, lam=lam, n_classes=2)
            for A, lab in ((X, y), (Xp, yp))]
    centres = [f.coef.ravel() for f in fits]
    scales = [output_sensitivity(n, lam, 1.0, L, float(f.gap)) / epsilon for f in fits]

    def sample(runs, rng):
        outs = [perturb_output(np.broadcast_to(c, (runs, c.size)), n=n, lam=lam, epsilon=epsilon,
                               lipschitz=L, gap=float(f.gap), rng=rng)
                for c, f in zip(centres, fits, strict=True)]
        return tuple(_l2laplace_llr(o, centres[1], centres[0], scales[1], scales[0])
                     for o in outs)

    fraction = float(np.linalg.norm(centres[0] - centres[1])) / (scales[0] * epsilon)
    return AuditCase("masking", "Masked data: the noisy classifier w' (Pham et al. Alg. 1 step 2)",
                     epsilon, 0.0, "replace one record (n fixed)",
                     f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1",
                     fraction, "log-likelihood ratio of w'", sample,
                     covers="step 1-2 (fit once per dataset, noise per run); step 3 (greedy "
                            "masked samples) is post-processing", linear=True,
                     noise="L2-Laplace noise")


def _input_case(epsilon: float, *, d: int = 2) -> AuditCase:
    u = np.ones(d) / math.sqrt(d)
    scale = 2.0 / epsilon

    def sample(runs, rng):
        a = input_perturbation(np.broadcast_to(u, (runs, 1, d)), epsilon, rng=rng)[:, 0]
        b = input_perturbation(np.broadcast_to(-u, (runs, 1, d)), epsilon, rng=rng)[:, 0]
        return _l2laplace_llr(a, -u, u, scale), _l2laplace_llr(b, -u, u, scale)

    return AuditCase("input", "Input perturbation (Pham et al. Alg. 2)", epsilon, 0.0,
                     "replace one record's features", "x = u -> x' = -u, ||u|| = 1 (diameter)",
                     1.0, "log-likelihood ratio of the noisy record", sample, linear=True,
                     noise="L2-Laplace noise")


def _counts_case(epsilon: float, *, n_private: int = 100) -> AuditCase:
    c_d = np.array([[30.0], [70.0]])
    c_dp = np.array([[29.0], [71.0]])

    def sample(runs, rng):
        a = noisy_weights(np.repeat(c_d, runs, 1), n_private, epsilon, truncate=False, rng=rng)
        b = noisy_weights(np.repeat(c_dp, runs, 1), n_private, epsilon, truncate=False, rng=rng)
        return (_laplace_llr(a.T * n_private, c_dp[:, 0], c_d[:, 0]),
                _laplace_llr(b.T * n_private, c_dp[:, 0], c_d[:, 0]))

    return AuditCase("counts", "Wang et al. noisy weights (Def. 5)", epsilon, 0.0,
                     "replace one private record",
                     "one record moves from one public point's cell to another's (L1 change 2)",
                     1.0, "Laplace log-likelihood ratio of the noisy counts", sample,
                     covers="the noise step (negative weights truncated afterwards: "
                            "post-processing)", linear=True, noise="Laplace noise")


def _selection_case(epsilon: float, *, k: int = 10, mode: str = "exponential") -> AuditCase:
    """[WJ18]_ Algorithm 2 step 5 at the level of its noise, with its stated sensitivity S.

    The pair moves every criterion by S (what the sensitivity statement allows). ``mode``:
    ``"exponential"`` (calibrated, index only), ``"noisy-curve"`` (calibrated: Laplace(k S/eps3)
    per criterion) or ``"as-printed"`` (Laplace(S / eps3) per criterion, eps3 claimed for all).
    """
    S = 1.0
    t_d = np.full(k, S)  # D: subset 0 is the best (criterion 0, the others S)
    t_d[0] = 0.0
    t_dp = np.zeros(k)  # D': every criterion moved by S the other way
    t_dp[0] = S
    if mode == "exponential":
        mech = Exponential(epsilon, S)

        def sample(runs, rng):
            a = mech.randomise(np.broadcast_to(-t_d, (runs, k)), rng=rng) == 0
            b = mech.randomise(np.broadcast_to(-t_dp, (runs, k)), rng=rng) == 0
            return a.astype(float), b.astype(float)

        stat, broken, label = "subset 0 chosen (0/1)", False, "exponential mechanism, calibrated"
        noise = "exponential-mechanism noise"
        note = _capped_note("The exponential mechanism releases an index (the test: was "
                            "subset 0 chosen?)", epsilon)
    else:
        broken = mode == "as-printed"
        mech = Laplace(epsilon, S if broken else k * S)

        def sample(runs, rng):
            a = mech.randomise(np.broadcast_to(t_d, (runs, k)), rng=rng)
            b = mech.randomise(np.broadcast_to(t_dp, (runs, k)), rng=rng)
            return _laplace_llr(a, t_dp, t_d), _laplace_llr(b, t_dp, t_d)

        stat = "Laplace log-likelihood ratio of the k noisy criteria"
        label = ("k noisy criteria at Laplace(S/eps3), eps3 counted once (as printed)" if broken
                 else "k noisy criteria at Laplace(k S/eps3), calibrated")
        noise, note = "Laplace noise", ""
    return AuditCase(f"selection_{mode}", f"Wang et al. subset selection: {label}", epsilon, 0.0,
                     "replace one private record",
                     f"k = {k} criteria, each moved by its stated sensitivity S", 1.0, stat,
                     sample, broken=broken,
                     covers="the selection step's noise with its stated sensitivity S",
                     linear=mode != "exponential", noise=noise, note=note)


def _amp_release_case(epsilon: float, *, n: int = 10, lam: float = 0.001,
                      seed: int = 13, centre: float = 0.5) -> AuditCase:
    """Approximate minima perturbation, the default release of private logistic regression, on
    the 1-D pair of :func:`_objective_case` (n lam = 0.01, where the Jacobian matters most),
    centred as the page releases it: the penalty ``mu/2 (w - w0)^2`` around a public model's
    coefficient ``w0 = centre`` (``centre=0`` audits the uncentred estimator's default).

    Each run is the release's own function (:func:`dpcore.perturbation.amp.amp_coefs`: the
    objective noise, the certified batched solve, the output noise), its noise drawn by the
    study's twin of the release sampler. The score is the exact log-likelihood ratio of the
    exact minimiser of the perturbed objective at the release's calibration (``"2019"``, the
    rank-one Jacobian term, with its extra regularisation); the output noise moves each run by
    about 1e-5, so the score is that of a test a hair from optimal (any score gives a valid
    lower bound)."""
    gen = np.random.default_rng(seed)
    X = np.zeros((n, 1))
    y = gen.integers(0, 2, n)
    y[:2] = (0, 1)
    X[-1], y[-1] = 1.0, 1
    Xp = X.copy()
    Xp[-1] = 0.0
    p0, p1 = prepare(X, y, data_norm=1.0), prepare(Xp, y, data_norm=1.0)
    cal = amp_calibration(epsilon, n=n, lam=lam)
    n_lam = n * cal.lam_total
    prior = None if centre == 0.0 else np.array([centre])

    def sample(runs, rng):
        outs = [amp_coefs(p, epsilon=epsilon, lam=lam, size=runs, tol=TOL, rng=rng,
                          prior=prior)[0][:, 0] for p in (p0, p1)]
        return tuple(_objective_llr(w, p1.Z[:, 0], p1.y01, n_lam, cal.epsilon_noise, centre)
                     - _objective_llr(w, p0.Z[:, 0], p0.y01, n_lam, cal.epsilon_noise, centre)
                     for w in outs)

    centred = f", centred on a public model w0 = {centre:g}" if prior is not None else ""
    return AuditCase(
        "amp_release", "Approximate minima perturbation as released (Iyengar et al. 2019 Alg. 1)",
        epsilon, 0.0, "replace one record (n fixed)",
        f"n = {n}, d = 1, n lam = {n * lam:g} (n mu = {n_lam:.3g} after the extra "
        f"regularisation){centred}: changed record x = 1 -> x = 0", 0.5,
        "exact log-likelihood ratio of the exact perturbed minimiser at the output (Jacobian "
        "included)", sample, refits=True,
        covers="the whole release (objective noise, certified solve, output noise), one "
               "batched refit per run",
        noise="objective-perturbation noise",
        note=_capped_note("Approximate minima perturbation puts its L2-Laplace noise in the "
                          "objective (and a little on the output), so the output's loss "
                          "includes the solver's Jacobian and no share f caps it", epsilon))


#: Every case: key -> builder of the case at a claimed epsilon (built lazily: some fit models).
_BUILDERS: dict[str, Callable[[float], AuditCase]] = {
    "laplace": _laplace_case,
    "gaussian": _gaussian_case,
    "exponential": _exponential_case,
    "importance": _importance_case,
    "output": _output_case,
    "objective2011": lambda e: _objective_case(e, proof="2011"),
    "amp_release": _amp_release_case,
    "masking": _masking_case,
    "input": _input_case,
    "counts": _counts_case,
    "importance_release": _importance_release_case,
    "output_release": _output_release_case,
    "counts_release": _counts_release_case,
    "selection_exponential": lambda e: _selection_case(e, mode="exponential"),
    "selection_noisy-curve": lambda e: _selection_case(e, mode="noisy-curve"),
    "laplace_halved": lambda e: _laplace_case(e, halved=True),
    "importance_halved": lambda e: _importance_case(e, halved=True),
    "norm_from_data": _norm_from_data_case,
    "objective2008": lambda e: _objective_case(e, proof="2008"),
    "selection_as-printed": lambda e: _selection_case(e, mode="as-printed"),
}

CASE_KEYS = tuple(_BUILDERS)
BROKEN_KEYS = ("laplace_halved", "importance_halved", "norm_from_data", "objective2008",
               "selection_as-printed")


def audit_cases(epsilon: float = 1.0, keys=None) -> list[AuditCase]:
    """The audit cases at claimed ``epsilon`` (all, or those in ``keys``)."""
    keys = CASE_KEYS if keys is None else tuple(keys)
    unknown = [k for k in keys if k not in _BUILDERS]
    if unknown:
        raise ValueError(f"Unknown audit case(s) {unknown}; choose from {list(CASE_KEYS)}.")
    return [_BUILDERS[k](epsilon) for k in keys]


def audit_case(key: str, epsilon: float = 1.0) -> AuditCase:
    """One audit case by key (see :data:`CASE_KEYS`)."""
    return audit_cases(epsilon, [key])[0]
