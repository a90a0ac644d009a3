"""The logistic solvers against scikit-learn on the same weighted objective, to 1e-8."""

import numpy as np
import pytest
from scipy.optimize import approx_fprime, minimize
from sklearn.linear_model import LogisticRegression

from dpcore.logistic import (
    fit_logistic,
    fit_logistic_batched,
    logistic_gradient,
    logistic_objective,
)


def _problem(n=600, d=8, seed=0, onehot=False):
    rng = np.random.default_rng(seed)
    if onehot:
        X = np.zeros((n, d))
        X[np.arange(n), rng.integers(0, d - 1, n)] = 1.0
        X[:, -1] = 1.0
    else:
        X = rng.random((n, d))
    w_true = rng.normal(size=d)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ w_true - 1)))).astype(float)
    s = rng.random(n) + 0.1
    return X, y, s / s.sum()


@pytest.mark.parametrize("lam", [1e-3, 0.1, 10.0])
@pytest.mark.parametrize("onehot", [False, True])
def test_matches_sklearn_objective(lam, onehot):
    X, y, s = _problem(onehot=onehot)
    ours = fit_logistic(X, y, s, lam=lam)
    # sklearn minimises C sum_i s_i loss_i + 1/2 ||w||^2, the same minimiser when C = 1/lam.
    sk = LogisticRegression(C=1 / lam, fit_intercept=False, tol=1e-12, max_iter=10_000)
    sk.fit(X, y, sample_weight=s)
    j_ours = logistic_objective(ours.coef, X, y, s, lam=lam)
    j_sk = logistic_objective(sk.coef_[0], X, y, s, lam=lam)
    # Strong convexity certifies J(ours) - min J <= gap <= tol = 1e-10.
    assert ours.gap <= 1e-10
    assert j_ours <= j_sk + ours.gap + 1e-14  # plus rounding of a sum of O(1) terms
    assert abs(j_ours - j_sk) < 1e-8


def test_linear_term_matches_generic_minimiser():
    X, y, s = _problem(seed=1)
    b = np.random.default_rng(2).normal(size=X.shape[1]) * 0.05
    ours = fit_logistic(X, y, s, lam=0.05, linear=b)
    ref = minimize(
        lambda w: logistic_objective(w, X, y, s, lam=0.05, linear=b),
        np.zeros(X.shape[1]),
        jac=lambda w: logistic_gradient(w, X, y, s, lam=0.05, linear=b),
        method="L-BFGS-B",
        options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10_000},
    )
    assert logistic_objective(ours.coef, X, y, s, lam=0.05, linear=b) <= ref.fun + ours.gap
    assert np.abs(logistic_gradient(ours.coef, X, y, s, lam=0.05, linear=b)).max() < 1e-5


def test_gradient_matches_finite_differences():
    X, y, s = _problem(n=100, d=5, seed=3)
    w = np.random.default_rng(4).normal(size=5)
    g = logistic_gradient(w, X, y, s, lam=0.3, linear=np.ones(5))
    fd = approx_fprime(w, lambda v: logistic_objective(v, X, y, s, lam=0.3, linear=np.ones(5)),
                       1e-7)
    np.testing.assert_allclose(g, fd, atol=1e-5)


@pytest.mark.parametrize("onehot", [False, True])
def test_batched_equals_separate_fits(onehot):
    X, y, _ = _problem(n=800, d=12, seed=5, onehot=onehot)
    rng = np.random.default_rng(6)
    S = rng.multinomial(800, np.full(800, 1 / 800), size=20).T / 800.0
    W = fit_logistic_batched(X, y, S, lam=0.05)
    assert W.shape == (20, 12)
    for r in range(20):
        single = fit_logistic(X, y, S[:, r], lam=0.05)
        j_batched = logistic_objective(W[r], X, y, S[:, r], lam=0.05)
        assert abs(j_batched - logistic_objective(single.coef, X, y, S[:, r], lam=0.05)) < 1e-9


def test_batched_handles_replicates_far_from_the_mean_fit():
    # Weight columns unlike each other: the shared Hessian is a poor model and the exact-Newton
    # fallback must still reach the optimum of every replicate.
    X, y, _ = _problem(n=300, d=6, seed=7)
    rng = np.random.default_rng(8)
    S = rng.exponential(size=(300, 5)) ** 4
    S[:150, 0] = 0.0
    W = fit_logistic_batched(X, y, S, lam=1e-3)
    for r in range(5):
        single = fit_logistic(X, y, S[:, r], lam=1e-3)
        assert abs(logistic_objective(W[r], X, y, S[:, r], lam=1e-3)
                   - logistic_objective(single.coef, X, y, S[:, r], lam=1e-3)) < 1e-9


@pytest.mark.parametrize("refresh", [0, 1, 2, 5])
def test_a_refreshed_shared_hessian_keeps_every_fit_certified(refresh):
    # Replicates far from the start (as the subset study's noisy weights are from theta_D): the
    # Hessian taken again at the mean iterate changes the path only, not the certified gap.
    X, y, _ = _problem(n=300, d=6, seed=7)
    S = np.random.default_rng(9).exponential(size=(300, 6)) ** 4
    S /= S.sum(axis=0)
    start = fit_logistic(X, y, np.full(300, 1 / 300), lam=1e-3).coef
    W = fit_logistic_batched(X, y, S, lam=1e-3, coef_init=start, tol=1e-12, refresh=refresh,
                             merge=False)
    for r in range(6):
        g = logistic_gradient(W[r], X, y, S[:, r], lam=1e-3)
        assert g @ g / (2e-3) <= 1e-12


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"lam": 0.0}, ValueError, r"lam == 0, must be > 0"),
        ({"lam": -1.0}, ValueError, r"lam == -1, must be > 0"),
        ({"lam": "a"}, TypeError, r"lam must be a real number, got str"),
        ({"lam": 1.0, "linear": np.ones(3)}, ValueError, r"linear has 3 entries, expected 4"),
        ({"lam": 1.0, "sample_weight": -np.ones(50)}, ValueError, r"finite and >= 0"),
    ],
)
def test_invalid_inputs(kwargs, error, message):
    X, y, _ = _problem(n=50, d=4)
    sample_weight = kwargs.pop("sample_weight", None)
    with pytest.raises(error, match=message):
        fit_logistic(X, y, sample_weight, **kwargs)


def test_labels_must_be_binary():
    X, y, _ = _problem(n=50, d=4)
    with pytest.raises(ValueError, match="labels 0 and 1"):
        fit_logistic(X, y * 2, lam=1.0)


def test_unconverged_fit_warns_and_tolerance_scales_with_total_weight():
    X, y, s = _problem(n=200, d=5, seed=9)
    with pytest.warns(RuntimeWarning, match="objective gap"):
        fit_logistic(X, y, s, lam=0.01, max_iter=1)
    heavy = fit_logistic(X, y, s * 1e6, lam=0.01)  # objective scale 1e6: tol is relative to it
    assert heavy.gap <= 1e-10 * 1e6
