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

A probe may also give its computation vectorised across datasets (:attr:`Probe.batch`: the
release's own per-record and per-solve code run on many datasets at once), which the check
uses for its random pairs. The release's own code (:attr:`Probe.run`) still runs on every pair
at the bounds and on one random pair in :data:`VERIFY_EVERY`, and the check counts the runs on
which the two disagree (``batch_differs``: another refusal, flow or declared sensitivity, or
values farther apart than rounding); any makes it fail.

Two ways of drawing random pairs save runs without fewer pairs. In stars
(:attr:`Probe.star`, :func:`random_pairs`): one random dataset and :data:`STAR` random
neighbours of it, one seed for the star, so the dataset runs once for all its pairs (each pair
distributed as one drawn alone). Reused (:attr:`Probe.reuse`): one pair run with several
seeds in a row, where the seed decides more than noise that cancels (the point at which
approximate minima perturbation is probed, the weights a subset's criteria are computed for),
so that a batch solves a dataset's seeds together.

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

__all__ = ["CHUNK", "NORMS", "STAR", "VERIFY_EVERY", "Probe", "Recent", "Run", "check_probe",
           "random_pairs", "rounding_allowance"]

#: The norms a sensitivity is stated in, by name: the order of :func:`numpy.linalg.norm`
#: (``Linf``: the largest change of one coordinate, the sensitivity of each utility of an
#: exponential mechanism).
NORMS = {"L1": 1, "L2": 2, "Linf": np.inf}
#: A batched probe's random pairs on which the release's own code runs too: one in this many.
VERIFY_EVERY = 50
#: Pairs drawn and run together by a batched probe or one in stars.
CHUNK = 500
#: Neighbours per random dataset of a probe whose pairs come in stars (:attr:`Probe.star`).
STAR = 10
#: The unit roundoff of float64 (half the machine epsilon).
UNIT_ROUNDOFF = float(np.finfo(float).eps) / 2.0

#: A dataset of a probe (whatever its release reads: a table, arrays, a pair of sets).
Dataset = Any
#: What a refused run gives back: ``("refused", message)``.
Refusal = tuple[str, str]


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
    slack : float, default=0.0
        How far two runs of this dataset and seed may be apart besides rounding: a solver's
        (two solves, each certified within ``r`` of the same minimiser, are within ``2 r``),
        so that a batch that solves many seeds at once agrees with a run that solves one.
    """

    value: np.ndarray
    declared: float
    flow: tuple = ()
    terms: int = 1
    magnitude: float = 0.0
    slack: float = 0.0


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
    batch : callable, optional
        ``(datasets, seeds) -> list of Run or ("refused", message)``: ``run`` on each dataset
        and seed, vectorised (the same computation of the release, many datasets at once).
        None: the check runs ``run`` on every pair.
    reuse : int, default=1
        How many consecutive noise seeds each random pair is run with (a batch can then
        solve one dataset for many seeds at once, as the release's own batched solver does).
    random_star : callable, optional
        ``(Generator, k) -> (D, [D'_1, ..., D'_k])``: a random dataset and ``k`` random
        neighbours of it (:func:`random_pairs`), each pair distributed as ``random_pair``'s.
    star : int, default=1
        With ``random_star``: the random pairs come in stars of this many neighbours of one
        dataset, all run with one noise seed, so that the dataset runs once per star.
    """

    name: str
    norm: str
    relation: str
    run: Callable[[Dataset, int], Run]
    bounds: Callable[[], Sequence[tuple[Dataset, Dataset]]]
    random_pair: Callable[[np.random.Generator], tuple[Dataset, Dataset]]
    batch: Callable[[Sequence[Dataset], Sequence[int]], list[Run | Refusal]] | None = None
    reuse: int = 1
    random_star: Callable[[np.random.Generator, int],
                          tuple[Dataset, list[Dataset]]] | None = None
    star: int = 1

    @property
    def broken(self) -> bool:
        """Whether the probe is a variant broken on purpose."""
        return self.name.endswith("(broken)")


class Recent:
    """``compute(dataset)`` for the last two datasets it was called on (the two of a pair,
    which a probe with :attr:`Probe.reuse` > 1 runs with several seeds in a row), held by
    identity: a probe's work that depends on the dataset only, not on the noise's seed.

    Parameters
    ----------
    compute : callable
        ``(dataset) -> anything``, a function of the dataset alone.

    Examples
    --------
    >>> calls = []
    >>> square = Recent(lambda x: calls.append(x) or x * x)
    >>> a, b = np.arange(3), np.arange(3)
    >>> [int(square(d).sum()) for d in (a, b, a, b)], len(calls)
    ([5, 5, 5, 5], 2)
    """

    def __init__(self, compute: Callable[[Dataset], Any]) -> None:
        self.compute = compute
        self._held: list[tuple[Dataset, Any]] = []

    def __call__(self, dataset: Dataset) -> Any:
        for held, value in self._held:
            if held is dataset:
                return value
        value = self.compute(dataset)
        self._held = [*self._held[-1:], (dataset, value)]
        return value


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


def _outcome(probe: Probe, dataset: Dataset, seed: int) -> Run | Refusal:
    """The probe's run, or ``("refused", message)`` where the release refuses."""
    try:
        return probe.run(dataset, seed)
    except (DataError, ValueError) as error:
        return ("refused", str(error))


def _agree(a: Run | Refusal, b: Run | Refusal, norm: str) -> bool:
    """Whether two runs of one dataset and seed (the release's own code and its batch) agree:
    both refused, or the same flow, declared sensitivity and value up to rounding (and the
    runs' :attr:`Run.slack`)."""
    if not (isinstance(a, Run) and isinstance(b, Run)):
        return not (isinstance(a, Run) or isinstance(b, Run))
    if a.flow != b.flow or a.declared != b.declared or a.value.shape != b.value.shape:
        return False
    distance = float(np.linalg.norm((a.value - b.value).ravel(), NORMS[norm]))
    return distance <= rounding_allowance(a, b, norm) + max(a.slack, b.slack)


def random_pairs(base: Callable[[np.random.Generator], Dataset],
                 neighbour: Callable[[np.random.Generator, Dataset], Dataset]):
    """A probe's random pairs from a random dataset ``base(gen)`` and a random neighbour of it
    ``neighbour(gen, D)``: ``(random_pair, random_star)`` (:class:`Probe`).

    Parameters
    ----------
    base : callable
        ``(Generator) -> D``: a random dataset.
    neighbour : callable
        ``(Generator, D) -> D'``: a random neighbour of ``D`` under the probe's relation (a
        new dataset; ``D`` is left as it is).

    Returns
    -------
    random_pair : callable
        ``(Generator) -> (D, D')``.
    random_star : callable
        ``(Generator, k) -> (D, [D'_1, ..., D'_k])``, the neighbours drawn independently.

    Examples
    --------
    >>> pair, star = random_pairs(lambda gen: gen.random(3),
    ...                           lambda gen, x: np.r_[x[:-1], gen.random()])
    >>> D, neighbours = star(np.random.default_rng(0), 4)
    >>> len(neighbours), all(np.array_equal(D[:-1], x[:-1]) for x in neighbours)
    (4, True)
    """
    def random_pair(gen: np.random.Generator) -> tuple[Dataset, Dataset]:
        data = base(gen)
        return data, neighbour(gen, data)

    def random_star(gen: np.random.Generator, size: int) -> tuple[Dataset, list[Dataset]]:
        data = base(gen)
        return data, [neighbour(gen, data) for _ in range(size)]

    return random_pair, random_star


def _draw(probe: Probe, fixed: list, gen: np.random.Generator, start: int, stop: int,
          state: dict) -> list[tuple[int, tuple, int]]:
    """Pairs ``start`` to ``stop`` with their noise seeds: those at the bounds, then random ones
    (each run with ``probe.reuse`` consecutive seeds, or in stars of ``probe.star`` sharing a
    dataset and a seed), in the order the generator draws them; ``state`` carries a pair or a
    star on to the next call."""
    drawn = []
    for i in range(start, stop):
        k = i - len(fixed)
        if i < len(fixed):
            drawn.append((i, fixed[i], int(gen.integers(2**63))))
        elif probe.random_star is not None and probe.star > 1:
            if k % probe.star == 0 or "star" not in state:
                data, neighbours = probe.random_star(gen, probe.star)
                state["star"] = (data, neighbours, int(gen.integers(2**63)))
            data, neighbours, seed = state["star"]
            drawn.append((i, (data, neighbours[k % probe.star]), seed))
        else:
            if k % probe.reuse == 0 or "pair" not in state:
                state["pair"] = probe.random_pair(gen)
            drawn.append((i, state["pair"], int(gen.integers(2**63))))
    return drawn


def _outcomes(probe: Probe, drawn: list[tuple[int, tuple, int]],
              fixed: int) -> tuple[list[tuple[Run | Refusal, Run | Refusal]], int]:
    """Both runs of every pair drawn (a dataset run with a seed once, however many pairs hold
    it), and how many runs a batch got otherwise than ``run``."""
    own = {i for i, _, _ in drawn
           if probe.batch is None or i < fixed or (i - fixed) % VERIFY_EVERY == 0}
    held: dict[tuple[int, int], Run | Refusal] = {}  # the datasets are alive in ``drawn``

    def outcome(data: Dataset, seed: int) -> Run | Refusal:
        key = (id(data), seed)
        if key not in held:
            held[key] = _outcome(probe, data, seed)
        return held[key]

    outcomes = {i: tuple(outcome(data, seed) for data in pair)
                for i, pair, seed in drawn if i in own}
    differs = 0
    if probe.batch is not None:
        rows = [(i, pair, seed) for i, pair, seed in drawn if i >= fixed]
        runs = {(id(data), seed): (data, seed) for _, pair, seed in rows for data in pair}
        batched = dict(zip(runs, probe.batch([data for data, _ in runs.values()],
                                             [seed for _, seed in runs.values()]), strict=True))
        for i, pair, seed in rows:
            pair = tuple(batched[id(data), seed] for data in pair)
            if i in outcomes:
                differs += sum(not _agree(a, b, probe.norm)
                               for a, b in zip(outcomes[i], pair, strict=True))
            else:
                outcomes[i] = pair
    return [outcomes[i] for i, _, _ in drawn], differs


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
        distance passed the declared sensitivity by more than rounding), ``batch_differs``
        (runs on which a batched probe disagreed with the release's own code) and ``ok`` (none
        of these three, and some run not refused).
    """
    check_choice(probe.norm, "norm", tuple(NORMS))
    pairs = check_int(pairs, "pairs", min_val=1)
    gen = np.random.default_rng(seed)
    fixed = list(probe.bounds())
    declared, measured, differ, over, mismatched = math.inf, 0.0, 0, 0, 0
    step = CHUNK if probe.batch is not None or probe.star > 1 else 1
    state: dict = {}
    for start in range(0, pairs, step):
        drawn = _draw(probe, fixed, gen, start, min(pairs, start + step), state)
        outcomes, chunk_differs = _outcomes(probe, drawn, len(fixed))
        mismatched += chunk_differs
        for a, b in outcomes:
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
            "over": int(over), "batch_differs": int(mismatched),
            "ok": (differ == 0 and over == 0 and mismatched == 0
                   and math.isfinite(declared))}
