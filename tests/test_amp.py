"""Approximate minima perturbation, the default release of private logistic regression.

The laws are checked through the release function itself. A release cannot be seeded (OpenDP
draws from the operating system's entropy), so its KS tests use the critical value at
alpha = 1e-6 of Kolmogorov's asymptotic law, sqrt(-ln(alpha / 2) / 2) / sqrt(N) = 2.693 /
sqrt(N): a correct release fails one with probability 1e-6. The seeded study path uses the same
critical value; with a fixed seed its outcome is fixed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

from dpcore import DataError, release_noise
from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.mechanisms import L2Laplace
from dpcore.perturbation import PrivateLogisticRegression, lambda_rule, prepare, private_coefs
from dpcore.perturbation import amp as amp_module
from dpcore.perturbation.amp import amp_calibration, amp_coefs, certified_distance
from dpcore.perturbation.model import RULE_AMP, TOL, nonprivate_coef
from dpcore.perturbation.objective import LOGISTIC_C, amp_sensitivity
from dpcore.perturbation.output import output_sensitivity
from dpcore.perturbation.solver import fit_linear_terms

C_ALPHA = math.sqrt(-math.log(1e-6 / 2) / 2)  # 2.693
N, D, LAM, EPS = 60, 2, 0.05, 1.0


def ks_ok(x: np.ndarray, cdf) -> bool:
    return stats.kstest(x, cdf).statistic < C_ALPHA / math.sqrt(len(x))


@pytest.fixture(scope="module")
def small():
    """60 records in the unit disc, labels from a logistic model (seeded)."""
    gen = np.random.default_rng(11)
    X = gen.uniform(-1.0, 1.0, size=(N, D)) / math.sqrt(D)
    y = (gen.random(N) < expit(3.0 * X[:, 0] - 2.0 * X[:, 1])).astype(int)
    return prepare(X, y, data_norm=1.0, classes=[0, 1])


def recovered_noise(prep, W: np.ndarray, lam_total: float) -> np.ndarray:
    """The objective noise that makes each row of ``W`` the exact minimiser: the first-order
    condition of the summed objective, ``b = -(n mu w + Z^T (sigmoid(Z w) - y))``."""
    P = expit(prep.Z @ W.T)
    return -(prep.n * lam_total * W + (prep.Z.T @ (P - prep.y01[:, None])).T)


def check_objective_noise(prep, W: np.ndarray, cal) -> None:
    """The objective's noise recovered from the released vectors is the L2-Laplace of the
    release's scale: norm ~ Gamma(d, scale) (KS), angle uniform (KS, d = 2).

    The recovery also sees the output noise, moved by at most ``n (mu + 1/4) ||e||``: with
    ``||e||`` about ``d 2r / epsilon_out`` = 2.5e-5 here, a shift of 5e-4 against a scale of
    2, which moves the norm's CDF by at most 1e-4 (its density is below 0.4 / scale), far below
    the KS critical value 0.06 at N = 2,000."""
    B = recovered_noise(prep, W, cal.lam_total)
    scale = L2Laplace(cal.epsilon_noise, 2.0, D).release_scale
    assert ks_ok(np.linalg.norm(B, axis=1), stats.gamma(D, scale=scale).cdf)
    angle = (np.arctan2(B[:, 1], B[:, 0]) + math.pi) / (2 * math.pi)
    assert ks_ok(angle, stats.uniform.cdf)


def test_released_objective_noise_has_the_l2_laplace_law(small):
    """2,000 releases through the release function (OpenDP, fresh entropy; about 1 s)."""
    W, cal = amp_coefs(small, epsilon=EPS, lam=LAM, size=2000, tol=TOL)
    check_objective_noise(small, W, cal)


def test_study_twin_draws_the_same_objective_noise(small):
    W, cal = amp_coefs(small, epsilon=EPS, lam=LAM, size=2000, tol=TOL, rng=4)
    check_objective_noise(small, W, cal)


def test_output_noise_covers_the_certified_radius(small):
    """The released vector is the certified solve plus the L2-Laplace of sensitivity
    ``2 r = 2 sqrt(2 tol / mu)`` at 1 % of epsilon. With ``tol = 1e-3`` the output noise
    dominates (scale 2r / epsilon_out, about 40 here), and the solve error (at most r / 4, the
    solver's aim) moves the norm by 0.05, a CDF shift below 1e-3. Seeded: the study draws the
    objective noise first, then the output noise, from one generator; replaying the first draw
    gives the solve it perturbs."""
    tol = 1e-3
    W, cal = amp_coefs(small, epsilon=EPS, lam=LAM, size=2000, tol=tol,
                       rng=np.random.default_rng(8))
    replay = np.random.default_rng(8)
    B = L2Laplace(cal.epsilon_noise, 2.0, D).randomise(np.zeros((2000, D)), rng=replay)
    exact = fit_linear_terms(small.problem, lam=N * cal.lam_total, linear=B.T, tol=1e-14).coef
    output = W - exact
    sens = amp_sensitivity(tol, cal.lam_total)
    assert sens == pytest.approx(2 * math.sqrt(2 * tol / cal.lam_total))
    scale = sens / cal.epsilon_correction
    assert cal.epsilon_correction == pytest.approx(0.01 * EPS)
    assert ks_ok(np.linalg.norm(output, axis=1), stats.gamma(D, scale=scale).cdf)


def test_epsilon_is_split_exactly_with_the_rank_one_jacobian():
    for eps, n, lam in [(1.0, 32_561, 2.4e-4), (0.5, 369, 0.002), (1.0, 500, 5.6e-4),
                        (0.1, 50, 1e-3), (8.0, 10_000, 1e-5)]:
        cal = amp_calibration(eps, n=n, lam=lam)
        jacobian = math.log1p(LOGISTIC_C / (n * cal.lam_total))
        assert cal.epsilon_noise + jacobian + cal.epsilon_correction == pytest.approx(eps)
        assert cal.lam_total >= lam and cal.epsilon_noise >= (eps - cal.epsilon_correction) / 2
        if cal.delta_reg > 0:  # regularised until the Jacobian takes exactly half
            assert jacobian == pytest.approx((eps - cal.epsilon_correction) / 2)
    with pytest.raises(ValueError, match="2008"):
        amp_calibration(1.0, n=100, lam=0.1, proof="2008")


def test_certified_distance_bounds_the_distance_to_the_exact_minimiser(small):
    """A bound, not an estimate: at a point moved 1e-3 from a certified solve it is at least
    1e-3 minus the solve's own bound and at most the condition number (mu + 1/4) / mu times the
    distance; a noise vector far from zero adds at least its rounding, spacing / (n mu)."""
    cal = amp_calibration(EPS, n=N, lam=LAM)
    mu = cal.lam_total
    B = np.array([[3.0, -1.5], [2.0e12, -1.0e12]])
    W = fit_linear_terms(small.problem, lam=N * mu, linear=B.T, tol=1e-14).coef
    bound = certified_distance(small.Z, small.y01, W, B, lam=mu)
    assert bound[0] <= math.sqrt(2 * 1e-14 / mu) * 1.01  # the solver's gap, plus rounding
    step = np.array([6e-4, 8e-4])  # norm 1e-3
    moved = certified_distance(small.Z, small.y01, W[:1] + step, B[:1], lam=mu)[0]
    assert 1e-3 - bound[0] <= moved <= (mu + 0.25) / mu * (1e-3 + bound[0]) * 1.001
    rounding = np.linalg.norm(np.spacing(np.abs(B[1]))) / (N * mu)
    assert bound[1] >= rounding > 1e-6


def test_over_budget_is_refused_before_any_noise_is_drawn(small, monkeypatch):
    drawn = []
    real = release_noise.release_l2_laplace

    def spy(values, sensitivity, epsilon):
        drawn.append(len(acc.ledger))  # how many releases the ledger held when noise came
        return real(values, sensitivity, epsilon)

    monkeypatch.setattr(release_noise, "release_l2_laplace", spy)
    X, y = small.Z, small.y01
    acc = BudgetAccountant(epsilon=1.0)
    model = PrivateLogisticRegression(epsilon=0.6, lam=LAM, data_norm=1.0, fit_intercept=False,
                                      accountant=acc, dataset="small", classes=[0, 1]).fit(X, y)
    assert model.method == "amp" and drawn == [1, 1]  # both noises after the one spend
    assert acc.spent[0] == pytest.approx(0.6)
    assert "approximate minima perturbation" in acc.ledger["mechanism"].iloc[0]
    assert "in the objective and on the output" in acc.ledger["note"].iloc[0]
    with pytest.raises(BudgetExceeded):
        PrivateLogisticRegression(epsilon=0.6, lam=LAM, data_norm=1.0, fit_intercept=False,
                                  accountant=acc, dataset="small", classes=[0, 1]).fit(X, y)
    assert drawn == [1, 1] and len(acc.ledger) == 1


def test_a_perturbed_solve_that_cannot_be_certified_releases_nothing(small, monkeypatch):
    """The fit without noise is certified before the spend; the perturbed one after it (its
    noise must exist first): if that fails, the budget stays spent and nothing is released,
    not even the output noise."""
    calls, drawn = [], []
    real_bound, real_noise = amp_module.certified_distance, release_noise.release_l2_laplace

    def failing_second(*args, **kwargs):
        calls.append(1)
        bound = real_bound(*args, **kwargs)
        return bound if len(calls) == 1 else bound + np.inf

    def spy(values, sensitivity, epsilon):
        drawn.append(sensitivity)
        return real_noise(values, sensitivity, epsilon)

    monkeypatch.setattr(amp_module, "certified_distance", failing_second)
    monkeypatch.setattr(release_noise, "release_l2_laplace", spy)
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(DataError, match="spent before its noise was drawn"):
        PrivateLogisticRegression(epsilon=0.5, lam=LAM, data_norm=1.0, fit_intercept=False,
                                  accountant=acc, dataset="small",
                                  classes=[0, 1]).fit(small.Z, small.y01)
    assert len(acc.ledger) == 1 and drawn == [2.0]  # the objective's noise only


def test_a_fit_that_cannot_be_certified_spends_nothing(small):
    acc = BudgetAccountant(epsilon=1.0)
    with pytest.raises(DataError, match="could not certify"):
        PrivateLogisticRegression(tol=1e-40, data_norm=1.0, accountant=acc, dataset="small",
                                  classes=[0, 1]).fit(small.Z, small.y01)
    assert len(acc.ledger) == 0


def test_default_release_on_small_data():
    """The default estimator is AMP with lam = 0.07 d / (n epsilon), released end to end; on a
    toy table (n = 500, d = 4 with the intercept, the label a threshold on one feature) the
    seeded study of the same release at epsilon = 1 has a mean error over 20 fits of 0.13
    (SD 0.05), output perturbation at its rule 0.35 (SD 0.09): the gap of 0.2 is over 8
    standard errors of the difference (0.023)."""
    gen = np.random.default_rng(0)
    X = gen.uniform(size=(500, 3))
    y = (X[:, 0] > 0.5).astype(int)
    model = PrivateLogisticRegression(epsilon=1.0, classes=[0, 1]).fit(X, y)  # a release
    assert model.method == "amp" and model.rng is None
    assert model.lam_resolved_ == lambda_rule(1.0, 500, 4, "amp") == RULE_AMP * 4 / 500
    record = model.to_dict()
    assert record["method"].startswith("approximate minima perturbation")
    assert record["calibration"] == "2019"
    assert record["lambda_choice"] == "rule 0.07 d / (n epsilon)"
    amp = [1 - PrivateLogisticRegression(epsilon=1.0, rng=s).fit(X, y).score(X, y)
           for s in range(20)]
    out = [1 - PrivateLogisticRegression(epsilon=1.0, method="output", rng=s).fit(X, y).score(X, y)
           for s in range(20)]
    se = math.sqrt(np.var(amp, ddof=1) / 20 + np.var(out, ddof=1) / 20)
    assert np.mean(out) - np.mean(amp) > 4 * se
    assert np.mean(amp) < 0.2


def test_amp_parameters_say_what_to_pass():
    X, y = np.full((20, 2), 0.5), [0, 1] * 10
    with pytest.raises(ValueError, match="proof='2019'"):
        PrivateLogisticRegression(proof="2008", classes=[0, 1]).fit(X, y)
    with pytest.raises(ValueError, match="method='amp' for a release"):
        PrivateLogisticRegression(method="objective", classes=[0, 1]).fit(X, y)
    with pytest.raises(ValueError, match="seeded AMP fit is a study"):
        amp_coefs(prepare(X, y), epsilon=1.0, lam=0.1, tol=TOL, rng=0,
                  accountant=BudgetAccountant(epsilon=1.0))


# ------------------------------------------------ centred on a public model (prior w0 != 0)
W0 = np.array([1.5, -0.8])  # a "public model": any fixed vector that does not depend on D


def recovered_centred_noise(prep, W: np.ndarray, lam_total: float, w0: np.ndarray) -> np.ndarray:
    """The first-order condition of the centred objective: ``b = -(n mu (w - w0) + Z^T (sigmoid
    (Z w) - y))``."""
    return recovered_noise(prep, W, lam_total) + prep.n * lam_total * w0


def test_centred_release_draws_the_objective_noise_of_the_uncentred_law(small):
    """2,000 releases centred on w0 (OpenDP, fresh entropy): the noise recovered through the
    *centred* first-order condition is the L2-Laplace of the release's scale, the law of the
    uncentred release (the centre is one more linear term, nothing else moves). Recovered
    without the centre, the same vectors are off by n mu w0 (norm 5.1 here against a scale of
    2.2): the KS test tells the two apart."""
    W, cal = amp_coefs(small, epsilon=EPS, lam=LAM, size=2000, tol=TOL, prior=W0)
    B = recovered_centred_noise(small, W, cal.lam_total, W0)
    scale = L2Laplace(cal.epsilon_noise, 2.0, D).release_scale
    assert ks_ok(np.linalg.norm(B, axis=1), stats.gamma(D, scale=scale).cdf)
    angle = (np.arctan2(B[:, 1], B[:, 0]) + math.pi) / (2 * math.pi)
    assert ks_ok(angle, stats.uniform.cdf)
    wrong = recovered_noise(small, W, cal.lam_total)
    assert not ks_ok(np.linalg.norm(wrong, axis=1), stats.gamma(D, scale=scale).cdf)


def test_certified_distance_with_a_prior_bounds_the_distance_to_the_centred_minimiser(small):
    """The centred certificate: a solve of the centred objective is certified to its solver's
    gap, a point 1e-3 away gets a bound between 1e-3 minus that and the condition number
    times it; the same solve certified as if uncentred is at least ||w0|| - its bound away."""
    cal = amp_calibration(EPS, n=N, lam=LAM)
    mu = cal.lam_total
    B = np.array([[3.0, -1.5], [-20.0, 7.0]])
    linear = B.T - N * mu * W0[:, None]
    W = fit_linear_terms(small.problem, lam=N * mu, linear=linear, tol=1e-14).coef
    bound = certified_distance(small.Z, small.y01, W, B, lam=mu, prior=W0)
    assert np.all(bound <= math.sqrt(2 * 1e-14 / mu) * 1.01)
    step = np.array([6e-4, 8e-4])  # norm 1e-3
    moved = certified_distance(small.Z, small.y01, W[:1] + step, B[:1], lam=mu, prior=W0)[0]
    assert 1e-3 - bound[0] <= moved <= (mu + 0.25) / mu * (1e-3 + bound[0]) * 1.001
    uncentred = certified_distance(small.Z, small.y01, W, B, lam=mu)
    assert np.all(uncentred >= np.linalg.norm(W0) - bound)


def test_a_zero_prior_is_the_uncentred_release(small):
    """Seeded, the same draws: centring on w0 = 0 changes no coefficient."""
    plain, _ = amp_coefs(small, epsilon=EPS, lam=LAM, size=50, tol=TOL, rng=3)
    zero, _ = amp_coefs(small, epsilon=EPS, lam=LAM, size=50, tol=TOL, rng=3,
                        prior=np.zeros(D))
    np.testing.assert_array_equal(plain, zero)


def test_with_a_huge_lambda_the_centred_release_is_the_public_model(small):
    """At mu = 100 the exact minimiser is within (||grad L(w0)|| + ||b|| / n) / mu <= (1 +
    ||b|| / n) / mu of w0 (mu-strong convexity; each record's gradient has norm <= 1), which is
    0.05 unless ||b|| > 240, a Gamma(2, about 2) tail below 1e-49; the output noise (scale 2r
    / (0.01 epsilon), r = 1.4e-9) adds nothing visible. Released through the estimator with the
    prior in the units of X (coefficients and intercept), which it maps to the scaled space."""
    gen = np.random.default_rng(5)
    X = gen.uniform(-1.0, 1.0, size=(N, D)) / math.sqrt(D)
    y = (gen.random(N) < expit(3.0 * X[:, 0])).astype(int)
    coef, intercept = np.array([2.0, -1.0]), 0.5
    acc = BudgetAccountant(epsilon=1.0)
    model = PrivateLogisticRegression(epsilon=EPS, lam=100.0, data_norm=1.0, classes=[0, 1],
                                      prior=(coef, intercept), accountant=acc,
                                      dataset="small").fit(X, y)
    prep = prepare(X, y, data_norm=1.0, fit_intercept=True, classes=[0, 1])
    released = prep.from_model(model.coef_[0], model.intercept_[0])
    centre = prep.from_model(coef, intercept)
    assert np.linalg.norm(released - centre) <= (1 + 240 / N) / model.lam_
    assert "centred on the public model" in acc.ledger["note"].iloc[0]
    assert model.to_dict()["penalty_centre"] == "public model"
    W, _ = amp_coefs(prep, epsilon=EPS, lam=100.0, size=200, tol=TOL, rng=6, prior=centre)
    assert np.linalg.norm(W - centre, axis=1).max() <= (1 + 240 / N) / 100.0
    far = amp_coefs(prep, epsilon=EPS, lam=100.0, size=1, tol=TOL, rng=6)[0][0]
    assert np.linalg.norm(far - centre) > 1.0  # uncentred, the same penalty pulls it to 0


def test_centred_output_perturbation_adds_the_same_noise_to_the_centred_fit(small):
    """Output perturbation centred on w0: the released vectors minus the certified centred fit
    have the L2-Laplace law of the uncentred sensitivity 2/(n lam) + 2 sqrt(2 TOL / lam)
    (seeded, KS at alpha = 1e-6), and the centred fit is not the uncentred one."""
    W, sens = private_coefs(small, epsilons=[EPS], lam=LAM, restarts=2000, method="output",
                            rng=7, prior=W0)
    fit = nonprivate_coef(small, LAM, prior=W0)
    assert np.linalg.norm(fit - nonprivate_coef(small, LAM)) > 0.5
    assert sens[0] == output_sensitivity(N, LAM, gap=TOL)
    noise = np.linalg.norm(W[0] - fit, axis=1)
    assert ks_ok(noise, stats.gamma(D, scale=sens[0] / EPS).cdf)


def test_prior_says_what_to_pass(small):
    X, y = small.Z, small.y01
    with pytest.raises(TypeError, match="prior must be None"):
        PrivateLogisticRegression(classes=[0, 1], prior=[1.0, 2.0], rng=0).fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features"):
        PrivateLogisticRegression(classes=[0, 1], prior=([1.0], 0.0), rng=0).fit(X, y)
    with pytest.raises(ValueError, match="fit_intercept=False"):
        PrivateLogisticRegression(classes=[0, 1], fit_intercept=False, prior=([1.0, 2.0], 1.0),
                                  rng=0).fit(X, y)
    with pytest.raises(ValueError, match="finite coefficients"):
        amp_coefs(small, epsilon=EPS, lam=LAM, tol=TOL, rng=0, prior=[np.nan, 0.0])
