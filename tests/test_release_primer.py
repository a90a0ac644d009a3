"""The primer release builder (:mod:`dpcore.releases.primer`), without Streamlit."""

import pytest
from releases_support import refused, spent_before_noise, watch_release

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.datasets.builtin import load_scenario
from dpcore.primer.columns import candidates
from dpcore.primer.queries import count, group_sensitivity, sensitivity
from dpcore.releases import primer as release


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


def _column(scenario):
    return next(c for c in ("cultivar", "class", "target") if c in scenario.raw_private)


def test_spends_through_the_ledger_before_any_noise(monkeypatch, wine):
    column = _column(wine)
    query = count(column, candidates(wine, column)[0])
    acc = BudgetAccountant(epsilon=1.0)
    events = watch_release(monkeypatch, acc)
    out = release.publish(wine, query, epsilon=0.5, group=None, accountant=acc)
    assert spent_before_noise(events)
    assert len(acc) == 1
    assert list(out.columns) == ["part", "answer", "epsilon", "sensitivity", "scale", "relation"]
    assert list(out["part"]) == ["all records"]
    assert out["sensitivity"].iloc[0] == release.release_sensitivity(wine, query, "replace", None)


def test_one_answer_per_group_is_one_vector_under_replace_one(monkeypatch, wine):
    column = _column(wine)
    groups = candidates(wine, column)
    query = count(column, groups[0])
    acc = BudgetAccountant(epsilon=1.0)
    events = watch_release(monkeypatch, acc)
    out = release.publish(wine, query, epsilon=0.5, group=column, accountant=acc)
    assert spent_before_noise(events)
    assert len(out) == len(groups) + 1 and len(acc) == 1
    sens = release.release_sensitivity(wine, query, "replace", column)
    assert sens == group_sensitivity(query) == out["sensitivity"].iloc[0]
    assert release.release_sensitivity(wine, query, "add_remove", column) == sensitivity(
        query, len(wine.raw_private), "add_remove")


def test_what_the_press_says(wine):
    assert release.settings(0.5, None) == "Laplace, ε = 0.5"
    assert release.settings(1.0, "a_b") == "Laplace, ε = 1, one answer per value of a\\_b"
    assert release.noise(2.0, 0.5, "replace one record") == (
        "Laplace of scale 4 (sensitivity 2 under replace one record)")


def test_refused_over_budget_before_any_noise(monkeypatch, wine):
    column = _column(wine)
    with refused(monkeypatch, 0.4, BudgetExceeded) as acc:
        release.publish(wine, count(column, candidates(wine, column)[0]), epsilon=0.5,
                        group=None, accountant=acc)


def test_refused_when_the_public_set_is_derived_from_the_private_one(monkeypatch):
    derived = load_scenario("wine", public="identical")
    column = _column(derived)
    with refused(monkeypatch, 1.0, match="Publishing is refused") as acc:
        release.publish(derived, count(column, candidates(derived, column)[0]), epsilon=0.5,
                        group=None, accountant=acc)
