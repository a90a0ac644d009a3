"""The attacker's trade-off curve, :func:`dpcore.planning.tradeoff` (issue 37, item 3), and an
audit's (FPR, TPR) point against it (:func:`dpcore.audit.point_against_curve`).

Tolerances, derived in :mod:`dpcore.planning.tradeoff`: the PLD curve is an upper bound on the
exact one; for one Laplace release at ε it exceeds it by at most ``Δ e^(ε + Δ)`` (connect-the-
dots is exact at the grid points; the bounds' slopes in ε' are at most ``e^ε'``); for k
releases by at most ``e^(kΔ) - 1`` (each loss rounded up by less than Δ). ``FLOAT`` covers
rounding in double precision only (sums of masses of order 1: a few ulps).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from scipy import special, stats

from dpcore.audit import point_against_curve
from dpcore.composition import PLD_DISCRETISATION, plan_pld
from dpcore.planning import dp_tradeoff, laplace_tradeoff, tradeoff

FLOAT = 1e-12
STEP = PLD_DISCRETISATION
FPR = np.unique(np.r_[0.0, np.geomspace(1e-9, 1.0, 400), np.linspace(0.0, 1.0, 201)])


def test_one_laplace_release_at_one_is_at_most_e_times_the_fpr():
    """The issue's acceptance: at FPR 1 %, ε = 1 lets the attacker reach e · 1 % at most, and
    the Laplace reaches it (1 % is below the knee e^-1 / 2 of its curve)."""
    got = float(tradeoff([1.0], [0.01])[0])
    assert got <= math.e * 0.01 + FLOAT
    assert got == pytest.approx(math.e * 0.01, abs=FLOAT)


@pytest.mark.parametrize(("epsilons", "mechanism"), [
    ([1.0], "laplace"), ([0.3, 2.0], "laplace"), ([0.05] * 100, "laplace"),
    ([0.5] * 10, "pure"),
])
def test_the_curve_is_monotone_concave_and_between_the_fpr_and_one(epsilons, mechanism):
    tpr = tradeoff(epsilons, FPR, mechanism=mechanism)
    assert np.all(np.diff(tpr) >= 0.0)
    assert np.all(tpr >= FPR) and np.all(tpr <= 1.0)
    grid = np.linspace(0.0, 1.0, 1001)
    on_grid = tradeoff(epsilons, grid, mechanism=mechanism)
    assert np.all(np.diff(on_grid, 2) <= FLOAT)  # concave: second differences <= 0


def test_one_hundred_laplace_releases_lie_below_sequential_composition():
    """100 releases at 0.05 against one pure ε = 5 release (the sequential total), whose curve
    is ``min(1, e^5 α, 1 - e^-5 (1 - α))`` at every FPR of the grid."""
    composed = tradeoff([0.05] * 100, FPR)
    sequential = np.minimum(1.0, np.minimum(math.exp(5.0) * FPR,
                                            1.0 - math.exp(-5.0) * (1.0 - FPR)))
    assert np.all(composed <= sequential + FLOAT)
    # and far below it where the attacker cares: 1 % and 10 % false alarms
    low = tradeoff([0.05] * 100, [0.01, 0.1])
    assert low[0] < 0.05 and low[1] < 0.3  # sequential: 0.993 and 0.994


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("step", [1e-2, STEP])
def test_one_laplace_release_agrees_with_its_closed_form(epsilon, step):
    exact = tradeoff([epsilon], FPR, method="exact")
    got = tradeoff([epsilon], FPR, discretisation=step)
    assert np.all(got >= exact - FLOAT)  # an upper bound
    assert np.max(got - exact) <= step * math.exp(epsilon + step) + FLOAT


def test_the_closed_forms():
    # Laplace at ε: e^ε α up to the knee e^-ε / 2, then 1 - e^-ε / (4 α), then 1 - e^-ε (1 - α)
    eps = 1.0
    knee = math.exp(-eps) / 2
    assert laplace_tradeoff(eps, knee) == pytest.approx(0.5)
    assert laplace_tradeoff(eps, 0.5) == pytest.approx(1 - math.exp(-eps) / 2)
    assert laplace_tradeoff(eps, 0.3) == pytest.approx(1 - math.exp(-eps) / 1.2)
    assert laplace_tradeoff(0.0, FPR) == pytest.approx(FPR)  # ε = 0: guessing only
    # the Laplace's curve lies below pure ε-DP's worst case, which touches it below the knee
    assert np.all(laplace_tradeoff(eps, FPR) <= dp_tradeoff(eps, FPR) + FLOAT)
    assert laplace_tradeoff(eps, 0.1) == pytest.approx(dp_tradeoff(eps, 0.1))


def _randomised_response_exact(k: int, epsilon: float, fpr: np.ndarray) -> np.ndarray:
    """Best TPR against k randomised-response releases at ε, by the Neyman-Pearson lemma: the
    log-likelihood ratio is ε (2S - k), S ~ Binomial(k, 1 - p) when the record is out and
    Binomial(k, p) when it is in (p = e^ε / (1 + e^ε)); the best tests reject for S >= s,
    randomised in between, so the curve joins the points (P_out(S >= s), P_in(S >= s))."""
    p = special.expit(epsilon)
    s = np.arange(k, -1, -1)
    out = np.r_[0.0, stats.binom.sf(s - 1, k, 1.0 - p)]
    inside = np.r_[0.0, stats.binom.sf(s - 1, k, p)]
    return np.interp(fpr, out, inside)


@pytest.mark.parametrize(("k", "epsilon"), [(1, 1.0), (10, 0.5), (40, 0.1)])
def test_composed_randomised_response_agrees_with_neyman_pearson(k, epsilon):
    exact = _randomised_response_exact(k, epsilon, FPR)
    got = tradeoff([epsilon] * k, FPR, mechanism="pure")
    assert np.all(got >= exact - FLOAT)
    assert np.max(got - exact) <= math.expm1(k * STEP) + FLOAT


@pytest.mark.parametrize(("epsilons", "mechanism"), [
    ([1.0], "laplace"), ([0.3, 2.0], "laplace"), ([0.5] * 10, "pure"),
])
def test_the_binary_searches_find_the_minimum_over_the_whole_grid(epsilons, mechanism):
    """Against the plain minimum over every grid point ε' = jΔ of the two bounds, with δ(ε')
    from dp-accounting's public ``get_delta_for_epsilon`` (Δ = 1e-3 to keep the grid short)."""
    step = 1e-3
    names = ["Laplace" if mechanism == "laplace" else None] * len(epsilons)
    loss = plan_pld(epsilons, mechanisms=names, discretisation=step)
    grid = np.arange(int(np.sum(np.ceil(np.asarray(epsilons) / step))) + len(epsilons) + 2)
    grid = grid * step
    delta = np.asarray(loss.get_delta_for_epsilon(grid))
    fpr = np.r_[0.0, np.geomspace(1e-9, 1.0, 80)]
    a = fpr[:, None]
    plain = np.minimum(delta + np.exp(grid) * a, 1.0 - np.exp(-grid) * (1.0 - delta - a))
    plain = np.clip(plain.min(axis=1), fpr, 1.0)
    got = tradeoff(epsilons, fpr, mechanism=mechanism, discretisation=step)
    assert np.max(np.abs(got - plain)) <= FLOAT


def test_free_releases_leave_the_attacker_guessing_and_the_shape_is_kept():
    assert np.array_equal(tradeoff([0.0, 0.0], FPR), FPR)
    grid = FPR[:12].reshape(3, 4)
    assert tradeoff([1.0], grid).shape == (3, 4)


@pytest.mark.parametrize(("args", "kwargs", "match"), [
    (([], [0.1]), {}, "non-empty"),
    (([-1.0], [0.1]), {}, ">= 0"),
    (([1.0], [1.5]), {}, r"\[0, 1\]"),
    (([1.0], [np.nan]), {}, r"\[0, 1\]"),
    (([1.0, 2.0], [0.1]), {"method": "exact"}, "method='pld'"),
    (([1.0], [0.1]), {"mechanism": "gaussian"}, "mechanism"),
    (([1.0], [0.1]), {"discretisation": 0.0}, "discretisation"),
])
def test_invalid_input_says_what_to_do(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        tradeoff(*args, **kwargs)


# ----------------------------------------------------------- an audit's point against the curve
def test_a_point_far_above_the_curve_is_flagged_and_one_on_it_is_not():
    curve = functools.partial(tradeoff, [1.0])
    bug = point_against_curve(100, 10_000, 2_000, 10_000, curve)  # TPR 20 % at FPR 1 %
    assert bug.above and bug.tpr_low > bug.allowed
    assert bug.fpr_low < bug.fpr == 0.01 < bug.fpr_high
    assert bug.tpr_low < bug.tpr == 0.2 < bug.tpr_high
    fine = point_against_curve(100, 10_000, 272, 10_000, curve)  # e · 1 %: on the curve
    assert not fine.above


def test_a_mechanism_on_its_curve_is_flagged_at_most_one_minus_confidence_of_the_time():
    """A test of one Laplace release at ε = 1 with FPR 1 % and TPR e · 1 %, exactly the curve:
    the probability (summed exactly over both binomial counts, no simulation) that the point
    comes out above is at most 1 - confidence = 5 %."""
    n, fpr = 2_000, 0.01
    tpr = float(tradeoff([1.0], [fpr])[0])
    curve = functools.partial(laplace_tradeoff, 1.0)  # the closed form: 2 000 calls
    counts = np.arange(n + 1)
    lows = np.array([point_against_curve(0, n, int(k), n, curve).tpr_low for k in counts])
    flagged = 0.0
    for fp in range(0, 80):  # P(more than 80 false positives) < 1e-20 at 20 expected
        allowed = point_against_curve(fp, n, 0, n, curve).allowed
        first = np.searchsorted(lows, allowed, side="right")  # tp whose lower bound > allowed
        flagged += stats.binom.pmf(fp, n, fpr) * stats.binom.sf(first - 1, n, tpr)
    assert 0.0 < flagged <= 0.05


def test_bad_counts_say_what_to_do():
    curve = functools.partial(tradeoff, [1.0])
    with pytest.raises(ValueError, match="at most negatives hits"):
        point_against_curve(11, 10, 1, 10, curve)
    with pytest.raises(ValueError, match="at least one run"):
        point_against_curve(0, 0, 1, 10, curve)
    with pytest.raises(TypeError, match="true_positives must be an int"):
        point_against_curve(1, 10, 1.5, 10, curve)
