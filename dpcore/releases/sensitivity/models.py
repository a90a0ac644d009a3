"""Grey-box probes of the releases that fit a model: the importance weights' ``beta``
([JE13]_ Algorithm 1 step 2), output perturbation of logistic regression ([CM08]_
Algorithm 1), the objective's noise of approximate minima perturbation ([IKN19]_ Algorithm 1)
and the masking release's noisy classifier ``W'`` ([PGY]_ Algorithm 1 steps 1-2), all under
"replace one record" with the number of records public.

Each probe runs the release's own estimator as a study (its noise drawn from the pair's seed,
identical on both datasets) and reads back what it calibrated its noise to. The random pairs
come in stars (:attr:`~dpcore.audit.sensitivity.Probe.star`: a random training set and
random neighbours of it, its last record replaced, one seed for the star):

* :func:`importance_probe`: :class:`~dpcore.importance.mechanism.ImportanceWeights`, its
  ``beta_`` (L2) against ``sensitivity_`` (Lemma 2's ``sqrt(d) / (N_D lam)`` plus the solver's
  term); the public set is the same on both datasets. At the bounds: the shared records at one
  corner of the unit box and the public ones at another (:data:`~dpcore.audit.pairs.
  IMPORTANCE_CORNERS`), the changed record at a corner against the opposite one, and a record
  far outside the box (clipped into it).
* :func:`output_probe`: :class:`~dpcore.perturbation.model.PrivateLogisticRegression` with
  ``method="output"``, its released vector in the scaled space the noise is added in (L2)
  against ``noise_scale_ epsilon`` at ε = 1 (``2 / (n lam)`` plus the solver's term). At the
  bounds: the record ``u`` against ``-u`` (:func:`~dpcore.audit.pairs.logistic_pair`), a
  flipped label, a flipped label that empties a class, and a record far outside the unit ball
  (projected onto it).
* :func:`amp_probe`: approximate minima perturbation puts its noise ``b`` in the objective,
  so what its noise must cover is the map from an output ``w`` to the noise that makes ``w``
  the exact minimiser, ``b_D(w) = -grad(n J_D)(w)`` ([CMS11]_ Theorem 9): on neighbours
  ``||b_D(w) - b_D'(w)||`` must stay within the calibration's sensitivity (``noise_scale
  epsilon_noise``, 2) at every ``w``. The point ``w`` is drawn from the pair's seed (its
  star's: the same on both datasets), the gradient is
  :func:`~dpcore.logistic.logistic_gradient` of the summed objective the release's solver
  minimises (penalty ``n mu``), the flow the calibration (``mu``, ``epsilon_noise``). The
  solve, its refusal and the output noise are :mod:`dpcore.releases.sensitivity.amp`'s
  probe.
* :func:`masking_probe`: :class:`~dpcore.masking.generator.MaskedDataGenerator` (three
  classes: the softmax, Lipschitz ``sqrt(2)``), its ``noisy_coef_`` (L2, the noise's null
  direction dropped: a projection, which moves no pair farther apart) against
  ``sensitivity_``; a masked set of one record and no search steps (step 3 is
  post-processing of ``W'``). At the bounds: ``u`` against ``-u``, a flipped label, a label
  code outside the classes (clipped to the nearest) and a record far outside the unit ball.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn.
   93, Algorithm 1 and Lemma 2.
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS,
   Algorithm 1 and Corollary 2.
.. [IKN19] Iyengar, Near, Song, Thakkar, Thakurta & Wang (2019), *Towards practical
   differentially private convex optimization*, IEEE S&P, Algorithm 1.
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12, Algorithm 2 and Theorem 9.
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithm 1.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from dpcore.audit.pairs import IMPORTANCE_CORNERS, logistic_pair
from dpcore.audit.sensitivity import STAR, Probe, Run, random_pairs
from dpcore.importance.mechanism import ImportanceWeights
from dpcore.logistic import logistic_gradient
from dpcore.masking.generator import MaskedDataGenerator
from dpcore.perturbation.amp import amp_calibration
from dpcore.perturbation.model import PrivateLogisticRegression, prepare

__all__ = ["EPSILON", "FAR", "IMPORTANCE", "MASKING", "OUTPUT", "SPREAD", "amp_probe",
           "importance_probe", "masking_probe", "output_probe"]

#: The ε of every run: 1, so that a noise scale is its sensitivity exactly.
EPSILON = 1.0
#: A record far beyond the domain's bound (clipped or projected onto it by the release).
FAR = 1e3
#: The importance probe: private and public records, features, λ.
IMPORTANCE = {"n_private": 20, "n_public": 20, "d": 3, "lam": 0.05}
#: The output-perturbation probe: records, features, λ.
OUTPUT = {"n": 20, "d": 2, "lam": 0.1}
#: The standard deviation of each coordinate of the point ``w`` of :func:`amp_probe`: wide
#: enough that the records' margins reach the logistic loss's flat tails.
SPREAD = 3.0
#: The masking probe: records, features, classes, λ.
MASKING = {"n": 20, "d": 2, "classes": 3, "lam": 0.1}

ImportanceData = tuple[np.ndarray, np.ndarray]
LogisticData = tuple[np.ndarray, np.ndarray]


def _replace_last(rows: np.ndarray, record: np.ndarray) -> np.ndarray:
    changed = rows.copy()
    changed[-1] = record
    return changed


def _logistic_records(n: int, d: int, classes: int):
    """A random training set of ``n`` records inside the unit ball and beyond it, labels in
    ``0 .. classes - 1``, and a random neighbour of one (its last record and label replaced):
    ``(base, neighbour)`` for :func:`~dpcore.audit.sensitivity.random_pairs`."""
    def base(gen: np.random.Generator) -> LogisticData:
        return gen.normal(size=(n, d)) * gen.uniform(0.0, 0.8, (n, 1)), gen.integers(0, classes, n)

    def neighbour(gen: np.random.Generator, data: LogisticData) -> LogisticData:
        X, y = data
        changed = y.copy()
        changed[-1] = gen.integers(0, classes)
        return _replace_last(X, gen.normal(size=d)), changed

    return base, neighbour


def importance_probe(name: str) -> Probe:
    """The probe of the importance weights' ``beta`` (see the module's docstring)."""
    n, m, d, lam = (IMPORTANCE[k] for k in ("n_private", "n_public", "d", "lam"))

    def run(data: ImportanceData, seed: int) -> Run:
        private, public = data
        fitted = ImportanceWeights(EPSILON, lam, rng=seed).fit(private, public)
        return Run(fitted.beta_, float(fitted.sensitivity_),
                   flow=(fitted.noise_law_, fitted.lam_), terms=n + m)

    def bounds() -> list[tuple[ImportanceData, ImportanceData]]:
        shared = np.tile(IMPORTANCE_CORNERS[0], (n, 1))
        public = np.tile(IMPORTANCE_CORNERS[1], (m, 1))
        corners = [np.array(c, dtype=float) for c in itertools.product((0.0, 1.0), repeat=d)]
        changes = [(c, 1.0 - c) for c in corners[: len(corners) // 2]]
        changes.append((np.full(d, FAR), np.full(d, -FAR)))
        return [((_replace_last(shared, x), public), (_replace_last(shared, y), public))
                for x, y in changes]

    def base(gen: np.random.Generator) -> ImportanceData:
        return gen.uniform(-0.2, 1.2, (n, d)), gen.random((m, d)) ** 2

    def neighbour(gen: np.random.Generator, data: ImportanceData) -> ImportanceData:
        private, public = data
        return _replace_last(private, gen.uniform(-0.2, 1.2, d)), public

    random_pair, random_star = random_pairs(base, neighbour)
    return Probe(name, "L2", "replace one private record (N_D public)", run, bounds,
                 random_pair, random_star=random_star, star=STAR)


def output_probe(name: str) -> Probe:
    """The probe of output perturbation of logistic regression (see the module's docstring)."""
    n, d, lam = (OUTPUT[k] for k in ("n", "d", "lam"))
    classes = (0, 1)

    def run(data: LogisticData, seed: int) -> Run:
        X, y = data
        model = PrivateLogisticRegression(EPSILON, lam, method="output", data_norm=1.0,
                                          fit_intercept=True, rng=seed, classes=classes)
        model.fit(X, y)
        scaled = prepare(X, y, data_norm=1.0, fit_intercept=True, classes=classes)
        released = scaled.from_model(model.coef_, float(model.intercept_[0]))
        return Run(released, model.noise_scale_ * EPSILON, flow=(model.lam_,), terms=n)

    def bounds() -> list[tuple[LogisticData, LogisticData]]:
        X, y, Xp, yp = logistic_pair(n, d, 0)
        flipped = y.copy()
        flipped[-1] = 0
        one = np.zeros(n, dtype=int)
        one[-1] = 1
        far = np.full(d, FAR)
        return [((X, y), (Xp, yp)),                                   # u against -u
                ((X, y), (X, flipped)),                               # a flipped label
                ((X, one), (X, np.zeros(n, dtype=int))),              # ... that empties a class
                ((_replace_last(X, far), y), (_replace_last(X, -far), flipped))]

    random_pair, random_star = random_pairs(*_logistic_records(n, d, len(classes)))
    return Probe(name, "L2", "replace one record (n public)", run, bounds, random_pair,
                 random_star=random_star, star=STAR)


def amp_probe(name: str) -> Probe:
    """The probe of approximate minima perturbation's objective noise (see the module's
    docstring); the pairs are those of :func:`output_probe`."""
    n, lam = OUTPUT["n"], OUTPUT["lam"]
    pairs = output_probe(name)

    def run(data: LogisticData, seed: int) -> Run:
        X, y = data
        scaled = prepare(X, y, data_norm=1.0, fit_intercept=True, classes=(0, 1))
        cal = amp_calibration(EPSILON, n=scaled.n, lam=lam)
        w = SPREAD * np.random.default_rng(seed).normal(size=scaled.Z.shape[1])
        needed = -logistic_gradient(w, scaled.Z, scaled.y01, lam=scaled.n * cal.lam_total)
        return Run(needed, cal.noise_scale * cal.epsilon_noise,
                   flow=(cal.lam_total, cal.epsilon_noise), terms=n)

    return dataclasses.replace(pairs, run=run)


def masking_probe(name: str) -> Probe:
    """The probe of the masking release's noisy classifier (see the module's docstring)."""
    n, d, classes, lam = (MASKING[k] for k in ("n", "d", "classes", "lam"))

    def run(data: LogisticData, seed: int) -> Run:
        X, y = data
        masked = MaskedDataGenerator(EPSILON, lam, 1, rng=seed, n_classes=classes,
                                     data_norm=1.0, fit_intercept=True, n_starts=1,
                                     max_iter=0).fit(X, y)
        return Run(masked.noisy_coef_.ravel(), float(masked.sensitivity_), flow=(masked.lam_,),
                   terms=n)

    def bounds() -> list[tuple[LogisticData, LogisticData]]:
        X, y, Xp, yp = logistic_pair(n, d, 0)
        flipped, outside = y.copy(), y.copy()
        flipped[-1], outside[-1] = 0, 7
        far = np.full(d, FAR)
        return [((X, y), (Xp, yp)),                                   # u against -u
                ((X, y), (X, flipped)),                               # a flipped label
                ((X, flipped), (X, outside)),                         # a label out of range
                ((_replace_last(X, far), y), (_replace_last(X, -far), outside))]

    random_pair, random_star = random_pairs(*_logistic_records(n, d, classes))
    return Probe(name, "L2", "replace one record (n public)", run, bounds, random_pair,
                 random_star=random_star, star=STAR)
