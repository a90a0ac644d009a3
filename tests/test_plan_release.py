"""The planner of the default logistic-regression release (:mod:`dpcore.planning.release`) and
the "Choose epsilon" page's curve of that release (:func:`dpcore.planning.logistic_errors`)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.perturbation.synthetic import synthetic
from dpcore.planning import logistic_errors
from dpcore.planning.release import PLAN_ROWS, plan_draws, public_rows


def test_public_rows_take_all_of_a_small_set_and_a_seeded_subset_of_a_large_one():
    assert np.array_equal(public_rows(150), np.arange(150))
    big = public_rows(10 * PLAN_ROWS, seed=3)
    assert big.size == PLAN_ROWS and np.unique(big).size == PLAN_ROWS
    assert np.array_equal(big, public_rows(10 * PLAN_ROWS, seed=3))
    assert not np.array_equal(big, public_rows(10 * PLAN_ROWS, seed=4))
    # a small E gets many draws (its errors are noisy), a large one few
    assert plan_draws(100) == 20 and plan_draws(PLAN_ROWS) == 3


def test_the_release_curve_falls_with_epsilon_and_reads_lambda_off_public_data():
    X, y = synthetic("separable", 600, rng=0)
    X_pub, y_pub = synthetic("separable", 300, rng=1)
    errors = logistic_errors(X, y, [0.1, 10.0], restarts=3, X_pub=X_pub, y_pub=y_pub, seed=0)
    assert errors.shape == (2, 9)  # 3 folds x 3 restarts
    # the records decide the label by a hyperplane: a release at ε = 10 of 400 records is near
    # it, one at ε = 0.1 is mostly noise
    assert errors[1].mean() < 0.15 < errors[0].mean()
    assert np.array_equal(errors, logistic_errors(X, y, [0.1, 10.0], restarts=3, X_pub=X_pub,
                                                  y_pub=y_pub, seed=0))
    with pytest.raises(ValueError, match="public data"):
        logistic_errors(X, y, [1.0])
