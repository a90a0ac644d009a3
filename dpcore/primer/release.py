"""Releases: what a data owner would publish (fresh entropy, spent through an accountant).

Unlike the studies of :mod:`dpcore.primer.noise`, a release draws its noise from fresh OS
entropy after the accountant has recorded its cost: its answers leave the data owner.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1.3 (the Laplacian mechanism) and Sect. 1.6 (parallel
   composition).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from dpcore.mechanisms import Laplace
from dpcore.primer.queries import (
    RELATIONS,
    PrimerQuery,
    group_sensitivity,
    sensitivity,
    true_answer,
)
from dpcore.validation import DataError, check_choice, check_study_or_release

__all__ = ["OTHER_PART", "release_answers", "spend_partitions"]

#: The part of a per-group release that holds every value outside the column's public list.
OTHER_PART = "(any other value)"


def spend_partitions(accountant: Any, epsilon: float, partitions: Any, *, rule: str,
                     mechanism: str, dataset: str, relation: str) -> None:
    """Charge ``epsilon`` once per partition of disjoint rows (parallel composition under
    "add or remove one record"), checking every partition against the budget before recording
    any, so that a release refused for one part records nothing."""
    partitions = list(partitions)
    for name in partitions:
        accountant.check(epsilon, dataset=dataset, partition=name, partition_rule=rule,
                         relation=relation)
    for name in partitions:
        accountant.spend(epsilon, mechanism=mechanism, dataset=dataset, partition=name,
                         partition_rule=rule, relation=relation)


def release_answers(query: PrimerQuery, private: pd.DataFrame, epsilon: float, *,
                    n_records: int, relation: str | None = None, group: str | None = None,
                    groups: list | None = None, accountant: Any, dataset: str,
                    rng: Any = None) -> pd.DataFrame:
    """Publish the query's answer under the Laplace mechanism ([JLE14]_ Sect. 1.3), once or
    once per group of the rows.

    The noise is drawn by :meth:`dpcore.mechanisms.Laplace.release` (OpenDP's float-safe
    sampler, fresh OS entropy), after the accountant has recorded the cost. The release is
    calibrated under ``relation``, by default the accountant's, and charged what it costs under
    the accountant's relation (:meth:`dpcore.accountant.BudgetAccountant.charge`).

    With ``group``, the rows are split by the value of that column into the public ``groups``
    (every other value, missing included, forms one more part, :data:`OTHER_PART`, so no record
    is dropped) and each part gets its own answer:

    * under "replace one record" the answers form one vector, released at ``epsilon`` with the
      vector's L1 sensitivity (:func:`group_sensitivity`: a replaced record can move between
      parts and change two answers);
    * under "add or remove one record" each part's answer has the query's own sensitivity and
      reads only its rows, so in an add/remove ledger the parts compose in **parallel**
      ([JLE14]_ Sect. 1.6): each is recorded with ``partition="<group> = <value>"`` and
      ``partition_rule=<group>`` (parts of another column's split are charged in sequence),
      and together they cost ``epsilon``. In a replace-one ledger the same release costs
      ``2 epsilon`` (group privacy) and is recorded once.

    Parameters
    ----------
    query : PrimerQuery
    private : DataFrame
        The raw private records (``scenario.raw_private``).
    epsilon : float
        ε of the release under ``relation``.
    n_records : int
        Public number of records (the mean's sensitivity under "replace one record").
    relation : {"replace", "add_remove"} or None, default=None
        The relation the noise is calibrated under; None: the accountant's.
    group : str, optional
        Column whose values define the parts (a rule applied record by record, never fitted on
        D).
    groups : list, optional
        The public values of ``group`` (its public categories).
    accountant : dpcore.accountant.BudgetAccountant
        Spent before any noise is drawn; raises BudgetExceeded (nothing recorded) when over.
    dataset : str
        The private data's name in the ledger.
    rng : None, int or numpy.random.Generator, default=None
        None: a release. A seed gives a study's numpy draws of the same law (never with an
        accountant).

    Returns
    -------
    DataFrame
        One row per part: part, answer (noisy, the release), epsilon, sensitivity, scale,
        relation.

    Raises
    ------
    DataError
        For a per-group mean, a release that cannot be charged under the accountant's relation,
        or over budget.
    """
    check_study_or_release(rng, accountant)
    if relation is None:
        relation = accountant.relation if accountant is not None else "replace"
    check_choice(relation, "relation", tuple(RELATIONS))
    ledger = accountant.relation if accountant is not None else relation
    if group is None:
        sens = sensitivity(query, n_records, relation)
        if accountant is not None:
            accountant.spend(epsilon, mechanism=f"Laplace: {query}", dataset=dataset,
                             relation=relation)
        answers = {"all records": true_answer(query, private)}
    else:
        if query.kind == "mean":
            raise DataError("A per-group mean has no fixed sensitivity (each group's size "
                            "changes); publish per-group counts or sums instead.")
        values = list(groups or [])
        column = private[group]
        parts = {f"{group} = {v}": (column == v).to_numpy() for v in values}
        parts[OTHER_PART] = ~column.isin(values).to_numpy()
        if relation == "replace":
            sens = group_sensitivity(query)
        else:
            sens = sensitivity(query, n_records, relation)
        if accountant is not None and relation == "add_remove" and ledger == "add_remove":
            spend_partitions(accountant, epsilon, parts, rule=group,
                             mechanism=f"Laplace: {query} (one part)", dataset=dataset,
                             relation=relation)
        elif accountant is not None:
            accountant.spend(epsilon, mechanism=f"Laplace: {query} per {group} "
                             f"({len(parts)} parts, one vector)", dataset=dataset,
                             relation=relation)
        answers = {name: true_answer(query, private[rows]) if rows.any() else 0.0
                   for name, rows in parts.items()}
    mech = Laplace(epsilon, sens, neighbouring=RELATIONS[relation])
    exact = np.array(list(answers.values()), dtype=float)
    noisy = mech.draw(exact, rng=rng)
    return pd.DataFrame({"part": list(answers), "answer": noisy, "epsilon": epsilon,
                         "sensitivity": sens, "scale": mech.scale,
                         "relation": RELATIONS[relation]})
