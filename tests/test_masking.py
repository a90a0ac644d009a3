"""dpcore.masking: the solver, eqs. (4)-(5), Algorithm 1 and Algorithm 2 (Pham et al.)."""

import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import approx_fprime
from sklearn.linear_model import LogisticRegression

from dpcore import DataError, PrivacyLeakWarning
from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.masking import (
    GAP_TOL,
    MaskedDataGenerator,
    fit_generators,
    fit_logistic_model,
    input_perturbation,
    lipschitz_constant,
    masking_objective,
    model_gradient,
    model_objective,
    scale_records,
    summed_gradient,
)
from dpcore.perturbation import perturb_output


def _blobs(n=150, d=3, C=3, seed=0, spread=0.15):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(C, d))
    centres *= 0.5 / np.linalg.norm(centres, axis=1, keepdims=True)
    y = np.arange(n) % C
    X = centres[y] + spread * rng.standard_normal((n, d))
    return X, y


# ------------------------------------------------------------------------------------------
# The regularised binary / multinomial model
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("C", [2, 3, 4])
def test_solver_matches_sklearn(C):
    X, y = _blobs(C=C, spread=0.4)
    lam = 0.05
    fit = fit_logistic_model(X, y, lam=lam, n_classes=C)
    # sklearn minimises sum_i loss_i + 1/(2 C_sk) ||W||^2 = n * J(W) when 1/C_sk = n lam.
    sk = LogisticRegression(C=1 / (lam * len(y)), fit_intercept=False, tol=1e-12,
                            max_iter=10_000).fit(X, y)
    j_ours = model_objective(fit.coef, X, y, lam=lam, n_classes=C)
    j_sk = model_objective(sk.coef_, X, y, lam=lam, n_classes=C)
    # Strong convexity: J(ours) - min J <= gap <= tol = 1e-12.
    assert fit.gap <= 1e-12
    assert j_ours <= j_sk + fit.gap + 1e-14
    # ||ours - argmin|| <= ||grad||/lam <= sqrt(2 gap / lam) ~ 6e-6; sklearn's own tolerance adds
    # about 1e-6, hence 1e-5.
    assert np.abs(fit.coef - sk.coef_).max() < 1e-5


def test_batched_fits_equal_single_fits():
    Xs, ys = zip(*(_blobs(n=60, seed=s, spread=0.5) for s in range(4)), strict=True)
    X, y = np.stack(Xs), np.stack(ys)
    batch = fit_logistic_model(X, y, lam=0.1, n_classes=3)
    for i in range(4):
        single = fit_logistic_model(X[i], y[i], lam=0.1, n_classes=3)
        # Both certified to ||W - W*|| <= sqrt(2 * 1e-12 / 0.1) ~ 4.5e-6.
        np.testing.assert_allclose(batch.coef[i], single.coef, atol=1e-5)
    assert batch.coef.shape == (4, 3, 3) and batch.gap.shape == (4,)


def test_gradient_matches_finite_differences():
    X, y = _blobs(n=40, spread=0.5)
    W = np.random.default_rng(3).normal(size=(3, 3))
    g = model_gradient(W, X, y, lam=0.3, n_classes=3)
    num = approx_fprime(W.ravel(), lambda w: float(model_objective(w.reshape(3, 3), X, y,
                                                                   lam=0.3, n_classes=3)), 1e-7)
    np.testing.assert_allclose(g.ravel(), num, atol=1e-6)  # forward differences: O(h) = 1e-7


def test_softmax_lipschitz_constant_is_sqrt2():
    # Per-record gradient (p - e_y) x^T: Frobenius norm ||p - e_y|| ||x|| <= sqrt(2) ||x||.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5000, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    W = rng.normal(size=(5000, 3, 4)) * 10
    z = np.einsum("nkd,nd->nk", W, x)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    r = p - np.eye(3)[rng.integers(0, 3, 5000)]
    norms = np.linalg.norm(r, axis=1)
    assert norms.max() <= lipschitz_constant(3) + 1e-12
    assert norms.max() > 1.35  # the bound is nearly attained (p concentrated on a wrong class)
    assert lipschitz_constant(2) == 1.0


# ------------------------------------------------------------------------------------------
# Eqs. (4)-(5)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("K", "y"), [(1, 0), (1, 1), (3, 0), (3, 2)])
def test_masking_objective_and_gradient(K, y):
    rng = np.random.default_rng(K + y)
    W, G, x = rng.normal(size=(K, 5)), rng.normal(size=(K, 5)), rng.normal(size=5)
    f, g = masking_objective(x, y, W, G)
    z = W @ x
    if K == 1:
        r = 1 / (1 + np.exp(-z)) - y
    else:
        r = np.exp(z) / np.exp(z).sum() - np.eye(K)[y]
    assert f == pytest.approx(np.sum((G + np.outer(r, x)) ** 2), rel=1e-12)
    num = approx_fprime(x, lambda v: masking_objective(v, y, W, G)[0], 1e-7)
    np.testing.assert_allclose(g, num, atol=1e-5 * max(1.0, np.abs(g).max()))


# ------------------------------------------------------------------------------------------
# Algorithm 1
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("C", [2, 3])
def test_refit_lies_within_the_strong_convexity_bound(C):
    X, y = _blobs(n=200, C=C)
    gen = MaskedDataGenerator(2.0, 0.5, 200, rng=4, n_classes=C).fit(X, y)
    # J_S is lam-strongly convex, so ||argmin J_S - W'|| <= ||grad J_S(W')|| / lam, and the
    # refit is within its own certified ||grad||/lam of argmin J_S: distance_bound_.
    assert gen.refit_distance_ <= gen.distance_bound_ * (1 + 1e-9) + 1e-12
    # The greedy search drives the gradient to (numerically) zero: w' and the refit coincide
    # to far below the noise (its expected norm is K d sensitivity / epsilon >= 0.03).
    assert gen.gradient_norm_ < 1e-6
    assert gen.refit_distance_ < 1e-4
    assert gen.masked_X_.shape == (200, 3) and gen.masked_y_.shape == (200,)
    assert gen.noisy_coef_.shape == (1 if C == 2 else C, 3)
    # The gradient norm never increases along the greedy growth (one start of every label is
    # x = 0, where f = ||G||^2, and the search only descends); up to rounding of ||G||^2.
    assert np.all(np.diff(gen.gradient_trace_) <= 1e-9 * gen.gradient_trace_[0])


def test_sensitivity_is_the_papers_for_binary_and_sqrt2_times_for_softmax():
    X, y = _blobs(n=100, C=2)
    gen2 = MaskedDataGenerator(1.0, 0.5, 50, rng=0, n_classes=2).fit(X, y)
    # 2 / (N lam) (the density exp(-lam N eps ||eta|| / 2)) plus the solver term for the public
    # gap bound, 2 sqrt(2 GAP_TOL / lam): a constant, whatever gap the solver reached on X.
    solver = 2 * np.sqrt(2 * GAP_TOL / 0.5)
    assert gen2.sensitivity_ == pytest.approx(2 / (100 * 0.5) + solver, rel=1e-12)
    X, y = _blobs(n=100, C=3)
    gen3 = MaskedDataGenerator(1.0, 0.5, 50, rng=0, n_classes=3).fit(X, y)
    assert gen3.sensitivity_ == pytest.approx(2 * np.sqrt(2) / 50 + solver, rel=1e-12)


def test_a_fit_that_cannot_certify_the_public_gap_is_refused_before_spending(monkeypatch):
    import dpcore.masking.generator as generator

    X, y = _blobs(n=100, C=2)
    monkeypatch.setattr(generator, "GAP_TOL", 0.0)  # no solver reaches a gap of exactly 0
    accountant = BudgetAccountant(epsilon=1.0)
    with pytest.raises(DataError, match="could not certify"):
        MaskedDataGenerator(0.5, 0.5, 50, n_classes=2, accountant=accountant).fit(X, y)
    assert accountant.spent == (0.0, 0.0)


@pytest.mark.parametrize("C", [2, 3])
def test_noise_is_the_output_perturbation_release(C):
    # Step 2 is exactly dpcore.perturbation.perturb_output (whose Gamma-norm law is tested with
    # it) with this model's Lipschitz constant and the public gap bound; the C-class release then
    # drops the component along the softmax's null direction (rows centred).
    X, y = _blobs(n=100, d=2, C=C)
    gen = MaskedDataGenerator(1.0, 0.5, 2, rng=11, n_classes=C, max_iter=0,
                              n_starts=1).fit(X, y)
    expected = perturb_output(gen.coef_.ravel(), n=100, lam=0.5, epsilon=1.0,
                              lipschitz=lipschitz_constant(C), gap=GAP_TOL,
                              rng=np.random.default_rng(11)).reshape(gen.coef_.shape)
    if C > 2:
        expected -= expected.mean(axis=0)
    np.testing.assert_allclose(gen.noisy_coef_, expected, atol=1e-12)
    assert np.abs(gen.noisy_coef_.sum(axis=0)).max() < 1e-12 or C == 2


def test_initial_set_is_kept_first_and_seed_reproducible():
    X, y = _blobs(n=90)
    X0, y0 = _blobs(n=30, seed=9)
    a = MaskedDataGenerator(3.0, 0.5, 60, rng=7, n_classes=3).fit(X, y, initial=(X0, y0))
    b = MaskedDataGenerator(3.0, 0.5, 60, rng=7, n_classes=3).fit(X, y, initial=(X0, y0))
    np.testing.assert_array_equal(a.masked_X_[:30], X0)
    np.testing.assert_array_equal(a.masked_y_[:30], y0)
    np.testing.assert_array_equal(a.masked_X_, b.masked_X_)
    assert a.n_initial_ == 30 and len(a.gradient_trace_) == 31


def test_records_are_scaled_by_the_domain_bound_and_samples_stay_in_it():
    X, y = _blobs(n=100)
    X = 10 * X
    gen = MaskedDataGenerator(1.0, 0.5, 80, rng=1, n_classes=3, data_norm=10.0).fit(X, y)
    assert np.linalg.norm(gen.masked_X_, axis=1).max() <= 10.0 * (1 + 1e-12)
    assert gen.n_clipped_ == int(np.sum(np.linalg.norm(X, axis=1) > 10.0))
    Xs, k = scale_records([[0.0, 20.0], [3.0, 4.0]], data_norm=10.0)
    np.testing.assert_allclose(Xs, [[0.0, 1.0], [0.3, 0.4]])
    assert k == 1


def test_summed_gradient_is_n_times_the_averaged_gradient():
    X, y = _blobs(n=50)
    W = np.random.default_rng(0).normal(size=(3, 3))
    G = summed_gradient(W, X, y, n_total=50, lam=0.2)
    np.testing.assert_allclose(G / 50, model_gradient(W, X, y, lam=0.2, n_classes=3),
                               atol=1e-12)


def test_generator_spends_before_noise_and_refuses_over_budget():
    X, y = _blobs(n=60)
    acc = BudgetAccountant(epsilon=1.5)
    MaskedDataGenerator(1.0, 0.5, 20, accountant=acc, n_classes=3, dataset="blobs").fit(X, y)
    assert acc.spent == (1.0, 0.0)
    assert acc.ledger["dataset"].tolist() == ["blobs"]
    gen = MaskedDataGenerator(1.0, 0.5, 20, accountant=acc, n_classes=3)
    with pytest.raises(BudgetExceeded):
        gen.fit(X, y)
    assert acc.spent == (1.0, 0.0) and not hasattr(gen, "masked_X_")


def test_label_set_read_off_the_data_warns():
    X, y = _blobs(n=30)
    with pytest.warns(PrivacyLeakWarning, match="n_classes"):
        gen = MaskedDataGenerator(1.0, 0.5, 10, rng=0).fit(X, y)
    assert gen.n_classes_ == 3


def test_private_labels_outside_the_classes_are_clipped_not_refused():
    # Issue 33: a private label 5 with n_classes=3 refused the release with "max 5" in the
    # message: one record decided the refusal and its value was shown. It is now clipped to
    # the nearest code (a rule of the public n_classes), with no exception and no warning.
    X, y = _blobs(n=60)
    bad = y.copy()
    bad[0], bad[1] = 5, -2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gen = MaskedDataGenerator(1.0, 0.5, 20, rng=3, n_classes=3).fit(X, bad)
        released = MaskedDataGenerator(1.0, 0.5, 20, n_classes=3,
                                       accountant=BudgetAccountant(1.0)).fit(X, bad)
    same = MaskedDataGenerator(1.0, 0.5, 20, rng=3, n_classes=3).fit(X, np.clip(bad, 0, 2))
    np.testing.assert_array_equal(gen.coef_, same.coef_)
    np.testing.assert_array_equal(gen.masked_X_, same.masked_X_)
    assert released.n_classes_ == 3 and released.masked_X_.shape == (20, 3)
    # The public initial set's labels are not clipped: a wrong public label is refused.
    X0, y0 = _blobs(n=10, seed=4)
    with pytest.raises(DataError, match=r"initial y has labels outside 0 .. 2"):
        MaskedDataGenerator(1.0, 0.5, 20, rng=3, n_classes=3).fit(X, y, initial=(X0, y0 + 3))


@pytest.mark.parametrize(
    ("kwargs", "data", "error"),
    [
        ({"epsilon": 0.0}, None, ValueError),
        ({"epsilon": "1"}, None, TypeError),
        ({"lam": -1.0}, None, ValueError),
        ({"n_samples": 2.5}, None, TypeError),
        ({"n_samples": 0}, None, ValueError),
        ({"n_classes": 1}, None, ValueError),
        ({"data_norm": 0.0}, None, ValueError),
        ({"rng": "seed"}, None, TypeError),
        ({}, "nan", DataError),
        ({}, "labels", DataError),
        ({}, "shape", DataError),
        ({"n_samples": 5}, "initial", ValueError),
    ],
)
def test_invalid_inputs(kwargs, data, error):
    X, y = _blobs(n=30)
    params = {"epsilon": 1.0, "lam": 0.5, "n_samples": 20, "rng": 0, "n_classes": 3, **kwargs}
    initial = None
    if data == "nan":
        X[0, 0] = np.nan
    elif data == "labels":
        y = y + 0.5  # not class codes at all (a label outside 0 .. C-1 is clipped, below)
    elif data == "shape":
        y = y[:-1]
    elif data == "initial":
        initial = _blobs(n=10)
    with pytest.raises(error):
        MaskedDataGenerator(**params).fit(X, y, initial=initial)


# ------------------------------------------------------------------------------------------
# Algorithm 2
# ------------------------------------------------------------------------------------------


def test_input_perturbation_noise_law():
    # x' - x has density exp(-eps ||eta|| / 2) for ||x|| <= 1: norm ~ Gamma(d, 2 / eps).
    X = np.full((4000, 3), 0.1)
    out = input_perturbation(X, 2.0, rng=0)
    norms = np.linalg.norm(out - X, axis=1)
    assert stats.kstest(norms, stats.gamma(a=3, scale=1.0).cdf).pvalue > 0.001
    # Units: with data_norm = 10 the noise scales by 10 (sensitivity 2 data_norm).
    out10 = input_perturbation(10 * X, 2.0, rng=0, data_norm=10.0)
    np.testing.assert_allclose(out10, 10 * out)


def test_input_perturbation_projects_outliers_and_spends():
    acc = BudgetAccountant(epsilon=1.0)
    out = input_perturbation([[3.0, 4.0]], 1000.0 - 999.5, accountant=acc, dataset="d")
    assert out.shape == (1, 2)
    assert acc.spent == (0.5, 0.0)
    assert "labels" in acc.ledger["note"].iloc[0]
    with pytest.raises(BudgetExceeded):
        input_perturbation([[0.1, 0.1]], 0.6, accountant=acc)
    with pytest.raises(DataError):
        input_perturbation([0.1, 0.2], 1.0)
    with pytest.raises(ValueError):
        input_perturbation([[0.1, 0.2]], -1.0)


# ------------------------------------------------------------------------------------------
# The page's model on a scenario: an intercept and a penalty centred at a public model
# ------------------------------------------------------------------------------------------


def test_design_records_keep_the_norm_bound_and_invert():
    from dpcore.masking import design_records, intercept_value, records_from_design

    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    Xd, clipped = design_records(X, 5.0, intercept=True)
    assert clipped == 0 and Xd.shape == (3, 3)
    assert np.linalg.norm(Xd, axis=1).max() <= 1.0 + 1e-12  # the sensitivity's ||x|| <= 1
    np.testing.assert_allclose(Xd[:, -1], intercept_value())  # the constant is not centred
    np.testing.assert_allclose(records_from_design(Xd, 5.0, intercept=True), X, atol=1e-12)
    np.testing.assert_array_equal(design_records(X, 5.0)[0], scale_records(X, 5.0)[0])


def test_a_prior_centres_the_penalty_and_a_large_lambda_falls_back_to_it():
    X, y = _blobs(n=80, C=2, spread=0.4)
    W0 = np.array([[0.7, -0.3, 1.1]])
    for lam in (0.05, 5.0):
        fit = fit_logistic_model(X, y, lam=lam, n_classes=2, coef_prior=W0)
        assert fit.gap <= 1e-12
        grad = model_gradient(fit.coef, X, y, lam=lam, n_classes=2, coef_prior=W0)
        assert np.linalg.norm(grad) <= np.sqrt(2 * lam * 1e-12) * (1 + 1e-9)
        # Optimality: lam (W - W0) = -(1/n) sum r_i x_i, whose norm is at most L max||x|| = 1
        # times max||x_i||: the fit lies within max||x|| / lam of the prior.
        assert np.linalg.norm(fit.coef - W0) <= np.linalg.norm(X, axis=1).max() / lam
    # The same objective written out: J(W) - J0(W) is the shift of the penalty's centre.
    W = np.array([[0.2, 0.1, -0.4]])
    shift = (model_objective(W, X, y, lam=0.3, n_classes=2, coef_prior=W0)
             - model_objective(W, X, y, lam=0.3, n_classes=2))
    assert shift == pytest.approx(0.15 * (np.sum((W - W0) ** 2) - np.sum(W**2)), rel=1e-12)


def test_a_prior_leaves_the_sensitivity_unchanged():
    # Replace one record: the minimisers of the centred objective (exact up to the certified
    # gap) differ by at most 2 / (n lam) ([CM08] Corollary 2: the prior is the same on both
    # neighbours and J stays lam-strongly convex), which is what the generator calibrates to.
    rng = np.random.default_rng(5)
    n, lam = 40, 0.05
    X, y = _blobs(n=n, C=2, spread=0.4)
    X, _ = scale_records(X, 1.0)
    W0 = rng.normal(size=(1, 3))
    fit = fit_logistic_model(X, y, lam=lam, n_classes=2, coef_prior=W0).coef
    solver = 2 * np.sqrt(2 * 1e-12 / lam)
    for _ in range(20):
        X2, y2 = X.copy(), y.copy()
        i = rng.integers(n)
        x_new = rng.normal(size=3)
        X2[i], y2[i] = x_new / max(1.0, np.linalg.norm(x_new)), 1 - y[i]
        fit2 = fit_logistic_model(X2, y2, lam=lam, n_classes=2, coef_prior=W0).coef
        assert np.linalg.norm(fit - fit2) <= 2 / (n * lam) + solver
    gen = MaskedDataGenerator(1.0, lam, 30, rng=0, n_classes=2, fit_intercept=True,
                              coef_prior=np.zeros((1, 4))).fit(X, y)
    assert gen.sensitivity_ == pytest.approx(2 / (n * lam) + 2 * np.sqrt(2 * GAP_TOL / lam),
                                             rel=1e-12)


def test_generator_with_intercept_and_prior_releases_through_the_same_noise():
    from dpcore.masking import design_records, intercept_value

    X, y = _blobs(n=100, d=2, C=2, spread=0.4)
    W0 = np.array([[0.5, -0.5, 0.8]])
    gen = MaskedDataGenerator(2.0, 0.2, 60, rng=3, n_classes=2, fit_intercept=True,
                              coef_prior=W0).fit(X, y)
    expected = perturb_output(gen.coef_.ravel(), n=100, lam=0.2, epsilon=2.0, gap=GAP_TOL,
                              rng=np.random.default_rng(3)).reshape(gen.coef_.shape)
    np.testing.assert_allclose(gen.noisy_coef_, expected, atol=1e-12)
    assert gen.coef_.shape == (1, 3) and gen.masked_X_.shape == (60, 2)
    # The masked records come back in the caller's units, inside the domain; as the model reads
    # them their intercept column is the constant.
    assert np.linalg.norm(gen.masked_X_, axis=1).max() <= 1.0 + 1e-9
    Xd, _ = design_records(gen.masked_X_, 1.0, intercept=True)
    np.testing.assert_allclose(Xd[:, -1], intercept_value())
    # The refit (same penalty) lies within the strong-convexity bound of w'.
    assert gen.refit_distance_ <= gen.distance_bound_ * (1 + 1e-9) + 1e-12
    assert gen.predict(X).shape == (100,)


def test_an_intercept_places_the_threshold_at_the_base_rate():
    # Features that say nothing, labels 1 for 80 %: without an intercept the boundary passes
    # through the centre and splits the records; with one the model guesses the majority.
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 2)) / np.sqrt(2)
    y = (rng.random(400) < 0.8).astype(int)
    common = dict(rng=1, n_classes=2, center=0.0)
    plain = MaskedDataGenerator(50.0, 0.01, 100, **common).fit(X, y)
    with_intercept = MaskedDataGenerator(50.0, 0.01, 100, fit_intercept=True, **common).fit(X, y)
    assert np.mean(with_intercept.predict(X, "private") == 1) == 1.0
    assert np.mean(plain.predict(X, "private") == 1) < 0.9


def test_a_prior_of_the_wrong_shape_is_refused_before_spending():
    X, y = _blobs(n=50, C=2)
    accountant = BudgetAccountant(epsilon=1.0)
    with pytest.raises(ValueError, match="coef_prior has shape"):
        MaskedDataGenerator(0.5, 0.5, 20, n_classes=2, fit_intercept=True,
                            coef_prior=np.zeros((1, 3)), accountant=accountant).fit(X, y)
    assert accountant.spent == (0.0, 0.0)


def test_greedy_with_a_fixed_column_searches_the_balls_section():
    from dpcore.masking import greedy_masked_samples

    rng = np.random.default_rng(2)
    W = rng.normal(size=(3, 1, 4))
    res = greedy_masked_samples(W, 5 * W, 20, n_classes=2, rng=rng, fixed=0.6)
    np.testing.assert_allclose(res.X[..., -1], 0.6)
    assert np.linalg.norm(res.X, axis=-1).max() <= 1.0 + 1e-12


@pytest.mark.parametrize("fixed", [None, 0.6])
def test_greedy_batches_in_one_loop_give_each_batch_alone_to_the_bit(fixed):
    # issue 35: batches of different lengths share one loop; each batch's samples, labels,
    # gradients and trace are the ones it gets alone, and its generator is left in the same state
    # (the same seeded draws, in the same order).
    from dpcore.masking import greedy_masked_batches, greedy_masked_samples

    rng = np.random.default_rng(4)
    batches = [(rng.normal(size=(R, 3, 4)), rng.normal(size=(R, 3, 4)), n_add)
               for R, n_add in ((2, 5), (3, 9), (4, 1))]
    alone, after = [], []
    for i, (W, G0, n_add) in enumerate(batches):
        gen = np.random.default_rng(i)
        alone.append(greedy_masked_samples(W, G0, n_add, n_classes=3, rng=gen, n_starts=4,
                                           fixed=fixed))
        after.append(gen.bit_generator.state)
    gens = [np.random.default_rng(i) for i in range(len(batches))]
    steps = []
    together = greedy_masked_batches(
        [(W, G0, n_add, gen) for (W, G0, n_add), gen in zip(batches, gens, strict=True)],
        n_classes=3, n_starts=4, fixed=fixed, callback=lambda j, total: steps.append((j, total)))
    assert steps == [(j, 9) for j in range(9)]
    for res, joint in zip(alone, together, strict=True):
        for name in ("X", "y", "G", "trace"):
            np.testing.assert_array_equal(getattr(joint, name), getattr(res, name))
    assert [gen.bit_generator.state for gen in gens] == after


def test_the_searchs_short_sums_are_numpys_to_the_bit():
    # The greedy search sums its short axes entry by entry (faster on its small arrays); the
    # numbers must be numpy's reduce's, which adds a middle axis entry by entry too when M >= 2.
    from dpcore.masking.greedy import _max1, _sum1

    rng = np.random.default_rng(5)
    for R, k, M in [(1, 1, 2), (3, 2, 24), (180, 3, 24), (7, 8, 2), (5, 9, 16), (4, 30, 1),
                    (6, 12, 1)]:
        A = rng.standard_normal((R, k, M)) * rng.uniform(1e-3, 1e3, size=(R, 1, M))
        for keepdims in (False, True):
            np.testing.assert_array_equal(_sum1(A, keepdims), np.add.reduce(A, axis=1,
                                                                             keepdims=keepdims))
            np.testing.assert_array_equal(_max1(A, keepdims), A.max(axis=1, keepdims=keepdims))


def _evaluate_as_written(X, W, G, T, K):
    """``f`` and its gradient for candidates ``X`` (R, d, M), written as the module docstring
    writes them, with numpy's reductions over the classes and features."""
    WG = np.concatenate([W, G], axis=1)
    ZG = WG @ X
    Z, Gx = ZG[:, :K], ZG[:, K:]
    if K == 1:
        P = 1.0 / (1.0 + np.exp(-Z))
    else:
        P = np.exp(Z - Z.max(axis=1, keepdims=True))
        P /= np.add.reduce(P, axis=1, keepdims=True)
    r = P - T
    xx = np.add.reduce(X * X, axis=1)
    rr = np.add.reduce(r * r, axis=1)
    f = np.sum(G * G, axis=(-2, -1))[:, None] + 2.0 * np.add.reduce(r * Gx, axis=1) + rr * xx
    Mx = Gx + r * xx[:, None]
    if K == 1:
        AMx = P * (1.0 - P) * Mx
    else:
        AMx = P * (Mx - np.add.reduce(P * Mx, axis=1, keepdims=True))
    grad = np.ascontiguousarray(np.swapaxes(WG, 1, 2)) @ np.concatenate([AMx, r], axis=1)
    grad += X * rr[:, None]
    grad *= 2.0
    return f, grad


@pytest.mark.parametrize(("R", "K", "d", "M"), [(1, 3, 2, 24), (9, 3, 25, 24), (4, 1, 3, 16),
                                                (2, 12, 3, 24), (1, 3, 5, 1), (1, 1, 5, 1)])
def test_the_searchs_evaluation_is_the_formula_as_written_to_the_bit(R, K, d, M):
    # The search sums its short axes entry by entry; f and its gradient are the numbers of the
    # formula written out with numpy, for any rows (the masking page's ε batched or not).
    from dpcore.masking.greedy import _evaluate, _stack

    rng = np.random.default_rng(R + K + d + M)
    W, G = rng.normal(size=(R, K, d)), rng.normal(size=(R, K, d)) * 30
    labels = rng.integers(0, max(K, 2), size=M)
    T = labels[None].astype(float) if K == 1 else (np.arange(K)[:, None] == labels) * 1.0
    X = rng.normal(size=(R, d, M)) * 0.4
    f, grad = _evaluate(X, *_stack(W, G), np.sum(G * G, axis=(-2, -1)), T, K)
    f_written, grad_written = _evaluate_as_written(X, W, G, T, K)
    np.testing.assert_array_equal(f, f_written)
    np.testing.assert_array_equal(grad, grad_written)


def test_a_greedy_step_evaluates_f_once_per_iteration_whatever_the_batches(monkeypatch):
    # issue 35: batches (e.g. the masking page's ε values) share every evaluation of a step: one
    # at the starts and one per backtracking iteration, for one batch or nine.
    from dpcore.masking import greedy

    calls = []
    evaluate = greedy._evaluate
    monkeypatch.setattr(greedy, "_evaluate", lambda X, *args: calls.append(len(X)) or evaluate(
        X, *args))
    rng = np.random.default_rng(6)
    for n_batches in (1, 9):
        calls.clear()
        greedy.greedy_masked_batches(
            [(rng.normal(size=(1, 3, 2)), rng.normal(size=(1, 3, 2)), 7, np.random.default_rng(b))
             for b in range(n_batches)], n_classes=3, max_iter=4)
        assert calls == [n_batches] * (7 * (1 + 4))


def _fitted_state(gen):
    names = ("masked_X_", "masked_y_", "n_initial_", "coef_", "noisy_coef_", "refit_coef_",
             "gradient_trace_", "gradient_norm_", "refit_distance_", "distance_bound_",
             "sensitivity_", "n_clipped_", "lam_", "center_")
    return {name: getattr(gen, name) for name in names} | {"rng": gen.rng.bit_generator.state}


@pytest.mark.parametrize("binary", [False, True])
def test_generators_fitted_together_are_each_fitted_alone_to_the_bit(binary):
    # issue 35: fit_generators runs several seeded generators' greedy searches in one loop;
    # each generator ends in the state its own fit gives it (the Generators' states included).
    C = 2 if binary else 3
    X, y = _blobs(n=80, d=3, C=C, seed=7)
    X0, y0 = _blobs(n=12, d=3, C=C, seed=8)
    options = (dict(n_classes=2, fit_intercept=True, coef_prior=np.full((1, 4), 0.1))
               if binary else dict(n_classes=3))

    def made():
        return [MaskedDataGenerator(e, lam, n, rng=np.random.default_rng(3), n_starts=3,
                                    **options)
                for e, lam, n in ((0.5, 0.3, 40), (5.0, 0.3, 30), (50.0, 0.1, 40))]

    alone = [gen.fit(X, y, initial=(X0, y0)) for gen in made()]
    together = made()
    assert fit_generators(together, X, y, initial=(X0, y0)) == together
    for one, joint in zip(alone, together, strict=True):
        a, b = _fitted_state(one), _fitted_state(joint)
        assert a.keys() == b.keys()
        for name in a:
            np.testing.assert_array_equal(b[name], a[name], err_msg=name)
    assert fit_generators([], X, y) == []


def test_fit_generators_runs_seeded_studies_with_one_search_setting_only():
    X, y = _blobs(n=40, C=2)
    with pytest.raises(ValueError, match="seeded studies only"):
        fit_generators([MaskedDataGenerator(1.0, 0.5, 20, n_classes=2,
                                            accountant=BudgetAccountant(epsilon=5.0))], X, y)
    accountant = BudgetAccountant(epsilon=5.0)
    with pytest.raises(ValueError, match="seeded studies only"):
        fit_generators([MaskedDataGenerator(1.0, 0.5, 20, rng=1, n_classes=2),
                        MaskedDataGenerator(1.0, 0.5, 20, n_classes=2, accountant=accountant)],
                       X, y)
    assert accountant.spent == (0.0, 0.0)
    with pytest.raises(ValueError, match="same search settings"):
        fit_generators([MaskedDataGenerator(1.0, 0.5, 20, rng=1, n_classes=2),
                        MaskedDataGenerator(1.0, 0.5, 20, rng=1, n_classes=2, bounded=False)],
                       X, y)
