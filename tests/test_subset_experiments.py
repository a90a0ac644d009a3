"""Wang et al. (2018) Sect. 5.1 on the built-in scenarios: the bias-variance trade-off in size."""

import math

import numpy as np
import pytest

from dpcore.datasets import load_scenario
from dpcore.random import stream
from dpcore.subset import (
    lei_errors,
    lei_histogram,
    paper_sizes,
    paper_split,
    predict,
    prepare_study,
    rescale,
    run_study,
    scenario_arguments,
    select_subset,
    selection_probabilities,
    subset_study,
)

# A grid over the whole public set (13 candidates, so epsilon2/k is not tiny): small subsets
# are few noisy points, the whole set is E's bias under random weights.
SIZES = [10, 30, 100, 300, 600, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 10000]


@pytest.fixture(scope="module")
def mvn2():
    s = load_scenario("mvn-shift", p=2)
    return rescale(s.private, s.public, **scenario_arguments(s))


@pytest.fixture(scope="module")
def study(mvn2):
    return subset_study(mvn2, epsilon=paper_split(3.0), sizes=SIZES, repeats=4, rng=0, lei=False)


@pytest.mark.slow  # a paper-scale Monte-Carlo run
def test_dp_error_falls_then_rises_with_the_released_size(study):
    curve = study.dp_curve
    # Standard error of a mean over the 4 independent repeats (noise is independent across
    # repeats; D and E are fixed). Both ends must exceed the minimum by 3 combined SEs, i.e.
    # a false "falls then rises" has probability below ~1e-3 per end under a normal model.
    se = study.dp_curves.std(axis=0, ddof=1) / np.sqrt(study.repeats)
    low = int(np.argmin(curve))
    assert 0 < low < len(SIZES) - 1
    for end in (0, len(SIZES) - 1):
        assert curve[end] - curve[low] > 3 * np.hypot(se[end], se[low])
    # Without noise (non-private) the whole set is far better: the rise is the price of noise.
    assert study.hybrid_curve[-1] < curve[-1] / 10
    assert study.hybrid_curve[-1] < study.hybrid_curve[0] / 10


def test_selected_subset_beats_public_only(study):
    err = study.selected_error
    se = err.std(ddof=1) / np.sqrt(err.size)
    assert err.mean() + 3 * se < study.public_only
    assert study.epsilon_spent == pytest.approx(2 * 3.0)  # (0.8 + 0.2 + 1) x 3, calibrated


def test_d_of_d_and_subsets_falls_with_size(study):
    """Fig. 4: d(D, E_(i)) decreases along the nested subsets."""
    assert np.all(np.diff(study.distance, axis=1) <= 1e-12)
    assert study.distance[0, 0] > 5 * study.distance[0, -1]


def test_paper_grid_and_lei_baseline_on_p2(mvn2):
    """Lei's histogram gets the paper's epsilon1 + epsilon2 (Sect. 5.1) and, unless set, the
    rule's cells per axis at that epsilon: ceil((10^4 x 1)^(1/4)) = 10."""
    st = subset_study(mvn2, epsilon=paper_split(1.0), sizes=paper_sizes(2)[:6], repeats=2,
                      rng=1)
    assert st.lei is not None and st.lei.shape == (2,)
    assert st.lei_epsilon == pytest.approx(0.8 + 0.2) and st.lei_bins == 10
    assert st.dp_curves.shape == (2, 6) and st.noisy_curves is None


def test_lei_uses_the_budget_and_bins_it_is_given(mvn2):
    setup = prepare_study(mvn2)
    errors, bins = lei_errors(setup, 2.0, bins=20, repeats=3, rng=5)
    theta, _, _ = lei_histogram(mvn2, 2.0, bins=20, rng=stream(5, "lei"), repeats=3)
    h = predict(mvn2.private, theta, "logistic", mvn2.target)
    np.testing.assert_allclose(errors, np.linalg.norm(h - setup.reference_prediction, axis=1))
    assert bins == 20
    st = run_study(setup, epsilon=paper_split(1.0), sizes=[10, 100], repeats=3, rng=5,
                   lei_epsilon=2.0, lei_bins=20)
    np.testing.assert_array_equal(st.lei, errors)
    assert (st.lei_epsilon, st.lei_bins) == (2.0, 20)
    with pytest.raises(ValueError, match="whole number >= 1"):
        lei_errors(setup, 2.0, bins=0)


@pytest.mark.slow  # a paper-scale Monte-Carlo run
def test_high_dimension_p100_runs():
    s = load_scenario("mvn-shift", p=100)
    res = select_subset(s.private, s.public, paper_split(3.0), [100, 2000, 8000], rng=2,
                        **scenario_arguments(s))
    assert res.rescaled.public.shape[1] == 101 and res.estimates.shape == (3, 101)
    assert res.size in (100, 2000, 8000) and np.isfinite(res.criteria).all()
    # The corrected sensitivity (1 + (101/4) sqrt(9999) (2 sqrt(101) / (10^4 x 0.01)) ... = 51.5)
    # makes the calibrated selection at epsilon3 = 3 nearly uniform: P(i) is proportional to
    # exp(-3 t_i / (2 x 51.5)), so the max/min ratio is exp(3 (max t - min t) / 103) <= 2
    # while the criteria span less than 103 ln 2 / 3 = 23.8.
    assert res.sensitivity_bound == pytest.approx(51.5, abs=0.05)
    p = selection_probabilities(res.criteria, 3.0, res.sensitivity_bound)
    assert np.ptp(res.criteria) < 103 * math.log(2) / 3 and p.max() / p.min() <= 2


@pytest.mark.slow  # a paper-scale Monte-Carlo run
def test_adult_runs_with_its_own_split():
    s = load_scenario("adult")
    res = select_subset(s.private, s.public, paper_split(1.0), [50, 500, 5000], rng=3,
                        **scenario_arguments(s))
    data = res.rescaled
    assert data.target == data.public.shape[1] - 1 and data.n_public < len(s.public)
    assert data.multiplicity.sum() == len(s.public)
    assert res.epsilon_spent == pytest.approx(2.0)
