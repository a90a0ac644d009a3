"""Release paths draw float-safe noise of the stated law (issue 21).

A release has no seed: OpenDP draws from the operating system's entropy, so these tests cannot
fix one. Each KS test therefore uses the critical value at alpha = 1e-6 from Kolmogorov's
asymptotic law, sqrt(-ln(alpha / 2) / 2) = 2.693, divided by sqrt(n) (one sample) or multiplied
by sqrt((n + m) / (n m)) (two samples): a correct sampler fails one such test with probability
1e-6. Chi-square tests use p > 1e-6 likewise. The study path (numpy, seeded) is tested against
the same laws, so that a study shows what a release would do.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy import stats

from dpcore import release_noise
from dpcore.accountant import BudgetAccountant
from dpcore.importance import ImportanceWeights, balanced_fit, release_sensitivity
from dpcore.masking import MaskedDataGenerator
from dpcore.mechanisms import DiscreteLaplace, Exponential, Gaussian, L2Laplace, Laplace
from dpcore.perturbation import PrivateLogisticRegression, output_sensitivity, perturb_output
from dpcore.primer import PrimerQuery, count, release_answers
from dpcore.subset import select_subset

# Each law is sampled through the release path itself (OpenDP, fresh entropy): seconds per law.
pytestmark = pytest.mark.slow
C_ALPHA = math.sqrt(-math.log(1e-6 / 2) / 2)  # 2.693


def one_sample(x, cdf) -> bool:
    return stats.kstest(x, cdf).statistic < C_ALPHA / math.sqrt(len(x))


def two_sample(x, y) -> bool:
    n, m = len(x), len(y)
    return stats.ks_2samp(x, y).statistic < C_ALPHA * math.sqrt((n + m) / (n * m))


# ---- the mechanisms' release and study paths follow one law ---------------------------------


def test_laplace_release_law_equals_the_study_law():
    mech = Laplace(epsilon=0.5, sensitivity=2.0)
    noise = mech.release(np.full(20_000, 3.25)) - 3.25
    assert one_sample(noise, stats.laplace(scale=4.0).cdf)
    assert two_sample(noise, mech.randomise(np.zeros(20_000), rng=0))
    assert isinstance(mech.release(1.0), float)
    a, b = mech.release(np.zeros(3)), mech.release(np.zeros(3))
    assert not np.array_equal(a, b)  # fresh entropy: two presses, two releases


def test_gaussian_release_law_and_its_wider_sigma():
    mech = Gaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0)
    sigma = mech.release_sigma(20_000)
    # OpenDP's zCDP conversion is looser than the analytic calibration, tighter than the
    # classical rho + 2 sqrt(rho ln(1/delta)) one (sigma 4.90 here).
    assert mech.sigma < sigma < 4.9
    noise = mech.release(np.zeros(20_000))
    assert one_sample(noise, stats.norm(scale=sigma).cdf)


def l2_laplace_norms(noise, scale) -> bool:
    """The norms of the noise rows follow Gamma(dim, scale): the L2-Laplace law."""
    norms = np.linalg.norm(noise, axis=-1)
    return one_sample(norms, stats.gamma(a=noise.shape[-1], scale=scale).cdf)


def test_l2_laplace_release_follows_the_papers_law():
    """4,000 releases of a vector of d = 5 (sensitivity 1, epsilon 1): the noise norm is
    Gamma(d, release_scale), the direction uniform (n d ||mean unit vector||^2 is chi-square with
    d degrees of freedom, the unit vector's covariance being I / d), and the release's study twin
    and the papers' construction draw the same law."""
    dim, n = 5, 4_000
    mech = L2Laplace(1.0, 1.0, dim)
    scale = mech.release_scale
    assert 1.0 + math.sqrt(dim) * 2.0**-60 <= scale <= 1.0 + 1e-11
    centre = np.array([0.1, -0.7, 2.0, 0.0, 1e6])
    noise = mech.release(np.broadcast_to(centre, (n, dim))) - centre
    assert l2_laplace_norms(noise, scale)
    unit = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    chi2 = n * dim * float(np.sum(unit.mean(axis=0) ** 2))
    assert stats.chi2(dim).sf(chi2) > 1e-6
    study = mech.randomise(np.zeros((n, dim)), rng=1, law="release")
    assert two_sample(np.linalg.norm(noise, axis=1), np.linalg.norm(study, axis=1))
    paper = mech.randomise(np.zeros((n, dim)), rng=2)
    assert two_sample(np.linalg.norm(noise, axis=1), np.linalg.norm(paper, axis=1))
    a, b = mech.release(np.zeros(dim)), mech.release(np.zeros(dim))
    assert not np.array_equal(a, b)  # fresh entropy, a fresh variance per release


def test_l2_laplace_release_costs_milliseconds_per_vector():
    """Each vector builds its own OpenDP measurement (its variance is random): a few ms for a
    model's 112 coefficients."""
    start = time.perf_counter()
    L2Laplace(1.0, 0.01, 112).release(np.zeros((20, 112)))
    assert (time.perf_counter() - start) / 20 < 0.05


def test_exponential_release_follows_its_probabilities():
    mech = Exponential(epsilon=2.0, sensitivity=1.0)
    u = np.array([0.0, 1.0, 2.0, 0.5])
    picks = mech.release(np.broadcast_to(u, (1_500, 4)))
    counts = np.bincount(picks, minlength=4)
    assert stats.chisquare(counts, 1_500 * mech.probabilities(u)).pvalue > 1e-6


def test_release_outputs_are_not_on_numpy_laplace_lattice_of_the_truth():
    """The release rounds an exact sum: its outputs carry no trace of fl(truth + noise)."""
    outs = Laplace(1.0, 1.0).release(np.ones(2_000))
    mantissa_bits = np.frexp(outs)[0] * 2.0**53
    # fl(1 + noise) for |noise| < 1 has at most 53 - e bits: the last bits of outputs in
    # (0, 0.5) would be zero. The release's outputs there use their full precision.
    small = (outs > 0) & (outs < 0.5)
    assert small.sum() > 50
    assert np.mean(mantissa_bits[small] % 2 == 1) > 0.3  # about half are odd


def test_calibrated_scale_certifies_epsilon_with_opendp():
    for sens, eps, size in ((1.0, 1.0, 1), (2.0, 0.1, 10_000), (1e-6, 3.0, 113)):
        scale = release_noise.laplace_scale(sens, eps, size)
        assert sens / eps <= scale <= sens / eps * (1 + 1e-9)
        assert release_noise._laplace(size, scale).map(sens) <= eps


# ---- each product release path draws its noise through the release sampler -----------------


def test_primer_release_noise_is_laplace_of_the_stated_scale():
    raw = __import__("pandas").DataFrame({"x": np.linspace(0.0, 10.0, 50), "g": ["a"] * 50})
    query = PrimerQuery("sum", "x", low=0.0, high=10.0)
    acc = BudgetAccountant()
    outs = [release_answers(query, raw, 1.0, n_records=50, accountant=acc, dataset="t")
            for _ in range(400)]
    truth = float(raw["x"].sum())
    noise = np.array([o["answer"].iloc[0] for o in outs]) - truth
    assert outs[0]["scale"].iloc[0] == 10.0  # sensitivity high - low under replace-one
    assert one_sample(noise, stats.laplace(scale=10.0).cdf)
    assert len(acc) == 400 and acc.spent[0] == pytest.approx(400.0)
    cnt = release_answers(count("g", "a"), raw, 0.5, n_records=50, accountant=None,
                          dataset="t")
    assert cnt["scale"].iloc[0] == 2.0


def test_importance_release_noise_is_l2_laplace():
    rng = np.random.default_rng(0)
    D, E = rng.random((300, 3)), rng.random((200, 3)) ** 2
    step1 = balanced_fit(D, E, 0.1)
    sens = release_sensitivity(4, 300, 0.1)  # d = 3 columns + the intercept
    betas = np.array([ImportanceWeights(1.0, 0.1).fit(D, E, step1=step1).beta_
                      for _ in range(500)])
    assert l2_laplace_norms(betas - step1.coef, L2Laplace(1.0, sens, 4).release_scale)
    fitted = ImportanceWeights(1.0, 0.1).fit(D, E, step1=step1)
    assert fitted.noise_law_ == "release"
    assert ImportanceWeights(1.0, 0.1, rng=0).fit(D, E, step1=step1).noise_law_ == "paper"
    with pytest.raises(ValueError, match="seeded fit is a study"):
        ImportanceWeights(1.0, 0.1, rng=0, accountant=BudgetAccountant()).fit(D, E)


def test_output_perturbation_release_noise_is_l2_laplace():
    coef = np.array([0.3, -1.2, 0.05])
    sens = output_sensitivity(500, 0.1)
    out = perturb_output(np.broadcast_to(coef, (500, 3)), n=500, lam=0.1, epsilon=0.5)
    assert l2_laplace_norms(out - coef, L2Laplace(0.5, sens, 3).release_scale)


def test_private_logistic_regression_releases_amp_and_output_perturbation_only():
    """The default release is approximate minima perturbation (its laws: tests/test_amp.py);
    output perturbation is the other; objective perturbation as printed is a study."""
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(200, 2))
    y = (X[:, 0] > 0.5).astype(int)
    acc = BudgetAccountant(10.0)
    model = PrivateLogisticRegression(epsilon=1.0, lam=0.05, accountant=acc,
                                      dataset="t", classes=[0, 1]).fit(X, y)
    assert model.method == "amp" and acc.spent[0] == 1.0
    assert "L2-Laplace in the objective and on the output" in acc.ledger["note"].iloc[0]
    model = PrivateLogisticRegression(epsilon=1.0, lam=0.05, method="output", accountant=acc,
                                      dataset="t", classes=[0, 1]).fit(X, y)
    assert acc.spent[0] == 2.0 and "L2-Laplace" in acc.ledger["note"].iloc[1]
    with pytest.raises(ValueError, match="cannot be released"):
        PrivateLogisticRegression(method="objective").fit(X, y)
    study = PrivateLogisticRegression(method="objective", rng=0).fit(X, y)  # a study: seeded
    assert study.coef_.shape == (1, 2)
    with pytest.raises(ValueError, match="seeded fit is a study"):
        PrivateLogisticRegression(rng=0, accountant=acc).fit(X, y)


def test_masking_release_draws_w_prime_from_the_release_sampler():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 2)) * 0.3
    y = (X[:, 0] > 0).astype(int)
    gens = [MaskedDataGenerator(2.0, 0.5, 2, n_classes=2, n_starts=1, max_iter=0).fit(X, y)
            for _ in range(150)]
    noise = np.array([(g.noisy_coef_ - g.coef_).ravel() for g in gens])
    assert l2_laplace_norms(noise, L2Laplace(2.0, gens[0].sensitivity_, 2).release_scale)


def _discrete_laplace_pvalue(z, scale):
    """Chi-square p-value of integer draws against P(z) = (1 - q)/(1 + q) q^|z|, q = e^(-1/b):
    bins with an expected count of at least 5, the rest pooled."""
    z = np.asarray(z)
    q = math.exp(-1.0 / scale)
    top = int(np.ceil(scale * 12)) + 1
    ks = np.arange(-top, top + 1)
    p = (1 - q) / (1 + q) * q ** np.abs(ks)
    keep = p * z.size >= 5
    obs = np.array([(z == k).sum() for k in ks[keep]])
    exp = p[keep] * z.size
    return stats.chisquare(np.r_[obs, z.size - obs.sum()], np.r_[exp, z.size - exp.sum()]).pvalue


@pytest.mark.parametrize("epsilon, sensitivity", [(1.2, 1), (0.5, 2), (2.4, 2)])
def test_discrete_laplace_release_law_is_exact_and_equals_the_study_law(epsilon, sensitivity):
    mech = DiscreteLaplace(epsilon, sensitivity)
    assert mech.scale >= sensitivity / epsilon and mech.scale * 1024 % 1 == 0
    z = mech.release(np.full(20_000, 7)) - 7
    assert z.dtype == np.int64
    assert _discrete_laplace_pvalue(z, mech.scale) > 1e-6
    study = mech.randomise(np.zeros(20_000, dtype=int), rng=3)
    assert _discrete_laplace_pvalue(study, mech.scale) > 1e-6
    # Var of the sample variance ~ (mu4 - sigma^4) / n; mu4 <= 6 sigma^4 for this law.
    assert abs(z.var() - mech.variance) < 5 * mech.variance * math.sqrt(5 / 20_000)


def test_discrete_laplace_refuses_non_integers():
    with pytest.raises(ValueError, match="whole numbers"):
        DiscreteLaplace(1.0, 2).release([0.5])
    with pytest.raises(ValueError, match="whole-number"):
        DiscreteLaplace(1.0, 1.5)


def test_subset_release_counts_get_discrete_laplace_noise():
    rng = np.random.default_rng(5)
    private = rng.normal(size=(400, 2))
    public = np.unique(np.round(rng.normal(size=(300, 2)), 1), axis=0)[:150]
    res = [select_subset(private, public, (0.8, 0.2, 1.0), sizes=[10, 50, 100],
                         loss="squared") for _ in range(20)]
    from dpcore.subset import hybrid_weights

    clean = hybrid_weights(np.asarray(res[0].rescaled.private), res[0].rescaled.public) * 400
    noisy = np.concatenate([r.ranking_weights * 400 for r in res])
    noise = np.rint(noisy - np.tile(clean, 20)).astype(int)
    assert np.allclose(noisy - np.tile(clean, 20), noise)  # integer counts, integer noise
    assert _discrete_laplace_pvalue(noise, DiscreteLaplace(0.8, 2).scale) > 1e-6
