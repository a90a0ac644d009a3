"""The primer page's release: the query's answer under the Laplace mechanism, once or once per
group of the rows ([JLE14]_ Sect. 1.3 and 1.6).

* :func:`publish`: the release itself, from the user's query, ε and grouping column and the
  scenario's raw private records, spent through the session's ledger before any noise is drawn
  (:func:`~dpcore.primer.release.release_answers`: OpenDP's float-safe Laplace sampler, fresh
  OS entropy); :func:`release_sensitivity`, :func:`settings` and :func:`noise` say what it is;
  its table (one row per part) is what the data owner hands over;
* :data:`DECISION`: none, the decision page weighs the releases of the pages whose study
  simulates a model or a data set, not the primer's single answers;
* :data:`AUDIT_CASES`: none of its own, the catalogue's ``laplace`` case audits its mechanism.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from dpcore.accountant import BudgetAccountant
from dpcore.audit.case import AuditCase
from dpcore.datasets.scenario import Scenario
from dpcore.primer.columns import candidates
from dpcore.primer.queries import PrimerQuery, group_sensitivity, sensitivity
from dpcore.primer.release import release_answers
from dpcore.releases.base import Release
from dpcore.text import md

__all__ = ["AUDIT_CASES", "AUDIT_FAULTS", "DECISION", "noise", "publish", "release_sensitivity",
           "settings"]


def _n_records(scenario: Scenario) -> int:
    """The number of private records (public under "replace one record")."""
    return len(scenario.raw_private) if scenario.raw_private is not None else 0


def publish(scenario: Scenario, query: PrimerQuery, *, epsilon: float, group: str | None,
            accountant: BudgetAccountant) -> pd.DataFrame:
    """Publish the query's answer on the scenario's raw private records, once or, with
    ``group``, once per public value of that column (every other value one more part).

    Parameters
    ----------
    scenario : Scenario
        The data (its raw private records; its title names it in the ledger).
    query : PrimerQuery
        The user's query (:func:`~dpcore.primer.controls.query_from_controls`).
    epsilon : float
        The release's ε under the ledger's relation.
    group : str or None
        The column whose public values split the records, or None for one answer.
    accountant : BudgetAccountant
        The session's ledger: the release is calibrated under its relation and charged before
        any noise is drawn; it refuses a release over the budget (``BudgetExceeded``).

    Returns
    -------
    DataFrame
        One row per part: part, answer (the release), epsilon, sensitivity, scale, relation.

    Raises
    ------
    DataError
        When E was derived from D (:meth:`~dpcore.datasets.scenario.Scenario.check_publishable`),
        for a per-group mean, or when the release does not fit the budget.
    """
    scenario.check_publishable()
    return release_answers(query, scenario.raw_private, epsilon, n_records=_n_records(scenario),
                           group=group, groups=candidates(scenario, group) if group else None,
                           accountant=accountant, dataset=scenario.title)


def release_sensitivity(scenario: Scenario, query: PrimerQuery, relation: str,
                        group: str | None) -> float:
    """The L1 sensitivity the release's noise is calibrated to under the ledger's
    ``relation``: the answers' vector's with ``group`` under "replace one record", else the
    query's own. Raises DataError where the query has none (a mean without a public size)."""
    if group and relation == "replace":
        return group_sensitivity(query)
    return sensitivity(query, _n_records(scenario), relation)


def settings(epsilon: float, group: str | None) -> str:
    """The release's settings in words (Markdown), as the ledger's outcome and the page name
    them."""
    return f"Laplace, ε = {epsilon:g}" + (f", one answer per value of {md(group)}" if group else "")


def noise(sensitivity: float, epsilon: float, relation_text: str) -> str:
    """How the release draws its noise, in words (shown beside the Publish button)."""
    return (f"Laplace of scale {sensitivity / epsilon:.4g} (sensitivity {sensitivity:g} under "
            f"{relation_text})")


#: The release as a decision reads it: none (see the module's docstring).
DECISION: Release | None = None
#: The release's own audit cases: none (the catalogue's ``laplace`` case audits its mechanism).
AUDIT_CASES: dict[str, Callable[[float], AuditCase]] = {}
#: Those of :data:`AUDIT_CASES` broken on purpose: none.
AUDIT_FAULTS: tuple[str, ...] = ()
