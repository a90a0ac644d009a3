"""The mechanism primer's study ([JLE14]_ Sect. 1): one query asked through each mechanism.

The page (``pages/primer.py``), ``python -m dpcore run``, exported scripts and presentation mode
all call this study. :func:`prepare` reads the private data once for the query's controls: the
true answer, its sensitivity ([JLE14]_ Definition 5) and the candidates' counts of the
exponential mechanism (:func:`dpcore.primer.prepare_study`). :func:`at` draws, at the privacy
parameters, the seeded noisy answers of the Laplace and Gaussian mechanisms ([JLE14]_ Sect. 1.3;
one stream per mechanism), the exponential mechanism's choices ([JLE14]_ Sect. 1.4) and counts
how many answers a budget pays for ([JLE14]_ Sect. 1.6) (:func:`dpcore.primer.study_at`).

Everything is a seeded simulation of the mechanisms, not a release: it spends no budget. The
true answer is computed from the private data without noise and is labelled non-private. The
page's Publish part is a release (:func:`dpcore.primer.release_answers`), not this study.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

import dpcore.primer as primer
from dpcore.domains import EPSILONS, SEED, Between, FromData, OneOf
from dpcore.simulation import Progress, report
from dpcore.studies.base import StudyParams

__all__ = ["CONTROLS", "DERIVED_DOMAINS", "DOMAINS", "SEED_KEY", "VIEW_LABELS", "Params", "at",
           "compute", "prepare", "takeaway"]


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The primer page's controls; None means "the scenario's default"
    (:func:`dpcore.primer.resolve_controls`: on Adult, the count of records with income >50K).

    Parameters
    ----------
    kind : {"count", "sum", "mean"}, default="count"
    column : str, optional
        The raw column queried.
    value : object, optional
        A count on a category column: the category counted.
    threshold : float, optional
        A count on a numeric column: records at or above it are counted.
    low, high : float, optional
        A sum or mean: the clipping bounds, from public knowledge.
    relation : {"replace", "add_remove"}, default="replace"
        The neighbouring relation.
    epsilon : float, default=0.1
        ε of one answer.
    delta : float, default=1e-6
        δ of one Gaussian answer.
    draws : int, default=10_000
        Simulated answers per mechanism.
    total, total_delta : float, default=1.0, 1e-5
        The budget that the answers are counted against.
    choice_column : str, optional
        The column whose most common category the exponential mechanism chooses.
    """

    PREFIX = "pr_"
    CHEAP = ("epsilon", "delta", "draws", "total", "total_delta")

    kind: str = primer.CONTROLS["pr_kind"]
    column: str | None = primer.CONTROLS["pr_column"]
    value: Any = primer.CONTROLS["pr_value"]
    threshold: float | None = primer.CONTROLS["pr_threshold"]
    low: float | None = primer.CONTROLS["pr_low"]
    high: float | None = primer.CONTROLS["pr_high"]
    relation: str = primer.CONTROLS["pr_relation"]
    epsilon: float = primer.CONTROLS["pr_epsilon"]
    delta: float = primer.CONTROLS["pr_delta"]
    draws: int = primer.CONTROLS["pr_draws"]
    total: float = primer.CONTROLS["pr_total"]
    total_delta: float = primer.CONTROLS["pr_total_delta"]
    choice_column: str | None = primer.CONTROLS["pr_choice_column"]


#: Every control of the page with its default (:data:`dpcore.primer.CONTROLS`).
CONTROLS: dict[str, Any] = Params.defaults()
SEED_KEY = Params.seed_key()
#: The page has one view: none to choose.
VIEW_LABELS: dict[str, str] = {}
#: Step 7's controls (derived statistics with intervals, :mod:`dpcore.primer.derived`): a
#: seeded study of their own beside the page's, kept by links but not part of :class:`Params`.
DERIVED_DOMAINS = {
    "pr_derived": OneOf(tuple(primer.STATISTICS)), "pr_derived_column": FromData(),
    "pr_derived_group": FromData(), "pr_derived_value": FromData(),
    "pr_derived_factor": Between(),
}
#: The values each control can take, as the page draws it (:mod:`dpcore.domains`): the
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
    **DERIVED_DOMAINS,
}


def prepare(scenario, params: Params, *, progress: Progress = None,
            parallel=None) -> primer.PreparedStudy:
    """The query's ε-free facts: its true answer (non-private), sensitivity and the candidates'
    counts (:func:`dpcore.primer.prepare_study`).

    Parameters
    ----------
    scenario : Scenario
    params : Params
        Reads every field but :attr:`Params.CHEAP`.
    progress : callable, optional
        Called with 1.0 when done (one pass over the private data).
    parallel : dpcore.parallel.Parallel, optional
        Unused (accepted for the common signature).

    Raises
    ------
    DataError
        When the query has no sensitivity under the relation (a mean under "add or remove one
        record") or the scenario has no raw records.
    """
    del parallel
    prepared = primer.prepare_study(scenario, params.controls())
    report(progress, 1.0)
    return prepared


def at(prepared: primer.PreparedStudy, params: Params) -> dict[str, pd.DataFrame]:
    """The page's tables at ``params``' ε, δ, draws and budget (:func:`dpcore.primer.study_at`).

    Returns
    -------
    dict of DataFrame
        ``query``, ``mechanisms``, ``answers``, ``exponential``, ``budget``.
    """
    return primer.study_at(prepared, epsilon=params.epsilon, delta=params.delta,
                           n_draws=params.draws, total=params.total,
                           total_delta=params.total_delta, seed=params.seed)


def compute(scenario, params: Params, *, progress: Progress = None,
            parallel=None) -> dict[str, pd.DataFrame]:
    """The numbers the primer page shows for ``params``: :func:`at` on :func:`prepare`."""
    return at(prepare(scenario, params, progress=progress, parallel=parallel), params)


def takeaway(numbers: Mapping[str, pd.DataFrame], params: Params) -> str:
    """Two sentences on the run's numbers (for presentation mode), computed from ``numbers``."""
    del params
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
