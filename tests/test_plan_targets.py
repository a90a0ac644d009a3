"""Several statistics at once (issue 25, section 2): :func:`dpcore.planning.plan_targets`.

The Monte-Carlo checks draw the noise each planned release would add, at the epsilon (and delta)
the planner returns, and count the releases within the error bar. At the smallest epsilon the
probability of meeting the bar is exactly ``level``, so the share over ``RUNS`` independent
draws has mean ``level`` and SD ``sqrt(level (1 - level) / RUNS)``; a share more than
``Z = 4`` SDs below ``level`` fails (probability about 3e-5 per target under the model).
"""

import math

import numpy as np
import pytest

from dpcore.composition import compose
from dpcore.planning import plan_targets

RUNS = 200_000
Z = 4.0
TARGETS = [
    {"statistic": "count of records over 50K", "sensitivity": 1.0, "error": 10.0},
    {"statistic": "sum of hours (0-99)", "sensitivity": 99.0, "error": 2_000.0, "level": 0.9},
    {"statistic": "mean age (0-100, n = 10,000)", "sensitivity": 0.01, "error": 0.05,
     "level": 0.99, "mechanism": "gaussian"},
]


def _noise(row, rng) -> np.ndarray:
    if row.mechanism == "laplace":
        return rng.laplace(scale=row.scale, size=RUNS)
    return rng.normal(scale=row.scale, size=RUNS)


@pytest.mark.parametrize("method", ["sequential", "zcdp", "pld"])
def test_every_target_is_met_in_a_fresh_monte_carlo_run(method):
    plan = plan_targets(TARGETS, method=method, delta=1e-6)
    rng = np.random.default_rng(20261126)
    for row in plan.itertuples():
        within = float(np.mean(np.abs(_noise(row, rng)) <= row.error))
        sd = math.sqrt(row.level * (1.0 - row.level) / RUNS)
        assert within >= row.level - Z * sd, (row.statistic, within)
        # and at the smallest epsilon: a 10 % smaller epsilon misses the bar
        assert row.error_reached == pytest.approx(row.error, rel=1e-9) and row.meets


def test_the_total_is_no_larger_than_answering_each_target_separately():
    alone = [plan_targets([t], delta=1e-6).attrs["total"][0] for t in TARGETS]
    for method in ("sequential", "advanced", "zcdp", "rdp", "pld"):
        plan = plan_targets(TARGETS, method=method, delta=1e-6)
        assert plan["epsilon"].tolist() == pytest.approx(alone, rel=1e-12)
        assert plan.attrs["separately"] == pytest.approx(math.fsum(alone))
        assert plan.attrs["total"][0] <= math.fsum(alone) * (1 + 1e-12)
    many = [{"sensitivity": 1.0, "error": 50.0} for _ in range(100)]  # 100 counts: PLD pays off
    assert plan_targets(many, method="pld").attrs["total"][0] < 0.6 * plan_targets(
        many).attrs["total"][0]


def test_a_fixed_total_is_split_to_minimise_the_worst_shortfall():
    plan = plan_targets(TARGETS, total=1.0, delta=1e-6)
    assert plan.attrs["total"][0] <= 1.0 and plan.attrs["total"][0] == pytest.approx(1.0)
    ratios = plan["error_reached"] / plan["error"]
    assert ratios.to_numpy() == pytest.approx(plan.attrs["factor"], rel=1e-6)  # all fall short
    assert not plan["meets"].any() and plan.attrs["factor"] > 1.0  # alike
    # Any other split of the same total leaves some target worse off. Laplace targets: the
    # error bar reached at epsilon is sensitivity ln(1 / (1 - level)) / epsilon.
    laplace = TARGETS[:2] + [{"sensitivity": 2.0, "error": 1.0, "level": 0.8}]
    best = plan_targets(laplace, total=1.0).attrs["factor"]
    need = np.array([t["sensitivity"] * -math.log1p(-t.get("level", 0.95)) / t["error"]
                     for t in laplace])  # the epsilon each target needs at its error bar
    for split in np.random.default_rng(5).dirichlet(np.ones(3), size=500):
        assert np.max(need / split) >= best * (1 - 1e-9)  # split sums to the total 1.0
    # a generous total meets every target with room to spare
    roomy = plan_targets(TARGETS, total=10.0, delta=1e-6)
    assert roomy["meets"].all() and roomy.attrs["factor"] < 1.0
    assert compose(roomy["epsilon"], roomy["delta"])[0] == pytest.approx(10.0)


def test_targets_without_a_closed_form_or_a_delta_are_refused_with_advice():
    with pytest.raises(ValueError, match="choose-epsilon page"):
        plan_targets([{"statistic": "IW estimate", "sensitivity": 1.0, "error": 0.1,
                       "mechanism": "importance"}])
    with pytest.raises(ValueError, match="sensitivity"):
        plan_targets([{"error": 1.0}])
    with pytest.raises(ValueError, match="delta"):
        plan_targets([TARGETS[2]])  # a Gaussian target needs a delta
    with pytest.raises(ValueError, match="non-empty list"):
        plan_targets([])
