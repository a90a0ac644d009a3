"""What an attacker can do against a plan, and the plan's ε as an interval
(:mod:`dpcore.planning.attacker`)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.composition import PLD_DISCRETISATION, pld_interval
from dpcore.planning.attacker import FALSE_ALARMS, attacker_table, interval_table
from dpcore.planning.tradeoff import tradeoff


@pytest.mark.parametrize(("epsilons", "mechanism"), [([1.0], "laplace"), ([0.05] * 100, "laplace"),
                                                     ([0.5, 0.25], "pure")])
def test_attacker_table_is_the_tradeoff_curve_at_the_false_alarms(epsilons, mechanism):
    table = attacker_table(epsilons, mechanism=mechanism)
    assert list(table["fpr"]) == list(FALSE_ALARMS)
    np.testing.assert_array_equal(table["tpr"], tradeoff(epsilons, list(FALSE_ALARMS),
                                                         mechanism=mechanism))
    total = sum(epsilons)
    np.testing.assert_allclose(table["tpr_from_total"],
                               np.minimum(1.0, np.exp(total) * np.array(FALSE_ALARMS)))
    # the PLD's curve is above the exact one by at most e^(k Δ) - 1 for k releases, and
    # Δ e^(ε + Δ) for one (dpcore.planning.tradeoff's docstring)
    step = PLD_DISCRETISATION
    slack = max(np.expm1(len(epsilons) * step), step * np.exp(total + step))
    assert (table["tpr"] <= table["tpr_from_total"] + slack).all()
    assert (table["tpr"] >= table["fpr"]).all() and table["tpr"].is_monotonic_increasing


def test_many_small_releases_leave_the_attacker_far_below_the_total():
    table = attacker_table([0.05] * 100)
    assert (table["tpr_from_total"] == 1.0).all() and (table["tpr"] < 0.25).all()


@pytest.mark.parametrize("mechanism", ["laplace", "pure"])
def test_interval_table_is_pld_interval_beside_the_sequential_total(mechanism):
    epsilons = [0.2] * 5
    row = interval_table(epsilons, mechanism=mechanism, delta_slack=1e-5).iloc[0]
    names = ["Laplace" if mechanism == "laplace" else None] * 5
    got = pld_interval(epsilons, delta_slack=1e-5, mechanisms=names)
    assert (row["optimistic"], row["point"], row["pessimistic"], row["delta"]) == (
        got.optimistic, got.point, got.pessimistic, got.delta)
    assert row["optimistic"] <= row["point"] <= row["pessimistic"]
    assert row["sequential"] == pytest.approx(1.0)
