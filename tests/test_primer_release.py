"""Releases of the mechanism primer: one Laplace answer, or one per group in parallel.

Parallel composition (survey Sect. 1.6): under "add or remove one record" a person's record lies
in one group only, so per-group answers at ε each cost ε together; the ledger records each
with its group (``partition``) and the accountant's total is ε, not k ε.
"""

from __future__ import annotations

from functools import partial

import app_support
import numpy as np
import pytest
from app_support import rerun

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.datasets import load_scenario
from dpcore.primer import OTHER_PART, candidates, count, release_answers, true_answer
from dpcore.validation import DataError

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
    acc = BudgetAccountant(epsilon=1.0)
    out = release_answers(query, wine.raw_private, 0.4, n_records=len(wine.raw_private),
                          relation="add_remove", group=column, groups=groups, accountant=acc,
                          dataset="wine")
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


def test_per_group_release_is_refused_under_replace_one(wine):
    column, groups = _group(wine)
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(DataError, match="add or remove one record"):
        release_answers(count(column, groups[0]), wine.raw_private, 0.5,
                        n_records=len(wine.raw_private), relation="replace", group=column,
                        groups=groups, accountant=acc, dataset="wine")
    assert len(acc) == 0


def test_a_release_uses_fresh_entropy_and_the_stated_scale(wine):
    column, groups = _group(wine)
    query = count(column, groups[0])
    acc = BudgetAccountant()
    a, b = (release_answers(query, wine.raw_private, 0.5, n_records=len(wine.raw_private),
                            accountant=acc, dataset="wine") for _ in range(2))
    assert a["answer"].iloc[0] != b["answer"].iloc[0]  # identical settings, new noise
    assert a["scale"].iloc[0] == pytest.approx(1 / 0.5)  # Laplace(Δ/ε), Δ = 1 for a count


def test_publishing_per_group_on_the_page_records_parallel_parts():
    at = open_page(builtin_name="wine")
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
    assert np.isfinite(released[0]["answer"]).all()
