"""Optimal public subset (Wang et al. 2018): rescaling, weights, noise, sensitivity, accounting."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore import DataError
from dpcore.accountant import BudgetAccountant, BudgetExceeded
from dpcore.subset import (
    criterion_sensitivity,
    display_plane,
    hybrid_counts,
    hybrid_weights,
    lei_histogram,
    m_estimate,
    nearest_public,
    noisy_weights,
    predict,
    reference_estimate,
    rescale,
    select_subset,
    selection_probabilities,
)
from dpcore.subset.weights import distance_to_subset

# KS critical value: under H0, P(sqrt(n) D_n > 1.95) ~ 0.001 (Kolmogorov distribution), so a
# correct sampler fails with probability 1e-3 at a fixed seed; a wrong scale by a factor 2 gives
# D_n ~ 0.2, far above 1.95 / sqrt(n) for the n used here.
KS_CRIT = 1.95


@pytest.fixture(scope="module")
def toy():
    """Small logistic data: D ~ N(0, I), E ~ N(0, diag(0.5, 1)), as Wang et al. Sect. 5.1."""
    rng = np.random.default_rng(0)
    XD = rng.standard_normal((2000, 2))
    XE = rng.standard_normal((1500, 2)) * np.sqrt([0.5, 1.0])
    yD = (rng.random(2000) < 1 / (1 + np.exp(-(XD @ [0.8, -0.6])))).astype(int)
    yE = (rng.random(1500) < 1 / (1 + np.exp(-(XE @ [0.3, 0.2])))).astype(int)
    D = pd.DataFrame(XD, columns=["a", "b"]).assign(y=yD)
    E = pd.DataFrame(XE, columns=["a", "b"]).assign(y=yE)
    return D, E


def test_rescaling_uses_public_range_truncates_and_merges_duplicates():
    E = pd.DataFrame({"x": [1.0, 3.0, 3.0, 2.0], "c": ["u", "v", "v", "u"], "y": [0, 1, 1, 0]})
    D = pd.DataFrame({"x": [-5.0, 2.0, 9.0], "c": ["v", "w", "u"], "y": [1, 0, 1]})
    r = rescale(D, E, target="y")
    assert r.columns == ["x", "c=u", "c=v", "y"]
    s = 1 / math.sqrt(2)
    np.testing.assert_allclose(r.private, [[0, 0, s, 1], [0.5, 0, 0, 0], [1, s, 0, 1]])
    # Duplicates (3, v, 1) merged, first-appearance order kept, multiplicities counted.
    np.testing.assert_allclose(r.public, [[0, s, 0, 0], [1, 0, s, 1], [0.5, s, 0, 0]])
    assert r.multiplicity.tolist() == [1, 2, 1] and r.public_rows.tolist() == [0, 1, 3]
    assert r.target == 3 and r.radius == pytest.approx(math.sqrt(1 + 1 + 0.5))
    with pytest.raises(DataError, match="0/1"):
        rescale(D.assign(y=[0, 2, 1]), E, target="y")
    with pytest.raises(DataError, match="same columns"):
        rescale(D[["x", "c"]], E, target="y")
    # A private target that is not 0/1: refused without naming its values (issue 33); the
    # public set's message may name its own.
    with pytest.raises(DataError, match="private set holds other values") as refused:
        rescale(D.assign(y=["secret", "no", "yes"]), E, target="y")
    assert "secret" not in str(refused.value)
    with pytest.raises(DataError, match=r"public set holds \['a', 'b'\]"):
        rescale(D, E.assign(y=["a", "b", "a", "b"]), target="y")


def test_hybrid_weights_sum_to_one_and_ties_go_to_the_first_public_point():
    rng = np.random.default_rng(1)
    D, E = rng.random((500, 3)), rng.random((80, 3))
    w = hybrid_weights(D, E)
    assert w.sum() == pytest.approx(1.0, abs=1e-12) and np.all(w >= 0)
    # Every prefix: counts sum to n_D, and nothing is counted beyond the prefix.
    sizes = np.array([1, 5, 20, 80])
    idx, _ = nearest_public(D, E, sizes)
    counts = hybrid_counts(idx, 80)
    np.testing.assert_array_equal(counts.sum(axis=0), [500] * 4)
    assert all(counts[n:, j].sum() == 0 for j, n in enumerate(sizes))
    # A point halfway between two public points counts for the earlier one, by both methods.
    E2 = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.5]])
    D2 = np.array([[0.5, 0.0], [0.75, 0.25]])  # tie (0, 1); tie (1, 2)
    for method in ("tree", "matrix"):
        idx2, d2 = nearest_public(D2, E2, [2, 3], method=method)
        assert idx2.tolist() == [[0, 0], [1, 1]]
        np.testing.assert_allclose(d2, [[0.25, 0.25], [0.125, 0.125]])


def test_tree_and_matrix_agree_on_continuous_and_discrete_data():
    rng = np.random.default_rng(2)
    for scale in (None, 4):  # continuous; then a coarse grid full of ties
        D, E = rng.random((700, 3)), rng.random((300, 3))
        if scale:
            D, E = np.round(D * scale) / scale, np.round(E * scale) / scale
        sizes = [3, 50, 51, 300]
        a, da = nearest_public(D, E, sizes, method="tree")
        b, db = nearest_public(D, E, sizes, method="matrix")
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(da, db, atol=1e-12)
        # d(D, E') of eq. (5) never increases along nested subsets.
        assert np.all(np.diff(distance_to_subset(da)) <= 1e-12)


def test_count_vector_moves_by_at_most_two_between_neighbours():
    """Replace-one: the L1 change of (|D_y|) is 0 or 2 for every prefix (Proposition 1)."""
    rng = np.random.default_rng(3)
    E = np.round(rng.random((60, 2)) * 5) / 5  # a grid: many ties, the hard case
    E = np.unique(E, axis=0)
    sizes = [1, 4, 10, E.shape[0]]
    D = np.round(rng.random((300, 2)) * 10) / 10
    base = hybrid_counts(nearest_public(D, E, sizes)[0], E.shape[0])
    changes = []
    for _ in range(200):
        D2 = D.copy()
        D2[rng.integers(300)] = np.round(rng.random(2) * 10) / 10
        other = hybrid_counts(nearest_public(D2, E, sizes)[0], E.shape[0])
        changes.append(np.abs(other - base).sum(axis=0))
    changes = np.array(changes)
    assert changes.max() == 2.0  # reached, never exceeded
    assert set(np.unique(changes)) <= {0.0, 2.0}


def test_weight_noise_is_laplace_two_over_epsilon():
    n, eps, draws = 1000, 0.7, 20_000
    counts = np.arange(draws) % 7.0
    w = noisy_weights(counts, n, eps, truncate=False, rng=4)
    z = w * n - counts
    d_right = stats.kstest(z, stats.laplace(scale=2 / eps).cdf).statistic
    d_wrong = stats.kstest(z, stats.laplace(scale=1 / eps).cdf).statistic
    assert d_right < KS_CRIT / math.sqrt(draws)
    assert d_wrong > KS_CRIT / math.sqrt(draws)  # the test can tell a wrong scale
    # Definition 6: truncation at 0 is the only change.
    np.testing.assert_array_equal(noisy_weights(counts, n, eps, rng=4), np.maximum(w, 0))


def test_candidate_weights_get_laplace_2k_over_epsilon2(toy):
    """Algorithm 2 step 4: each of the k candidates' counts gets Laplace(2 k / epsilon2)."""
    D, E = toy
    sizes = [10, 100, 400, 1000]
    res = select_subset(D, E, (1.0, 2.0, 1.0), sizes, loss="squared", rng=5, target="y",
                        truncate=False)
    data = res.rescaled
    idx, _ = nearest_public(data.private, data.public[res.order], sizes)
    counts = hybrid_counts(idx, data.n_public)
    z = np.concatenate([(res.candidate_weights[:n, j] * data.n_private - counts[:n, j])
                        for j, n in enumerate(sizes)])
    assert np.all(res.candidate_weights[1000:] == 0)
    scale = 2 * len(sizes) / 2.0
    assert stats.kstest(z, stats.laplace(scale=scale).cdf).statistic < KS_CRIT / math.sqrt(z.size)
    assert stats.kstest(z, stats.laplace(scale=scale / 2).cdf).statistic > KS_CRIT / math.sqrt(
        z.size)


def test_m_estimators_mean_median_logistic():
    pts = np.array([[0.0, 1.0], [1.0, 0.0], [3.0, 1.0]])
    W = np.array([[0.2, 1.0], [0.3, 1.0], [0.5, 0.0]])
    np.testing.assert_allclose(m_estimate(pts, W, "squared"), [[1.8, 0.7], [0.5, 0.5]])
    np.testing.assert_allclose(m_estimate(pts, W, "absolute"), [[1.0, 1.0], [0.0, 0.0]])
    # Untruncated weights: fine for the mean (sum > 0), refused where the loss becomes non-convex.
    np.testing.assert_allclose(m_estimate(pts, [0.6, -0.2, 0.6], "squared"), [1.6, 1.2])
    with pytest.raises(ValueError, match="non-negative"):
        m_estimate(pts, [0.6, -0.2, 0.6], "absolute")
    with pytest.raises(ValueError, match="non-negative"):
        m_estimate(pts, [0.6, -0.2, 0.6], "logistic", target=1)
    # Logistic: weights are normalised per column, so scaling a column changes nothing.
    a = m_estimate(pts, W[:, :1], "logistic", target=1)
    b = m_estimate(pts, 7 * W[:, :1], "logistic", target=1)
    np.testing.assert_allclose(a, b, atol=1e-8)


def _criterion(private, theta, lam, target):
    ref = reference_estimate(private, "logistic", target=target, lam=lam)
    h = predict(private, np.vstack([theta, ref]), "logistic", target)
    return np.linalg.norm(h[:-1] - h[-1], axis=1)


def test_sensitivity_bound_holds_on_neighbours_and_every_component_moves():
    """|t(D) - t(D')| <= S for fixed candidate estimates (post-processing of released weights),
    over random and adversarial neighbours; and the paper's argument fails: replacing one
    record moves every component of h(theta_i) - h(theta_D), not only the changed row's, so
    |t - t'| can exceed the change of that row's component, which is all the paper bounds."""
    rng = np.random.default_rng(6)
    n, lam = 60, 0.02
    X = rng.random((n, 2))
    y = (X[:, 0] > 0.5).astype(float)
    D = np.c_[X, y]
    radius = math.sqrt(3)  # two [0, 1] covariates and the intercept
    bound = criterion_sensitivity(n, radius, lam)
    assert bound == pytest.approx(
        1 + radius / 4 * math.sqrt(n - 1) * (2 * radius / (n * lam) + 2 * math.sqrt(2e-12 / lam))
    )
    ref = reference_estimate(D, "logistic", target=2, lam=lam)
    theta = np.vstack([ref, rng.normal(0, 3, (40, 3))])  # fixed candidates; the first = theta_D
    base = _criterion(D, theta, lam, 2)
    worst, beyond_row = 0.0, 0.0
    for i in range(80):
        D2 = D.copy()
        j = rng.integers(n)
        if i % 2:  # adversarial: a corner with the label flipped
            D2[j] = [*rng.integers(0, 2, 2).astype(float), 1.0 - D[j, 2]]
        else:
            D2[j] = [*rng.random(2), float(rng.integers(2))]
        t2 = _criterion(D2, theta, lam, 2)
        worst = max(worst, np.abs(t2 - base).max())
        # The paper's bound for this pair: the change of |component j0| alone.
        ref2 = reference_estimate(D2, "logistic", target=2, lam=lam)
        a = predict(D[j : j + 1], np.vstack([theta, ref]), "logistic", 2)[:, 0]
        a2 = predict(D2[j : j + 1], np.vstack([theta, ref2]), "logistic", 2)[:, 0]
        row = np.abs(np.abs(a[:-1] - a[-1]) - np.abs(a2[:-1] - a2[-1]))
        beyond_row = max(beyond_row, (np.abs(t2 - base) - row).max())
        moved = np.ptp(predict(np.delete(D, j, 0), np.vstack([ref, ref2]), "logistic", 2),
                       axis=0)
        assert np.sum(moved > 1e-9) == n - 1  # every other row's prediction moved
    assert worst <= bound
    assert beyond_row > 1e-3  # the paper's one-component argument does not hold
    assert criterion_sensitivity(n, radius, lam, accounting="as-printed") == 1.0


def test_default_accounting_spends_epsilon1_plus_2_plus_3_in_three_entries(toy):
    D, E = toy
    acc = BudgetAccountant(epsilon=10.0)
    res = select_subset(D, E, (0.4, 0.1, 0.5), [10, 50, 200, 800], target="y",
                        accountant=acc)  # a release: rng=None
    assert res.epsilon_spent == pytest.approx(1.0) and res.under_count == pytest.approx(0.0)
    assert len(acc.ledger) == 3
    np.testing.assert_allclose(acc.ledger["epsilon"], [0.4, 0.1, 0.5])
    assert acc.spent[0] == pytest.approx(1.0)
    assert res.noisy_criteria is None and res.size in (10, 50, 200, 800)
    assert res.rows.shape[0] == res.size == res.weights.shape[0]
    assert np.all(res.weights >= 0)


def test_as_printed_accounting_under_counts(toy):
    D, E = toy
    sizes = [10, 50, 200, 800]
    acc = BudgetAccountant()
    res = select_subset(D, E, (0.4, 0.1, 0.5), sizes, accounting="as-printed",
                        target="y", accountant=acc)
    k, S = len(sizes), res.sensitivity_bound
    assert res.sensitivity == 1.0 and S > 1.0
    assert res.epsilon_claimed == pytest.approx(1.0)
    assert res.epsilon_spent == pytest.approx(0.5 + k * S * 0.5)
    assert acc.spent[0] == pytest.approx(res.epsilon_spent)  # the ledger records the truth
    assert res.noisy_criteria.shape == (k,) and res.size == sizes[np.argmin(res.noisy_criteria)]


def test_noisy_curve_selection_and_budget_refusal(toy):
    D, E = toy
    res = select_subset(D, E, (0.4, 0.1, 0.5), [10, 50, 200], rng=9, target="y",
                        selection="noisy-curve")
    assert res.epsilon_spent == pytest.approx(1.0)
    assert res.noisy_criteria.shape == (3,)
    acc = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetExceeded):
        select_subset(D, E, (0.4, 0.1, 0.5), [10, 50], target="y", accountant=acc)
    assert len(acc.ledger) == 0  # refused before anything was spent
    with pytest.raises(ValueError, match="seeded fit is a study"):
        select_subset(D, E, (0.1, 0.1, 0.1), [10, 50], rng=9, target="y", accountant=acc)


def test_seeded_runs_repeat_and_inputs_are_checked(toy):
    D, E = toy
    a = select_subset(D, E, (1, 1, 1), [10, 100], rng=3, target="y")
    b = select_subset(D, E, (1, 1, 1), [10, 100], rng=3, target="y")
    np.testing.assert_array_equal(a.candidate_weights, b.candidate_weights)
    with pytest.raises(TypeError, match="epsilon1, epsilon2, epsilon3"):
        select_subset(D, E, 1.0, [10], target="y")
    with pytest.raises(ValueError, match="epsilon2"):
        select_subset(D, E, (1.0, 0.0, 1.0), [10], target="y")
    with pytest.raises(ValueError, match="increase"):
        select_subset(D, E, (1, 1, 1), [100, 10], target="y")
    with pytest.raises(DataError, match="exceeds"):
        select_subset(D, E, (1, 1, 1), [10, 10**6], target="y")
    with pytest.raises(ValueError, match="accounting"):
        select_subset(D, E, (1, 1, 1), [10], target="y", accounting="paper")
    with pytest.raises(ValueError, match="squared"):
        select_subset(D, E, (1, 1, 1), [10], target="y", truncate=False)
    with pytest.raises(DataError, match="target"):
        select_subset(D, E, (1, 1, 1), [10])


def test_lei_histogram_counts_are_laplace_and_refuses_high_dimension(toy):
    D, E = toy
    data = rescale(D, E, target="y")
    theta, centres, W = lei_histogram(data, 1.0, bins=4, rng=10, repeats=300)
    assert centres.shape == (2 * 16, 3) and theta.shape == (300, 3)
    # Cells that hold many records are never truncated: their noise is Laplace(2/epsilon).
    cells = np.minimum((data.private[:, :2] * 4).astype(int), 3)
    flat = cells[:, 0] * 4 + cells[:, 1] + 16 * data.private[:, 2].astype(int)
    counts = np.bincount(flat, minlength=32)
    big = counts > 60
    z = (W[big] * data.n_private - counts[big, None]).ravel()
    assert stats.kstest(z, stats.laplace(scale=2.0).cdf).statistic < KS_CRIT / math.sqrt(z.size)
    wide = rescale(pd.DataFrame(np.random.default_rng(0).random((50, 4))).assign(y=1),
                   pd.DataFrame(np.random.default_rng(1).random((50, 4))).assign(y=0),
                   target="y")
    with pytest.raises(DataError, match="too many"):
        lei_histogram(wide, 1.0)


def test_mean_and_median_selection_and_display_plane(toy):
    D, E = toy
    for loss, bound in (("squared", math.sqrt(3) / 2000), ("absolute", math.sqrt(3))):
        res = select_subset(D, E, (1, 1, 1), [10, 100, 1000], loss=loss, rng=11, target="y")
        assert res.sensitivity_bound == pytest.approx(bound)  # q = 3 columns, n_D = 2000
        assert res.estimates.shape == (3, 3) and res.epsilon_spent == pytest.approx(3.0)
    data = rescale(D.assign(c=D["a"] * 0.5), E.assign(c=E["a"] * 0.5), target="y")
    pub, priv, labels = display_plane(data)  # 3 covariates: principal axes of E
    assert pub.shape == (data.n_public, 2) and priv.shape == (data.n_private, 2)
    assert "principal" in labels[0]
    np.testing.assert_allclose(pub.mean(axis=0), 0, atol=1e-12)  # centred on E, not on D


@pytest.mark.parametrize("d, scale", [(0.0, 1.0), (0.7, 0.5), (3.0, 1.0), (0.2, 2.0)])
def test_noisy_curve_selection_probability_of_two_candidates(d, scale):
    """argmin of t + Laplace(b) over two candidates: with W = Z1 - Z2 (density
    (1 + |w|/b) e^(-|w|/b) / 4b), P(select the first) = 1 - P(W > d) = 1 - e^(-d/b)(2 + d/b)/4
    for d = t2 - t1 >= 0. The trapezoid rule on 20,001 points is exact to ~1e-7 here."""
    # noisy-curve: Laplace(k S / epsilon3) with k = 2, S = scale / 2, epsilon3 = 1
    p = selection_probabilities([0.0, d], 1.0, scale / 2, selection="noisy-curve")
    exact = 1 - math.exp(-d / scale) * (2 + d / scale) / 4
    assert p[0] == pytest.approx(exact, abs=1e-5) and p.sum() == pytest.approx(1.0)
    # as-printed: Laplace(printed / epsilon3), whatever the correct S
    q = selection_probabilities([0.0, d], 2.0, 99.0, accounting="as-printed",
                                printed=2 * scale)
    assert q[0] == pytest.approx(exact, abs=1e-5)


def test_exponential_selection_probabilities_follow_the_closed_form():
    """The calibrated selection: P(i) = exp(-eps3 t_i / 2S) / sum_j exp(-eps3 t_j / 2S)."""
    t = np.array([[0.0, 1.0, 3.0], [2.0, 2.0, 2.0]])
    p = selection_probabilities(t, 2.0, 0.5)
    w = np.exp(-2.0 * t / (2 * 0.5))
    np.testing.assert_allclose(p, w / w.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(p[1], 1 / 3, rtol=1e-12)  # equal criteria: uniform


def test_a_text_target_is_refused_with_how_to_map_it(toy):
    D, E = toy
    as_text = {"y": lambda df: df["y"].map({0: "no", 1: "yes"})}
    with pytest.raises(DataError, match=r"private set holds other values\. Map it to 0/1 "
                       r"first") as refused:
        select_subset(D.assign(**as_text), E.assign(**as_text), target="y", rng=0)
    assert "yes" not in str(refused.value)  # no private value in the message (issue 33)
    flags = rescale(D.assign(y=D["y"] == 1), E.assign(y=E["y"] == 1), target="y")
    np.testing.assert_array_equal(flags.private[:, flags.target], D["y"].to_numpy(float))
