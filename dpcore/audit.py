"""Empirical privacy audits: a statistical lower bound on the epsilon a mechanism really gives.

A mechanism ``M`` is (epsilon, delta)-DP when, for every pair of neighbouring datasets D, D' and
every set S of outputs, ``P(M(D) in S) <= e^epsilon P(M(D') in S) + delta`` and vice versa. An
audit runs the mechanism many times on one hard pair, reduces each output to a scalar score
(a projection on the direction the change moves the output, or the log-likelihood ratio of the
two output laws), and tests "D or D'" with a threshold ``t`` (S = {score > t}):

* ``FPR = P(score > t | D)`` and ``FNR = P(score <= t | D')``;
* (epsilon, delta)-DP implies ``FNR + e^epsilon FPR >= 1 - delta`` and ``FPR + e^epsilon FNR >=
  1 - delta`` ([KOV15]_ Theorem 2.1, the hypothesis-testing view), so with upper confidence bounds
  on both rates, ``epsilon_lb = max(log((1 - delta - FNR_up) / FPR_up), log((1 - delta - FPR_up)
  / FNR_up))`` is a lower bound on the true epsilon ([JUO20]_ Sect. 3; [NST21]_ Sect. 2).

The threshold is chosen on one half of the runs and the rates are bounded on the other half by
Clopper-Pearson intervals, each at level ``1 - alpha/2`` so that both hold together with
probability at least ``confidence = 1 - alpha`` (Bonferroni). Hence for a correctly calibrated
mechanism ``P(epsilon_lb > epsilon) <= 1 - confidence``, whatever the pair, statistic or number
of runs: a bound above the claim is evidence of a fault, a bound below it is not a proof of
privacy ("the noise is at least this strong": the audit can only show too little noise).

What an audit can see is limited by the pair: if the noiseless outputs on D and D' are a
fraction ``f`` of the sensitivity apart, even a perfect test shows at most about ``f epsilon``
for mechanisms whose privacy loss is linear in the distance (Laplace-type noise). Every result
reports ``f``; :func:`hill_climb_pair` searches the domain for a pair with a large ``f``.

Besides the two-dataset audit, :func:`one_run_audit` implements the one-run audit of [SNJ23]_
(canaries included at random in a single training run; a lower bound from the number of correct
guesses) for the mechanisms that fit a model.

The cases (:func:`audit_cases`) cover every mechanism the product releases with and the
deliberate faults ("broken on purpose"): noise halved, a norm bound read from the private data,
the 2008 objective perturbation at a small ``n lam``, and Wang et al.'s as-printed accounting of
the selection step. Every case runs on built-in synthetic pairs (no user data) with a seed.

References
----------
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML, Theorem 2.1.
.. [JUO20] Jagielski, Ullman & Oprea (2020), *Auditing differentially private machine learning:
   how private is private SGD?*, NeurIPS, Algorithm 2 (Clopper-Pearson bounds on the error rates).
.. [NST21] Nasr, Song, Thakurta, Papernot & Carlini (2021), *Adversary instantiation: lower bounds
   for differentially private machine learning*, IEEE S&P, Sect. 2.
.. [SNJ23] Steinke, Nasr & Jagielski (2023), *Privacy auditing with one (1) training run*,
   NeurIPS, Algorithm 1 and Theorem 3.1 (pure epsilon-DP).
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12, Algorithm 2.
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS.
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3), Algorithm 2.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import special, stats

from dpcore.importance import balanced_fit, release_sensitivity
from dpcore.mechanisms import DiscreteLaplace, Exponential, Gaussian, L2Laplace, Laplace
from dpcore.validation import DataError, PrivacyLeakWarning, check_random_state, check_scalar

__all__ = [
    "AuditCase",
    "AuditResult",
    "OneRunResult",
    "audit",
    "audit_ceiling",
    "audit_cases",
    "audit_scores",
    "clopper_pearson_upper",
    "epsilon_from_rates",
    "hill_climb_pair",
    "one_run_audit",
    "one_run_epsilon",
]

Progress = Callable[[float], None] | None

#: Scores kept per side for the plotted distributions (a seeded subsample of the test half).
PLOT_SCORES = 4000


# --------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------
def _check_confidence(confidence) -> float:
    return check_scalar(confidence, "confidence", min_val=0.0, max_val=1.0, include_max=False)


def _check_runs(runs, minimum: int = 20) -> int:
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)):
        raise TypeError(f"runs must be an int, got {type(runs).__name__} ({runs!r}).")
    if runs < minimum:
        raise ValueError(f"runs == {runs}, must be >= {minimum} (half of them choose the "
                         "threshold, the other half bound the error rates).")
    return int(runs)


def clopper_pearson_upper(k, n, alpha: float) -> np.ndarray:
    """One-sided upper Clopper-Pearson bound on a binomial rate: ``P(p <= upper) >= 1 - alpha``.

    ``upper = Beta(1 - alpha; k + 1, n - k)`` quantile, and 1 when ``k = n``.

    Examples
    --------
    >>> round(float(clopper_pearson_upper(0, 100, 0.05)), 4)  # the "rule of three": 3/n
    0.0295
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        upper = stats.beta.ppf(1.0 - alpha, k + 1.0, np.maximum(n - k, 1e-300))
    return np.where(k >= n, 1.0, upper)


def epsilon_from_rates(fpr_upper, fnr_upper, delta: float = 0.0) -> np.ndarray:
    """``max(log((1-delta-FNR)/FPR), log((1-delta-FPR)/FNR))``, floored at 0.

    Both inequalities hold for an (epsilon, delta)-DP mechanism and any test, so with upper
    bounds on the two error rates either form is a lower bound on epsilon.
    """
    fpr = np.asarray(fpr_upper, dtype=float)
    fnr = np.asarray(fnr_upper, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.log(np.maximum(1.0 - delta - fnr, 0.0)) - np.log(fpr)
        b = np.log(np.maximum(1.0 - delta - fpr, 0.0)) - np.log(fnr)
    out = np.fmax(np.nan_to_num(a, nan=0.0, neginf=0.0, posinf=np.inf),
                 np.nan_to_num(b, nan=0.0, neginf=0.0, posinf=np.inf))
    return np.maximum(out, 0.0)


def audit_ceiling(runs: int, confidence: float = 0.95, delta: float = 0.0) -> float:
    """The largest lower bound that :func:`audit` can ever report with ``runs`` per dataset.

    Even a test that never errs on the held-out half (``runs - runs // 2`` scores per side)
    only bounds each error rate by its Clopper-Pearson upper limit at zero errors, so the
    bound cannot exceed ``epsilon_from_rates`` of those limits. When a claim is above this
    ceiling, an audit below the claim says nothing: more runs are needed.

    Examples
    --------
    >>> round(audit_ceiling(1_000), 1)
    4.9
    """
    runs = _check_runs(runs)
    confidence = _check_confidence(confidence)
    n_test = runs - runs // 2
    upper = clopper_pearson_upper(0, n_test, (1.0 - confidence) / 2)
    return float(epsilon_from_rates(upper, upper, delta))


@dataclass(frozen=True)
class ScoreAudit:
    """The threshold test of :func:`audit_scores`: its threshold, rates and bound."""

    epsilon_lb: float
    threshold: float
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    n_test: int
    confidence: float


def _rates(s0: np.ndarray, s1: np.ndarray, thresholds: np.ndarray):
    """Counts of ``score > t`` under D (false positives) and ``score <= t`` under D'."""
    s0s, s1s = np.sort(s0), np.sort(s1)
    fp = s0s.size - np.searchsorted(s0s, thresholds, side="right")
    fn = np.searchsorted(s1s, thresholds, side="right")
    return fp, fn


def audit_scores(scores_d, scores_dprime, *, delta: float = 0.0, confidence: float = 0.95,
                 rng=None, n_thresholds: int = 400) -> ScoreAudit:
    """Lower-bound epsilon from scores of runs on D (``scores_d``) and on D' (``scores_dprime``).

    The runs of each side are split at random into two halves: the threshold that maximises the
    bound on the first half is chosen among ``n_thresholds`` quantiles of the pooled scores,
    and the bound is computed on the second half with Clopper-Pearson upper bounds at level
    ``1 - alpha/2`` each (``alpha = 1 - confidence``; [JUO20]_ Algorithm 2).

    Returns
    -------
    ScoreAudit
    """
    confidence = _check_confidence(confidence)
    delta = check_scalar(delta, "delta", min_val=0.0, include_min=True, max_val=1.0,
                         include_max=False)
    s0 = np.asarray(scores_d, dtype=float).ravel()
    s1 = np.asarray(scores_dprime, dtype=float).ravel()
    if s0.size < 20 or s1.size < 20:
        raise ValueError(f"Need at least 20 scores per side, got {s0.size} and {s1.size}.")
    if not (np.all(np.isfinite(s0)) and np.all(np.isfinite(s1))):
        raise DataError("Scores must be finite numbers.")
    gen = check_random_state(rng)
    p0, p1 = gen.permutation(s0.size), gen.permutation(s1.size)
    h0, h1 = s0.size // 2, s1.size // 2
    sel0, test0 = s0[p0[:h0]], s0[p0[h0:]]
    sel1, test1 = s1[p1[:h1]], s1[p1[h1:]]
    alpha = 1.0 - confidence
    best = (-1.0, 1.0, 0.0)  # (bound on the selection half, orientation, threshold)
    for sign in (1.0, -1.0):  # "high score -> D'" or "low score -> D'"
        pooled = sign * np.concatenate([sel0, sel1])
        tails = np.geomspace(1e-4, 0.02, 30)
        levels = np.concatenate([np.linspace(0.0, 1.0, n_thresholds), tails, 1.0 - tails])
        cand = np.unique(np.quantile(pooled, levels))
        fp, fn = _rates(sign * sel0, sign * sel1, cand)
        eps_sel = epsilon_from_rates(clopper_pearson_upper(fp, sel0.size, alpha / 2),
                                     clopper_pearson_upper(fn, sel1.size, alpha / 2), delta)
        i = int(np.argmax(eps_sel))
        if eps_sel[i] > best[0]:
            best = (float(eps_sel[i]), sign, float(cand[i]))
    _, sign, t = best
    fp_t, fn_t = _rates(sign * test0, sign * test1, np.array([t]))
    fpr_up = float(clopper_pearson_upper(fp_t[0], test0.size, alpha / 2))
    fnr_up = float(clopper_pearson_upper(fn_t[0], test1.size, alpha / 2))
    eps = float(epsilon_from_rates(fpr_up, fnr_up, delta))
    t = sign * t  # in the scores' own units; the test is sign * score > sign * t
    return ScoreAudit(eps, t, fp_t[0] / test0.size, fn_t[0] / test1.size, fpr_up, fnr_up,
                      int(min(test0.size, test1.size)), confidence)


# --------------------------------------------------------------------------------------------
# Log-likelihood-ratio statistics of the noise laws (the optimal tests, Neyman-Pearson)
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------
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

    @property
    def pair_limit(self) -> float:
        """The most a correctly calibrated mechanism can lose on this pair: ``f * epsilon`` when
        the noise is Laplace-type (``linear``: the log-density ratio of two outputs is at most
        their distance over the noise scale, so the loss on the pair is at most the noiseless
        outputs' distance over the scale, f epsilon), else the claimed epsilon."""
        return self.fraction * self.epsilon if self.linear else self.epsilon


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit` for one case.

    Attributes
    ----------
    case : AuditCase
    epsilon_lb : float
        Audited lower bound (holds with probability ``confidence`` for a correct mechanism).
    confidence : float
    runs : int
        Runs per dataset (half choose the threshold, half bound the rates).
    threshold, fpr, fnr, fpr_upper, fnr_upper : float
        The test on the held-out half.
    scores_d, scores_dprime : ndarray
        A subsample of the held-out scores, for plotting.
    flagged : bool
        ``epsilon_lb > case.pair_limit``: more loss than the claimed epsilon allows on this pair
        (for Laplace-type noise ``f * epsilon``, else epsilon), so the claim is refuted at this
        confidence.
    above_claim : bool
        ``epsilon_lb > case.epsilon``: the audit alone exceeds the claimed epsilon.
    """

    case: AuditCase
    epsilon_lb: float
    confidence: float
    runs: int
    threshold: float
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    scores_d: np.ndarray = field(repr=False)
    scores_dprime: np.ndarray = field(repr=False)

    @property
    def flagged(self) -> bool:
        return self.epsilon_lb > self.case.pair_limit

    @property
    def above_claim(self) -> bool:
        return self.epsilon_lb > self.case.epsilon

    def row(self) -> dict:
        """One row of the audit table."""
        c = self.case
        return {"mechanism": c.name, "broken on purpose": c.broken, "claimed epsilon": c.epsilon,
                "delta": c.delta, "audited lower bound": self.epsilon_lb,
                "confidence": self.confidence, "runs per dataset": self.runs,
                "f": c.fraction, "limit on this pair": c.pair_limit,
                "above the claim": self.above_claim, "flagged": self.flagged,
                "statistic": c.statistic, "pair": c.pair, "covers": c.covers}


def audit(case: AuditCase, runs: int = 100_000, *, confidence: float = 0.95, rng=None,
          progress: Progress = None, chunks: int = 1) -> AuditResult:
    """Run ``case`` ``runs`` times on each dataset of its pair and lower-bound its epsilon.

    Parameters
    ----------
    case : AuditCase
    runs : int, default=100_000
        Runs per dataset, >= 20.
    confidence : float, default=0.95
    rng : None, int or numpy.random.Generator
        Seed of the study (an audit uses no private data and spends no budget).
    progress : callable, default=None
        Called with the fraction done after each chunk.
    chunks : int, default=1
        Split the runs into this many vectorised batches (for the progress bar).

    Returns
    -------
    AuditResult
    """
    if not isinstance(case, AuditCase):
        raise TypeError(f"case must be an AuditCase, got {type(case).__name__}.")
    runs = _check_runs(runs)
    gen = check_random_state(rng)
    sizes = np.diff(np.linspace(0, runs, max(1, int(chunks)) + 1).astype(int))
    parts0, parts1 = [], []
    for i, size in enumerate(sizes):
        if size > 0:
            s0, s1 = case.sample(int(size), gen)
            parts0.append(np.asarray(s0, dtype=float))
            parts1.append(np.asarray(s1, dtype=float))
        if progress is not None:
            progress((i + 1) / len(sizes))
    s0, s1 = np.concatenate(parts0), np.concatenate(parts1)
    res = audit_scores(s0, s1, delta=case.delta, confidence=confidence, rng=gen)
    keep = min(PLOT_SCORES, s0.size, s1.size)
    return AuditResult(case, res.epsilon_lb, confidence, runs, res.threshold, res.fpr, res.fnr,
                       res.fpr_upper, res.fnr_upper, gen.choice(s0, keep, replace=False),
                       gen.choice(s1, keep, replace=False))


# --------------------------------------------------------------------------------------------
# Hard pairs
# --------------------------------------------------------------------------------------------
def hill_climb_pair(distance: Callable[[np.ndarray, np.ndarray], float], dim: int, *,
                    low: float = 0.0, high: float = 1.0,
                    steps: tuple[float, ...] = (0.5, 0.25, 0.125),
                    max_corners: int = 16) -> tuple[np.ndarray, np.ndarray, float]:
    """Search the box ``[low, high]^dim`` for the changed record of a hard replace-one pair.

    Starts from the best pair of domain corners (at most ``max_corners`` corners, all pairs)
    and then moves one coordinate of either record by ``+-step`` while ``distance(x, x')``
    (the distance between the two noiseless outputs) grows, for each step in ``steps``.

    Returns
    -------
    x, x_prime : ndarray of shape (dim,)
    distance : float
    """
    corners = np.array(np.meshgrid(*[[low, high]] * dim, indexing="ij")).reshape(dim, -1).T
    corners = corners[:max_corners]
    best = (corners[0], corners[-1], distance(corners[0], corners[-1]))
    for i in range(len(corners)):
        for j in range(i + 1, len(corners)):
            dist = distance(corners[i], corners[j])
            if dist > best[2]:
                best = (corners[i], corners[j], dist)
    x, xp, dist = best[0].copy(), best[1].copy(), best[2]
    for step in steps:
        improved = True
        while improved:
            improved = False
            for which in (0, 1):
                for j in range(dim):
                    for sign in (-1.0, 1.0):
                        cand = (x if which == 0 else xp).copy()
                        cand[j] = np.clip(cand[j] + sign * step, low, high)
                        new = distance(cand, xp) if which == 0 else distance(x, cand)
                        if new > dist + 1e-12:
                            dist, improved = new, True
                            if which == 0:
                                x = cand
                            else:
                                xp = cand
    return x, xp, float(dist)


# --------------------------------------------------------------------------------------------
# The mechanisms
# --------------------------------------------------------------------------------------------
def _laplace_case(epsilon: float, *, halved: bool = False) -> AuditCase:
    mech = Laplace(2.0 * epsilon if halved else epsilon, 1.0)

    def sample(runs, rng):
        return (mech.randomise(np.zeros(runs), rng=rng), mech.randomise(np.ones(runs), rng=rng))

    name = "Laplace" + (" with its noise scale halved" if halved else "")
    return AuditCase("laplace_halved" if halved else "laplace", name, epsilon, 0.0,
                     "any (sensitivity 1)", "f(D) = 0, f(D') = 1", 1.0, "the output", sample,
                     broken=halved, linear=True)


def _gaussian_case(epsilon: float, delta: float = 1e-5) -> AuditCase:
    mech = Gaussian(epsilon, delta, 1.0)

    def sample(runs, rng):
        return (mech.randomise(np.zeros(runs), rng=rng), mech.randomise(np.ones(runs), rng=rng))

    return AuditCase("gaussian", "Gaussian (analytic calibration)", epsilon, delta,
                     "any (L2 sensitivity 1)", "f(D) = 0, f(D') = 1", 1.0, "the output", sample)


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
                     "candidate 0 chosen (0/1)", sample)


#: Corners for the records D and E share in the importance-weighting pair: the best of all
#: 8 x 8 corner combinations at N_D = 50, d = 3, lam = 0.01 (searched once with
#: :func:`hill_climb_pair` on the changed record; f = 0.64, against 0.11 for uniform records).
IMPORTANCE_CORNERS = ((0.0, 1.0, 1.0), (1.0, 1.0, 1.0))


def _importance_pair(n_private: int, d: int, lam: float, seed: int):
    """A hill-climbed replace-one pair for [JE13]_ Algorithm 1 step 1 (built-in, synthetic).

    The N_D - 1 unchanged private records sit at one domain corner, the public records at
    another (:data:`IMPORTANCE_CORNERS` for d = 3, otherwise seeded uniform records); the
    changed record is searched by :func:`hill_climb_pair`.
    """
    if d == 3:
        common = np.tile(IMPORTANCE_CORNERS[0], (n_private - 1, 1))
        public = np.tile(IMPORTANCE_CORNERS[1], (n_private, 1))
    else:
        gen = np.random.default_rng(seed)
        common = gen.random((n_private - 1, d))
        public = gen.random((n_private, d)) ** 2

    def coef(x):
        return balanced_fit(np.vstack([common, x]), public, lam).coef

    cache: dict[tuple, np.ndarray] = {}

    def cached(x):
        key = tuple(np.round(x, 12))
        if key not in cache:
            cache[key] = coef(x)
        return cache[key]

    x, xp, dist = hill_climb_pair(lambda a, b: float(np.linalg.norm(cached(a) - cached(b))), d)
    return cached(x), cached(xp), dist, x, xp


def _importance_case(epsilon: float, *, n_private: int = 50, d: int = 3, lam: float = 0.01,
                     halved: bool = False, seed: int = 13) -> AuditCase:
    b_d, b_dp, dist, x, xp = _importance_pair(n_private, d, lam, seed)
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
        covers="step 1 fitted once per dataset (deterministic), step 2 noise per run")


def _release_law_case(key: str, name: str, epsilon: float, mech: L2Laplace, a: np.ndarray,
                      b: np.ndarray, neighbouring: str, pair: str, covers: str) -> AuditCase:
    """The release's own law of an L2-Laplace mechanism: coordinate-wise Laplace of scale
    ``sqrt(d) sensitivity / epsilon`` (:meth:`~dpcore.mechanisms.L2Laplace.release`), drawn by
    its study twin ``randomise(law="release")`` (the same law, tested in
    ``tests/test_release_noise.py``), scored by the exact Laplace log-likelihood ratio."""
    dim = a.size

    def sample(runs, rng):
        o0 = mech.randomise(np.broadcast_to(a, (runs, dim)), rng=rng, law="release")
        o1 = mech.randomise(np.broadcast_to(b, (runs, dim)), rng=rng, law="release")
        # The ratio is clipped at +-||a - b||_1 (both tails), where many runs tie; rounded to
        # 12 digits, so that the rounding of |o - b| - |o - a| in floating point (which differs
        # between the two centres) cannot split the tie: that would audit the study sampler's
        # low bits (Mironov's leak, see dpcore.audit_float), not the noise law.
        return (np.round(_laplace_llr(o0, b, a), 12), np.round(_laplace_llr(o1, b, a), 12))

    fraction = float(np.sum(np.abs(a - b))) / (math.sqrt(dim) * mech.sensitivity)
    return AuditCase(key, name, epsilon, 0.0, neighbouring, pair, fraction,
                     "Laplace log-likelihood ratio of the released vector", sample, linear=True,
                     covers=covers)


def _importance_release_case(epsilon: float, *, n_private: int = 50, d: int = 3,
                             lam: float = 0.01, seed: int = 13) -> AuditCase:
    b_d, b_dp, _, x, xp = _importance_pair(n_private, d, lam, seed)
    mech = L2Laplace(epsilon, release_sensitivity(b_d.size, n_private, lam), b_d.size)
    return _release_law_case(
        "importance_release", "DP importance weights as released (coordinate-wise Laplace)",
        epsilon, mech, b_d, b_dp, "replace one private record (N_D public)",
        f"N_D = {n_private}, d = {d}, lam = {lam:g}; changed record {np.round(x, 2).tolist()} "
        f"-> {np.round(xp, 2).tolist()} (hill-climbed)",
        "step 1 fitted once per dataset, the release's noise per run")


def _output_release_case(epsilon: float, *, n: int = 50, d: int = 2,
                         lam: float = 0.1) -> AuditCase:
    from dpcore.perturbation import output_sensitivity, prepare
    from dpcore.perturbation.model import TOL, nonprivate_coef

    X, y, Xp, yp = _logistic_pair(n, d, 0)
    w0 = nonprivate_coef(prepare(X, y, data_norm=1.0), lam)
    w1 = nonprivate_coef(prepare(Xp, yp, data_norm=1.0), lam)
    mech = L2Laplace(epsilon, output_sensitivity(n, lam, gap=TOL), w0.size)
    return _release_law_case(
        "output_release", "Output perturbation as released (coordinate-wise Laplace; also "
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
                     covers="the noise step of the ranking and candidate counts", linear=True)


def _logistic_pair(n: int, d: int, seed: int):
    """A replace-one pair for logistic regression in the unit ball, 0/1 labels.

    The n - 1 shared records sit at the origin (alternating labels: they add curvature but no
    gradient), the changed record is ``(u, 1)`` in D and ``(-u, 1)`` in D' with ``||u|| = 1``:
    its gradient at margin 0 changes by ``2 * 0.5 ||u||``, so the minimisers are close to half
    the sensitivity ``2 / (n lam)`` apart when ``n lam`` is not small (f = 0.48 at n lam = 5).
    ``seed`` is unused (the pair is deterministic) and kept for a uniform signature.
    """
    del seed
    X = np.zeros((n, d))
    y = np.arange(n) % 2
    u = np.ones(d) / math.sqrt(d)
    X[-1], y[-1] = u, 1
    Xp, yp = X.copy(), y.copy()
    Xp[-1] = -u
    return X, y, Xp, yp


def _output_case(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.1,
                 seed: int = 13) -> AuditCase:
    from dpcore.perturbation import output_sensitivity, prepare, private_coefs
    from dpcore.perturbation.model import TOL, nonprivate_coef

    X, y, Xp, yp = _logistic_pair(n, d, seed)
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

    return AuditCase("output", "Output perturbation (Chaudhuri & Monteleoni Alg. 1)", epsilon,
                     0.0, "replace one record (n fixed)",
                     f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1",
                     float(np.linalg.norm(w0 - w1)) / sens,
                     "log-likelihood ratio of the noisy coefficients", sample,
                     covers="non-private fit once per dataset, noise per run", linear=True)


def _norm_from_data_case(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.01,
                         seed: int = 13) -> AuditCase:
    """Output perturbation whose norm bound is read from the private data (a fault)."""
    from dpcore.perturbation import output_sensitivity, prepare, private_coefs
    from dpcore.perturbation.model import TOL, nonprivate_coef

    X, y, _, _ = _logistic_pair(n, d, seed)
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
                     broken=True)


def _objective_llr(w: np.ndarray, z: np.ndarray, y01: np.ndarray, n_lam: float,
                   eps_noise: float) -> np.ndarray:
    """``log p(w)`` of 1-D objective perturbation: ``p_b(b(w)) |b'(w)|``.

    The summed objective is ``sum_i logloss + (n lam)/2 w^2 + b w``; its minimiser solves
    ``b(w) = -n lam w + sum_i y_i z_i sigma(-y_i z_i w)`` (``y = +-1``), a bijection with
    ``|b'(w)| = n lam + sum_i z_i^2 sigma(z_i w) sigma(-z_i w)``; ``b`` is Laplace(2/eps') in 1-D.
    """
    s = 2.0 * y01 - 1.0
    m = np.outer(w, s * z)
    b = -n_lam * w + np.sum(s * z * special.expit(-m), axis=1)
    jac = n_lam + np.sum(z * z * special.expit(m) * special.expit(-m), axis=1)
    return math.log(eps_noise / 4.0) - eps_noise * np.abs(b) / 2.0 + np.log(jac)


def _objective_case(epsilon: float, *, proof: str = "2011", n: int = 10, lam: float = 0.001,
                    seed: int = 13) -> AuditCase:
    from dpcore.perturbation import objective_calibration, prepare, private_coefs

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
        broken=broken, refits=True, covers="the whole release, one batched refit per run")


def _masking_case(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.1,
                  seed: int = 13) -> AuditCase:
    from dpcore.masking import fit_logistic_model, lipschitz_constant
    from dpcore.masking import scale_records as mask_scale
    from dpcore.perturbation import output_sensitivity, perturb_output

    X, y, Xp, yp = _logistic_pair(n, d, seed)
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

    return AuditCase("masking", "Masked data: the noisy classifier w' (Pham et al. Alg. 1 step 2)",
                     epsilon, 0.0, "replace one record (n fixed)",
                     f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1",
                     float(np.linalg.norm(centres[0] - centres[1])) / (scales[0] * epsilon),
                     "log-likelihood ratio of w'", sample,
                     covers="step 1-2 (fit once per dataset, noise per run); step 3 (greedy "
                            "masked samples) is post-processing", linear=True)


def _input_case(epsilon: float, *, d: int = 2) -> AuditCase:
    from dpcore.masking import input_perturbation

    u = np.ones(d) / math.sqrt(d)
    scale = 2.0 / epsilon

    def sample(runs, rng):
        a = input_perturbation(np.broadcast_to(u, (runs, 1, d)), epsilon, rng=rng)[:, 0]
        b = input_perturbation(np.broadcast_to(-u, (runs, 1, d)), epsilon, rng=rng)[:, 0]
        return _l2laplace_llr(a, -u, u, scale), _l2laplace_llr(b, -u, u, scale)

    return AuditCase("input", "Input perturbation (Pham et al. Alg. 2)", epsilon, 0.0,
                     "replace one record's features", "x = u -> x' = -u, ||u|| = 1 (diameter)",
                     1.0, "log-likelihood ratio of the noisy record", sample, linear=True)


def _counts_case(epsilon: float, *, n_private: int = 100) -> AuditCase:
    from dpcore.subset.weights import noisy_weights

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
                            "post-processing)", linear=True)


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
    return AuditCase(f"selection_{mode}", f"Wang et al. subset selection: {label}", epsilon, 0.0,
                     "replace one private record",
                     f"k = {k} criteria, each moved by its stated sensitivity S", 1.0, stat,
                     sample, broken=broken,
                     covers="the selection step's noise with its stated sensitivity S",
                     linear=mode != "exponential")


#: Every case: key -> builder of the case at a claimed epsilon (built lazily: some fit models).
_BUILDERS: dict[str, Callable[[float], AuditCase]] = {
    "laplace": _laplace_case,
    "gaussian": _gaussian_case,
    "exponential": _exponential_case,
    "importance": _importance_case,
    "output": _output_case,
    "objective2011": lambda e: _objective_case(e, proof="2011"),
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


# --------------------------------------------------------------------------------------------
# One-run audit (Steinke, Nasr & Jagielski 2023)
# --------------------------------------------------------------------------------------------
def one_run_epsilon(correct: int, guesses: int, *, confidence: float = 0.95) -> float:
    """Largest epsilon refuted by ``correct`` right guesses out of ``guesses`` ([SNJ23]_ Thm 3.1).

    For an epsilon-DP mechanism with canaries included independently with probability 1/2,
    the number of correct guesses is stochastically dominated by ``Binomial(guesses,
    e^eps / (1 + e^eps))``. The bound is the largest epsilon with ``P(Binomial >= correct) <=
    1 - confidence``, i.e. ``p_lb`` = the lower Clopper-Pearson-type quantile and
    ``eps = logit(p_lb)`` (0 when ``p_lb <= 1/2``).

    Examples
    --------
    >>> one_run_epsilon(50, 100)
    0.0
    >>> round(one_run_epsilon(100, 100), 3)  # 100/100 correct: p >= 0.05 ** (1/100)
    3.493
    """
    confidence = _check_confidence(confidence)
    if guesses <= 0:
        return 0.0
    if not 0 <= correct <= guesses:
        raise ValueError(f"correct == {correct}, must be in [0, guesses = {guesses}].")
    if correct == 0:
        return 0.0
    # P(Bin(r, p) >= v) = I_p(v, r - v + 1) is increasing in p; solve it = 1 - confidence.
    p = float(stats.beta.ppf(1.0 - confidence, correct, guesses - correct + 1))
    return max(0.0, float(special.logit(p))) if p > 0.5 else 0.0


@dataclass(frozen=True)
class OneRunResult:
    """Outcome of :func:`one_run_audit`."""

    epsilon: float
    epsilon_lb: float
    confidence: float
    canaries: int
    guesses: int
    correct: int
    scores: np.ndarray = field(repr=False)
    included: np.ndarray = field(repr=False)


def one_run_audit(epsilon: float, *, canaries: int = 1000, guesses: int = 100, n_other: int = 0,
                  lam: float = 0.01, confidence: float = 0.95, rng=None) -> OneRunResult:
    """One-run audit ([SNJ23]_ Algorithm 1) of output perturbation ([CM08]_ Algorithm 1).

    ``m = canaries`` canary slots: slot ``i`` holds the record ``(e_i, +1)`` (included,
    ``S_i = +1``) or ``(e_i, 0)`` (its label flipped, ``S_i = -1``), each with probability 1/2,
    independently; flipping one slot is a replace-one change, so the release is epsilon-DP in
    each ``S_i``. One training run (one fit, one noise draw) on the canary slots (plus
    ``n_other`` records at the origin). The score of canary ``i`` is the released coefficient
    ``w_i``; the auditor guesses ``S_i = +1`` for the ``guesses/2`` largest scores, ``-1`` for
    the ``guesses/2`` smallest, abstains on the rest, and counts correct guesses
    (:func:`one_run_epsilon`).
    """
    from dpcore.perturbation import prepare, private_coefs

    gen = check_random_state(rng)
    m = int(canaries)
    if guesses < 2 or guesses > m:
        raise ValueError(f"guesses == {guesses}, must be in [2, canaries = {m}].")
    included = gen.random(m) < 0.5
    X = np.vstack([np.eye(m), np.zeros((n_other, m))])
    y = np.r_[included.astype(int), np.arange(n_other) % 2]
    if y.min() == y.max():
        y[0] = 1 - y[0]
        included[0] = bool(y[0])
    prep = prepare(X, y, data_norm=1.0)
    w = private_coefs(prep, epsilons=[epsilon], lam=lam, restarts=1, method="output",
                      rng=gen)[0][0, 0]
    order = np.argsort(w)
    half = guesses // 2
    neg, pos = order[:half], order[m - (guesses - half):]
    correct = int(included[pos].sum() + (~included[neg]).sum())
    return OneRunResult(float(epsilon), one_run_epsilon(correct, guesses, confidence=confidence),
                        confidence, m, guesses, correct, w, included)
