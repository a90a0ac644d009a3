"""Algorithm 2's candidate fits, DP and non-private apart and started at theta_D, stay within
the solver's certified gap of the old path (all columns in one call, the solver's own start).

Step 4 fits the DP and the non-private columns in separate calls of
:func:`~dpcore.subset.estimators.m_estimate`, each group's shared Hessian taken at ``theta_D``
(``start``) instead of first fitting the group's mean weights. Only the solver's path changes:
every fit is still certified to ``J(theta) - min J <= SOLVER_TOL`` (weights of total 1), so by
``lam``-strong convexity ``||theta - theta*|| <= sqrt(2 SOLVER_TOL / lam)``, and two certified fits
of one objective differ by at most twice that. The criteria, counts and distances are summed
over the distinct private points, each weighed by its copies in D.
"""

import numpy as np
import pandas as pd
import pytest

from dpcore.logistic import logistic_gradient
from dpcore.subset import rescale
from dpcore.subset import selection as selection_module
from dpcore.subset.estimators import SOLVER_TOL, design, m_estimate, predict
from dpcore.subset.experiments import prepare_study, run_study
from dpcore.subset.weights import distance_to_subset, hybrid_counts, nearest_in_prefixes

LAM = 0.005  # the subset page's default lambda on Adult


@pytest.fixture(scope="module")
def adult_like():
    """One-hot categories (many duplicate records, as Adult), two continuous columns and a
    0/1 label; the public set drawn from a shifted distribution."""
    rng = np.random.default_rng(11)
    levels = (6, 4, 7)

    def table(n, shift):
        parts, score = [], np.zeros(n)
        for j, k in enumerate(levels):
            cat = rng.integers(0, k, n)
            parts.append(np.eye(k)[cat])
            score += (cat - k / 2) / k * (j + 1)
        cont = np.round(rng.normal(shift, 1.0, (n, 2)), 1)
        score += cont @ [0.8, -0.5]
        label = (rng.random(n) < 1 / (1 + np.exp(-score))).astype(float)
        frame = np.c_[np.hstack(parts), cont, label]
        return pd.DataFrame(frame, columns=[f"c{i}" for i in range(frame.shape[1] - 1)] + ["y"])

    return rescale(table(1500, 0.0), table(900, 0.3), target="y")


@pytest.mark.parametrize("epsilon", [(0.04, 0.01, 0.05), (0.8, 0.2, 1.0), (2.4, 0.6, 3.0)])
def test_fits_from_theta_d_are_certified_and_within_the_gap_of_the_old_path(
        adult_like, monkeypatch, epsilon):
    sizes = [20, 60, 150, 300, 500, 800]
    setup = prepare_study(adult_like, lam=LAM)
    new = run_study(setup, epsilon=epsilon, sizes=sizes, repeats=2, rng=4, lei=False)

    def old_path(points, W, clean_W, loss, target, lam, reference):
        both = W if clean_W is None else np.hstack([W, clean_W])  # one call, own start
        return m_estimate(points, both, loss, target=target, lam=lam)

    monkeypatch.setattr(selection_module, "_fit_candidates", old_path)
    old = run_study(setup, epsilon=epsilon, sizes=sizes, repeats=2, rng=4, lei=False)

    # Same noise, same ranking, same weights: only the solver's path differs.
    np.testing.assert_array_equal(new.first.order, old.first.order)
    np.testing.assert_array_equal(new.first.candidate_weights, old.first.candidate_weights)
    np.testing.assert_array_equal(new.distance, old.distance)
    # Each new DP fit is certified: gap ||grad||^2 / (2 lam) <= SOLVER_TOL, weights of total 1.
    X, y = design(adult_like.public[new.first.order], adult_like.target)
    for j, theta in enumerate(new.first.estimates):
        w = new.first.candidate_weights[:, j]
        w = w / w.sum()
        g = logistic_gradient(theta, X, y, w, lam=LAM)
        assert g @ g / (2 * LAM) <= SOLVER_TOL * max(1.0, w.sum())
    # Two certified fits of one objective: ||delta theta|| <= 2 sqrt(2 tol / lam).
    step = 2 * np.sqrt(2 * SOLVER_TOL * (1 + 1e-12) / LAM)
    shift = np.linalg.norm(new.first.estimates - old.first.estimates, axis=1)
    assert np.all(shift <= step)
    # t = ||sigmoid(X_D theta) - h_ref||; the sigmoid is 1/4-Lipschitz, so
    # |delta t| <= ||X_D||_2 ||delta theta|| / 4, for the DP and the non-private curves.
    X_D, _ = design(adult_like.private, adult_like.target)
    bound = np.linalg.norm(X_D, 2) * step / 4
    assert np.all(np.abs(new.dp_curves - old.dp_curves) <= bound)
    assert np.all(np.abs(new.hybrid_curves - old.hybrid_curves) <= bound)


def test_counts_distances_and_criteria_over_distinct_points_equal_every_records(adult_like):
    """Step 2-4's sums over the distinct private points, each weighed by its copies, equal the
    sums over every record: counts exactly, distances and criteria up to rounding."""
    setup = prepare_study(adult_like, lam=LAM)
    lists = setup.prepared.neighbours
    assert lists.private.shape[0] < adult_like.n_private  # the data do repeat records
    order = np.random.default_rng(2).permutation(adult_like.n_public)
    sizes = [20, 60, 150, 300, 800]
    index, sqdist = nearest_in_prefixes(lists, order, sizes)
    index_d, sqdist_d = nearest_in_prefixes(lists, order, sizes, distinct=True)
    copies = np.bincount(lists.inverse)
    np.testing.assert_array_equal(hybrid_counts(index_d, adult_like.n_public, copies),
                                  hybrid_counts(index, adult_like.n_public))
    np.testing.assert_allclose(distance_to_subset(sqdist_d, copies), distance_to_subset(sqdist),
                               rtol=1e-12)
    study = run_study(setup, epsilon=(0.8, 0.2, 1.0), sizes=sizes, repeats=1, rng=1, lei=False)
    theta = study.first.estimates
    h = predict(adult_like.private, theta, "logistic", adult_like.target)
    np.testing.assert_allclose(study.dp_curves[0],
                               np.linalg.norm(h - setup.reference_prediction, axis=1), rtol=1e-12)


def test_only_a_study_starts_the_fits_at_theta_d(adult_like, monkeypatch):
    # A release's criteria have the sensitivity of fits that are functions of the noisy weights
    # alone: a start at theta_D (private) would move each within its gap with D.
    starts = []
    fit = selection_module._fit_candidates

    def recorded(points, W, clean_W, loss, target, lam, start):
        starts.append(start)
        return fit(points, W, clean_W, loss, target, lam, start)

    monkeypatch.setattr(selection_module, "_fit_candidates", recorded)
    sizes = [20, 60, 150]
    selection_module.select_subset(adult_like, None, (0.8, 0.2, 1.0), sizes, lam=LAM)
    assert starts == [None]  # the release (rng=None: fresh OS entropy)
    setup = prepare_study(adult_like, lam=LAM)
    run_study(setup, epsilon=(0.8, 0.2, 1.0), sizes=sizes, repeats=1, rng=4, lei=False)
    np.testing.assert_array_equal(starts[1], setup.prepared.reference)
