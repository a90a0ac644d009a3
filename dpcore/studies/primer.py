"""The mechanism primer's numbers from a run config ([JLE14]_ Sect. 1).

:func:`compute` calls :func:`dpcore.primer.study`, the one function the page (``pages/primer.py``)
calls for its numbers, with the same controls and study seed, so the numbers are the page's, bit
for bit: the same query, sensitivity, seeded noise streams (one per mechanism) and budget table.
Everything is a seeded simulation of the mechanisms, not a release; the true answer is computed
from the private data without noise and is labelled non-private.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dpcore import primer
from dpcore.runs.domains import EPSILONS, SEED, Between, FromData, OneOf
from dpcore.simulation import Progress, report

__all__ = ["CONTROLS", "DOMAINS", "SEED_KEY", "compute", "takeaway"]

SEED_KEY = "pr_seed"
#: Every control of the page with its default; None means "the scenario's default"
#: (:func:`dpcore.primer.resolve_controls`: on Adult, the count of records with income >50K).
CONTROLS: dict[str, Any] = dict(primer.CONTROLS)
#: The values each control can take, as the page draws it (:mod:`dpcore.runs.domains`): the
#: columns and categories come from the data, the bounds and the threshold are any numbers.
DOMAINS = {
    "pr_kind": OneOf(primer.KINDS), "pr_column": FromData(), "pr_value": FromData(),
    "pr_threshold": Between(optional=True), "pr_low": Between(optional=True),
    "pr_high": Between(optional=True), "pr_relation": OneOf(tuple(primer.RELATIONS)),
    "pr_epsilon": OneOf(EPSILONS),
    "pr_delta": OneOf((1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3)),
    "pr_draws": OneOf((1_000, 10_000, 100_000)), "pr_total": OneOf(EPSILONS),
    "pr_total_delta": OneOf((1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3)),
    "pr_choice_column": FromData(), "pr_group_column": FromData(), SEED_KEY: SEED,
}


def compute(scenario, controls: Mapping[str, object], seed: int, *, progress: Progress = None,
            parallel=None) -> dict[str, pd.DataFrame]:
    """The numbers the primer page shows for ``controls`` and study ``seed``.

    Parameters
    ----------
    scenario : Scenario
    controls : mapping
        The page's widget values (keys of :data:`CONTROLS`; missing keys take its defaults).
    seed : int
        The page's simulation seed (``pr_seed``).
    progress : callable, optional
        Called with 1.0 when done (the study is one vectorised draw per mechanism).
    parallel : dpcore.parallel.Parallel, optional
        Unused (accepted for the common signature).

    Returns
    -------
    dict of DataFrame
        See :func:`dpcore.primer.study`: ``query``, ``mechanisms``, ``answers``,
        ``exponential``, ``budget``.
    """
    del parallel
    known = {key: value for key, value in controls.items() if key in CONTROLS}
    numbers = primer.study(scenario, known, int(seed))
    report(progress, 1.0)
    return numbers


def takeaway(numbers: Mapping[str, pd.DataFrame], controls: Mapping[str, object]) -> str:
    """Two sentences on the run's numbers (for presentation mode), computed from ``numbers``."""
    q = numbers["query"].iloc[0]
    mech = numbers["mechanisms"].set_index("mechanism")
    lap, gauss = mech.loc["laplace"], mech.loc["gaussian_analytic"]
    first = (f"At ε = {lap['epsilon']:g} the Laplace answer to the {q['label']} (sensitivity "
             f"{q['sensitivity']:.4g}) lands within ±{lap['half_width']:.4g} of the non-private "
             f"truth {q['truth_nonprivate']:.6g} in {100 * lap['level']:.0f} % of draws "
             f"(measured {100 * lap['coverage']:.1f} %), the analytic Gaussian with δ = "
             f"{gauss['delta']:g} within ±{gauss['half_width']:.4g}.")
    budget = numbers["budget"].set_index("mechanism")
    row = budget.loc["laplace"]
    second = (f"A total budget of ε = {row['total_epsilon']:g} fits {int(row['answers'])} such "
              f"Laplace answers under sequential composition")
    if "gaussian_analytic" in budget.index:
        g = budget.loc["gaussian_analytic"]
        second += (f" and {int(g['answers'])} Gaussian ones (total δ = "
                   f"{g['total_delta']:g})")
    return f"{first} {second}."
