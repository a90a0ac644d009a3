"""Issue 34's data-dependent defaults and references: the LR page's non-private reference at
its own best λ, the masking page's λ read off the public set, and their messages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.datasets import load_scenario, read_csv_upload, scenario_from_uploads
from dpcore.masking.defaults import (
    best_lambda,
    default_lambda,
    public_lambda_table,
    reach_note,
)
from dpcore.perturbation.experiments import best_lambda as lr_best_lambda
from dpcore.perturbation.experiments import epsilon_splits, fit_best, guessing_error
from dpcore.planning.release import (
    PublicReference,
    public_reference,
    release_point,
)
from dpcore.planning.release import reach_note as reach_note_lr
from dpcore.studies import perturbation as lr_study


@pytest.fixture(scope="module")
def breast_cancer():
    """Issue 34's upload: public = the first 200 rows, private = the other 369."""
    from sklearn.datasets import load_breast_cancer

    bunch = load_breast_cancer(as_frame=True)
    frame = bunch.data.copy()
    frame["diagnosis"] = np.where(bunch.target == 0, "M", "B")
    public = read_csv_upload(frame.iloc[:200].to_csv(index=False).encode(), "e.csv")
    private = read_csv_upload(frame.iloc[200:].to_csv(index=False).encode(), "d.csv",
                              private=True)
    return scenario_from_uploads(private, public, target="diagnosis")[0]


def test_best_lambda_finds_the_small_lambda_a_scaled_table_needs(breast_cancer):
    data = lr_study.training_data(breast_cancer, lr_study.SOURCES[0], 17_500, 0)
    lam = lr_best_lambda(data.X, data.y, data_norm=data.norm, fit_intercept=data.intercept)
    # Records scaled by sqrt(30) need a penalty far below the rule's 0.0168 to fit at all.
    assert lam <= 1e-3
    splits = epsilon_splits(data.X, data.y, folds=3, data_norm=data.norm,
                            fit_intercept=data.intercept)
    best = [fit_best(split) for split in splits]
    assert np.mean([fitted.error for fitted in best]) < 0.1 < guessing_error(data.y)


def test_best_lambda_breaks_a_tie_towards_the_larger_lambda():
    # One feature that says nothing: every lambda predicts the majority class alike.
    rng = np.random.default_rng(0)
    X = np.zeros((60, 1))
    y = (rng.random(60) < 0.8).astype(int)
    assert lr_best_lambda(X, y, lams=(1e-4, 1e-2, 1.0), data_norm=1.0, fit_intercept=True,
                          classes=(0, 1)) == 1.0


def test_the_study_reports_the_non_private_reference_at_its_own_best_lambda(breast_cancer):
    numbers = lr_study.compute(breast_cancer, lr_study.Params())
    m = numbers["metrics"].iloc[0]
    assert m["best_error_nonprivate"] < 0.1 < m["guessing_error_nonprivate"]
    assert m["lam_best_low"] <= m["lam_best_high"] <= 1e-3


def test_the_planner_finds_the_centred_release_useful_on_public_data_only(breast_cancer):
    """At n = 369, d = 30 and ε = 1 the release Publish makes is centred on a model fitted on
    E, which already learns: the planner finds it within reach of the model without noise and
    says nothing. It reads E alone: D with its labels flipped gives the same simulation."""
    import dataclasses

    def plan(scenario):
        public, private = (lr_study.scenario_arrays(scenario, part=p)
                           for p in ("public", "private"))
        data = lr_study.training_data(scenario, lr_study.SOURCES[0], 17_500, 0)

        def point(eps):
            return release_point(public.X, public.y, eps, n_private=len(private.y),
                                 data_norm=data.norm, fit_intercept=data.intercept,
                                 classes=public.classes)

        reference = public_reference(public.X, public.y, data_norm=data.norm,
                                     fit_intercept=data.intercept)
        return point, reference, reach_note_lr(point, epsilon=1.0, n=len(private.y),
                                               d=data.X.shape[1], reference=reference)

    point, reference, text = plan(breast_cancer)
    assert reference.error < 0.1 < reference.guess
    here = point(1.0)
    assert here[1] <= reference.target() and text is None
    flipped = breast_cancer.private.copy()
    flipped[breast_cancer.target] = 1.0 - flipped[breast_cancer.target]
    point_flipped, _, text_flipped = plan(dataclasses.replace(breast_cancer, private=flipped))
    assert point_flipped(1.0) == here and text_flipped is None


def test_the_planner_says_what_the_centred_release_needs_when_e_is_small():
    """E of 120 rows in 40 dimensions: a third of it (the public model the simulation centres
    on) predicts far worse than a model fitted on two thirds, so at n = 2,000 and ε = 1 the
    release falls short of the model without noise, and the note says so and names a larger ε
    or n (never one below the ε it measured)."""
    rng = np.random.default_rng(0)
    d, rows = 40, 120
    w = rng.normal(size=d)
    X = rng.normal(size=(rows, d)) / np.sqrt(d)
    y = (X @ w + 0.3 * rng.normal(size=rows) > 0).astype(int)

    def point(eps):
        return release_point(X, y, eps, n_private=2000, data_norm=3.0, fit_intercept=True,
                             classes=(0, 1))

    reference = public_reference(X, y, data_norm=3.0, fit_intercept=True)
    assert reference.learns and point(1.0)[1] > reference.target()
    text = reach_note_lr(point, epsilon=1.0, n=2000, d=d + 1, reference=reference)
    assert text is not None and "n = 2,000, d = 41" in text and "ε = 1 " in text
    assert "release Publish makes" in text and "centred on the public model" in text
    if "ε ≈ " in text:
        assert float(text.split("ε ≈ ")[1].split(",")[0]) > 1.0
    else:  # the simulated private set is E's third: the note says the shortfall may be E's
        assert "No ε up to 30" in text and "a third of E (40 rows)" in text


def test_reach_note_reads_the_first_crossing_above_epsilon():
    """A made-up release whose error halves with every doubling of ε from 0.4 at ε = 1: the
    target 0.1 + 0.05 is reached between ε = 2 (0.2) and 4 (0.1), linear in log ε, and n
    scales alike (noise like 1/(n ε))."""
    reference = PublicReference(error=0.1, lam=1e-4, guess=0.5, rows=200)

    def point(eps):
        return 1e-3, 0.4 / eps

    note = reach_note_lr(point, epsilon=1.0, n=1000, d=10, reference=reference,
                         grid=(0.5, 2.0, 4.0, 8.0))
    needed = 2.0 * np.sqrt(2.0)
    assert f"ε ≈ {needed:.2g}" in note
    assert f"n ≈ {float(f'{1000 * needed:.2g}'):,.0f}" in note
    # a point below ε that happens to reach the target is never read as the answer
    assert "ε ≈ 0.5" not in reach_note_lr(lambda e: (1e-3, 0.1 if e < 1 else 0.4 / e),
                                          epsilon=1.0, n=1000, d=10, reference=reference,
                                          grid=(0.5, 2.0, 4.0, 8.0))
    assert reach_note_lr(point, epsilon=4.0, n=1000, d=10, reference=reference) is None
    never = reach_note_lr(lambda e: (1e-3, 0.4), epsilon=1.0, n=1000, d=10,
                          reference=reference, grid=(2.0, 30.0))
    assert "No ε up to 30" in never and "n ≈ 30,000" in never
    # columns that say little on E: the target would be guessing itself, so no advice
    flat = PublicReference(error=0.29, lam=1e-4, guess=0.3, rows=200)
    assert reach_note_lr(lambda e: (1e-3, 0.25), epsilon=1.0, n=1000, d=10,
                         reference=flat) is None
    assert "say little" in reach_note_lr(lambda e: (1e-3, 0.35), epsilon=1.0, n=1000, d=10,
                                         reference=flat)


def test_masking_lambda_reads_only_the_public_set():
    scenario = load_scenario("breast-cancer")
    flipped = scenario.private.copy()
    flipped[scenario.target] = 1.0 - flipped[scenario.target]
    import dataclasses

    other = dataclasses.replace(scenario, private=flipped)
    assert default_lambda(scenario, 1.0) == default_lambda(other, 1.0)


def test_masking_lambda_is_the_best_simulated_one_and_ties_go_up():
    table = pd.DataFrame({"lam": [0.001, 0.01, 0.1], "accuracy": [0.7, 0.8, 0.8],
                          "noise_free": [0.85, 0.84, 0.82], "majority": [0.6] * 3})
    assert best_lambda(table) == 0.1


def test_masking_reach_note_names_a_better_lambda_and_the_epsilon_that_helps():
    tables = {
        1.0: pd.DataFrame({"lam": [0.01, 0.5], "accuracy": [0.55, 0.65],
                           "noise_free": [0.85, 0.7], "majority": [0.6, 0.6]}),
        5.0: pd.DataFrame({"lam": [0.01, 0.5], "accuracy": [0.84, 0.69],
                           "noise_free": [0.85, 0.7], "majority": [0.6, 0.6]}),
    }
    note = reach_note(tables.__getitem__, 1.0, 0.01, 500, (0.5, 1.0, 5.0))
    assert "0.550 at λ = 0.01 and 0.650 at λ = 0.5" in note
    assert "Set λ = 0.5." in note and "From ε = 5 the noise costs at most 0.01" in note


def test_public_lambda_table_simulates_every_lambda_on_public_rows():
    table = public_lambda_table(load_scenario("breast-cancer"), 2.0, lams=(0.01, 0.5), draws=5)
    assert list(table["lam"]) == [0.01, 0.5]
    assert ((table["accuracy"] >= 0) & (table["accuracy"] <= 1)).all()
    assert table["majority"].nunique() == 1


def test_masking_lambda_grid_is_the_sliders_and_tiny_budgets_fall_back_to_its_top():
    from dpcore.domains import LAMBDAS as SLIDER
    from dpcore.masking.defaults import LAMBDAS

    assert LAMBDAS == SLIDER  # every default is a slider position
    # At ε N_D ~ 2 the noise of scale 2 / (N_D λ ε) swamps every small λ: the choice is the
    # largest, whose release stays near the public model w_E.
    assert default_lambda(load_scenario("breast-cancer"), 0.01) == max(LAMBDAS)
