"""Audit statistics: lower bounds on epsilon from the error rates of a threshold test.

(epsilon, delta)-DP implies ``FNR + e^epsilon FPR >= 1 - delta`` and ``FPR + e^epsilon FNR >=
1 - delta`` for every test of "D or D'" ([KOV15]_ Theorem 2.1), so upper confidence bounds on
both rates (:func:`clopper_pearson_upper`) give a lower bound on epsilon
(:func:`epsilon_from_rates`; [JUO20]_ Sect. 3, [NST21]_ Sect. 2). :func:`audit_scores` chooses
the threshold on one half of the runs and bounds the rates on the other; :func:`audit_ceiling`
is the most any audit with a given number of runs can show; :func:`audit_reach` is what it can
expect to show on a correct mechanism whose trade-off function is known (the Gaussian's,
[DRS22]_); :func:`one_run_epsilon` is the bound of the one-run audit ([SNJ23]_ Theorem 3.1).

References
----------
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML, Theorem 2.1.
.. [JUO20] Jagielski, Ullman & Oprea (2020), *Auditing differentially private machine learning:
   how private is private SGD?*, NeurIPS, Algorithm 2 (Clopper-Pearson bounds on the error rates).
.. [NST21] Nasr, Song, Thakurta, Papernot & Carlini (2021), *Adversary instantiation: lower bounds
   for differentially private machine learning*, IEEE S&P, Sect. 2.
.. [SNJ23] Steinke, Nasr & Jagielski (2023), *Privacy auditing with one (1) training run*,
   NeurIPS, Theorem 3.1 (pure epsilon-DP).
.. [DRS22] Dong, Roth & Su (2022), *Gaussian differential privacy*, J. R. Stat. Soc. B 84(1),
   Definition 2.2 (trade-off functions) and Eq. (2.4) (the Gaussian's, ``G_mu``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from dpcore.validation import DataError, check_probability, check_random_state, check_scalar

__all__ = ["GaussianTradeoff", "ScoreAudit", "audit_ceiling", "audit_reach", "audit_scores",
           "check_runs", "clopper_pearson_upper", "epsilon_from_rates", "one_run_epsilon"]


#: What ``confidence`` is, said when it is out of range.
_CONFIDENCE = "the probability that the bound holds (e.g. confidence=0.95)."


def check_runs(runs, minimum: int = 20) -> int:
    """Runs per dataset of an audit: an int >= ``minimum`` (half of the runs choose the
    threshold, the other half bound the error rates), returned as an int.

    >>> check_runs(1_000)
    1000
    """
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
    runs = check_runs(runs)
    confidence = check_probability(confidence, "confidence", _CONFIDENCE)
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


def _candidates(sel0: np.ndarray, sel1: np.ndarray, n_thresholds: int):
    """Candidate tests ``(sign, thresholds)``: quantiles of the pooled selection scores, finer
    in both tails, for each orientation (``sign * score > sign * t`` decides D')."""
    tails = np.geomspace(1e-4, 0.02, 30)
    levels = np.concatenate([np.linspace(0.0, 1.0, n_thresholds), tails, 1.0 - tails])
    pooled = np.concatenate([sel0, sel1])
    return [(sign, np.unique(np.quantile(sign * pooled, levels))) for sign in (1.0, -1.0)]


def audit_scores(scores_d, scores_dprime, *, delta: float = 0.0, confidence: float = 0.95,
                 rng=None, n_thresholds: int = 400) -> ScoreAudit:
    """Lower-bound epsilon from scores of runs on D (``scores_d``) and on D' (``scores_dprime``).

    The runs of each side are split at random into two halves. On the first half, every
    candidate test (both orientations, ``n_thresholds`` quantiles of the pooled scores and more
    in the tails; ``m`` tests in all) gets the bound of its Clopper-Pearson upper rates at the
    simultaneous level ``alpha / m`` (Bonferroni: a lower bound for all ``m`` at once), and the
    test with the largest is chosen. The bound is computed on the second half at level
    ``1 - alpha/2`` per rate (``alpha = 1 - confidence``; [JUO20]_ Algorithm 2), so the choice,
    made on other runs, leaves it valid.

    The simultaneous level only guides the choice. The largest of ``m`` noisy bounds at level
    ``alpha`` lies where the bound is noisiest, in a tail with few counts, and the held-out
    half then shows little there (the Gaussian at epsilon = 1, delta = 1e-5 and 10^4 runs,
    seed 0: threshold 9.1, 2.4 noise SDs out, held-out bound 0). A bound that holds for every
    candidate at once prefers thresholds whose bound is large in truth: over seeds 0-19 that
    Gaussian's held-out bound is 0.16-0.41 (mean 0.26) instead of 0-0.73 (mean 0.21, 0 at 3
    seeds); Laplace at 10^5 runs, seeds 0-9, 0.96-0.99 instead of 0.80-0.99.

    Returns
    -------
    ScoreAudit
    """
    confidence = check_probability(confidence, "confidence", _CONFIDENCE)
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
    candidates = _candidates(sel0, sel1, n_thresholds)
    level = alpha / sum(cand.size for _, cand in candidates)  # simultaneous over the m tests
    best = (-1.0, 1.0, 0.0)  # (simultaneous bound on the selection half, sign, threshold)
    for sign, cand in candidates:
        fp, fn = _rates(sign * sel0, sign * sel1, cand)
        eps_sel = epsilon_from_rates(clopper_pearson_upper(fp, sel0.size, level / 2),
                                     clopper_pearson_upper(fn, sel1.size, level / 2), delta)
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


@dataclass(frozen=True)
class GaussianTradeoff:
    """The trade-off function ``G_mu(fpr) = Phi(Phi^-1(1 - fpr) - mu)`` of two Gaussian laws
    whose means are ``mu`` standard deviations apart ([DRS22]_ Eq. 2.4): the least FNR of any
    test between them with FPR ``fpr``. Plain data (picklable), for :func:`audit_reach`.

    Examples
    --------
    >>> round(float(GaussianTradeoff(1.0)(0.5)), 4)  # Phi(-1)
    0.1587
    """

    mu: float

    def __call__(self, fpr) -> np.ndarray:
        return stats.norm.cdf(stats.norm.isf(np.asarray(fpr, dtype=float)) - self.mu)


def audit_reach(tradeoff: Callable[[np.ndarray], np.ndarray], runs: int,
                confidence: float = 0.95, delta: float = 0.0) -> float:
    """What :func:`audit` can expect to show on a correct mechanism with ``runs`` per dataset.

    ``tradeoff(fpr)`` is the trade-off function of the mechanism's two output laws on the pair
    (the least FNR of any test of D against D' whose FPR is ``fpr``; [DRS22]_ Definition 2.2).
    The reach is the largest :func:`epsilon_from_rates` of the held-out half's Clopper-Pearson
    upper rates when its counts sit at their expectations (``n fpr`` and ``n tradeoff(fpr)``,
    ``n = runs - runs // 2``) and the test at its best FPR: the typical bound of an audit that
    knew the best threshold. A correct mechanism's audit reads about this or less, so a bound
    below the claim but near the reach is all that many runs can show; :func:`audit_ceiling` is
    the same for a test that never errs.

    Examples
    --------
    >>> gaussian = GaussianTradeoff(1 / 3.73)  # noise SD 3.73 times the centres' distance
    >>> round(audit_reach(gaussian, 10_000, delta=1e-5), 2)
    0.31
    """
    runs = check_runs(runs)
    confidence = check_probability(confidence, "confidence", _CONFIDENCE)
    n = runs - runs // 2
    tail = np.geomspace(1e-12, 0.5, 4000)
    fpr = np.concatenate([tail, 1.0 - tail])
    fnr = np.clip(np.asarray(tradeoff(fpr), dtype=float), 0.0, 1.0)
    level = (1.0 - confidence) / 2
    return float(np.max(epsilon_from_rates(clopper_pearson_upper(n * fpr, n, level),
                                           clopper_pearson_upper(n * fnr, n, level), delta)))


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
    confidence = check_probability(confidence, "confidence", _CONFIDENCE)
    if guesses <= 0:
        return 0.0
    if not 0 <= correct <= guesses:
        raise ValueError(f"correct == {correct}, must be in [0, guesses = {guesses}].")
    if correct == 0:
        return 0.0
    # P(Bin(r, p) >= v) = I_p(v, r - v + 1) is increasing in p; solve it = 1 - confidence.
    p = float(stats.beta.ppf(1.0 - confidence, correct, guesses - correct + 1))
    return max(0.0, float(special.logit(p))) if p > 0.5 else 0.0
