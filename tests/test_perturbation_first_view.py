"""The logistic-regression page's first view, made cheaper (issue 35): the non-private
reference's cross-validation fits its folds together, and the release planner keeps E's roles
(the public models fitted on its parts) across ε. Same choices and numbers as the fold-by-fold
fits (on these cases: a near-tie within the fits' certified gap may be broken either way) and
the planner without a kept plan; fewer solvers built and fits made."""

from __future__ import annotations

import functools
import threading

import numpy as np
import pandas as pd
import pytest
from solves import count_solves

from dpcore.datasets import load_scenario
from dpcore.perturbation import experiments
from dpcore.perturbation.experiments import (
    BEST_LAMBDAS,
    BEST_TOL,
    best_lambda,
    epsilon_splits,
    release_lambda,
    release_simulation,
    scenario_arrays,
    simulated_release,
)
from dpcore.perturbation.model import nonprivate_coef, prepare
from dpcore.planning import release as planning
from dpcore.planning.release import release_plan, release_point
from dpcore.random import stream
from dpcore.studies import perturbation as study


@functools.cache
def _scenario(name: str):
    return load_scenario(name)


def fold_by_fold(X, y, *, seed: int, **scaling) -> tuple[float, np.ndarray]:
    """:func:`best_lambda` as it was: each fold prepared and fitted alone at each λ, from 0."""
    prep = prepare(X, y, **scaling)
    errors = np.zeros(len(BEST_LAMBDAS))
    for train, test in experiments._folds(prep.n, 3, seed):
        part = prepare(prep.Z[train], prep.y01[train], data_norm=1.0, classes=(0, 1))
        for i, lam in enumerate(BEST_LAMBDAS):
            w = nonprivate_coef(part, lam, tol=BEST_TOL)
            errors[i] += np.mean((prep.Z[test] @ w > 0) != (prep.y01[test] == 1))
    best = errors.min()
    return max(lam for lam, err in zip(BEST_LAMBDAS, errors, strict=True)
               if err <= best + 1e-12), errors


def _cases():
    """The study's reference (a split's training part) and the planner's public models (parts
    of E), on two built-in scenarios and two seeds."""
    for name in ("breast-cancer", "mvn-shift"):
        scenario = _scenario(name)
        for seed in (0, 1):
            data = study.training_data(scenario, study.SOURCES[0], 2000, seed)
            split = epsilon_splits(data.X, data.y, folds=3, X_test=data.X_test,
                                   y_test=data.y_test, data_norm=data.norm,
                                   fit_intercept=data.intercept, seed=seed)[0]
            yield (f"{name} reference {seed}", split.prep.Z, split.prep.y01,
                   dict(data_norm=1.0, classes=(0, 1)), seed)
            public = scenario_arrays(scenario, part="public")
            rows = experiments.release_roles(public.X.shape[0], True, seed)[0][0]
            yield (f"{name} public model {seed}", public.X[rows], public.y[rows],
                   dict(data_norm=public.data_norm, fit_intercept=True,
                        classes=public.classes), seed)


@pytest.mark.parametrize("case", list(_cases()), ids=lambda case: case[0])
def test_the_folds_fitted_together_choose_the_lambda_of_the_folds_fitted_alone(case):
    _, X, y, scaling, seed = case
    expected, errors = fold_by_fold(X, y, seed=seed, **scaling)
    assert best_lambda(X, y, seed=seed, **scaling) == expected
    assert len(set(np.round(errors, 12))) > 1  # the folds' errors do rank the λ


def test_the_cross_validation_builds_one_solver_for_all_its_folds(monkeypatch):
    built: list[int] = []
    original = experiments.BatchedProblem

    def counted(X, y, sample_weights):
        built.append(np.shape(sample_weights)[1])
        return original(X, y, sample_weights)

    monkeypatch.setattr(experiments, "BatchedProblem", counted)
    monkeypatch.setattr(experiments, "prepare", lambda *a, **k: pytest.fail("prepared a fold"))
    public = scenario_arrays(_scenario("breast-cancer"), part="public")
    best_lambda(public.X, public.y, data_norm=public.data_norm, fit_intercept=True,
                classes=public.classes)
    assert built == [3]  # one problem, a weight column per fold


def _public():
    public = scenario_arrays(_scenario("breast-cancer"), part="public")
    return public, dict(data_norm=public.data_norm, fit_intercept=True,
                        classes=public.classes, seed=3)


def test_one_prepared_simulation_gives_the_release_lambda_table_at_every_epsilon():
    public, kw = _public()
    for centred in (True, False):
        simulation = release_simulation(public.X, public.y, centred=centred, **kw)
        for epsilon in (0.5, 2.0):
            best, table = release_lambda(public.X, public.y, n_private=5000, epsilon=epsilon,
                                         centred=centred, **kw)
            again = simulated_release(simulation, n_private=5000, epsilon=epsilon)
            assert again[0] == best
            pd.testing.assert_frame_equal(again[1], table, check_exact=True)


def test_the_planner_with_a_kept_plan_gives_the_same_points_and_fits_no_public_model(
        monkeypatch):
    public, kw = _public()
    fresh = {eps: release_point(public.X, public.y, eps, n_private=5000, **kw)
             for eps in (0.3, 3.0)}
    fitted: list[int] = []
    original = experiments.public_prior

    def counted(*args, **kwargs):
        fitted.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(experiments, "public_prior", counted)
    plan = release_plan(public.X, public.y, **kw)
    assert len(fitted) == 6  # 3 roles for choosing λ, 3 for scoring it
    for eps, point in fresh.items():
        assert release_point(public.X, public.y, eps, n_private=5000, plan=plan, **kw) == point
        assert release_point(public.X, public.y, eps, n_private=5000, plan=plan,
                             lam=point[0], **kw) == point
    assert len(fitted) == 6  # none for the points
    assert plan.rows == min(len(public.y), planning.PLAN_ROWS)


def _exact_groups(X, y, S):
    """Rows with equal (x, y) merged by exact comparison, in order of first appearance."""
    keys = [tuple(row) + (label,) for row, label in zip(X.tolist(), y.tolist(), strict=True)]
    order = list(dict.fromkeys(keys))
    where = {key: i for i, key in enumerate(order)}
    merged = np.zeros((len(order), S.shape[1]))
    for key, weights in zip(keys, S, strict=True):
        merged[where[key]] += weights
    return np.array([key[:-1] for key in order]), np.array([key[-1] for key in order]), merged


@pytest.mark.parametrize("collide", [False, True])
def test_duplicates_merge_as_exact_grouping_does(monkeypatch, collide):
    """The hash groups rows in order of first appearance; when it groups unequal rows (forced
    here), the exact grouping takes over."""
    from dpcore import logistic, rows

    gen = np.random.default_rng(5)
    X = gen.integers(0, 2, size=(400, 5)).astype(float)
    y = gen.integers(0, 2, 400).astype(float)
    S = gen.integers(1, 4, size=(400, 2)).astype(float)
    if collide:
        monkeypatch.setattr(rows.pd, "factorize",  # the hash of distinct_rows
                            lambda values: (np.zeros(len(values), dtype=int), None))
    X_m, y_m, S_m = logistic._merge_duplicates(X, y, S)
    X_e, y_e, S_e = _exact_groups(X, y, S)
    if collide:  # the exact grouping orders the rows by their bytes: compare as sets
        got = sorted(zip(map(tuple, X_m), y_m, map(tuple, S_m), strict=True))
        assert got == sorted(zip(map(tuple, X_e), y_e, map(tuple, S_e), strict=True))
    else:
        np.testing.assert_array_equal(X_m, X_e)
        np.testing.assert_array_equal(y_m, y_e)
        np.testing.assert_array_equal(S_m, S_e)
    assert len(y_m) < 400 and S_m.sum() == S.sum()


def test_both_objective_calibrations_are_solved_in_one_batch_with_the_errors_of_each_alone(
        monkeypatch):
    """``split_rows`` solves the 2011 and 2008 calibrations of objective perturbation together
    (one solve per ε where they share λ + Δ, here every ε); each method's rows are those of
    :func:`private_coefs` alone with its own stream: the same test errors, and distances equal
    up to the solver's rounding."""
    from dpcore.perturbation import model

    scenario = _scenario("breast-cancer")
    data = study.training_data(scenario, study.SOURCES[0], 200, 11)
    split = epsilon_splits(data.X, data.y, folds=3, data_norm=data.norm,
                           fit_intercept=data.intercept, seed=11)[0]
    fitted = experiments.fit_split(split, 0.03)
    epsilons = [0.5, 2.0]
    solves = count_solves(monkeypatch, model, "fit_linear_terms")
    rows = pd.DataFrame(experiments.split_rows(fitted, epsilons=epsilons, restarts=5, seed=11))
    assert solves == [2 * 2 * 5]  # both calibrations, both ε, 5 restarts: one solve
    monkeypatch.undo()
    for label in ("objective perturbation", "objective (2008 proof)"):
        method, proof = experiments.CURVE_METHODS[label]
        W, _ = model.private_coefs(
            split.prep, epsilons=epsilons, lam=0.03, restarts=5, method=method, proof=proof,
            rng=stream(11, "perturbation", label, *split.key.values()),
            coef_nonprivate=fitted.coef, warn=False)
        alone = experiments._evaluate(split.prep, W, split.X_test, split.y_test,
                                      split.prep.classes)
        got = rows[rows["method"] == label]
        np.testing.assert_array_equal(got["error"].to_numpy(), alone.ravel())
        np.testing.assert_allclose(got["distance"].to_numpy(),
                                   np.linalg.norm(W - fitted.coef, axis=-1).ravel(), rtol=1e-9)


@pytest.mark.slow
def test_the_publish_view_moves_epsilon_without_fitting_a_public_model_again(monkeypatch):
    """AppTest, a store of its own: the Publish view fits E's public models once (the release's
    λ simulation, the planner's note and the release's centre); an ε move then simulates at
    the new ε only, and reads the scenario's arrays from the store."""
    import app_support

    from ui import cache

    monkeypatch.setattr(cache, "SHARED", cache.SharedStore(1024))
    counts = {"public_prior": [], "simulated_release": [], "scenario_arrays": []}
    for name, calls in counts.items():
        original = getattr(experiments, name)

        def counted(*args, _original=original, _calls=calls, **kwargs):
            _calls.append(1)
            return _original(*args, **kwargs)

        # where it is looked up: the study module, the planner, the page (its imports rerun)
        for module in (experiments, planning):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, counted)
    at = app_support.open_page("pages/perturbation.py", timeout=300,
                               builtin_name="breast-cancer", lr_view="publish")
    assert len(counts["public_prior"]) == 3 + 6 + 1  # release simulation, plan, centre
    assert len(counts["scenario_arrays"]) == 2  # D and E, once each
    for name in counts:
        counts[name].clear()
    at.select_slider(key="lr_epsilon").set_value(0.5)
    app_support.rerun(at)
    assert counts["public_prior"] == [] and counts["scenario_arrays"] == []
    assert len(counts["simulated_release"]) >= 2  # the release's λ and the note at ε = 0.5


@pytest.mark.parametrize("mode", [study.LAMBDA_MODES[0], study.LAMBDA_MODES[1]])
def test_the_curves_epsilon_rows_on_threads_are_those_of_one_thread(mode, monkeypatch):
    # issue 35: prepare computes its curve's ε rows at once on EPSILON_THREADS threads, each ε
    # alone from its own streams: the grid of one thread, to the bit, and progress reported
    # from the caller's thread in order.
    scenario = _scenario("breast-cancer")
    params = study.Params(lambda_mode=mode, lam=0.01, seed=3)
    seen: list[tuple[int, float]] = []
    threaded = study.prepare(scenario, params,
                             progress=lambda f, *_: seen.append((threading.get_ident(), f)))
    monkeypatch.setattr(study, "EPSILON_THREADS", 1)
    alone = study.prepare(scenario, params)
    pd.testing.assert_frame_equal(threaded.grid, alone.grid, check_exact=True)
    assert {ident for ident, _ in seen} == {threading.get_ident()}
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
