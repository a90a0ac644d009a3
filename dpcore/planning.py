"""Choosing epsilon: accuracy targets to epsilon, epsilon as risk, and composition totals.

Three questions a data owner asks before any release, answered without spending budget:

* **Which epsilon meets my accuracy target?** Closed forms invert the noise's tail where one
  exists (:func:`epsilon_for_laplace`, :func:`epsilon_for_gaussian`, the importance weights'
  Theorem 2 variance in :func:`epsilon_for_importance_theory`); otherwise a Monte-Carlo curve
  over a log-epsilon grid is fitted monotone (isotonic, :func:`isotonic_decreasing`) and read at
  the target (:func:`epsilon_from_curve`), with its uncertainty from a bootstrap of the runs.
  Curves for the pages' mechanisms: :func:`importance_errors`, :func:`logistic_errors`,
  :func:`subset_errors`.
* **What does epsilon mean as risk?** :func:`posterior_bound`: how far a release can move an
  attacker's belief that a given person is in the data.
* **What do several releases cost together?** :func:`compose` under sequential, advanced
  (Kairouz-Oh-Viswanath) or zero-concentrated DP composition, and :func:`compare_compositions`
  for a planned set of releases (the "what if" table; see also
  :meth:`dpcore.accountant.BudgetAccountant.preview`).

Answers computed from private data (every Monte-Carlo curve below evaluates errors against the
non-private truth) are *non-private studies*: the epsilon they return depends on D. Run them on a
public stand-in (the scenario's E) to choose epsilon without looking at D.

References
----------
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Found.
   Trends Theor. Comput. Sci. 9, Theorem 3.16 (basic composition), Theorem 3.20 (advanced).
.. [DRV10] Dwork, Rothblum & Vadhan (2010), *Boosting and differential privacy*, FOCS,
   Theorem III.3.
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML (JMLR W&CP 37), Theorem 2.1 and Corollary 2.3 (every (epsilon, delta)-DP pair is a
   post-processing of the canonical four-output mechanism), Theorem 3.5 (heterogeneous
   composition).
.. [BS16] Bun & Steinke (2016), *Concentrated differential privacy: simplifications, extensions,
   and lower bounds*, TCC, Proposition 1.3 (zCDP to (epsilon, delta)), Proposition 1.4 (pure
   epsilon-DP is epsilon^2/2-zCDP), Proposition 1.6 (Gaussian), Lemma 2.3 (composition).
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1.6 (sequential and parallel theorems).
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn.
   93, Theorem 2 (variance) and Theorem 3 (bias).
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, special

from dpcore.mechanisms import Gaussian, Laplace
from dpcore.simulation import report
from dpcore.validation import (
    check_choice,
    check_probability,
    check_random_state,
    check_scalar,
)

__all__ = [
    "COARSE_GRID",
    "COMPOSITIONS",
    "COMPOSITION_ASSUMPTIONS",
    "EPSILON_RANGE",
    "EpsilonAnswer",
    "PlannedRelease",
    "compare_compositions",
    "compose",
    "compose_parts",
    "composition_growth",
    "epsilon_for_gaussian",
    "epsilon_for_importance_theory",
    "epsilon_for_laplace",
    "epsilon_from_curve",
    "gaussian_rho",
    "importance_errors",
    "isotonic_decreasing",
    "logistic_errors",
    "mean_sensitivity",
    "noise_answer",
    "planned_releases",
    "posterior_bound",
    "posterior_curves",
    "public_stand_in",
    "search_epsilon",
    "subset_errors",
]

COMPOSITIONS = ("sequential", "advanced", "zcdp")

#: What each composition method assumes, in one line each (shown beside every total).
COMPOSITION_ASSUMPTIONS = {
    "sequential": "Any releases, chosen adaptively: the ε and the δ add up (Dwork & Roth, "
                  "Thm 3.16). Always valid.",
    "advanced": "Any (ε_i, δ_i)-DP releases whose ε_i are fixed in advance (a declared plan); "
                "the total ε grows like √(Σε_i²) instead of Σε_i, at the price of an extra δ′ "
                "(Kairouz, Oh & Viswanath 2015, Thm 3.5). Pays off for many small-ε releases. "
                "A 'what if' only: it never refuses a session's releases, whose ε are chosen "
                "one after another.",
    "zcdp": "Pure ε-DP releases count as ρ = ε²/2, Gaussian ones as ρ = Δ²/(2σ²); the ρ add "
            "up and convert to (ρ + 2√(ρ ln(1/δ′)), δ′) (Bun & Steinke 2016, Props 1.3-1.6, "
            "Lemma 2.3). Needs each Gaussian release's σ, not only its (ε, δ). Also valid when "
            "each ε is chosen after the last release (a Rényi filter, Feldman & Zrnic 2021).",
}

#: The epsilons a target is searched in: the range of every page's slider.
EPSILON_RANGE = (0.01, 10.0)


# --------------------------------------------------------------------------------------------
# Checks


def _check_positive(value: Any, name: str) -> float:
    value = check_scalar(value, name)
    if value <= 0.0:
        raise ValueError(f"{name} == {value:g}, must be > 0.")
    return value


def _check_level(level: Any) -> float:
    return check_probability(
        level, "level", "the share of releases that must meet the target (e.g. level=0.95)."
    )


def _check_method(method: Any) -> str:
    return check_choice(method, "method", COMPOSITIONS)


def _check_slack(delta_slack: Any) -> float:
    return check_scalar(delta_slack, "delta_slack", min_val=0.0, max_val=1.0, include_min=True,
                        include_max=False)


def _check_epsilon_range(eps_range: Any) -> tuple[float, float]:
    lo, hi = (float(v) for v in eps_range)
    if not 0.0 < lo < hi or not math.isfinite(hi):
        raise ValueError(f"eps_range == {eps_range!r}, must be (low, high) with 0 < low < high.")
    return lo, hi


# --------------------------------------------------------------------------------------------
# Epsilon as risk


def posterior_bound(prior: Any, epsilon: Any, delta: float = 0.0) -> float | np.ndarray:
    """Worst-case posterior probability that a person is in the data after one release.

    An attacker believes with probability ``prior`` that a given person's record is in the data
    (or that an attribute of theirs takes a value: any pair of neighbouring datasets). After an
    epsilon-DP release, whatever the output, the posterior *odds* are at most ``e^epsilon``
    times the prior odds, so the posterior is at most

    ``b = e^eps p / (e^eps p + 1 - p)``.

    For (epsilon, delta)-DP the function returns ``b + delta (1 - b)``, an upper bound on the
    posterior *expected over releases* when the person is in the data. Derivation: every
    (epsilon, delta)-DP pair of output distributions is a post-processing of the canonical
    four-output mechanism ([KOV15]_ Theorem 2.1, Corollary 2.3), which with probability delta
    reveals the truth (posterior 1) and otherwise answers randomised response (posterior at most
    ``b``). The posterior after a post-processed output is the conditional mean of the canonical
    posteriors, and ``g(pi) = pi (pi - b)_+`` is convex, so by Jensen
    ``E_in[(posterior - b)_+] = E_mix[g(posterior)] / p <= delta (1 - b)``, hence
    ``E_in[max(posterior, b)] <= b + delta (1 - b)``. Unlike the pure case this does not hold
    for every output: with probability up to delta a release can reveal the record outright.

    Parameters
    ----------
    prior : float or array-like
        Prior probability, in [0, 1].
    epsilon : float or array-like
        The release's epsilon, >= 0 (broadcast against ``prior``).
    delta : float, default=0.0
        The release's delta, in [0, 1).

    Returns
    -------
    float or ndarray
        The bound, in [prior, 1].

    Examples
    --------
    >>> round(posterior_bound(0.01, 1.0), 4)  # a 1 % prior rises to at most 2.67 %
    0.0267
    >>> round(posterior_bound(0.5, math.log(3)), 4)  # odds 1 -> 3
    0.75
    """
    p = np.asarray(prior, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    if not np.all(np.isfinite(p)) or np.any((p < 0.0) | (p > 1.0)):
        raise ValueError(f"prior == {prior!r}, must be in [0, 1].")
    if not np.all(np.isfinite(eps)) or np.any(eps < 0.0):
        raise ValueError(f"epsilon == {epsilon!r}, must be finite and >= 0.")
    delta = check_scalar(delta, "delta", min_val=0.0, max_val=1.0, include_min=True,
                         include_max=False)
    # b = p / (p + e^-eps (1 - p)): no overflow for large eps; p = 0 stays 0.
    denom = p + np.exp(-eps) * (1.0 - p)
    b = np.divide(p, denom, out=np.zeros(np.broadcast(p, denom).shape), where=p > 0.0)
    out = b + delta * (1.0 - b)
    return float(out) if out.ndim == 0 else out


def posterior_curves(priors: Sequence[float], epsilons: Sequence[float],
                     delta: float = 0.0) -> pd.DataFrame:
    """:func:`posterior_bound` on a grid, in long form: columns prior, epsilon, delta, posterior.

    >>> posterior_curves([0.01, 0.5], [1.0]).shape
    (2, 4)
    """
    rows = [pd.DataFrame({"prior": np.asarray(priors, dtype=float), "epsilon": float(eps),
                          "delta": float(delta),
                          "posterior": posterior_bound(np.asarray(priors, dtype=float), eps,
                                                       delta)})
            for eps in epsilons]
    return pd.concat(rows, ignore_index=True)


# --------------------------------------------------------------------------------------------
# Closed forms: target -> epsilon


def mean_sensitivity(n: int, low: float = 0.0, high: float = 1.0) -> float:
    """L1 sensitivity ``(high - low) / n`` of a mean of ``n`` values in [low, high].

    Under "replace one record" with ``n`` public (a count is sensitivity 1 under add/remove).
    The bounds come from the domain, never from the data.

    >>> mean_sensitivity(1000)
    0.001
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n == {n!r}, must be an int >= 1 (the public number of records).")
    low, high = check_scalar(low, "low"), check_scalar(high, "high")
    if not high > low:
        raise ValueError(f"high == {high:g} must be > low == {low:g}.")
    return (high - low) / int(n)


def epsilon_for_laplace(sensitivity: float, error: float, level: float = 0.95) -> float:
    """Smallest epsilon whose Laplace noise stays within ``±error`` with probability ``level``.

    The Laplace mechanism adds Laplace(0, Δ/ε) noise ([DR14]_ Theorem 3.6), whose tail is
    ``P(|X| <= t) = 1 - exp(-t ε / Δ)``; setting it to ``level`` at ``t = error`` gives

    ``ε = Δ ln(1 / (1 - level)) / error``.

    The result is rounded up to the next float where needed, so that
    ``Laplace(ε, Δ).tail_bound(level) <= error`` holds exactly.

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity Δ of the released value, > 0 (e.g. 1 for a count,
        :func:`mean_sensitivity` for a mean).
    error : float
        Largest acceptable absolute error, > 0, in the value's units.
    level : float, default=0.95
        Share of releases that must be within ``error``, in (0, 1).

    Returns
    -------
    float

    Examples
    --------
    >>> round(epsilon_for_laplace(1.0, 10.0), 4)  # a count within ±10 in 95 % of releases
    0.2996
    """
    sensitivity = _check_positive(sensitivity, "sensitivity")
    error = _check_positive(error, "error")
    level = _check_level(level)
    eps = -sensitivity * math.log1p(-level) / error
    while Laplace(eps, sensitivity).tail_bound(level) > error:
        eps = math.nextafter(eps, math.inf)
    return eps


def epsilon_for_gaussian(sensitivity: float, error: float, level: float = 0.95, *,
                         delta: float = 1e-6, calibration: str = "analytic") -> float:
    """Smallest epsilon whose Gaussian noise (at ``delta``) stays within ``±error`` at ``level``.

    The noise is Normal(0, σ²) with ``P(|X| <= t) = level`` at ``t = σ z``, ``z =
    Φ⁻¹((1 + level)/2)``, so the target needs ``σ <= error / z``. ``"classic"``:
    ``σ = Δ √(2 ln(1.25/δ)) / ε`` inverts to ``ε = Δ √(2 ln(1.25/δ)) z / error`` (proven only for
    ε < 1, [DR14]_ Theorem A.1; a larger result raises). ``"analytic"``: the smallest σ of
    [BW18] decreases in ε, so the ε with ``σ(ε) = error / z`` is found by Brent's method on
    ``log ε`` and rounded up until ``Gaussian(ε, δ, Δ).tail_bound(level) <= error``.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity Δ, > 0.
    error : float
        Largest acceptable absolute error, > 0.
    level : float, default=0.95
    delta : float, default=1e-6
        The release's delta, in (0, 1).
    calibration : {"analytic", "classic"}, default="analytic"

    Returns
    -------
    float

    Examples
    --------
    >>> eps = epsilon_for_gaussian(1.0, 10.0, delta=1e-6)
    >>> Gaussian(eps, 1e-6, 1.0).tail_bound(0.95) <= 10.0
    True
    """
    sensitivity = _check_positive(sensitivity, "sensitivity")
    error = _check_positive(error, "error")
    level = _check_level(level)
    z = float(special.ndtri((1.0 + level) / 2.0))
    sigma_max = error / z
    if calibration == "classic":
        Gaussian(0.5, delta, sensitivity, "classic")  # checks delta and the calibration name
        eps = sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / sigma_max
        if eps >= 1.0:
            raise ValueError(
                f"The target needs ε = {eps:.3g}, but the classic Gaussian calibration is "
                "proven only for ε < 1. Use calibration='analytic', or accept a larger error."
            )
    elif calibration == "analytic":
        Gaussian(1.0, delta, sensitivity)  # checks delta

        def gap(log_eps: float) -> float:
            return math.log(Gaussian(math.exp(log_eps), delta, sensitivity).sigma / sigma_max)

        lo = hi = math.log(sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / sigma_max)
        while gap(lo) <= 0.0:
            lo -= math.log(2.0)
        while gap(hi) > 0.0:
            hi += math.log(2.0)
        eps = math.exp(optimize.brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14, maxiter=500))
    else:
        raise ValueError(f"calibration == {calibration!r}, must be 'analytic' or 'classic'.")
    for _ in range(200):  # round up to the private-and-accurate side
        if Gaussian(eps, delta, sensitivity, calibration).tail_bound(level) <= error:
            return eps
        eps *= 1.0 + 1e-12
    raise RuntimeError("epsilon_for_gaussian did not converge; please report this.")


def noise_answer(mechanism: str, sensitivity: float, error: float, level: float = 0.95, *,
                 delta: float = 1e-6, eps_range: tuple[float, float] = EPSILON_RANGE,
                 grid: int = 60) -> EpsilonAnswer:
    """:func:`epsilon_for_laplace` or :func:`epsilon_for_gaussian` with its curve, for a page.

    The curve is the noise's ``level`` radius (``tail_bound``) against epsilon over
    ``eps_range``. Reads no data: the sensitivity comes from the domain.
    """
    lo, hi = _check_epsilon_range(eps_range)
    if mechanism == "Laplace":
        answer = epsilon_for_laplace(sensitivity, error, level)

        def radius(e: float) -> float:
            return Laplace(e, sensitivity).tail_bound(level)
    elif mechanism == "Gaussian":
        answer = epsilon_for_gaussian(sensitivity, error, level, delta=delta)

        def radius(e: float) -> float:
            return Gaussian(e, delta, sensitivity).tail_bound(level)
    else:
        raise ValueError(f"mechanism == {mechanism!r}, must be 'Laplace' or 'Gaussian'.")
    eps_grid = np.geomspace(lo, hi, grid)
    values = np.array([radius(float(e)) for e in eps_grid])
    met = answer <= hi
    shown = max(answer, lo)
    return EpsilonAnswer(epsilon=shown if met else None, met=met, target=error,
                         achieved=radius(shown if met else hi), best_epsilon=hi, low=math.nan,
                         high=math.nan, n_runs=0, statistic=f"{level:.0%} noise radius",
                         source=f"closed form: {mechanism} tail",
                         curve=pd.DataFrame({"epsilon": eps_grid, "value": values,
                                             "fitted": values}))


# --------------------------------------------------------------------------------------------
# Answers from curves


@dataclass(frozen=True)
class EpsilonAnswer:
    """The smallest epsilon that meets an accuracy target, with what it rests on.

    Attributes
    ----------
    epsilon : float or None
        The smallest epsilon in the range that meets the target; None when none does.
    met : bool
    target : float
        The largest acceptable value of the statistic (an error).
    achieved : float
        The (fitted) statistic at ``epsilon``, or at ``best_epsilon`` when the target is not met.
    best_epsilon : float
        Where the fitted statistic is smallest in the range (the best reachable).
    low, high : float
        An uncertainty interval for ``epsilon`` (NaN for exact closed forms; ``inf`` for high
        when the target may not be met in range).
    n_runs : int
        Replicates per epsilon behind a Monte-Carlo answer (0 for closed forms).
    statistic : str
        What was compared with the target, in words.
    source : str
        ``"closed form"`` or ``"Monte Carlo"`` and which one.
    curve : DataFrame
        Columns ``epsilon``, ``value`` (measured or closed form), ``fitted`` (monotone fit).
    """

    epsilon: float | None
    met: bool
    target: float
    achieved: float
    best_epsilon: float
    low: float
    high: float
    n_runs: int
    statistic: str
    source: str
    curve: pd.DataFrame = field(repr=False)

    def describe(self) -> str:
        """One sentence for a page."""
        if self.met:
            return (f"ε = {self.epsilon:.3g} meets the target ({self.statistic} "
                    f"{self.achieved:.3g} <= {self.target:g}).")
        return (f"No ε in range meets the target {self.target:g}; the best reachable is "
                f"{self.statistic} {self.achieved:.3g} at ε = {self.best_epsilon:.3g}.")


def isotonic_decreasing(y: Any, weights: Any = None) -> np.ndarray:
    """Least-squares non-increasing fit to ``y`` (pool adjacent violators).

    Parameters
    ----------
    y : array-like of shape (n,)
    weights : array-like of shape (n,), default=None (all 1)

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> isotonic_decreasing([3.0, 1.0, 2.0, 0.5]).tolist()
    [3.0, 1.5, 1.5, 0.5]
    """
    y = np.asarray(y, dtype=float)
    w = np.ones_like(y) if weights is None else np.asarray(weights, dtype=float)
    means: list[float] = []
    wts: list[float] = []
    sizes: list[int] = []
    for value, weight in zip(y, w, strict=True):
        means.append(float(value))
        wts.append(float(weight))
        sizes.append(1)
        while len(means) > 1 and means[-2] < means[-1]:  # violates non-increasing: pool
            total = wts[-2] + wts[-1]
            means[-2] = (wts[-2] * means[-2] + wts[-1] * means[-1]) / total
            wts[-2] = total
            sizes[-2] += sizes[-1]
            del means[-1], wts[-1], sizes[-1]
    return np.repeat(means, sizes)


def _crossing(log_eps: np.ndarray, fitted: np.ndarray, target: float) -> float:
    """Smallest epsilon where the piecewise-linear (in log epsilon) fit reaches ``target``."""
    below = np.flatnonzero(fitted <= target)
    if below.size == 0:
        return math.inf
    j = int(below[0])
    if j == 0:
        return float(np.round(math.exp(log_eps[0]), 12))
    f0, f1 = fitted[j - 1], fitted[j]
    t = (f0 - target) / (f0 - f1)
    return float(math.exp(log_eps[j - 1] + t * (log_eps[j] - log_eps[j - 1])))


def _statistic(values: np.ndarray, statistic: str | float) -> np.ndarray:
    """Per epsilon (axis -2), the statistic over the runs (last axis)."""
    if statistic == "mean":
        return values.mean(axis=-1)
    return np.quantile(values, float(statistic), axis=-1)


def _statistic_name(statistic: str | float) -> str:
    if statistic == "mean":
        return "mean"
    return f"{float(statistic):.0%} quantile"


def epsilon_from_curve(epsilons: Sequence[float], values: Any, target: float, *,
                       statistic: str | float = "mean", n_boot: int = 200,
                       confidence: float = 0.9, rng: Any = 0,
                       name: str = "error", source: str = "Monte Carlo") -> EpsilonAnswer:
    """Smallest epsilon whose Monte-Carlo statistic meets ``target``, from a monotone fit.

    The statistic (the mean, or a quantile such as 0.95 of the absolute error) of every
    epsilon's runs is fitted non-increasing in epsilon (:func:`isotonic_decreasing`, weights =
    runs per epsilon); the fit, linear between grid points in ``log epsilon``, is read at the
    target (the limit of bisection on it). The uncertainty interval comes from ``n_boot``
    bootstrap resamples of the runs (the same run indices at every epsilon, so a run's
    dependence across epsilons is kept), each refitted and read in the same way.

    Parameters
    ----------
    epsilons : sequence of float of length k
        The grid, increasing.
    values : array-like of shape (k, n_runs)
        One error per run and epsilon (smaller is better).
    target : float
        The largest acceptable statistic.
    statistic : "mean" or float in (0, 1), default="mean"
        ``0.95`` asks for "within target in 95 % of releases": the 95 % quantile of the errors.
    n_boot : int, default=200
        Bootstrap resamples for the interval (0: none).
    confidence : float, default=0.9
        Coverage of the interval.
    rng : None, int or numpy.random.Generator, default=0
        Seeds the bootstrap (a study: reproducible).
    name : str, default="error"
        What the values are, for :attr:`EpsilonAnswer.statistic`.
    source : str, default="Monte Carlo"

    Returns
    -------
    EpsilonAnswer
    """
    eps = np.asarray(epsilons, dtype=float)
    vals = np.asarray(values, dtype=float)
    if vals.ndim != 2 or vals.shape[0] != eps.size or eps.size < 2:
        raise ValueError(f"values must have shape (len(epsilons), n_runs) with at least 2 "
                         f"epsilons; got {vals.shape} for {eps.size} epsilons.")
    if np.any(np.diff(eps) <= 0.0) or eps[0] <= 0.0:
        raise ValueError("epsilons must be positive and strictly increasing.")
    if statistic != "mean":
        check_scalar(statistic, "statistic", min_val=0.0, max_val=1.0)
    target = check_scalar(target, "target")
    log_eps = np.log(eps)
    raw = _statistic(vals, statistic)
    fitted = isotonic_decreasing(raw)
    answer = _crossing(log_eps, fitted, target)
    low = high = math.nan
    if n_boot:
        gen = check_random_state(rng)
        idx = gen.integers(0, vals.shape[1], size=(int(n_boot), vals.shape[1]))
        boot = _statistic(vals[:, idx], statistic)  # (k, n_boot)
        draws = np.array([_crossing(log_eps, isotonic_decreasing(boot[:, b]), target)
                          for b in range(int(n_boot))])
        tail = (1.0 - confidence) / 2.0
        # Order statistics (no interpolation), so that "not met" (inf) stays inf.
        draws.sort()
        ends = np.floor(np.array([tail, 1.0 - tail]) * (draws.size - 1) + 0.5).astype(int)
        low, high = (float(draws[i]) for i in ends)
    best = int(np.argmin(fitted))
    met = math.isfinite(answer)
    if met:
        at = float(np.interp(math.log(answer), log_eps, fitted))
    else:
        at = float(fitted[best])
    curve = pd.DataFrame({"epsilon": eps, "value": raw, "fitted": fitted})
    return EpsilonAnswer(epsilon=answer if met else None, met=met, target=target, achieved=at,
                         best_epsilon=float(eps[best]), low=low, high=high,
                         n_runs=int(vals.shape[1]),
                         statistic=f"{_statistic_name(statistic)} {name}", source=source,
                         curve=curve)


#: The coarse grid a search starts from (every page's slider offers these).
COARSE_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


def search_epsilon(evaluate: Any, target: float, *, statistic: str | float = "mean",
                   coarse: Sequence[float] = COARSE_GRID, refine: int = 4, n_boot: int = 200,
                   confidence: float = 0.9, rng: Any = 0, name: str = "error",
                   source: str = "Monte Carlo") -> EpsilonAnswer:
    """:func:`epsilon_from_curve` on a coarse log grid refined by bisection near the target.

    ``evaluate(epsilons)`` returns the runs' errors, shape (len(epsilons), n_runs). The coarse
    grid brackets the crossing of the monotone fit; each of ``refine`` steps evaluates the
    geometric mean of the bracket and refits on every point so far (a Monte-Carlo bisection:
    ``len(coarse) + refine`` evaluations instead of a dense grid). The answer is read off the
    final fit as in :func:`epsilon_from_curve`.
    """
    points: dict[float, np.ndarray] = {}

    def add(eps_list: Sequence[float]) -> None:
        vals = np.asarray(evaluate(list(eps_list)), dtype=float)
        for e, row in zip(eps_list, vals, strict=True):
            points[float(e)] = row

    add(sorted(float(e) for e in coarse))
    for _ in range(int(refine)):
        eps = np.array(sorted(points))
        fitted = isotonic_decreasing(_statistic(np.stack([points[e] for e in eps]), statistic))
        below = np.flatnonzero(fitted <= target)
        if below.size == 0 or below[0] == 0:
            break
        a, b = eps[below[0] - 1], eps[below[0]]
        if b / a < 1.05:
            break
        add([float(math.sqrt(a * b))])
    eps = sorted(points)
    return epsilon_from_curve(eps, np.stack([points[e] for e in eps]), target,
                              statistic=statistic, n_boot=n_boot, confidence=confidence, rng=rng,
                              name=name, source=source)


def epsilon_for_importance_theory(terms: Any, error: float, level: float = 0.95, *,
                                  kind: str = "bound", tail: str = "normal",
                                  with_bias: bool = True,
                                  eps_range: tuple[float, float] = EPSILON_RANGE,
                                  grid: int = 40) -> EpsilonAnswer:
    """Smallest epsilon at which the importance-weight estimate is within ±error at ``level``,
    from [JE13]_ Theorem 2's variance in closed form.

    Both the bound (delta-method form) and the plug-in prediction are ``V(ε) = A + B/ε²``: a
    sampling term ``A`` and the release's noise ``B/ε²`` (``B = c(1) ||alpha||²`` with
    ``c(ε)`` the L2-Laplace noise variance per coordinate). The target "within ±error of the
    truth with probability level" holds when ``|bias| + k sqrt(V(ε)) <= error`` with
    ``k = Φ⁻¹((1+level)/2)`` (``tail="normal"``, the estimate asymptotically normal) or
    ``k = 1/sqrt(1-level)`` (``tail="chebyshev"``, distribution-free given the variance), and
    ``bias`` Theorem 3's asymptotic bias (``with_bias``). Solving gives
    ``ε = sqrt(B / (((error - |bias|)/k)² - A))``; when the right side is not positive no
    epsilon reaches the target, and the best reachable is the range's upper end.

    Non-private: ``terms`` reads the private data without noise.

    Parameters
    ----------
    terms : dpcore.importance.VarianceTerms
        From :func:`dpcore.importance.variance_terms` at the chosen lambda.
    error : float
    level : float, default=0.95
    kind : {"bound", "plugin"}, default="bound"
    tail : {"normal", "chebyshev"}, default="normal"
    with_bias : bool, default=True
    eps_range : (float, float), default=(0.01, 10)
    grid : int, default=40
        Points of the returned curve.

    Returns
    -------
    EpsilonAnswer
    """
    error = _check_positive(error, "error")
    level = _check_level(level)
    lo, hi = _check_epsilon_range(eps_range)
    if kind not in ("bound", "plugin"):
        raise ValueError(f"kind == {kind!r}, must be 'bound' or 'plugin'.")
    if tail == "normal":
        k = float(special.ndtri((1.0 + level) / 2.0))
    elif tail == "chebyshev":
        k = 1.0 / math.sqrt(1.0 - level)
    else:
        raise ValueError(f"tail == {tail!r}, must be 'normal' or 'chebyshev'.")
    column = "bound_delta" if kind == "bound" else "plugin"
    at1, at2 = terms.at(1.0)[column], terms.at(2.0)[column]
    B = (at1 - at2) / 0.75  # V(1) - V(2) = B (1 - 1/4)
    A = at1 - B
    bias = abs(float(terms.bias)) if with_bias else 0.0

    def err(eps: np.ndarray) -> np.ndarray:
        return bias + k * np.sqrt(A + B / eps**2)

    room = ((error - bias) / k) ** 2 - A
    answer = math.sqrt(B / room) if error > bias and room > 0.0 else math.inf
    eps_grid = np.geomspace(lo, hi, grid)
    curve = pd.DataFrame({"epsilon": eps_grid, "value": err(eps_grid), "fitted": err(eps_grid)})
    if answer < lo:
        answer = lo  # met already at the bottom of the range
    met = answer <= hi
    achieved = float(err(np.array(answer if met else hi)))
    name = "Theorem 2 bound" if kind == "bound" else "plug-in prediction"
    tail_name = "normal tail" if tail == "normal" else "Chebyshev"
    return EpsilonAnswer(epsilon=answer if met else None, met=met, target=error,
                         achieved=achieved, best_epsilon=hi, low=math.nan, high=math.nan,
                         n_runs=0, statistic=f"{level:.0%} error radius",
                         source=f"closed form: {name}, {tail_name}"
                                + (", Theorem 3 bias" if with_bias else ""),
                         curve=curve)


# --------------------------------------------------------------------------------------------
# Monte-Carlo curves of the pages' mechanisms (non-private studies: errors against the truth)


def importance_errors(fits: Any, public_values: Any, truth: float,
                      epsilons: Iterable[float]) -> np.ndarray:
    """``|estimate - truth|`` of every bootstrap replicate at every epsilon, shape (k, R).

    Reuses the non-private bootstrap fits (:class:`dpcore.importance.BootstrapFits`, e.g. the
    importance page's cached ones) and draws only the release's noise at each epsilon, from the
    study's named streams (:func:`dpcore.importance.bootstrap_estimates`). A seeded simulation.
    """
    from dpcore.importance import bootstrap_estimates

    return np.stack([np.abs(bootstrap_estimates(fits, public_values, float(eps)) - truth)
                     for eps in epsilons])


def logistic_errors(X: Any, y: Any, epsilons: Sequence[float], *, X_test: Any = None,
                    y_test: Any = None, restarts: int = 10, data_norm: float | None = 1.0,
                    fit_intercept: bool = False, method: str = "objective perturbation",
                    lam: float | None = None, folds: int = 3, seed: int = 0,
                    progress: Any = None) -> np.ndarray:
    """Test error of private logistic regression at every epsilon, shape (k, folds x restarts).

    Runs :func:`dpcore.perturbation.experiments.epsilon_curve` (the perturbation page's study)
    for one method. ``lam=None`` takes :func:`~dpcore.perturbation.experiments.lambda_rule` at
    each epsilon (a rule of epsilon, n and d that reads no data), one curve call per epsilon;
    a number uses that lambda at every epsilon in one call. ``progress(fraction)`` is called
    after each epsilon under the rule (after each fold otherwise).
    """
    from dpcore.perturbation.experiments import epsilon_curve, lambda_rule

    eps = [float(e) for e in epsilons]
    common = dict(restarts=restarts, X_test=X_test, y_test=y_test, data_norm=data_norm,
                  fit_intercept=fit_intercept, methods=(method,), seed=seed, excess=False,
                  **({"folds": folds} if X_test is None else {}))
    n = np.asarray(X).shape[0] - (0 if X_test is not None else np.asarray(X).shape[0] // folds)
    d = np.asarray(X).shape[1] + int(fit_intercept)
    if lam is None:
        rule = "objective" if method.startswith("objective") else "output"
        lams = [lambda_rule(e, n, d, rule) for e in eps]
        res = epsilon_curve(X, y, epsilons=eps, lam=lams, progress=progress, **common)
    else:
        res = epsilon_curve(X, y, epsilons=eps, lam=lam, progress=progress, **common)
    res = res.sort_values(["epsilon", "fold", "restart"])
    return res["error"].to_numpy().reshape(len(eps), -1)


def subset_errors(data: Any, epsilons: Sequence[float], *, sizes: Sequence[int] | None = None,
                  repeats: int = 3, split: tuple[float, float, float] = (0.8, 0.2, 1.0),
                  lam: float = 1e-2, seed: int = 0, progress: Any = None) -> np.ndarray:
    """Prediction error ``t`` of the subset Algorithm 2 selects, per epsilon and repeat (k, R).

    Runs :func:`dpcore.subset.subset_study` (the optimal-subset page's study, non-private
    evaluation) at ``split x epsilon`` for each epsilon, without Lei's baseline.
    """
    from dpcore.subset import subset_study

    rows = []
    epsilons = list(epsilons)
    for i, eps in enumerate(epsilons):
        study = subset_study(data, epsilon=tuple(f * float(eps) for f in split), sizes=sizes,
                             repeats=repeats, lam=lam, lei=False, rng=seed)
        rows.append(study.selected_error)
        report(progress, (i + 1) / len(epsilons))
    return np.stack(rows)


# --------------------------------------------------------------------------------------------
# Composition


def gaussian_rho(epsilon: float, delta: float, *, calibration: str = "analytic",
                 sensitivity: float = 1.0, sigma: float | None = None) -> float:
    """zCDP parameter ``ρ = Δ² / (2σ²)`` of a Gaussian release ([BS16]_ Proposition 1.6).

    ``σ`` is the mechanism's (:class:`~dpcore.mechanisms.Gaussian` at (epsilon, delta,
    sensitivity, calibration)) unless given; ρ does not depend on Δ once σ is calibrated to it.

    >>> round(gaussian_rho(1.0, 1e-5), 5)
    0.03593
    """
    if sigma is None:
        sigma = Gaussian(epsilon, delta, sensitivity, calibration).sigma
    sigma = _check_positive(sigma, "sigma")
    sensitivity = _check_positive(sensitivity, "sensitivity")
    return sensitivity**2 / (2.0 * sigma**2)


def _as_array(values: Any, name: str, n: int | None = None) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.ndim != 1 or (n is not None and arr.size != n):
        raise ValueError(f"{name} must be a 1-D sequence"
                         + (f" of length {n}" if n is not None else "") + f", got {values!r}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {values!r}.")
    return arr


def compose(epsilons: Any, deltas: Any = None, method: str = "sequential",
            delta_slack: float = 0.0, *, rhos: Any = None) -> tuple[float, float]:
    """Total (epsilon, delta) of k releases under a composition theorem.

    ``"sequential"``: ``(Σ ε_i, Σ δ_i)`` ([DR14]_ Theorem 3.16; [JLE14]_ Sect. 1.6), valid for
    any adaptively chosen releases.

    ``"advanced"``: for any ``δ' = delta_slack`` in (0, 1), k adaptively chosen
    (ε_i, δ_i)-DP releases are (ε', Σ δ_i + δ')-DP with

    ``ε' = Σ (e^ε_i - 1) ε_i / (e^ε_i + 1) + sqrt(2 ln(1/δ') Σ ε_i²)``

    ([KOV15]_ Theorem 3.5, third term; its δ is ``1 - (1-δ')Π(1-δ_i) <= Σ δ_i + δ'``, and the
    first term is [DRV10]_'s ``kε(e^ε - 1)`` sharpened by ``1/(e^ε + 1)``). When ``Σ ε_i`` is
    not larger, the sequential pair is returned instead (it needs no δ'): the minimum of KOV's
    statement.

    ``"zcdp"``: every release gets a ρ: ``rhos[i]`` if given (a Gaussian release:
    :func:`gaussian_rho`), else ``ε_i²/2`` for a pure release (δ_i = 0, [BS16]_ Proposition
    1.4); a release with δ_i > 0 and no ρ is refused (an (ε, δ) pair alone does not determine a
    ρ). The ρ add up ([BS16]_ Lemma 2.3) and ``ρ`` converts to
    ``(ρ + 2 sqrt(ρ ln(1/δ')), δ')`` ([BS16]_ Proposition 1.3); the δ_i of releases with a ρ
    are not added (zCDP accounts for them). The sequential pair is returned when its ε is not
    larger (both pairs are valid guarantees).

    With ``delta_slack = 0`` advanced and zcdp give the sequential total.

    Parameters
    ----------
    epsilons : sequence of float
        ε_i >= 0 of each release.
    deltas : sequence of float, default=None (all 0)
        δ_i in [0, 1).
    method : {"sequential", "advanced", "zcdp"}, default="sequential"
    delta_slack : float, default=0.0
        δ' in [0, 1) of advanced and zcdp.
    rhos : sequence of (float or None), default=None
        zCDP parameter of each release (None: from a pure ε_i).

    Returns
    -------
    tuple of (float, float)

    Examples
    --------
    >>> compose([0.1, 0.2], [1e-6, 0.0])
    (0.30000000000000004, 1e-06)
    >>> eps, delta = compose([0.1] * 100, method="advanced", delta_slack=1e-6)
    >>> round(eps, 3), delta  # sequential: 10
    (5.756, 1e-06)
    >>> eps, delta = compose([0.1] * 100, method="zcdp", delta_slack=1e-6)
    >>> round(eps, 3), delta
    (5.757, 1e-06)
    """
    method = _check_method(method)
    delta_slack = _check_slack(delta_slack)
    eps = _as_array(epsilons, "epsilons")
    n = eps.size
    dels = np.zeros(n) if deltas is None else _as_array(deltas, "deltas", n)
    if np.any(eps < 0.0):
        raise ValueError(f"epsilons must be >= 0, got {epsilons!r}.")
    if np.any((dels < 0.0) | (dels >= 1.0)):
        raise ValueError(f"deltas must be in [0, 1), got {deltas!r}.")
    seq = (math.fsum(eps), min(1.0, math.fsum(dels)))
    if method == "sequential" or n == 0 or delta_slack == 0.0:
        return seq
    log_term = math.log(1.0 / delta_slack)
    if method == "advanced":
        ex = np.expm1(eps)
        first = math.fsum(ex * eps / (ex + 2.0))  # (e^x - 1) x / (e^x + 1)
        total = first + math.sqrt(2.0 * log_term * math.fsum(eps**2))
        if seq[0] <= total:
            return seq
        return total, min(1.0, seq[1] + delta_slack)
    given = [None] * n if rhos is None else list(rhos)
    if len(given) != n:
        raise ValueError(f"rhos must have one entry per release ({n}), got {len(given)}.")
    rho = []
    for i, (e, d, r) in enumerate(zip(eps, dels, given, strict=True)):
        if r is None or (isinstance(r, float) and math.isnan(r)):
            if d > 0.0:
                raise ValueError(
                    f"Release {i + 1} is (ε = {e:g}, δ = {d:g})-DP: zCDP cannot account for "
                    "an (ε, δ) pair with δ > 0 without the mechanism's ρ (a Gaussian release "
                    "with noise σ and L2 sensitivity Δ has ρ = Δ²/(2σ²): pass it in rhos, "
                    "e.g. dpcore.planning.gaussian_rho(ε, δ)), or use method='advanced'."
                )
            rho.append(e * e / 2.0)
        else:
            rho.append(check_scalar(r, f"rhos[{i}]", min_val=0.0, include_min=True))
    total_rho = math.fsum(rho)
    eps_z = total_rho + 2.0 * math.sqrt(total_rho * log_term)
    if seq[0] <= eps_z:
        return seq
    return eps_z, delta_slack


def composition_growth(epsilon: float, delta: float = 0.0, *, counts: Sequence[int] = (),
                       delta_slack: float = 1e-6, rho: float | None = None) -> pd.DataFrame:
    """Total epsilon of ``k`` identical releases for each ``k`` in ``counts``, per method.

    Returns a DataFrame with columns method, count, epsilon, delta (zcdp rows are omitted when
    a release with delta > 0 has no ``rho``).

    >>> composition_growth(0.1, counts=[1, 100]).pivot(index="count", columns="method",
    ...     values="epsilon").round(2).to_dict("list")
    {'advanced': [0.1, 5.76], 'sequential': [0.1, 10.0], 'zcdp': [0.1, 5.76]}
    """
    counts = list(counts) or [int(v) for v in np.unique(np.geomspace(1, 1000, 40).round())]
    rows = []
    for method in COMPOSITIONS:
        for k in counts:
            try:
                e, d = compose([epsilon] * k, [delta] * k, method, delta_slack, rhos=[rho] * k)
            except ValueError:
                break
            rows.append({"method": method, "count": int(k), "epsilon": e, "delta": d})
    return pd.DataFrame(rows, columns=["method", "count", "epsilon", "delta"])


def public_stand_in(public: pd.DataFrame, *, rng: Any = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A random half of the public set E as a pretend private set, the other half as public.

    Lets a study choose epsilon without reading D: the answer then reflects no shift between
    the two sets and half of E's records (usually fewer than D's, so more noise), a rough and
    mostly conservative guide. Seeded: a study, not a release.
    """
    gen = check_random_state(rng)
    order = gen.permutation(len(public))
    half = len(public) // 2
    if half < 2:
        raise ValueError(f"The public set has {len(public)} rows; a stand-in needs at least 4.")
    rows = public.reset_index(drop=True)
    return rows.iloc[order[:half]].reset_index(drop=True), rows.iloc[order[half:]].reset_index(
        drop=True)


# --------------------------------------------------------------------------------------------
# "What if": planned releases


@dataclass(frozen=True)
class PlannedRelease:
    """A planned release, repeated ``count`` times: a row of the "what if" table."""

    mechanism: str
    epsilon: float
    delta: float = 0.0
    count: int = 1
    rho: float | None = None
    partition: str | None = None


#: The dataset name of planned releases restricted to a part (a row's ``partition``).
PLAN_DATASET = "(planned)"
#: Most combinations of parts that parallel composition enumerates.
MAX_PART_CHOICES = 100_000

#: Mechanisms of the "what if" table and whether they need delta > 0.
PLANNABLE = {"Laplace": False, "Gaussian": True, "L2 Laplace": False, "Exponential": False,
             "Importance weights": False, "Logistic regression": False, "Optimal subset": False}


def planned_releases(table: pd.DataFrame, *, calibration: str = "analytic") -> list[PlannedRelease]:
    """Rows of a "what if" table (columns mechanism, epsilon, delta, count, and optionally
    part) as releases.

    A row with a ``part`` (e.g. "region = North") reads only that part of the data's rows:
    releases on different parts compose in parallel (:func:`compose_parts`). The parts must be
    disjoint and fixed by a rule that reads no private values as a whole (a column's value,
    record by record).

    A ``"Gaussian"`` row gets its ρ from the calibrated mechanism (:func:`gaussian_rho`); every
    other row must be pure (δ = 0) and counts as ε²/2 under zCDP. Rows with a missing epsilon or
    a count of 0 are skipped (an editor's empty rows).

    Raises
    ------
    ValueError
        For a row that cannot be a release, saying which row and why.
    """
    out: list[PlannedRelease] = []
    for i, row in enumerate(table.itertuples(index=False), start=1):
        eps, count = getattr(row, "epsilon", None), getattr(row, "count", 1)
        if eps is None or pd.isna(eps) or count is None or pd.isna(count) or int(count) == 0:
            continue
        mech = str(getattr(row, "mechanism", "Laplace") or "Laplace")
        delta = getattr(row, "delta", 0.0)
        delta = 0.0 if delta is None or pd.isna(delta) else float(delta)
        if float(eps) <= 0.0 or int(count) < 0:
            raise ValueError(f"Row {i}: ε must be > 0 and the count >= 0 (got ε = {eps}, count "
                             f"= {count}).")
        if mech == "Gaussian":
            if not 0.0 < delta < 1.0:
                raise ValueError(f"Row {i}: a Gaussian release needs 0 < δ < 1 (got δ = "
                                 f"{delta:g}); e.g. δ = 1e-6.")
            rho = gaussian_rho(float(eps), delta, calibration=calibration)
        else:
            if delta != 0.0:
                raise ValueError(f"Row {i}: {mech} is a pure ε-DP mechanism, so δ must be 0 "
                                 f"(got δ = {delta:g}); choose 'Gaussian' for an (ε, δ) release.")
            rho = None
        part = getattr(row, "part", None)
        part = None if part is None or pd.isna(part) or not str(part).strip() else str(part)
        out.append(PlannedRelease(mech, float(eps), delta, int(count), rho, part))
    return out


def _records(releases: Iterable[PlannedRelease]) -> list[dict[str, Any]]:
    """Planned releases as ledger-like records (a release on a part belongs to the plan's
    data, :data:`PLAN_DATASET`)."""
    return [{"dataset": PLAN_DATASET if r.partition is not None else "",
             "partition": r.partition, "epsilon": r.epsilon, "delta": r.delta, "rho": r.rho}
            for r in releases for _ in range(r.count)]


def compose_parts(records: list[dict[str, Any]], method: str,
                  delta_slack: float) -> tuple[float, float]:
    """Compose releases under ``method``, in parallel over the parts of each dataset.

    Parallel composition ([JLE14]_ Sect. 1.6): a release recorded with a ``partition`` reads
    only that part of its ``dataset``'s rows, and different parts of one dataset are disjoint.
    A person lies in one part of each dataset, so the total is the largest, over one choice of
    part per dataset, of the composition of the releases without a part plus those of the
    chosen parts (``method`` as in :func:`compose`).

    Parameters
    ----------
    records : list of dict
        Each with ``dataset``, ``partition`` (None: every row), ``epsilon``, ``delta`` and
        optionally ``rho``.
    method : {"sequential", "advanced", "zcdp"}
    delta_slack : float
        δ' of advanced and zcdp (ignored by sequential).

    Examples
    --------
    >>> parts = [{"dataset": "D", "partition": p, "epsilon": 1.0, "delta": 0.0}
    ...          for p in ("north", "south", "east")]
    >>> compose_parts(parts, "sequential", 0.0)  # three regions: one person sees one release
    (1.0, 0.0)
    >>> compose_parts([*parts, {"dataset": "D", "partition": None, "epsilon": 0.5,
    ...                         "delta": 0.0}], "sequential", 0.0)
    (1.5, 0.0)
    """
    parts: dict[str, list[str]] = {}
    for r in records:
        if r.get("partition") is not None:
            names = parts.setdefault(r["dataset"], [])
            if r["partition"] not in names:
                names.append(r["partition"])
    if not parts:
        choices: Iterable[tuple[str, ...]] = [()]
    else:
        count = math.prod(len(v) for v in parts.values())
        if count > MAX_PART_CHOICES:
            raise ValueError(f"{count} combinations of parts are too many to enumerate; record "
                             "releases on fewer parts.")
        choices = itertools.product(*parts.values())
    datasets = list(parts)
    best = (0.0, 0.0)
    for choice in choices:
        mine = dict(zip(datasets, choice, strict=True))
        chosen = [r for r in records
                  if r.get("partition") is None or mine.get(r["dataset"]) == r["partition"]]
        total = compose([r["epsilon"] for r in chosen], [r["delta"] for r in chosen], method,
                        delta_slack if method != "sequential" else 0.0,
                        rhos=[r.get("rho") for r in chosen])
        best = (max(best[0], total[0]), max(best[1], total[1]))
    return best


def compare_compositions(releases: Iterable[PlannedRelease], delta_slack: float = 1e-6, *,
                         ledger: pd.DataFrame | None = None) -> pd.DataFrame:
    """Totals of (the ledger plus) the planned releases under every composition method.

    Parameters
    ----------
    releases : iterable of PlannedRelease
    delta_slack : float, default=1e-6
        δ' of advanced and zcdp.
    ledger : DataFrame, default=None
        Releases already made (columns epsilon, delta and optionally rho), composed with the plan.

    Returns
    -------
    DataFrame
        One row per method: method, epsilon, delta, releases, assumptions (and ``problem``, the
        reason when a method cannot account for the set, with NaN totals).
    """
    records = _records(releases)
    if ledger is not None and len(ledger):
        past = [{"dataset": row.get("dataset", ""),
                 "partition": None if pd.isna(row.get("partition")) else row.get("partition"),
                 "epsilon": float(row["epsilon"]), "delta": float(row["delta"]),
                 "rho": None if pd.isna(row.get("rho")) else float(row.get("rho"))}
                for row in ledger.to_dict("records")]
        records = past + records
    rows = []
    for method in COMPOSITIONS:
        try:
            total_eps, total_delta = compose_parts(records, method, delta_slack)
            problem = ""
        except ValueError as exc:
            total_eps = total_delta = math.nan
            problem = str(exc)
        rows.append({"method": method, "epsilon": total_eps, "delta": total_delta,
                     "releases": len(records), "assumptions": COMPOSITION_ASSUMPTIONS[method],
                     "problem": problem})
    return pd.DataFrame(rows)
