"""Wang et al. (2018) Sect. 5.1 on the built-in scenarios: the bias-variance trade-off in size."""

import numpy as np
import pytest

from dpcore.datasets import load_scenario
from dpcore.subset import (
    paper_sizes,
    paper_split,
    rescale,
    scenario_arguments,
    select_subset,
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
    st = subset_study(mvn2, epsilon=paper_split(1.0), sizes=paper_sizes(2)[:6], repeats=2,
                      rng=1)
    assert st.lei is not None and st.lei.shape == (2,) and st.lei_epsilon == pytest.approx(2.0)
    assert st.dp_curves.shape == (2, 6) and st.noisy_curves is None


@pytest.mark.slow  # a paper-scale Monte-Carlo run
def test_high_dimension_p100_runs():
    s = load_scenario("mvn-shift", p=100)
    res = select_subset(s.private, s.public, paper_split(3.0), [100, 2000, 8000], rng=2,
                        **scenario_arguments(s))
    assert res.rescaled.public.shape[1] == 101 and res.estimates.shape == (3, 101)
    assert res.size in (100, 2000, 8000) and np.isfinite(res.criteria).all()


@pytest.mark.slow  # a paper-scale Monte-Carlo run
def test_adult_runs_with_its_own_split():
    s = load_scenario("adult")
    res = select_subset(s.private, s.public, paper_split(1.0), [50, 500, 5000], rng=3,
                        **scenario_arguments(s))
    data = res.rescaled
    assert data.target == data.public.shape[1] - 1 and data.n_public < len(s.public)
    assert data.multiplicity.sum() == len(s.public)
    assert res.epsilon_spent == pytest.approx(2.0)
