"""Statistical and contract tests of the mechanisms (style.md item 10).

Every statistical test uses a fixed seed and a fixed number of draws. KS tests compare the KS
statistic D_n with the critical value at alpha = 1e-3 from Kolmogorov's asymptotic law,
sqrt(-ln(alpha / 2) / 2) / sqrt(n) = 1.949 / sqrt(n): a correct sampler fails each one with
probability about 1e-3. Moment checks allow 5 standard errors computed from the exact law
(two-sided false alarm < 6e-7 per check).
"""

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpcore import release_noise
from dpcore.mechanisms import Exponential, Gaussian, L2Laplace, Laplace, Mechanism
from dpcore.validation import DataError

N = 20_000
KS_CRIT = 1.949 / math.sqrt(N)  # alpha = 1e-3, Kolmogorov's asymptotic critical value


def ks_statistic(sample, cdf):
    return stats.kstest(sample, cdf).statistic


# ---- Laplace ---------------------------------------------------------------------------------


def test_laplace_law_variance_and_tail_bound():
    mech = Laplace(epsilon=0.5, sensitivity=2.0)
    assert mech.scale == 4.0 and mech.variance == 32.0 and mech.delta == 0.0
    x = mech.randomise(np.full(N, 3.0), rng=0) - 3.0
    assert ks_statistic(x, stats.laplace(scale=4.0).cdf) < KS_CRIT
    # Var of the sample variance: (mu4 - sigma^4) / n with mu4 = 24 b^4, sigma^4 = 4 b^4.
    assert abs(x.var() - mech.variance) < 5 * mech.scale**2 * math.sqrt(20 / N)
    t = mech.tail_bound(0.9)
    law = stats.laplace(scale=4.0)
    assert law.cdf(t) - law.cdf(-t) == pytest.approx(0.9, rel=1e-12)
    # Empirical coverage: binomial SE sqrt(0.9 * 0.1 / n).
    assert abs(np.mean(np.abs(x) <= t) - 0.9) < 5 * math.sqrt(0.09 / N)


def test_laplace_ratio_on_neighbouring_inputs_is_exp_epsilon():
    # Values 0 and sensitivity are neighbours. In every bin, P0/P1 <= e^eps, with equality for
    # bins left of 0. The count ratio c0/c1 has relative SD ~ sqrt(1/c0 + 1/c1) (Poisson
    # approximation to the binomial counts; delta method); bins with >= 500 counts keep it below
    # 0.064 and the ratio near-normal. Bound: e^eps (1 + 4 SD), one-sided false alarm 3e-5 per
    # bin, < 1e-3 over the ~30 bins. The lower check on bins left of 0 fails if the noise is
    # too large (a mechanism spending less than its epsilon).
    eps, sens, n = 1.0, 1.5, 200_000
    mech = Laplace(eps, sens)
    gen = np.random.default_rng(1)
    a = mech.randomise(np.zeros(n), rng=gen)
    b = mech.randomise(np.full(n, sens), rng=gen)
    edges = np.arange(-8.0, 9.5, 0.5)
    c0, _ = np.histogram(a, edges)
    c1, _ = np.histogram(b, edges)
    keep = (c0 >= 500) & (c1 >= 500)
    assert keep.sum() >= 10
    c0, c1, right = c0[keep].astype(float), c1[keep].astype(float), edges[1:][keep]
    sd = np.sqrt(1 / c0 + 1 / c1)
    assert np.all(c0 / c1 <= math.exp(eps) * (1 + 4 * sd))
    assert np.all(c1 / c0 <= math.exp(eps) * (1 + 4 * sd))
    left = right <= 0.0
    assert left.sum() >= 3
    assert np.all(c0[left] / c1[left] >= math.exp(eps) * (1 - 4 * sd[left]))


def test_laplace_shapes_and_scalars():
    mech = Laplace(1.0, 1.0)
    assert isinstance(mech.randomise(2.0, rng=0), float)
    assert mech.randomise(np.zeros((3, 4, 2)), rng=0).shape == (3, 4, 2)
    assert mech.randomise([1, 2, 3], rng=0).dtype == np.float64


# ---- Gaussian --------------------------------------------------------------------------------


def _privacy_curve(sigma, epsilon, sensitivity=1.0):
    """delta(sigma) of Balle & Wang (2018) Theorem 8, in 60-digit arithmetic (independent)."""
    with mpmath.workdps(60):
        s, e, d = mpmath.mpf(sigma), mpmath.mpf(epsilon), mpmath.mpf(sensitivity)
        return mpmath.ncdf(d / (2 * s) - e * s / d) - mpmath.exp(e) * mpmath.ncdf(
            -d / (2 * s) - e * s / d
        )


@pytest.mark.parametrize("epsilon", [1e-4, 0.05, 0.5, 0.99, 1.0, 5.0, 50.0, 1000.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-10])
def test_analytic_sigma_is_on_the_privacy_curve(epsilon, delta):
    sens = 2.0
    sigma = Gaussian(epsilon, delta, sens).sigma
    assert math.isfinite(sigma) and sigma > 0
    curve = _privacy_curve(sigma, epsilon, sens)
    assert abs(float(curve / delta) - 1) < 1e-9
    assert curve <= delta  # the private side
    # The smallest such sigma: 1e-6 less noise breaks (epsilon, delta)-DP.
    assert _privacy_curve(sigma * (1 - 1e-6), epsilon, sens) > delta


def test_analytic_sigma_beats_classic_and_is_sensible_for_large_epsilon():
    for eps in (0.01, 0.1, 0.5, 0.9):
        for delta in (1e-5, 1e-10):
            classic = Gaussian(eps, delta, 1.0, calibration="classic").sigma
            assert classic == math.sqrt(2 * math.log(1.25 / delta)) / eps
            assert Gaussian(eps, delta, 1.0).sigma <= classic
    sigmas = [Gaussian(eps, 1e-5, 1.0).sigma for eps in (1.0, 5.0, 50.0)]
    assert sigmas[0] > sigmas[1] > sigmas[2] > 0
    for eps, s in zip((1.0, 5.0, 50.0), sigmas, strict=True):
        # Balle & Wang Algorithm 1: for delta below delta_0 = Phi(0) - e^eps Phi(-sqrt(2 eps))
        # (0.29 at eps = 1, more above) sigma = alpha sensitivity / sqrt(2 eps) with alpha >= 1.
        assert s >= 1 / math.sqrt(2 * eps)
        # The classic formula is not private here (the reason it is refused for eps >= 1):
        # its sigma lies below the privacy curve's.
        classic = math.sqrt(2 * math.log(1.25e5)) / eps
        assert (classic < s) == (_privacy_curve(classic, eps) > 1e-5)
    assert _privacy_curve(math.sqrt(2 * math.log(1.25e5)) / 50.0, 50.0) > 1e-5
    assert Gaussian(50.0, 1e-5, 3.0).sigma == pytest.approx(3 * sigmas[2], rel=1e-10)


@pytest.mark.parametrize("calibration", ["analytic", "classic"])
def test_gaussian_law_variance_and_tail_bound(calibration):
    mech = Gaussian(0.5, 1e-5, 1.0, calibration=calibration)
    assert mech.scale == mech.sigma and mech.variance == mech.sigma**2
    x = mech.randomise(np.full((100, N // 100), -2.0), rng=2).ravel() + 2.0
    assert ks_statistic(x, stats.norm(scale=mech.sigma).cdf) < KS_CRIT
    # Var of the sample variance of a normal: 2 sigma^4 / n.
    assert abs(x.var() - mech.variance) < 5 * mech.variance * math.sqrt(2 / N)
    t = mech.tail_bound(0.95)
    assert stats.norm(scale=mech.sigma).cdf(t) == pytest.approx(0.975, rel=1e-12)
    assert isinstance(mech.randomise(1.0, rng=0), float)


# ---- L2 Laplace ------------------------------------------------------------------------------


@pytest.mark.parametrize("law", ["paper", "release"])
@pytest.mark.parametrize("dim, eps, sens", [(1, 1.0, 1.0), (5, 2.0, 0.6), (113, 10.0, 0.2)])
def test_l2_laplace_norm_is_gamma(dim, eps, sens, law):
    """Both constructions, the papers' (Gamma norm, uniform direction) and the release's (a Gamma
    variance times a Gaussian vector), have the L2-Laplace law."""
    mech = L2Laplace(eps, sens, dim)
    scale = sens / eps
    assert mech.scale == scale and mech.expected_norm == dim * scale
    assert scale <= mech.release_scale <= scale * (1 + 1e-11)
    noise = mech.randomise(np.ones((N, dim)), rng=3, law=law) - 1.0
    norms = np.linalg.norm(noise, axis=1)
    law = stats.gamma(a=dim, scale=scale)
    assert ks_statistic(norms, law.cdf) < KS_CRIT
    assert law.cdf(mech.tail_bound(0.9)) == pytest.approx(0.9, rel=1e-10)
    # Per-coordinate variance (dim + 1) scale^2 = E||x||^2 / dim; Var||x||^2 from the Gamma
    # moments: scale^4 [(d)_4 - (d)_2^2] with rising factorials (d)_k.
    var_sq = scale**4 * (dim * (dim + 1) * (dim + 2) * (dim + 3) - (dim * (dim + 1)) ** 2)
    est = np.mean(norms**2) / dim
    assert abs(est - mech.variance) < 5 * math.sqrt(var_sq / N) / dim


@pytest.mark.parametrize("law", ["paper", "release"])
@pytest.mark.parametrize("dim", [2, 5, 113])
def test_l2_laplace_direction_is_uniform(dim, law):
    # For u uniform on the sphere S^(dim-1) and a fixed unit e, (1 + u.e) / 2 is
    # Beta((dim - 1) / 2, (dim - 1) / 2).
    mech = L2Laplace(1.0, 1.0, dim)
    noise = mech.randomise(np.zeros((N, dim)), rng=4, law=law)
    u = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    e = np.arange(1.0, dim + 1.0)
    e /= np.linalg.norm(e)
    half = (dim - 1) / 2
    assert ks_statistic((1 + u @ e) / 2, stats.beta(half, half).cdf) < KS_CRIT


@pytest.mark.parametrize("law", ["paper", "release"])
def test_l2_laplace_dim_one_is_symmetric_laplace(law):
    # dim 1: the density exp(-|x| / scale) is the scalar Laplace law.
    noise = L2Laplace(2.0, 1.0, 1).randomise(np.zeros((N, 1)), rng=5, law=law)[:, 0]
    assert ks_statistic(noise, stats.laplace(scale=0.5).cdf) < KS_CRIT


@pytest.mark.parametrize("dim", [1, 2, 7, 112])
def test_release_variances_are_gamma_and_floored(dim):
    """The release's mixing variance: Gamma((dim + 1) / 2) times 2 scale^2, never below the
    floor (draws under it are redrawn)."""
    v = release_noise.l2_laplace_variances(N, dim, 0.3, np.random.default_rng(6))
    gamma = v / (2 * 0.3**2)
    assert ks_statistic(gamma, stats.gamma((dim + 1) / 2).cdf) < KS_CRIT
    assert gamma.min() >= release_noise.GAMMA_FLOOR


class _Bits:
    """A stand-in Generator whose random bits are given: the first exponent words are all zero."""

    def __init__(self, zero_words: int) -> None:
        self.zero_words = zero_words

    def integers(self, low, high, size):
        if high == 1 << 52:  # the significand's bits
            return np.zeros(size, dtype=np.int64)
        self.zero_words -= 1
        return np.full(size, 0 if self.zero_words >= 0 else 1, dtype=np.int64)


def test_release_exponentials_are_not_capped_by_53_bit_uniforms():
    """A 53-bit uniform stops at -log(2^-53) = 36.7; the release's exponentials read more words
    while the bits are all zero (so the mixture keeps its exponential tail)."""
    e = release_noise._exponentials(_Bits(zero_words=2), 3)
    # two zero words (106 leading zeros), then 52 more before the lowest bit: u = 2^-159
    np.testing.assert_allclose(e, 159 * math.log(2.0), rtol=1e-15)
    assert release_noise._exponentials(_Bits(zero_words=0), 1)[0] == pytest.approx(
        53 * math.log(2.0), rel=1e-15)
    draws = release_noise._exponentials(np.random.default_rng(7), N)
    assert ks_statistic(draws, stats.expon.cdf) < KS_CRIT


def test_l2_laplace_batch_shapes_and_independent_rows():
    mech = L2Laplace(1.0, 1.0, 4)
    assert mech.randomise(np.zeros(4), rng=0).shape == (4,)
    out = mech.randomise(np.zeros((3, 5, 4)), rng=0)
    assert out.shape == (3, 5, 4)
    assert len({row.tobytes() for row in out.reshape(-1, 4)}) == 15
    with pytest.raises(DataError, match=r"shape \(\.\.\., 4\)"):
        mech.randomise(np.zeros((3, 5)), rng=0)


# ---- Exponential -----------------------------------------------------------------------------


def test_exponential_probabilities_formula_and_stability():
    u = np.array([0.0, 1.0, 2.5, -3.0])
    mech = Exponential(epsilon=1.2, sensitivity=0.5)
    w = np.exp(1.2 * u / (2 * 0.5))
    np.testing.assert_allclose(mech.probabilities(u), w / w.sum(), rtol=1e-14)
    mono = Exponential(1.2, 0.5, monotonic=True)
    w = np.exp(1.2 * u / 0.5)
    np.testing.assert_allclose(mono.probabilities(u), w / w.sum(), rtol=1e-14)
    assert mono.scale == mech.scale / 2
    big = mech.probabilities(u + 1e6)
    np.testing.assert_allclose(big, mech.probabilities(u), rtol=1e-9)
    assert np.all(np.isfinite(mech.probabilities([1e300, -1e300])))
    assert mech.variance is None


def test_exponential_ratio_on_neighbouring_utilities_is_at_most_exp_epsilon():
    # Exact check on the probabilities: utilities that each move by at most the sensitivity.
    gen = np.random.default_rng(6)
    eps, sens = 0.8, 2.0
    u = gen.normal(0, 5, size=(1000, 6))
    shift = gen.uniform(-sens, sens, size=u.shape)
    p, q = Exponential(eps, sens).probabilities(u), Exponential(eps, sens).probabilities(u + shift)
    assert np.max(p / q) <= math.exp(eps) * (1 + 1e-12)
    mono = Exponential(eps, sens, monotonic=True)
    up = np.abs(shift)  # every utility moves the same way
    assert np.max(mono.probabilities(u) / mono.probabilities(u + up)) <= math.exp(eps) * (1 + 1e-12)


def test_exponential_frequencies_match_probabilities():
    # Chi-square goodness of fit; p > 1e-3, i.e. a false-alarm rate of 1e-3. Two different rows
    # interleaved check that each row is sampled from its own probabilities.
    mech = Exponential(epsilon=1.0, sensitivity=1.0)
    ua = np.array([0.0, 1.0, 2.0, 3.0, 5.0])
    ub = np.array([4.0, 0.0, 0.0, 2.0, 1.0])
    rows = np.where((np.arange(2 * N) % 2 == 0)[:, None], ua, ub)
    idx = mech.randomise(rows, rng=7)
    assert idx.shape == (2 * N,) and idx.dtype.kind == "i"
    for sel, u in ((idx[::2], ua), (idx[1::2], ub)):
        counts = np.bincount(sel, minlength=5)
        assert stats.chisquare(counts, N * mech.probabilities(u)).pvalue > 1e-3


def test_exponential_shapes_and_degenerate_rows():
    mech = Exponential(1.0, 1.0)
    assert isinstance(mech.randomise([0.0, 1.0], rng=0), int)
    assert mech.randomise(np.zeros((3, 4, 6)), rng=0).shape == (3, 4)
    assert mech.randomise([[7.0]] * 5, rng=0).tolist() == [0] * 5
    # A candidate whose weight underflows to 0 is never chosen.
    picks = mech.randomise(np.tile([0.0, -1e4, 0.0], (N, 1)), rng=0)
    assert not np.any(picks == 1) and set(np.unique(picks)) == {0, 2}


# ---- all mechanisms --------------------------------------------------------------------------

MECHANISMS = [
    (Laplace(1.0, 1.0), np.zeros((4, 3))),
    (Gaussian(1.0, 1e-6, 1.0), np.zeros((4, 3))),
    (L2Laplace(1.0, 1.0, 3), np.zeros((4, 3))),
    (Exponential(1.0, 1.0), np.zeros((4, 3))),
]


@pytest.mark.parametrize("mech, value", MECHANISMS, ids=lambda m: type(m).__name__)
def test_seed_reproducibility(mech, value):
    a = mech.randomise(value, rng=42)
    np.testing.assert_array_equal(a, mech.randomise(value, rng=42))
    gen = np.random.default_rng(42)
    np.testing.assert_array_equal(a, mech.randomise(value, rng=gen))
    if not isinstance(mech, Exponential):  # 12 continuous draws: a repeat is impossible
        assert not np.array_equal(a, mech.randomise(value, rng=gen))
    assert isinstance(mech, Mechanism)


def test_repr_and_neighbouring():
    assert repr(Laplace(1.0, 2.0)) == "Laplace(epsilon=1.0, sensitivity=2.0)"
    assert repr(Gaussian(0.5, 1e-5, 1.0, "classic")) == (
        "Gaussian(epsilon=0.5, delta=1e-05, sensitivity=1.0, calibration='classic')"
    )
    mech = L2Laplace(1.0, 0.5, 3, neighbouring="replace one record")
    assert mech.neighbouring == "replace one record"
    assert repr(mech) == (
        "L2Laplace(epsilon=1.0, sensitivity=0.5, dim=3, neighbouring='replace one record')"
    )
    assert (
        repr(Exponential(1, 1, True)) == "Exponential(epsilon=1.0, sensitivity=1.0, monotonic=True)"
    )
    assert Laplace(epsilon=np.float64(2), sensitivity=1).epsilon == 2.0


INVALID = [
    (lambda: Laplace(0, 1), ValueError, "epsilon == 0, must be > 0"),
    (lambda: Laplace(-1, 1), ValueError, "epsilon == -1"),
    (lambda: Laplace(math.inf, 1), ValueError, "must be finite"),
    (lambda: Laplace(math.nan, 1), ValueError, "must be finite"),
    (lambda: Laplace(True, 1), TypeError, "epsilon must be a real number"),
    (lambda: Laplace("1", 1), TypeError, "epsilon must be a real number"),
    (lambda: Laplace(1, 0), ValueError, "sensitivity == 0, must be > 0"),
    (lambda: Laplace(1, -2), ValueError, "sensitivity == -2"),
    (lambda: Laplace(1, math.inf), ValueError, "must be finite"),
    (lambda: Laplace(1, None), TypeError, "sensitivity must be a real number"),
    (lambda: Laplace(1, 1, neighbouring=1), TypeError, "neighbouring must be a str"),
    (lambda: Gaussian(1, 0, 1), ValueError, r"delta == 0, must be in \(0, 1\)"),
    (lambda: Gaussian(1, 1, 1), ValueError, "delta == 1"),
    (lambda: Gaussian(1, False, 1), TypeError, "delta must be a real number"),
    (lambda: Gaussian(1, 1e-5, 1, "classic"), ValueError, "calibration='analytic'"),
    (lambda: Gaussian(1, 1e-5, 1, "optimal"), ValueError, "must be one of"),
    (lambda: Gaussian(1, 1e-5, 1, calibration=None), TypeError, "calibration must be a str"),
    (lambda: L2Laplace(1, 1, 0), ValueError, "dim == 0, must be >= 1"),
    (lambda: L2Laplace(1, 1, 2.0), TypeError, "dim must be an int"),
    (lambda: L2Laplace(1, 1, True), TypeError, "dim must be an int"),
    (lambda: Exponential(1, 1, monotonic="yes"), TypeError, "monotonic must be True or False"),
    (lambda: Laplace(1, 1).randomise(math.nan, rng=0), DataError, "NaN or infinite"),
    (lambda: Laplace(1, 1).release(math.nan), DataError, "NaN or infinite"),
    (lambda: Gaussian(1, 1e-5, 1).randomise([1, math.inf], rng=0), DataError, "NaN or infinite"),
    (lambda: Gaussian(1, 1e-5, 1).release([1, math.inf]), DataError, "NaN or infinite"),
    (lambda: Laplace(1, 1).randomise(["a"], rng=0), DataError, "must be numeric"),
    (lambda: L2Laplace(1, 1, 2).randomise(1.0, rng=0), DataError, r"shape \(\.\.\., 2\)"),
    (lambda: L2Laplace(1, 1, 2).release(np.zeros(3)), DataError, r"shape \(\.\.\., 2\)"),
    (lambda: L2Laplace(1, 1, 2).randomise(np.zeros(2), rng=0, law="x"), ValueError, "law =="),
    (lambda: Exponential(1, 1).randomise(1.0, rng=0), DataError, r"shape \(\.\.\., k\)"),
    (lambda: Exponential(1, 1).randomise(np.zeros((2, 0)), rng=0), DataError, "k >= 1"),
    (lambda: Exponential(1, 1).release(np.zeros((2, 0))), DataError, "k >= 1"),
    (lambda: Exponential(1, 1).probabilities([0, -math.inf]), DataError, "NaN or infinite"),
    (lambda: Laplace(1, 1).tail_bound(1.0), ValueError, r"level == 1, must be in \(0, 1\)"),
    (lambda: L2Laplace(1, 1, 2).tail_bound(0), ValueError, "level == 0"),
    (lambda: Laplace(1, 1).randomise(0.0, rng="x"), TypeError, "rng must be None"),
    (lambda: Laplace(1, 1).randomise(0.0, 3), TypeError, "positional"),
    (lambda: Laplace(1, 1).randomise(0.0, rng=None), ValueError, "call release"),
    (lambda: L2Laplace(1, 1, 2).randomise(np.zeros(2), rng=None), ValueError, "call release"),
    (lambda: Exponential(1, 1).randomise([0.0, 1.0], rng=None), ValueError, "call release"),
]


@pytest.mark.parametrize("call, error, match", INVALID)
def test_invalid_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()
