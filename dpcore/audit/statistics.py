"""Audit statistics: lower bounds on epsilon from the error rates of a threshold test.

(epsilon, delta)-DP implies ``FNR + e^epsilon FPR >= 1 - delta`` and ``FPR + e^epsilon FNR >=
1 - delta`` for every test of "D or D'" ([KOV15]_ Theorem 2.1), so upper confidence bounds on
both rates (:func:`clopper_pearson_upper`) give a lower bound on epsilon
(:func:`epsilon_from_rates`; [JUO20]_ Sect. 3, [NST21]_ Sect. 2). :func:`audit_scores` chooses
the threshold on one half of the runs and bounds the rates on the other; :func:`audit_ceiling`
is the most any audit with a given number of runs can show; :func:`audit_reach` is what it can
expect to show on a correct mechanism whose trade-off function is known (the Gaussian's,
[DRS22]_); :func:`one_run_epsilon` is the bound of the one-run audit ([SNJ23]_ Theorems 3.1
and 3.2); :func:`point_against_curve` says whether an audit's (FPR, TPR) point is significantly
above the curve a claim allows (the f-DP view, :func:`dpcore.planning.tradeoff`).

References
----------
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML, Theorem 2.1.
.. [JUO20] Jagielski, Ullman & Oprea (2020), *Auditing differentially private machine learning:
   how private is private SGD?*, NeurIPS, Algorithm 2 (Clopper-Pearson bounds on the error rates).
.. [NST21] Nasr, Song, Thakurta, Papernot & Carlini (2021), *Adversary instantiation: lower bounds
   for differentially private machine learning*, IEEE S&P, Sect. 2.
.. [SNJ23] Steinke, Nasr & Jagielski (2023), *Privacy auditing with one (1) training run*,
   NeurIPS, Theorem 3.1 (pure epsilon-DP), Theorem 3.2 (approximate DP) and its p-value
   procedure.
.. [DRS22] Dong, Roth & Su (2022), *Gaussian differential privacy*, J. R. Stat. Soc. B 84(1),
   Definition 2.2 (trade-off functions) and Eq. (2.4) (the Gaussian's, ``G_mu``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from dpcore.validation import DataError, check_probability, check_random_state, check_scalar

__all__ = ["GaussianTradeoff", "RatePoint", "ScoreAudit", "audit_ceiling", "audit_reach",
           "audit_scores", "check_runs", "clopper_pearson_upper", "epsilon_from_rates",
           "one_run_epsilon", "point_against_curve"]


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


@dataclass(frozen=True)
class RatePoint:
    """An audit's (FPR, TPR) with its Clopper-Pearson box, against a claim's curve
    (:func:`point_against_curve`)."""

    fpr: float
    tpr: float
    fpr_low: float
    fpr_high: float
    tpr_low: float
    tpr_high: float
    #: The largest TPR the claim allows at ``fpr_high``.
    allowed: float
    #: True when the TPR is significantly above the curve: evidence of a bug.
    above: bool


def point_against_curve(false_positives: int, negatives: int, true_positives: int,
                        positives: int, tpr_bound: Callable[[np.ndarray], np.ndarray], *,
                        confidence: float = 0.95) -> RatePoint:
    """Is an audit's (FPR, TPR) point significantly above the curve a claim allows?

    A test of "D or D'" fixed in advance says "D'" on ``false_positives`` of ``negatives`` runs
    on D and on ``true_positives`` of ``positives`` runs on D'. The claim bounds its TPR by
    ``tpr_bound(FPR)`` (non-decreasing; e.g. ``functools.partial(dpcore.planning.tradeoff,
    epsilons)``, the f-DP view). With one-sided Clopper-Pearson bounds at level ``alpha / 2``
    each (``alpha = 1 - confidence``, Bonferroni), the point is *above* when the lower bound on
    the TPR exceeds ``tpr_bound`` at the upper bound on the FPR. If the claim holds, then
    ``TPR <= tpr_bound(FPR) <= tpr_bound(fpr_high)`` whenever ``fpr_high >= FPR``, so "above"
    needs one of the two bounds to fail: probability at most ``alpha``. The box is the two
    rates' bounds on both sides at the same level.

    Examples
    --------
    >>> bound = lambda fpr: np.minimum(1.0, np.e * np.asarray(fpr))  # ε = 1, small FPRs
    >>> point_against_curve(100, 10_000, 500, 10_000, bound).above  # TPR 5 % at FPR 1 %
    True
    >>> point_against_curve(100, 10_000, 250, 10_000, bound).above  # 2.5 %: within e · 1 %
    False
    """
    confidence = check_probability(confidence, "confidence", _CONFIDENCE)
    counts = []
    for hits, runs, name, total_name in (
            (false_positives, negatives, "false_positives", "negatives"),
            (true_positives, positives, "true_positives", "positives")):
        total = _check_count(runs, total_name, "the number of runs the test answered.")
        hits = _check_count(hits, name, "the runs the test answered 'D prime' on.")
        if total == 0 or hits > total:
            raise ValueError(f"{name} == {hits} of {total_name} == {total} runs: pass at "
                             f"least one run and at most {total_name} hits.")
        counts.append((hits, total))
    level = (1.0 - confidence) / 2.0
    (fp, n0), (tp, n1) = counts
    fpr_high = float(clopper_pearson_upper(fp, n0, level))
    fpr_low = 1.0 - float(clopper_pearson_upper(n0 - fp, n0, level))
    tpr_high = float(clopper_pearson_upper(tp, n1, level))
    tpr_low = 1.0 - float(clopper_pearson_upper(n1 - tp, n1, level))
    allowed = float(np.asarray(tpr_bound(np.array([fpr_high])), dtype=float).ravel()[0])
    return RatePoint(fp / n0, tp / n1, fpr_low, fpr_high, tpr_low, tpr_high, allowed,
                     tpr_low > allowed)


def _check_count(value, name: str, meaning: str) -> int:
    """A count (of guesses, runs or hits): an int >= 0, ``meaning`` ending the message if not."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} ({value!r}): "
                        f"{meaning}")
    if value < 0:
        raise ValueError(f"{name} == {value}, must be >= 0: {meaning}")
    return int(value)


def _one_run_p_value(guesses: int, correct: int, epsilon: float, delta: float,
                     canaries: int) -> float:
    """``P(at least correct right guesses)`` under the null "(epsilon, delta)-DP" ([SNJ23]_).

    ``tail + 2 m delta max_{1 <= i <= v} P(v - i <= B < v) / i`` with ``B ~ Binomial(r, q)``,
    ``q = e^eps / (1 + e^eps)``, ``v = correct``, ``r = guesses``, ``m = canaries`` and
    ``tail = P(B >= v)``, capped at 1; ``tail`` alone when ``delta = 0``.
    """
    q = float(special.expit(epsilon))
    tail = float(stats.binom.sf(correct - 1, guesses, q))
    if delta == 0.0 or correct == 0:
        return tail
    below = np.cumsum(stats.binom.pmf(np.arange(correct - 1, -1, -1), guesses, q))
    worst = float(np.max(below / np.arange(1, correct + 1)))
    return min(1.0, tail + 2.0 * canaries * delta * worst)


def one_run_epsilon(guesses: int, correct: int, *, delta: float = 0.0,
                    confidence: float = 0.95, canaries: int | None = None) -> float:
    """Lower bound on epsilon from ``correct`` right guesses out of ``guesses`` in one run
    ([SNJ23]_).

    In the one-run audit, ``m = canaries`` canaries are each included independently with
    probability 1/2, the attacker guesses "in" or "out" for ``r = guesses`` of them (abstaining
    on the rest) and ``v = correct`` guesses are right. Every epsilon at which the observed
    count would be too unlikely is rejected; the bound is the largest rejected epsilon.

    ``delta = 0`` ([SNJ23]_ Theorem 3.1): for an epsilon-DP mechanism the number of right
    guesses is stochastically dominated by ``B ~ Binomial(r, q(eps))``, ``q(eps) = e^eps / (1 +
    e^eps)``, so every epsilon with ``P(B >= v) < 1 - confidence`` is rejected. That tail grows
    with epsilon, and the bound is the epsilon at which it equals ``1 - confidence`` exactly:
    since ``P(B >= v) = I_q(v, r - v + 1)`` (the regularised incomplete beta function),
    ``q = Beta(v, r - v + 1)`` quantile at ``1 - confidence`` and ``eps = logit(q)`` (0 when
    ``q <= 1/2``, e.g. whenever ``v <= r/2`` and ``confidence >= 1/2``).

    ``delta > 0`` ([SNJ23]_ Theorem 3.2, the approximate-DP statement, and its p-value
    procedure): under (epsilon, delta)-DP, ``P(at least v right) <= P(B >= v) + 2 m delta
    max_{1 <= i <= v} P(v - i <= B < v) / i``. Unlike the ``delta = 0`` tail this depends on
    the number of canaries ``m``, which must then be given. The bound is found by bisection
    (to 1e-10) between an epsilon that is rejected and one that is not, and the rejected end is
    returned, so the reported epsilon is always rejected at ``confidence``. (An (epsilon',
    delta)-DP mechanism with ``epsilon' < epsilon`` is also (epsilon, delta)-DP, so every
    smaller epsilon is rejected with it.) This p-value is not proved monotone in epsilon; if it
    is not, a larger epsilon may be rejected too, and the bound is valid but not the largest.

    Parameters
    ----------
    guesses : int
        ``r >= 1``: canaries the attacker guessed on (abstentions excluded).
    correct : int
        ``v`` in ``[0, guesses]``: right guesses among them.
    delta : float, default=0.0
        The delta of the null hypothesis "(epsilon, delta)-DP", in [0, 1).
    confidence : float, default=0.95
        In (0, 1): a correctly calibrated mechanism's bound exceeds its epsilon with
        probability at most ``1 - confidence``.
    canaries : int or None, default=None
        ``m >= guesses``: canary slots in the run. Needed when ``delta > 0`` only.

    Returns
    -------
    float
        The bound, >= 0.

    Examples
    --------
    >>> one_run_epsilon(100, 50)
    0.0
    >>> round(one_run_epsilon(100, 100), 3)  # 100/100 correct: q >= 0.05 ** (1/100)
    3.493
    >>> round(one_run_epsilon(100, 90), 3)
    1.631
    >>> round(one_run_epsilon(100, 90, delta=1e-5, canaries=1000), 3)
    1.626
    """
    confidence = check_probability(confidence, "confidence", _CONFIDENCE)
    delta = check_scalar(delta, "delta", min_val=0.0, include_min=True, max_val=1.0,
                         include_max=False)
    guesses = _check_count(guesses, "guesses", "the number of canaries the attacker guessed "
                           "on, abstentions excluded (the call is one_run_epsilon(guesses, "
                           "correct)).")
    correct = _check_count(correct, "correct", "the number of right guesses (the call is "
                           "one_run_epsilon(guesses, correct)).")
    if guesses == 0:
        raise ValueError("guesses == 0: no guess, no bound. Let the attacker guess on at "
                         "least one canary (e.g. the 10 % it is most sure of).")
    if correct > guesses:
        raise ValueError(f"correct == {correct} is more than guesses == {guesses}; the call is "
                         "one_run_epsilon(guesses, correct): are the two swapped?")
    if delta > 0.0:
        if canaries is None:
            raise ValueError(f"delta == {delta:g} > 0 needs canaries=m, the number of canary "
                             "slots in the run: the bound of the approximate-DP case grows "
                             "with 2 m delta. Pass e.g. canaries=1000, or delta=0.0.")
        m = _check_count(canaries, "canaries", "the number of canary slots in the run.")
        if m < guesses:
            raise ValueError(f"canaries == {m} is fewer than guesses == {guesses}: the "
                             "attacker guesses on some of the run's canaries, so pass "
                             "canaries >= guesses.")
    if correct == 0:
        return 0.0
    if delta == 0.0:
        # P(Bin(r, q) >= v) = I_q(v, r - v + 1) is increasing in q; solve it = 1 - confidence.
        q = float(stats.beta.ppf(1.0 - confidence, correct, guesses - correct + 1))
        return max(0.0, float(special.logit(q))) if q > 0.5 else 0.0
    level = 1.0 - confidence

    def rejected(eps: float) -> bool:
        return _one_run_p_value(guesses, correct, eps, delta, m) < level

    if not rejected(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejected(hi):
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if rejected(mid) else (lo, mid)
    return lo
