"""Release-grade noise: OpenDP's exact samplers, safe on floating-point numbers.

A release publishes ``f(D) + noise`` as a double. Drawing the noise as a double and adding it
(``truth + s * log(2U)``, numpy's Laplace) is not differentially private, however right its law:
the set of doubles that ``fl(f(D) + noise)`` can take depends on ``f(D)``, so one output can tell
neighbouring datasets apart with certainty ([Mir12]_; :mod:`dpcore.audit_float` shows it). Every
release of the product therefore adds its noise here, through the OpenDP library's measurements
([OpenDP]_), which never compute ``truth + float noise``:

* **Laplace** (``make_laplace`` on floats): the input is rounded to the grid of multiples of
  ``2^k`` (here ``k = GRID_EXPONENT = -60``), exact integer noise from the discrete Laplace law
  on that grid is added in arbitrary precision ([CKS20]_ Sect. 5, sampled from the operating
  system's entropy), and the exact sum is rounded to the nearest double. The privacy argument is
  about the exact sum (the discrete Laplace mechanism, ε-DP for an L1 sensitivity measured on the
  grid); the final rounding is post-processing. The rounding of the input can move each
  coordinate by ``2^(k-1)``, so the sensitivity on the grid is at most ``Δ + n 2^k``: OpenDP's
  privacy map includes it, and :func:`laplace_scale` widens the scale until the map certifies
  ``ε`` (a relative change of about ``n 2^-60 / Δ``, 1e-13 for a million numbers of sensitivity
  1e-6).
* **Gaussian** (``make_gaussian`` on floats): the same construction with the discrete Gaussian
  ([CKS20]_), whose ρ-zCDP guarantee OpenDP converts into an (ε, δ) curve
  (``make_zCDP_to_approxDP``); :func:`gaussian_sigma` finds the smallest σ whose curve gives
  ``ε`` at ``δ``. That conversion is looser than the analytic calibration of the continuous
  Gaussian ([BW18]_), so a release's σ is somewhat larger than a study's.
* **Discrete Laplace on integer counts** (:func:`release_discrete_laplace`, written here): exact
  integer noise with ``P(z) ∝ exp(-|z| / b)`` by [CKS20]_ Algorithms 1-2, from the operating
  system's random bytes (``os.urandom``). An integer count plus integer noise is an integer: there
  is nothing below the unit for an attacker to read, and the discrete Laplace mechanism is ε-DP
  for an integer L1 sensitivity Δ when ``b >= Δ / ε`` (the ratio of the probabilities of ``z``
  and ``z + Δ`` is ``exp(Δ / b)``). The scale is rounded *up* to a multiple of 2^-10 so that it is
  an exact rational ``t / 1024`` for the algorithm (more noise, never less). It exists because a
  release may noise tens of thousands of counts (the optimal-subset release: about 90,000 on
  Adult), where OpenDP's 10-15 µs per number would cost 1.5 s of the two a Publish may take;
  this sampler, vectorised over the counts, takes about 0.2 s with the same exact algorithm.
* **L2-Laplace on vectors** (:func:`release_l2_laplace`, a scale mixture around OpenDP's discrete
  Gaussian): the papers' law, density ``∝ exp(-a ||x||_2)`` with ``a = ε / Δ'`` for an L2
  sensitivity Δ, is drawn as ``N(0, V I_d)`` with a random variance ``V ~ Gamma((d + 1) / 2,
  rate a² / 2)``, independently per row. The identity behind it, for ``r = ||x||``:
  ``∫ p_V(v) (2πv)^(-d/2) exp(-r²/(2v)) dv ∝ ∫ v^(-1/2) exp(-r²/(2v) - a²v/2) dv =
  sqrt(2π) / a · exp(-a r)`` (so ``E||x|| = d / a``). Given ``V = v`` the row goes through
  OpenDP's Gaussian on the 2^k grid with σ = sqrt(v): the input is rounded to the grid (each
  coordinate moves at most ``2^(k-1)``, so neighbours are at most ``Δ' = Δ + sqrt(d) 2^k`` apart
  on it) and exact discrete Gaussian noise on the lattice ``g Z^d`` (``g = 2^k``) is added.
  *Privacy, in exact arithmetic*: the output ``z`` has probability ``g^d h(z - t)`` around the
  rounded value ``t``, with ``h(x) = ∫ p_V(v) w(v) N(x; 0, v I) dv`` and ``w(v) = (2πv)^(d/2) /
  (g^d Σ_{u ∈ gZ^d} exp(-||u||²/(2v)))``, the ratio of the continuous to the lattice normaliser.
  By Poisson summation ``w(v) = (1 + η(v))^(-d)`` with ``η(v) = 2 Σ_{m >= 1}
  exp(-2π² m² v / g²)``, which decreases in ``v``: ``w`` is an *increasing* reweighting of the
  mixture (as is the redraw of the smallest ``V``, below). ``h`` is radial and ``d/dr log h =
  -r E[1/V | r]``, the mean over the posterior of ``V`` given ``r``; for the unweighted
  mixture (the L2-Laplace) ``r E[1/V | r] = a`` exactly, and an increasing reweighting makes
  the posterior stochastically larger, so ``|∇ log h| <= a``. Hence ``h(z - t) / h(z - t') <=
  exp(a ||t - t'||) <= exp(a Δ') = e^ε`` for every output: ε-DP, with no approximation
  (``w`` is 1 up to ``exp(-2π² v / g²)``, below 1e-1000 at any noise scale of the product, so
  the law is the L2-Laplace's on the grid). The final rounding to a double is
  post-processing. *Floating point* enters through ``V`` only, which is data-independent and
  sets the width of an exact sampler whose support, the whole lattice, never depends on the data:
  the attack of [Mir12]_ on low-order bits has nothing to read. ``V`` is ``2 / a²`` times a
  Gamma((d + 1) / 2) draw made as a sum of exponentials ``-log u`` (plus ``E cos²(πU)``, a
  Gamma(1/2), for even ``d``), each ``u`` a uniform with full relative precision (52 random
  bits of significand, an unbounded geometric exponent), so that its law differs from the
  Gamma's by a relative 2^-52 smooth perturbation, its largest value is not capped (a 53-bit
  uniform stops at ``-log 2^-53 = 36.7``: a capped ``V`` leaves the mixture a Gaussian tail, in
  which the privacy loss grows without bound), and Gamma draws below ``2^-20`` (probability at
  most 1e-6, for ``d = 1``) are redrawn, an increasing reweighting that keeps the resolution of
  ``V`` near zero fine. That last step, from the exact law of ``V`` to its floating-point draw,
  is an argument, not a machine-checked proof like OpenDP's: its error is of order ``d 2^-33``
  in the log-density at worst. The variance draws use numpy's generator seeded from fresh OS
  entropy; the lattice noise, OpenDP's exact sampler. Each row builds its own OpenDP
  measurement (σ is random): about 0.5 ms plus 35 µs per number. The coordinate-wise
  alternative, exact end to end and ``sqrt 2`` times noisier in norm, is
  ``release_laplace(values, sqrt(d) Δ, ε)`` (``||v||_1 <= sqrt(d) ||v||_2``).
* **Exponential mechanism** (``make_noisy_max`` with Gumbel noise, the zCDP form): the index of
  ``argmax(u_i + G_i)`` with ``G_i`` Gumbel of scale ``t`` is drawn exactly, and follows the
  exponential mechanism's law ``P(i) ∝ exp(u_i / t)`` ([MT07]_; "Gumbel-max"). The output is an
  index, which has no low-order bits to leak.

Why OpenDP rather than a sampler written here: it is maintained, its samplers are exact and
proven (one proof document per measurement), and it is the library the field uses for exactly
this. Its cost, about 10 µs per number in a vector call, is small next to a release's fit. A
*study* (many simulated releases, nothing published) keeps numpy's fast draws of the same law
(:mod:`dpcore.noise`); the mechanism classes of :mod:`dpcore.mechanisms` hold both paths
(``release`` and ``randomise``) and the tests check that they follow the same law.

References
----------
.. [Mir12] Mironov (2012), *On significance of the least significant bits for differential
   privacy*, ACM CCS.
.. [CKS20] Canonne, Kamath & Steinke (2020), *The discrete Gaussian for differential privacy*,
   NeurIPS, Sect. 5 (exact sampling of the discrete Laplace and Gaussian).
.. [BW18] Balle & Wang (2018), *Improving the Gaussian mechanism for differential privacy*, ICML.
.. [MT07] McSherry & Talwar (2007), *Mechanism design via differential privacy*, FOCS.
.. [OpenDP] The OpenDP Library, https://docs.opendp.org (``make_laplace``, ``make_gaussian``,
   ``make_noisy_max`` and their proof documents).
"""

from __future__ import annotations

import functools
import math
import os
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import numpy as np

__all__ = [
    "GRID_EXPONENT",
    "SAMPLER",
    "gaussian_sigma",
    "discrete_laplace_scale",
    "l2_laplace_scale",
    "l2_laplace_variances",
    "laplace_scale",
    "release_discrete_laplace",
    "release_gaussian",
    "release_l2_laplace",
    "release_laplace",
    "release_noisy_max",
]

#: OpenDP's noise granularity ``2^k`` for floats: inputs are rounded to multiples of ``2^-60``
#: (about 8.7e-19), far below any noise scale of the product, and sampling is about three times
#: faster than on the exact grid of all doubles (``k = -1074``).
GRID_EXPONENT = -60
#: How the ledger and the pages name the release sampler.
SAMPLER = "OpenDP exact sampler (discrete noise on a 2^-60 grid; safe on floating point)"
#: Relative widening of a scale beyond what OpenDP's map asks for, so that rounding in the map
#: itself cannot leave it a hair short.
_MARGIN = 1e-12


@functools.cache
def _opendp() -> SimpleNamespace:
    """OpenDP's modules, imported on first use (the ``contrib`` feature holds these samplers).

    Imported lazily and without ``opendp.prelude``, whose extras pull in half of scikit-learn.
    """
    from opendp import combinators, domains, measurements, measures, metrics, mod

    mod.enable_features("contrib")
    return SimpleNamespace(c=combinators, d=domains, m=measurements, ms=measures, mt=metrics,
                           mod=mod)


def _finite(values: Any) -> np.ndarray:
    arr = np.array(values, dtype=np.float64, order="C")  # a writable copy: OpenDP reads it
    if not np.all(np.isfinite(arr)):
        raise ValueError("A release can only add noise to finite numbers; check the values "
                         "first (dpcore.mechanisms does).")
    return arr


def _vector_release(values: Any, measurement: Any) -> np.ndarray:
    """``values`` (any shape) through ``measurement(size)``, an OpenDP measurement on a vector
    of that many floats; the result has the shape of ``values``."""
    arr = _finite(values)
    if arr.size == 0:
        return arr.copy()
    flat = arr.ravel()
    return np.asarray(measurement(flat.size)(flat), dtype=np.float64).reshape(arr.shape)


@functools.lru_cache(maxsize=256)
def _vector_domain(size: int) -> Any:
    dp = _opendp()
    return dp.d.vector_domain(dp.d.atom_domain(T=float, nan=False), size=size)


@functools.lru_cache(maxsize=256)
def _laplace(size: int, scale: float) -> Any:
    """OpenDP's Laplace measurement for a vector of ``size`` (kept: building one takes ~0.4 ms,
    and a measurement holds no data, only its parameters)."""
    dp = _opendp()
    return dp.m.make_laplace(_vector_domain(size), dp.mt.l1_distance(T=float), scale=scale,
                             k=GRID_EXPONENT)


@functools.lru_cache(maxsize=256)
def laplace_scale(sensitivity: float, epsilon: float, size: int) -> float:
    """The smallest scale near ``sensitivity / epsilon`` whose OpenDP map certifies ``epsilon``.

    Parameters
    ----------
    sensitivity : float
        L1 sensitivity of the released vector, > 0.
    epsilon : float
        > 0.
    size : int
        Length of the released vector (OpenDP's rounding term grows with it).

    Returns
    -------
    float
        A scale ``s >= sensitivity / epsilon`` with ``make_laplace(..., s).map(sensitivity) <=
        epsilon``.

    Examples
    --------
    >>> s = laplace_scale(1.0, 0.5, size=10)
    >>> 2.0 <= s < 2.0 * (1 + 1e-9)
    True
    """
    scale = sensitivity / epsilon
    for _ in range(4):
        certified = _laplace(size, scale).map(sensitivity)
        if certified <= epsilon:
            return scale
        scale *= certified / epsilon * (1.0 + _MARGIN)
    raise RuntimeError(f"OpenDP's Laplace map did not certify epsilon = {epsilon:g} at "
                       f"sensitivity {sensitivity:g}; this should not happen.")


def release_laplace(values: Any, sensitivity: float, epsilon: float) -> np.ndarray:
    """``values`` plus Laplace noise, ε-DP for an L1 ``sensitivity`` of the whole array.

    Every element gets independent noise of scale :func:`laplace_scale` (about
    ``sensitivity / epsilon``), drawn by OpenDP from fresh OS entropy (module docstring).

    Parameters
    ----------
    values : array-like of any shape
        Finite numbers: the exact answer(s).
    sensitivity : float
        L1 sensitivity of the flattened array between neighbouring datasets, > 0.
    epsilon : float
        > 0.

    Returns
    -------
    ndarray of the shape of ``values``
    """
    return _vector_release(
        values, lambda size: _laplace(size, laplace_scale(sensitivity, epsilon, size)))


@functools.lru_cache(maxsize=256)
def _gaussian(size: int, sigma: float) -> Any:
    """OpenDP's (discrete) Gaussian measurement for a vector of ``size``, ρ-zCDP."""
    dp = _opendp()
    return dp.m.make_gaussian(_vector_domain(size), dp.mt.l2_distance(T=float), scale=sigma,
                              k=GRID_EXPONENT)


@functools.lru_cache(maxsize=256)
def _gaussian_approx(size: int, sigma: float, delta: float) -> Any:
    dp = _opendp()
    return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(_gaussian(size, sigma)), delta)


@functools.lru_cache(maxsize=64)
def gaussian_sigma(sensitivity: float, epsilon: float, delta: float, size: int) -> float:
    """The smallest σ whose OpenDP Gaussian measurement is (epsilon, delta)-DP.

    OpenDP's discrete Gaussian is ρ-zCDP with ``ρ = (Δ + rounding)^2 / (2σ^2)``; its conversion
    to (ε, δ) is bisected on σ (the conversion is monotone in σ).

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity of the released vector, > 0.
    epsilon, delta : float
        The target guarantee; ``0 < delta < 1``.
    size : int
        Length of the released vector.

    Returns
    -------
    float
    """
    def certified(sigma: float) -> float:
        return _gaussian_approx(size, sigma, delta).map(sensitivity)[0]

    # zCDP's classical conversion epsilon = rho + 2 sqrt(rho log(1/delta)) is never tighter than
    # OpenDP's, so its sigma brackets the answer from above; the analytic one is below it.
    log_inv = math.log(1.0 / delta)
    root = -math.sqrt(log_inv) + math.sqrt(log_inv + epsilon)  # sqrt(rho) of the classical form
    hi = sensitivity / (math.sqrt(2.0) * root) * (1.0 + 1e-6)
    lo = hi / 4.0
    while certified(hi) > epsilon:
        hi *= 2.0
    while certified(lo) <= epsilon and lo > 0.0:
        lo /= 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if certified(mid) <= epsilon:
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-10 * hi:
            break
    return hi


def release_gaussian(values: Any, sigma: float) -> np.ndarray:
    """``values`` plus discrete Gaussian noise of scale ``sigma`` on the 2^-60 grid (OpenDP).

    Calibrate ``sigma`` with :func:`gaussian_sigma` for the vector's size.

    Parameters
    ----------
    values : array-like of any shape
        Finite numbers.
    sigma : float
        > 0.

    Returns
    -------
    ndarray of the shape of ``values``
    """
    return _vector_release(values, lambda size: _gaussian(size, sigma))


def l2_laplace_scale(sensitivity: float, epsilon: float, dim: int) -> float:
    """The scale ``1 / a`` of :func:`release_l2_laplace`'s law: ``(Δ + sqrt(dim) 2^k) / ε``.

    OpenDP rounds every coordinate to the 2^k grid (``k = GRID_EXPONENT``), which can move two
    neighbours' vectors ``sqrt(dim) 2^k`` further apart; the scale covers it, and is widened by
    a relative 1e-12 so that its own rounding cannot leave it short.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity of each released vector, > 0.
    epsilon : float
        > 0.
    dim : int
        Length of each vector.

    Returns
    -------
    float

    Examples
    --------
    >>> s = l2_laplace_scale(1.0, 0.5, dim=100)
    >>> 2.0 < s < 2.0 * (1 + 1e-11)
    True
    """
    grid = math.sqrt(dim) * math.ldexp(1.0, GRID_EXPONENT)
    return (sensitivity + grid) / epsilon * (1.0 + _MARGIN)


#: Gamma draws of the mixture below this are redrawn (module docstring).
GAMMA_FLOOR = 2.0**-20


def _exponentials(gen: np.random.Generator, n: int) -> np.ndarray:
    """``n`` Exp(1) draws ``-log u`` with ``u = (1 + f) 2^-(j+1)`` uniform on (0, 1) to full
    relative precision: ``f`` has 52 random bits and ``j``, the number of leading zeros of a
    random bit stream, is geometric and unbounded (53 bits a word, more words while all zero)."""
    f = gen.integers(0, 1 << 52, size=n).astype(np.float64) * 2.0**-52  # exact
    j = np.zeros(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        top = gen.integers(0, 1 << 53, size=todo.size).astype(np.float64)  # exact below 2^53
        j[todo] += 53 - np.frexp(top)[1]  # frexp(0) gives 0: all 53 bits zero, draw again
        todo = todo[top == 0]
    return (j + 1) * math.log(2.0) - np.log1p(f)


def _gamma_half_integer(gen: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """``n`` Gamma((dim + 1) / 2) draws: a sum of ``(dim + 1) // 2`` exponentials, plus
    ``E cos²(πU)`` (a Gamma(1/2): ``Z² / 2`` for Box-Muller's ``Z``) when ``dim`` is even."""
    terms = (dim + 1) // 2
    total = _exponentials(gen, n * terms).reshape(n, terms).sum(axis=1)
    if dim % 2 == 0:
        total += _exponentials(gen, n) * np.cos(np.pi * gen.random(n)) ** 2
    return total


def l2_laplace_variances(rows: int, dim: int, scale: float, rng: Any) -> np.ndarray:
    """Variances ``V ~ Gamma((dim + 1) / 2, scale 2 scale²)`` of the Gaussian mixture that is
    the L2-Laplace of ``scale`` in ``R^dim``, one per row (module docstring).

    Gamma draws below :data:`GAMMA_FLOOR` are redrawn, so every variance is at least
    ``2 scale² GAMMA_FLOOR``.

    Parameters
    ----------
    rows : int
        How many variances.
    dim : int
        Dimension of each vector, >= 1.
    scale : float
        ``1 / a`` of the density ``∝ exp(-a ||x||)``, > 0.
    rng : numpy.random.Generator
        A study's stream, or for a release ``numpy.random.default_rng()`` (fresh OS entropy).

    Returns
    -------
    ndarray of shape (rows,)

    Examples
    --------
    >>> v = l2_laplace_variances(20_000, 3, 0.5, np.random.default_rng(0))
    >>> bool(abs(v.mean() / (4 * 0.5**2) - 1) < 0.02)  # E V = (dim + 1) scale^2
    True
    """
    gamma = np.empty(rows)
    todo = np.arange(rows)
    while todo.size:
        gamma[todo] = _gamma_half_integer(rng, todo.size, dim)
        todo = todo[gamma[todo] < GAMMA_FLOOR]
    return 2.0 * scale**2 * gamma


@functools.cache
def _l2_metric() -> Any:
    return _opendp().mt.l2_distance(T=float)


def _lattice_gaussian(dim: int, sigma: float) -> Any:
    """OpenDP's discrete Gaussian on the 2^k grid for one vector of ``dim`` (built per call, not
    cached: ``sigma`` is a fresh random number each time)."""
    dp = _opendp()
    return dp.m.make_gaussian(_vector_domain(dim), _l2_metric(), scale=sigma, k=GRID_EXPONENT)


def release_l2_laplace(values: Any, sensitivity: float, epsilon: float) -> np.ndarray:
    """Every row of ``values`` plus L2-Laplace noise, ε-DP per row for an L2 ``sensitivity``.

    The noise has density ``∝ exp(-||x||_2 / s)`` with ``s =`` :func:`l2_laplace_scale` (about
    ``sensitivity / epsilon``), drawn as a Gaussian scale mixture: a variance from
    :func:`l2_laplace_variances` (numpy, fresh OS entropy) and OpenDP's exact discrete Gaussian
    of that variance on the 2^-60 grid (module docstring, with the privacy argument).

    Parameters
    ----------
    values : array-like of shape (..., d)
        Finite numbers; every leading axis holds independent releases.
    sensitivity : float
        L2 sensitivity of each row between neighbouring datasets, > 0.
    epsilon : float
        > 0.

    Returns
    -------
    ndarray of the shape of ``values``
    """
    arr = _finite(values)
    if arr.ndim == 0:
        raise ValueError("An L2-Laplace release adds a noise vector to each row; pass an array "
                         "of shape (..., d), not a scalar.")
    if arr.size == 0:
        return arr.copy()
    rows = arr.reshape(-1, arr.shape[-1])
    dim = rows.shape[1]
    variances = l2_laplace_variances(rows.shape[0], dim,
                                     l2_laplace_scale(sensitivity, epsilon, dim),
                                     np.random.default_rng())
    noisy = [_lattice_gaussian(dim, math.sqrt(v))(row)
             for row, v in zip(rows, variances, strict=True)]
    return np.asarray(noisy, dtype=np.float64).reshape(arr.shape)


def release_noisy_max(utilities: Any, temperature: float) -> int:
    """Index ``i`` drawn with probability ``∝ exp(utilities[i] / temperature)``, exactly.

    OpenDP's report-noisy-max with Gumbel noise (its zero-concentrated form), which is the
    exponential mechanism's law (module docstring). The ε it gives is the caller's: ``2 Δ / t``
    for utilities of sensitivity Δ (``Δ / t`` when they are monotonic).

    Parameters
    ----------
    utilities : array-like of shape (k,)
        Finite scores, higher is better.
    temperature : float
        > 0.

    Returns
    -------
    int
    """
    arr = _finite(utilities).ravel()
    if arr.size == 0:
        raise ValueError("The exponential mechanism needs at least one candidate.")
    dp = _opendp()
    select = dp.m.make_noisy_max(dp.d.vector_domain(dp.d.atom_domain(T=float, nan=False)),
                                 dp.mt.linf_distance(T=float),
                                 dp.ms.zero_concentrated_divergence(), scale=temperature)
    return int(select(arr))


# --------------------------------------------------------------------------------------------
# Discrete Laplace on integers: Canonne, Kamath & Steinke (2020), Algorithms 1 and 2, vectorised
# --------------------------------------------------------------------------------------------
#: The discrete Laplace scale is a multiple of ``1 / SCALE_DENOMINATOR`` (rounded up).
SCALE_DENOMINATOR = 1 << 10
_MAX_NUMERATOR = 1 << 50


def discrete_laplace_scale(sensitivity: float, epsilon: float) -> float:
    """The scale ``b = t / 1024 >= sensitivity / epsilon`` that :func:`release_discrete_laplace`
    uses (``t`` the smallest integer that keeps ``b`` at least the exact ratio).

    >>> discrete_laplace_scale(2.0, 0.01)
    200.0
    >>> discrete_laplace_scale(1.0, 3.0) * 3.0 >= 1.0
    True
    """
    return _scale_numerator(sensitivity, epsilon) / SCALE_DENOMINATOR


def _scale_numerator(sensitivity: float, epsilon: float) -> int:
    exact = Fraction(sensitivity) / Fraction(epsilon) * SCALE_DENOMINATOR
    t = max(1, math.ceil(exact))
    if t >= _MAX_NUMERATOR:
        raise ValueError(f"A discrete Laplace scale of {float(exact) / SCALE_DENOMINATOR:g} is "
                         "too large to sample; the count would be noise only. Raise epsilon.")
    return t


def _random_words(n: int) -> np.ndarray:
    """``n`` uniform 64-bit words from the operating system's CSPRNG."""
    return np.frombuffer(os.urandom(8 * n), dtype=np.uint64)


def _uniform_below(m: np.ndarray) -> np.ndarray:
    """Uniform integers in ``[0, m)`` for every entry of ``m`` (int64, ``1 <= m < 2^53``): draw
    ``ceil(log2 m)`` random bits and reject values ``>= m`` (accepted with probability >= 1/2)."""
    m = np.asarray(m, dtype=np.int64)
    bits = np.frexp(m.astype(np.float64))[1]  # 2^(bits-1) <= m < 2^bits, exact below 2^53
    masks = (np.left_shift(np.int64(1), bits.astype(np.int64)) - 1).astype(np.uint64)
    out = np.empty(m.shape, dtype=np.int64)
    todo = np.arange(m.size)
    while todo.size:
        r = (_random_words(todo.size) & masks.ravel()[todo]).astype(np.int64)
        ok = r < m.ravel()[todo]
        out.ravel()[todo[ok]] = r[ok]
        todo = todo[~ok]
    return out


def _bernoulli_exp(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Exact Bernoulli(exp(-num/den)) for ``0 <= num <= den`` ([CKS20]_ Algorithm 1, γ <= 1):
    count ``K`` while Bernoulli(γ / K) succeeds; the result is 1 when ``K`` is odd."""
    num = np.asarray(num, dtype=np.int64)
    den = np.broadcast_to(np.asarray(den, dtype=np.int64), num.shape)
    k = np.ones(num.shape, dtype=np.int64)
    active = np.ones(num.shape, dtype=bool)
    while active.any():
        idx = np.flatnonzero(active)
        success = _uniform_below(den[idx] * k[idx]) < num[idx]  # Bernoulli(num / (den k))
        k[idx[success]] += 1
        active[idx[~success]] = False
    return k % 2 == 1


def _discrete_laplace_noise(n: int, t: int, s: int) -> np.ndarray:
    """``n`` draws of the discrete Laplace law ``P(z) ∝ exp(-|z| s / t)`` ([CKS20]_ Algorithm 2).

    Per draw: ``U`` uniform in ``[0, t)`` kept with probability ``exp(-U/t)``; ``V`` the number of
    successes of Bernoulli(exp(-1)) before the first failure; ``Y = floor((U + t V) / s)``; a fair
    sign ``B``, rejecting ``B = 1, Y = 0`` (so that 0 is not counted twice).
    """
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        size = todo.size
        u = _uniform_below(np.full(size, t, dtype=np.int64))
        keep = _bernoulli_exp(u, np.int64(t))
        v = np.zeros(size, dtype=np.int64)
        active = keep.copy()
        while active.any():
            idx = np.flatnonzero(active)
            more = _bernoulli_exp(np.ones(idx.size, dtype=np.int64), np.int64(1))
            v[idx[more]] += 1
            active[idx[~more]] = False
        y = (u + t * v) // s
        sign = (_random_words(size) & np.uint64(1)).astype(bool)
        ok = keep & ~(sign & (y == 0))
        out[todo[ok]] = np.where(sign[ok], -y[ok], y[ok])
        todo = todo[~ok]
    return out


def release_discrete_laplace(values: Any, sensitivity: float, epsilon: float) -> np.ndarray:
    """Integer ``values`` plus exact discrete Laplace noise: ε-DP for an integer L1
    ``sensitivity`` of the whole array (module docstring).

    Parameters
    ----------
    values : array-like of int, any shape
        Exact counts (or any integers).
    sensitivity : float
        L1 sensitivity of the array between neighbouring datasets, an integer > 0.
    epsilon : float
        > 0.

    Returns
    -------
    ndarray of int64 of the shape of ``values``

    Examples
    --------
    >>> out = release_discrete_laplace([5, 5], 2, 1.0)
    >>> out.dtype, out.shape
    (dtype('int64'), (2,))
    """
    arr = np.asarray(values)
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        as_int = np.rint(arr)
        if not np.all(np.isfinite(arr)) or np.any(as_int != arr):
            raise ValueError("The discrete Laplace mechanism adds noise to integers; these "
                             "values are not whole numbers. Use release_laplace for real values.")
        arr = as_int
    arr = arr.astype(np.int64)
    if float(sensitivity) != math.floor(sensitivity) or sensitivity <= 0:
        raise ValueError(f"sensitivity == {sensitivity!r}: the discrete Laplace mechanism needs "
                         "an integer L1 sensitivity >= 1.")
    t = _scale_numerator(sensitivity, epsilon)
    noise = _discrete_laplace_noise(arr.size, t, SCALE_DENOMINATOR)
    return arr + noise.reshape(arr.shape)
