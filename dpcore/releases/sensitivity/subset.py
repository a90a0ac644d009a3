"""Grey-box probes of the optimal subset's counts ([WJ18]_ Algorithm 2): the number of private
records nearest each public point, released with Laplace noise at the L1 sensitivity
:data:`~dpcore.subset.weights.COUNT_SENSITIVITY` under "replace one private record" (a
replaced record leaves one public point's count and joins another's); in step 2 among all of
E (:func:`counts_probe`), in step 4 within each of the k candidate prefixes of the ranking,
one vector of k count vectors whose L1 sensitivity is ``k`` times that
(:func:`candidates_probe`; the release draws its noise at scale ``2 k / epsilon2``).

Each run is the release's own code as a study: step 1 (:func:`~dpcore.subset.rescale.rescale`,
E's ranges, the label kept as a coordinate), the non-private part
(:func:`~dpcore.subset.selection.prepare_selection`: the counts, the reference fit) and the
noisy counts (:func:`~dpcore.subset.weights.noisy_counts`, the noise from the pair's seed;
in step 4 the ranking, the release of step 2, is drawn from the seed too, the same on both
datasets, and the prefixes' nearest points come from
:func:`~dpcore.subset.weights.nearest_in_prefixes`).
The flow is the number of public points and whether the reference fit was certified (a
release refuses when it was not). The public set is the same on both datasets of a pair. At
the bounds: the changed record on one public point against another, a flipped label, and a
record far outside E's ranges (clipped into them).

The random pairs come in stars (:attr:`~dpcore.audit.sensitivity.Probe.star`), run in
batches whose step 1 rescales a star's private records in one call (:func:`_rescaled_batch`).
At the bounds also: a flipped label that empties the private set's class.

The selection's criteria (step 5, :func:`criteria_probe`): ``t_i = ||h(theta_i) -
h(theta_D)||_2``, whose sensitivity ``S`` (:func:`~dpcore.subset.selection.
criterion_sensitivity`) holds given what steps 2 and 4 released, the ranking and the
candidates' weights, which are held identical on both datasets (drawn from the pair's seed,
the ranking E's own order). Each run is the release's own code: step 1, the non-private part
(``theta_D``, its certificate), the candidates' fits as a release fits them
(:func:`~dpcore.subset.selection.release_estimates`) and the criteria
(:func:`~dpcore.subset.selection.candidate_criteria`); the value is the exponential
mechanism's utilities ``-t`` in the L-infinity norm (each of sensitivity ``S``; the noisy
curve's L1 ``k S`` follows). Each random pair runs with :data:`CRITERIA_REUSE` seeds, and a
batch fits the candidates of all of them once per pair (they read E, the ranking and the
weights only; the check verifies the batch against a run, within the fits' certified gap).

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3), Algorithm 2 and
   Proposition 1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pandas as pd

from dpcore.audit.sensitivity import STAR, Probe, Recent, Run, random_pairs
from dpcore.subset.estimators import SOLVER_TOL
from dpcore.subset.rescale import rescale
from dpcore.subset.selection import (
    candidate_criteria,
    criterion_sensitivity,
    prepare_selection,
    release_estimates,
)
from dpcore.subset.weights import (
    COUNT_SENSITIVITY,
    NEIGHBOURING,
    hybrid_counts,
    nearest_in_prefixes,
    noisy_counts,
)
from dpcore.validation import DataError

__all__ = ["CRITERIA_REUSE", "EPSILON", "FAR", "SIZES", "SUBSET", "candidates_probe",
           "counts_probe", "criteria_probe"]

#: The ε of every run (the check compares values, not noise: any ε will do).
EPSILON = 1.0
#: A coordinate far beyond E's range (clipped into it by step 1).
FAR = 1e3
#: The probe's private and public records and the λ of the reference fit.
SUBSET = {"n_private": 30, "n_public": 15, "lam": 0.01}
#: The candidate sizes of step 4 (prefixes of the ranking of the 15 public points).
SIZES = (3, 7, 11, 15)
#: Seeds (released rankings and weights) each random pair of :func:`criteria_probe` is run
#: with.
CRITERIA_REUSE = 10

SubsetData = tuple[pd.DataFrame, pd.DataFrame]


def _frame(rows: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({"a": rows[:, 0], "b": rows[:, 1], "y": rows[:, 2].astype(int)})


def _records(gen: np.random.Generator, n: int, spread: float) -> np.ndarray:
    return np.c_[gen.uniform(-spread, 1.0 + spread, (n, 2)), gen.integers(0, 2, n)]


def _pairs(n: int, m: int):
    """The pairs at the bounds and the random pairs (see the module's docstring)."""
    def pair(private: np.ndarray, public: np.ndarray,
             record: np.ndarray) -> tuple[SubsetData, SubsetData]:
        changed = private.copy()
        changed[-1] = record
        shared = _frame(public)  # one public set, read by both runs
        return (_frame(private), shared), (_frame(changed), shared)

    def bounds() -> list[tuple[SubsetData, SubsetData]]:
        gen = np.random.default_rng(0)
        public, private = _records(gen, m, 0.0), _records(gen, n, 0.0)
        flipped = public[0].copy()
        flipped[2] = 1 - flipped[2]
        far = np.array([FAR, -FAR, 1.0])
        single = np.vstack([private[:-1], public[0]])
        single[:-1, 2], single[-1, 2] = 0, 1  # the last record is the only one of its class
        return [*(pair(np.vstack([private[:-1], public[0]]), public, record)
                  for record in (public[1], flipped, far)),
                pair(single, public, np.r_[public[0, :2], 0])]  # its label flipped: it empties

    def base(gen: np.random.Generator) -> SubsetData:
        public, private = _records(gen, m, 0.0), _records(gen, n, 0.2)
        return _frame(private), _frame(public)

    def neighbour(gen: np.random.Generator, data: SubsetData) -> SubsetData:
        private, public = data
        changed = private.to_numpy(dtype=float)
        changed[-1] = _records(gen, 1, 0.2)[0]
        return _frame(changed), public  # one public set, read by both runs

    return bounds, *random_pairs(base, neighbour)


def _rescaled_batch(step, datasets: Sequence[SubsetData],
                    seeds: Sequence[int]) -> list[Run | tuple[str, str]]:
    """``step(rescale(private, public), seed)`` on every dataset, the private records of the
    datasets that share a public set (a star) rescaled in one call: step 1 scales each record
    by E's ranges alone (:func:`~dpcore.subset.rescale.rescale`), so stacked records come
    out as they do one set at a time."""
    runs: list = [None] * len(datasets)
    groups: dict[int, list[int]] = {}
    for i, (_, public) in enumerate(datasets):
        groups.setdefault(id(public), []).append(i)
    for rows in groups.values():
        privates = [datasets[i][0] for i in rows]
        stacked = rescale(pd.concat(privates, ignore_index=True), datasets[rows[0]][1],
                          target="y")
        ends = np.cumsum([len(private) for private in privates])
        for i, block in zip(rows, np.split(stacked.private, ends[:-1]), strict=True):
            try:
                runs[i] = step(dataclasses.replace(stacked, private=block), seeds[i])
            except (DataError, ValueError) as error:
                runs[i] = ("refused", str(error))
    return runs


def _counts_probe(name: str, step) -> Probe:
    """A probe of ``step(rescaled, seed) -> Run`` after step 1, its random pairs in stars and
    run in batches (:func:`_rescaled_batch`)."""
    def run(data: SubsetData, seed: int) -> Run:
        private, public = data
        return step(rescale(private, public, target="y"), seed)

    def batch(datasets: Sequence[SubsetData], seeds: Sequence[int]) -> list:
        return _rescaled_batch(step, datasets, seeds)

    bounds, random_pair, random_star = _pairs(SUBSET["n_private"], SUBSET["n_public"])
    return Probe(name, "L1", NEIGHBOURING, run, bounds, random_pair, batch=batch,
                 random_star=random_star, star=STAR)


def counts_probe(name: str) -> Probe:
    """The probe of the ranking counts of step 2 (see the module's docstring)."""
    n, lam = SUBSET["n_private"], SUBSET["lam"]

    def step(rescaled, seed: int) -> Run:
        prepared = prepare_selection(rescaled, "logistic", lam)
        return Run(noisy_counts(prepared.counts, EPSILON, rng=seed), COUNT_SENSITIVITY,
                   flow=(rescaled.n_public, bool(prepared.certified)), terms=n)

    return _counts_probe(name, step)


def candidates_probe(name: str) -> Probe:
    """The probe of the candidates' counts of step 4 (see the module's docstring)."""
    n, lam = SUBSET["n_private"], SUBSET["lam"]
    k = len(SIZES)

    def step(rescaled, seed: int) -> Run:
        prepared = prepare_selection(rescaled, "logistic", lam)
        gen = np.random.default_rng(seed)
        order = gen.permutation(rescaled.n_public)  # the released ranking, held identical
        index, _ = nearest_in_prefixes(prepared.neighbours, order, SIZES, distinct=True)
        counts = hybrid_counts(index, rescaled.n_public, prepared.copies)
        return Run(noisy_counts(counts, EPSILON / k, rng=gen), k * COUNT_SENSITIVITY,
                   flow=(rescaled.n_public, bool(prepared.certified)), terms=n)

    return _counts_probe(name, step)


def _weights(gen: np.random.Generator, m: int, n: int) -> np.ndarray:
    """The candidates' weights as step 4 releases them (the same on both datasets of a pair),
    in the order of E (the released ranking held identical: E's own order, random since E is
    drawn at random): each candidate's ``n`` records spread over its prefix, Laplace noise at
    ``epsilon2 / k`` (:func:`~dpcore.subset.weights.noisy_counts`), divided by ``n``, 0 beyond
    the prefix and truncated at 0."""
    k = len(SIZES)
    counts = np.zeros((m, k))
    for j, size in enumerate(SIZES):
        counts[:size, j] = gen.multinomial(n, np.full(size, 1.0 / size))
    mask = np.arange(m)[:, None] < np.array(SIZES)[None, :]
    W = np.where(mask, noisy_counts(counts, EPSILON / k, rng=gen) / n, 0.0)
    return np.maximum(W, 0.0)


def criteria_probe(name: str) -> Probe:
    """The probe of the selection's criteria, step 5 ([WJ18]_ Algorithm 2; module docstring).

    The value is the exponential mechanism's utilities ``-t`` in the L-infinity norm: each
    utility's sensitivity is ``S`` (:func:`~dpcore.subset.selection.criterion_sensitivity`).
    The noisy curve's L1 sensitivity ``k S`` follows from it (``||t - t'||_1 <= k
    ||t - t'||_inf``), so one probe covers both selections.
    """
    n, m, lam = (SUBSET[key] for key in ("n_private", "n_public", "lam"))
    k = len(SIZES)
    top = max(SIZES)

    def prepare(data: SubsetData):
        private, public = data
        rescaled = rescale(private, public, target="y")
        return rescaled, prepare_selection(rescaled, "logistic", lam)

    recent = Recent(prepare)

    def finish(t: np.ndarray, rescaled, prepared) -> Run:
        """The run of criteria ``t``: its value, declared sensitivity, flow and slack."""
        S = criterion_sensitivity(rescaled.n_private, rescaled.radius, lam)
        # two fits certified to SOLVER_TOL are within 2 sqrt(2 SOLVER_TOL / lam) of each
        # other, which moves each criterion by at most R/4 sqrt(n) times that
        slack = 0.5 * rescaled.radius * np.sqrt(n) * np.sqrt(2.0 * SOLVER_TOL / lam)
        return Run(-t, S, flow=(rescaled.n_public, bool(prepared.certified)), terms=n,
                   magnitude=float(np.sqrt(n)), slack=slack)

    def run(data: SubsetData, seed: int) -> Run:
        rescaled, prepared = recent(data)
        gen = np.random.default_rng(seed)
        W = _weights(gen, rescaled.n_public, n)
        theta = release_estimates(rescaled, prepared, np.arange(rescaled.n_public), W, top)
        return finish(candidate_criteria(theta, prepared, rescaled), rescaled, prepared)

    def batch(datasets: Sequence[SubsetData], seeds: Sequence[int]) -> list[Run]:
        """:func:`run` on every dataset and seed, the candidates of every seed of one public
        set fitted in one call (they read E, the ranking and the weights only)."""
        runs: list = [None] * len(datasets)
        groups: dict[int, list[int]] = {}
        for i, (_, public) in enumerate(datasets):
            groups.setdefault(id(public), []).append(i)
        for rows in groups.values():
            rescaled, prepared = recent(datasets[rows[0]])
            distinct = list(dict.fromkeys(seeds[i] for i in rows))
            W = np.hstack([_weights(np.random.default_rng(seed), rescaled.n_public, n)
                           for seed in distinct])
            theta = release_estimates(rescaled, prepared, np.arange(rescaled.n_public), W, top)
            for i in rows:
                rescaled, prepared = recent(datasets[i])
                block = theta[k * distinct.index(seeds[i]):][:k]
                runs[i] = finish(candidate_criteria(block, prepared, rescaled), rescaled,
                                 prepared)
        return runs

    bounds, random_pair, _ = _pairs(n, m)
    return Probe(name, "Linf", NEIGHBOURING, run, bounds, random_pair, batch=batch,
                 reuse=CRITERIA_REUSE)
