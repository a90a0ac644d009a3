"""The plan's PLD total as an interval (issue 37 item 4): :func:`dpcore.composition.
pld_interval_parts` over the parts of a partition and :func:`dpcore.planning.plan_interval`
for the composition view's plan, with the ledger, beside the point value the table shows."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dpcore.composition import PlannedRelease, compose, pld_interval, pld_interval_parts
from dpcore.planning import (
    compare_compositions,
    plan_interval,
    plan_targets,
    records_interval,
    target_records,
)


def laplace(epsilon: float, part: str | None = None) -> dict:
    return {"dataset": "D", "partition": part, "epsilon": epsilon, "delta": 0.0,
            "mechanism": "Laplace"}


def test_parts_take_the_most_exposed_person():
    records = [laplace(1.0, "north"), laplace(1.0, "north"), laplace(1.0, "south"),
               laplace(0.5)]
    got = pld_interval_parts(records, 1e-6)
    assert got == pld_interval([1.0, 1.0, 0.5], delta_slack=1e-6, mechanisms=["Laplace"] * 3)
    assert got.optimistic <= got.point <= got.pessimistic


def test_no_release_is_refused_with_what_to_do():
    with pytest.raises(ValueError, match="add one"):
        pld_interval_parts([], 1e-6)
    row = plan_interval([]).iloc[0]
    assert "add one" in row["problem"] and math.isnan(row["point"]) and row["sequential"] == 0


def test_plan_interval_is_the_tables_pld_point_with_the_ledger():
    plan = [PlannedRelease("Laplace", 0.05, 0.0, 100, None, None)]
    ledger = pd.DataFrame([{"dataset": "D", "partition": None, "partition_rule": None,
                            "epsilon": 0.3, "delta": 0.0, "rho": None,
                            "mechanism": "Laplace"}])
    row = plan_interval(plan, 1e-6, ledger=ledger).iloc[0]
    expected = pld_interval([0.3] + [0.05] * 100, delta_slack=1e-6,
                            mechanisms=["Laplace"] * 101)
    assert (row["optimistic"], row["point"], row["pessimistic"]) == (
        expected.optimistic, expected.point, expected.pessimistic)
    assert row["sequential"] == pytest.approx(5.3) and row["problem"] == ""
    table = compare_compositions(plan, 1e-6, ledger=ledger).set_index("method")
    assert table.loc["pld", "epsilon"] == row["point"]  # smaller than the sequential 5.3
    # Δ = 1e-4 on 101 releases: the pessimistic total exceeds the optimistic by at most kΔ
    assert row["pessimistic"] - row["optimistic"] <= 101 * row["discretisation"]


def test_a_plan_of_targets_has_the_interval_of_its_pld_total():
    targets = [{"statistic": "count", "sensitivity": 1.0, "error": 10.0},
               {"statistic": "sum", "sensitivity": 100.0, "error": 2000.0,
                "mechanism": "gaussian"},
               {"statistic": "model", "mechanism": "fixed", "epsilon": 0.5}]
    plan = plan_targets(targets, method="pld", delta=1e-6, delta_slack=1e-6)
    records = target_records(plan)
    assert [r["mechanism"] for r in records] == ["Laplace", "Gaussian", "study"]
    assert records[0]["rho"] is None and records[1]["rho"] > 0
    row = records_interval(records, 1e-6).iloc[0]
    total = plan.attrs["total"][0]
    # plan_targets composes these records under pld: the table's total is the point value,
    # or the sequential one when that is smaller
    assert total == min(row["point"], row["sequential"])
    assert row["optimistic"] <= row["point"] <= row["pessimistic"]
    assert compose([r["epsilon"] for r in records], [r["delta"] for r in records], "pld",
                   1e-6, rhos=[r["rho"] for r in records],
                   mechanisms=[r["mechanism"] for r in records])[0] == total
