"""Differential-privacy mechanisms: one mechanism, one small class.

Each class is built from its privacy parameters (checked by :mod:`dpcore.validation`, whose
``check_*`` functions return the converted value) and has two paths, which follow the same law:

* ``release(value)`` is what a data owner publishes: the noise comes from OpenDP's exact samplers
  (:mod:`dpcore.release_noise`), drawn from fresh OS entropy, and is safe on floating-point
  numbers. It takes no seed: nobody, the caller included, can rebuild its noise.
* ``randomise(value, *, rng)`` is for studies (many simulated releases, nothing published): fast
  numpy draws of the same law from a seed or Generator (:mod:`dpcore.noise`), vectorised over
  leading batch axes so that one call draws the noise for every replicate. Its outputs must never
  be published: the low-order bits of ``truth + numpy noise`` depend on the truth ([Mir12]_), and
  the seed rebuilds the noise. ``rng`` is required for that reason.

``variance`` and ``tail_bound`` are closed forms. :class:`L2Laplace` releases the papers'
L2-Laplace as a Gaussian scale mixture around OpenDP's exact discrete Gaussian
(:func:`dpcore.release_noise.release_l2_laplace`); ``randomise(..., law="release")`` draws that
construction for a study (numpy variances and normals), the default ``law="paper"`` the papers'
norm-and-direction form of the same law.

Neighbouring relation and sensitivity
-------------------------------------
A mechanism does not know the data. Its ``sensitivity`` is the caller's statement of how much the
released value can change between two *neighbouring* datasets, under the caller's neighbouring
relation (e.g. "replace one record", "add or remove one record"), measured in the norm the
mechanism names (L1 for :class:`Laplace`, L2 for :class:`Gaussian` and :class:`L2Laplace`, the
largest change of any one utility for :class:`Exponential`). It must include any numerical error
of the computation (e.g. a solver tolerance) and hold for every dataset of the domain, with bounds
from the domain or public information, never read off the private data. The relation is recorded
as text in the ``neighbouring`` attribute so that a release can say what it protects.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1.3 (the Laplacian mechanism, Definition 5 of sensitivity, and
   its Gaussian variation) and Sect. 1.4 (the exponential mechanism, Definition 6).
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Found.
   Trends Theor. Comput. Sci. 9, Theorem 3.6 (Laplace), Theorem 3.10 (exponential) and
   Theorem A.1 (classic Gaussian calibration, epsilon < 1).
.. [BW18] Balle & Wang (2018), *Improving the Gaussian mechanism for differential privacy:
   analytical calibration and optimal denoising*, ICML, Theorem 8 and Algorithm 1.
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS,
   Algorithm 1 (noise with density proportional to ``exp(-epsilon ||b|| / sensitivity)``).
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn.
   93, Algorithm 1 step 2 and Lemma 7.
.. [MT07] McSherry & Talwar (2007), *Mechanism design via differential privacy*, FOCS, Theorem 6.
.. [BS16] Bun & Steinke (2016), *Concentrated differential privacy: simplifications, extensions,
   and lower bounds*, TCC, Proposition 1.4 (pure epsilon-DP is epsilon^2/2-zCDP) and
   Proposition 1.6 (the Gaussian mechanism).
.. [Mir12] Mironov (2012), *On significance of the least significant bits for differential
   privacy*, ACM CCS.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import optimize, special

import dpcore.release_noise as release_noise
from dpcore.noise import sample_gaussian, sample_l2_laplace, sample_laplace
from dpcore.validation import (
    DataError,
    check_array,
    check_delta,
    check_epsilon,
    check_int,
    check_level,
    check_random_state,
    check_sensitivity,
    check_str,
)

__all__ = [
    "Mechanism",
    "Laplace",
    "DiscreteLaplace",
    "Gaussian",
    "L2Laplace",
    "Exponential",
    "analytic_gaussian_sigma",
]

UNSTATED_RELATION = "the caller's (not stated)"
_NEIGHBOURING = ("It states the neighbouring relation: pass e.g. "
                 "neighbouring='replace one record'.")


def _check_value(value: Any, name: str = "value") -> np.ndarray:
    """The value a mechanism releases: a finite float array of any shape, else a
    :class:`DataError` that says what to do (a mechanism's data check; its parameters are
    checked by :mod:`dpcore.validation`)."""
    return check_array(value, name, ndim=None, min_rows=0,
                       fix="A mechanism can only release finite numbers: drop, impute or clip "
                           "them (with data-independent bounds) first.")


# --------------------------------------------------------------------------------------------


def _study_rng(rng: Any) -> np.random.Generator:
    """The Generator of a study; ``None`` is refused (a study is seeded, a release has no seed)."""
    if rng is None:
        raise ValueError(
            "randomise() draws study noise (numpy, seeded, not safe on floating point for a "
            "release) and needs rng: pass a seed or a numpy Generator, e.g. rng=0. To publish, "
            "call release(value), which draws fresh OS entropy through OpenDP."
        )
    return check_random_state(rng)


def _add_elementwise(
    value: Any, sample: Callable[..., Any], scale: float, *, rng: Any
) -> float | np.ndarray:
    """``value`` plus independent noise ``sample(scale, size=..., rng=...)`` on every element.

    The study noise of :class:`Laplace` and :class:`Gaussian`; a scalar ``value`` gives a float.
    """
    arr = _check_value(value)
    gen = _study_rng(rng)
    if arr.ndim == 0:
        return float(arr) + sample(scale, rng=gen)
    return arr + sample(scale, size=arr.shape, rng=gen)


def _shaped(arr: np.ndarray, noisy: np.ndarray) -> float | np.ndarray:
    return float(noisy.reshape(())) if arr.ndim == 0 else noisy


class Mechanism:
    """Base class: privacy parameters, their checks and the common interface.

    Parameters
    ----------
    epsilon : float
        Privacy loss, > 0.
    delta : float
        Probability of failure of the epsilon guarantee; 0 for pure epsilon-DP.
    sensitivity : float
        Largest change of the released value between neighbouring datasets, in the norm the
        mechanism names, under the caller's neighbouring relation, > 0.
    neighbouring : str, default="the caller's (not stated)"
        The caller's neighbouring relation, as text for reports (e.g. "replace one record").

    Attributes
    ----------
    epsilon, delta, sensitivity : float
    neighbouring : str
    scale : float
        The noise scale (its meaning depends on the mechanism).
    """

    def __init__(
        self,
        epsilon: float,
        delta: float,
        sensitivity: float,
        *,
        neighbouring: str = UNSTATED_RELATION,
    ) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = float(delta)
        self.sensitivity = check_sensitivity(sensitivity)
        self.neighbouring = check_str(neighbouring, "neighbouring", advice=_NEIGHBOURING)

    @property
    def scale(self) -> float:
        raise NotImplementedError

    @property
    def variance(self) -> float | None:
        """Variance of the noise added to each coordinate."""
        raise NotImplementedError

    @property
    def rho(self) -> float:
        """The zCDP ρ of the mechanism: ``epsilon**2 / 2`` for a pure epsilon-DP mechanism, the
        bound that holds for every one ([BS16]_ Proposition 1.4). What a ledger counts for it
        (:meth:`dpcore.accountant.BudgetAccountant.spend`, ``noise``)."""
        return self.epsilon**2 / 2.0

    #: How the release path draws its noise (for reports and the ledger).
    sampler = release_noise.SAMPLER

    def release(self, value: Any) -> Any:
        """Publish ``value`` through the mechanism: float-safe noise from fresh OS entropy."""
        raise NotImplementedError

    def randomise(self, value: Any, *, rng: Any) -> Any:
        """Simulate the mechanism on ``value`` for a study (seeded numpy draws; never publish)."""
        raise NotImplementedError

    def draw(self, value: Any, *, rng: Any = None) -> Any:
        """:meth:`release` when ``rng`` is None (a release), else :meth:`randomise` (a study):
        the one switch of every entry point whose ``rng=None`` means "publish"."""
        return self.release(value) if rng is None else self.randomise(value, rng=rng)

    def _repr_args(self) -> list[str]:
        return [f"epsilon={self.epsilon!r}", f"sensitivity={self.sensitivity!r}"]

    def __repr__(self) -> str:
        args = self._repr_args()
        if self.neighbouring != UNSTATED_RELATION:
            args.append(f"neighbouring={self.neighbouring!r}")
        return f"{type(self).__name__}({', '.join(args)})"


class Laplace(Mechanism):
    """The Laplace mechanism: add i.i.d. Laplace(0, sensitivity / epsilon) noise.

    Gives epsilon-DP for a value whose L1 sensitivity is ``sensitivity`` ([JLE14]_ Sect. 1.3
    with the L1 norm in Definition 5; [DR14]_ Theorem 3.6).

    Parameters
    ----------
    epsilon : float
        Privacy loss, > 0.
    sensitivity : float
        L1 sensitivity: the largest ``||f(D) - f(D')||_1`` over neighbouring D, D' (of every
        coordinate together when ``value`` is a vector), > 0.
    neighbouring : str, default="the caller's (not stated)"
        The caller's neighbouring relation, for reports.

    Attributes
    ----------
    scale : float
        ``sensitivity / epsilon``.
    variance : float
        ``2 scale**2`` per coordinate.

    Examples
    --------
    >>> mech = Laplace(epsilon=0.5, sensitivity=1.0)
    >>> mech.scale, mech.variance
    (2.0, 8.0)
    >>> round(mech.tail_bound(0.95), 4)  # |noise| <= 5.99 with probability 0.95
    5.9915
    >>> mech.randomise([1.0, 2.0], rng=0).shape
    (2,)
    >>> isinstance(mech.release(3.0), float)
    True
    """

    def __init__(
        self, epsilon: float, sensitivity: float, *, neighbouring: str = UNSTATED_RELATION
    ) -> None:
        super().__init__(epsilon, 0.0, sensitivity, neighbouring=neighbouring)

    @property
    def scale(self) -> float:
        return self.sensitivity / self.epsilon

    @property
    def variance(self) -> float:
        return 2.0 * self.scale**2

    def tail_bound(self, level: float) -> float:
        """The ``t`` with ``P(|noise| <= t) = level`` per coordinate: ``scale ln(1/(1-level))``."""
        return -self.scale * math.log1p(-check_level(level))

    def release(self, value: Any) -> float | np.ndarray:
        """Publish ``value`` with Laplace noise, safe on floating point (OpenDP, OS entropy).

        ``value`` as a whole (every element together) has L1 sensitivity ``sensitivity``; each
        element gets independent noise of scale ``sensitivity / epsilon`` (widened by OpenDP's
        rounding term, :func:`dpcore.release_noise.laplace_scale`).

        Parameters
        ----------
        value : float or array-like of any shape
            Finite numbers.

        Returns
        -------
        float or ndarray of the same shape as ``value``
        """
        arr = _check_value(value)
        return _shaped(arr, release_noise.release_laplace(arr, self.sensitivity, self.epsilon))

    def randomise(self, value: Any, *, rng: Any) -> float | np.ndarray:
        """Simulate: add independent Laplace noise to every element of ``value`` (a study).

        Parameters
        ----------
        value : float or array-like of any shape
            Finite numbers.
        rng : int or numpy.random.Generator
            The study's seed or stream (required: see the module docstring).

        Returns
        -------
        float or ndarray of the same shape as ``value``
        """
        return _add_elementwise(value, sample_laplace, self.scale, rng=rng)


class DiscreteLaplace(Mechanism):
    """The discrete Laplace mechanism on integers: add noise with ``P(z) ∝ exp(-|z| / scale)``.

    Epsilon-DP for integer values whose L1 sensitivity is the integer ``sensitivity``: the
    probabilities of ``z`` and ``z + Δ`` differ by ``exp(Δ / scale) <= exp(epsilon)`` ([CKS20]_
    Sect. 2; the geometric mechanism of Ghosh, Roughgarden & Sundararajan). For counts it is the
    natural release: integer in, integer out, no floating point at all.

    Parameters
    ----------
    epsilon : float
        Privacy loss, > 0.
    sensitivity : int
        L1 sensitivity, a whole number >= 1.
    neighbouring : str, default="the caller's (not stated)"

    Attributes
    ----------
    scale : float
        ``sensitivity / epsilon`` rounded up to a multiple of 2^-10
        (:func:`dpcore.release_noise.discrete_laplace_scale`).
    variance : float
        ``2 q / (1 - q)^2`` with ``q = exp(-1 / scale)`` (close to ``2 scale^2`` when the scale is
        large).

    Examples
    --------
    >>> mech = DiscreteLaplace(epsilon=0.5, sensitivity=2)
    >>> mech.scale
    4.0
    >>> mech.release([10, 3]).dtype
    dtype('int64')
    >>> mech.randomise(np.zeros((2, 3), dtype=int), rng=0).shape
    (2, 3)

    References
    ----------
    .. [CKS20] Canonne, Kamath & Steinke (2020), *The discrete Gaussian for differential privacy*,
       NeurIPS, Sect. 2 and Algorithm 2.
    """

    def __init__(self, epsilon: float, sensitivity: float, *,
                 neighbouring: str = UNSTATED_RELATION) -> None:
        super().__init__(epsilon, 0.0, sensitivity, neighbouring=neighbouring)
        if self.sensitivity != math.floor(self.sensitivity):
            raise ValueError(f"sensitivity == {self.sensitivity:g}: the discrete Laplace "
                             "mechanism needs a whole-number L1 sensitivity.")

    @property
    def scale(self) -> float:
        return release_noise.discrete_laplace_scale(self.sensitivity, self.epsilon)

    @property
    def variance(self) -> float:
        q = math.exp(-1.0 / self.scale)
        return 2.0 * q / (1.0 - q) ** 2

    def _integers(self, value: Any) -> np.ndarray:
        arr = _check_value(value)
        if np.any(arr != np.rint(arr)):
            raise DataError("The discrete Laplace mechanism releases whole numbers (counts); "
                            "round them with a public rule first, or use Laplace.")
        return arr.astype(np.int64)

    def release(self, value: Any) -> np.ndarray:
        """Publish integer ``value`` with exact discrete Laplace noise from the OS's random
        bytes (:func:`dpcore.release_noise.release_discrete_laplace`).

        Parameters
        ----------
        value : int or array-like of int, any shape

        Returns
        -------
        ndarray of int64 of the shape of ``value``
        """
        return release_noise.release_discrete_laplace(self._integers(value), self.sensitivity,
                                                      self.epsilon)

    def randomise(self, value: Any, *, rng: Any) -> np.ndarray:
        """Simulate: the same law from numpy (a study): ``G1 - G2`` for two geometric
        variables with success probability ``1 - exp(-1 / scale)``.

        Parameters
        ----------
        value : int or array-like of int, any shape
        rng : int or numpy.random.Generator
            The study's seed or stream (required).

        Returns
        -------
        ndarray of int64 of the shape of ``value``
        """
        arr = self._integers(value)
        gen = _study_rng(rng)
        p = -math.expm1(-1.0 / self.scale)
        return arr + gen.geometric(p, size=arr.shape) - gen.geometric(p, size=arr.shape)


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(24)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _log_ndtr_increment(lower: float, gap: float) -> float:
    """``log Phi(lower + gap) - log Phi(lower)`` for ``gap > 0``, accurate also for a small gap.

    For a gap below 1 it integrates the inverse Mills ratio ``phi(t) / Phi(t)`` (smooth, of
    slope at most 1) by 24-point Gauss-Legendre quadrature, which avoids the cancellation of
    subtracting two nearly equal logarithms. The gap is passed as such because ``upper - lower``
    would lose its digits when both are large.
    """
    if gap >= 1.0:
        return float(special.log_ndtr(lower + gap) - special.log_ndtr(lower))
    t = lower + 0.5 * gap * (_GL_NODES + 1.0)
    mills = np.exp(-0.5 * t * t - _LOG_SQRT_2PI - special.log_ndtr(t))
    return float(0.5 * gap * np.dot(_GL_WEIGHTS, mills))


def _gaussian_log_delta(sigma: float, epsilon: float, sensitivity: float) -> float:
    """``log delta(sigma)`` of the Gaussian mechanism's exact privacy curve ([BW18]_ Theorem 8).

    ``delta(sigma) = Phi(x1) - exp(e) Phi(x2)`` with ``x1 = D/(2s) - e s/D`` and
    ``x2 = -D/(2s) - e s/D``, computed as ``log Phi(x1) + log(1 - exp(e - (log Phi(x1) -
    log Phi(x2))))`` so that it stays accurate when both terms are tiny (large epsilon) or close
    (large sigma, small epsilon).
    """
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    log_p1 = float(special.log_ndtr(a - b))
    log_ratio = epsilon - _log_ndtr_increment(-a - b, 2.0 * a)
    one_minus = -math.expm1(log_ratio)
    if one_minus <= 0.0:  # delta(sigma) below float resolution: smaller than any target
        return -math.inf
    return log_p1 + math.log(one_minus)


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """Smallest sigma for which Gaussian noise gives (epsilon, delta)-DP ([BW18]_ Algorithm 1).

    Solves ``Phi(D/(2 sigma) - epsilon sigma/D) - e^epsilon Phi(-D/(2 sigma) - epsilon sigma/D)
    = delta`` (D the L2 sensitivity; the left side decreases in sigma from 1 to 0) by Brent's
    method on ``log sigma`` in log-probability space. Valid for every epsilon > 0.

    Examples
    --------
    >>> round(analytic_gaussian_sigma(1.0, 1e-5, 1.0), 4)
    3.7306
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sensitivity = check_sensitivity(sensitivity)
    log_delta = math.log(delta)

    def gap(log_sigma: float) -> float:
        return _gaussian_log_delta(math.exp(log_sigma), epsilon, sensitivity) - log_delta

    # Bracket the root around the classic calibration, widening by factors of 2.
    start = math.log(sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon)
    lo = hi = start
    while gap(lo) <= 0.0:
        lo -= math.log(2.0)
    while gap(hi) > 0.0:
        hi += math.log(2.0)
    root = optimize.brentq(gap, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    # The root is accurate to ~1e-15 relative; the curve's own float error leaves delta(sigma)
    # within ~1e-9 of delta (relative; ~1e-13 for moderate parameters). A relative step of 1e-12
    # up puts sigma on the private side: delta(sigma) <= delta for every epsilon in [1e-6, 1e5]
    # and delta in [1e-300, 0.999] tried against 80-digit mpmath.
    return math.exp(root) * (1.0 + 1e-12)


class Gaussian(Mechanism):
    """The Gaussian mechanism: add i.i.d. Normal(0, sigma^2) noise; (epsilon, delta)-DP.

    For a value with L2 sensitivity ``sensitivity`` ([JLE14]_ Sect. 1.3, "variation of the
    Laplacian mechanism").

    Parameters
    ----------
    epsilon : float
        Privacy loss, > 0 (below 1 for ``calibration="classic"``).
    delta : float
        In (0, 1); keep it well below 1 / n_records.
    sensitivity : float
        L2 sensitivity: the largest ``||f(D) - f(D')||_2`` over neighbouring D, D', > 0.
    calibration : {"analytic", "classic"}, default="analytic"
        ``"analytic"``: the smallest sigma that gives (epsilon, delta)-DP, from the exact
        privacy curve ([BW18]_ Theorem 8, Algorithm 1); any epsilon > 0.
        ``"classic"``: ``sigma = sensitivity sqrt(2 ln(1.25/delta)) / epsilon``, proven only for
        epsilon < 1 ([DR14]_ Theorem A.1); always larger than the analytic sigma.
    neighbouring : str, default="the caller's (not stated)"
        The caller's neighbouring relation, for reports.

    Attributes
    ----------
    sigma : float
        Standard deviation of the noise per coordinate (also ``scale``).
    variance : float
        ``sigma**2``.

    Examples
    --------
    >>> mech = Gaussian(epsilon=0.5, delta=1e-5, sensitivity=1.0)
    >>> mech.sigma < Gaussian(0.5, 1e-5, 1.0, calibration="classic").sigma
    True
    >>> mech.sigma < mech.release_sigma()
    True
    """

    CALIBRATIONS = ("analytic", "classic")

    def __init__(
        self,
        epsilon: float,
        delta: float,
        sensitivity: float,
        calibration: str = "analytic",
        *,
        neighbouring: str = UNSTATED_RELATION,
    ) -> None:
        super().__init__(epsilon, check_delta(delta), sensitivity, neighbouring=neighbouring)
        if not isinstance(calibration, str):
            raise TypeError(
                f"calibration must be a str, got {type(calibration).__name__}. "
                f"Choose one of {self.CALIBRATIONS}."
            )
        if calibration not in self.CALIBRATIONS:
            raise ValueError(f"calibration == {calibration!r}, must be one of {self.CALIBRATIONS}.")
        self.calibration = calibration
        if calibration == "classic":
            if self.epsilon >= 1.0:
                raise ValueError(
                    f"epsilon == {self.epsilon:g}: the classic Gaussian calibration is proven "
                    "only for epsilon < 1 (Dwork & Roth, Theorem A.1). Use "
                    "calibration='analytic', which holds for every epsilon > 0."
                )
            self.sigma = (
                self.sensitivity * math.sqrt(2.0 * math.log(1.25 / self.delta)) / self.epsilon
            )
        else:
            self.sigma = analytic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity)

    @property
    def scale(self) -> float:
        return self.sigma

    @property
    def variance(self) -> float:
        return self.sigma**2

    def tail_bound(self, level: float) -> float:
        """The ``t`` with ``P(|noise| <= t) = level`` per coordinate: sigma ndtri((1+level)/2)."""
        return float(self.sigma * special.ndtri((1.0 + check_level(level)) / 2.0))

    @property
    def rho(self) -> float:
        """zCDP ``ρ = Δ² / (2σ²)`` ([BS16]_ Proposition 1.6) at the analytic σ of (epsilon,
        delta): a bound for both paths, computed from the noise and the sensitivity.

        The study path adds the analytic σ (ρ equal) or the larger classic one (ρ smaller).
        The release path adds OpenDP's discrete Gaussian at :meth:`release_sigma`, whose ρ
        (OpenDP's own map, rounding included) is smaller again: OpenDP converts ρ to (ε, δ) by
        a zCDP bound, which no ρ-zCDP mechanism beats, and the continuous Gaussian of this ρ
        is the one that meets (ε, δ) exactly ([BW18]_), so a release calibrated to (ε, δ) has
        at most this ρ (6 % to 57 % less over ε in [0.01, 20], δ in [1e-12, 0.3]; tested).

        >>> round(Gaussian(1.0, 1e-5, 1.0).rho, 5)
        0.03593
        """
        sigma = (self.sigma if self.calibration == "analytic"
                 else analytic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity))
        return self.sensitivity**2 / (2.0 * sigma**2)

    def release_sigma(self, size: int = 1) -> float:
        """σ of the release path for a vector of ``size`` numbers: the smallest σ at which
        OpenDP's discrete Gaussian is (epsilon, delta)-DP by its zCDP conversion
        (:func:`dpcore.release_noise.gaussian_sigma`). It is larger than :attr:`sigma`, the
        analytic calibration of the continuous Gaussian that the studies use (about 8 % at
        ε = 1, δ = 1e-5)."""
        return release_noise.gaussian_sigma(self.sensitivity, self.epsilon, self.delta, size)

    def release(self, value: Any) -> float | np.ndarray:
        """Publish ``value`` with Gaussian noise, safe on floating point (OpenDP, OS entropy).

        Each element gets independent discrete Gaussian noise of scale :meth:`release_sigma` on
        a 2^-60 grid; ``value`` as a whole has L2 sensitivity ``sensitivity``.

        Parameters
        ----------
        value : float or array-like of any shape
            Finite numbers.

        Returns
        -------
        float or ndarray of the same shape as ``value``
        """
        arr = _check_value(value)
        sigma = self.release_sigma(max(arr.size, 1))
        return _shaped(arr, release_noise.release_gaussian(arr, sigma))

    def randomise(self, value: Any, *, rng: Any) -> float | np.ndarray:
        """Simulate: add independent Normal(0, sigma^2) noise to every element (a study).

        Parameters
        ----------
        value : float or array-like of any shape
            Finite numbers.
        rng : int or numpy.random.Generator
            The study's seed or stream (required).

        Returns
        -------
        float or ndarray of the same shape as ``value``
        """
        return _add_elementwise(value, sample_gaussian, self.sigma, rng=rng)

    def _repr_args(self) -> list[str]:
        args = [f"epsilon={self.epsilon!r}", f"delta={self.delta!r}"]
        args.append(f"sensitivity={self.sensitivity!r}")
        if self.calibration != "analytic":
            args.append(f"calibration={self.calibration!r}")
        return args


class L2Laplace(Mechanism):
    """The vector ("high-dimensional") Laplace mechanism for an L2 sensitivity; epsilon-DP.

    The papers' mechanism adds a vector with density proportional to
    ``exp(-epsilon ||x||_2 / sensitivity)``: its norm is Gamma(dim, scale) and its direction
    uniform on the unit sphere ([CM08]_ Algorithm 1 step 2; [JE13]_ Algorithm 1 step 2; [JLE14]_
    Sect. 1.3 with the L2 norm). Studies draw it (:meth:`randomise`, by
    :func:`dpcore.noise.sample_l2_laplace`).

    :meth:`release` draws the same law, float-safe: the vector is ``N(0, V I)`` with a random
    variance ``V ~ Gamma((dim + 1) / 2, scale 2 release_scale**2)``, and given ``V`` OpenDP adds
    its exact discrete Gaussian on the 2^-60 grid
    (:func:`dpcore.release_noise.release_l2_laplace`, whose docstring has the privacy
    argument). Its scale :attr:`release_scale` covers OpenDP's rounding of the input to the
    grid, a relative ``sqrt(dim) 2^-60 / sensitivity`` above :attr:`scale`.

    Parameters
    ----------
    epsilon : float
        Privacy loss, > 0.
    sensitivity : float
        L2 sensitivity of the released vector, > 0.
    dim : int
        Length of the vector, >= 1.
    neighbouring : str, default="the caller's (not stated)"
        The caller's neighbouring relation, for reports.

    Attributes
    ----------
    scale : float
        ``sensitivity / epsilon``.
    variance : float
        ``(dim + 1) scale**2`` per coordinate ([JE13]_ Lemma 7, proof).
    expected_norm : float
        ``dim * scale``.
    release_scale : float
        The scale of a release's law (:func:`dpcore.release_noise.l2_laplace_scale`).

    Examples
    --------
    >>> mech = L2Laplace(epsilon=1.0, sensitivity=0.1, dim=3)
    >>> round(mech.expected_norm, 10), round(mech.variance, 10)
    (0.3, 0.04)
    >>> mech.randomise(np.zeros((5, 3)), rng=0).shape
    (5, 3)
    >>> round(mech.release_scale / mech.scale, 9)
    1.0
    >>> mech.release(np.zeros(3)).shape
    (3,)
    """

    def __init__(
        self,
        epsilon: float,
        sensitivity: float,
        dim: int,
        *,
        neighbouring: str = UNSTATED_RELATION,
    ) -> None:
        super().__init__(epsilon, 0.0, sensitivity, neighbouring=neighbouring)
        self.dim = check_int(dim, "dim", min_val=1,
                             advice="dim is the length of each noisy vector.")

    @property
    def scale(self) -> float:
        return self.sensitivity / self.epsilon

    @property
    def variance(self) -> float:
        return (self.dim + 1) * self.scale**2

    @property
    def expected_norm(self) -> float:
        return self.dim * self.scale

    @property
    def release_scale(self) -> float:
        return release_noise.l2_laplace_scale(self.sensitivity, self.epsilon, self.dim)

    def tail_bound(self, level: float) -> float:
        """The radius ``t`` with ``P(||noise||_2 <= t) = level``: a Gamma(dim, scale) quantile."""
        return float(self.scale * special.gammaincinv(self.dim, check_level(level)))

    def _rows(self, value: Any) -> np.ndarray:
        arr = _check_value(value)
        if arr.ndim == 0 or arr.shape[-1] != self.dim:
            raise DataError(
                f"Expected value of shape (..., {self.dim}) (the mechanism's dim), got shape "
                f"{arr.shape}. Build the mechanism with dim={arr.shape[-1] if arr.ndim else 1} "
                "or pass one vector per row."
            )
        return arr

    def release(self, value: Any) -> np.ndarray:
        """Publish each row of ``value``: L2-Laplace noise of scale :attr:`release_scale`,
        float-safe (class docstring), epsilon-DP per row for an L2 sensitivity ``sensitivity``.

        Parameters
        ----------
        value : array-like of shape (..., dim)
            Finite numbers; a leading axis holds independent releases.

        Returns
        -------
        ndarray of shape (..., dim)
        """
        arr = self._rows(value)
        return release_noise.release_l2_laplace(arr, self.sensitivity, self.epsilon)

    def randomise(self, value: Any, *, rng: Any, law: str = "paper") -> np.ndarray:
        """Simulate: add an independent noise vector to each row of ``value`` (a study).

        Parameters
        ----------
        value : array-like of shape (..., dim)
            Finite numbers; every leading axis is a batch axis.
        rng : int or numpy.random.Generator
            The study's seed or stream (required).
        law : {"paper", "release"}, default="paper"
            ``"paper"``: the L2-Laplace of :attr:`scale` as the papers draw it (norm
            Gamma(dim, scale), uniform direction); ``"release"``: the construction of
            :meth:`release` at :attr:`release_scale`, a Gamma variance
            (:func:`dpcore.release_noise.l2_laplace_variances`) times a standard normal vector
            (numpy's, where the release uses OpenDP's lattice Gaussian). The two laws are one
            up to the grid term of :attr:`release_scale`.

        Returns
        -------
        ndarray of shape (..., dim)
        """
        arr = self._rows(value)
        if law not in ("paper", "release"):
            raise ValueError(f"law == {law!r}, must be 'paper' or 'release'.")
        gen = _study_rng(rng)
        if law == "release":
            rows = math.prod(arr.shape[:-1])
            variances = release_noise.l2_laplace_variances(rows, self.dim, self.release_scale,
                                                           gen)
            sd = np.sqrt(variances).reshape(*arr.shape[:-1], 1)
            return arr + sd * gen.standard_normal(arr.shape)
        return arr + sample_l2_laplace(self.dim, self.scale, size=arr.shape[:-1], rng=gen)

    def _repr_args(self) -> list[str]:
        return [*super()._repr_args(), f"dim={self.dim}"]


class Exponential(Mechanism):
    """The exponential mechanism: select index i with probability ∝ exp(epsilon u_i / (2 D)).

    ``u`` are utilities (higher is better) and ``D`` their sensitivity, the largest change of
    any one utility between neighbouring datasets; epsilon-DP ([JLE14]_ Sect. 1.4, Definition 6;
    [MT07]_ Theorem 6; [DR14]_ Theorem 3.10). When every utility moves in the same direction
    between neighbours (``monotonic=True``), ``exp(epsilon u_i / D)`` suffices ([MT07]_).

    Parameters
    ----------
    epsilon : float
        Privacy loss, > 0.
    sensitivity : float
        Sensitivity of the utilities, > 0.
    monotonic : bool, default=False
        Whether the utilities are monotonic in the data (halves the noise).
    neighbouring : str, default="the caller's (not stated)"
        The caller's neighbouring relation, for reports.

    Attributes
    ----------
    scale : float
        The temperature: ``2 sensitivity / epsilon`` (``sensitivity / epsilon`` if monotonic);
        ``P(i) ∝ exp(u_i / scale)``.
    variance : None
        Not defined: the output is an index, not a noisy value.

    Examples
    --------
    >>> mech = Exponential(epsilon=2.0, sensitivity=1.0)
    >>> mech.probabilities([0.0, 0.0]).tolist()
    [0.5, 0.5]
    >>> mech.randomise(np.zeros((4, 3)), rng=0).shape
    (4,)
    >>> mech.release([0.0, 50.0])
    1
    """

    def __init__(
        self,
        epsilon: float,
        sensitivity: float,
        monotonic: bool = False,
        *,
        neighbouring: str = UNSTATED_RELATION,
    ) -> None:
        super().__init__(epsilon, 0.0, sensitivity, neighbouring=neighbouring)
        if not isinstance(monotonic, (bool, np.bool_)):
            raise TypeError(f"monotonic must be True or False, got {monotonic!r}.")
        self.monotonic = bool(monotonic)

    @property
    def scale(self) -> float:
        factor = 1.0 if self.monotonic else 2.0
        return factor * self.sensitivity / self.epsilon

    @property
    def variance(self) -> None:
        """Not defined for a selection mechanism: ``None``."""
        return None

    def _utilities(self, utilities: Any) -> np.ndarray:
        arr = _check_value(utilities, "utilities")
        if arr.ndim == 0 or arr.shape[-1] < 1:
            raise DataError(
                f"Expected utilities of shape (..., k) with k >= 1 candidates on the last axis, "
                f"got shape {arr.shape}."
            )
        return arr

    def _weights(self, arr: np.ndarray) -> np.ndarray:
        # Stable softmax: the best candidate of each row gets weight 1.
        return np.exp((arr - arr.max(axis=-1, keepdims=True)) / self.scale)

    def probabilities(self, utilities: Any) -> np.ndarray:
        """Selection probabilities, a softmax of ``utilities / scale`` along the last axis.

        Parameters
        ----------
        utilities : array-like of shape (..., k)

        Returns
        -------
        ndarray of shape (..., k)
        """
        w = self._weights(self._utilities(utilities))
        return w / w.sum(axis=-1, keepdims=True)

    def release(self, value: Any) -> int | np.ndarray:
        """Publish one index per row of utilities, drawn exactly by OpenDP's report-noisy-max
        with Gumbel noise of scale :attr:`scale` (the exponential mechanism's law; fresh OS
        entropy). An index has no low-order bits to leak.

        Parameters
        ----------
        value : array-like of shape (..., k)
            Utilities; a leading axis holds independent releases.

        Returns
        -------
        int or ndarray of int of shape (...)
        """
        arr = self._utilities(value)
        rows = arr.reshape(-1, arr.shape[-1])
        index = np.array([release_noise.release_noisy_max(row, self.scale) for row in rows])
        return int(index[0]) if arr.ndim == 1 else index.reshape(arr.shape[:-1])

    def randomise(self, value: Any, *, rng: Any) -> int | np.ndarray:
        """Simulate: select one index per row of utilities (inverse CDF, one uniform per row).

        Parameters
        ----------
        value : array-like of shape (..., k)
            Utilities; every leading axis is a batch axis.
        rng : int or numpy.random.Generator
            The study's seed or stream (required).

        Returns
        -------
        int or ndarray of int of shape (...)
        """
        arr = self._utilities(value)
        gen = _study_rng(rng)
        cdf = np.cumsum(self._weights(arr), axis=-1)
        total = cdf[..., -1]
        # target < total strictly, so the index is valid and a zero-weight candidate is never hit
        target = np.minimum(gen.random(arr.shape[:-1]) * total, np.nextafter(total, 0.0))
        index = np.sum(cdf <= target[..., None], axis=-1)
        return int(index) if index.ndim == 0 else index

    def _repr_args(self) -> list[str]:
        args = super()._repr_args()
        if self.monotonic:
            args.append("monotonic=True")
        return args
