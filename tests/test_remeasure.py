"""Measure, observe, remeasure (issue 38 section 2): combining releases of one query.

Statistical tolerances are derived from theory and stated where they are used; seeds are fixed.
A coverage over n runs has standard error sqrt(0.95 * 0.05 / n) (0.22 % at n = 10^4), and a
sample variance over n draws a relative standard error sqrt((2 + κ) / n), κ the law's excess
kurtosis (0 for the Gaussian, 3 for the Laplace, 3/2 for the mean of two Laplace).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize

from dpcore.accountant import BudgetAccountant
from dpcore.composition import rho_parts
from dpcore.mechanisms import Gaussian, Laplace
from dpcore.primer.intervals import noise_half_width
from dpcore.primer.remeasure import (
    combine,
    combine_releases,
    noise_variance,
    pitman_laplace,
    variance_ratio,
)

COVERAGE_TOL = 4.0 * math.sqrt(0.95 * 0.05 / 10_000)  # 4 standard errors: 0.87 %


def test_combine_weights_by_inverse_variance_row_by_row():
    out = combine([[10.0, 13.0], [0.0, 3.0]], [4.0, 2.0])
    assert out.estimate == pytest.approx([12.0, 2.0], abs=1e-12)
    assert out.variance == pytest.approx([4.0 / 3.0, 4.0 / 3.0], rel=1e-12)
    assert out.weights.sum(axis=-1) == pytest.approx([1.0, 1.0], rel=1e-12)
    rows = np.random.default_rng(0).normal(size=(5, 3))
    batched = combine(rows, [1.0, 2.0, 3.0]).estimate
    one_by_one = [combine(row, [1.0, 2.0, 3.0]).estimate for row in rows]
    assert batched == pytest.approx(one_by_one, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(("answers", "variances"), [
    ([1.0, 2.0], [1.0, 0.0]), ([1.0, 2.0], [1.0, -1.0]), ([1.0, np.nan], [1.0, 1.0]),
    ([], []), (1.0, 1.0), ([1.0, 2.0], [1.0, np.inf])])
def test_combine_refuses_what_is_not_releases(answers, variances):
    with pytest.raises(ValueError, match="must be finite numbers"):
        combine(answers, variances)


def _ivw_half_width(scales: list[float], law: str = "laplace") -> float:
    """The half-width of the inverse-variance combination: the weights times the scales."""
    b = np.asarray(scales, dtype=float)
    weights = combine(np.zeros_like(b), noise_variance(law, b)).weights
    return float(noise_half_width(weights * b, law=law))


def test_noise_variances_are_the_mechanisms():
    assert noise_variance("laplace", 3.0) == 18.0 and noise_variance("gaussian", 3.0) == 9.0
    assert float(noise_variance("laplace", Laplace(0.5, 1.0).scale)) == pytest.approx(
        Laplace(0.5, 1.0).variance, rel=1e-12)
    with pytest.raises(ValueError, match="law"):
        noise_variance("cauchy", 1.0)


def test_combined_half_widths_are_the_weighted_sums_quantiles():
    """Gaussian: z σ / sqrt(2) for two alike. Laplace: two alike at scale b combine to
    b (L1 + L2) / 2, whose tail e^(-2t/b) (1 + t/b) is 5 % at the half-width; and 1, 1e-4
    (weights 1e-8 and 1 - 1e-8) is the second release's own b ln 20 within 1e-8."""
    assert _ivw_half_width([2.0, 2.0], "gaussian") == pytest.approx(
        2.0 * 1.959963984540054 / math.sqrt(2.0), rel=1e-12)
    t = _ivw_half_width([3.0, 3.0])
    assert math.exp(-2 * t / 3.0) * (1 + t / 3.0) == pytest.approx(0.05, rel=1e-8)
    assert _ivw_half_width([1.0, 1e-4]) == pytest.approx(1e-4 * math.log(20.0), rel=1e-8)


def _likelihood_check(x: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Posterior mean and 2.5 %, 97.5 % quantiles of Π exp(-|x_i - θ| / b_i) over θ, by
    brute-force quadrature (the closed form's independent check)."""
    def like(theta: float) -> float:
        return math.exp(-np.sum(np.abs(x - theta) / b))

    lo, hi = x.min() - 60 * b.max(), x.max() + 60 * b.max()
    points = sorted(x)
    mass = integrate.quad(like, lo, hi, points=points, limit=400, epsabs=0)[0]
    mean = integrate.quad(lambda t: t * like(t), lo, hi, points=points, limit=400,
                          epsabs=0)[0] / mass

    def cdf(theta: float) -> float:
        inner = [p for p in points if lo < p < theta]
        return integrate.quad(like, lo, theta, points=inner or None, limit=400,
                              epsabs=0)[0] / mass

    q = [optimize.brentq(lambda t, p=p: cdf(t) - p, lo, hi, xtol=1e-12)
         for p in (0.025, 0.975)]
    return mean, q[0], q[1]


@pytest.mark.parametrize(("x", "b"), [([0.3, -1.2, 2.5], [1.0, 0.5, 2.0]),
                                      ([4.0, 6.0], [1.0, 1.0]),
                                      ([10.0, 10.5, 9.0, 30.0], [3.0, 3.0, 1.0, 3.0])])
def test_pitman_laplace_is_the_normalised_likelihoods_mean_and_quantiles(x, b):
    out = pitman_laplace(x, b)
    mean, low, high = _likelihood_check(np.array(x), np.array(b))
    assert float(out["estimate"]) == pytest.approx(mean, rel=1e-8, abs=1e-9)
    assert float(out["low"]) == pytest.approx(low, rel=1e-7, abs=1e-8)
    assert float(out["high"]) == pytest.approx(high, rel=1e-7, abs=1e-8)


def test_pitman_laplace_of_one_release_is_the_release_and_its_interval():
    out = pitman_laplace([[5.0], [-1.0]], 2.0)
    assert out["estimate"] == pytest.approx([5.0, -1.0], abs=1e-12)
    assert out["high"] - out["estimate"] == pytest.approx([2.0 * math.log(20.0)] * 2, rel=1e-12)
    assert out["estimate"] - out["low"] == pytest.approx([2.0 * math.log(20.0)] * 2, rel=1e-12)


@pytest.mark.parametrize("scales", [[1.0, 1.0], [1.0, 3.0], [1.0, 2.0, 4.0], [1.0] * 4])
def test_both_intervals_cover_95_percent_and_pitman_is_never_worse(scales):
    """10^4 simulated measurement sessions (true answer 0): both intervals cover 95 % within
    four standard errors; the Pitman estimate's squared error is at most inverse-variance
    weighting's (paired draws: mean difference above minus four standard errors), equal for
    two alike."""
    b = np.array(scales)
    x = np.random.default_rng(38).laplace(size=(10_000, b.size)) * b
    ivw = combine(x, noise_variance("laplace", b)).estimate
    pitman = pitman_laplace(x, b)
    assert np.mean(np.abs(ivw) <= _ivw_half_width(scales)) == pytest.approx(
        0.95, abs=COVERAGE_TOL)
    assert np.mean((pitman["low"] <= 0) & (pitman["high"] >= 0)) == pytest.approx(
        0.95, abs=COVERAGE_TOL)
    gain = ivw**2 - pitman["estimate"] ** 2
    if len(set(scales)) == 1 and b.size == 2:
        assert np.abs(gain).max() < 1e-9
    else:
        assert gain.mean() > -4.0 * gain.std() / math.sqrt(gain.size)


def test_pitman_gains_on_four_releases_of_one_scale():
    """Four alike: the Pitman variance is about 0.82 of inverse-variance weighting's (measured
    over 2·10^5 runs, docs/privacy.md); over 10^4 paired runs the gain is well above zero
    (18 standard errors at 0.82)."""
    x = np.random.default_rng(1).laplace(size=(10_000, 4))
    gain = x.mean(axis=1) ** 2 - pitman_laplace(x, 1.0)["estimate"] ** 2
    assert gain.mean() > 4.0 * gain.std() / math.sqrt(gain.size)


def test_pitman_laplace_handles_ties_and_far_apart_releases():
    out = pitman_laplace([[1.0, 1.0, 1.0], [0.0, 500.0, 1000.0]], [1.0, 1.0, 1.0])
    assert np.all(np.isfinite(np.stack(list(out.values()))))
    assert out["estimate"][0] == pytest.approx(1.0, abs=1e-12)
    assert out["estimate"][1] == pytest.approx(500.0, abs=1e-9)


def test_gaussian_under_zcdp_two_halves_combine_to_one_release_at_rho():
    """Two Gaussian releases at ρ/2 (σ² = Δ²/ρ each, [BS16] Prop. 1.6) combined have the
    variance Δ²/(2ρ) of one release at ρ: exactly by the law, and within 1 % over 10^4
    simulations of 100 answers each (10^6 draws per arm: the ratio of two sample variances has
    relative standard error sqrt(2/10^6 + 2/10^6) = 0.2 %, so 1 % is five of them)."""
    rho, sens = 0.05, 3.0
    sigma_half, sigma_one = sens / math.sqrt(2 * rho / 2), sens / math.sqrt(2 * rho)
    exact = combine([0.0, 0.0], noise_variance("gaussian", [sigma_half] * 2)).variance
    assert float(exact) == pytest.approx(sigma_one**2, rel=1e-12)
    assert variance_ratio([0.5, 0.5], "gaussian") == 1.0
    rng = np.random.default_rng(2024)
    halves = rng.normal(scale=sigma_half, size=(10_000, 100, 2))
    combined = combine(halves, noise_variance("gaussian", [sigma_half] * 2)).estimate
    one = rng.normal(scale=sigma_one, size=(10_000, 100))
    assert combined.var() / one.var() == pytest.approx(1.0, abs=0.01)


def test_the_ledger_counts_two_gaussian_halves_as_their_summed_rho():
    """Through a zCDP ledger: two Gaussian spends add their ρ, and their releases combined
    have the variance of one Gaussian at that ρ."""
    mech = Gaussian(0.5, 1e-7, 2.0)
    ledger = BudgetAccountant(epsilon=1.0, delta=1e-5)
    ledger.set_composition("zcdp")
    for _ in range(2):
        ledger.spend(mech.epsilon, mech.delta, mechanism="Gaussian", dataset="d", noise=mech)
    total_rho = rho_parts(ledger.records.to_dict("records"))
    assert total_rho == pytest.approx(2 * mech.rho, rel=1e-12)
    combined = combine([0.0, 0.0], [mech.variance] * 2).variance
    assert float(combined) == pytest.approx(mech.sensitivity**2 / (2 * total_rho), rel=1e-12)


def test_laplace_two_halves_lose_a_factor_two_against_one_release():
    """Two Laplace releases at ε/2 combined: variance 2·(2Δ/ε)²/2 = 4Δ²/ε², twice 2Δ²/ε² of one
    at ε. By simulation over 10^6 draws per arm the ratio's relative standard error is
    sqrt((2 + 3/2)/10^6 + (2 + 3)/10^6) = 0.29 %; the tolerance 1.5 % is five of them."""
    eps, sens = 0.4, 1.0
    half, whole = Laplace(eps / 2, sens), Laplace(eps, sens)
    exact = combine([0.0, 0.0], [half.variance] * 2).variance
    assert float(exact) / whole.variance == pytest.approx(2.0, rel=1e-12)
    assert variance_ratio([0.5, 0.5], "laplace") == 2.0
    assert variance_ratio([0.25, 0.75], "laplace") == pytest.approx(1.6, rel=1e-12)
    rng = np.random.default_rng(7)
    halves = rng.laplace(scale=half.scale, size=(1_000_000, 2)).mean(axis=1)
    one = rng.laplace(scale=whole.scale, size=1_000_000)
    assert halves.var() / one.var() == pytest.approx(2.0, rel=0.015)


def _release(answers: list[float], scale: float) -> pd.DataFrame:
    return pd.DataFrame({"part": ["a", "b"][:len(answers)], "answer": answers, "scale": scale})


def test_combine_releases_part_by_part():
    """Releases at ε = 0.1 and 0.3 (scales 10 and 10/3) of a two-part query: each part is
    combined on its own; one release at the summed ε = 0.4 has scale 2.5."""
    releases = [_release([100.0, 50.0], 10.0), _release([110.0, 40.0], 10.0 / 3.0)]
    out = combine_releases(releases)
    for i in range(2):
        answers = [r["answer"].iloc[i] for r in releases]
        ivw = combine(answers, noise_variance("laplace", [10.0, 10.0 / 3.0]))
        pitman = pitman_laplace(answers, [10.0, 10.0 / 3.0])
        row = out.iloc[i]
        assert row["estimate"] == pytest.approx(float(ivw.estimate), rel=1e-12)
        assert row["best"] == pytest.approx(float(pitman["estimate"]), rel=1e-12)
        assert (row["best_low"], row["best_high"]) == pytest.approx(
            (float(pitman["low"]), float(pitman["high"])), rel=1e-12)
    assert list(out["releases"]) == [2, 2]
    assert out["half_width"].iloc[0] == pytest.approx(
        _ivw_half_width([10.0, 10.0 / 3.0]), rel=1e-12)
    assert out["first_half_width"].iloc[0] == pytest.approx(10 * math.log(20), rel=1e-12)
    assert out["single_half_width"].iloc[0] == pytest.approx(2.5 * math.log(20), rel=1e-12)
    # shares 1/4 and 3/4 of ε: 1 / (1/16 + 9/16) = 1.6
    assert out["variance_ratio"].iloc[0] == pytest.approx(1.6, rel=1e-12)
    assert (out["half_width"] < out["first_half_width"]).all()


def test_combine_releases_of_gaussians_is_inverse_variance_and_free_under_zcdp():
    out = combine_releases([_release([1.0], 2.0), _release([3.0], 2.0)], law="gaussian")
    row = out.iloc[0]
    assert row["best"] == row["estimate"] == pytest.approx(2.0, rel=1e-12)
    assert row["half_width"] == pytest.approx(row["single_half_width"], rel=1e-12)
    assert row["best_high"] - row["best"] == pytest.approx(row["half_width"], rel=1e-12)
    assert row["variance_ratio"] == pytest.approx(1.0, rel=1e-12)


def test_combine_releases_refuses_mixed_queries():
    with pytest.raises(ValueError, match="same parts"):
        combine_releases([_release([1.0, 2.0], 1.0), _release([1.0], 1.0)])
    with pytest.raises(ValueError, match="publish the query once"):
        combine_releases([])
