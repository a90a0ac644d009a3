"""The one-run audit's bound, :func:`dpcore.audit.one_run_epsilon` (Steinke, Nasr & Jagielski
2023), against computations written here independently of it.

For delta = 0 the bound is the epsilon at which ``P(Binomial(r, e^eps / (1 + e^eps)) >= v)``
equals ``1 - confidence``. The reference solves that equation with scipy's binomial survival
function and Brent's root finder (``xtol`` 1e-12), whereas the library inverts the regularised
incomplete beta function; the acceptance tolerance of the issue is 1e-3. For delta > 0 the
reference is the paper's p-value written as a plain loop over the binomial masses.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, special, stats

from dpcore.audit import one_run_epsilon

#: Agreement asked by the issue (the reference itself is solved to 1e-12).
TOLERANCE = 1e-3


def _reference(guesses: int, correct: int, confidence: float = 0.95) -> float:
    """The epsilon with ``P(Binomial(r, expit(eps)) >= v) = 1 - confidence`` (0 when the tail
    at epsilon = 0 is already at least ``1 - confidence``)."""
    def excess(eps: float) -> float:
        return stats.binom.sf(correct - 1, guesses, special.expit(eps)) - (1.0 - confidence)

    if excess(0.0) >= 0.0:
        return 0.0
    return optimize.brentq(excess, 0.0, 60.0, xtol=1e-12)


def _p_value(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """The approximate-DP p-value as the paper states it, one binomial mass at a time."""
    q = 1.0 / (1.0 + np.exp(-eps))
    tail = stats.binom.sf(v - 1, r, q)
    worst, mass = 0.0, 0.0
    for i in range(1, v + 1):
        mass += stats.binom.pmf(v - i, r, q)
        worst = max(worst, mass / i)
    return min(1.0, tail + worst * delta * 2 * m)


def test_the_issue_example_agrees_with_the_binomial_tail():
    got = one_run_epsilon(100, 90)
    assert got == pytest.approx(_reference(100, 90), abs=TOLERANCE)
    tail = stats.binom.sf(89, 100, special.expit(got))
    assert tail == pytest.approx(0.05, rel=1e-6)  # exactly 1 - confidence
    # every smaller epsilon is rejected: its tail is below 0.05
    assert stats.binom.sf(89, 100, special.expit(got - 1e-3)) < 0.05


GRID = [(r, v, c) for r in (1, 2, 5, 10, 37, 100, 500, 2000)
        for v in sorted({0, r // 2, r // 2 + 1, (3 * r) // 5, (3 * r) // 4, (9 * r) // 10,
                         max(r - 1, 0), r})
        for c in (0.9, 0.95, 0.99)]


@pytest.mark.parametrize(("guesses", "correct", "confidence"), GRID)
def test_a_grid_agrees_with_the_binomial_tail(guesses, correct, confidence):
    got = one_run_epsilon(guesses, correct, confidence=confidence)
    assert got == pytest.approx(_reference(guesses, correct, confidence), abs=TOLERANCE)


def test_at_most_half_right_gives_zero_and_all_right_has_a_closed_form():
    for r in range(1, 61):
        assert all(one_run_epsilon(r, v) == 0.0 for v in range(r // 2 + 1))
        # all r right: P(B >= r) = q^r = 0.05, so q = 0.05^(1/r) (below 1/2 for r < 5: 0)
        expected = max(0.0, float(special.logit(0.05 ** (1 / r))))
        assert one_run_epsilon(r, r) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_an_exactly_epsilon_dp_guesser_exceeds_its_epsilon_at_most_five_percent_of_runs(epsilon):
    """Randomised response at epsilon is epsilon-DP and each guess is right with probability
    expit(epsilon): the exact probability (a sum over the binomial law, no simulation) that the
    bound exceeds epsilon is at most 1 - confidence."""
    r = 200
    counts = np.arange(r + 1)
    over = np.array([one_run_epsilon(r, int(v)) > epsilon for v in counts])
    assert stats.binom.pmf(counts[over], r, special.expit(epsilon)).sum() <= 0.05


@pytest.mark.parametrize(("guesses", "correct", "canaries", "delta"),
                         [(100, 90, 1000, 1e-5), (100, 100, 100, 1e-3), (50, 40, 10_000, 1e-6),
                          (1000, 700, 1000, 1e-4)])
def test_delta_follows_the_papers_p_value(guesses, correct, canaries, delta):
    got = one_run_epsilon(guesses, correct, delta=delta, canaries=canaries)
    assert 0.0 < got <= one_run_epsilon(guesses, correct)  # delta only weakens the bound
    # the reported epsilon is rejected, one a little larger is not (bisection to 1e-10)
    assert _p_value(canaries, guesses, correct, got, delta) < 0.05
    assert _p_value(canaries, guesses, correct, got + 1e-6, delta) >= 0.05


def test_a_vanishing_delta_gives_the_pure_bound():
    assert one_run_epsilon(100, 90, delta=1e-18, canaries=1000) == pytest.approx(
        one_run_epsilon(100, 90), abs=1e-6)


def test_delta_too_large_for_the_guesses_gives_zero():
    # 2 m delta = 20 and P(B < 90) / 90 > 1/100 at epsilon = 0: p-value > 0.05 everywhere
    assert one_run_epsilon(100, 90, delta=1e-2, canaries=1000) == 0.0


@pytest.mark.parametrize(("args", "kwargs", "error", "match"), [
    ((0, 0), {}, ValueError, "no guess"),
    ((100, 101), {}, ValueError, "swapped"),
    ((100, -1), {}, ValueError, "right guesses"),
    ((100.0, 90), {}, TypeError, "guesses must be an int"),
    ((100, True), {}, TypeError, "correct must be an int"),
    ((100, 90), {"delta": 1e-5}, ValueError, "canaries="),
    ((100, 90), {"delta": 1e-5, "canaries": 50}, ValueError, "canaries >= guesses"),
    ((100, 90), {"delta": 1.0}, ValueError, "delta"),
    ((100, 90), {"confidence": 1.0}, ValueError, "confidence"),
])
def test_invalid_input_says_what_to_do(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        one_run_epsilon(*args, **kwargs)


def test_the_grid_of_the_acceptance_is_not_trivial():
    """The grid holds both outcomes: bounds of 0 and bounds well above 0."""
    values = [one_run_epsilon(r, v, confidence=c) for r, v, c in GRID]
    assert min(values) == 0.0 and max(values) > 5.0
    assert sum(x > 0.0 for x in values) > len(GRID) // 3
