"""The private logistic regression page's numbers from a run config ([CM08]_ Figs 2a-d).

:func:`compute` repeats the page's study (``pages/perturbation.py``) without Streamlit. The page
builds its training data, its public data for choosing lambda, its training sizes and the lemma
curves with the functions of this module (:func:`training_data`, :func:`public_data`,
:func:`cv_lambda`, :func:`study_lambda`, :func:`learning_sizes`, :func:`bound_curves`), and both
call the same :mod:`dpcore.perturbation.experiments` functions with the same seed, so the numbers
are the page's, bit for bit. Everything is a seeded simulation (restarts are noise draws), not a
release; the "Publish" view's release draws fresh OS entropy and cannot be recomputed, so a run
of that view gives the headline numbers only.

References
----------
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from dpcore.perturbation.experiments import (
    epsilon_curve,
    guessing_error,
    lambda_by_cv,
    lambda_rule,
    learning_curve,
    lemma_bounds,
    scenario_arrays,
    summarise,
    swamped_methods,
)
from dpcore.perturbation.synthetic import synthetic
from dpcore.random import stream
from dpcore.runs.domains import EPSILONS, SEED, OneOf
from dpcore.simulation import Progress

__all__ = ["CONTROLS", "DOMAINS", "SEED_KEY", "VIEWS", "SOURCES", "SYNTHETIC", "EPSILON_GRID",
           "LAMBDAS", "CV_LAMBDAS", "SIZES", "SYNTHETIC_TEST", "LAMBDA_MODES", "PAPER_N",
           "TrainingData", "training_data", "public_data", "cv_lambda", "study_lambda",
           "learning_sizes", "bound_curves", "compute", "takeaway"]

VIEWS = ("Error vs ε", "Learning curve", "Distance to non-private", "Bounds (Lemmas 3-4)",
         "Publish")
SOURCES = ("Scenario (sidebar)", "Paper: separable sphere", "Paper: noisy sphere")
SYNTHETIC = {"Paper: separable sphere": "separable", "Paper: noisy sphere": "noisy"}
EPSILON_GRID = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
LAMBDAS = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1.0)
CV_LAMBDAS = LAMBDAS[::2]  # decades: 3-fold CV over 6 values
SIZES = (100, 200, 500, 1000, 2000, 5000, 10_000, 17_500, 20_000, 50_000)
SYNTHETIC_TEST = 10_000
LAMBDA_MODES = ("rule of (ε, n, d)", "set by hand", "CV on public data")
PAPER_N = 17_500
_STREAM = "perturbation page"

SEED_KEY = "lr_seed"
#: Every control the page's numbers depend on, with the page's defaults.
CONTROLS: dict[str, Any] = {
    "lr_source": SOURCES[0],
    "lr_epsilon": 1.0,
    "lr_lambda_mode": LAMBDA_MODES[0],
    "lr_lambda": 0.01,
    "lr_n": PAPER_N,
    "lr_restarts": 10,
    "lr_view": VIEWS[0],
}
#: The values each control can take, as the page draws it (:mod:`dpcore.runs.domains`).
DOMAINS = {
    "lr_source": OneOf(SOURCES), "lr_epsilon": OneOf(EPSILONS),
    "lr_lambda_mode": OneOf(LAMBDA_MODES), "lr_lambda": OneOf(LAMBDAS), "lr_n": OneOf(SIZES),
    "lr_restarts": OneOf((5, 10, 20, 50)), "lr_view": OneOf(VIEWS), SEED_KEY: SEED,
}


class TrainingData(NamedTuple):
    """The study's training rows, its held-out rows (None: 3-fold cross-validation), the records'
    norm bound (from the domain, never the data), whether to fit an intercept, and a label."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    norm: float
    intercept: bool
    where: str


def training_data(scenario, source: str, n_choice: int, seed: int) -> TrainingData:
    """The page's training data: ``n_choice`` rows of D drawn by the seed's stream, with the
    scenario's test part, or the paper's synthetic sphere data ([CM08]_ Sect. 6)."""
    if source in SYNTHETIC:
        name = SYNTHETIC[source]
        n = min(n_choice, PAPER_N)
        X, y = synthetic(name, n, rng=stream(seed, _STREAM, name, "train"))
        Xt, yt = synthetic(name, SYNTHETIC_TEST, rng=stream(seed, _STREAM, name, "test"))
        return TrainingData(X, y, Xt, yt, 1.0, False, f"synthetic ({name}), n = {n:,}")
    if source not in SOURCES:
        raise ValueError(f"lr_source == {source!r}; choose one of {list(SOURCES)}.")
    arrays = scenario_arrays(scenario)
    n = min(n_choice, arrays.X.shape[0])
    take = stream(seed, _STREAM, "rows").permutation(arrays.X.shape[0])[:n]
    onehot = all(scenario.kinds.get(g) == "onehot" for g, cols in scenario.groups.items()
                 if any(c in arrays.features for c in cols))
    return TrainingData(arrays.X[take], arrays.y[take], arrays.X_test, arrays.y_test,
                        arrays.data_norm, not onehot, f"{scenario.title}, n = {n:,}")


def public_data(scenario, source: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Public data for choosing lambda: the scenario's E, or a fresh synthetic holdout."""
    if source in SYNTHETIC:
        name = SYNTHETIC[source]
        return synthetic(name, SYNTHETIC_TEST, rng=stream(seed, _STREAM, name, "cv"))
    public = scenario_arrays(scenario, part="public")
    return public.X, public.y


def cv_lambda(X_pub, y_pub, norm: float, intercept: bool, seed: int) -> float:
    """Lambda by 3-fold cross-validation of the non-private model on *public* data."""
    return lambda_by_cv(X_pub, y_pub, CV_LAMBDAS, folds=3, data_norm=norm,
                        fit_intercept=intercept, seed=seed)[0]


def study_lambda(mode: str, *, epsilon: float, n: int, d: int, lam_set: float,
                 lam_cv: float | None = None) -> float:
    """The study's lambda: the rule of ([CM08]_ objective perturbation), the hand-set value, or
    the cross-validated one."""
    if mode == LAMBDA_MODES[0]:
        return lambda_rule(epsilon, n, d)
    if mode == LAMBDA_MODES[1]:
        return float(lam_set)
    if mode == LAMBDA_MODES[2]:
        if lam_cv is None:
            raise ValueError("lam_cv is needed when lambda is chosen by cross-validation.")
        return float(lam_cv)
    raise ValueError(f"lr_lambda_mode == {mode!r}; choose one of {list(LAMBDA_MODES)}.")


def learning_sizes(n: int, held_out: bool) -> tuple[int, list[int]]:
    """Training rows of a fold (all ``n`` with a test set, else 2/3 of them) and the learning
    curve's nested sizes (5 % to 100 % of them, at least 50)."""
    n_fold = n if held_out else n - -(-n // 3)
    sizes = sorted({max(min(50, n_fold), int(n_fold * f))
                    for f in (0.05, 0.1, 0.2, 0.4, 0.7, 1.0)})
    return n_fold, sizes


def bound_curves(eps_axis, *, n: int, d: int, intercept: bool, held_out: bool,
                 lam: float) -> pd.DataFrame:
    """Lemmas 3-4's bounds on a fine epsilon grid, for the rows a fit trains on."""
    return lemma_bounds(np.geomspace(min(eps_axis), max(eps_axis), 40),
                        n=n if held_out else n - n // 3, d=d + int(intercept), lam=lam)


def compute(scenario, controls: Mapping[str, object], seed: int, *, progress: Progress = None,
            parallel=None) -> dict[str, pd.DataFrame]:
    """The numbers the private logistic regression page shows for ``controls`` and ``seed``.

    Parameters
    ----------
    scenario : Scenario
        Unused when the training data is the paper's synthetic data.
    controls : mapping
        The page's widget values (keys of :data:`CONTROLS`; missing keys take its defaults).
    seed : int
        The page's simulation seed (``lr_seed``).
    progress : callable, optional
    parallel : dpcore.parallel.Parallel, optional
        Unused: the study is batched per fold already (accepted for the common signature).

    Returns
    -------
    dict of DataFrame
        ``"metrics"`` (one row: lambda, n, d, the guessing error of the evaluation labels
        (``guessing_error_nonprivate``) and, for "Error vs ε", each method's mean and SD test
        error at the chosen epsilon), and the tables behind the selected view: ``results`` (one
        row per method, epsilon, fold and restart), ``summary`` (mean, SD, count per method and
        epsilon or n), ``bounds`` (Lemmas 3-4). Method "non-private" is the fit without noise.
    """
    del parallel
    values = {**CONTROLS, **controls}
    source = values["lr_source"]
    epsilon = float(values["lr_epsilon"])
    lambda_mode = values["lr_lambda_mode"]
    view = values["lr_view"] or VIEWS[0]
    if view not in VIEWS:
        raise ValueError(f"lr_view == {view!r}; choose one of {list(VIEWS)}.")
    restarts = int(values["lr_restarts"])
    data = training_data(scenario, source, int(values["lr_n"]), seed)
    X, y, X_test, y_test, norm, intercept, _ = data
    n, d = X.shape
    lam_cv = None
    if lambda_mode == LAMBDA_MODES[2]:
        lam_cv = cv_lambda(*public_data(scenario, source, seed), norm, intercept, seed)
    lam = study_lambda(lambda_mode, epsilon=epsilon, n=n, d=d,
                       lam_set=float(values["lr_lambda"]), lam_cv=lam_cv)
    eps_axis = tuple(sorted(set(EPSILON_GRID) | {epsilon}))
    common = dict(lam=lam, restarts=restarts, X_test=X_test, y_test=y_test, data_norm=norm,
                  fit_intercept=intercept, seed=seed, **({"folds": 3} if X_test is None else {}))
    metrics: dict[str, Any] = {"epsilon": epsilon, "lam": lam, "lambda_mode": lambda_mode,
                               "n": n, "d": d, "intercept": intercept, "data_norm": norm,
                               "restarts": restarts}
    numbers: dict[str, pd.DataFrame] = {}
    if view in ("Error vs ε", "Distance to non-private"):
        res = epsilon_curve(X, y, epsilons=eps_axis, excess=False, progress=progress, **common)
        numbers["results"] = res
        if view == "Error vs ε":
            summary = summarise(res)
            numbers["summary"] = summary
            guess = guessing_error(y_test if y_test is not None else y)
            metrics["guessing_error_nonprivate"] = guess
            here = summary[np.isclose(summary["epsilon"], epsilon)].set_index("method")
            for method, row in here.iterrows():
                metrics[f"error {method}"] = row["mean"]
                metrics[f"sd {method}"] = row["std"]
            metrics["swamped"] = ", ".join(swamped_methods(summary, epsilon, guess))
    elif view == "Learning curve":
        n_fold, sizes = learning_sizes(n, X_test is not None)
        res = learning_curve(X, y, sizes=sizes, epsilon=epsilon, progress=progress, **common)
        numbers["results"] = res
        numbers["summary"] = summarise(res, by="n")
        metrics["n_fold"] = n_fold
    elif view == "Bounds (Lemmas 3-4)":
        numbers["results"] = epsilon_curve(X, y, epsilons=eps_axis, excess=True,
                                           progress=progress, **common)
        numbers["bounds"] = bound_curves(eps_axis, n=n, d=d, intercept=intercept,
                                         held_out=X_test is not None, lam=lam)
    numbers = {"metrics": pd.DataFrame([metrics]), **numbers}
    return numbers


def takeaway(numbers: Mapping[str, pd.DataFrame], controls: Mapping[str, object]) -> str:
    """Two sentences on the run's numbers (for presentation mode), computed from ``numbers``."""
    m = numbers["metrics"].iloc[0]
    eps = float(m["epsilon"])
    if "summary" in numbers and "epsilon" in numbers["summary"]:
        s = numbers["summary"]
        at = s[np.isclose(s["epsilon"], eps)].set_index("method")["mean"]
        lo = s[np.isclose(s["epsilon"], s["epsilon"].min())].set_index("method")["mean"]
        hi = s[np.isclose(s["epsilon"], s["epsilon"].max())].set_index("method")["mean"]
        first = (f"At ε = {eps:g} (λ = {m['lam']:.3g}, n = {int(m['n']):,}) objective "
                 f"perturbation's mean test error is {at['objective perturbation']:.3f} and "
                 f"output perturbation's {at['output perturbation']:.3f}, against "
                 f"{at['non-private']:.3f} without noise (non-private).")
        second = (f"From ε = {s['epsilon'].min():g} to {s['epsilon'].max():g} objective "
                  f"perturbation's error falls from {lo['objective perturbation']:.3f} to "
                  f"{hi['objective perturbation']:.3f}, output perturbation's from "
                  f"{lo['output perturbation']:.3f} to {hi['output perturbation']:.3f}.")
        return f"{first} {second}"
    if "summary" in numbers:
        s = numbers["summary"]
        small, large = s["n"].min(), s["n"].max()
        by = s.set_index(["method", "n"])["mean"]
        return (f"At ε = {eps:g} and λ = {m['lam']:.3g}, growing the training set from "
                f"{int(small):,} to {int(large):,} records cuts objective perturbation's mean "
                f"test error from {by['objective perturbation', small]:.3f} to "
                f"{by['objective perturbation', large]:.3f}. Output perturbation's falls from "
                f"{by['output perturbation', small]:.3f} to "
                f"{by['output perturbation', large]:.3f} (non-private: "
                f"{by['non-private', large]:.3f}).")
    if "bounds" in numbers:
        res = numbers["results"]
        at = res[np.isclose(res["epsilon"], eps)].groupby("method")["excess"].quantile(0.95)
        bounds = numbers["bounds"]
        row = bounds.iloc[(bounds["epsilon"] - eps).abs().argmin()]
        return (f"At ε = {eps:g} the 95th percentile of the excess training loss is "
                f"{at['output perturbation']:.3g} for output perturbation and "
                f"{at['objective (2008 proof)']:.3g} for objective perturbation (2008 "
                f"calibration). Lemma 3 bounds the first by {row['output perturbation']:.3g} and "
                f"Lemma 4 the second by {row['objective perturbation']:.3g} (at ε = "
                f"{row['epsilon']:.3g}).")
    if "results" in numbers:
        res = numbers["results"]
        med = res[np.isclose(res["epsilon"], eps)].groupby("method")["distance"].median()
        return (f"At ε = {eps:g} and λ = {m['lam']:.3g} the median distance of the private "
                f"model from the non-private one is {med['output perturbation']:.3g} for output "
                f"perturbation and {med['objective perturbation']:.3g} for objective "
                f"perturbation. Output perturbation's median distance is "
                f"{med['output perturbation'] / max(med['objective perturbation'], 1e-300):.1f} "
                "times objective perturbation's.")
    return (f"The Publish view releases one model trained on all of D at ε = {eps:g}; its noise "
            "comes from fresh OS entropy, so no run can recompute it. The study's λ here is "
            f"{m['lam']:.3g} (n = {int(m['n']):,}, d = {int(m['d'])}).")
