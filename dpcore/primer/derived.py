"""Derived statistics released from noisy parts, each with an interval for its noise.

A derived statistic (:data:`STATISTICS`) is released as one or more noisy *parts* (sums and
counts), each through the Laplace or Gaussian mechanism at a share of ε, and combined after the
noise is drawn (post-processing). Its interval (:mod:`dpcore.primer.intervals`) accounts for the
noise of every part and holds its level for the statistic of the records as they are; sampling
adds :func:`dpcore.primer.intervals.sampling_half_width`.

The parts, by neighbouring relation (``M = max(|low|, |high|)``, ``w = high - low``, values
clipped to ``[low, high]``; shares of ε, δ in brackets):

==============  ==========================================  ===================================
statistic       "replace one record" (``n`` public)         "add or remove one record"
==============  ==========================================  ===================================
mean            sum, sensitivity ``w`` (1); ``sum~ / n``    sum ``M`` (1/2), count 1 (1/2);
                                                            Fieller's ratio
rate            count of the group, 1 (1); ``count~ / n``   count of the group 1 (1/2), count
                                                            of all 1 (1/2); Fieller's ratio
difference      sums of A and B as one vector, L1 ``max(w,  each group's sum ``M`` (1/2) and
                2M)`` (1/2); counts of A and B, L1 2 (1/2)  count 1 (1/2); the groups' rows are
                                                            disjoint, so A and B compose in
                                                            parallel
scaled sum      ``factor`` times a sum of sensitivity       ``factor`` times a sum of
                ``w`` (1)                                   sensitivity ``M`` (1)
==============  ==========================================  ===================================

Why the even split of a mean's ε under "add or remove": the noise of ``sum~ / count~`` is about
``(eta_S - m eta_C) / n`` with variance ``2 (M^2 / eps_S^2 + m^2 / eps_C^2) / n^2`` for the
Laplace; ``|m| <= M`` always, and the worst case ``M^2 (1 / eps_S^2 + 1 / eps_C^2)`` is smallest
at ``eps_S = eps_C = eps / 2``. A rate's two counts have the same sensitivity: the same
argument. The Gaussian mechanisms split δ as ε. The L2 sensitivity of a replace-one vector is
below its L1 one, which the Gaussian uses here (valid, a little more noise).

A release (``rng=None``) draws each part through the float-safe samplers
(:meth:`dpcore.mechanisms.Laplace.release`, :meth:`dpcore.mechanisms.Gaussian.release`: OpenDP,
fresh OS entropy), and its interval uses the scale the release actually adds
(:func:`dpcore.release_noise.laplace_scale`, :meth:`dpcore.mechanisms.Gaussian.release_sigma`);
a seed gives a study: numpy draws of the continuous law at the study's scale, vectorised over
runs. The true statistic is **non-private**.

References
----------
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Theorem
   3.6 (Laplace), Theorem 3.16 (sequential composition), Theorem A.1.
.. [McS09] McSherry (2009), *Privacy integrated queries*, SIGMOD (parallel composition over
   disjoint parts).
.. [Fie54] Fieller (1954), *Some problems in interval estimation*, J. R. Stat. Soc. B 16.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import dpcore.release_noise as release_noise
from dpcore.mechanisms import Gaussian, Laplace
from dpcore.primer.intervals import (
    LAWS,
    difference_interval,
    linear_interval,
    ratio_interval,
    sampling_half_width,
)
from dpcore.primer.queries import RELATIONS
from dpcore.validation import (
    DataError,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_level,
    check_random_state,
    check_scalar,
)

__all__ = ["STATISTICS", "Part", "parts", "truth", "derived", "coverage", "mean_interval"]

#: The derived statistics, by key, in words.
STATISTICS = {
    "mean": "mean = sum / count",
    "rate": "rate = count of a group / count of all",
    "difference": "difference of two group means",
    "scaled_sum": "scaled sum = factor x sum",
}


@dataclass(frozen=True)
class Part:
    """One noisy answer a derived statistic is built from.

    Parameters
    ----------
    name : str
        e.g. "sum of A".
    exact : float
        Its exact value (**non-private**).
    sensitivity : float
        Its sensitivity under the relation (L1; used as L2 too).
    share : float
        Its share of the statistic's ε (and δ).
    """

    name: str
    exact: float
    sensitivity: float
    share: float


def _clipped(values: Any, bounds: tuple[float, float]) -> tuple[np.ndarray, float, float]:
    lo, hi = (check_scalar(b, name) for b, name in zip(bounds, ("low", "high"), strict=True))
    if not hi > lo:
        raise ValueError(f"bounds == ({lo:g}, {hi:g}): need low < high, the clipping range.")
    x = np.asarray(values, dtype=float).ravel()
    if x.size == 0:
        raise DataError("A derived statistic of no records is undefined: the data is empty.")
    x = np.where(np.isnan(x), (lo + hi) / 2.0, x)
    return np.clip(x, lo, hi), lo, hi


def _groups(x: np.ndarray, mask: Any) -> tuple[np.ndarray, np.ndarray]:
    if mask is None:
        raise ValueError("This statistic needs mask: which records are in the group (A).")
    m = np.asarray(mask, dtype=bool).ravel()
    if m.shape != x.shape:
        raise ValueError(f"mask has {m.size} entries for {x.size} records; give one per record.")
    return x[m], x[~m]


def parts(statistic: str, values: Any, *, bounds: tuple[float, float], relation: str,
          mask: Any = None) -> list[Part]:
    """The noisy parts of ``statistic`` (table in the module docstring).

    Parameters
    ----------
    statistic : {"mean", "rate", "difference", "scaled_sum"}
    values : array-like
        One value per record (clipped to ``bounds``; a missing one counts as the midpoint).
    bounds : (float, float)
        Public clipping bounds.
    relation : {"replace", "add_remove"}
    mask : array-like of bool, optional
        Rate and difference: each record's membership of group A (B is the rest).

    Returns
    -------
    list of Part

    Examples
    --------
    >>> [p.name for p in parts("mean", [1.0, 2.0], bounds=(0, 4), relation="add_remove")]
    ['sum', 'count']
    """
    check_choice(statistic, "statistic", tuple(STATISTICS))
    check_choice(relation, "relation", tuple(RELATIONS))
    x, lo, hi = _clipped(values, bounds)
    big, width, n = max(abs(lo), abs(hi)), hi - lo, float(x.size)
    replace = relation == "replace"
    if statistic in ("mean", "scaled_sum"):
        if replace or statistic == "scaled_sum":
            return [Part("sum", float(x.sum()), width if replace else big, 1.0)]
        return [Part("sum", float(x.sum()), big, 0.5), Part("count", n, 1.0, 0.5)]
    a, b = _groups(x, mask)
    if statistic == "rate":
        if replace:
            return [Part("count of A", float(a.size), 1.0, 1.0)]
        return [Part("count of A", float(a.size), 1.0, 0.5), Part("count", n, 1.0, 0.5)]
    sum_sens, count_sens = (max(width, 2.0 * big), 2.0) if replace else (big, 1.0)
    return [Part("sum of A", float(a.sum()), sum_sens, 0.5),
            Part("count of A", float(a.size), count_sens, 0.5),
            Part("sum of B", float(b.sum()), sum_sens, 0.5),
            Part("count of B", float(b.size), count_sens, 0.5)]


def truth(statistic: str, values: Any, *, bounds: tuple[float, float], mask: Any = None,
          factor: float = 1.0) -> float:
    """The statistic's exact value on the clipped values (**non-private**, never released).

    >>> truth("difference", [1.0, 3.0, 5.0], bounds=(0, 10), mask=[True, False, False])
    -3.0
    """
    check_choice(statistic, "statistic", tuple(STATISTICS))
    x, _, _ = _clipped(values, bounds)
    if statistic == "mean":
        return float(x.mean())
    if statistic == "scaled_sum":
        return float(factor) * float(x.sum())
    a, b = _groups(x, mask)
    if statistic == "rate":
        return a.size / x.size
    if a.size == 0 or b.size == 0:
        raise DataError("A difference of group means needs records in both groups; choose "
                        "a value that some records have and others do not.")
    return float(a.mean() - b.mean())


def _mechanism(part: Part, epsilon: float, delta: float | None, law: str,
               relation: str) -> Laplace | Gaussian:
    text = RELATIONS[relation]
    if law == "laplace":
        return Laplace(epsilon * part.share, part.sensitivity, neighbouring=text)
    return Gaussian(epsilon * part.share, delta * part.share, part.sensitivity,
                    neighbouring=text)


def _scale(mech: Laplace | Gaussian, release: bool) -> float:
    """The scale the noise is drawn at: a release's (OpenDP's rounding, the discrete
    Gaussian's calibration) or a study's."""
    if not release:
        return mech.scale
    if isinstance(mech, Gaussian):
        return mech.release_sigma(1)
    return release_noise.laplace_scale(mech.sensitivity, mech.epsilon, 1)


def derived(statistic: str, values: Any, *, epsilon: float, bounds: tuple[float, float],
            relation: str = "add_remove", law: str = "laplace", delta: float | None = None,
            mask: Any = None, factor: float = 1.0, level: float = 0.95, runs: int = 1,
            rng: Any = None) -> dict[str, Any]:
    """Release (``rng=None``) or simulate ``runs`` times a derived statistic and its interval.

    Parameters
    ----------
    statistic : {"mean", "rate", "difference", "scaled_sum"}
    values : array-like
        One value per record.
    epsilon : float
        ε of the whole statistic (split between its parts: module docstring).
    bounds : (float, float)
        Public clipping bounds of the values.
    relation : {"add_remove", "replace"}, default="add_remove"
    law : {"laplace", "gaussian"}, default="laplace"
    delta : float, optional
        δ of the whole statistic; required by the Gaussian.
    mask : array-like of bool, optional
        Rate and difference: membership of group A.
    factor : float, default=1.0
        The scaled sum's public factor.
    level : float, default=0.95
    runs : int, default=1
        Simulated releases (a study only; a release is one).
    rng : None, int or numpy.random.Generator, default=None
        None: a release (float-safe noise, fresh OS entropy). A seed: a study.

    Returns
    -------
    dict
        ``estimate``, ``low``, ``high`` (floats for a release, arrays of ``runs`` for a study),
        ``parts`` (names), ``noisy_parts`` (array, runs x parts), ``scales`` (each part's
        noise scale), ``epsilons``, ``level``, ``law``, ``relation`` and
        ``sampling_half_width`` (what sampling adds to a mean, from ``n`` where it is public,
        else from the first run's noisy count; NaN for the other statistics): everything a
        release may publish. A study adds ``truth_nonprivate`` and ``exact_parts_nonprivate``
        (never in a release's result).
    """
    check_choice(law, "law", LAWS)
    check_choice(relation, "relation", tuple(RELATIONS))
    epsilon = check_epsilon(epsilon)
    level = check_level(level)
    if law == "gaussian":
        if delta is None:
            raise ValueError("The Gaussian mechanism needs delta, e.g. delta=1e-6.")
        delta = check_delta(delta)
    runs = check_int(runs, "runs", min_val=1)
    release = rng is None
    if release and runs != 1:
        raise ValueError("A release is one draw; runs > 1 is a study: pass rng (a seed).")
    pieces = parts(statistic, values, bounds=bounds, relation=relation, mask=mask)
    gen = None if release else check_random_state(rng)
    mechs = [_mechanism(p, epsilon, delta, law, relation) for p in pieces]
    noisy = np.column_stack([
        np.atleast_1d(m.draw(np.full(runs, p.exact), rng=gen))
        for m, p in zip(mechs, pieces, strict=True)])
    scales = [_scale(m, release) for m in mechs]
    x, lo, hi = _clipped(values, bounds)
    est, low, high = _combine(statistic, relation, noisy, scales, n=x.size, bounds=(lo, hi),
                              factor=float(factor), level=level, law=law)
    out = {"estimate": est, "low": low, "high": high}
    if release:
        out = {k: float(np.asarray(v).ravel()[0]) for k, v in out.items()}
    size = x.size if relation == "replace" else max(float(noisy[0, -1]), 1.0)
    out |= {"parts": [p.name for p in pieces], "noisy_parts": noisy, "scales": scales,
            "epsilons": [m.epsilon for m in mechs], "level": level, "law": law,
            "relation": relation,
            "sampling_half_width": (sampling_half_width(size, (lo, hi), level)
                                    if statistic == "mean" else float("nan"))}
    if release:
        return out
    return out | {"truth_nonprivate": truth(statistic, values, bounds=bounds, mask=mask,
                                            factor=factor),
                  "exact_parts_nonprivate": [p.exact for p in pieces]}


def _combine(statistic: str, relation: str, noisy: np.ndarray, scales: list[float], *,
             n: int, bounds: tuple[float, float], factor: float, level: float,
             law: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The statistic and its interval from the noisy parts (post-processing)."""
    if statistic == "scaled_sum":
        est = factor * noisy[:, 0]
        return (est, *linear_interval(est, [abs(factor) * scales[0]], level, law=law))
    if statistic == "difference":
        return difference_interval(
            (noisy[:, 0], noisy[:, 2]), (noisy[:, 1], noisy[:, 3]),
            numerator_scales=(scales[0], scales[2]), denominator_scales=(scales[1], scales[3]),
            bounds=(bounds, bounds), level=level, law=law)
    ratio_bounds = bounds if statistic == "mean" else (0.0, 1.0)
    if relation == "replace":
        est = np.clip(noisy[:, 0] / n, *ratio_bounds)
        return (est, *linear_interval(noisy[:, 0] / n, [scales[0] / n], level, law=law,
                                      bounds=ratio_bounds))
    return ratio_interval(noisy[:, 0], noisy[:, 1], numerator_scale=scales[0],
                          denominator_scale=scales[1], bounds=ratio_bounds, level=level,
                          law=law)


def coverage(result: dict[str, Any]) -> float:
    """The share of a study's intervals (:func:`derived` with ``runs``) that hold the true
    statistic (**non-private**): the measured coverage of the noise's interval.

    >>> out = derived("scaled_sum", [1.0] * 50, epsilon=1.0, bounds=(0, 1), runs=2000, rng=0)
    >>> abs(coverage(out) - 0.95) < 0.02
    True
    """
    true = result["truth_nonprivate"]
    return float(np.mean((result["low"] <= true) & (true <= result["high"])))


def mean_interval(values: Any, *, epsilon: float, bounds: tuple[float, float],
                  level: float = 0.95, rng: Any = None, relation: str = "add_remove",
                  law: str = "laplace", delta: float | None = None) -> dict[str, Any]:
    """Release the mean of ``values`` clipped to ``bounds`` with an interval for its noise.

    Under "add or remove one record" (the default) the mean is a noisy sum over a noisy count,
    each at ε / 2 (the split that minimises the worst-case noise: module docstring), and the
    interval is Fieller's ([Fie54]_; :func:`dpcore.primer.intervals.ratio_interval`): it holds
    its level at every size, a count drowned in its noise giving the whole range ``bounds``.
    Under "replace one record" the count ``n`` is public and the whole ε goes to the sum
    (sensitivity ``high - low``): ``sum~ / n +- q / n``, exact. The interval covers the mean of
    the clipped values *of these records* against the noise; ``sampling_half_width`` says what
    sampling from a population adds.

    Parameters
    ----------
    values : array-like
        The private values (clipped to ``bounds``; a missing value counts as the midpoint).
    epsilon : float
        ε of the release (both parts together).
    bounds : (float, float)
        Public clipping bounds ``(low, high)``.
    level : float, default=0.95
    rng : None, int or numpy.random.Generator, default=None
        None: a release, through the float-safe samplers (OpenDP, fresh OS entropy). A seed: a
        study drawing the same law with numpy.
    relation : {"add_remove", "replace"}, default="add_remove"
    law : {"laplace", "gaussian"}, default="laplace"
    delta : float, optional
        Required with ``law="gaussian"``.

    Returns
    -------
    dict
        ``estimate``, ``low``, ``high`` (floats) and the details of :func:`derived`.

    Examples
    --------
    >>> out = mean_interval([20.0, 30.0, 40.0] * 1000, epsilon=1.0, bounds=(0.0, 100.0), rng=0)
    >>> bool(out["low"] <= 30.0 <= out["high"]), round(out["high"] - out["low"], 1) < 1.0
    (True, True)
    """
    out = derived("mean", values, epsilon=epsilon, bounds=bounds, relation=relation, law=law,
                  delta=delta, level=level, rng=rng)
    if rng is not None:
        out |= {k: float(out[k][0]) for k in ("estimate", "low", "high")}
    return out
