"""ε of a plan as an interval, :func:`dpcore.planning.pld_interval` (issue 37, item 4).

The optimistic total rounds every privacy loss down to the grid, the pessimistic one up, and the
point value is connect-the-dots (pessimistic, tighter). Derived in the function's docstring:
the exact ε lies in ``[optimistic, point]``, and ``pessimistic - optimistic <= k Δ`` for k
releases on a grid of step Δ. ``FLOAT`` covers double-precision rounding and the at most 1e-15
of mass that dp-accounting's tail truncation moves (negligible at δ = 1e-6).
"""

from __future__ import annotations

import math

import pytest

from dpcore.composition import PLD_DISCRETISATION, compose
from dpcore.planning import EpsilonInterval, pld_interval

FLOAT = 1e-9
STEPS = (1e-2, 1e-3, PLD_DISCRETISATION)
PLANS = {
    "Laplace": dict(epsilons=[0.05] * 100, mechanisms=["Laplace"] * 100),
    "pure": dict(epsilons=[0.2] * 20),
    "mixed": dict(epsilons=[0.5, 0.9, 0.3, 0.3], deltas=[0.0, 1e-6, 1e-7, 0.0],
                  rhos=[None, 0.02, None, None], mechanisms=["Laplace", None, None, None]),
}


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("name", sorted(PLANS))
def test_optimistic_point_pessimistic_are_ordered_and_within_k_steps(name, step):
    plan = PLANS[name]
    got = pld_interval(**plan, discretisation=step)
    assert isinstance(got, EpsilonInterval) and got.discretisation == step
    assert got.optimistic <= got.point + FLOAT
    assert got.point <= got.pessimistic + FLOAT
    assert got.pessimistic - got.optimistic <= len(plan["epsilons"]) * step + FLOAT


def test_the_interval_shrinks_with_the_step():
    widths = [pld_interval(**PLANS["Laplace"], discretisation=s) for s in STEPS]
    gaps = [w.pessimistic - w.optimistic for w in widths]
    assert gaps[0] > gaps[1] > gaps[2] > 0.0
    # every finer interval inside the widest one's reach, and converging on one value
    assert abs(widths[2].point - widths[1].point) <= 100 * STEPS[1] + FLOAT


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-6), (0.5, 1e-3), (3.0, 0.05)])
def test_one_laplace_release_brackets_its_exact_epsilon(epsilon, delta, step):
    """One Laplace release at ε has δ(ε') = 1 - e^((ε' - ε)/2) for ε' <= ε (the hockey-stick
    divergence of Lap(0, 1/ε) and Lap(1, 1/ε)), so its exact ε at δ is ε + 2 ln(1 - δ)."""
    exact = epsilon + 2.0 * math.log1p(-delta)
    got = pld_interval([epsilon], delta_slack=delta, mechanisms=["Laplace"],
                       discretisation=step)
    assert got.optimistic - FLOAT <= exact <= got.point + FLOAT
    assert got.point <= got.pessimistic + FLOAT
    assert got.pessimistic - got.optimistic <= step + FLOAT


def test_the_point_is_the_total_compose_reports():
    plan = PLANS["Laplace"]
    got = pld_interval(**plan)
    assert compose(plan["epsilons"], method="pld", delta_slack=1e-6,
                   mechanisms=plan["mechanisms"]) == (got.point, got.delta)
    mixed = pld_interval(**PLANS["mixed"])
    # the (0.3, 1e-7) pair adds its δ; the Gaussian (a ρ) has its δ in its own curve
    assert mixed.delta == pytest.approx(1e-7 + 1e-6)


def test_free_releases_cost_nothing_and_bad_input_says_what_to_do():
    assert pld_interval([0.0, 0.0]) == EpsilonInterval(0.0, 0.0, 0.0, 1e-6, PLD_DISCRETISATION)
    with pytest.raises(ValueError, match="delta_slack"):
        pld_interval([1.0], delta_slack=0.0)
    with pytest.raises(ValueError, match="discretisation"):
        pld_interval([1.0], discretisation=0.0)
    with pytest.raises(ValueError, match="epsilons must be >= 0"):
        pld_interval([-1.0])
