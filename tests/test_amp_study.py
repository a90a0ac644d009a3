"""The release's λ simulation solved in one batch per rotation (issue 35): ``amp_study`` draws
each λ's noise as ``amp_coefs`` does and solves every λ's draws together
(``fit_penalties``). Each solve reaches the gap AMP asks for, so every coefficient is within
the two solves' certified distances of ``amp_coefs``'s; the simulated errors, the chosen λ and
the planner's points are those of the λ-by-λ simulation on the built-in scenarios."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from solves import count_solves

from dpcore.datasets import load_scenario
from dpcore.logistic import BatchedProblem, fit_logistic
from dpcore.perturbation import amp, experiments
from dpcore.perturbation.amp import amp_coefs, amp_study
from dpcore.perturbation.experiments import (
    CENTRED_LAMBDAS,
    RELEASE_LAMBDAS,
    release_simulation,
    scenario_arrays,
    simulated_release,
)
from dpcore.perturbation.model import TOL
from dpcore.perturbation.objective import amp_sensitivity
from dpcore.planning.release import plan_draws, release_plan
from dpcore.random import stream


@functools.cache
def _public(name: str):
    return scenario_arrays(load_scenario(name), part="public")


@functools.cache
def _simulation(name: str, centred: bool, seed: int):
    """The Publish view's simulation (all of E; breast cancer, digits) or the planner's (up to
    2,000 rows of E, the roles that choose λ; Adult)."""
    public = _public(name)
    kw = dict(data_norm=public.data_norm, fit_intercept=True, classes=public.classes, seed=seed)
    if name == "adult":
        return release_plan(public.X, public.y, **kw).choose
    return release_simulation(public.X, public.y, centred=centred, **kw)


def one_by_one(simulation, *, n_private: int, epsilon: float, draws: int):
    """:func:`simulated_release` as it was: each (rotation, λ) its own ``amp_coefs`` call (a fit
    without noise, then that λ's draws), the page's λ grid."""
    lams = CENTRED_LAMBDAS if simulation.centred else RELEASE_LAMBDAS
    rotations = simulation.rotations
    errors = np.zeros(len(lams))
    per_rotation = math.ceil(draws / len(rotations))
    for r, rotation in enumerate(rotations):
        for i, lam in enumerate(lams):
            key = (lam,) if rotation.prior is None else (lam, "centred", r)
            W, _ = amp_coefs(rotation.prep, epsilon=epsilon, lam=lam, size=per_rotation, tol=TOL,
                             rng=stream(simulation.seed, "perturbation", "release lambda", *key),
                             n_noise=n_private, prior=rotation.prior)
            errors[i] += float(np.mean(experiments._evaluate(
                rotation.prep, W, rotation.X_test, rotation.y_test,
                rotation.prep.classes))) / len(rotations)
    table = pd.DataFrame({"lam": list(lams), "error": errors})
    return float(table.loc[table["error"].idxmin(), "lam"]), table


CASES = [pytest.param((name, centred, seed),
                      marks=[pytest.mark.slow] if name != "breast-cancer" else [],
                      id=f"{name}-{'centred' if centred else 'plain'}-{seed}")
         for name in ("breast-cancer", "digits", "adult")
         for centred in (True, False) if not (name == "adult" and not centred)
         for seed in (0, 1)]


@pytest.mark.parametrize("case", CASES)
def test_the_batched_simulation_chooses_the_lambda_and_errors_of_the_one_by_one(case):
    name, centred, seed = case
    simulation = _simulation(name, centred, seed)
    n_private = scenario_arrays(load_scenario(name)).X.shape[0]
    draws = plan_draws(2000) if name == "adult" else 10
    for epsilon in (0.1, 1.0, 5.0):
        expected, table = one_by_one(simulation, n_private=n_private, epsilon=epsilon,
                                     draws=draws)
        best, got = simulated_release(simulation, n_private=n_private, epsilon=epsilon,
                                      draws=draws)
        assert best == expected
        pd.testing.assert_frame_equal(got, table, check_exact=True)


@pytest.mark.parametrize("centred, epsilon", [(True, 0.7), (False, 0.7), (True, 0.05)])
def test_each_draw_is_within_the_certified_distance_of_amp_coefs(centred, epsilon, monkeypatch):
    """The same noise, each solve to the gap AMP asks of its solver (certified), so two solves
    of one objective are at most twice ``_AIM`` times the release's radius apart."""
    rotation = _simulation("breast-cancer", centred, 2).rotations[0]
    lams, draws, n_private = (1e-4, 1e-2, 1.0, 30.0), 3, 285
    keys = [("study", lam) for lam in lams]
    checked: list[bool] = []
    original = amp.fit_penalties

    def certified(*args, **kwargs):
        fits = original(*args, **kwargs)
        checked.append(fits.certified)
        return fits

    monkeypatch.setattr(amp, "fit_penalties", certified)
    W = amp_study(rotation.prep, epsilon=epsilon, lams=lams, draws=draws, tol=TOL,
                  rngs=[stream(4, *key) for key in keys], n_noise=n_private,
                  prior=rotation.prior)
    assert checked == [True]  # one batch, every solve within its gap
    assert W.shape == (len(lams), draws, rotation.prep.Z.shape[1])
    for i, lam in enumerate(lams):
        alone, cal = amp_coefs(rotation.prep, epsilon=epsilon, lam=lam, size=draws, tol=TOL,
                               rng=stream(4, *keys[i]), n_noise=n_private, prior=rotation.prior)
        radius = amp_sensitivity(TOL, cal.lam_total) / 2.0
        bound = 2.0 * amp._AIM * radius + 8.0 * np.spacing(np.abs(alone).max())
        assert np.linalg.norm(W[i] - alone, axis=-1).max() <= bound
        assert np.linalg.norm(W[i] - alone, axis=-1).max() < 1e-3 * np.linalg.norm(alone)


def test_a_simulation_solves_once_per_rotation_and_never_lambda_by_lambda(monkeypatch):
    simulation = _simulation("breast-cancer", True, 0)
    batches = count_solves(monkeypatch, amp, "fit_penalties")
    monkeypatch.setattr(amp, "fit_linear_terms",
                        lambda *a, **k: pytest.fail("solved one λ alone"))
    simulated_release(simulation, n_private=285, epsilon=1.0, draws=10)
    assert batches == [len(CENTRED_LAMBDAS) * math.ceil(10 / 3)] * 3  # all λ, each rotation


def test_fit_penalties_meets_each_gap_and_agrees_with_fits_alone():
    gen = np.random.default_rng(3)
    X = gen.standard_normal((300, 4)) / 3.0
    y = (X[:, 0] + 0.3 * gen.standard_normal(300) > 0).astype(float)
    problem = BatchedProblem(X, y, np.ones((300, 1)))
    lams, tol = np.array([0.05, 3.0, 300.0]), np.array([1e-12, 1e-10, 1e-14])
    groups = np.array([0, 0, 1, 2, 2, 2])
    linear = gen.standard_normal((4, groups.size)) * 20.0
    W = problem.fit_penalties(lams=lams, groups=groups, linear=linear, tol=tol)
    for j, g in enumerate(groups):
        grad = X.T @ (1.0 / (1.0 + np.exp(-X @ W[j])) - y) + lams[g] * W[j] + linear[:, j]
        assert grad @ grad / (2.0 * lams[g]) <= tol[g] * 300 * (1.0 + 1e-6)
        alone = fit_logistic(X, y, lam=lams[g], linear=linear[:, j], tol=1e-14).coef
        # both within sqrt(2 gap / lam) of the minimiser of a lam-strongly convex objective
        bound = math.sqrt(2.0 * tol[g] * 300 / lams[g]) + math.sqrt(2.0 * 1e-14 * 300 / lams[g])
        assert np.linalg.norm(W[j] - alone) <= bound * (1.0 + 1e-6) + 1e-12


@pytest.mark.parametrize("groups, message", [([0, 0], "name each"), ([0, 2], "name each"),
                                             ([0, 1, 1], "shape")])
def test_fit_penalties_refuses_groups_that_do_not_match(groups, message):
    problem = BatchedProblem(np.eye(3), np.array([0.0, 1.0, 1.0]), np.ones((3, 1)))
    with pytest.raises(ValueError, match=message):
        problem.fit_penalties(lams=[1.0, 2.0], groups=groups, linear=np.zeros((3, 2)), tol=1e-8)


def test_amp_study_refuses_a_release():
    rotation = _simulation("breast-cancer", False, 0).rotations[0]
    with pytest.raises(ValueError, match="seeded"):
        amp_study(rotation.prep, epsilon=1.0, lams=[0.1, 0.2], draws=2, tol=TOL,
                  rngs=[0, None], n_noise=285)
