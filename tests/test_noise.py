"""Statistical tests of the noise samplers: exact laws, moments from theory, reproducibility.

Each test uses a fixed seed and a fixed number of draws; tolerances are a stated number of
standard errors computed from the exact law (5 SE: a false alarm has probability < 1e-6 per check),
and KS tests reject at p < 1e-3.
"""

import numpy as np
import pytest
from scipy import stats

from dpcore.noise import l2_laplace_scale, sample_gaussian, sample_l2_laplace, sample_laplace

N = 20_000


@pytest.mark.parametrize("dim, scale", [(1, 1.0), (5, 0.3), (113, 0.02)])
def test_l2_laplace_norm_is_gamma(dim, scale):
    x = sample_l2_laplace(dim, scale, size=N, rng=0)
    assert x.shape == (N, dim)
    norms = np.linalg.norm(x, axis=1)
    assert stats.kstest(norms, stats.gamma(a=dim, scale=scale).cdf).pvalue > 1e-3
    # E||x|| = dim * scale, SD = sqrt(dim) * scale.
    se = np.sqrt(dim) * scale / np.sqrt(N)
    assert abs(norms.mean() - dim * scale) < 5 * se


@pytest.mark.parametrize("dim", [2, 10, 113])
def test_l2_laplace_direction_uniform_and_symmetric(dim):
    x = sample_l2_laplace(dim, 1.0, size=N, rng=1)
    u = x / np.linalg.norm(x, axis=1, keepdims=True)
    # A uniform unit vector has coordinate mean 0 and variance 1/dim.
    assert np.all(np.abs(u.mean(axis=0)) < 5 / np.sqrt(dim * N))
    # Each coordinate is symmetric: P(x_j > 0) = 1/2, SE = 0.5 / sqrt(N).
    assert np.all(np.abs((x > 0).mean(axis=0) - 0.5) < 5 * 0.5 / np.sqrt(N))
    # Directions are independent of the norm: correlation of |u_1| with the norm is 0.
    r = np.corrcoef(np.abs(u[:, 0]), np.linalg.norm(x, axis=1))[0, 1]
    assert abs(r) < 5 / np.sqrt(N)


def test_l2_laplace_second_moment_matches_lemma7():
    # E||x||^2 = dim (dim + 1) scale^2 (Ji & Elkan Lemma 7's proof), so each coordinate has
    # variance (dim + 1) scale^2. Var||x||^2 = scale^4 [(d)_4 - ((d)_2)^2] with rising factorials.
    dim, scale = 20, 0.5
    x = sample_l2_laplace(dim, scale, size=N, rng=2)
    sq = np.sum(x**2, axis=1)
    m2 = dim * (dim + 1) * scale**2
    var_sq = scale**4 * (dim * (dim + 1) * (dim + 2) * (dim + 3) - (dim * (dim + 1)) ** 2)
    assert abs(sq.mean() - m2) < 5 * np.sqrt(var_sq / N)


def test_laplace_and_gaussian_laws():
    lap = sample_laplace(2.0, size=N, rng=3)
    assert stats.kstest(lap, stats.laplace(scale=2.0).cdf).pvalue > 1e-3
    gau = sample_gaussian(1.5, size=N, rng=4)
    assert stats.kstest(gau, stats.norm(scale=1.5).cdf).pvalue > 1e-3
    assert isinstance(sample_laplace(1.0, rng=0), float)


def test_laplace_mechanism_ratio_on_neighbours_is_bounded_by_exp_epsilon():
    # Neighbouring answers 0 and sensitivity 1; epsilon = 1 so scale = 1. On every bin with enough
    # mass the ratio of probabilities must be at most e^epsilon, up to 5 SE of the estimated ratio.
    epsilon, n = 1.0, 200_000
    scale = l2_laplace_scale(1.0, epsilon)
    a = 0.0 + sample_laplace(scale, size=n, rng=5)
    b = 1.0 + sample_laplace(scale, size=n, rng=6)
    bins = np.linspace(-4, 5, 19)
    pa, _ = np.histogram(a, bins)
    pb, _ = np.histogram(b, bins)
    ok = (pa > 500) & (pb > 500)
    ratio = pa[ok] / pb[ok]
    se = ratio * np.sqrt(1 / pa[ok] + 1 / pb[ok])
    assert np.all(ratio <= np.exp(epsilon) + 5 * se)
    assert np.all(1 / ratio <= np.exp(epsilon) + 5 * se / ratio**2)
    # and the bound is nearly attained in the tails, so the noise is not larger than needed
    assert ratio.max() > np.exp(epsilon) * 0.9


def test_same_seed_same_noise_and_generators_accepted():
    a = sample_l2_laplace(4, 1.0, size=(3, 2), rng=7)
    b = sample_l2_laplace(4, 1.0, size=(3, 2), rng=np.random.default_rng(7))
    assert a.shape == (3, 2, 4)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, sample_l2_laplace(4, 1.0, size=(3, 2), rng=8))


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: sample_l2_laplace(0, 1.0), ValueError, r"dim == 0, must be an integer >= 1"),
        (lambda: sample_l2_laplace(2.5, 1.0), ValueError, r"dim == 2.5, must be an integer"),
        (lambda: sample_l2_laplace(3, 0.0), ValueError, r"scale == 0, must be > 0"),
        (lambda: sample_l2_laplace(3, -1.0), ValueError, r"scale == -1, must be > 0"),
        (lambda: sample_l2_laplace(3, float("nan")), ValueError, r"scale == nan, must be finite"),
        (lambda: sample_l2_laplace(3, "1"), TypeError, r"scale must be a real number, got str"),
        (lambda: sample_l2_laplace(3, 1.0, size=-1), ValueError, r"every dimension must be >= 0"),
        (lambda: sample_laplace(-1.0), ValueError, r"scale == -1, must be > 0"),
        (lambda: sample_gaussian(0.0), ValueError, r"sigma == 0, must be > 0"),
        (lambda: sample_laplace(1.0, rng="seed"), TypeError, r"rng must be None, an int seed"),
        (lambda: sample_laplace(1.0, rng=-3), ValueError, r"rng == -3, a seed must be >= 0"),
        (lambda: l2_laplace_scale(1.0, 0.0), ValueError, r"epsilon == 0, must be > 0"),
    ],
)
def test_invalid_inputs(call, error, message):
    with pytest.raises(error, match=message):
        call()
