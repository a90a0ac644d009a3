"""Everything the primer page shows, in two stages: the query's ε-free facts, then the noisy
answers at an ε.

:func:`prepare_study` resolves the controls on the scenario and reads the private data once (the
query's true answer and sensitivity, the candidates' counts: all **non-private**);
:func:`study_at` draws the seeded noisy answers of every mechanism at the privacy parameters and
counts how many answers a budget pays for. It is a simulation: it spends no budget and is not a
release. :mod:`dpcore.studies.primer` calls the two stages for the page, the command line and
presentation mode; :func:`study` calls both on a page's control values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import pandas as pd

from dpcore.primer.choice import CandidateCounts, candidate_counts, selection_from_counts
from dpcore.primer.columns import raw_records
from dpcore.primer.controls import query_from_controls, resolve_controls
from dpcore.primer.noise import answer_study, budget_table
from dpcore.primer.queries import PrimerQuery, describe_relation, sensitivity, true_answer

__all__ = ["PreparedStudy", "prepare_study", "study_at", "study"]

#: The columns of the exponential mechanism's table (empty without a category column).
CHOICE_COLUMNS = ["column", "candidate", "count_nonprivate", "probability_nonprivate",
                  "frequency", "best_nonprivate"]


class PreparedStudy(NamedTuple):
    """The ε-free part of the primer's study (read from the private data: **non-private**)."""

    #: The query the controls ask.
    query: PrimerQuery
    #: The neighbouring relation's key (:data:`dpcore.primer.queries.RELATIONS`).
    relation: str
    #: Records in the private data.
    n_records: int
    #: The query's sensitivity under ``relation``.
    sensitivity: float
    #: The query's true answer (non-private).
    truth: float
    #: The exponential mechanism's candidates and their counts; None without a category column.
    choice: CandidateCounts | None


def prepare_study(scenario: Any, controls: Mapping[str, Any]) -> PreparedStudy:
    """The query, its sensitivity, its true answer and the candidates' counts for ``controls``.

    Reads the query's controls only (kind, column, value, threshold, bounds, relation, choice
    column), each resolved on the scenario (:func:`dpcore.primer.controls.resolve_controls`).

    Raises
    ------
    DataError
        When the scenario has no raw records, or the query has no sensitivity under the
        relation (a mean under "add or remove one record").
    """
    c = resolve_controls(scenario, controls)
    query = query_from_controls(scenario, c)
    raw = raw_records(scenario, "private")
    n = len(raw)
    column = c["pr_choice_column"]
    return PreparedStudy(
        query=query, relation=c["pr_relation"], n_records=n,
        sensitivity=sensitivity(query, n, c["pr_relation"]), truth=true_answer(query, raw),
        choice=None if column is None else candidate_counts(scenario, column))


def study_at(prepared: PreparedStudy, *, epsilon: float, delta: float, n_draws: int,
             total: float, total_delta: float, seed: int) -> dict[str, pd.DataFrame]:
    """The study's tables at the privacy parameters: seeded noisy answers and the budget.

    Parameters
    ----------
    prepared : PreparedStudy
    epsilon, delta : float
        Of one answer (delta: the Gaussian mechanisms only).
    n_draws : int
        Simulated answers per mechanism.
    total, total_delta : float
        The budget that the answers are counted against (sequential composition).
    seed : int
        The study's seed (streams ``stream(seed, "primer", key)``).

    Returns
    -------
    dict of str to DataFrame
        ``"query"`` (one row: kind, column, label, relation, low, high, n_records, sensitivity,
        truth_nonprivate), ``"mechanisms"`` and ``"answers"``
        (:func:`dpcore.primer.noise.answer_study`), ``"exponential"``
        (:func:`dpcore.primer.choice.selection_from_counts` with the column; empty without a
        category column) and ``"budget"`` (:func:`dpcore.primer.noise.budget_table`).
    """
    draws, summary = answer_study(prepared.truth, prepared.sensitivity, epsilon, delta,
                                  n_draws=n_draws, seed=seed, relation=prepared.relation)
    if prepared.choice is not None:
        choice = selection_from_counts(prepared.choice, epsilon, n_draws=n_draws, seed=seed)
        choice.insert(0, "column", prepared.choice.column)
    else:
        choice = pd.DataFrame(columns=CHOICE_COLUMNS)
    budget = budget_table(summary, total, total_delta,
                          epsilon if prepared.choice is not None else None)
    query = prepared.query
    info = pd.DataFrame([{
        "kind": query.kind, "column": query.column, "label": str(query),
        "relation": describe_relation(prepared.relation),
        "low": query.low, "high": query.high, "n_records": prepared.n_records,
        "sensitivity": prepared.sensitivity, "truth_nonprivate": prepared.truth,
    }])
    return {"query": info, "mechanisms": summary, "answers": draws, "exponential": choice,
            "budget": budget}


def study(scenario: Any, controls: Mapping[str, Any], seed: int) -> dict[str, pd.DataFrame]:
    """Everything the primer page shows, for its control values and study seed:
    :func:`study_at` on :func:`prepare_study` (missing controls take their defaults)."""
    c = resolve_controls(scenario, controls)
    return study_at(prepare_study(scenario, c), epsilon=c["pr_epsilon"], delta=c["pr_delta"],
                    n_draws=int(c["pr_draws"]), total=c["pr_total"],
                    total_delta=c["pr_total_delta"], seed=seed)
