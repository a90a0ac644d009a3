"""Private logistic regression (Chaudhuri & Monteleoni 2008; corrected calibration of 2011)."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from dpcore import DataError
from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.logistic import fit_logistic, fit_logistic_batched
from dpcore.perturbation import (
    FlawedProofWarning,
    PrivateLogisticRegression,
    lambda_rule,
    objective_calibration,
    output_sensitivity,
    perturb_output,
    prepare,
    private_coefs,
    scale_records,
)
from dpcore.perturbation.objective import amp_sensitivity, objective_noise
from dpcore.perturbation.solver import fit_linear_terms
from dpcore.perturbation.synthetic import sphere_data, synthetic

# KS tests below use a fixed seed and N draws; they fail when p < ALPHA. With the exact law the
# p-value is uniform, so a wrong implementation is caught while a right one passes for this seed.
ALPHA = 1e-3
N_DRAWS = 4000


def _check_l2_laplace(noise: np.ndarray, scale: float) -> None:
    """Norm ~ Gamma(d, scale) and direction uniform on the sphere (KS on both)."""
    d = noise.shape[1]
    norms = np.linalg.norm(noise, axis=1)
    assert stats.kstest(norms, stats.gamma(d, scale=scale).cdf).pvalue > ALPHA
    u = noise / norms[:, None]
    # A uniform direction's coordinate u_j has (u_j + 1)/2 ~ Beta((d-1)/2, (d-1)/2).
    law = stats.beta((d - 1) / 2, (d - 1) / 2)
    for j in (0, d - 1):
        assert stats.kstest((u[:, j] + 1) / 2, law.cdf).pvalue > ALPHA
    # Mean direction: each coordinate has variance 1/d, so |mean| <= 5 / sqrt(d N) (5 SD).
    assert np.abs(u.mean(axis=0)).max() < 5 / math.sqrt(d * len(u))


# ---------------------------------------------------------------------------------------------
# Output perturbation (Algorithm 1)
# ---------------------------------------------------------------------------------------------


def test_output_sensitivity_formula():
    assert output_sensitivity(100, 0.01) == pytest.approx(2.0)
    assert output_sensitivity(100, 0.01, data_norm=3.0, lipschitz=0.5) == pytest.approx(3.0)
    # solver term 2 sqrt(2 g / lam)
    assert output_sensitivity(100, 0.5, gap=0.25) == pytest.approx(0.04 + 2.0)


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"n": 0, "lam": 1.0}, ValueError),
    ({"n": 1.5, "lam": 1.0}, TypeError),
    ({"n": 10, "lam": 0.0}, ValueError),
    ({"n": 10, "lam": 1.0, "gap": -1.0}, ValueError),
    ({"n": 10, "lam": "1"}, TypeError),
])
def test_output_sensitivity_invalid(kwargs, error):
    with pytest.raises(error):
        output_sensitivity(**kwargs)


def test_output_noise_law():
    d, n, lam, eps = 5, 1000, 0.1, 0.7
    coef = np.arange(d, dtype=float)
    released = perturb_output(np.broadcast_to(coef, (N_DRAWS, d)), n=n, lam=lam, epsilon=eps,
                              rng=0)
    _check_l2_laplace(released - coef, scale=2 / (n * lam * eps))


def test_output_batch_axes_and_seed():
    coef = np.zeros((3, 4, 2))
    a = perturb_output(coef, n=10, lam=1.0, epsilon=1.0, rng=5)
    b = perturb_output(coef, n=10, lam=1.0, epsilon=1.0, rng=5)
    assert a.shape == (3, 4, 2)
    np.testing.assert_array_equal(a, b)
    assert len({tuple(r) for r in a.reshape(-1, 2)}) == 12  # independent rows


def test_output_spends_before_drawing():
    acc = BudgetAccountant(epsilon=1.0)
    perturb_output([1.0, 2.0], n=10, lam=1.0, epsilon=0.6, accountant=acc, dataset="D")
    assert acc.spent[0] == pytest.approx(0.6)
    with pytest.raises(BudgetExceeded):
        perturb_output([1.0, 2.0], n=10, lam=1.0, epsilon=0.6, accountant=acc, dataset="D")
    assert len(acc.ledger) == 1
    with pytest.raises(ValueError, match="seeded fit is a study"):  # a seed cannot spend
        perturb_output([1.0, 2.0], n=10, lam=1.0, epsilon=0.1, rng=3, accountant=acc,
                       dataset="D")
    assert len(acc.ledger) == 1


# ---------------------------------------------------------------------------------------------
# Objective perturbation (Algorithm 2, corrected)
# ---------------------------------------------------------------------------------------------


def test_calibration_2011_and_2008():
    n, lam, eps = 500, 0.01, 1.0
    cal = objective_calibration(eps, n=n, lam=lam, amp_fraction=0.0)
    r = 0.25 / (n * lam)
    assert cal.epsilon_noise == pytest.approx(eps - math.log(1 + 2 * r + r * r))
    assert cal.delta_reg == 0.0
    small = objective_calibration(0.1, n=n, lam=1e-4, amp_fraction=0.0)  # eps' would be <= 0
    assert small.epsilon_noise == pytest.approx(0.05)
    assert small.lam_total == pytest.approx(0.25 / (n * math.expm1(0.1 / 4)))
    with pytest.warns(FlawedProofWarning, match="Jacobian"):
        old = objective_calibration(eps, n=n, lam=lam, proof="2008", amp_fraction=0.01)
    assert old.epsilon_noise == pytest.approx(0.99)
    assert old.epsilon_correction == pytest.approx(0.01)
    with pytest.raises(ValueError, match="2011"):
        objective_calibration(eps, n=n, lam=lam, proof="2010")


def test_objective_noise_law():
    cal = objective_calibration(0.8, n=1000, lam=0.05)
    b = objective_noise(cal, 6, N_DRAWS, rng=1)
    _check_l2_laplace(b, scale=2 / cal.epsilon_noise)


def test_objective_solves_recover_the_noise():
    """Every batched fit is the minimiser for its own b: b = -grad of the unperturbed objective."""
    X, y = sphere_data(800, 5, rng=2)
    prep = prepare(X, y, data_norm=1.0)
    n, lam = prep.n, 1e-3
    B = 30.0 * np.random.default_rng(4).standard_normal((5, 40))
    fits = fit_linear_terms(prep.problem, lam=n * lam, linear=B, tol=1e-16)
    assert fits.certified
    W = fits.coef
    P = 1 / (1 + np.exp(-(prep.Z @ W.T)))
    recovered = -(prep.Z.T @ (P - prep.y01[:, None]) + n * lam * W.T)
    # certified gap 1e-16 * n for lam_sum = n lam: ||grad|| <= sqrt(2 * n lam * 1e-16 * n)
    assert np.abs(recovered - B).max() <= math.sqrt(2 * n * lam * 1e-16 * n)


def test_batched_solver_takes_one_linear_term_per_replicate():
    X, y = sphere_data(300, 4, rng=7)
    y01 = (y > 0).astype(float)
    B = np.random.default_rng(0).standard_normal((4, 6)) * 3
    tol = 1e-14
    W = fit_logistic_batched(X, y01, np.ones((300, 1)), lam=2.0, linear=B, tol=tol)
    S = np.random.default_rng(1).poisson(1.0, (300, 6)).astype(float)
    W2 = fit_logistic_batched(X, y01, S, lam=2.0, linear=B, tol=tol)
    # each fit has gap <= tol * total weight, so it is within sqrt(2 gap / lam) of the optimum
    atol = 2 * math.sqrt(2 * tol * S.sum(axis=0).max() / 2.0)
    for j in range(6):
        ref = fit_logistic(X, y01, lam=2.0, linear=B[:, j], tol=tol).coef
        np.testing.assert_allclose(W[j], ref, atol=atol)
        ref = fit_logistic(X, y01, S[:, j], lam=2.0, linear=B[:, j], tol=tol).coef
        np.testing.assert_allclose(W2[j], ref, atol=atol)
    with pytest.raises(ValueError, match="columns"):
        fit_logistic_batched(X, y01, S[:, :2], lam=2.0, linear=B)


def test_amp_sensitivity():
    assert amp_sensitivity(1e-16, 0.01) == pytest.approx(2 * math.sqrt(2e-14))


# ---------------------------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sphere():
    X, y = sphere_data(2000, 10, rng=11)
    Xt, yt = sphere_data(2000, 10, rng=12)
    return X, y, Xt, yt


@pytest.mark.parametrize("method", ["objective", "output"])
def test_huge_epsilon_matches_sklearn(sphere, method):
    X, y, Xt, yt = sphere
    n, lam = X.shape[0], 0.01
    sk = LogisticRegression(C=1 / (n * lam), fit_intercept=False, tol=1e-12,
                            max_iter=10_000).fit(X, y)
    clf = PrivateLogisticRegression(epsilon=1e9, lam=lam, method=method, data_norm=1.0,
                                    fit_intercept=False, rng=0).fit(X, y)
    # Noise norm at eps = 1e9 is about d * 2/(n lam eps) = 5e-10, solver gap 1e-16: the distance
    # to scikit-learn's optimum is set by its own tolerance.
    np.testing.assert_allclose(clf.coef_, sk.coef_, atol=1e-6)
    # Test error within noise of the non-private model on the same split: identical predictions
    # except for points within 1e-6 of the boundary (none in this sample).
    assert clf.score(Xt, yt) == pytest.approx(sk.score(Xt, yt), abs=1 / len(yt))


def test_objective_beats_output_on_separable_data():
    """Fig. 2c on the separable data with n = 2,000 (smaller than the paper's 17,500; same trend).

    20 restarts per epsilon; "most" = at least 7 of the 10 epsilons in [0.1, 10], and both
    approach the non-private error (0 on separable data) at epsilon = 10.
    """
    from dpcore.perturbation.experiments import epsilon_curve, summarise

    X, y = synthetic("separable", 2000, rng=1)
    Xt, yt = synthetic("separable", 2000, rng=2)
    eps = np.logspace(-1, 1, 10)
    res = epsilon_curve(X, y, epsilons=eps, lam=0.01, restarts=20, X_test=Xt, y_test=yt,
                        methods=["non-private", "output perturbation",
                                 "objective perturbation"], seed=0)
    table = summarise(res).pivot(index="epsilon", columns="method", values="mean")
    wins = (table["objective perturbation"] < table["output perturbation"]).sum()
    assert wins >= 7
    nonprivate = table["non-private"].iloc[-1]
    for method in ("objective perturbation", "output perturbation"):
        assert table[method].is_monotonic_decreasing or table[method].iloc[-1] <= 0.01
        # at eps = 10 the mean error over 20 restarts is within 0.01 of the non-private one
        assert table[method].iloc[-1] - nonprivate <= 0.01
        assert table[method].iloc[0] > nonprivate  # and at eps = 0.1 the privacy costs error


def test_estimator_is_a_sklearn_classifier(sphere):
    X, y, _, _ = sphere
    labels = np.where(y > 0, "yes", "no")
    X01 = (X + 1) / 2  # domain [0, 1]^d for data_norm=None
    clf = PrivateLogisticRegression(epsilon=2.0, lam=0.01, rng=0)
    assert clone(clf).get_params() == clf.get_params()
    scores = cross_val_score(clf, X01, labels, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.5)
    pipe = make_pipeline(MinMaxScaler(clip=True), PrivateLogisticRegression(epsilon=5, rng=1))
    pipe.fit(X, labels)
    proba = pipe.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    fitted = pipe[-1]
    assert list(fitted.classes_) == ["no", "yes"]
    assert fitted.coef_.shape == (1, 10) and fitted.intercept_.shape == (1,)
    assert fitted.epsilon_spent_ == 5
    assert fitted.data_norm_ == pytest.approx(math.sqrt(10))
    assert set(pipe.predict(X[:20])) <= {"no", "yes"}


def test_fresh_entropy_and_seeds(sphere):
    X, y, _, _ = sphere
    kw = dict(epsilon=1.0, data_norm=1.0, classes=[-1, 1])
    a = PrivateLogisticRegression(**kw).fit(X, y).coef_
    b = PrivateLogisticRegression(**kw).fit(X, y).coef_
    assert not np.allclose(a, b)
    c = PrivateLogisticRegression(**kw, rng=3).fit(X, y).coef_
    d = PrivateLogisticRegression(**kw, rng=3).fit(X, y).coef_
    np.testing.assert_array_equal(c, d)


def test_accountant_spends_once(sphere):
    X, y, _, _ = sphere
    acc = BudgetAccountant(epsilon=1.0)
    PrivateLogisticRegression(epsilon=0.75, method="output", data_norm=1.0, accountant=acc,
                              dataset="sphere", classes=[-1, 1]).fit(X, y)
    assert acc.spent[0] == pytest.approx(0.75)
    assert acc.ledger["dataset"].tolist() == ["sphere"]
    with pytest.raises(BudgetExceeded):
        PrivateLogisticRegression(epsilon=0.75, method="output", data_norm=1.0,
                                  accountant=acc, dataset="sphere", classes=[-1, 1]).fit(X, y)
    # Objective perturbation has no float-safe release: refused before anything is spent.
    with pytest.raises(ValueError, match="cannot be released"):
        PrivateLogisticRegression(epsilon=0.1, method="objective", data_norm=1.0,
                                  accountant=acc, dataset="sphere").fit(X, y)
    assert len(acc.ledger) == 1


def test_2008_proof_warns(sphere):
    X, y, _, _ = sphere
    with pytest.warns(FlawedProofWarning):
        PrivateLogisticRegression(method="objective", proof="2008", data_norm=1.0,
                                  rng=0).fit(X, y)


def test_data_norm_none_clips_records_into_the_unit_box():
    # Issue 33: with data_norm=None a record outside [0, 1]^d refused the fit with its value in
    # the message ("max 1.5"): one private record decided. It is now clipped into the domain.
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(40, 2))
    y = (X[:, 0] > 0.5).astype(int)
    X[0, 1], X[1, 0] = 1.5, -0.7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        study = PrivateLogisticRegression(epsilon=2.0, rng=0).fit(X, y)
        release = PrivateLogisticRegression(epsilon=2.0, classes=[0, 1]).fit(X, y)
    same = PrivateLogisticRegression(epsilon=2.0, rng=0).fit(np.clip(X, 0.0, 1.0), y)
    np.testing.assert_array_equal(study.coef_, same.coef_)
    assert release.data_norm_ == math.sqrt(2)
    PrivateLogisticRegression(data_norm=2.0, rng=0).fit(X, y)


def test_a_release_takes_its_classes_from_public_knowledge():
    # Issue 33: without classes a release read them off y and refused a single-class target,
    # so one private label decided whether a release happened (and the message named it).
    rng = np.random.default_rng(6)
    X = rng.uniform(size=(60, 3))
    single = np.zeros(60, dtype=int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]).fit(X, single)
    assert list(model.classes_) == [0, 1] and model.coef_.shape == (1, 3)
    missing = np.r_[np.ones(30), np.full(30, np.nan)]  # missing: not the positive class
    model = PrivateLogisticRegression(epsilon=1.0, classes=[0.0, 1.0]).fit(X, missing)
    assert list(model.classes_) == [0.0, 1.0]
    with pytest.raises(ValueError, match=r"A release needs classes=\(negative, positive\)"):
        PrivateLogisticRegression(epsilon=1.0).fit(X, single)
    with pytest.raises(DataError) as refused:  # a study may read them from y: it says no label
        PrivateLogisticRegression(epsilon=1.0, rng=0).fit(X, np.full(60, 7))
    assert "7" not in str(refused.value) and "single class" in str(refused.value)


def test_records_are_scaled_and_clipped():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    Z, factor = scale_records(X, 1.0)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), [1.0, 0.5, 0.0])
    np.testing.assert_allclose(Z[0], [0.6, 0.8])  # clipped, direction kept
    Z, factor = scale_records(X, 5.0, fit_intercept=True)
    assert np.linalg.norm(Z, axis=1).max() <= 1.0 + 1e-12
    np.testing.assert_allclose(Z[:, 2], 1 / math.sqrt(2))
    assert factor == pytest.approx(5 * math.sqrt(2))


def test_intercept_is_used(sphere):
    X, y, _, _ = sphere
    shifted = X[:, :1] + 1.0  # in [0, 2]; the classes split at 1: needs an intercept
    labels = (X[:, 0] > 0).astype(int)
    clf = PrivateLogisticRegression(epsilon=1e9, lam=1e-4, data_norm=2.0, rng=0)
    assert clf.fit(shifted, labels).score(shifted, labels) > 0.95
    assert clf.intercept_[0] < 0


@pytest.mark.parametrize(("y", "match"), [
    (np.zeros(50), "single class"),
    (np.array(["a", "b", "c", "d", "e"] * 10), "5 distinct non-numeric values"),
    (np.linspace(0, 1, 50), "continuous target"),
    (np.r_[np.zeros(25), np.full(24, 1.0), np.nan], "missing labels"),
])
def test_bad_targets(y, match):
    X = np.random.default_rng(0).uniform(size=(50, 3))
    with pytest.raises(DataError, match=match):
        PrivateLogisticRegression(rng=0).fit(X, y)


def test_bad_features_and_too_few_rows():
    with pytest.raises(DataError, match="at least 10"):
        PrivateLogisticRegression(rng=0).fit(np.full((5, 2), 0.5), [0, 1, 0, 1, 0])
    with pytest.raises(DataError, match="numeric") as refused:
        PrivateLogisticRegression(rng=0).fit([["secret", "b"]] * 20, [0, 1] * 10)
    assert "secret" not in str(refused.value)  # numpy's message quoted it (issue 33)
    with pytest.raises(DataError, match="rows"):
        PrivateLogisticRegression(rng=0).fit(np.full((20, 2), 0.5), [0, 1] * 11)


@pytest.mark.parametrize(("fit_intercept", "method"), [(True, "output"), (False, "objective")])
def test_auto_lambda_is_the_rule_of_epsilon_n_and_fitted_columns(sphere, fit_intercept, method):
    """lam="auto" is lambda_rule(epsilon, n, d, method) with d the coefficients fitted (the
    intercept's column included): 0.07 (d / (n epsilon))^(2/3) for output perturbation,
    0.2 d / (n epsilon) for objective perturbation; a number is used as given."""
    X, y, _, _ = sphere
    n, d = X.shape
    clf = PrivateLogisticRegression(epsilon=0.5, method=method, data_norm=1.0,
                                    fit_intercept=fit_intercept, rng=0).fit(X, y)
    assert clf.lam == "auto"
    ratio = (d + fit_intercept) / (n * 0.5)
    expected = 0.07 * ratio ** (2 / 3) if method == "output" else 0.2 * ratio
    assert clf.lam_resolved_ == pytest.approx(expected, rel=1e-12)
    assert clf.lam_resolved_ == lambda_rule(0.5, n, d + fit_intercept, method)
    delta = clf.calibration_.delta_reg if method == "objective" else 0.0
    assert clf.lam_ == pytest.approx(clf.lam_resolved_ + delta, rel=1e-12)
    record = clf.to_dict()
    assert record["lambda"] == clf.lam_resolved_
    assert record["lambda_choice"] == ("rule 0.07 (d / (n epsilon))^(2/3)" if method == "output"
                                       else "rule 0.2 d / (n epsilon)")
    fixed = PrivateLogisticRegression(epsilon=0.5, lam=0.03, data_norm=1.0, rng=0).fit(X, y)
    assert fixed.lam_resolved_ == 0.03 and fixed.to_dict()["lambda_choice"] == "set"


def test_auto_lambda_reads_no_labels_or_values():
    """Two datasets of the same shape get the same lambda whatever their values and labels."""
    rng = np.random.default_rng(5)
    X1, X2 = rng.uniform(size=(300, 4)), rng.uniform(size=(300, 4)) ** 3
    y1, y2 = (X1[:, 0] > 0.5).astype(int), rng.integers(2, size=300)
    a = PrivateLogisticRegression(epsilon=2.0, rng=0).fit(X1, y1)
    b = PrivateLogisticRegression(epsilon=2.0, rng=0).fit(X2, y2)
    assert a.lam_resolved_ == b.lam_resolved_ == lambda_rule(2.0, 300, 5, "amp")


@pytest.mark.parametrize(("lam", "error", "match"), [
    ("fast", ValueError, "pass lam='auto'"),
    ("Auto", ValueError, "pass lam='auto'"),
    (-1.0, ValueError, "must be > 0; pass lam='auto'"),
    (0.0, ValueError, "must be > 0"),
    (float("nan"), ValueError, "must be > 0"),
    (None, TypeError, "pass lam='auto'"),
    (True, TypeError, "'auto' or a number"),
])
def test_invalid_lambda_says_what_to_pass(lam, error, match):
    with pytest.raises(error, match=match):
        PrivateLogisticRegression(lam=lam).fit(np.full((20, 2), 0.5), [0, 1] * 10)


@pytest.mark.parametrize(("params", "error"), [
    ({"epsilon": 0.0}, ValueError),
    ({"epsilon": "1"}, TypeError),
    ({"method": "input"}, ValueError),
    ({"proof": 2011}, TypeError),
    ({"data_norm": 0.0}, ValueError),
    ({"fit_intercept": 1}, TypeError),
])
def test_invalid_parameters(params, error):
    with pytest.raises(error):
        PrivateLogisticRegression(**params).fit(np.full((20, 2), 0.5), [0, 1] * 10)


def test_private_coefs_shapes_and_groups():
    """Epsilons whose corrected calibration needs extra regularisation get their own solve."""
    X, y = sphere_data(400, 3, rng=0)
    prep = prepare(X, y, data_norm=1.0)
    W, cals = private_coefs(prep, epsilons=[0.01, 0.1, 5.0], lam=1e-3, restarts=4, rng=0)
    assert W.shape == (3, 4, 3)
    assert cals[0].delta_reg > 0 and cals[2].delta_reg == 0
    assert np.all(np.isfinite(W))
    Wo, sens = private_coefs(prep, epsilons=[1.0], lam=1e-3, restarts=2, method="output", rng=0)
    assert Wo.shape == (1, 2, 3)
    assert sens[0] == pytest.approx(2 / (400 * 1e-3), rel=1e-3)


def test_uncertifiable_solve_is_refused_before_spending(sphere):
    """A gap below float64 rounding cannot be certified: a release refuses, a study goes on."""
    X, y = sphere[0][:300], sphere[1][:300]
    acc = BudgetAccountant(epsilon=5.0)
    with pytest.raises(DataError, match="could not certify"):
        PrivateLogisticRegression(method="output", tol=1e-40, data_norm=1.0, accountant=acc,
                                  dataset="sphere", classes=[-1, 1]).fit(X, y)
    assert len(acc.ledger) == 0  # output perturbation solves before it spends
    with pytest.raises(DataError, match="could not certify"):
        PrivateLogisticRegression(tol=1e-40, data_norm=1.0, rng=0).fit(X, y)
    prep = prepare(X, y, data_norm=1.0)
    W, _ = private_coefs(prep, epsilons=[1.0], lam=0.01, tol=1e-40, rng=0)  # a study
    assert np.all(np.isfinite(W))
