"""Choosing epsilon: closed-form inversions, the Monte-Carlo target on Adult, epsilon as risk,
and the composition totals (three worked examples written out by hand)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special

from dpcore.accountant import BudgetAccountant
from dpcore.mechanisms import Gaussian, Laplace
from dpcore.planning import (
    COMPOSITIONS,
    PlannedRelease,
    compare_compositions,
    compose,
    epsilon_for_gaussian,
    epsilon_for_importance_theory,
    epsilon_for_laplace,
    epsilon_from_curve,
    gaussian_rho,
    isotonic_decreasing,
    mean_sensitivity,
    planned_releases,
    posterior_bound,
    posterior_curves,
    search_epsilon,
)

# ---- target -> epsilon: closed forms -------------------------------------------------------


@pytest.mark.parametrize("sensitivity, error, level", [
    (1.0, 10.0, 0.95), (1.0, 1.0, 0.5), (0.001, 0.02, 0.99), (24.0, 3.0, 0.9), (1e-5, 1e-3, 0.95),
])
def test_laplace_inversion_is_exact(sensitivity, error, level):
    eps = epsilon_for_laplace(sensitivity, error, level)
    # P(|X| <= t) = 1 - exp(-t eps / Δ)  =>  eps = Δ ln(1/(1-level)) / t
    assert eps == pytest.approx(sensitivity * math.log(1.0 / (1.0 - level)) / error, rel=1e-12)
    bound = Laplace(eps, sensitivity).tail_bound(level)
    assert bound <= error and bound == pytest.approx(error, rel=1e-12)
    # a slightly smaller epsilon no longer meets the target
    assert Laplace(eps * (1 - 1e-9), sensitivity).tail_bound(level) > error


def test_laplace_inversion_by_simulation():
    # A count (Δ = 1) within ±10 in 95 % of releases. 200,000 draws: the share within ±10 has
    # binomial SE sqrt(0.95 * 0.05 / 2e5) = 4.9e-4; allow 4 SE.
    eps = epsilon_for_laplace(1.0, 10.0, 0.95)
    noise = Laplace(eps, 1.0).randomise(np.zeros(200_000), rng=20261123)
    share = np.mean(np.abs(noise) <= 10.0)
    assert share == pytest.approx(0.95, abs=4 * math.sqrt(0.95 * 0.05 / 200_000))


@pytest.mark.parametrize("calibration, sensitivity, error, level, delta", [
    ("analytic", 1.0, 10.0, 0.95, 1e-6), ("analytic", 0.01, 0.05, 0.9, 1e-5),
    ("analytic", 1.0, 0.5, 0.99, 1e-9), ("classic", 1.0, 20.0, 0.95, 1e-5),
])
def test_gaussian_inversion_is_exact(calibration, sensitivity, error, level, delta):
    eps = epsilon_for_gaussian(sensitivity, error, level, delta=delta, calibration=calibration)
    bound = Gaussian(eps, delta, sensitivity, calibration).tail_bound(level)
    assert bound <= error and bound == pytest.approx(error, rel=1e-9)
    if calibration == "classic":
        z = special.ndtri((1 + level) / 2)
        assert eps == pytest.approx(sensitivity * math.sqrt(2 * math.log(1.25 / delta)) * z
                                    / error, rel=1e-12)
    else:  # the analytic sigma is smaller, so the same target needs less epsilon
        assert Gaussian(eps * (1 - 1e-6), delta, sensitivity).tail_bound(level) > error


def test_gaussian_inversion_by_simulation():
    eps = epsilon_for_gaussian(1.0, 10.0, 0.95, delta=1e-6)
    noise = Gaussian(eps, 1e-6, 1.0).randomise(np.zeros(200_000), rng=7)
    # binomial SE as in the Laplace test; 4 SE
    assert np.mean(np.abs(noise) <= 10.0) == pytest.approx(
        0.95, abs=4 * math.sqrt(0.95 * 0.05 / 200_000))


def test_classic_gaussian_refuses_epsilon_above_one():
    with pytest.raises(ValueError, match="proven only for ε < 1"):
        epsilon_for_gaussian(1.0, 0.5, 0.95, delta=1e-6, calibration="classic")


def test_mean_sensitivity():
    assert mean_sensitivity(1000, 0.0, 90.0) == pytest.approx(0.09)
    with pytest.raises(ValueError, match="int >= 1"):
        mean_sensitivity(0)
    with pytest.raises(ValueError, match="must be > low"):
        mean_sensitivity(10, 1.0, 1.0)


@pytest.mark.parametrize("call, error, match", [
    (lambda: epsilon_for_laplace(0.0, 1.0), ValueError, "sensitivity == 0"),
    (lambda: epsilon_for_laplace(1.0, -1.0), ValueError, "error == -1"),
    (lambda: epsilon_for_laplace(1.0, 1.0, 1.0), ValueError, "level == 1"),
    (lambda: epsilon_for_laplace("1", 1.0), TypeError, "real number"),
    (lambda: epsilon_for_gaussian(1.0, 1.0, delta=0.0), ValueError, "delta"),
    (lambda: epsilon_for_gaussian(1.0, 1.0, calibration="x"), ValueError, "calibration"),
])
def test_invalid_targets(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---- monotone fits and the Monte-Carlo reading ---------------------------------------------


def test_isotonic_matches_scikit_learn():
    from sklearn.isotonic import IsotonicRegression

    gen = np.random.default_rng(3)
    for _ in range(20):
        y = gen.normal(size=15) - 0.3 * np.arange(15)
        w = gen.uniform(0.5, 2.0, size=15)
        ours = isotonic_decreasing(y, w)
        ref = IsotonicRegression(increasing=False).fit_transform(np.arange(15), y, sample_weight=w)
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)
        assert np.all(np.diff(ours) <= 1e-15)


def test_curve_reading_recovers_a_known_curve():
    # errors |N(0, (1/eps)^2)|: the 95 % quantile is 1.96/eps, so target 0.5 needs eps = 3.92.
    eps = np.geomspace(0.5, 20, 25)
    gen = np.random.default_rng(11)
    values = np.abs(gen.normal(size=(eps.size, 2000)) / eps[:, None])
    ans = epsilon_from_curve(eps, values, 0.5, statistic=0.95, rng=1)
    truth = special.ndtri(0.975) / 0.5
    # the quantile of 2000 draws has relative SE ~ sqrt(.95*.05/2000)/(f(q) q) ~ 2.5 %; 4 SE
    assert ans.met and ans.epsilon == pytest.approx(truth, rel=0.10)
    assert ans.low <= ans.epsilon <= ans.high and ans.n_runs == 2000
    assert ans.high / ans.low < 1.3  # the bootstrap interval is narrow with 2000 runs
    assert set(ans.curve.columns) == {"epsilon", "value", "fitted"}


def test_curve_reading_when_the_target_is_out_of_reach_or_met_everywhere():
    eps = np.array([0.1, 1.0, 10.0])
    values = np.array([[0.5, 0.5], [0.3, 0.3], [0.2, 0.2]])
    never = epsilon_from_curve(eps, values, 0.1, n_boot=0)
    assert not never.met and never.epsilon is None
    assert never.best_epsilon == 10.0 and never.achieved == pytest.approx(0.2)
    assert "No ε in range" in never.describe()
    always = epsilon_from_curve(eps, values, 0.9, n_boot=0)
    assert always.met and always.epsilon == 0.1
    mid = epsilon_from_curve(eps, values, 0.4, n_boot=0)
    # halfway between 0.5 and 0.3 in log epsilon between 0.1 and 1: sqrt(0.1) = 0.316
    assert mid.epsilon == pytest.approx(math.sqrt(0.1), rel=1e-12)


def test_search_refines_near_the_target():
    calls = []

    def evaluate(eps_list):
        calls.append(list(eps_list))
        return np.array([[1.0 / e] * 3 for e in eps_list])

    ans = search_epsilon(evaluate, 2.5, refine=4, n_boot=0)
    assert len(calls) == 1 + 4 and len(ans.curve) == 7 + 4
    # 1/eps is convex in log eps, so linear interpolation overshoots a little; 4 bisections of
    # the bracket (0.3, 1) leave it within a factor (1/0.3)^(1/16) = 1.08 of 0.4
    assert ans.epsilon == pytest.approx(0.4, rel=0.08)


# ---- importance weights on Adult: the returned epsilon meets the target in a fresh run -------


@pytest.fixture(scope="module")
def adult_iw():
    from dpcore.datasets import load_scenario
    from dpcore.importance import BootstrapStudy
    from dpcore.queries import indicator

    sc = load_scenario("adult")
    q = indicator((sc.target, "==", 1))
    b_D, b_E = q.evaluate(sc.private), q.evaluate(sc.public)
    fits = BootstrapStudy(sc.private, sc.public, 100, rng=0).fit(0.1)
    return sc, q, fits, b_E, float(b_D.mean())


@pytest.mark.slow  # a fresh Monte-Carlo run on Adult
def test_adult_importance_target_met_in_a_fresh_monte_carlo_run(adult_iw):
    from dpcore.importance import BootstrapStudy, bootstrap_estimates
    from dpcore.planning import importance_errors

    sc, _, fits, b_E, truth = adult_iw
    target, level = 0.05, 0.95
    ans = search_epsilon(lambda e: importance_errors(fits, b_E, truth, e), target,
                         statistic=level, rng=0)
    assert ans.met and 0.1 < ans.epsilon < 10 and ans.n_runs == 100
    # A fresh study: other bootstrap resamples and other noise (seed 1, 200 replicates).
    fresh = BootstrapStudy(sc.private, sc.public, 200, rng=1).fit(0.1)

    def coverage(eps):
        return np.mean(np.abs(bootstrap_estimates(fresh, b_E, eps) - truth) <= target)

    # Tolerance: the fit reads the 95 % quantile of 100 runs (coverage SE sqrt(.95*.05/100) =
    # 0.022), the fresh run counts 200 (SE 0.015): combined SE 0.027, 3 SE = 0.08.
    assert coverage(ans.epsilon) >= level - 0.08
    # The check can fail: at a quarter of that epsilon the coverage is far lower.
    assert coverage(ans.epsilon / 4) < level - 0.08


def test_adult_importance_theory_inverts_its_closed_form(adult_iw):
    from dpcore.importance import variance_terms

    sc, q, fits, _, _ = adult_iw
    terms = variance_terms(sc.private, sc.public, q, 0.1, beta0=fits.coef_full)
    z = special.ndtri(0.975)
    for kind, column in (("bound", "bound_delta"), ("plugin", "plugin")):
        for target in (0.04, 0.1, 0.5):
            ans = epsilon_for_importance_theory(terms, target, kind=kind)
            if not ans.met:
                # out of reach: even at the top of the range the radius exceeds the target
                radius = abs(terms.bias) + z * math.sqrt(terms.at(10.0)[column])
                assert radius > target and ans.achieved == pytest.approx(radius)
                continue
            radius = abs(terms.bias) + z * math.sqrt(terms.at(ans.epsilon)[column])
            assert radius == pytest.approx(target, rel=1e-9) or ans.epsilon == 0.01
    # The plug-in prediction is tighter than the bound, so it needs less epsilon.
    plug = epsilon_for_importance_theory(terms, 0.05, kind="plugin", with_bias=False)
    bound = epsilon_for_importance_theory(terms, 0.05, kind="bound", with_bias=False)
    assert not bound.met or plug.epsilon < bound.epsilon


# ---- epsilon as risk -----------------------------------------------------------------------


def test_posterior_odds_are_e_to_the_epsilon_times_the_prior_odds():
    priors = np.array([1e-4, 0.01, 0.1, 0.5, 0.9])
    for eps in (0.01, 0.1, 1.0, 3.0, 10.0):
        post = posterior_bound(priors, eps)
        odds = post / (1 - post) / (priors / (1 - priors))
        np.testing.assert_allclose(odds, math.exp(eps), rtol=1e-10)
    assert round(posterior_bound(0.01, 1.0), 3) == 0.027  # the slider's caption
    assert posterior_bound(0.0, 5.0) == 0.0 and posterior_bound(1.0, 5.0) == 1.0
    assert posterior_bound(0.3, 0.0) == pytest.approx(0.3)
    assert posterior_bound(0.01, 800.0) == 1.0  # e^800 overflows; the bound is 1


def test_posterior_bound_with_delta_is_tight_for_the_canonical_mechanism():
    # KOV's canonical (eps, delta) pair: under "in", outputs reveal (prob delta, posterior 1),
    # or randomised response with posterior b (prob (1-delta) e^eps/(1+e^eps)) or below b.
    p, eps, delta = 0.05, 1.0, 1e-3
    b = posterior_bound(p, eps)
    expected_max = delta * 1.0 + (1 - delta) * b  # E_in[max(posterior, b)]
    assert posterior_bound(p, eps, delta) == pytest.approx(expected_max, rel=1e-12)


@pytest.mark.parametrize("eps, delta, p", [(0.5, 1e-5, 0.01), (1.0, 1e-3, 0.2), (2.0, 0.05, 0.5)])
def test_posterior_bound_holds_for_the_gaussian_mechanism(eps, delta, p):
    # Gaussian noise calibrated to (eps, delta), Δ = 1: "in" gives N(1, s^2), "out" N(0, s^2).
    # E_in[max(posterior, b)] by quadrature must not exceed b + delta (1 - b).
    s = Gaussian(eps, delta, 1.0).sigma
    b = posterior_bound(p, eps)

    def integrand(y):
        # log-likelihood ratio of "in" vs "out" at y is (2y - 1) / (2 s^2)
        post = special.expit(special.logit(p) + (2 * y - 1) / (2 * s * s))
        return max(post, b) * math.exp(-0.5 * ((y - 1) / s) ** 2) / (s * math.sqrt(2 * math.pi))

    value, err = integrate.quad(integrand, 1 - 40 * s, 1 + 40 * s, limit=400, points=[0.5])
    assert value <= posterior_bound(p, eps, delta) + 10 * err + 1e-12
    assert value > b  # the delta part is not empty: the bound is not vacuous


def test_posterior_curves_and_invalid_inputs():
    frame = posterior_curves([0.01, 0.1], [0.5, 1.0], delta=1e-6)
    assert list(frame.columns) == ["prior", "epsilon", "delta", "posterior"] and len(frame) == 4
    for bad, match in (((1.5, 1.0), "prior"), ((0.1, -1.0), "epsilon")):
        with pytest.raises(ValueError, match=match):
            posterior_bound(*bad)
    with pytest.raises(ValueError, match="delta"):
        posterior_bound(0.1, 1.0, 1.0)


# ---- composition: three worked examples, one per method -------------------------------------


def test_sequential_worked_example():
    # (0.5, 0) + (0.3, 1e-6) + (0.2, 1e-6): epsilon 0.5 + 0.3 + 0.2 = 1.0, delta 2e-6.
    eps, delta = compose([0.5, 0.3, 0.2], [0.0, 1e-6, 1e-6])
    assert eps == pytest.approx(1.0, rel=1e-15) and delta == pytest.approx(2e-6, rel=1e-15)


def test_advanced_worked_example():
    # 200 pure releases of epsilon 0.05, delta' = 1e-5 (KOV Theorem 3.5, third term):
    #   sum (e^0.05 - 1) 0.05 / (e^0.05 + 1) = 200 * 0.05 * tanh(0.025) = 10 * 0.0249948
    #                                        = 0.249948
    #   sqrt(2 ln(1e5) sum eps^2) = sqrt(2 * 11.512925 * 200 * 0.0025) = sqrt(11.512925)
    #                             = 3.393070
    #   total epsilon = 3.643018 (sequential: 10), delta = 0 + 1e-5.
    eps, delta = compose([0.05] * 200, method="advanced", delta_slack=1e-5)
    assert eps == pytest.approx(3.643018, abs=2e-6) and delta == pytest.approx(1e-5)
    # Few large releases: the sequential sum is smaller, and it is returned (no delta').
    assert compose([1.0, 1.0], method="advanced", delta_slack=1e-5) == (2.0, 0.0)
    # Heterogeneous: 50 x 0.1 and 50 x 0.02, delta_i = 1e-7 each, delta' = 1e-6:
    #   first term 50 * 0.1 tanh(0.05) + 50 * 0.02 tanh(0.01) = 0.249792 + 0.010000 = 0.259792
    #   sqrt(2 ln(1e6) (50 * 0.01 + 50 * 0.0004)) = sqrt(27.631021 * 0.52) = 3.790532
    #   total 4.050323, delta 100 * 1e-7 + 1e-6 = 1.1e-5
    eps, delta = compose([0.1] * 50 + [0.02] * 50, [1e-7] * 100, "advanced", 1e-6)
    assert eps == pytest.approx(4.050323, abs=2e-6) and delta == pytest.approx(1.1e-5)


def test_zcdp_worked_example():
    # 100 Laplace releases at epsilon 0.1 (rho = 0.01/2 each = 0.5 in all) and one Gaussian
    # release with rho = 0.5 (e.g. sigma = Δ): rho = 1.0; delta' = 1e-6:
    #   epsilon = 1 + 2 sqrt(1 * ln(1e6)) = 1 + 2 * 3.716922 = 8.433844, delta = 1e-6
    #   (sequential: 100 * 0.1 + 1.0 = 11.0, delta 1e-6 for the Gaussian's own delta).
    eps = [0.1] * 100 + [1.0]
    deltas = [0.0] * 100 + [1e-6]
    rhos = [None] * 100 + [0.5]
    total = compose(eps, deltas, "zcdp", 1e-6, rhos=rhos)
    assert total[0] == pytest.approx(8.433844, abs=1e-6) and total[1] == 1e-6
    assert gaussian_rho(1.0, 1e-6, sigma=1.0) == 0.5  # Δ = 1, sigma = 1: rho = 1/2


def test_composition_edges_and_refusals():
    with pytest.raises(ValueError, match=r"Release 1 is \(ε = 1, δ = 1e-06\)-DP: zCDP cannot"):
        compose([1.0], [1e-6], "zcdp", 1e-6)
    for method in COMPOSITIONS:  # delta' = 0: the sequential total
        assert compose([0.1] * 10, method=method) == pytest.approx((1.0, 0.0))
        assert compose([], method=method, delta_slack=1e-6) == (0.0, 0.0)
    with pytest.raises(ValueError, match="method == 'basic'"):
        compose([0.1], method="basic")
    with pytest.raises(ValueError, match="epsilons must be >= 0"):
        compose([-0.1])
    with pytest.raises(ValueError, match="deltas must be in"):
        compose([0.1], [1.0])
    # zCDP is tighter than advanced for many Gaussian releases of moderate epsilon
    rho = gaussian_rho(0.5, 1e-6)
    adv = compose([0.5] * 50, [1e-6] * 50, "advanced", 1e-6)
    zc = compose([0.5] * 50, [1e-6] * 50, "zcdp", 1e-6, rhos=[rho] * 50)
    assert zc[0] < adv[0] < 25.0


def test_what_if_table():
    table = pd.DataFrame({"mechanism": ["Laplace", "Gaussian", "Laplace"],
                          "epsilon": [0.1, 0.5, None], "delta": [0.0, 1e-6, 0.0],
                          "count": [20, 4, 3]})
    planned = planned_releases(table)
    assert [(r.mechanism, r.count) for r in planned] == [("Laplace", 20), ("Gaussian", 4)]
    assert planned[1].rho == pytest.approx(gaussian_rho(0.5, 1e-6))
    out = compare_compositions(planned, 1e-6).set_index("method")
    assert out.loc["sequential", "epsilon"] == pytest.approx(20 * 0.1 + 4 * 0.5)
    assert out.loc["sequential", "delta"] == pytest.approx(4e-6)
    assert (out["releases"] == 24).all() and out["problem"].eq("").all()
    bad = table.assign(delta=[1e-6, 1e-6, 0.0])
    with pytest.raises(ValueError, match="Row 1: Laplace is a pure"):
        planned_releases(bad)
    with pytest.raises(ValueError, match="Row 2: a Gaussian release needs"):
        planned_releases(table.assign(delta=[0.0, 0.0, 0.0]))
    # a ledger with an (eps, delta) release and no rho: zcdp says why it cannot account for it
    ledger = pd.DataFrame({"epsilon": [1.0], "delta": [1e-6]})
    out = compare_compositions([PlannedRelease("Laplace", 0.1)], ledger=ledger).set_index("method")
    assert "zCDP cannot" in out.loc["zcdp", "problem"] and math.isnan(out.loc["zcdp", "epsilon"])
    assert out.loc["sequential", "epsilon"] == pytest.approx(1.1)


def test_a_plan_on_disjoint_parts_composes_in_parallel():
    # Worked example (parallel composition, JLE14 Sect. 1.6): one Laplace count per region at
    # eps = 0.5 for three regions, plus two releases at 0.1 on every row. A person is in one
    # region: sequential total 0.5 + 2 x 0.1 = 0.7, not 3 x 0.5 + 0.2 = 1.7.
    table = pd.DataFrame({"mechanism": ["Laplace"] * 4, "epsilon": [0.5, 0.5, 0.5, 0.1],
                          "delta": [0.0] * 4, "count": [1, 1, 1, 2],
                          "part": ["region = N", "region = S", "region = E", None]})
    releases = planned_releases(table)
    assert [r.partition for r in releases] == ["region = N", "region = S", "region = E", None]
    totals = compare_compositions(releases).set_index("method")
    assert totals.loc["sequential", "epsilon"] == pytest.approx(0.7)
    acc = BudgetAccountant(epsilon=1.0)
    assert acc.preview(releases, "sequential") == pytest.approx((0.7, 0.0))
