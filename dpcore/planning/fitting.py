"""Answers from Monte-Carlo curves: a monotone fit of error against epsilon, read at a target.

A Monte-Carlo curve over a log-epsilon grid is fitted non-increasing (isotonic,
:func:`isotonic_decreasing`) and read at the target (:func:`epsilon_from_curve`), with its
uncertainty from a bootstrap of the runs; :func:`search_epsilon` refines a coarse grid by
bisection near the target. Every answer, closed form or Monte Carlo, is an
:class:`EpsilonAnswer`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dpcore.validation import check_random_state, check_scalar

__all__ = ["COARSE_GRID", "EpsilonAnswer", "epsilon_from_curve", "isotonic_decreasing",
           "search_epsilon"]

#: The coarse grid a search starts from (every page's slider offers these).
COARSE_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


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
