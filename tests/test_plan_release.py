"""The planner of the default logistic-regression release (:mod:`dpcore.planning.release`) and
the "Choose epsilon" page's curve of that release (:func:`dpcore.planning.logistic_errors`)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.perturbation.experiments import RELEASE_LAMBDAS, release_lambda
from dpcore.perturbation.synthetic import synthetic
from dpcore.planning import logistic_errors
from dpcore.planning.release import PLAN_ROWS, plan_draws, plan_lambda, public_rows, release_point
from dpcore.validation import DataError


def test_public_rows_take_all_of_a_small_set_and_a_seeded_subset_of_a_large_one():
    assert np.array_equal(public_rows(150), np.arange(150))
    big = public_rows(10 * PLAN_ROWS, seed=3)
    assert big.size == PLAN_ROWS and np.unique(big).size == PLAN_ROWS
    assert np.array_equal(big, public_rows(10 * PLAN_ROWS, seed=3))
    assert not np.array_equal(big, public_rows(10 * PLAN_ROWS, seed=4))
    # a small E gets many draws (its errors are noisy), a large one few
    assert plan_draws(100) == 20 and plan_draws(PLAN_ROWS) == 3


def test_the_release_curve_is_centred_on_the_public_model_and_reads_lambda_off_public_data():
    X, y = synthetic("separable", 600, rng=0)
    X_pub, y_pub = synthetic("separable", 300, rng=1)
    errors = logistic_errors(X, y, [0.1, 10.0], restarts=3, X_pub=X_pub, y_pub=y_pub, seed=0)
    assert errors.shape == (2, 9)  # 3 folds x 3 restarts
    # The release Publish makes is centred on a model fitted on E, which finds the hyperplane:
    # where the noise of 400 records at ε = 0.1 swamps them, λ holds the release near it.
    assert errors.mean(axis=1).max() < 0.15
    assert np.array_equal(errors, logistic_errors(X, y, [0.1, 10.0], restarts=3, X_pub=X_pub,
                                                  y_pub=y_pub, seed=0))
    # Without E (a given λ, centred on 0) the noise at ε = 0.1 is left to swamp the records.
    plain = logistic_errors(X, y, [0.1, 10.0], restarts=3, lam=1e-2, seed=0)
    assert plain[1].mean() < 0.15 < plain[0].mean()
    with pytest.raises(ValueError, match="public data"):
        logistic_errors(X, y, [1.0])


def test_the_planner_plans_the_centred_release():
    """At n ε = 5 the noise swamps any record: the release's simulation picks a λ of the
    centred grid beyond the uncentred one's largest (it holds the release at the public
    model), and the planner picks it too."""
    X_pub, y_pub = synthetic("separable", 300, rng=1)
    common = dict(n_private=50, data_norm=1.0, fit_intercept=False)
    lam = plan_lambda(X_pub, y_pub, 0.1, **common)
    assert lam > max(RELEASE_LAMBDAS)
    assert lam == release_lambda(X_pub, y_pub, epsilon=0.1, draws=plan_draws(300), centred=True,
                                 **common)[0]
    lam_point, error = release_point(X_pub, y_pub, 0.1, **common)
    assert lam_point == lam and error < 0.15  # the public model, scored on E's other rows
    # a λ the page already chose (its release's own) is scored, not chosen again
    assert release_point(X_pub, y_pub, 0.1, lam=1e-4, **common)[0] == 1e-4


def test_the_centred_simulation_needs_three_parts_that_each_cross_validate():
    """Each third of E fits a public model at its λ by 3-fold cross-validation, whose training
    folds need MIN_ROWS = 10 rows: 45 rows of E will do, 44 will not (a third of 14 rows)."""
    X_pub, y_pub = synthetic("separable", 45, rng=1)
    common = dict(n_private=500, epsilon=1.0, data_norm=1.0, fit_intercept=False, draws=3,
                  centred=True)
    assert release_lambda(X_pub, y_pub, **common)[0] > 0
    with pytest.raises(DataError, match="at least 45"):
        release_lambda(X_pub[:44], y_pub[:44], **common)
