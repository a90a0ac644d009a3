"""The subset release builder (:mod:`dpcore.releases.subset`), without Streamlit."""

import numpy as np
import pytest
from releases_support import refused, spent_before_noise, watch_release

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.datasets.builtin import load_scenario
from dpcore.releases import subset as release
from dpcore.subset.experiments import prepare_study
from dpcore.subset.rescale import rescale, scenario_arguments

EPSILON = (0.8, 0.2, 1.0)
SIZES = (10, 60, 110)


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("mvn-shift", p=2)


@pytest.fixture(scope="module")
def setup(scenario):
    return prepare_study(rescale(scenario.private, scenario.public,
                                 **scenario_arguments(scenario)))


def publish(scenario, setup, accountant, *, accounting="calibrated"):
    return release.publish(scenario, setup, epsilon=EPSILON, sizes=SIZES, accounting=accounting,
                           selection="exponential", lam=1e-2, accountant=accountant)


def test_spends_three_entries_each_before_its_noise(monkeypatch, scenario, setup):
    acc = BudgetAccountant(epsilon=3.0)
    events = watch_release(monkeypatch, acc)
    res = publish(scenario, setup, acc)
    assert spent_before_noise(events)
    assert events.count("spend") == 3 and len(acc) == 3
    assert acc.spent[0] == pytest.approx(sum(EPSILON))
    assert res.size in SIZES
    table = release.released_table(scenario, res)
    assert len(table) == res.size
    assert list(table.columns[:2]) == ["dp_weight", "public_rows_alike"]
    assert list(table.columns[2:]) == list(scenario.public.columns)
    np.testing.assert_array_equal(table["dp_weight"].to_numpy(), res.weights)
    assert (table["public_rows_alike"] >= 1).all()


def test_what_the_press_charges_and_says():
    assert release.charged_epsilon(EPSILON, "calibrated", 7.0) == pytest.approx(2.0)
    assert release.charged_epsilon(EPSILON, "as-printed", 7.0) == 7.0
    assert release.settings(EPSILON, 0.01, "calibrated") == (
        "ε = (0.8, 0.2, 1), λ = 0.01, calibrated")


def test_refused_over_budget_before_any_noise(monkeypatch, scenario, setup):
    with refused(monkeypatch, 0.5, BudgetExceeded) as acc:
        publish(scenario, setup, acc)


def test_refused_when_the_public_set_is_derived_from_the_private_one(monkeypatch, setup):
    derived = load_scenario("mvn-shift", p=2, public="bootstrap")
    with refused(monkeypatch, 3.0, match="Publishing is refused") as acc:
        publish(derived, setup, acc)
