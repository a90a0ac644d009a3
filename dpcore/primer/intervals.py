"""Intervals for derived statistics: a 95 % interval that accounts for the noise of every part.

A derived statistic combines several noisy answers: a mean is a noisy sum over a noisy count, a
rate a noisy count over another, a difference of two group means four noisy parts. Each part
carries independent Laplace or Gaussian noise of a known scale, so the law of the error is known
exactly and an interval can be built that holds its level **for the noise** (the interval covers
the statistic of the records as they are; :func:`sampling_half_width` says what sampling adds
when the records are a sample of a population).

* **Linear combinations** (a scaled sum, a mean whose count ``n`` is public, a difference of
  scaled sums): the error is ``sum_i c_i eta_i`` and the interval is ``estimate +- q``, ``q`` the
  exact ``level`` quantile of its absolute value (:func:`noise_half_width`). For the Laplace,
  the law of a sum of independent Laplace variables of distinct scales ``a_i`` is the signed
  mixture ``P(|X| > t) = sum_i w_i exp(-t / a_i)``, ``w_i = prod_{j != i} a_i^2 / (a_i^2 - a_j^2)``
  (partial fractions of the characteristic function ``prod_i 1 / (1 + a_i^2 s^2)``; [Kot01]_
  Sect. 2.3). Its weights cancel when two scales are close (equal scales: no such formula),
  so those sums take an equivalent phase-type form that has no cancellation ([Neu81]_): with
  ``Y = sum_i a_i E_i`` and an independent copy ``Y'`` (``E_i`` standard exponentials,
  ``X = Y - Y'``), ``P(X > t) = sum_i pi_i(t) v_i``, ``pi(t)`` the first row of the matrix
  exponential of ``Y``'s bidiagonal generator at ``t`` (the phase ``Y`` is in at time ``t``)
  and ``v_i = P(a_i E_i + ... + a_k E_k > Y')`` from a recursion of positive terms. Both are
  exact (to 1e-9 relative, against Lévy's inversion of the characteristic function in the
  tests); the only widening is of scales below 1e-6 of the largest in the phase-type form,
  raised to it (Anderson's theorem: the absolute value of a sum of independent symmetric
  unimodal variables grows stochastically with each scale, [And55]_). For the Gaussian,
  ``q = z_{(1+level)/2} sqrt(sum_i c_i^2 sigma_i^2)``.
* **Ratios** (a mean ``sum / count`` when the count is private, a rate ``count / count``):
  Fieller's test inversion ([Fie54]_), exact at every size. If the true ratio is ``r``, then
  ``T(r) = N~ - r D~ = eta_N - r eta_D`` has a known law, so ``{r in [low, high] : |N~ - r D~| <=
  q(r)}`` with ``q(r)`` the ``level`` quantile of ``|eta_N - r eta_D|`` contains the truth with
  probability exactly ``level``, however small the count. The interval is the hull of that set
  inside the ratio's public range (found on a grid, its ends refined by bisection), so its
  coverage is at least ``level``. The naive delta method (``r~ +- z sd / D~``) fails at small
  counts (a denominator near 0 or negative); this does not: a count lost in its noise gives the
  whole public range.
* **Difference of two ratios** (two group means, each with a private count): the error of
  ``r~_A - r~_B`` is ``(eta_NA - r_A eta_DA) / D~_A - (eta_NB - r_B eta_DB) / D~_B`` exactly;
  when both noisy denominators are significant (each at least its noise's ``level``
  half-width, so that its own interval excludes zero) the interval is ``+- q`` of that linear
  combination at the plug-in ratios, which is exact as the counts grow (measured: 95 +- 1 % once
  the smaller count is 3 half-widths of its noise; above it in between); otherwise the two
  groups' Fieller intervals at level ``sqrt(level)`` each (independent noise: both hold with
  probability ``level``) give ``[low_A - high_B, high_A - low_B]``, conservative.

References
----------
.. [Fie54] Fieller (1954), *Some problems in interval estimation*, J. R. Stat. Soc. B 16,
   175-185 (the confidence set of a ratio by test inversion).
.. [Kot01] Kotz, Kozubowski & Podgórski (2001), *The Laplace distribution and generalizations*,
   Birkhäuser, Sect. 2.3 (sums of independent Laplace variables).
.. [Neu81] Neuts (1981), *Matrix-geometric solutions in stochastic models*, Johns Hopkins
   University Press, Chap. 2 (phase-type distributions: the survival function
   ``alpha exp(S t) 1``).
.. [MVL03] Moler & Van Loan (2003), *Nineteen dubious ways to compute the exponential of a
   matrix, twenty-five years later*, SIAM Review 45, 3-49, Method 3 (scaling and squaring).
.. [And55] Anderson (1955), *The integral of a symmetric unimodal function over a symmetric
   convex set and some probability inequalities*, Proc. AMS 6, 170-176 (Theorem 1).
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Theorem
   3.6 (the Laplace mechanism's scale) and Theorem 3.16 (sequential composition).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

import dpcore.release_noise as release_noise
from dpcore.validation import check_choice, check_level

__all__ = [
    "LAWS",
    "noise_half_width",
    "linear_interval",
    "ratio_interval",
    "difference_interval",
    "sampling_half_width",
    "laplace_release_interval",
]

#: The noise laws the intervals know, by key.
LAWS = ("laplace", "gaussian")
#: Relative gap between two Laplace scales below which the mixture's weights cancel (to about
#: machine precision times ``(1 / (2 gap))^(k - 1)``): such sums take the phase-type form.
_CLOSE = 0.05
#: Smallest Laplace scale, relative to the largest, in the phase-type form (smaller ones are
#: raised to it: wider, so conservative; keeps the generator's exponential accurate).
_FLOOR = 1e-6
#: Points of the grid on which a ratio's confidence set is first found.
_GRID = 1025
#: Bisection steps refining each end of a ratio's interval (the grid step over 2^40).
_REFINE = 40
#: Runs handled at once by the vectorised ratio interval (bounds its memory).
_CHUNK = 2048


def _mixture_weights(scales: np.ndarray) -> np.ndarray:
    """``w_i = prod_{j != i} a_i^2 / (a_i^2 - a_j^2)`` for separated ``scales`` (last axis)."""
    sq = scales**2
    diff = sq[..., :, None] - sq[..., None, :]
    eye = np.eye(scales.shape[-1], dtype=bool)
    return np.where(eye, 1.0, sq[..., :, None] / np.where(eye, 1.0, diff)).prod(axis=-1)


def _mixture_quantile(scales: np.ndarray, alpha: float) -> np.ndarray:
    """The ``t`` with ``P(|sum_i a_i L_i| > t) = alpha`` from the signed mixture, by bisection,
    for rows (first axis) of scales at least ``1 + _CLOSE`` apart."""
    lo = np.zeros(scales.shape[0])
    hi = scales.sum(axis=-1) * math.log(scales.shape[-1] / alpha)  # union bound: tail <= alpha
    weights = _mixture_weights(scales)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        above = (weights * np.exp(-mid[..., None] / scales)).sum(axis=-1) > alpha
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    return hi


def _expm(mats: np.ndarray) -> np.ndarray:
    """The exponential of each matrix of ``mats`` (..., k, k): each scaled to a norm <= 1/2,
    its Taylor series to degree 16 (error below 1e-21), squared back ([MVL03]_ Method 3)."""
    norm = np.abs(mats).sum(axis=-2).max(axis=-1)
    with np.errstate(divide="ignore"):
        squarings = np.maximum(0.0, np.ceil(np.log2(norm / 0.5))).astype(int)
    scaled = mats / (2.0**squarings)[..., None, None]
    out = term = np.broadcast_to(np.eye(mats.shape[-1]), mats.shape)
    for n in range(1, 17):
        term = term @ scaled / n
        out = out + term
    for i in range(int(squarings.max(initial=0))):
        out = np.where((squarings > i)[..., None, None], out @ out, out)
    return out


def _phase_type_quantile(scales: np.ndarray, alpha: float) -> np.ndarray:
    """The ``t`` with ``P(|sum_i a_i L_i| > t) = alpha`` from the phase-type form (module
    docstring), by Newton's method, for rows (first axis) of scales of any closeness.

    In units of the largest scale, with rates ``l_i = 1 / a_i``: ``Y`` runs through phases
    ``1..k`` with generator ``S`` (``S_ii = -l_i``, ``S_i,i+1 = l_i``), so
    ``P(|X| > t) = 2 e_1' exp(S t) v`` and its derivative is ``2 e_1' exp(S t) S v``;
    ``v_i = P(Z_i > Z'_1)`` for ``Z_i = sum_{j >= i} a_j E_j`` follows from the race of the
    two current phases, ``p(i, j) = (l_j p(i, j + 1) + l_i p(i + 1, j)) / (l_i + l_j)``
    (``p(i, k + 1) = 1``, ``p(k + 1, j) = 0``). The tail is convex in ``t`` (``|X|`` has a
    decreasing density, Anderson), so Newton's steps from the largest term's own quantile
    (a lower bound, [And55]_) rise monotonically to the root.
    """
    top = scales.max(axis=-1, keepdims=True)
    rate = top / np.maximum(scales, top * _FLOOR)
    k = rate.shape[-1]
    gen = np.zeros(rate.shape + (k,))
    diag = np.arange(k)
    gen[:, diag, diag] = -rate
    gen[:, diag[:-1], diag[1:]] = rate[:, :-1]
    win = np.concatenate([np.ones_like(rate), np.zeros_like(rate[:, :1])], axis=-1)
    for j in range(k - 1, -1, -1):  # win[:, i] = p(i, j), from p(i, j + 1)
        new = np.zeros_like(win)
        for i in range(k - 1, -1, -1):
            new[:, i] = (rate[:, j] * win[:, i] + rate[:, i] * new[:, i + 1]) / (
                rate[:, i] + rate[:, j])
        win = new
    win = win[:, :k]
    drift = (gen @ win[..., None])[..., 0]
    t = np.full(rate.shape[0], -math.log(alpha))
    for _ in range(40):
        row = _expm(gen * t[:, None, None])[:, 0, :]
        step = (2.0 * (row * win).sum(axis=-1) - alpha) / (-2.0 * (row * drift).sum(axis=-1))
        t = t + step
        if np.all(np.abs(step) <= 1e-12 * t):
            break
    return t * top[:, 0]


def noise_half_width(scales: Any, level: float = 0.95, *, law: str = "laplace") -> np.ndarray:
    """The exact ``level`` quantile of ``|sum_i eta_i|`` for independent noises of ``scales``.

    The half-width of the interval ``answer +- q`` of a linear combination of noisy answers:
    pass the scale of each term's noise times its coefficient's absolute value (for one Laplace
    answer this is :meth:`dpcore.mechanisms.Laplace.tail_bound`; for releases of one query
    combined by inverse-variance weighting, their weights times their scales,
    :func:`dpcore.primer.remeasure.combine_releases`).

    Parameters
    ----------
    scales : array-like, shape (..., k)
        The scales of the ``k`` terms (Laplace scale ``b``, or Gaussian standard deviation),
        along the last axis; any leading shape is a batch.
    level : float, default=0.95
        The probability that the noise stays within the half-width.
    law : {"laplace", "gaussian"}, default="laplace"

    Returns
    -------
    ndarray of the leading shape
        Laplace: one term ``-b ln(1 - level)``; several, the root of the signed-mixture tail
        ([Kot01]_ Sect. 2.3) by bisection where the scales are at least 5 % apart, else of the
        phase-type tail ([Neu81]_) by Newton's method (module docstring); Gaussian:
        ``ndtri((1 + level) / 2) sqrt(sum sigma_i^2)``.

    Examples
    --------
    >>> round(float(noise_half_width([2.0])), 4)  # one Laplace: b ln(1 / (1 - level))
    5.9915
    >>> round(float(noise_half_width([0.5, 0.5])), 4)  # the mean of two: not ln 20 / sqrt(2)
    2.0565
    >>> round(float(noise_half_width([3.0, 4.0], law="gaussian")), 4)  # 1.96 * 5
    9.7998
    """
    check_choice(law, "law", LAWS)
    level = check_level(level)
    s = np.atleast_1d(np.asarray(scales, dtype=float))
    if not np.all(np.isfinite(s)) or np.any(s < 0):
        raise ValueError("scales must be finite and >= 0: the noise scale of each term.")
    if law == "gaussian":
        return float(special.ndtri((1.0 + level) / 2.0)) * np.sqrt((s**2).sum(axis=-1))
    if s.shape[-1] == 1:
        return -s[..., 0] * math.log1p(-level)
    s = np.sort(s, axis=-1)
    top = s[..., -1:]
    s = np.maximum(s, np.where(top > 0, top, 1.0) * 1e-9)  # no noise at all: a tiny one
    close = (s[..., 1:] < s[..., :-1] * (1.0 + _CLOSE)).any(axis=-1)
    out = np.empty(close.shape)
    out[~close] = _mixture_quantile(s[~close], 1.0 - level)
    out[close] = _phase_type_quantile(s[close], 1.0 - level)
    return np.where(top[..., 0] > 0, out, 0.0)


def linear_interval(estimate: Any, scales: Any, level: float = 0.95, *, law: str = "laplace",
                    bounds: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``estimate +- noise_half_width(scales)``, clipped to the statistic's public ``bounds``.

    Exact for a linear combination of noisy answers (a scaled sum, a mean over a public count,
    a difference of sums); clipping to a range the truth lies in keeps the coverage.

    Parameters
    ----------
    estimate : float or array-like of shape (...)
        The noisy statistic(s).
    scales : array-like of shape (k,) or (..., k)
        Scale of each term's noise times its coefficient's absolute value.
    level : float, default=0.95
    law : {"laplace", "gaussian"}, default="laplace"
    bounds : (float, float), optional
        A public range the true statistic lies in.

    Returns
    -------
    low, high : ndarray of the shape of ``estimate``

    Examples
    --------
    >>> low, high = linear_interval(10.0, [2.0], bounds=(0.0, 100.0))
    >>> round(float(low), 3), round(float(high), 3)
    (4.009, 15.991)
    """
    est = np.asarray(estimate, dtype=float)
    half = noise_half_width(scales, level, law=law)
    low, high = est - half, est + half
    if bounds is not None:
        low, high = np.clip(low, *bounds), np.clip(high, *bounds)
    return low, high


def _ratio_quantiles(grid: np.ndarray, num_scale: float, den_scale: float, level: float,
                     law: str) -> np.ndarray:
    """``q(r)``: the ``level`` quantile of ``|eta_N - r eta_D|`` at each ratio of ``grid``."""
    scales = np.stack([np.full_like(grid, num_scale), np.abs(grid) * den_scale], axis=-1)
    return noise_half_width(scales, level, law=law)


def ratio_interval(numerator: Any, denominator: Any, *, numerator_scale: float,
                   denominator_scale: float, bounds: tuple[float, float],
                   level: float = 0.95,
                   law: str = "laplace") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fieller's interval for ``N / D`` from a noisy numerator and a noisy denominator.

    The set ``{r in bounds : |N~ - r D~| <= q(r)}`` ([Fie54]_; module docstring) holds the true
    ratio with probability exactly ``level`` whatever the denominator's size; its hull is
    returned. ``q`` is tabulated on a grid of ``bounds`` and interpolated linearly between
    grid points (``q`` is convex in ``r``, tested, so the chords lie above it: conservative);
    each end is refined by bisection to the grid step over 2^40 and rounded outwards.

    Parameters
    ----------
    numerator, denominator : float or array-like of shape (runs,)
        The noisy answers ``N~`` and ``D~`` (vectorised over runs).
    numerator_scale, denominator_scale : float
        Their noises' scales (Laplace ``b`` or Gaussian sigma), independent.
    bounds : (float, float)
        A public range the true ratio lies in (a mean of values clipped to ``[low, high]``
        lies in it; a share of records in ``[0, 1]``).
    level : float, default=0.95
    law : {"laplace", "gaussian"}, default="laplace"

    Returns
    -------
    estimate, low, high : ndarray of shape (runs,) (floats for scalar input)
        ``estimate`` is ``N~ / D~`` clipped to ``bounds`` when ``D~ > 0``, else the middle of
        ``bounds``; an empty set (no ratio in range fits the noisy answers, which happens
        with probability at most ``1 - level``) gives ``low = high = estimate``.

    Examples
    --------
    >>> est, low, high = ratio_interval(500.0, 1000.0, numerator_scale=2.0,
    ...                                 denominator_scale=2.0, bounds=(0.0, 1.0))
    >>> bool(low < est < high), round(float(est), 3)
    (True, 0.5)
    >>> est, low, high = ratio_interval(1.0, 0.5, numerator_scale=2.0,
    ...                                 denominator_scale=2.0, bounds=(0.0, 1.0))
    >>> float(low), float(high)  # a count lost in its noise: the whole range
    (0.0, 1.0)
    """
    check_choice(law, "law", LAWS)
    level = check_level(level)
    lo, hi = float(bounds[0]), float(bounds[1])
    if not hi > lo:
        raise ValueError(f"bounds == {bounds!r}: need low < high, the ratio's public range.")
    scalar = np.ndim(numerator) == 0 and np.ndim(denominator) == 0
    num, den = np.broadcast_arrays(np.atleast_1d(np.asarray(numerator, dtype=float)),
                                   np.atleast_1d(np.asarray(denominator, dtype=float)))
    grid = np.linspace(lo, hi, _GRID)
    q = _ratio_quantiles(grid, numerator_scale, denominator_scale, level, law)
    parts = [_ratio_chunk(num[i:i + _CHUNK], den[i:i + _CHUNK], grid, q)
             for i in range(0, num.size, _CHUNK)]
    est, low, high = (np.concatenate(p) for p in zip(*parts, strict=True))
    if scalar:
        return float(est[0]), float(low[0]), float(high[0])
    return est, low, high


def _ratio_estimate(num: np.ndarray, den: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    """``N~ / D~`` clipped to ``bounds`` where ``D~ > 0``, else the middle of ``bounds``."""
    lo, hi = float(bounds[0]), float(bounds[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, np.clip(num / np.where(den > 0, den, 1.0), lo, hi),
                        0.5 * (lo + hi))


def _ratio_chunk(num: np.ndarray, den: np.ndarray, grid: np.ndarray,
                 q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`ratio_interval` on a chunk of runs, with ``q`` tabulated on ``grid``."""
    lo, hi, step = grid[0], grid[-1], grid[1] - grid[0]

    def accepts(r: np.ndarray) -> np.ndarray:
        return np.abs(num - r * den) <= np.interp(r, grid, q)

    accept = np.abs(num[:, None] - grid[None, :] * den[:, None]) <= q[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        point = np.where(den > 0, num / den, np.nan)
    inside = (point >= lo) & (point <= hi)  # then |N~ - r D~| = 0 <= q: always accepted
    any_grid = accept.any(axis=1)
    first = np.where(any_grid, grid[np.argmax(accept, axis=1)], np.inf)
    last = np.where(any_grid, grid[_GRID - 1 - np.argmax(accept[:, ::-1], axis=1)], -np.inf)
    first = np.where(inside, np.minimum(first, point), first)
    last = np.where(inside, np.maximum(last, point), last)
    found = np.isfinite(first)
    index = (np.where(found, first, lo) - lo) / step
    below = np.maximum(lo + (np.ceil(index - 1e-9) - 1.0) * step, lo)
    low = _refine(accepts, np.where(found, first, lo), below)
    index = (np.where(found, last, hi) - lo) / step
    above = np.minimum(lo + (np.floor(index + 1e-9) + 1.0) * step, hi)
    high = _refine(accepts, np.where(found, last, hi), above)
    estimate = _ratio_estimate(num, den, (lo, hi))
    low = np.where(found, low, estimate)
    high = np.where(found, high, estimate)
    return estimate, low, high


def _refine(accepts: Any, inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
    """Bisect between each accepted ``inner`` end and the rejected grid point ``outer`` next to
    it (equal at the range's edge) and return the rejected side: the end rounded outwards."""
    a, b = inner.copy(), outer.copy()
    for _ in range(_REFINE):
        mid = 0.5 * (a + b)
        ok = accepts(mid)
        a, b = np.where(ok, mid, a), np.where(ok, b, mid)
    return b


def difference_interval(numerators: tuple[Any, Any], denominators: tuple[Any, Any], *,
                        numerator_scales: tuple[float, float],
                        denominator_scales: tuple[float, float],
                        bounds: tuple[tuple[float, float], tuple[float, float]],
                        level: float = 0.95,
                        law: str = "laplace") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An interval for ``N_A / D_A - N_B / D_B`` from four independent noisy answers.

    Both noisy denominators at least their noise's ``level`` half-width: the linear
    interval of the exact error ``E_A / D~_A - E_B / D~_B`` at the plug-in ratios (module
    docstring); otherwise the conservative difference of the two groups' Fieller intervals at
    level ``sqrt(level)``. Clipped to ``[low_A - high_B, high_A - low_B]``.

    Parameters
    ----------
    numerators, denominators : pair of float or array-like of shape (runs,)
        Groups A and B's noisy numerators and denominators.
    numerator_scales, denominator_scales : pair of float
        Their noises' scales.
    bounds : pair of (float, float)
        Each group's ratio's public range.
    level : float, default=0.95
    law : {"laplace", "gaussian"}, default="laplace"

    Returns
    -------
    estimate, low, high : ndarray of shape (runs,) (floats for scalar input)

    Examples
    --------
    >>> est, low, high = difference_interval((6000.0, 2000.0), (1000.0, 1000.0),
    ...     numerator_scales=(20.0, 20.0), denominator_scales=(2.0, 2.0),
    ...     bounds=((0.0, 10.0), (0.0, 10.0)))
    >>> round(float(est), 3), bool(low < 4.0 < high)
    (4.0, True)
    """
    level = check_level(level)
    scalar = all(np.ndim(v) == 0 for v in (*numerators, *denominators))
    num_a, num_b, den_a, den_b = np.broadcast_arrays(
        *(np.atleast_1d(np.asarray(v, dtype=float)) for v in (*numerators, *denominators)))
    est_a, est_b = _ratio_estimate(num_a, den_a, bounds[0]), _ratio_estimate(num_b, den_b,
                                                                             bounds[1])
    estimate = est_a - est_b
    big = np.ones_like(estimate, dtype=bool)
    for den, scale in ((den_a, denominator_scales[0]), (den_b, denominator_scales[1])):
        big &= den >= float(noise_half_width([scale], level, law=law))
    low, high = np.empty_like(estimate), np.empty_like(estimate)
    if big.any():
        da, db = den_a[big], den_b[big]
        (na, nb), (ca, cb) = numerator_scales, denominator_scales
        scales = np.stack([na / da, np.abs(est_a[big]) * ca / da,
                           nb / db, np.abs(est_b[big]) * cb / db], axis=-1)
        low[big], high[big] = linear_interval(estimate[big], scales, level, law=law)
    small = ~big
    if small.any():
        (_, low_a, high_a), (_, low_b, high_b) = (
            ratio_interval(n[small], d[small], numerator_scale=ns, denominator_scale=ds,
                           bounds=b, level=math.sqrt(level), law=law)
            for n, d, ns, ds, b in ((num_a, den_a, numerator_scales[0], denominator_scales[0],
                                     bounds[0]),
                                    (num_b, den_b, numerator_scales[1], denominator_scales[1],
                                     bounds[1])))
        low[small], high[small] = low_a - high_b, high_a - low_b
    floor = bounds[0][0] - bounds[1][1]
    ceiling = bounds[0][1] - bounds[1][0]
    low, high = np.clip(low, floor, ceiling), np.clip(high, floor, ceiling)
    if scalar:
        return float(estimate[0]), float(low[0]), float(high[0])
    return estimate, low, high


def sampling_half_width(n_records: float, bounds: tuple[float, float],
                        level: float = 0.95) -> float:
    """What sampling adds: the largest ``level`` half-width of a mean of ``n_records`` values
    in ``bounds`` drawn from a population, by the normal approximation with the largest
    standard deviation a bounded variable can have, ``(high - low) / 2`` (Popoviciu).

    The noise intervals here cover the statistic of the records *as they are*; to speak of the
    population they were drawn from, add this half-width (in quadrature, the two errors being
    independent). It uses only public facts.

    >>> round(sampling_half_width(100, (0.0, 1.0)), 4)
    0.098
    """
    level = check_level(level)
    width = float(bounds[1]) - float(bounds[0])
    return float(special.ndtri((1.0 + level) / 2.0)) * width / 2.0 / math.sqrt(n_records)


def laplace_release_interval(answers: Any, *, sensitivity: float, epsilon: float,
                             level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The interval of each answer of one Laplace release of a vector (the primer's Publish):
    ``answer +- b ln(1 / (1 - level))`` at the scale ``b`` the release added
    (:func:`dpcore.release_noise.laplace_scale` for the vector's length: OpenDP's rounding
    term included), exact for each answer.

    >>> low, high = laplace_release_interval([10.0], sensitivity=1.0, epsilon=1.0)
    >>> round(float(high[0] - 10.0), 4)
    2.9957
    """
    arr = np.atleast_1d(np.asarray(answers, dtype=float))
    scale = release_noise.laplace_scale(float(sensitivity), float(epsilon), max(arr.size, 1))
    return linear_interval(arr, [scale], level)
