"""The masking release builder (:mod:`dpcore.releases.masking`), without Streamlit."""

import numpy as np
import pytest
from releases_support import refused, spent_before_noise, watch_release

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.datasets.builtin import load_scenario
from dpcore.releases import masking as release
from dpcore.studies.masking import load_task

N = 60


@pytest.fixture(scope="module")
def task():
    return load_task("toy")


def publish(scenario, task, accountant):
    return release.publish(scenario, task, epsilon=1.0, lam=0.5, n=N, bounded=True,
                           initial=None, accountant=accountant)


def test_spends_through_the_ledger_before_any_noise(monkeypatch, task):
    acc = BudgetAccountant(epsilon=2.0)
    events = watch_release(monkeypatch, acc)
    gen = publish(load_scenario("three-gaussians"), task, acc)
    assert spent_before_noise(events)
    assert len(acc) == 1
    assert acc.spent[0] == pytest.approx(1.0)
    table = release.masked_table(task, gen)
    assert len(table) == N == len(gen.masked_y_)
    assert list(table.columns) == ["label", *task.feature_names]
    assert set(table["label"]) <= set(task.class_names)
    np.testing.assert_allclose(table[list(task.feature_names)].to_numpy(),
                               task.to_records(gen.masked_X_))


def test_refused_over_budget_before_any_noise(monkeypatch, task):
    with refused(monkeypatch, 0.5, BudgetExceeded) as acc:
        publish(load_scenario("three-gaussians"), task, acc)


def test_refused_when_the_public_set_is_derived_from_the_private_one(monkeypatch, task):
    with refused(monkeypatch, 2.0, match="Publishing is refused") as acc:
        publish(load_scenario("three-gaussians", public="identical"), task, acc)
