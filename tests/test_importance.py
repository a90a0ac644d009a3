"""Ji & Elkan's importance-weighting mechanism on synthetic data: privacy noise, theory, API."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import softmax

from dpcore import BudgetAccountant, BudgetExceeded, DataError
from dpcore.importance import (
    BalancedFit,
    ImportanceWeights,
    balanced_fit,
    baselines,
    bootstrap_estimates,
    bootstrap_fits,
    estimate_gradient,
    monte_carlo,
    noise_scale,
    plugin_variance,
    release_sensitivity,
    summarise,
    theory_curves,
    variance_bound,
    variance_terms,
)
from dpcore.queries import column_mean, indicator


@pytest.fixture(scope="module")
def shifted():
    """D and E on [0,1]^3 whose density ratio is log-linear, with a 0/1 query column."""
    rng = np.random.default_rng(0)
    D = rng.random((3000, 3))
    E = rng.random((2000, 3)) ** 1.5
    cols = ["a", "b", "c"]
    D_df, E_df = pd.DataFrame(D, columns=cols), pd.DataFrame(E, columns=cols)
    D_df["flag"] = (D[:, 0] > 0.6).astype(float)
    E_df["flag"] = (E[:, 0] > 0.6).astype(float)
    return D_df, E_df


def test_weights_have_mean_one_and_follow_the_seed(shifted):
    D, E = shifted
    a = ImportanceWeights(epsilon=1.0, lam=0.1, rng=3).fit(D, E)
    b = ImportanceWeights(epsilon=1.0, lam=0.1, rng=3).fit(D, E)
    assert a.weights_.shape == (len(E),)
    assert a.weights_.mean() == pytest.approx(1.0)
    np.testing.assert_array_equal(a.beta_, b.beta_)
    # d = 4 columns + 1; Lemma 2's sqrt(d)/(N_D lam) plus twice the distance a solve certified
    # within 2e-10 of its minimum can be from the minimiser (lam-strong convexity).
    lemma2 = np.sqrt(5) / (len(D) * 0.1)
    assert a.sensitivity_ == pytest.approx(lemma2 + 2 * np.sqrt(2 * 2e-10 / 0.1))
    assert a.sensitivity_ == pytest.approx(release_sensitivity(5, len(D), 0.1))
    assert a.noise_scale_ == pytest.approx(a.sensitivity_ / 1.0)
    assert a.epsilon_spent_ == 1.0
    assert list(a.feature_names_in_) == ["a", "b", "c", "flag"]
    assert a.estimate(indicator(("flag", "==", 1))) == pytest.approx(a.estimate(E["flag"]))


def test_reusing_step_one_gives_the_same_release_and_cannot_be_mismatched(shifted):
    D, E = shifted
    step1 = balanced_fit(D, E, 0.1)
    assert isinstance(step1, BalancedFit) and step1.converged
    reused = ImportanceWeights(epsilon=0.5, lam=0.1, rng=4).fit(D, E, step1=step1)
    fresh = ImportanceWeights(epsilon=0.5, lam=0.1, rng=4).fit(D, E)
    np.testing.assert_array_equal(reused.beta_, fresh.beta_)
    # A fit at another lam would get 100x too little noise; on other data, the wrong weights.
    with pytest.raises(ValueError, match=r"fitted at lam = 0.1 .* needs lam = 0.001"):
        ImportanceWeights(lam=0.001, rng=0).fit(D, E, step1=step1)
    with pytest.raises(ValueError, match="on other records"):
        ImportanceWeights(lam=0.1, rng=0).fit(D.iloc[1:], E, step1=step1)
    with pytest.raises(TypeError, match="BalancedFit"):
        ImportanceWeights(lam=0.1, rng=0).fit(D, E, step1=step1.coef)


def test_a_solve_that_does_not_converge_is_refused(shifted):
    D, E = shifted
    with pytest.raises(DataError, match=r"did not converge at lam = 1e-300.*Raise lam"):
        ImportanceWeights(epsilon=1.0, lam=1e-300, rng=0).fit(D, E)


def test_releases_draw_fresh_entropy_and_spend_through_the_accountant(shifted):
    D, E = shifted
    step1 = balanced_fit(D, E, 0.1)
    accountant = BudgetAccountant(epsilon=1.0)
    first = ImportanceWeights(0.4, 0.1, accountant=accountant).fit(D, E, step1=step1,
                                                                   dataset="toy")
    second = ImportanceWeights(0.4, 0.1, accountant=accountant).fit(D, E, step1=step1,
                                                                    dataset="toy")
    assert not np.array_equal(first.beta_, second.beta_)  # rng=None: OS entropy each time
    assert accountant.spent == (pytest.approx(0.8), 0.0)
    assert list(accountant.ledger["dataset"]) == ["toy", "toy"]
    third = ImportanceWeights(0.4, 0.1, accountant=accountant)
    with pytest.raises(BudgetExceeded, match="budget"):
        third.fit(D, E, step1=step1, dataset="toy")
    assert not hasattr(third, "beta_")  # refused before any noise was drawn
    assert len(accountant) == 2 and accountant.spent[0] == pytest.approx(0.8)


def test_weighting_moves_the_estimate_toward_the_private_answer(shifted):
    D, E = shifted
    iw = ImportanceWeights(epsilon=10.0, lam=0.01, rng=0).fit(D, E)
    truth, public = D["flag"].mean(), E["flag"].mean()
    assert abs(iw.estimate(E["flag"]) - truth) < 0.25 * abs(public - truth)


def test_private_records_outside_the_unit_box_are_clipped(shifted):
    # Issue 33: a record outside [0, 1] refused the fit with "max 1.23" in the message, a
    # refusal that one private record decided and that named its value. It is now clipped to
    # the domain's bound, like its neighbour inside the box; nothing is refused or warned.
    D, E = shifted
    bad = D.copy()
    bad.iloc[0, 0], bad.iloc[1, 1] = 1.23, -4.56
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clipped = ImportanceWeights(rng=0).fit(bad, E)
        released = ImportanceWeights(accountant=BudgetAccountant(1.0)).fit(bad, E, dataset="D")
    by_hand = ImportanceWeights(rng=0).fit(bad.clip(0.0, 1.0), E)  # clipping is to the domain
    np.testing.assert_array_equal(clipped.beta_, by_hand.beta_)
    assert clipped.sensitivity_ == by_hand.sensitivity_ == released.sensitivity_
    step1 = balanced_fit(bad, E, released.lam_)
    np.testing.assert_array_equal(step1.coef, balanced_fit(bad.clip(0.0, 1.0), E,
                                                           released.lam_).coef)
    with pytest.raises(DataError, match="different columns"):
        ImportanceWeights(rng=0).fit(D, E.rename(columns={"a": "z"}))
    with pytest.raises(ValueError, match="epsilon"):
        ImportanceWeights(epsilon=0.0).fit(D, E)
    with pytest.raises(ValueError, match="lam"):
        ImportanceWeights(lam=-1.0).fit(D, E)
    with pytest.raises(RuntimeError, match="fit"):
        ImportanceWeights().estimate(np.ones(3))


def test_released_beta_noise_has_the_calibrated_l2_laplace_law():
    # beta - beta* must have density ~ exp(-epsilon ||delta|| / sensitivity): its norm is
    # Gamma(d, sensitivity / epsilon) and its direction uniform (Algorithm 1 step 2), with the
    # sensitivity sqrt(d)/(N_D lam) plus the solver term.
    rng = np.random.default_rng(1)
    D, E = rng.random((200, 2)), rng.random((150, 2))
    step1 = balanced_fit(D, E, 0.5)
    deltas = np.array([
        ImportanceWeights(epsilon=2.0, lam=0.5, rng=seed).fit(D, E, step1=step1).beta_
        - step1.coef
        for seed in range(3000)
    ])
    scale = noise_scale(3, 200, 0.5, 2.0)
    norms = np.linalg.norm(deltas, axis=1)
    assert stats.kstest(norms, stats.gamma(a=3, scale=scale).cdf).pvalue > 1e-3
    u = deltas / norms[:, None]
    assert np.all(np.abs(u.mean(axis=0)) < 5 / np.sqrt(3 * 3000))  # uniform: Var u_j = 1/d


def test_delta_method_alpha_matches_finite_differences_and_the_printed_double_sum(shifted):
    _, E = shifted
    X = np.c_[E.to_numpy(), np.ones(len(E))]
    b = E["flag"].to_numpy()
    beta = np.array([0.8, -0.4, 0.3, 0.5, -0.2])

    def est(v):
        return float(softmax(X @ v) @ b)

    h = 1e-6
    fd = np.array([(est(beta + h * e) - est(beta - h * e)) / (2 * h) for e in np.eye(5)])
    grad = estimate_gradient(X, beta, b)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-9)
    # Theorem 2's alpha as printed: sum_ij e_i e_j (b_i - b_j)(x_i - x_j) / sum_ij e_i e_j.
    small = slice(0, 300)
    p = softmax(X[small] @ beta)
    db = b[small][:, None] - b[small][None, :]
    dx = X[small][:, None, :] - X[small][None, :, :]
    printed = np.einsum("i,j,ij,ijk->k", p, p, db, dx)
    np.testing.assert_allclose(estimate_gradient(X[small], beta, b[small], form="as-printed"),
                               printed, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(printed, 2 * estimate_gradient(X[small], beta, b[small]),
                               rtol=1e-10, atol=1e-13)


def test_monte_carlo_shape_reproducibility_and_epsilon_reuse(shifted):
    D, E = shifted
    q = indicator(("flag", "==", 1))
    mc = monte_carlo(D, E, q, [0.1, 1.0], [0.5, 5.0], n_reps=30, rng=4)
    assert list(mc.columns[:4]) == ["lam", "epsilon", "rep", "estimate"]
    assert len(mc) == 2 * 2 * 30
    again = monte_carlo(D, E, q, [0.1], [5.0], n_reps=30, rng=4)
    # Noise is keyed on (seed, lam, epsilon): a smaller grid gives the same numbers.
    sel = mc[(mc.lam == 0.1) & (mc.epsilon == 5.0)]
    np.testing.assert_allclose(sel.estimate.to_numpy(), again.estimate.to_numpy())
    fits = bootstrap_fits(D, E, 0.1, n_reps=30, rng=np.random.default_rng(4))
    assert fits.coefs.shape == (30, 5)
    assert mc.truth.iloc[0] == pytest.approx(D.flag.mean())
    assert mc.public_mean.iloc[0] == pytest.approx(E.flag.mean())
    calls = []
    monte_carlo(D, E, "flag", [0.1, 1.0], [1.0], n_reps=5, rng=0, progress=calls.append)
    assert calls == [0.5, 1.0]


def test_noiseless_estimates_and_summary(shifted):
    D, E = shifted
    fits = bootstrap_fits(D, E, 0.1, n_reps=20, rng=0)
    noiseless = bootstrap_estimates(fits, E.flag, None)
    noisy = bootstrap_estimates(fits, E.flag, 0.5)
    assert noiseless.shape == noisy.shape == (20,)
    assert noisy.std() > noiseless.std()
    summary = summarise(monte_carlo(D, E, "flag", [0.1], [0.5, 50.0], n_reps=20, rng=0))
    assert {"median", "bias", "sd", "variance", "mse"} <= set(summary.columns)
    assert summary.sd.iloc[0] > summary.sd.iloc[1]  # more budget, less spread


def test_theorem2_bound_forms_and_measured_variance(shifted):
    D, E = shifted
    q = "flag"
    for lam in (0.05, 0.5):
        for eps in (0.2, 2.0):
            delta = variance_bound(D, E, q, lam, eps)
            printed = variance_bound(D, E, q, lam, eps, form="as-printed")
            row = theory_curves(D, E, q, [lam], [eps]).iloc[0]
            # The printed alpha is twice the derivative: 4x the delta-method form, both with
            # the noise the mechanism draws.
            assert row["bound_printed_solver"] == pytest.approx(4 * delta)
            # As printed, the noise scale is sqrt(d)/(N_D lam eps): Lemma 2's sensitivity, not
            # release_sensitivity (d = 5 with the intercept, N_D = 3000).
            terms = variance_terms(D, E, q, lam)
            data = 5 / (3000 * lam**2)
            printed_noise = 5 * 6 / (3000 * lam * eps) ** 2
            drawn_noise = 6 * (release_sensitivity(5, 3000, lam) / eps) ** 2
            assert printed == pytest.approx(4 * terms.alpha2 * (data + printed_noise))
            assert delta == pytest.approx(terms.alpha2 * (data + drawn_noise))
            assert printed < row["bound_printed_solver"]
            measured = monte_carlo(D, E, q, [lam], [eps], n_reps=60, rng=2).estimate.var()
            assert measured < delta
            assert plugin_variance(D, E, q, lam, eps) < delta
    with pytest.raises(ValueError, match="form"):
        variance_bound(D, E, q, 0.1, 1.0, form="other")


def test_baselines_laplace_mechanism_spread_and_trimming_bias(shifted):
    D, E = shifted
    q = indicator(("flag", "==", 1))
    out = baselines(D, E, q, [0.5], n_reps=400, rng=5)
    assert set(out.method) == {"public mean", "truth (non-private)", "Laplace perturbation (raw)",
                               "Laplace perturbation (trimmed)", "Laplace mechanism (this query)"}
    lap = out[out.method == "Laplace mechanism (this query)"].estimate
    truth = out[out.method == "truth (non-private)"].estimate
    # Lap(1/(N_D eps)) has SD sqrt(2)/(N_D eps); the resampling adds Var(b)/N_D.
    expected_sd = np.sqrt(2 / (len(D) * 0.5) ** 2 + truth.var())
    assert lap.std() == pytest.approx(expected_sd, rel=5 / np.sqrt(2 * 400))
    raw = out[out.method == "Laplace perturbation (raw)"].estimate
    trimmed = out[out.method == "Laplace perturbation (trimmed)"].estimate
    # Lap(d/eps) noise on a 0/1 column: raw stays unbiased, trimming pulls towards 1/2.
    assert abs(raw.mean() - D.flag.mean()) < 5 * raw.std() / np.sqrt(400)
    assert abs(trimmed.mean() - 0.5) < abs(D.flag.mean() - 0.5) / 2
    with pytest.raises(TypeError, match="needs a dpcore.queries.Query"):
        baselines(D, E, "flag", [1.0])
    with pytest.raises(ValueError, match="low < high"):
        baselines(D, E, q, [1.0], n_reps=5, rng=0, value_range=(1.0, 1.0))


def test_baselines_read_no_bound_from_the_private_data(shifted):
    # The Laplace mechanism's noise is calibrated to the query's range, a public fact: an
    # extreme private value changes the truth but not the noise added to it.
    D, E = shifted
    q = column_mean("a")
    moved = D.copy()
    moved.loc[0, "a"] = 1.0
    a = baselines(D, E, q, [0.5], n_reps=50, rng=7)
    b = baselines(moved, E, q, [0.5], n_reps=50, rng=7)
    lap = "Laplace mechanism (this query)"
    noise_a = a[a.method == lap].estimate.to_numpy() - a[a.method == "truth (non-private)"]\
        .estimate.to_numpy()
    noise_b = b[b.method == lap].estimate.to_numpy() - b[b.method == "truth (non-private)"]\
        .estimate.to_numpy()
    np.testing.assert_allclose(noise_a, noise_b, atol=1e-12)


def test_query_builder():
    frame = pd.DataFrame({"x=1": [1.0, 0.0, 1.0, 0.0], "age": [0.2, 0.5, 0.9, 0.1]})
    q = indicator(("x=1", "==", 1), ("age", ">", 0.3))
    np.testing.assert_array_equal(q.evaluate(frame), [0, 0, 1, 0])
    q_or = indicator(("x=1", "==", 1), ("age", ">", 0.3), combine="or")
    np.testing.assert_array_equal(q_or.evaluate(frame), [1, 1, 1, 0])
    np.testing.assert_array_equal(q.relaxed(frame, ["x=1"]), q.evaluate(frame))
    assert str(q) == "I(x=1 == 1 AND age > 0.3)"
    assert column_mean("age").evaluate(frame).mean() == pytest.approx(0.425)
    with pytest.raises(ValueError, match="op"):
        indicator(("age", "=~", 1))
    with pytest.raises(DataError, match="does not have"):
        indicator(("nope", "==", 1)).evaluate(frame)
