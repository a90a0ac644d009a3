"""Differential-privacy mechanisms: one mechanism, one small class.

Each class is built from its privacy parameters (checked by small ``_check_*`` helpers that return
the converted value), and ``randomise(value, *, rng=None)`` adds noise to (or, for the exponential
mechanism, selects from) ``value``, vectorised over leading batch axes so that one call draws the
noise for every replicate. ``variance`` and ``tail_bound`` are closed forms.

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
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import optimize, special

from dpcore.noise import sample_gaussian, sample_l2_laplace, sample_laplace
from dpcore.validation import (
    DataError,
    check_array,
    check_probability,
    check_random_state,
    check_scalar,
)

__all__ = [
    "Mechanism",
    "Laplace",
    "Gaussian",
    "L2Laplace",
    "Exponential",
    "analytic_gaussian_sigma",
]

UNSTATED_RELATION = "the caller's (not stated)"


# --------------------------------------------------------------------------------------------
# Parameter checks: each returns the converted value or raises with what to do.


def _check_epsilon(epsilon: Any) -> float:
    epsilon = check_scalar(epsilon, "epsilon")  # TypeError for non-numbers and bools; finite
    if epsilon <= 0.0:
        raise ValueError(
            f"epsilon == {epsilon:g}, must be > 0 (a smaller epsilon means more privacy and "
            "more noise). Pass e.g. epsilon=1.0."
        )
    return epsilon


def _check_sensitivity(sensitivity: Any) -> float:
    sensitivity = check_scalar(sensitivity, "sensitivity")
    if sensitivity <= 0.0:
        raise ValueError(
            f"sensitivity == {sensitivity:g}, must be > 0: the largest change of the released "
            "value between neighbouring datasets. A value that cannot change needs no noise; "
            "release it without a mechanism."
        )
    return sensitivity


def _check_delta(delta: Any) -> float:
    delta = check_scalar(delta, "delta")
    if not 0.0 < delta < 1.0:
        raise ValueError(
            f"delta == {delta:g}, must be in (0, 1) and in practice much smaller than "
            "1/n_records (e.g. delta=1e-6). For delta = 0 use a pure epsilon-DP mechanism "
            "(Laplace)."
        )
    return delta


def _check_dim(dim: Any) -> int:
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"dim must be an int, got {type(dim).__name__} ({dim!r}).")
    if dim < 1:
        raise ValueError(f"dim == {dim}, must be >= 1 (the length of each noisy vector).")
    return int(dim)


def _check_level(level: Any) -> float:
    return check_probability(
        level, "level", "the probability that the noise stays within the bound (e.g. level=0.95)."
    )


def _check_neighbouring(neighbouring: Any) -> str:
    if not isinstance(neighbouring, str):
        raise TypeError(
            f"neighbouring must be a str describing the neighbouring relation, got "
            f"{type(neighbouring).__name__}. Pass e.g. neighbouring='replace one record'."
        )
    return neighbouring


def _check_value(value: Any, name: str = "value") -> np.ndarray:
    """A finite float array (any shape); bad data raises :class:`DataError`."""
    return check_array(value, name, ndim=None, min_rows=0,
                       fix="A mechanism can only release finite numbers: drop, impute or clip "
                           "them (with data-independent bounds) first.")


# --------------------------------------------------------------------------------------------


def _add_elementwise(
    value: Any, sample: Callable[..., Any], scale: float, *, rng: Any
) -> float | np.ndarray:
    """``value`` plus independent noise ``sample(scale, size=..., rng=...)`` on every element.

    The noise of :class:`Laplace` and :class:`Gaussian`; a scalar ``value`` gives a float.
    """
    arr = _check_value(value)
    gen = check_random_state(rng)
    if arr.ndim == 0:
        return float(arr) + sample(scale, rng=gen)
    return arr + sample(scale, size=arr.shape, rng=gen)


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
        self.epsilon = _check_epsilon(epsilon)
        self.delta = float(delta)
        self.sensitivity = _check_sensitivity(sensitivity)
        self.neighbouring = _check_neighbouring(neighbouring)

    @property
    def scale(self) -> float:
        raise NotImplementedError

    @property
    def variance(self) -> float | None:
        """Variance of the noise added to each coordinate."""
        raise NotImplementedError

    def randomise(self, value: Any, *, rng: Any = None) -> Any:
        """Release ``value`` through the mechanism."""
        raise NotImplementedError

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
        return -self.scale * math.log1p(-_check_level(level))

    def randomise(self, value: Any, *, rng: Any = None) -> float | np.ndarray:
        """Add independent Laplace noise to every element of ``value``.

        Parameters
        ----------
        value : float or array-like of any shape
            Finite numbers.
        rng : None, int or numpy.random.Generator, default=None
            None (fresh OS entropy) for a release; a seed or Generator for a study.

        Returns
        -------
        float or ndarray of the same shape as ``value``
        """
        return _add_elementwise(value, sample_laplace, self.scale, rng=rng)


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
    epsilon = _check_epsilon(epsilon)
    delta = _check_delta(delta)
    sensitivity = _check_sensitivity(sensitivity)
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
        super().__init__(epsilon, _check_delta(delta), sensitivity, neighbouring=neighbouring)
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
        return float(self.sigma * special.ndtri((1.0 + _check_level(level)) / 2.0))

    def randomise(self, value: Any, *, rng: Any = None) -> float | np.ndarray:
        """Add independent Normal(0, sigma^2) noise to every element of ``value``.

        Parameters
        ----------
        value : float or array-like of any shape
            Finite numbers.
        rng : None, int or numpy.random.Generator, default=None

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

    Adds a vector with density proportional to ``exp(-epsilon ||x||_2 / sensitivity)``: its norm
    is Gamma(dim, scale) and its direction uniform on the unit sphere ([CM08]_ Algorithm 1 step 2;
    [JE13]_ Algorithm 1 step 2; [JLE14]_ Sect. 1.3 with the L2 norm). Drawn by
    :func:`dpcore.noise.sample_l2_laplace`.

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

    Examples
    --------
    >>> mech = L2Laplace(epsilon=1.0, sensitivity=0.1, dim=3)
    >>> round(mech.expected_norm, 10), round(mech.variance, 10)
    (0.3, 0.04)
    >>> mech.randomise(np.zeros((5, 3)), rng=0).shape
    (5, 3)
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
        self.dim = _check_dim(dim)

    @property
    def scale(self) -> float:
        return self.sensitivity / self.epsilon

    @property
    def variance(self) -> float:
        return (self.dim + 1) * self.scale**2

    @property
    def expected_norm(self) -> float:
        return self.dim * self.scale

    def tail_bound(self, level: float) -> float:
        """The radius ``t`` with ``P(||noise||_2 <= t) = level``: a Gamma(dim, scale) quantile."""
        return float(self.scale * special.gammaincinv(self.dim, _check_level(level)))

    def randomise(self, value: Any, *, rng: Any = None) -> np.ndarray:
        """Add an independent noise vector to each row of ``value``.

        Parameters
        ----------
        value : array-like of shape (..., dim)
            Finite numbers; every leading axis is a batch axis.
        rng : None, int or numpy.random.Generator, default=None

        Returns
        -------
        ndarray of shape (..., dim)
        """
        arr = _check_value(value)
        if arr.ndim == 0 or arr.shape[-1] != self.dim:
            raise DataError(
                f"Expected value of shape (..., {self.dim}) (the mechanism's dim), got shape "
                f"{arr.shape}. Build the mechanism with dim={arr.shape[-1] if arr.ndim else 1} "
                "or pass one vector per row."
            )
        noise = sample_l2_laplace(self.dim, self.scale, size=arr.shape[:-1], rng=rng)
        return arr + noise

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

    def randomise(self, value: Any, *, rng: Any = None) -> int | np.ndarray:
        """Select one index per row of utilities (inverse CDF, one uniform per row).

        Parameters
        ----------
        value : array-like of shape (..., k)
            Utilities; every leading axis is a batch axis.
        rng : None, int or numpy.random.Generator, default=None

        Returns
        -------
        int or ndarray of int of shape (...)
        """
        arr = self._utilities(value)
        gen = check_random_state(rng)
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
