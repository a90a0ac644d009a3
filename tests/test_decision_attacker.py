"""The decision's risk (:func:`dpcore.decision.decide.risk_table`): what an attacker can do at
1 % and 10 % false alarms and ε as an interval, in the table, the sentence and the report."""

from __future__ import annotations

import pytest

from dpcore.composition import pld_interval
from dpcore.decision.decide import risk_table
from dpcore.planning import posterior_bound
from dpcore.planning.tradeoff import tradeoff
from dpcore.releases.base import AuditScope


def scope(epsilon: float, others: tuple = ()) -> AuditScope:
    return AuditScope(case="laplace", epsilon=epsilon, step="the noisy count",
                      total=epsilon + sum(e for _, e in others), unaudited=others)


def test_risk_of_one_step_is_its_curve_and_interval():
    r = risk_table(0.05, 1.0, scope(1.0)).iloc[0]
    assert r["posterior_at_most"] == posterior_bound(0.05, 1.0)
    assert r["tpr_at_1pct"] == float(tradeoff([1.0], [0.01], mechanism="pure")[0])
    assert r["tpr_at_10pct"] == float(tradeoff([1.0], [0.1], mechanism="pure")[0])
    got = pld_interval([1.0], delta_slack=1e-6)
    assert (r["epsilon_optimistic"], r["epsilon_point"], r["epsilon_pessimistic"]) == (
        got.optimistic, got.point, got.pessimistic)
    assert r["tpr_at_1pct"] <= 1.0 and r["tpr_at_1pct"] == pytest.approx(0.01 * 2.718, abs=1e-3)


def test_risk_composes_every_step_of_the_release():
    r = risk_table(0.01, 1.0, scope(0.5, (("the other step", 0.5),))).iloc[0]
    expected = tradeoff([0.5, 0.5], [0.01, 0.1], mechanism="pure")
    assert (r["tpr_at_1pct"], r["tpr_at_10pct"]) == (float(expected[0]), float(expected[1]))
    assert r["epsilon_optimistic"] <= r["epsilon_point"] <= r["epsilon_pessimistic"]
