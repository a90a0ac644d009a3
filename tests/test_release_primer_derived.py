"""The primer's release of a derived statistic (:func:`dpcore.releases.primer.publish_derived`)."""

import numpy as np
import pytest
from releases_support import refused, spent_before_noise, watch_release

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.datasets.builtin import load_scenario
from dpcore.primer.derived import parts
from dpcore.releases import primer as release

BOUNDS = (11.0, 15.0)


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


def _publish(scenario, statistic, acc, **kwargs):
    return release.publish_derived(scenario, statistic, column="alcohol", bounds=BOUNDS,
                                   epsilon=0.5, accountant=acc, **kwargs)


def test_a_mean_spends_its_epsilon_before_any_noise(monkeypatch, wine):
    acc = BudgetAccountant(epsilon=1.0, relation="add_remove")
    events = watch_release(monkeypatch, acc)
    out = _publish(wine, "mean", acc)
    assert spent_before_noise(events)
    assert len(acc) == 1 and acc.spent[0] == pytest.approx(0.5)
    assert list(out["part"]) == ["sum", "count"]
    assert list(out["epsilon"]) == [0.25, 0.25]  # the even split (dpcore.primer.derived)
    assert list(out["sensitivity"]) == [15.0, 1.0]  # max(|low|, |high|) and a count's 1
    assert (out["relation"] == "add or remove one record").all()
    row = out.iloc[0]
    assert BOUNDS[0] <= row["low_95"] <= row["high_95"] <= BOUNDS[1]
    assert row["low_95"] <= row["estimate"] <= row["high_95"]


def test_calibrated_under_add_remove_costs_twice_in_a_replace_one_ledger(monkeypatch, wine):
    acc = BudgetAccountant(epsilon=2.0)  # replace one record
    out = _publish(wine, "mean", acc, relation="add_remove")
    assert acc.spent[0] == pytest.approx(1.0)  # group privacy of two steps
    assert list(out["part"]) == ["sum", "count"]
    with refused(monkeypatch, 2.0) as add_remove:  # the other way round: no finite ε
        add_remove.set_relation("add_remove")
        _publish(wine, "mean", add_remove, relation="replace")


def test_a_difference_under_add_remove_composes_its_groups_in_parallel(monkeypatch, wine):
    acc = BudgetAccountant(epsilon=0.6, relation="add_remove")
    events = watch_release(monkeypatch, acc)
    out = _publish(wine, "difference", acc, group="cultivar", value=1)
    assert spent_before_noise(events)
    ledger = acc.records
    assert list(ledger["partition"]) == ["cultivar = 1", "cultivar ≠ 1 (or missing)"]
    assert acc.spent[0] == pytest.approx(0.5)  # the two groups' rows are disjoint
    assert list(out["part"]) == ["sum of A", "count of A", "sum of B", "count of B"]
    assert np.allclose(out["epsilon"], 0.25)


def test_under_replace_one_the_parts_compose_in_sequence(wine):
    acc = BudgetAccountant(epsilon=1.0)
    out = _publish(wine, "difference", acc, group="cultivar", value=1)
    values = wine.raw_private["alcohol"].to_numpy(dtype=float)
    mask = (wine.raw_private["cultivar"] == 1).to_numpy()
    expected = parts("difference", values, bounds=BOUNDS, relation="replace", mask=mask)
    assert list(out["sensitivity"]) == [p.sensitivity for p in expected]
    assert len(acc) == 1 and acc.spent[0] == pytest.approx(0.5)
    assert out["noisy_part"].notna().all()


def test_refused_over_budget_before_any_noise(monkeypatch, wine):
    with refused(monkeypatch, 0.4, BudgetExceeded) as acc:
        _publish(wine, "scaled_sum", acc, factor=0.001)


def test_refused_when_one_group_does_not_fit(monkeypatch, wine):
    acc = BudgetAccountant(epsilon=1.0, relation="add_remove")
    acc.spend(0.6, mechanism="earlier", dataset=wine.title, partition="cultivar ≠ 1 (or missing)",
              partition_rule="cultivar = 1 or not")
    events = watch_release(monkeypatch, acc)
    with pytest.raises(BudgetExceeded):
        _publish(wine, "difference", acc, group="cultivar", value=1)
    assert events == [] and len(acc) == 1  # neither group recorded, nothing drawn


def test_refused_when_the_public_set_is_derived_from_the_private_one(monkeypatch):
    derived = load_scenario("wine", public="identical")
    with refused(monkeypatch, 1.0, match="Publishing is refused") as acc:
        _publish(derived, "rate", acc, group="cultivar", value=1)


def test_what_the_press_says():
    assert release.derived_settings("mean", 0.5, "a_b") == "Laplace, ε = 0.5, the mean of a\\_b"
    assert release.derived_settings("rate", 1.0, "x") == "Laplace, ε = 1, a rate"
    with pytest.raises(ValueError, match="statistic"):
        release.derived_settings("median", 1.0, "x")
