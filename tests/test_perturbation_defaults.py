"""The default release of PrivateLogisticRegression on UCI Adult (issues 23 and 34).

Data: the shipped Adult training part (32,561 rows: the scenario's D and E together) and its test
part (16,281 rows), one-hot encoded as the built-in scenario does (111 predictor columns, the
target ``income=>50K``), ``data_norm=sqrt(12)`` as in diffprivlib's Adult example. The rules'
constants were fixed on the training part only (``benchmarks/bench_amp.py choose``); the test
part is read here to check them.
"""

import math

import numpy as np
import pytest

from dpcore.datasets import load_scenario
from dpcore.perturbation import PrivateLogisticRegression, lambda_rule, perturb_output, prepare
from dpcore.perturbation.amp import amp_coefs
from dpcore.perturbation.model import TOL, nonprivate_coef

#: diffprivlib's published test errors of its LogisticRegression on Adult (objective
#: perturbation, data_norm = sqrt(12)), at epsilon = 0.5, 1 and 2.
DIFFPRIVLIB = {0.5: 0.219, 1.0: 0.192, 2.0: 0.181}
#: Issue 34's goal for the default release: mean test error at most these at epsilon = 1 and 2.
GOAL = {1.0: 0.166, 2.0: 0.160}
SEEDS = (0, 1)
#: Releases of output perturbation's noise per epsilon.
RELEASES = 200
#: Releases of the default (approximate minima perturbation) per epsilon, one batched solve.
AMP_RELEASES = 30


@pytest.fixture(scope="module")
def adult():
    scenario = load_scenario("adult")
    cols = scenario.predictors
    X = np.r_[scenario.private[cols].to_numpy(float), scenario.public[cols].to_numpy(float)]
    y = np.r_[scenario.private[scenario.target].to_numpy(),
              scenario.public[scenario.target].to_numpy()]
    X_test = scenario.test[cols].to_numpy(float)
    y_test = scenario.test[scenario.target].to_numpy()
    return X, y, X_test, y_test


def test_adult_is_the_one_hot_training_part(adult):
    X, y, X_test, y_test = adult
    assert X.shape == (32_561, 111) and X_test.shape == (16_281, 111)
    assert set(np.unique(X)) == {0.0, 1.0} and np.linalg.norm(X, axis=1).max() <= math.sqrt(12)


@pytest.mark.slow
def test_auto_lambda_of_objective_perturbation_beats_diffprivlib_on_adult(adult):
    """With the default ``lam="auto"`` the mean test error of objective perturbation (the
    method of diffprivlib's LogisticRegression) is below diffprivlib's published Adult errors
    at epsilon = 0.5, 1 and 2.

    Margin: over 20 restarts per epsilon (seeded, measured while writing this test) the error
    has mean 0.177 / 0.164 / 0.155 and SD 0.0035 / 0.0026 / 0.0012, so the mean of the two
    seeded fits here has an SD of at most 0.0025, against gaps to the published numbers of
    0.042 / 0.028 / 0.026 (over 10 SDs of the mean). A rule that regularises Adult to the
    majority class (error 0.236, as ``lam=0.01`` did) fails at every epsilon. Each fit is also
    checked to use the rule's lambda, read from (epsilon, n, d = 111 + intercept) only.
    """
    X, y, X_test, y_test = adult
    for epsilon, published in DIFFPRIVLIB.items():
        errors = []
        for seed in SEEDS:
            clf = PrivateLogisticRegression(epsilon=epsilon, method="objective",
                                            data_norm=math.sqrt(12), rng=seed).fit(X, y)
            assert clf.lam_resolved_ == lambda_rule(epsilon, 32_561, 112)
            errors.append(1.0 - clf.score(X_test, y_test))
        assert np.mean(errors) < published, (epsilon, errors)


@pytest.mark.slow
def test_default_release_reaches_the_goal_on_adult(adult):
    """The default ``PrivateLogisticRegression(epsilon, data_norm=sqrt(12))``, a release of
    approximate minima perturbation with ``lam="auto"``, has a mean test error of at most 0.166
    at epsilon = 1 and 0.160 at epsilon = 2 (issue 34), its lambda read from (epsilon, n,
    d = 112) only, by a constant fixed on the training part.

    Per epsilon the default estimator is fitted once (checking its method and lambda) and 30
    more releases are made by the function its fit calls, in one batched solve (each row a
    release of its own, OpenDP noise). The test requires the mean plus 4 standard errors (the
    SE estimated from the 31 errors) below the goal: a one-sided bound that a true mean at the
    goal passes with probability below 1e-4. Measured (``benchmarks/bench_amp.py evaluate``,
    100 releases): 0.1582 and 0.1506, SD 0.003 and 0.002, so the bound sits near 0.160 and
    0.152, 6 and 8 thousandths under the goal.
    """
    X, y, X_test, y_test = adult
    prep = prepare(X, y, data_norm=math.sqrt(12), fit_intercept=True, classes=[0, 1])
    for epsilon, goal in GOAL.items():
        clf = PrivateLogisticRegression(epsilon=epsilon, data_norm=math.sqrt(12),
                                        classes=[0, 1]).fit(X, y)
        assert clf.method == "amp" and clf.lam == "auto" and clf.rng is None
        assert clf.lam_resolved_ == lambda_rule(epsilon, 32_561, 112, "amp")
        W, _ = amp_coefs(prep, epsilon=epsilon, lam=clf.lam_resolved_, size=AMP_RELEASES,
                         tol=TOL)
        coef, intercept = prep.to_model(W)
        wrong = (X_test @ coef.T + intercept > 0) != (y_test == clf.classes_[1])[:, None]
        errors = np.r_[wrong.mean(axis=0), 1.0 - clf.score(X_test, y_test)]
        se = errors.std(ddof=1) / math.sqrt(errors.size)
        assert errors.mean() + 4 * se <= goal, (epsilon, errors.mean(), se)


@pytest.mark.slow
def test_output_perturbation_at_its_rule_beats_diffprivlib_on_adult(adult):
    """``PrivateLogisticRegression(epsilon, method="output", data_norm=sqrt(12))``, a release of
    output perturbation with ``lam="auto"``, has a mean test error below diffprivlib's published
    Adult errors at epsilon = 0.5, 1 and 2.

    A release draws fresh OS noise and cannot be seeded, so per epsilon the estimator is
    fitted once (checking the rule's lambda, read from (epsilon, n, d = 112) only) and its noise
    is released 200 more times on the same certified fit, through the function its fit calls
    (each row a release of its own). Margin: over 400 draws of the same law (seeded) the error
    has mean 0.201 / 0.184 / 0.172 and SD 0.020 / 0.016 / 0.012, so the mean of these 201 has
    an SE of at most 0.0015, against gaps to the published numbers of 0.018 / 0.008 / 0.009
    (over 5 SEs: a correct release fails here with probability below 1e-6 per epsilon).
    """
    X, y, X_test, y_test = adult
    prep = prepare(X, y, data_norm=math.sqrt(12), fit_intercept=True)
    for epsilon, published in DIFFPRIVLIB.items():
        clf = PrivateLogisticRegression(epsilon=epsilon, method="output",
                                        data_norm=math.sqrt(12), classes=[0, 1]).fit(X, y)
        assert clf.lam == "auto" and clf.rng is None
        lam = clf.lam_resolved_
        assert lam == lambda_rule(epsilon, 32_561, 112, "output")
        w0 = nonprivate_coef(prep, lam, strict=True)
        W = perturb_output(np.broadcast_to(w0, (RELEASES, w0.size)), n=prep.n, lam=lam,
                           epsilon=epsilon, gap=TOL)
        coef, intercept = prep.to_model(W)
        wrong = (X_test @ coef.T + intercept > 0) != (y_test == clf.classes_[1])[:, None]
        errors = np.r_[wrong.mean(axis=0), 1.0 - clf.score(X_test, y_test)]
        assert np.mean(errors) < published, (epsilon, np.mean(errors))
