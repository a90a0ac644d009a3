"""The importance release builder (:mod:`dpcore.releases.importance`), without Streamlit."""

import numpy as np
import pytest
from releases_support import refused, spent_before_noise, watch_release

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.datasets.builtin import load_scenario
from dpcore.importance.mechanism import balanced_fit
from dpcore.releases import importance as release


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("mvn-shift")


def test_spends_through_the_ledger_before_any_noise(monkeypatch, scenario):
    acc = BudgetAccountant(epsilon=1.0)
    events = watch_release(monkeypatch, acc)
    iw = release.publish(scenario, epsilon=0.5, lam=0.1, accountant=acc)
    assert spent_before_noise(events)
    assert len(acc) == 1
    assert acc.spent[0] == pytest.approx(0.5)
    # one weight per public record, positive, released as the table handed over
    assert iw.weights_.shape == (len(scenario.public),)
    assert np.all(iw.weights_ > 0)
    table = release.released_table(scenario, iw.weights_)
    assert list(table.columns) == ["weight", *scenario.public.columns]
    np.testing.assert_array_equal(table["weight"].to_numpy(), iw.weights_)


def test_two_releases_draw_fresh_noise_with_or_without_a_kept_step1(scenario):
    """Step 1 kept by the page (no noise in it) or fitted afresh: each release draws its own
    noise from the operating system, so two releases differ."""
    step1 = balanced_fit(scenario.private, scenario.public, 0.1)
    kept = release.publish(scenario, epsilon=1.0, lam=0.1, step1=step1,
                           accountant=BudgetAccountant(epsilon=1.0))
    fresh = release.publish(scenario, epsilon=1.0, lam=0.1,
                            accountant=BudgetAccountant(epsilon=1.0))
    assert kept.beta_.shape == fresh.beta_.shape
    assert not np.array_equal(kept.beta_, fresh.beta_)
    assert release.settings(0.5, 0.1) == "ε = 0.5, λ = 0.1"


def test_refused_over_budget_before_any_noise(monkeypatch, scenario):
    with refused(monkeypatch, 0.4, BudgetExceeded) as acc:
        release.publish(scenario, epsilon=0.5, lam=0.1, accountant=acc)


def test_refused_when_the_public_set_is_derived_from_the_private_one(monkeypatch):
    derived = load_scenario("mvn-shift", public="bootstrap")
    with refused(monkeypatch, 1.0, match="Publishing is refused") as acc:
        release.publish(derived, epsilon=0.5, lam=0.1, accountant=acc)
