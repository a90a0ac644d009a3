"""The floating-point attack: can one output's low-order bits tell neighbouring datasets apart?

A release publishes a double. If the set of doubles a sampler can output depends on the exact
answer, one output can reveal the answer with certainty, however right the noise law is
([Mir12]_). Drawing Laplace noise as a double and adding it, ``fl(truth + s log(2U))`` (numpy's
sampler), has that defect: the doubles reachable from a count of 0 are not those reachable from a
count of 1. This module attacks every release mechanism of the product with two tests on a
neighbouring pair of exact answers (``truth_d``, ``truth_dprime``), each run many times:

* **reachability**, exact: "could the sampler have produced this output from D's answer?"
  (:func:`reachable_numpy_laplace` for numpy's Laplace, :func:`reachable_release` for the
  release's OpenDP sampler). An output of D' that D cannot produce identifies D' with certainty.
* **granularity**, simpler: the number of trailing zero bits of each output's significand
  (:func:`trailing_zero_bits`), summed over the coordinates. ``fl(1 + n)`` for a small ``n`` sits
  on the coarser grid of the doubles near 1, so its low bits are zeros more often than those of
  ``fl(0 + n) = n``.

Each test reduces a run to one score and :func:`dpcore.audit.audit_scores` turns the scores on D
and on D' into a lower bound on ε (threshold chosen on half the runs, Clopper-Pearson bounds on
the other half, [JUO20]_). A bound above the claimed ε refutes the claim. The product's releases
draw their noise through :mod:`dpcore.release_noise`, whose reachable set does not depend on the
answer (:func:`reachable_release`), so both tests must find nothing there; numpy's sampler is
kept as rows that are **broken on purpose**, which the reachability test must catch.

:func:`float_cases` builds the catalogue (every release mechanism of the product on a hard pair,
plus the broken rows) and :func:`float_audit` runs one case. ``python -m dpcore.audit_float``
prints the table of ``docs/float-audit.md``.

References
----------
.. [Mir12] Mironov (2012), *On significance of the least significant bits for differential
   privacy*, ACM CCS, Sect. 3-4 (the attack on ``fl(truth + noise)``) and Sect. 5 (the snapping
   mechanism).
.. [CKS20] Canonne, Kamath & Steinke (2020), *The discrete Gaussian for differential privacy*,
   NeurIPS, Sect. 5 (exact samplers of the discrete Laplace and Gaussian).
.. [JUO20] Jagielski, Ullman & Oprea (2020), *Auditing differentially private machine learning:
   how private is private SGD?*, NeurIPS, Algorithm 2.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from typing import Any

import numpy as np

from dpcore.audit import audit_ceiling, audit_scores, check_runs, importance_pair, logistic_pair
from dpcore.importance import release_sensitivity
from dpcore.masking import fit_logistic_model, input_perturbation, lipschitz_constant
from dpcore.masking import scale_records as mask_scale
from dpcore.masking.generator import GAP_TOL
from dpcore.mechanisms import DiscreteLaplace, Gaussian, L2Laplace, Laplace
from dpcore.perturbation import perturb_output, prepare
from dpcore.perturbation.amp import amp_coefs
from dpcore.perturbation.model import TOL, nonprivate_coef
from dpcore.release_noise import GRID_EXPONENT
from dpcore.subset.selection import criterion_sensitivity
from dpcore.validation import check_random_state, check_scalar

__all__ = [
    "BROKEN_FLOAT_KEYS",
    "FLOAT_KEYS",
    "FLOAT_RUNS",
    "FloatAuditResult",
    "FloatCase",
    "float_audit",
    "float_case",
    "float_cases",
    "markdown_table",
    "model_matches_numpy",
    "reachable_integer",
    "reachable_numpy_laplace",
    "reachable_release",
    "trailing_zero_bits",
]

#: Runs per dataset of the acceptance audit (and the default).
FLOAT_RUNS = 20_000

_SIGNIFICAND_BITS = 52  # stored bits; the significand of a normal double has 53
_FRACTION_MASK = np.uint64((1 << _SIGNIFICAND_BITS) - 1)
_HIDDEN_BIT = np.uint64(1 << _SIGNIFICAND_BITS)
_K_MAX = (1 << 53) - 1  # numpy's uniform is k 2^-53, k in [1, 2^53 - 1] (k = 0 is redrawn)
#: Magnitude from which every double is a multiple of the release grid 2^GRID_EXPONENT.
_ALL_ON_GRID = math.ldexp(1.0, GRID_EXPONENT + _SIGNIFICAND_BITS)  # 2^-8


# --------------------------------------------------------------------------------------------
# The statistics
# --------------------------------------------------------------------------------------------
def trailing_zero_bits(y: Any) -> np.ndarray:
    """Number of trailing zero bits of the 53-bit significand of each double ([Mir12]_).

    A normal double is ``m 2^(e-52)`` with an integer significand ``2^52 <= m < 2^53``; a
    subnormal has ``m < 2^52`` (no hidden bit). The count is that of ``m``: 52 for a power of
    two, 0 for an odd ``m``, and 53 for zero (all bits zero).

    Parameters
    ----------
    y : array-like of float
        Finite numbers.

    Returns
    -------
    ndarray of int64, the shape of ``y``

    Examples
    --------
    >>> trailing_zero_bits([1.0, 3.0, 0.1, 1.0 + 2.0**-52, 0.0]).tolist()
    [52, 51, 1, 0, 53]
    """
    arr = np.ascontiguousarray(y, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError("trailing_zero_bits expects finite numbers; got NaN or infinity. "
                         "Drop them first.")
    bits = arr.view(np.uint64)
    exponent = (bits >> np.uint64(_SIGNIFICAND_BITS)) & np.uint64(0x7FF)
    fraction = bits & _FRACTION_MASK
    significand = np.where(exponent > 0, fraction | _HIDDEN_BIT, fraction)
    lowest = significand & (~significand + np.uint64(1))  # the lowest set bit, a power of two
    count = np.frexp(lowest.astype(np.float64))[1] - 1  # exact: lowest <= 2^52
    return np.where(significand == 0, 53, count).astype(np.int64)


def _c_log(x: np.ndarray) -> np.ndarray:
    """The C library's ``log`` of each element, as numpy's sampler computes it.

    numpy's sampler (``random_laplace`` in ``distributions.c``) calls the C library's ``log``,
    and so does :func:`math.log`; ``np.log`` does not: with AVX-512 numpy 2.x evaluates its own
    vectorised ``log``, which differs from the C library's in the last bit or two on about 0.3 %
    of arguments. An exact model of the sampler must call the same function, element by element
    (about 0.2 s per million).
    """
    return np.frompyfunc(math.log, 1, 1)(x).astype(np.float64)


def _numpy_laplace_output(truth: np.ndarray, k: np.ndarray, scale: float) -> np.ndarray:
    """``fl(truth + noise)`` for numpy's Laplace noise drawn from the uniform ``U = k 2^-53``.

    numpy's ``Generator.laplace(0, scale)`` computes ``0 + scale * log(U + U)`` for ``U < 1/2``
    and ``0 - scale * log((2 - U) - U)`` otherwise, each operation rounded to a double, with the
    C library's ``log`` (numpy's ``random_laplace`` in ``distributions.c``; :func:`_c_log` calls
    the same function, and :func:`model_matches_numpy` checks the whole model bit for bit against
    numpy's own draws). ``U = (next_uint64 >> 11) 2^-53`` is ``k 2^-53`` exactly.
    """
    u = k.astype(np.float64) * 2.0**-53  # exact: k < 2^53
    low = u < 0.5
    logs = _c_log(np.where(low, u + u, (2.0 - u) - u))  # both arguments > 0 for k >= 1
    noise = np.where(low, 0.0 + scale * logs, 0.0 - scale * logs)
    return truth + noise


def model_matches_numpy(scale: float = 1.0, size: int = 100_000, seed: int = 5) -> int:
    """How many of ``size`` draws of numpy's ``Generator.laplace(0, scale)`` the exact model
    (:func:`_numpy_laplace_output`) does **not** reproduce bit for bit: 0 on every CPU while
    numpy's sampler is the one modelled.

    Both start from ``PCG64(seed)``: the model takes ``k = next_uint64 >> 11`` per draw (numpy
    redraws ``k = 0``, of probability 2^-53 per draw, which the seeds used do not meet).
    A count above 0 means numpy changed its sampler (or its ``log``) and the reachability
    predicate :func:`reachable_numpy_laplace` is no longer exact.

    >>> model_matches_numpy(size=1000)
    0
    """
    draws = np.random.Generator(np.random.PCG64(seed)).laplace(0.0, scale, size)
    k = (np.random.PCG64(seed).random_raw(size) >> np.uint64(11)).astype(np.int64)
    if k.min() == 0:
        raise ValueError(f"seed {seed} draws k = 0, which numpy redraws; choose another seed.")
    model = _numpy_laplace_output(np.zeros(size), k, scale)
    return int(np.count_nonzero(model.view(np.uint64) != draws.view(np.uint64)))


def reachable_numpy_laplace(y: Any, truth: Any, scale: float) -> np.ndarray:
    """Exactly whether ``truth + numpy.random.Generator.laplace(0, scale)`` can equal ``y``.

    The output is ``fl(truth + noise(k))`` for an integer ``k`` in ``[1, 2^53 - 1]`` (the
    uniform ``U = k 2^-53``, :func:`_numpy_laplace_output`). Every step of ``k -> noise(k)`` is
    monotone (the C library's ``log`` and each rounded operation are non-decreasing in their
    argument; the two branches meet at ``U = 1/2``, where the noise goes from just below 0 to
    0), and so is adding ``truth`` and rounding; hence a binary search over ``k``, about 53
    vectorised steps for all outputs at once, finds the smallest ``k`` whose output is
    ``>= y``, and ``y`` is reachable iff that output (or one of its two neighbours on either
    side: each is a draw the sampler can make, so they add no false alarm, and they cover a
    ``log`` that is not monotone in its last bit) equals ``y``. The model is exact only with the
    function numpy's sampler calls (:func:`_c_log`); :func:`model_matches_numpy` checks it.

    Parameters
    ----------
    y : array-like of float
        Outputs.
    truth : float or array-like broadcastable to ``y``
        The exact answer(s) the outputs are tested against.
    scale : float
        The Laplace scale, > 0.

    Returns
    -------
    ndarray of bool, the shape of ``y``

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> out = 1.0 + gen.laplace(0.0, 1.0, size=1000)
    >>> bool(reachable_numpy_laplace(out, 1.0, 1.0).all())
    True
    >>> float(reachable_numpy_laplace(out, 0.0, 1.0).mean()) < 0.3  # from a count of 0: rarely
    True
    """
    scale = check_scalar(scale, "scale", min_val=0.0)
    out = np.asarray(y, dtype=np.float64)
    target = out.ravel()
    origin = np.broadcast_to(np.asarray(truth, dtype=np.float64), out.shape).ravel()
    lo = _first_above(origin, target, scale)
    hit = np.zeros(target.size, dtype=bool)
    for offset in (-2, -1, 0, 1, 2):
        k = np.clip(lo + offset, 1, _K_MAX)
        hit |= _numpy_laplace_output(origin, k, scale) == target
    return (hit & np.isfinite(target)).reshape(out.shape)


def _first_above(origin: np.ndarray, target: np.ndarray, scale: float) -> np.ndarray:
    """Elementwise the smallest ``k`` in ``[1, 2^53 - 1]`` whose output is ``>= target``
    (``2^53 - 1`` where none is), by bisection on the elements still open (the output is
    monotone in ``k``)."""
    lo = np.ones(target.size, dtype=np.int64)
    hi = np.full(target.size, _K_MAX, dtype=np.int64)
    open_ = np.flatnonzero(lo < hi)
    while open_.size:
        mid = (lo[open_] + hi[open_]) // 2
        above = _numpy_laplace_output(origin[open_], mid, scale) >= target[open_]
        hi[open_] = np.where(above, mid, hi[open_])
        lo[open_] = np.where(above, lo[open_], mid + 1)
        open_ = open_[lo[open_] < hi[open_]]
    return lo


def reachable_integer(y: Any, truth: Any = None) -> np.ndarray:
    """Exactly whether the discrete Laplace release of an integer count can output ``y``: every
    integer is ``truth + z`` for one integer ``z``, and the law of ``z`` gives every integer a
    positive probability, so the reachable outputs are the integers, whatever the count.

    >>> reachable_integer([3.0, -2.0, 0.5]).tolist()
    [True, True, False]
    """
    del truth
    out = np.asarray(y, dtype=np.float64)
    return np.isfinite(out) & (out == np.rint(out))


def reachable_release(y: Any, truth: Any = None) -> np.ndarray:
    """Exactly whether OpenDP's float sampler, as :mod:`dpcore.release_noise` uses it, can
    output ``y``; the answer does not depend on ``truth``.

    Derivation. With ``k = GRID_EXPONENT = -60`` the sampler rounds the answer to the grid,
    ``t = round(truth 2^60) 2^-60``, adds ``z 2^-60`` for an integer ``z`` drawn exactly from
    the discrete Laplace (or Gaussian, of any variance: the L2-Laplace's mixture draws one per
    vector) law, whose support is all of the integers, and rounds the exact sum
    ``(round(truth 2^60) + z) 2^-60`` to a double ([CKS20]_; OpenDP's
    ``make_laplace``/``make_gaussian`` with ``k``). So an output is the rounding of *some*
    multiple of ``2^-60``, and every multiple is the exact sum for one ``z``:

    * a finite double of magnitude ``>= 2^-8`` has an ulp ``2^(e-52) >= 2^-60``, so it *is* a
      multiple of ``2^-60``: the exact sum equal to it rounds to itself, and it is reachable;
    * below ``2^-8`` every multiple of ``2^-60`` is itself a double (its integer multiplier has
      fewer than 53 bits), so it rounds to itself: exactly the multiples of ``2^-60`` are
      reachable there.

    Hence the reachable doubles are the finite multiples of ``2^-60``, whatever the answer (and
    whatever the rounding direction): an output can never rule out one answer in favour of its
    neighbour, and the reachability test has nothing to see. ``truth`` is accepted for the
    signature of :func:`reachable_numpy_laplace` and ignored.

    Parameters
    ----------
    y : array-like of float
        Outputs.
    truth : ignored
        The set is the same for every answer.

    Returns
    -------
    ndarray of bool, the shape of ``y``

    Examples
    --------
    >>> reachable_release([0.1, 2.0**-60, 3 * 2.0**-61, 2.0**-70, 0.0]).tolist()
    [True, True, False, False, True]
    """
    del truth
    out = np.asarray(y, dtype=np.float64)
    small = np.abs(out) < _ALL_ON_GRID
    scaled = np.ldexp(np.where(small, out, 0.0), -GRID_EXPONENT)  # exact: scaled up, no overflow
    return np.isfinite(out) & (~small | (scaled == np.floor(scaled)))


# --------------------------------------------------------------------------------------------
# The cases
# --------------------------------------------------------------------------------------------
Release = Callable[[np.ndarray, np.random.Generator], np.ndarray]
Reachable = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class FloatCase:
    """One release mechanism on a neighbouring pair of exact answers.

    Attributes
    ----------
    key, name : str
        Identifier and the mechanism as the product names it.
    epsilon, delta : float
        What the release claims.
    truth_d, truth_dprime : ndarray of shape (d,)
        The exact answers on D and on D'.
    release : callable or None
        ``release(values, gen)``: the product's release function applied to ``values`` of shape
        ``(runs, d)``, one independent release per row (``gen`` is used only by the broken rows;
        OpenDP's sampler takes fresh OS entropy). None for an index output.
    reachable : callable or None
        ``reachable(outputs, truth)``: the sampler's exact reachability predicate, elementwise.
    sampler, pair : str
        How the noise is drawn; how the pair was built.
    broken : bool
        A deliberate fault ("broken on purpose"): numpy's sampler, which is not safe on floats.
    note : str
        What a reader should know (e.g. why an index has no float test).
    """

    key: str
    name: str
    epsilon: float
    delta: float
    truth_d: np.ndarray = field(repr=False, compare=False)
    truth_dprime: np.ndarray = field(repr=False, compare=False)
    release: Release | None = field(repr=False, compare=False)
    reachable: Reachable | None = field(repr=False, compare=False)
    sampler: str
    pair: str
    broken: bool = False
    note: str = ""

    @property
    def applicable(self) -> bool:
        """Whether the output is a number whose low-order bits can be attacked."""
        return self.release is not None


_OPENDP = "OpenDP exact (discrete noise on the 2^-60 grid)"
_MIXTURE = ("OpenDP exact discrete Gaussian on the 2^-60 grid, its variance a Gamma draw "
            "(numpy)")
_NUMPY = "numpy Laplace, fl(truth + noise)"


# A case's release function: module-level, so that a case (kept in the cache every session
# shares) can be pickled.
def _released(mech: Any, values: np.ndarray, gen: Any) -> np.ndarray:
    return mech.release(values)  # the product's release: fresh OS entropy, ``gen`` unused


def _released_float(mech: Any, values: np.ndarray, gen: Any) -> np.ndarray:
    return mech.release(values).astype(np.float64)


def _randomised(mech: Any, values: np.ndarray, gen: Any) -> np.ndarray:
    return mech.randomise(values, rng=gen)  # a broken row: numpy's sampler


def _perturbed_output(values: np.ndarray, gen: Any, **settings: Any) -> np.ndarray:
    return perturb_output(values, **settings)


def _amp_released(values: np.ndarray, gen: Any, *, base_X: np.ndarray, base_y: np.ndarray,
                  epsilon: float, lam: float, prior: np.ndarray) -> np.ndarray:
    """Approximate minima perturbation released on ``base`` plus the record each row of
    ``values`` holds (features, then the 0/1 label): the product's release function, both
    noises from OpenDP, one batched certified solve per distinct record, centred on the public
    model ``prior`` as the page releases it."""
    out = np.empty((values.shape[0], base_X.shape[1]))
    records, which = np.unique(values, axis=0, return_inverse=True)
    for k, record in enumerate(records):
        rows = np.flatnonzero(which.ravel() == k)
        prep = prepare(np.r_[base_X, record[None, :-1]], np.r_[base_y, record[-1:]],
                       data_norm=1.0, classes=[0, 1])
        out[rows] = amp_coefs(prep, epsilon=epsilon, lam=lam, size=rows.size, tol=TOL,
                              prior=prior)[0]
    return out


def _input_perturbed(values: np.ndarray, gen: Any, *, epsilon: float) -> np.ndarray:
    return input_perturbation(values[:, None, :], epsilon)[:, 0, :]


def _vector(values: Sequence[float]) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


def _laplace_row(key: str, name: str, epsilon: float, sensitivity: float, d: Sequence[float],
                 dprime: Sequence[float], pair: str) -> FloatCase:
    mech = Laplace(epsilon, sensitivity)
    return FloatCase(key, name, epsilon, 0.0, _vector(d), _vector(dprime),
                     partial(_released, mech), reachable_release,
                     _OPENDP, pair)


def _primer_count(epsilon: float) -> FloatCase:
    return _laplace_row("primer_count", "Primer: a count (Laplace)", epsilon, 1.0, [0.0], [1.0],
                        "count 0 vs 1, sensitivity 1")


def _primer_sum(epsilon: float) -> FloatCase:
    return _laplace_row("primer_sum", "Primer: a sum (Laplace)", epsilon, 10.0, [512.37],
                        [522.37], "values in [0, 10]: sum 512.37 vs 522.37, sensitivity 10")


def _primer_mean(epsilon: float) -> FloatCase:
    return _laplace_row("primer_mean", "Primer: a mean (Laplace)", epsilon, 0.1, [5.1237],
                        [5.2237], "n = 100 values in [0, 10]: mean 5.1237 vs 5.2237, "
                        "sensitivity 0.1")


def _subset_ranking(epsilon: float) -> FloatCase:
    mech = DiscreteLaplace(epsilon, 2)
    return FloatCase("subset_ranking", "Subset selection: ranking and candidate counts "
                     "(discrete Laplace on integers)", epsilon, 0.0, _vector([5.0, 5.0]),
                     _vector([4.0, 6.0]),
                     partial(_released_float, mech),
                     reachable_integer, "exact discrete Laplace on integers (OS random bytes)",
                     "counts (5, 5) vs (4, 6), L1 sensitivity 2")


def _subset_criteria(epsilon: float, *, k: int = 4, n_private: int = 200) -> FloatCase:
    bound = criterion_sensitivity(n_private, 1.0, 0.1)
    t_d = _vector([0.4127, 0.3981, 0.4552, 0.3876])[:k]
    t_dp = t_d + bound * np.where(np.arange(k) % 2 == 0, 1.0, -1.0)
    return _laplace_row("subset_criteria", "Subset selection: noisy criteria (Laplace, "
                        "noisy-curve selection)", epsilon, k * bound, t_d, t_dp,
                        f"k = {k} criteria, each moved by its sensitivity S = {bound:.3g} "
                        f"(N_D = {n_private}, R = 1, lam = 0.1)")


def _importance(epsilon: float, *, n_private: int = 50, d: int = 3, lam: float = 0.01,
                seed: int = 13) -> FloatCase:
    b_d, b_dp, _, x, xp = importance_pair(n_private, d, lam, seed)
    mech = L2Laplace(epsilon, release_sensitivity(b_d.size, n_private, lam), b_d.size)
    return FloatCase("importance", "Importance weights: beta (L2-Laplace, a Gaussian scale "
                     "mixture)", epsilon, 0.0, b_d, b_dp,
                     partial(_released, mech), reachable_release, _MIXTURE,
                     f"N_D = {n_private}, d = {d}, lam = {lam:g}; changed record "
                     f"{np.round(x, 2).tolist()} -> {np.round(xp, 2).tolist()} (hill-climbed)")


def _output(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.1) -> FloatCase:
    X, y, Xp, yp = logistic_pair(n, d, 0)
    w0 = nonprivate_coef(prepare(X, y, data_norm=1.0), lam)
    w1 = nonprivate_coef(prepare(Xp, yp, data_norm=1.0), lam)
    release = partial(_perturbed_output, n=n, lam=lam, epsilon=epsilon, gap=TOL)
    return FloatCase("output", "Output perturbation: w (Chaudhuri & Monteleoni Alg. 1)", epsilon,
                     0.0, w0, w1, release, reachable_release, _MIXTURE,
                     f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1")


def _amp(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.01) -> FloatCase:
    X, y, Xp, yp = logistic_pair(n, d, 0)
    prior = np.full(d, 0.5)  # a public model's coefficients: fixed, never read from the pair
    release = partial(_amp_released, base_X=X[:-1], base_y=y[:-1], epsilon=epsilon, lam=lam,
                      prior=prior)
    return FloatCase("amp", "Approximate minima perturbation: w (Iyengar et al. 2019 Alg. 1, "
                     "the default logistic-regression release, centred on a public model)",
                     epsilon, 0.0,
                     np.r_[X[-1], y[-1]], np.r_[Xp[-1], yp[-1]], release, reachable_release,
                     f"{_MIXTURE}, in the objective and on the output",
                     f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1 "
                     "(the 'answer' is the changed record: features, label)")


def _masking(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.1) -> FloatCase:
    X, y, Xp, yp = logistic_pair(n, d, 0)
    lip = lipschitz_constant(2)
    w0, w1 = (fit_logistic_model(mask_scale(A)[0], lab, lam=lam, n_classes=2).coef.ravel()
              for A, lab in ((X, y), (Xp, yp)))
    release = partial(_perturbed_output, n=n, lam=lam, epsilon=epsilon, lipschitz=lip,
                      gap=GAP_TOL)
    return FloatCase("masking", "Masked data: the noisy classifier W' (Pham et al. Alg. 1)",
                     epsilon, 0.0, w0, w1, release, reachable_release, _MIXTURE,
                     f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1")


def _input(epsilon: float, *, d: int = 2) -> FloatCase:
    u = np.ones(d) / math.sqrt(d)
    return FloatCase("input", "Masked data: input perturbation (Pham et al. Alg. 2)", epsilon,
                     0.0, u, -u, partial(_input_perturbed, epsilon=epsilon),
                     reachable_release, _MIXTURE,
                     "one record's features x = u -> -u, ||u|| = 1 (the diameter)")


def _gaussian(epsilon: float, delta: float = 1e-5) -> FloatCase:
    mech = Gaussian(epsilon, delta, 1.0)
    return FloatCase("gaussian", "Gaussian mechanism (library release path)", epsilon, delta,
                     _vector([0.0]), _vector([1.0]), partial(_released, mech),
                     reachable_release, "OpenDP exact (discrete Gaussian on the 2^-60 grid)",
                     "f(D) = 0 vs f(D') = 1, L2 sensitivity 1")


def _exponential(epsilon: float) -> FloatCase:
    return FloatCase("exponential", "Exponential mechanism (subset selection, an index)",
                     epsilon, 0.0, _vector([]), _vector([]), None, None,
                     "OpenDP report-noisy-max (Gumbel)", "—",
                     note="no low-order bits: an index (OpenDP's exact Gumbel noisy max), "
                          "not attacked")


def _numpy_count(epsilon: float) -> FloatCase:
    mech = Laplace(epsilon, 1.0)
    return FloatCase("numpy_count", "numpy Laplace, fl(truth + noise) (today's sampler: broken "
                     "on purpose)", epsilon, 0.0, _vector([0.0]), _vector([1.0]),
                     partial(_randomised, mech),
                     partial(reachable_numpy_laplace, scale=mech.scale), _NUMPY,
                     "count 0 vs 1, sensitivity 1", broken=True,
                     note="Laplace.randomise: the study path, never to be published")


def _numpy_beta(epsilon: float, *, n_private: int = 50, d: int = 3, lam: float = 0.01,
                seed: int = 13) -> FloatCase:
    b_d, b_dp, *_ = importance_pair(n_private, d, lam, seed)
    dim = b_d.size
    mech = Laplace(epsilon, math.sqrt(dim) * release_sensitivity(dim, n_private, lam))
    return FloatCase("numpy_beta", "numpy Laplace on beta, coordinate-wise at the L1 bound "
                     "(broken on purpose)", epsilon, 0.0, b_d, b_dp,
                     partial(_randomised, mech),
                     partial(reachable_numpy_laplace, scale=mech.scale), _NUMPY,
                     "the importance-weights pair", broken=True,
                     note="Laplace.randomise at sqrt(d) times beta's L2 sensitivity: an "
                          "epsilon-DP law, numpy sampler")


_BUILDERS: dict[str, Callable[[float], FloatCase]] = {
    "primer_count": _primer_count,
    "primer_sum": _primer_sum,
    "primer_mean": _primer_mean,
    "subset_ranking": _subset_ranking,
    "subset_criteria": _subset_criteria,
    "importance": _importance,
    "output": _output,
    "amp": _amp,
    "masking": _masking,
    "input": _input,
    "gaussian": _gaussian,
    "exponential": _exponential,
    "numpy_count": _numpy_count,
    "numpy_beta": _numpy_beta,
}

#: Every case of the catalogue, the release mechanisms first.
FLOAT_KEYS = tuple(_BUILDERS)
#: The rows that are broken on purpose (numpy's sampler).
BROKEN_FLOAT_KEYS = ("numpy_count", "numpy_beta")


def float_cases(epsilon: float = 1.0, keys: Sequence[str] | None = None) -> list[FloatCase]:
    """The catalogue at claimed ``epsilon``: all cases, or those in ``keys`` (:data:`FLOAT_KEYS`).

    Every case is built on synthetic pairs (no user data); some fit a small model.
    """
    epsilon = check_scalar(epsilon, "epsilon", min_val=0.0)
    keys = FLOAT_KEYS if keys is None else tuple(keys)
    unknown = [k for k in keys if k not in _BUILDERS]
    if unknown:
        raise ValueError(f"Unknown floating-point audit case(s) {unknown}; choose from "
                         f"{list(FLOAT_KEYS)}.")
    return [_BUILDERS[k](epsilon) for k in keys]


def float_case(key: str, epsilon: float = 1.0) -> FloatCase:
    """One case of the catalogue by key (see :data:`FLOAT_KEYS`)."""
    return float_cases(epsilon, [key])[0]


# --------------------------------------------------------------------------------------------
# The audit
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FloatAuditResult:
    """Outcome of :func:`float_audit` for one case.

    Attributes
    ----------
    case : FloatCase
    runs : int
        Releases per dataset (0 for an index output, which is not attacked).
    confidence : float
    reachability_lb, granularity_lb : float
        Lower bounds on ε from the two tests (NaN when not applicable).
    reachable_d, reachable_dprime : float
        Share of the runs on D, and on D', whose every coordinate is reachable from D's answer.
    zeros_d, zeros_dprime : float
        Mean number of trailing zero bits per run (summed over the coordinates), on D and D'.
    zeros_hist_d, zeros_hist_dprime : ndarray
        Counts of the runs by their number of trailing zero bits, on D and D'.
    ceiling : float
        The largest bound any test can show with these runs (:func:`dpcore.audit.audit_ceiling`).
    seconds : float
        Time taken.
    """

    case: FloatCase
    runs: int
    confidence: float
    reachability_lb: float
    granularity_lb: float
    reachable_d: float
    reachable_dprime: float
    zeros_d: float
    zeros_dprime: float
    zeros_hist_d: np.ndarray = field(repr=False)
    zeros_hist_dprime: np.ndarray = field(repr=False)
    ceiling: float
    seconds: float

    @property
    def epsilon_lb(self) -> float:
        """The larger of the two bounds (NaN when not applicable)."""
        return float(np.fmax(self.reachability_lb, self.granularity_lb))

    @property
    def flagged(self) -> bool:
        """Either bound is above the claimed ε: the claim is refuted at this confidence."""
        return bool(self.epsilon_lb > self.case.epsilon)

    def row(self) -> dict[str, Any]:
        """One row of the table."""
        c = self.case
        return {"mechanism": c.name, "broken on purpose": c.broken, "claimed epsilon": c.epsilon,
                "runs per dataset": self.runs, "reachability bound": self.reachability_lb,
                "granularity bound": self.granularity_lb,
                "P(reachable from D) on D": self.reachable_d,
                "P(reachable from D) on D′": self.reachable_dprime,
                "mean trailing zeros on D": self.zeros_d,
                "mean trailing zeros on D′": self.zeros_dprime, "flagged": self.flagged,
                "ceiling": self.ceiling, "sampler": c.sampler, "pair": c.pair, "note": c.note,
                "seconds": self.seconds}


def float_audit(case: FloatCase, runs: int = FLOAT_RUNS, confidence: float = 0.95,
                rng: Any = None) -> FloatAuditResult:
    """Run ``case``'s release ``runs`` times on each dataset and bound ε by both tests.

    One call of the release function on an array of shape ``(runs, d)`` makes ``runs``
    independent releases: the product's mechanisms add independent noise to every element, of
    the scale a single release of ``d`` numbers gets (OpenDP's sampler, the same code path; the
    vector call widens the scale by OpenDP's rounding term ``runs d 2^-60`` over the
    sensitivity, a relative 1e-13, which changes no reachable set). Per run the reachability
    score is 1 when every coordinate is reachable from D's answer, else 0; the granularity score
    is the sum of the coordinates' trailing zero bits. :func:`dpcore.audit.audit_scores` bounds
    ε from each.

    Parameters
    ----------
    case : FloatCase
    runs : int, default=20_000
        Releases per dataset, >= 20.
    confidence : float, default=0.95
        Of each bound (Clopper-Pearson, both error rates together).
    rng : None, int or numpy.random.Generator
        The broken rows' numpy draws and the threshold splits. OpenDP's sampler cannot be seeded
        (by design): the release rows differ from one call to the next.

    Returns
    -------
    FloatAuditResult
    """
    if not isinstance(case, FloatCase):
        raise TypeError(f"case must be a FloatCase (from float_cases()), got "
                        f"{type(case).__name__}.")
    runs = check_runs(runs)
    gen = check_random_state(rng)
    ceiling = audit_ceiling(runs, confidence, case.delta)
    if not case.applicable:
        nan, empty = float("nan"), np.zeros(0, dtype=np.int64)
        return FloatAuditResult(case, 0, confidence, nan, nan, nan, nan, nan, nan, empty, empty,
                                ceiling, 0.0)
    start = time.perf_counter()
    shape = (runs, case.truth_d.size)
    outs = [np.asarray(case.release(np.broadcast_to(t, shape).copy(), gen), dtype=np.float64)
            for t in (case.truth_d, case.truth_dprime)]
    reach = [np.all(case.reachable(o, case.truth_d), axis=-1).astype(float) for o in outs]
    zeros = [trailing_zero_bits(o).sum(axis=-1) for o in outs]
    reach_lb = audit_scores(*reach, delta=case.delta, confidence=confidence, rng=gen).epsilon_lb
    zeros_lb = audit_scores(*zeros, delta=case.delta, confidence=confidence, rng=gen).epsilon_lb
    top = int(max(z.max() for z in zeros)) + 1
    return FloatAuditResult(
        case, runs, confidence, reach_lb, zeros_lb, float(reach[0].mean()),
        float(reach[1].mean()), float(zeros[0].mean()), float(zeros[1].mean()),
        np.bincount(zeros[0], minlength=top), np.bincount(zeros[1], minlength=top), ceiling,
        time.perf_counter() - start)


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------
def _number(value: float, digits: int = 2) -> str:
    return "—" if math.isnan(value) else f"{value:.{digits}f}"


def markdown_table(results: Sequence[FloatAuditResult]) -> str:
    """The results as the markdown table of ``docs/float-audit.md``."""
    lines = ["| mechanism | claimed ε | runs per dataset | reachability bound | granularity "
             "bound | P(reachable from D) on D / on D′ | mean trailing zeros on D / on D′ | "
             "flagged | seconds |",
             "|---|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in results:
        c = r.case
        name = ("⚠ " if c.broken else "") + c.name
        if not c.applicable:
            lines.append(f"| {name} | {c.epsilon:g} | — | — | — | — | — | {c.note} | — |")
            continue
        lines.append(
            f"| {name} | {c.epsilon:g} | {r.runs:,} | {_number(r.reachability_lb)} | "
            f"{_number(r.granularity_lb)} | {_number(r.reachable_d, 4)} / "
            f"{_number(r.reachable_dprime, 4)} | {_number(r.zeros_d)} / "
            f"{_number(r.zeros_dprime)} | {'**yes**' if r.flagged else 'no'} | "
            f"{r.seconds:.1f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Print the catalogue's table: ``python -m dpcore.audit_float [--runs N] [--epsilon E]``."""
    parser = argparse.ArgumentParser(prog="python -m dpcore.audit_float",
                                     description=main.__doc__)
    parser.add_argument("--runs", type=int, default=FLOAT_RUNS)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the broken rows and the threshold splits")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = [float_audit(case, args.runs, args.confidence, rng=args.seed)
               for case in float_cases(args.epsilon)]
    print(markdown_table(results))
    print(f"\n{args.runs:,} runs per dataset, confidence {args.confidence:g}, ceiling "
          f"{audit_ceiling(args.runs, args.confidence):.2f}, seed {args.seed}; total "
          f"{time.perf_counter() - start:.1f} s (numpy {np.__version__}, opendp "
          f"{metadata.version('opendp')}).")


if __name__ == "__main__":
    main()
