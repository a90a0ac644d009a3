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

Not covered yet: the selection's criteria (step 5, whose sensitivity holds given the released
weights).

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3), Algorithm 2 and
   Proposition 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpcore.audit.sensitivity import Probe, Run
from dpcore.subset.rescale import rescale
from dpcore.subset.selection import prepare_selection
from dpcore.subset.weights import (
    COUNT_SENSITIVITY,
    NEIGHBOURING,
    hybrid_counts,
    nearest_in_prefixes,
    noisy_counts,
)

__all__ = ["EPSILON", "FAR", "SIZES", "SUBSET", "candidates_probe", "counts_probe"]

#: The ε of every run (the check compares values, not noise: any ε will do).
EPSILON = 1.0
#: A coordinate far beyond E's range (clipped into it by step 1).
FAR = 1e3
#: The probe's private and public records and the λ of the reference fit.
SUBSET = {"n_private": 30, "n_public": 15, "lam": 0.01}
#: The candidate sizes of step 4 (prefixes of the ranking of the 15 public points).
SIZES = (3, 7, 11, 15)

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
        return (_frame(private), _frame(public)), (_frame(changed), _frame(public))

    def bounds() -> list[tuple[SubsetData, SubsetData]]:
        gen = np.random.default_rng(0)
        public, private = _records(gen, m, 0.0), _records(gen, n, 0.0)
        flipped = public[0].copy()
        flipped[2] = 1 - flipped[2]
        far = np.array([FAR, -FAR, 1.0])
        return [pair(np.vstack([private[:-1], public[0]]), public, record)
                for record in (public[1], flipped, far)]

    def random_pair(gen: np.random.Generator) -> tuple[SubsetData, SubsetData]:
        public, private = _records(gen, m, 0.0), _records(gen, n, 0.2)
        return pair(private, public, _records(gen, 1, 0.2)[0])

    return bounds, random_pair


def counts_probe(name: str) -> Probe:
    """The probe of the ranking counts of step 2 (see the module's docstring)."""
    n, m, lam = (SUBSET[k] for k in ("n_private", "n_public", "lam"))

    def run(data: SubsetData, seed: int) -> Run:
        private, public = data
        rescaled = rescale(private, public, target="y")
        prepared = prepare_selection(rescaled, "logistic", lam)
        return Run(noisy_counts(prepared.counts, EPSILON, rng=seed), COUNT_SENSITIVITY,
                   flow=(rescaled.n_public, bool(prepared.certified)), terms=n)

    return Probe(name, "L1", NEIGHBOURING, run, *_pairs(n, m))


def candidates_probe(name: str) -> Probe:
    """The probe of the candidates' counts of step 4 (see the module's docstring)."""
    n, m, lam = (SUBSET[k] for k in ("n_private", "n_public", "lam"))
    k = len(SIZES)

    def run(data: SubsetData, seed: int) -> Run:
        private, public = data
        rescaled = rescale(private, public, target="y")
        prepared = prepare_selection(rescaled, "logistic", lam)
        gen = np.random.default_rng(seed)
        order = gen.permutation(rescaled.n_public)  # the released ranking, held identical
        index, _ = nearest_in_prefixes(prepared.neighbours, order, SIZES, distinct=True)
        counts = hybrid_counts(index, rescaled.n_public, prepared.copies)
        return Run(noisy_counts(counts, EPSILON / k, rng=gen), k * COUNT_SENSITIVITY,
                   flow=(rescaled.n_public, bool(prepared.certified)), terms=n)

    return Probe(name, "L1", NEIGHBOURING, run, *_pairs(n, m))
