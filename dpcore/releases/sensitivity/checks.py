"""The grey-box sensitivity check of every release ([RCP26]_): the names it knows and the check
of one (:func:`release_names`, :func:`check_sensitivity`, also read as
``dpcore.audit.release_names`` and ``dpcore.audit.check_sensitivity``).

Each name is a :class:`~dpcore.audit.sensitivity.Probe` of a release's own code
(:mod:`dpcore.releases.sensitivity.primer`, :mod:`dpcore.releases.sensitivity.models`,
:mod:`dpcore.releases.sensitivity.amp`, :mod:`dpcore.releases.sensitivity.subset`), run by
:func:`~dpcore.audit.sensitivity.check_probe` on neighbouring pairs with its noise held
identical. Covered, every step of every release that draws noise: the primer's answers
(count, sum and mean, once or per group, under both relations), the importance weights'
``beta``, output perturbation of logistic regression (its sensitivity with the solver's term),
approximate minima perturbation's two noises (the objective's: the map from an output to the
noise that makes it the minimiser; the output's: the certified solve, whose solver term is the
output noise's sensitivity), the masking release's noisy classifier and the optimal subset's
three (the counts of steps 2 and 4 and the selection's criteria, step 5). The other steps
are post-processing of what these release: the importance weights from ``beta``, the masked
records from ``W'``, the subset's rows and weights from its ranking, weights and selection.

The variants broken on purpose end in ``(broken)`` and must fail: a sensitivity halved, a
sensitivity of 0 (the bug of diffprivlib#105) and clipping bounds read from the data. A halved
sensitivity shows only where the pairs reach the true one: the primer's sum (the largest
record against the smallest) and the subset's counts (a record moved from one public point to
another) reach it exactly, approximate minima perturbation's map about 80 % of it, the fitted
models' outputs about 40 %, so it is probed on the first three.

References
----------
.. [RCP26] Re:cord-play (2026), a grey-box audit of differential-privacy libraries: each release
   function re-run on neighbouring inputs with its randomness replayed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from dpcore.audit.sensitivity import Probe, Run, check_probe
from dpcore.releases.sensitivity.amp import amp_output_probe
from dpcore.releases.sensitivity.models import (
    amp_probe,
    importance_probe,
    masking_probe,
    output_probe,
)
from dpcore.releases.sensitivity.primer import PROBES as PRIMER_PROBES
from dpcore.releases.sensitivity.primer import data_bounds_probe
from dpcore.releases.sensitivity.subset import candidates_probe, counts_probe, criteria_probe

__all__ = ["PROBES", "check_sensitivity", "release_names"]


#: The gap the broken solve of approximate minima perturbation is certified to (its output
#: noise assumes :data:`~dpcore.perturbation.model.TOL`, 1e-16).
LOOSE_TOL = 1e-6


def _declaring(probe: Probe, factor: float, name: str) -> Probe:
    """``probe`` broken on purpose: it declares ``factor`` times the sensitivity it uses."""
    def declaring(honest: Run | tuple[str, str]) -> Run | tuple[str, str]:
        if not isinstance(honest, Run):
            return honest
        return dataclasses.replace(honest, declared=factor * honest.declared)

    def run(data: Any, seed: int) -> Run:
        return declaring(probe.run(data, seed))

    def batch(datasets: Sequence[Any], seeds: Sequence[int]) -> list[Run | tuple[str, str]]:
        return [declaring(honest) for honest in probe.batch(datasets, seeds)]

    return dataclasses.replace(probe, name=name, run=run,
                               batch=None if probe.batch is None else batch)


_SUM = PRIMER_PROBES["primer: sum (replace one record)"]
_COUNT = PRIMER_PROBES["primer: count (add or remove one record)"]
_AMP = amp_probe("logistic regression: approximate minima perturbation, the objective's noise "
                 "(replace one record)")
_BETA = importance_probe("importance weights: beta (replace one private record)")
_COUNTS = counts_probe("optimal subset: ranking counts, step 2 (replace one private record)")
_REAL = [*PRIMER_PROBES.values(), _BETA,
         output_probe("logistic regression: output perturbation (replace one record)"),
         _AMP,
         amp_output_probe("logistic regression: approximate minima perturbation, the "
                          "certified solve and output noise (replace one record)"),
         masking_probe("masking: the noisy classifier W' (replace one record)"), _COUNTS,
         candidates_probe("optimal subset: candidates' counts, step 4 (replace one private "
                          "record)"),
         criteria_probe("optimal subset: selection criteria, step 5 (replace one private "
                        "record)")]
_BROKEN = [
    _declaring(_SUM, 0.5, "primer: sum (replace one record), sensitivity halved (broken)"),
    _declaring(_COUNT, 0.0, "primer: count (add or remove one record), sensitivity 0 as in "
                            "diffprivlib#105 (broken)"),
    _declaring(_COUNTS, 0.5, "optimal subset: ranking counts, sensitivity halved (broken)"),
    _declaring(_AMP, 0.5, "logistic regression: approximate minima perturbation, sensitivity "
                          "halved (broken)"),
    _declaring(_BETA, 0.0, "importance weights: beta, sensitivity 0 (broken)"),
    data_bounds_probe("primer: sum (replace one record), clipping bounds read from the data "
                      "(broken)"),
    amp_output_probe("logistic regression: approximate minima perturbation, a solve looser "
                     "than its output noise assumes (broken)", solve_tol=LOOSE_TOL),
]
#: Every probe by name: the releases, then the variants broken on purpose.
PROBES: dict[str, Probe] = {probe.name: probe for probe in [*_REAL, *_BROKEN]}


def release_names() -> list[str]:
    """The names :func:`check_sensitivity` knows: every release probed, then the variants broken
    on purpose (their names end in ``(broken)``)."""
    return list(PROBES)


def check_sensitivity(name: str, *, pairs: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """The grey-box sensitivity check of one release (:func:`release_names`).

    Parameters
    ----------
    name : str
        One of :func:`release_names`.
    pairs : int, default=10_000
        Neighbouring pairs to run: those at the data's bounds first, then random ones.
    seed : int, default=0
        Seeds the random pairs and the noise held identical on each pair.

    Returns
    -------
    dict
        ``declared`` (the sensitivity the release calibrates to), ``measured`` (the largest
        distance between the two values of a pair), ``pairs``, ``branches_differ`` (pairs
        whose control flow differed), ``ok`` (no pair passed the declared sensitivity and none
        differed in control flow), and ``name``, ``norm``, ``relation`` and ``over`` (pairs
        that passed it) (:func:`~dpcore.audit.sensitivity.check_probe`).

    Examples
    --------
    >>> result = check_sensitivity("primer: sum (replace one record)", pairs=20)
    >>> result["declared"], result["ok"]
    (15.0, True)
    """
    if name not in PROBES:
        raise ValueError(f"Unknown release {name!r}; choose one of release_names(): "
                         f"{release_names()}.")
    return check_probe(PROBES[name], pairs=pairs, seed=seed)
