"""The mechanisms' audit cases: every mechanism the product releases with, each on a hard pair.

:data:`MECHANISM_CASES` builds the cases (:class:`AuditCase`: a mechanism, its claim, a pair of
neighbouring datasets and a vectorised sampler of scores on each) at a claimed epsilon for the
mechanisms of every page, and :data:`MECHANISM_FAULTS` the deliberate faults ("broken on
purpose"): noise halved, a norm bound read from the private data and the 2008 objective
perturbation at a small ``n lam``. The releases' own cases are their modules'
(:mod:`dpcore.releases`), and the whole catalogue, in the audit page's order, is
:mod:`dpcore.releases.catalogue`. Every case runs on built-in synthetic pairs
(:mod:`dpcore.audit.pairs`, no user data) with a seed; each output is reduced to a scalar
score, mostly the log-likelihood ratio of the two output laws (the optimal test,
Neyman-Pearson).

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

import numpy as np
from scipy import stats

from dpcore.audit.case import AuditCase, capped_note, l2laplace_llr, laplace_llr, objective_llr
from dpcore.audit.pairs import importance_pair, logistic_pair
from dpcore.audit.statistics import GaussianTradeoff
from dpcore.importance import release_sensitivity
from dpcore.masking import input_perturbation
from dpcore.mechanisms import Exponential, Gaussian, L2Laplace, Laplace
from dpcore.perturbation import (
    objective_calibration,
    output_sensitivity,
    prepare,
    private_coefs,
)
from dpcore.perturbation.model import TOL, nonprivate_coef
from dpcore.subset.weights import noisy_weights
from dpcore.validation import PrivacyLeakWarning

__all__ = ["MECHANISM_CASES", "MECHANISM_FAULTS"]


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
                     note=capped_note("The exponential mechanism releases an index (the test: "
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
        return (l2laplace_llr(o0, b_dp, b_d, mech.scale),
                l2laplace_llr(o1, b_dp, b_d, mech.scale))

    name = "DP importance weights (Ji & Elkan Alg. 1)" + (" with noise halved" if halved else "")
    return AuditCase(
        "importance_halved" if halved else "importance", name, epsilon, 0.0,
        "replace one private record (N_D public)",
        f"N_D = {n_private}, d = {d}, lam = {lam:g}; changed record {np.round(x, 2).tolist()} "
        f"-> {np.round(xp, 2).tolist()} (hill-climbed)", dist / sens,
        "log-likelihood ratio of the noisy beta", sample, broken=halved, linear=True,
        covers="step 1 fitted once per dataset (deterministic), step 2 noise per run",
        noise="L2-Laplace noise")



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
        return l2laplace_llr(a, w1, w0, scale), l2laplace_llr(b, w1, w0, scale)

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
        return tuple(l2laplace_llr(o, centres[1], centres[0], scales[1], scales[0])
                     for o in outs)

    return AuditCase("norm_from_data", "Output perturbation with the norm bound read from the "
                     "private data", epsilon, 0.0, "replace one record (n fixed)",
                     f"n = {n}, d = {d}: all records of norm <= 0.1; D' has one at norm 1",
                     float(np.linalg.norm(centres[0] - centres[1])) / (sens / preps[0].factor),
                     "log-likelihood ratio (coefficients in the data's units)", sample,
                     broken=True, noise="L2-Laplace noise",
                     note=capped_note("Here the L2-Laplace noise's scale follows a norm bound "
                                       "read from the data, so it differs between D and D′ and "
                                       "no share f caps the loss", epsilon))


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
        return tuple(objective_llr(w, p1.Z[:, 0], p1.y01, n_lam, cal.epsilon_noise)
                     - objective_llr(w, p0.Z[:, 0], p0.y01, n_lam, cal.epsilon_noise)
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
        note=capped_note("Objective perturbation puts its L2-Laplace noise in the objective, "
                          "not on the output, so the output's loss includes the solver's "
                          "Jacobian and no share f caps it", epsilon))


def _input_case(epsilon: float, *, d: int = 2) -> AuditCase:
    u = np.ones(d) / math.sqrt(d)
    scale = 2.0 / epsilon

    def sample(runs, rng):
        a = input_perturbation(np.broadcast_to(u, (runs, 1, d)), epsilon, rng=rng)[:, 0]
        b = input_perturbation(np.broadcast_to(-u, (runs, 1, d)), epsilon, rng=rng)[:, 0]
        return l2laplace_llr(a, -u, u, scale), l2laplace_llr(b, -u, u, scale)

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
        return (laplace_llr(a.T * n_private, c_dp[:, 0], c_d[:, 0]),
                laplace_llr(b.T * n_private, c_dp[:, 0], c_d[:, 0]))

    return AuditCase("counts", "Wang et al. noisy weights (Def. 5)", epsilon, 0.0,
                     "replace one private record",
                     "one record moves from one public point's cell to another's (L1 change 2)",
                     1.0, "Laplace log-likelihood ratio of the noisy counts", sample,
                     covers="the noise step (negative weights truncated afterwards: "
                            "post-processing)", linear=True, noise="Laplace noise")


#: The mechanisms' own cases (key -> builder of the case at a claimed epsilon; built lazily:
#: some fit models). The releases' cases are their modules' (:mod:`dpcore.releases`).
MECHANISM_CASES: dict[str, Callable[[float], AuditCase]] = {
    "laplace": _laplace_case,
    "gaussian": _gaussian_case,
    "exponential": _exponential_case,
    "importance": _importance_case,
    "output": _output_case,
    "objective2011": lambda e: _objective_case(e, proof="2011"),
    "input": _input_case,
    "counts": _counts_case,
}
#: The mechanisms' deliberate faults ("broken on purpose").
MECHANISM_FAULTS: dict[str, Callable[[float], AuditCase]] = {
    "laplace_halved": lambda e: _laplace_case(e, halved=True),
    "importance_halved": lambda e: _importance_case(e, halved=True),
    "norm_from_data": _norm_from_data_case,
    "objective2008": lambda e: _objective_case(e, proof="2008"),
}
