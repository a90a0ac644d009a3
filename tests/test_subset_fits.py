"""Algorithm 2's candidate fits, DP and non-private apart and started at theta_D (a study's in
larger groups, its DP fits with a refreshed shared Hessian), stay within the solver's certified
gap of the old path (all columns in one call, the solver's own start); a run reads what the
prepared part keeps and skips the noise draws it masks.

Step 4 fits the DP and the non-private columns in separate calls of
:func:`~dpcore.subset.estimators.m_estimate`, each group's shared Hessian taken at ``theta_D``
(``start``) instead of first fitting the group's mean weights. Only the solver's path changes:
every fit is still certified to ``J(theta) - min J <= SOLVER_TOL`` (weights of total 1), so by
``lam``-strong convexity ``||theta - theta*|| <= sqrt(2 SOLVER_TOL / lam)``, and two certified fits
of one objective differ by at most twice that. The criteria, counts and distances are summed
over the distinct private points, each weighed by its copies in D.
"""

import threading
import types

import numpy as np
import pandas as pd
import pytest

from dpcore import logistic as logistic_module
from dpcore.logistic import logistic_gradient
from dpcore.subset import estimators as estimators_module
from dpcore.subset import experiments as experiments_module
from dpcore.subset import rescale
from dpcore.subset import selection as selection_module
from dpcore.subset.estimators import (
    SOLVER_TOL,
    design,
    logistic_estimates,
    m_estimate,
    predict,
)
from dpcore.subset.experiments import prepare_study, run_study
from dpcore.subset.weights import (
    distance_to_subset,
    hybrid_counts,
    nearest_in_prefixes,
    skip_laplace_draws,
)

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

    def old_path(data, order, W, clean_W, loss, lam, reference, prepared, top):
        both = W if clean_W is None else np.hstack([W, clean_W])  # one call, own start
        return m_estimate(data.public[order], both, loss, target=data.target, lam=lam)

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

    def recorded(data, order, W, clean_W, loss, lam, start, prepared, top):
        starts.append(start)
        return fit(data, order, W, clean_W, loss, lam, start, prepared, top)

    monkeypatch.setattr(selection_module, "_fit_candidates", recorded)
    sizes = [20, 60, 150]
    selection_module.select_subset(adult_like, None, (0.8, 0.2, 1.0), sizes, lam=LAM)
    assert starts == [None]  # the release (rng=None: fresh OS entropy)
    setup = prepare_study(adult_like, lam=LAM)
    run_study(setup, epsilon=(0.8, 0.2, 1.0), sizes=sizes, repeats=1, rng=4, lei=False)
    np.testing.assert_array_equal(starts[1], setup.prepared.reference)


@pytest.mark.parametrize(("seed", "count"), [(0, 1), (1, 37), (2, 164_243)])
def test_skipped_laplace_draws_leave_the_generator_where_the_draws_would(seed, count):
    drawn, skipped = np.random.default_rng(seed), np.random.default_rng(seed)
    drawn.laplace(0.0, 3.0, size=count)
    skip_laplace_draws(skipped, count)
    assert skipped.bit_generator.state == drawn.bit_generator.state


def test_a_uniform_of_zero_makes_the_skip_draw_the_laplace_values():
    # numpy draws a Laplace value again when its uniform is exactly 0 (probability 2^-53): the
    # skip then puts the generator back and draws the Laplace values themselves.
    class Recorder:
        def __init__(self):
            self.bit_generator = types.SimpleNamespace(state="before")
            self.laplace_calls = []

        def random(self, count):
            self.bit_generator.state = "after the uniforms"
            return np.zeros(count)

        def laplace(self, size):
            self.laplace_calls.append((self.bit_generator.state, size))

    gen = Recorder()
    skip_laplace_draws(gen, 5)
    assert gen.laplace_calls == [("before", 5)]


def test_fits_read_from_the_kept_design_equal_those_on_the_ranked_points(adult_like):
    """:func:`logistic_estimates` on E's design kept by the prepared part, the rows past the
    largest candidate left out, against :func:`m_estimate` on the ranked points: the same
    objectives, so at most twice the certified distance apart (equal up to rounding here)."""
    setup = prepare_study(adult_like, lam=LAM)
    X, y = setup.prepared.public_design
    expected_X, expected_y = design(adult_like.public, adult_like.target)
    np.testing.assert_array_equal(X, expected_X)
    np.testing.assert_array_equal(y, expected_y)
    rng = np.random.default_rng(5)
    order = rng.permutation(adult_like.n_public)
    top, sizes = 500, np.array([40, 150, 300, 500])
    W = np.maximum(rng.laplace(1.0, 2.0, (adult_like.n_public, sizes.size)), 0.0)
    W[np.arange(adult_like.n_public)[:, None] >= sizes[None, :]] = 0.0
    start = setup.prepared.reference
    ranked = m_estimate(adult_like.public[order], W, "logistic", target=adult_like.target,
                        lam=LAM, start=start)
    kept = logistic_estimates(X, y, order[:top], W[:top], lam=LAM, start=start)
    step = 2 * np.sqrt(2 * SOLVER_TOL * (1 + 1e-12) / LAM)
    assert np.all(np.linalg.norm(kept - ranked, axis=1) <= step)


def test_a_run_reads_what_the_prepared_part_keeps(adult_like, monkeypatch):
    """Per repeat of a study: one nearest-point search, no design of D or E made again, no
    search for duplicate rows among E's distinct points, and the candidates' noise computed
    for the rows up to the largest candidate only (the later draws skipped)."""
    setup = prepare_study(adult_like, lam=LAM)
    calls = {"design": 0, "merge": 0, "nearest": 0}
    noise_shapes = []

    lock = threading.Lock()  # the repeats run on threads (REPEAT_THREADS)

    def counted(name, function):
        def call(*args, **kwargs):
            with lock:
                calls[name] += 1
            return function(*args, **kwargs)
        return call

    monkeypatch.setattr(estimators_module, "design", counted("design", design))
    monkeypatch.setattr(selection_module, "design", counted("design", design))
    monkeypatch.setattr(logistic_module, "_merge_duplicates",
                        counted("merge", logistic_module._merge_duplicates))
    monkeypatch.setattr(selection_module, "nearest_in_prefixes",
                        counted("nearest", nearest_in_prefixes))
    noisy = selection_module.noisy_counts

    def recorded(counts, epsilon, *, rng=None):
        with lock:
            noise_shapes.append((rng, np.shape(counts)))
        return noisy(counts, epsilon, rng=rng)

    monkeypatch.setattr(selection_module, "noisy_counts", recorded)
    sizes = [20, 60, 150, 300]
    run_study(setup, epsilon=(0.8, 0.2, 1.0), sizes=sizes, repeats=2, rng=4, lei=False)
    assert calls == {"design": 0, "merge": 0, "nearest": 2}
    m = adult_like.n_public
    by_repeat: dict[int, list] = {}  # each repeat's draws in order (repeats interleave)
    for gen, shape in noise_shapes:
        by_repeat.setdefault(id(gen), []).append(shape)
    assert list(by_repeat.values()) == [[(m,), (300, len(sizes))]] * 2


def test_only_a_studys_fits_take_another_path(adult_like, monkeypatch):
    # A release's fits keep the solver's own path (their start is no private point, their
    # groups the default); a study groups its fits in STUDY_GROUPS, and its DP fits refresh
    # their group's Hessian, its non-private fits do not.
    paths = []
    estimates = selection_module.logistic_estimates

    def recorded(*args, refresh=0, groups=None, **kwargs):
        paths.append((refresh, groups))
        return estimates(*args, refresh=refresh, groups=groups, **kwargs)

    monkeypatch.setattr(selection_module, "logistic_estimates", recorded)
    sizes = [20, 60, 150]
    selection_module.select_subset(adult_like, None, (0.8, 0.2, 1.0), sizes, lam=LAM)
    default = (estimators_module.GROUP_SPAN, estimators_module.GROUP_COLUMNS)
    assert paths == [(0, default)]
    run_study(prepare_study(adult_like, lam=LAM), epsilon=(0.8, 0.2, 1.0), sizes=sizes,
              repeats=1, rng=4, lei=False)
    study = selection_module.STUDY_GROUPS
    assert paths[1:] == [(selection_module.REFRESH_STEPS, study), (0, study)]


def test_the_repeats_on_threads_give_the_numbers_of_one_thread(adult_like, monkeypatch):
    # issue 35: a study's repeats run at once on REPEAT_THREADS threads, each from its own
    # stream: every table is that of one thread, to the bit; progress comes from the caller's
    # thread only (a page's progress bar cannot be drawn from another), in order.
    setup = prepare_study(adult_like, lam=LAM)
    seen: list[tuple[int, float]] = []
    arguments = dict(epsilon=(0.8, 0.2, 1.0), sizes=[20, 60, 150, 300], repeats=3, rng=5,
                     lei=False)
    threaded = run_study(setup, progress=lambda f, _: seen.append((threading.get_ident(), f)),
                         **arguments)
    monkeypatch.setattr(experiments_module, "REPEAT_THREADS", 1)
    alone = run_study(setup, **arguments)
    for name in ("dp_curves", "hybrid_curves", "distance", "selected"):
        np.testing.assert_array_equal(getattr(threaded, name), getattr(alone, name))
    assert {ident for ident, _ in seen} == {threading.get_ident()}
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
