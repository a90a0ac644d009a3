"""Closed forms: the smallest epsilon that meets an accuracy target, without simulation.

The noise's tail is inverted where it has a closed form (:func:`epsilon_for_laplace`,
:func:`epsilon_for_gaussian`, both with their curve in :func:`noise_answer`), and the importance
weights' variance of [JE13]_ Theorem 2 is solved for epsilon
(:func:`epsilon_for_importance_theory`). The sensitivities come from the domain
(:func:`mean_sensitivity`), never from the data.

References
----------
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Found.
   Trends Theor. Comput. Sci. 9, Theorem 3.6 (Laplace), Theorem A.1 (Gaussian).
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn.
   93, Theorem 2 (variance) and Theorem 3 (bias).
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, special

from dpcore.mechanisms import Gaussian, Laplace
from dpcore.planning.fitting import EpsilonAnswer
from dpcore.validation import check_level, check_scalar

__all__ = ["EPSILON_RANGE", "epsilon_for_gaussian", "epsilon_for_importance_theory",
           "epsilon_for_laplace", "mean_sensitivity", "noise_answer"]

#: The epsilons a target is searched in: the range of every page's slider.
EPSILON_RANGE = (0.01, 10.0)


def _check_epsilon_range(eps_range: Any) -> tuple[float, float]:
    """The interval a closed form searches epsilon in: ``(low, high)`` with ``0 < low < high``,
    both finite."""
    lo, hi = (float(v) for v in eps_range)
    if not 0.0 < lo < hi or not math.isfinite(hi):
        raise ValueError(f"eps_range == {eps_range!r}, must be (low, high) with 0 < low < high.")
    return lo, hi


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
    sensitivity = check_scalar(sensitivity, "sensitivity", min_val=0.0)
    error = check_scalar(error, "error", min_val=0.0)
    level = check_level(level)
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
    sensitivity = check_scalar(sensitivity, "sensitivity", min_val=0.0)
    error = check_scalar(error, "error", min_val=0.0)
    level = check_level(level)
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
    error = check_scalar(error, "error", min_val=0.0)
    level = check_level(level)
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
