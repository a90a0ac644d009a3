"""Releases of the mechanism primer: one Laplace answer, or one per group.

Parallel composition (survey Sect. 1.6): under "add or remove one record" a person's record lies
in one group only, so per-group answers at ε each cost ε together in an add/remove ledger; the
ledger records each with its group (``partition``) and the accountant's total is ε, not k ε.
Under "replace one record" a record can move between groups, so the per-group answers form one
vector of L1 sensitivity 2 (a count), and an add/remove release costs 2ε there (group privacy):
the audit at the end checks both against an exact likelihood test under replace-one.
"""

from __future__ import annotations

from functools import partial

import app_support
import numpy as np
import pytest
from app_support import rerun

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.audit import audit_scores
from dpcore.datasets import load_scenario
from dpcore.mechanisms import Laplace
from dpcore.primer import OTHER_PART, candidates, count, release_answers, true_answer
from dpcore.random import stream

open_page = partial(app_support.open_page, "pages/primer.py", timeout=120)


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


def _group(scenario):
    column = next(c for c in ("cultivar", "class", "target") if c in scenario.raw_private)
    return column, candidates(scenario, column)


def test_one_answer_per_group_costs_epsilon_once(wine):
    column, groups = _group(wine)
    query = count(column, groups[0])
    acc = BudgetAccountant(epsilon=1.0, relation="add_remove")
    out = release_answers(query, wine.raw_private, 0.4, n_records=len(wine.raw_private),
                          group=column, groups=groups, accountant=acc, dataset="wine")
    assert list(out["part"]) == [f"{column} = {g}" for g in groups] + [OTHER_PART]
    records = acc.records
    assert len(records) == len(groups) + 1
    assert records["partition"].tolist() == list(out["part"])
    assert acc.total("sequential") == pytest.approx((0.4, 0.0))  # not (len(groups)+1) x 0.4
    # The remaining budget still pays for one more answer on every row, and no more.
    release_answers(query, wine.raw_private, 0.6, n_records=len(wine.raw_private),
                    accountant=acc, dataset="wine")
    with pytest.raises(BudgetExceeded):
        release_answers(query, wine.raw_private, 0.1, n_records=len(wine.raw_private),
                        accountant=acc, dataset="wine")
    assert len(acc.records) == len(groups) + 2  # the refused one recorded nothing


def test_every_record_is_in_exactly_one_group(wine):
    column, groups = _group(wine)
    query = count(column, groups[0])
    rows = wine.raw_private
    parts = [(rows[column] == g).sum() for g in groups] + [(~rows[column].isin(groups)).sum()]
    assert sum(parts) == len(rows)
    assert true_answer(query, rows) == parts[0]


def test_per_group_release_in_a_replace_one_ledger(wine):
    column, groups = _group(wine)
    n = len(wine.raw_private)
    acc = BudgetAccountant(epsilon=2.0)
    # Calibrated under the ledger's relation: one vector of L1 sensitivity 2, costing epsilon.
    out = release_answers(count(column, groups[0]), wine.raw_private, 0.5, n_records=n,
                          group=column, groups=groups, accountant=acc, dataset="wine")
    assert (out["sensitivity"] == 2.0).all() and len(acc) == 1
    assert acc.spent == pytest.approx((0.5, 0.0)) and acc.records["partition"].isna().all()
    # Calibrated under add/remove (sensitivity 1 per part): charged 2 epsilon, recorded once.
    out = release_answers(count(column, groups[0]), wine.raw_private, 0.5, n_records=n,
                          relation="add_remove", group=column, groups=groups, accountant=acc,
                          dataset="wine")
    assert (out["sensitivity"] == 1.0).all()
    assert len(acc) == 2 and acc.spent == pytest.approx((1.5, 0.0))
    assert acc.ledger["relation"].tolist() == ["replace one record", "add or remove one record"]


def test_a_release_uses_fresh_entropy_and_the_stated_scale(wine):
    column, groups = _group(wine)
    query = count(column, groups[0])
    acc = BudgetAccountant()
    a, b = (release_answers(query, wine.raw_private, 0.5, n_records=len(wine.raw_private),
                            accountant=acc, dataset="wine") for _ in range(2))
    assert a["answer"].iloc[0] != b["answer"].iloc[0]  # identical settings, new noise
    assert a["scale"].iloc[0] == pytest.approx(1 / 0.5)  # Laplace(Δ/ε), Δ = 1 for a count
    with pytest.raises(ValueError, match="seeded fit is a study"):
        release_answers(query, wine.raw_private, 0.5, n_records=len(wine.raw_private),
                        accountant=acc, dataset="wine", rng=0)


@pytest.mark.parametrize("relation, charged", [("replace", 1.0), ("add_remove", 2.0)])
def test_per_group_release_costs_what_a_replace_one_audit_says(wine, relation, charged):
    """Neighbours under replace-one: one record moves from group A to group B, so the counts
    (a, b) become (a - 1, b + 1). The log-likelihood ratio of the two Laplace laws is the optimal
    test; its audited bound (20,000 runs per side, 95 %) must not exceed what the ledger
    charges, and for the add/remove calibration it must exceed epsilon (the charge 2 epsilon is
    needed: the exact privacy loss of the pair is 2 epsilon)."""
    column, groups = _group(wine)
    eps, runs = 1.0, 20_000
    out = release_answers(count(column, groups[0]), wine.raw_private, eps,
                          n_records=len(wine.raw_private), relation=relation, group=column,
                          groups=groups, accountant=None, dataset="wine", rng=0)
    acc = BudgetAccountant()
    assert acc.charge(eps, relation=relation)[0] == charged
    mech = Laplace(eps, float(out["sensitivity"].iloc[0]))
    d, dprime = np.array([40.0, 30.0]), np.array([39.0, 31.0])  # the two groups that change
    o0 = mech.randomise(np.broadcast_to(d, (runs, 2)), rng=stream(1, "primer-audit", relation))
    o1 = mech.randomise(np.broadcast_to(dprime, (runs, 2)), rng=stream(2, "primer-audit",
                                                                        relation))

    def llr(o):  # log p_D(o) - log p_D'(o) of i.i.d. Laplace(scale) coordinates
        return (np.abs(o - dprime).sum(axis=1) - np.abs(o - d).sum(axis=1)) / mech.scale

    bound = audit_scores(-llr(o0), -llr(o1), rng=3).epsilon_lb
    assert bound <= charged
    if relation == "add_remove":
        assert bound > eps


def test_publishing_per_group_on_the_page_records_parallel_parts():
    at = open_page(builtin_name="wine")
    at.radio(key="budget_relation").set_value("add_remove")
    rerun(at)
    at.radio(key="pr_relation").set_value("add_remove")
    rerun(at)
    at.toggle(key="pr_by_group").set_value(True)
    rerun(at)
    at.button(key="publish_primer").click()
    rerun(at)
    acc = at.session_state["_budget_accountant"]
    records = acc.records
    assert len(records) >= 3 and records["partition"].notna().all()
    eps = at.session_state["pr_epsilon"]
    assert acc.total("sequential")[0] == pytest.approx(eps)
    released = [d.value for d in at.dataframe if "answer" in d.value.columns]
    assert len(released) == 1 and len(released[0]) == len(records)
    # shown rounded to what they mean (issue 24), as text
    answers = released[0]["answer"].str.replace(",", "").astype(float)
    assert np.isfinite(answers).all()
    assert all(len(text.partition(".")[2]) <= 3 for text in released[0]["answer"])
