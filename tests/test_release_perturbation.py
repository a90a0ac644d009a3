"""The perturbation release builder (:mod:`dpcore.releases.perturbation`), without Streamlit."""

import datetime as dt
import json

import numpy as np
import pytest
from releases_support import refused, spent_before_noise, watch_release

from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.datasets.builtin import load_scenario
from dpcore.perturbation.experiments import public_prior, scenario_arrays
from dpcore.releases import perturbation as release


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("breast-cancer")


@pytest.fixture(scope="module")
def arrays(scenario):
    return scenario_arrays(scenario), scenario_arrays(scenario, part="public")


@pytest.mark.parametrize("method", sorted(release.METHODS))
def test_spends_through_the_ledger_before_any_noise(monkeypatch, scenario, arrays, method):
    private, public = arrays
    prior = public_prior(public.X, public.y, data_norm=private.data_norm, fit_intercept=True,
                         classes=private.classes)
    acc = BudgetAccountant(epsilon=2.0)
    events = watch_release(monkeypatch, acc)
    model = release.publish(scenario, private, epsilon=1.0, lam=0.01, method=method,
                            intercept=True, prior=prior, accountant=acc)
    assert spent_before_noise(events)
    assert len(acc) == 1
    assert model.coef_.shape == (1, private.X.shape[1])
    X, y, name = release.evaluation_set(private, public)
    held_out = private.X_test is not None
    expected = (private.X_test, private.y_test) if held_out else (public.X, public.y)
    assert X is expected[0] and y is expected[1]
    assert name == ("the held-out test part" if held_out else "the public set E")
    error = 1.0 - model.score(X, y)
    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    handed = json.loads(release.released_json(model, private, error=error, test_set=name,
                                              dataset=scenario.title, published=when))
    assert handed["features"] == list(private.features)
    assert handed["n_train"] == private.X.shape[0]
    assert handed["published"] == "2026-01-02T03:04:05+00:00"
    np.testing.assert_allclose(handed["test_error"], error)


def test_settings_name_the_release():
    assert release.settings(1.0, 0.0123, "amp", True) == (
        "ε = 1, λ = 0.0123, approximate minima perturbation, centred on the public model")
    assert release.settings(0.5, 0.1, "output", False) == "ε = 0.5, λ = 0.1, output perturbation"


def test_refused_over_budget_before_any_noise(monkeypatch, scenario, arrays):
    with refused(monkeypatch, 0.5, BudgetExceeded) as acc:
        release.publish(scenario, arrays[0], epsilon=1.0, lam=0.01, method="amp",
                        intercept=True, prior=None, accountant=acc)


def test_refused_when_the_public_set_is_derived_from_the_private_one(monkeypatch):
    derived = load_scenario("breast-cancer", public="identical")
    with refused(monkeypatch, 2.0, match="Publishing is refused") as acc:
        release.publish(derived, scenario_arrays(derived), epsilon=1.0, lam=0.01,
                        method="output", intercept=True, prior=None, accountant=acc)
