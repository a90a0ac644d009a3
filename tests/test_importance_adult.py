"""Acceptance on the built-in Adult split (Ji & Elkan Sect. 5-6): trends of Figs 1-2, Theorem 2.

Fixed seeds, 100 bootstrap replicates as in the paper. Thresholds come from the paper's figures or
from theory, each stated where it is used.
"""

import numpy as np
import pytest

from dpcore.datasets import load_scenario
from dpcore.importance import monte_carlo, summarise, theory_curves
from dpcore.queries import indicator

pytestmark = pytest.mark.slow  # the paper's figures reproduced on Adult
REPS = 100


def median_se(sd):
    """Standard error of a median of REPS draws: sqrt(pi/2) sd / sqrt(REPS) (normal shape)."""
    return np.sqrt(np.pi / 2) * np.asarray(sd) / np.sqrt(REPS)


@pytest.fixture(scope="module")
def adult():
    sc = load_scenario("adult")
    return sc, indicator((sc.target, "==", 1))


@pytest.fixture(scope="module")
def by_lambda(adult):
    sc, q = adult
    lambdas = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0]
    return summarise(monte_carlo(sc.private, sc.public, q, lambdas, [0.1], REPS, rng=0))


@pytest.fixture(scope="module")
def grid(adult):
    sc, q = adult
    mc = monte_carlo(sc.private, sc.public, q, [0.01, 0.1, 1.0], [0.01, 0.1, 1.0, 10.0], REPS,
                     rng=0)
    theory = theory_curves(sc.private, sc.public, q, [0.01, 0.1, 1.0], [0.01, 0.1, 1.0, 10.0])
    return summarise(mc).merge(theory, on=["lam", "epsilon"]), mc


def test_public_mean_and_truth_match_the_paper(adult):
    sc, q = adult
    # Sect. 6: the public mean is "around 0.15", the truth "approximately 0.3".
    assert q.evaluate(sc.public).mean() == pytest.approx(0.15, abs=0.02)
    assert q.evaluate(sc.private).mean() == pytest.approx(0.30, abs=0.02)


def test_default_estimate_is_much_closer_to_truth_than_the_public_mean(grid):
    summary, mc = grid
    row = summary[(summary.lam == 0.1) & (summary.epsilon == 0.1)].iloc[0]
    truth, public = mc.truth.iloc[0], mc.public_mean.iloc[0]
    # "Much closer": at most half the public mean's distance (Fig. 1 shows ~0.3 vs 0.15).
    assert abs(row["median"] - truth) < 0.5 * abs(public - truth)


def test_fig1_more_regularisation_less_spread_more_pull_to_public(by_lambda, grid):
    _, mc = grid
    public = mc.public_mean.iloc[0]
    assert np.all(np.diff(by_lambda.sd.to_numpy()) < 0)
    # Medians are compared from the paper's default lambda = 0.1 up: below it the noise norm
    # d^1.5/(N_D lam eps) exceeds 20 and the weights saturate, so medians are not informative.
    # Each step up in lambda may not move the median away from the public mean by more than
    # two standard errors of the difference of two medians.
    upper = by_lambda[by_lambda.lam >= 0.1]
    distance = np.abs(upper["median"].to_numpy() - public)
    se = median_se(upper.sd.to_numpy())
    slack = 2 * np.hypot(se[1:], se[:-1])
    assert np.all(np.diff(distance) < slack), (np.diff(distance), slack)
    assert distance[-1] < distance[0]  # over the whole range the pull is plain


def test_fig2_more_budget_less_spread_same_centre(grid):
    summary, mc = grid
    at = summary[summary.lam == 0.1].sort_values("epsilon")
    assert np.all(np.diff(at.sd.to_numpy()) < 0)
    gap = abs(mc.truth.iloc[0] - mc.public_mean.iloc[0])
    # "Little effect on its mean" (Fig. 2): medians from eps = 0.1 on stay within 15 % of the
    # truth-to-public gap of each other, up to two standard errors of the difference of two
    # medians (the spread at eps = 0.1 is large).
    upper = at[at.epsilon >= 0.1]
    medians, se = upper["median"].to_numpy(), median_se(upper.sd.to_numpy())
    diffs = np.abs(medians[:, None] - medians[None, :])
    slack = 2 * np.hypot(se[:, None], se[None, :])
    assert np.all(diffs < 0.15 * gap + slack), diffs


def test_measured_variance_below_theorem2_bound(grid):
    summary, _ = grid
    assert np.all(summary.variance < summary.bound_delta)
    np.testing.assert_allclose(summary.bound_printed_solver, 4 * summary.bound_delta, rtol=1e-12)
    # The paper's formula leaves out the solver term of the noise scale, so it lies below.
    assert np.all(summary.bound_printed < summary.bound_printed_solver)


def test_plugin_predicts_measured_variance_where_linearisation_holds(grid):
    summary, _ = grid
    # The probe: 0.74-1.21 everywhere except lam = 0.01 with eps <= 1, where the noise is
    # too large for a linearisation. The relative SE of a variance from 100 replicates is about
    # sqrt(2/99) = 0.14; seven points are checked at once, so each gets three SE (0.57-1.43),
    # which a wrong prediction (off by 2x) still fails.
    held = summary[~((summary.lam == 0.01) & (summary.epsilon <= 1.0))
                   & (summary.epsilon >= 0.1)]
    ratio = held.variance / held.plugin
    rse = np.sqrt(2 / (REPS - 1))
    assert ratio.between(1 - 3 * rse, 1 + 3 * rse).all(), ratio.to_list()


def test_compact_encoding_matches_the_papers_63_components():
    sc = load_scenario("adult", encoding="compact")
    assert sc.dimension.columns + 1 == 63  # 62 items plus the intercept
    assert sc.dimension.coefficients(intercept=True, target=True) == 63 and sc.d == 61
    assert load_scenario("adult").dimension.coefficients(intercept=True, target=True) == 114


def test_laplace_perturbation_sensitivity_matches_sect_5_1():
    # "The L1 sensitivity of the private dataset is at least 24": 12 one-hot groups, two items
    # each move when one record replaces another.
    assert load_scenario("adult").record_l1_sensitivity == 24
