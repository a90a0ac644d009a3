"""Issue 34: the importance and subset pages' defaults are chosen from public information only
(the public set E, N_D, d, ε), seeded, and the non-private references at their own best
penalty."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpcore.datasets import load_scenario
from dpcore.domains import LAMBDAS
from dpcore.importance import (
    PAGE_LOG_WEIGHT_NOISE,
    default_lambda,
    model_distances,
    model_penalty,
    typical_log_weight_noise,
)
from dpcore.model_selection import PENALTIES, cv_accuracy, cv_penalty
from dpcore.studies import subset as subset_study


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


def _flipped(scenario):
    """The same scenario with every private label flipped and the private rows reversed: other
    private data, the same public set and N_D."""
    private = scenario.private.iloc[::-1].reset_index(drop=True)
    private[scenario.target] = 1.0 - private[scenario.target]
    return dataclasses.replace(scenario, private=private)


def test_cv_penalty_is_seeded_and_a_tie_goes_to_the_larger_penalty():
    rng = np.random.default_rng(0)
    x = rng.random((200, 2))
    X = np.column_stack([x, np.ones(200)])
    y = (x[:, 0] + 0.3 * rng.standard_normal(200) > 0.5).astype(float)
    first = cv_penalty(X, y)
    assert first in PENALTIES and first == cv_penalty(X, y)
    # The one-standard-error rule: the largest penalty within one SE of the best, never smaller.
    assert first <= cv_penalty(X, y, one_se=True) in PENALTIES
    np.testing.assert_array_equal(cv_accuracy(X, y, seed=3), cv_accuracy(X, y, seed=3))
    # A signal: a small penalty fits it better than the largest, which shrinks it away.
    scores = cv_accuracy(X, y, [min(PENALTIES), max(PENALTIES)])
    assert scores[0] > scores[1] and first < max(PENALTIES)
    # Labels unrelated to the features: every penalty predicts the majority class alike.
    noise = (rng.random(200) < 0.8).astype(float)
    assert cv_penalty(np.ones((200, 1)), noise) == max(PENALTIES)
    # Too few rows (or one class) to rank penalties: the largest.
    assert cv_penalty(X[:3], y[:3]) == cv_penalty(X, np.ones(200)) == max(PENALTIES)


def test_importance_lambda_is_the_smallest_on_the_grid_within_the_noise_limit(wine):
    E, n = wine.public, len(wine.private)
    for eps in (0.1, 1.0, 10.0):
        lam = default_lambda(E, n, eps, LAMBDAS)
        assert typical_log_weight_noise(E, n, lam, eps) <= PAGE_LOG_WEIGHT_NOISE
        smaller = [v for v in LAMBDAS if v < lam]
        assert not smaller or typical_log_weight_noise(E, n, smaller[-1], eps) \
            > PAGE_LOG_WEIGHT_NOISE
    # The smaller ε·N_D, the larger λ: at a tiny budget the weights tend to uniform.
    lams = [default_lambda(E, n, eps, LAMBDAS) for eps in (10.0, 1.0, 0.1, 0.01)]
    assert lams == sorted(lams) and lams[-1] == max(LAMBDAS)


def test_importance_model_penalty_reads_only_the_public_set(wine):
    group = next(c for c in wine.groups.values() if wine.target in c)
    lam = default_lambda(wine.public, len(wine.private), 1.0, LAMBDAS)
    ours = model_distances(wine.private, wine.public, wine.target, lam, [1.0], 2, rng=0,
                           exclude=group)
    other = model_distances(_flipped(wine).private, wine.public, wine.target, lam, [1.0], 2,
                            rng=0, exclude=group)
    penalty = model_penalty(wine.public, wine.target, group)
    assert ours.attrs["Lambda"] == other.attrs["Lambda"] == penalty
    # The public-only model does not move with the private data either (its accuracy is
    # measured on D, which does).
    assert ours.attrs["accuracy_public_only"] != other.attrs["accuracy_public_only"]


def test_importance_reference_is_the_model_on_d_at_its_own_best_penalty(wine):
    group = next(c for c in wine.groups.values() if wine.target in c)
    lam = default_lambda(wine.public, len(wine.private), 1.0, LAMBDAS)
    dist = model_distances(wine.private, wine.public, wine.target, lam, [1.0, 10.0], 2, rng=0,
                           exclude=group)
    a = dist.attrs
    # Wine's class 0 is learnable: the reference beats the majority class, and so does the
    # model on weighted E at ε = 10 (a seeded study, non-private evaluation on D).
    assert a["best_accuracy_nonprivate"] > a["majority_nonprivate"] + 0.1
    assert a["best_penalty_nonprivate"] in PENALTIES
    weighted = dist.query("model == 'logistic regression' and method == 'importance weights' "
                          "and epsilon == 10")["accuracy_nonprivate"]
    assert weighted.median() > a["majority_nonprivate"]
    again = model_distances(wine.private, wine.public, wine.target, lam, [1.0, 10.0], 2, rng=0,
                            exclude=group)
    assert again.equals(dist) and again.attrs == a


def test_subset_lambda_is_cross_validated_on_the_public_set_only():
    scenario = load_scenario("breast-cancer")
    lam = subset_study.default_lambda(scenario)
    assert lam in LAMBDAS and lam == subset_study.default_lambda(scenario)
    assert subset_study.default_lambda(_flipped(scenario)) == lam
    # The public set decides: E's labels flipped is another public set, with its own answer
    # computed the same way (the rule reads E, so it must change with E's rows, not D's).
    shuffled = scenario.public.copy()
    shuffled[scenario.target] = np.random.default_rng(0).permutation(
        shuffled[scenario.target].to_numpy())
    assert subset_study.default_lambda(dataclasses.replace(scenario, public=shuffled)) > lam


def test_subset_default_grid_starts_at_ten_points_per_coefficient():
    sizes = subset_study.grid_sizes(subset_study.DEFAULT_GRID, 3000, coefficients=8)
    paper = subset_study.grid_sizes(subset_study.GRIDS[0], 3000)
    assert sizes.min() >= subset_study.POINTS_PER_COEFFICIENT * 8
    assert set(sizes) == {s for s in paper if s >= 80}
    # Too few public points to reach the floor twice: the paper's sizes, unfiltered.
    np.testing.assert_array_equal(
        subset_study.grid_sizes(subset_study.DEFAULT_GRID, 100, coefficients=14),
        subset_study.grid_sizes(subset_study.GRIDS[0], 100))
    # The paper's slides keep the paper's grid and λ (ui.registry's presets set them).
    assert subset_study.Params().lambda_ == 0.01
