"""Grey-box sensitivity checks: a release's computation before its noise, run on neighbouring
pairs, against the sensitivity it declares ([RCP26]_: same randomness, two neighbouring
datasets).

A release adds noise calibrated to a declared sensitivity ``Delta`` (in the norm its
mechanism states it in: L1 for Laplace, L2 for the L2-Laplace) to a value ``f(D)``. It is
calibrated correctly only if ``||f(D) - f(D')|| <= Delta`` on every neighbouring pair and if
nothing else it does depends on the record that differs: whether it refuses, which parts it
releases, the noise's calibration. A :class:`Probe` runs the release's own code on a dataset
with its noise held identical on both datasets of a pair (one seed per pair) and returns a
:class:`Run`; :func:`check_probe` runs it on the probe's pairs at the data's bounds, then on
random pairs, and counts

* the largest distance seen between the two values (``measured``) against ``Delta``
  (``declared``), up to the rounding of floating point (:func:`rounding_allowance`);
* the pairs whose control flow differed (``branches_differ``): one run refused and the other
  did not, or the two refused differently, released other parts, or calibrated their noise to
  different sensitivities (a sensitivity read from the data). The number of a solver's
  iterations is not compared: the solver's term of the sensitivity covers it.

A check can show a sensitivity too small, never prove one right: ``ok`` says that no pair it
tried exceeded it.

References
----------
.. [RCP26] Re:cord-play (2026), a grey-box audit of differential-privacy libraries: each release
   function re-run on neighbouring inputs with its randomness replayed.
.. [Hig02] Higham (2002), *Accuracy and stability of numerical algorithms*, 2nd ed., SIAM,
   Sect. 4.2 (the error of recursive summation, ``gamma_n = n u / (1 - n u)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore.validation import DataError, check_choice, check_int

__all__ = ["NORMS", "Probe", "Run", "check_probe", "rounding_allowance"]

#: The norms a sensitivity is stated in, by name: the order of :func:`numpy.linalg.norm`.
NORMS = {"L1": 1, "L2": 2}
#: The unit roundoff of float64 (half the machine epsilon).
UNIT_ROUNDOFF = float(np.finfo(float).eps) / 2.0

#: A dataset of a probe (whatever its release reads: a table, arrays, a pair of sets).
Dataset = Any


@dataclass(frozen=True)
class Run:
    """One run of a release's computation on one dataset, its noise held to a seed.

    Attributes
    ----------
    value : ndarray
        What the release publishes, its noise drawn from the pair's seed (identical on both
        datasets of a pair, so that the difference of two values is that of the noiseless ones).
    declared : float
        The sensitivity the run calibrated its noise to (read from the release where it says).
    flow : tuple
        What else the run decided: the parts it released, the noise's law, ... Two runs of a
        pair must agree on it.
    terms : int, default=1
        How many terms the value sums (the records): the rounding allowance grows with it.
    magnitude : float, default=0.0
        A bound on the sum of the terms' absolute values (0: bounded by the value's norm).
    """

    value: np.ndarray
    declared: float
    flow: tuple = ()
    terms: int = 1
    magnitude: float = 0.0


@dataclass(frozen=True)
class Probe:
    """A release's computation as the grey-box check runs it.

    Attributes
    ----------
    name : str
        The release, in words (broken variants end in ``(broken)``).
    norm : {"L1", "L2"}
        The norm the release's sensitivity is stated in.
    relation : str
        The neighbouring relation of the ledger the release is calibrated under, in words.
    run : callable
        ``(dataset, seed) -> Run``: the release's own code on ``dataset``, its noise drawn
        from ``seed``; raises :class:`~dpcore.validation.DataError` (or ``ValueError``) where
        the release refuses.
    bounds : callable
        ``() -> list of (D, D')``: the pairs at the data's bounds (the largest record, a
        flipped label, a category that empties a group), run first.
    random_pair : callable
        ``(Generator) -> (D, D')``: a random neighbouring pair.
    """

    name: str
    norm: str
    relation: str
    run: Callable[[Dataset, int], Run]
    bounds: Callable[[], Sequence[tuple[Dataset, Dataset]]]
    random_pair: Callable[[np.random.Generator], tuple[Dataset, Dataset]]

    @property
    def broken(self) -> bool:
        """Whether the probe is a variant broken on purpose."""
        return self.name.endswith("(broken)")


def rounding_allowance(a: Run, b: Run, norm: str) -> float:
    """How far floating point may move the distance of two runs' values.

    Each value sums ``terms`` terms and adds the noise (one more rounding), and the distance
    subtracts the two (one more): at most ``gamma_{terms + 2} (magnitude + ||value||)`` per run
    ([Hig02]_ Sect. 4.2, with ``gamma_k ~ k u``), doubled for the two runs and once more for the
    norm's own rounding.

    >>> run = Run(np.array([1.0]), 1.0, terms=8)
    >>> rounding_allowance(run, run, "L1") < 1e-13
    True
    """
    size = NORMS[norm]
    extent = sum(r.magnitude + float(np.linalg.norm(r.value.ravel(), size)) for r in (a, b))
    return 4.0 * (max(a.terms, b.terms) + 2) * UNIT_ROUNDOFF * extent


def _outcome(probe: Probe, dataset: Dataset, seed: int) -> Run | tuple[str, str]:
    """The probe's run, or ``("refused", message)`` where the release refuses."""
    try:
        return probe.run(dataset, seed)
    except (DataError, ValueError) as error:
        return ("refused", str(error))


def check_probe(probe: Probe, *, pairs: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """Run ``probe`` on ``pairs`` neighbouring pairs: its pairs at the bounds first, then
    random ones, each with the noise held to one seed on both datasets.

    Parameters
    ----------
    probe : Probe
    pairs : int, default=10_000
        Pairs in all, >= 1 (the pairs at the bounds included, as many of them as fit).
    seed : int, default=0
        Seeds the random pairs and the noise.

    Returns
    -------
    dict
        ``name``, ``norm``, ``relation``; ``declared`` (the smallest sensitivity a run
        declared; NaN if every run refused), ``measured`` (the largest distance between the
        values of a pair whose runs agreed on their control flow), ``pairs``,
        ``branches_differ`` (pairs whose control flow differed), ``over`` (pairs whose
        distance passed the declared sensitivity by more than rounding) and ``ok`` (no pair
        of either kind, and some run not refused).
    """
    check_choice(probe.norm, "norm", tuple(NORMS))
    pairs = check_int(pairs, "pairs", min_val=1)
    gen = np.random.default_rng(seed)
    fixed = list(probe.bounds())
    declared, measured, differ, over = math.inf, 0.0, 0, 0
    for i in range(pairs):
        first, second = fixed[i] if i < len(fixed) else probe.random_pair(gen)
        noise_seed = int(gen.integers(2**63))
        a, b = _outcome(probe, first, noise_seed), _outcome(probe, second, noise_seed)
        declared = min([declared, *(r.declared for r in (a, b) if isinstance(r, Run))])
        if not (isinstance(a, Run) and isinstance(b, Run)):
            differ += a != b
            continue
        if a.flow != b.flow or a.declared != b.declared or a.value.shape != b.value.shape:
            differ += 1
            continue
        distance = float(np.linalg.norm((a.value - b.value).ravel(), NORMS[probe.norm]))
        measured = max(measured, distance)
        over += distance > a.declared + rounding_allowance(a, b, probe.norm)
    return {"name": probe.name, "norm": probe.norm, "relation": probe.relation,
            "declared": declared if math.isfinite(declared) else math.nan,
            "measured": measured, "pairs": pairs, "branches_differ": int(differ),
            "over": int(over),
            "ok": differ == 0 and over == 0 and math.isfinite(declared)}
