"""The primer page's release: the query's answer under the Laplace mechanism, once or once per
group of the rows ([JLE14]_ Sect. 1.3 and 1.6).

* :func:`publish`: the release itself, from the user's query, ε and grouping column and the
  scenario's raw private records, spent through the session's ledger before any noise is drawn
  (:func:`~dpcore.primer.release.release_answers`: OpenDP's float-safe Laplace sampler, fresh
  OS entropy); :func:`release_sensitivity`, :func:`settings` and :func:`noise` say what it is;
  its table (one row per part) is what the data owner hands over;
* :func:`publish_derived`: step 7's derived statistic (a mean, a rate, a difference of two
  group means, a scaled sum) with its 95 % interval, its Laplace parts spent through the
  ledger before any noise is drawn (:func:`~dpcore.primer.derived.derived` with ``rng=None``);
  :func:`derived_settings` names it (docs/privacy.md, "Primer: derived statistics");
* :data:`DECISION`: none, the decision page weighs the releases of the pages whose study
  simulates a model or a data set, not the primer's single answers;
* :data:`AUDIT_CASES`: none of its own, the catalogue's ``laplace`` case audits its mechanism;
* :data:`ONE_RUN`: its one-run audits ([SNJ23]_): per-group counts and sums with each canary
  alone in its group, and a mean (one number, which one run cannot audit per canary).

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584.
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*,
   Theorem 3.6 (Laplace) and Theorem 3.16 (sequential composition).
.. [McS09] McSherry (2009), *Privacy integrated queries*, SIGMOD (parallel composition).
.. [SNJ23] Steinke, Nasr & Jagielski (2023), *Privacy auditing with one (1) training run*,
   NeurIPS, Algorithm 1.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from dpcore.accountant import BudgetAccountant
from dpcore.audit.case import AuditCase
from dpcore.audit.onerun import OneRunCase
from dpcore.datasets.scenario import Scenario
from dpcore.mechanisms import Laplace
from dpcore.primer.columns import candidates, raw_records
from dpcore.primer.derived import STATISTICS, derived, parts
from dpcore.primer.queries import RELATIONS, PrimerQuery, count, group_sensitivity, sensitivity
from dpcore.primer.release import release_answers, spend_partitions
from dpcore.releases.base import Release
from dpcore.text import md
from dpcore.validation import check_choice

__all__ = ["AUDIT_CASES", "AUDIT_FAULTS", "DECISION", "ONE_RUN", "derived_settings", "noise",
           "publish", "publish_derived", "release_sensitivity", "settings"]


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


def publish_derived(scenario: Scenario, statistic: str, *, column: str,
                    bounds: tuple[float, float], epsilon: float, accountant: BudgetAccountant,
                    group: str | None = None, value: object = None, factor: float = 1.0,
                    relation: str | None = None) -> pd.DataFrame:
    """Publish a derived statistic of the scenario's raw private records with its 95 % interval
    for the noise of every part (:func:`~dpcore.primer.derived.derived`, Laplace parts).

    The statistic is calibrated under ``relation`` (default: the ledger's) and charged what it
    costs under the ledger's (:meth:`~dpcore.accountant.BudgetAccountant.charge`: twice ε for
    add/remove in a replace-one ledger, refused the other way round), before any noise is
    drawn: OpenDP's float-safe Laplace sampler, fresh OS entropy. Its parts compose in sequence
    ([DR14]_ Theorem 3.16) to ``epsilon``, except a difference of group means under "add or
    remove one record" in an add/remove ledger: A's parts and B's read disjoint rows, so each
    group is recorded as a part of the rule "``group`` = ``value`` or not" at ``epsilon`` and
    together they cost ``epsilon`` (parallel composition, [McS09]_).

    Parameters
    ----------
    scenario : Scenario
        The data (its raw private records; its title names it in the ledger).
    statistic : {"mean", "rate", "difference", "scaled_sum"}
    column : str
        The numeric column (a rate counts records and ignores it).
    bounds : (float, float)
        The user's public clipping bounds.
    epsilon : float
        ε of the whole statistic under ``relation``.
    accountant : BudgetAccountant
        The session's ledger; raises ``BudgetExceeded`` (nothing recorded, nothing drawn) when
        the release does not fit.
    group, value : str and object, optional
        Rate and difference: group A is the records whose ``group`` is ``value`` (a public
        category), B the rest.
    factor : float, default=1.0
        The scaled sum's public factor.
    relation : {"replace", "add_remove"} or None, default=None
        The relation the noise is calibrated under; None: the ledger's.

    Returns
    -------
    DataFrame
        One row per noisy part: statistic, estimate, low_95, high_95 (the statistic and its
        interval, the same on every row), part, noisy_part, epsilon (the part's share),
        sensitivity, scale, relation.

    Raises
    ------
    DataError
        When E was derived from D, when the release cannot be charged under the ledger's
        relation, or over budget.
    """
    scenario.check_publishable()
    relation = check_choice(accountant.relation if relation is None else relation, "relation",
                            tuple(RELATIONS))
    private = raw_records(scenario, "private")
    values = pd.to_numeric(private[column], errors="coerce").to_numpy(dtype=float)
    mask = (None if group is None
            else (private[group] == value).fillna(False).to_numpy(dtype=bool))
    # The noisy parts' shape (names, sensitivities, shares) depends on public choices only.
    pieces = parts(statistic, values, bounds=bounds, relation=relation, mask=mask)
    what = f"Laplace: {STATISTICS[statistic]} of {column} ({', '.join(p.name for p in pieces)})"
    if statistic == "difference" and relation == accountant.relation == "add_remove":
        spend_partitions(accountant, epsilon,
                         (f"{group} = {value}", f"{group} ≠ {value} (or missing)"),
                         rule=f"{group} = {value} or not", mechanism=f"{what}, one group",
                         dataset=scenario.title, relation=relation)
    else:
        accountant.spend(epsilon, mechanism=what, dataset=scenario.title, relation=relation)
    out = derived(statistic, values, epsilon=epsilon, bounds=bounds, relation=relation,
                  mask=mask, factor=factor, level=0.95, rng=None)
    return pd.DataFrame({
        "statistic": STATISTICS[statistic], "estimate": out["estimate"],
        "low_95": out["low"], "high_95": out["high"], "part": out["parts"],
        "noisy_part": out["noisy_parts"][0], "epsilon": out["epsilons"],
        "sensitivity": [p.sensitivity for p in pieces], "scale": out["scales"],
        "relation": RELATIONS[relation]})


def derived_settings(statistic: str, epsilon: float, column: str) -> str:
    """A derived release's settings in words (Markdown), as the ledger's outcome names them."""
    check_choice(statistic, "statistic", tuple(STATISTICS))
    name = {"mean": "the mean", "difference": "a difference of group means",
            "scaled_sum": "a scaled sum"}.get(statistic)
    return f"Laplace, ε = {epsilon:g}, " + (f"{name} of {md(column)}" if name else "a rate")


#: The release as a decision reads it: none (see the module's docstring).
DECISION: Release | None = None
#: The release's own audit cases: none (the catalogue's ``laplace`` case audits its mechanism).
AUDIT_CASES: dict[str, Callable[[float], AuditCase]] = {}
#: Those of :data:`AUDIT_CASES` broken on purpose: none.
AUDIT_FAULTS: tuple[str, ...] = ()


def _groups_one_run(epsilon: float, canaries: int, *, kind: str = "count", high: float = 10.0,
                    noise_epsilon: float | None = None) -> OneRunCase:
    """The per-group release of a count (or a sum of values in ``[0, high]``) with ``canaries``
    groups, canary ``i`` alone in group ``i`` when in and absent when out, under "add or remove
    one record", where each group's answer has the query's own sensitivity
    (:func:`~dpcore.primer.queries.sensitivity`) and the groups compose in parallel. One run is
    one noisy vector (the release's Laplace law, drawn by its seeded study twin); a canary's
    score is its group's answer minus the midpoint of in and out. ``noise_epsilon``: the ε the
    noise is calibrated to (default the claimed ε; larger is a fault, broken on purpose)."""
    query = PrimerQuery(kind, "x", low=0.0, high=high) if kind == "sum" else count("x", "a")
    value = 1.0 if kind == "count" else high
    law = Laplace(epsilon if noise_epsilon is None else noise_epsilon,
                  sensitivity(query, canaries, "add_remove"))

    def run(included: np.ndarray, rng) -> np.ndarray:
        return law.randomise(value * included, rng=rng) - value / 2.0

    what = "count" if kind == "count" else f"sum (values in [0, {high:g}])"
    return OneRunCase(
        f"primer_{kind}_groups", f"Primer: a {what} per group (Laplace)", epsilon, canaries,
        "add or remove one record",
        f"canary i (value {value:g}) alone in group i when in, absent when out; one answer per "
        "group", "laplace", run, broken=noise_epsilon not in (None, epsilon))


def _mean_one_run(epsilon: float, canaries: int, *, high: float = 10.0,
                  noise_epsilon: float | None = None) -> OneRunCase:
    """The mean of ``canaries`` records in ``[0, high]`` (n public) under "replace one record":
    canary ``i`` is ``high`` when in and ``0`` (replaced) when out. One run is one noisy number,
    and every canary's score is that number minus the mean with half of them in: the attacker
    guesses all "in" or all "out". One number carries about one bit, so whatever the noise this
    run shows next to nothing per canary (the threat model's limit, not the noise's)."""
    query = PrimerQuery("mean", "x", low=0.0, high=high)
    law = Laplace(epsilon if noise_epsilon is None else noise_epsilon,
                  sensitivity(query, canaries, "replace"))

    def run(included: np.ndarray, rng) -> np.ndarray:
        answer = law.randomise(float(np.mean(high * included)), rng=rng)
        return np.full(canaries, answer - high / 2.0)

    return OneRunCase(
        "primer_mean", "Primer: a mean (one number, Laplace)", epsilon, canaries,
        "replace one record (n public)",
        f"canary i is {high:g} when in, 0 when out; one answer for all", "laplace", run,
        broken=noise_epsilon not in (None, epsilon),
        note="One number for all the canaries: it says about one bit about them together, so "
             "one run cannot show a per-canary ε, whatever the noise.")


#: The release's one-run audits (key -> builder at a claimed ε and a number of canaries).
ONE_RUN: dict[str, Callable[..., OneRunCase]] = {
    "primer_count_groups": _groups_one_run,
    "primer_sum_groups": lambda e, m, **kw: _groups_one_run(e, m, kind="sum", **kw),
    "primer_mean": _mean_one_run,
}
