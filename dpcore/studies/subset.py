"""The run of the optimal-public-subset page: [WJ18]_ Algorithm 2 repeated (Figs 2-6).

The page's numbers for a set of controls: one row of headline metrics and the table behind the
figure of the selected view. The page calls :func:`split_epsilon` and :func:`grid_sizes` too, so
the CLI and the page run :func:`dpcore.subset.subset_study` on the same arguments and the same
random streams (``stream(seed, "subset", r)`` per repeat).

Every error here is measured against D without noise (an evaluation, labelled non-private); the
weights and estimates are DP. Nothing is released and no budget is spent.

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), *Selecting optimal subset to release under
   differentially private M-estimators from hybrid datasets*, IEEE TKDE 30(3), Sect. 5.1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dpcore.datasets import MAX_UPLOAD_BYTES
from dpcore.runs.domains import EPSILONS, LAMBDAS, SEED, Between, OneOf
from dpcore.subset import display_plane, paper_sizes, rescale, scenario_arguments, subset_study
from dpcore.validation import DataError

__all__ = ["CONTROLS", "COARSE", "DOMAINS", "GRIDS", "SEED_KEY", "SET_FROM_DATA", "SPLITS",
           "VIEWS", "compute", "grid_sizes", "split_epsilon", "takeaway"]

VIEWS = ("Error vs size", "Distance vs size", "Points and weights", "Publish")
#: Split of the total ε into (ε₁ ranks, ε₂ weights, ε₃ selects), as multiples of ε.
SPLITS = {
    "0.8 : 0.2 : 1 (Sect. 5.1)": (0.8, 0.2, 1.0),
    "1 : 1 : 1 (Sect. 5.2)": (1.0, 1.0, 1.0),
    "0.5 : 1 : 0.5": (0.5, 1.0, 0.5),
    "0.4 : 0.2 : 0.4": (0.4, 0.2, 0.4),
}
GRIDS = ("Paper, low dimension: 10, 60, … (60 sizes)",
         "Paper, high dimension: 100, 300, … (50 sizes)",
         "Coarse: 13 sizes over all of E", "Custom")
COARSE = (10, 30, 100, 300, 600, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 10000)

#: The page's controls (widget keys of pages/subset.py) with their defaults. ``sub_size`` None:
#: the size Algorithm 2 selected in repeat 1 (what the page's size slider starts at).
CONTROLS: dict[str, Any] = {
    "sub_epsilon": 3.0, "sub_split": next(iter(SPLITS)), "sub_accounting": "calibrated",
    "sub_selection": "exponential", "sub_grid": GRIDS[0], "sub_start": 10, "sub_step": 50,
    "sub_count": 30, "sub_lambda": 0.01, "sub_reps": 3, "sub_view": VIEWS[0], "sub_size": None,
}
SEED_KEY = "sub_seed"
#: The values each control can take, as the page draws it (:mod:`dpcore.runs.domains`). A
#: subset size is at most the number of public rows, which an upload of at most
#: ``MAX_UPLOAD_BYTES`` (two bytes a row at least) bounds.
DOMAINS = {
    "sub_epsilon": OneOf(EPSILONS), "sub_split": OneOf(tuple(SPLITS)),
    "sub_accounting": OneOf(("calibrated", "as-printed")),
    "sub_selection": OneOf(("exponential", "noisy-curve")), "sub_grid": OneOf(GRIDS),
    "sub_start": Between(1, 100_000, integer=True), "sub_step": Between(1, 100_000, integer=True),
    "sub_count": Between(2, 100, integer=True), "sub_lambda": OneOf(LAMBDAS),
    "sub_reps": OneOf((1, 2, 3, 5, 10)), "sub_view": OneOf(VIEWS),
    "sub_size": Between(1, MAX_UPLOAD_BYTES // 2, integer=True, optional=True), SEED_KEY: SEED,
}
#: Controls that the page fills in from its study of D when the user has not set them (the
#: size Algorithm 2 selected, from a seeded run on the private data). The config and the link
#: of an upload leave them unset, so that nothing computed from a private file is shared.
SET_FROM_DATA = ("sub_size",)


def split_epsilon(epsilon: float, split: str) -> tuple[float, float, float]:
    """``(ε₁, ε₂, ε₃)`` of the split named ``split`` (a key of :data:`SPLITS`) at total ``ε``."""
    if split not in SPLITS:
        raise DataError(f"Unknown split {split!r}; expected one of {list(SPLITS)}.")
    return tuple(f * float(epsilon) for f in SPLITS[split])


def grid_sizes(grid: str, n_public: int, start: int = 10, step: int = 50,
               count: int = 30) -> np.ndarray:
    """The candidate sizes of the grid named ``grid`` (one of :data:`GRIDS`) within ``n_public``
    distinct public points; ``start``, ``step`` and ``count`` define the custom grid.

    >>> grid_sizes(GRIDS[2], 2500).tolist()
    [10, 30, 100, 300, 600, 1000, 1500, 2000, 2500]
    >>> grid_sizes(GRIDS[3], 2500, start=100, step=1000, count=5).tolist()
    [100, 1100, 2100]
    """
    if grid == GRIDS[0]:
        return paper_sizes(2, n_public)
    if grid == GRIDS[1]:
        return paper_sizes(100, n_public)
    if grid == GRIDS[2]:
        return np.array([s for s in COARSE if s < n_public] + [n_public])
    if grid != GRIDS[3]:
        raise DataError(f"Unknown grid {grid!r}; expected one of {list(GRIDS)}.")
    sizes = int(start) + int(step) * np.arange(int(count))
    return sizes[sizes <= n_public]


def compute(scenario: Any, controls: Mapping[str, Any], seed: int, *,
            progress: Callable[[float], None] | None = None,
            parallel: Any = None) -> dict[str, pd.DataFrame]:
    """The page's numbers: ``metrics`` (one row) and the table(s) of the selected view.

    Parameters
    ----------
    scenario : dpcore.datasets.Scenario
        Needs a 0/1 target (the page fits a logistic regression).
    controls : mapping
        The page's controls (:data:`CONTROLS`; missing keys take its defaults).
    seed : int
        The page's simulation seed (``sub_seed``).
    progress : callable(fraction), optional
    parallel : ignored
        Algorithm 2's repeats run in this process (the study draws repeat ``r`` from
        ``stream(seed, "subset", r)``, so the numbers do not depend on where it runs).

    Returns
    -------
    dict of str to DataFrame
    """
    c = {**CONTROLS, **controls}
    if scenario.target is None:
        raise DataError("The optimal-subset page fits a logistic regression: choose a scenario "
                        "with a 0/1 target.")
    eps = split_epsilon(c["sub_epsilon"], c["sub_split"])
    accounting = c["sub_accounting"]
    selection = c["sub_selection"] if accounting == "calibrated" else "exponential"
    lam, n_reps = float(c["sub_lambda"]), int(c["sub_reps"])
    data = rescale(scenario.private, scenario.public, **scenario_arguments(scenario))
    sizes = grid_sizes(c["sub_grid"], data.n_public, c["sub_start"], c["sub_step"],
                       c["sub_count"])
    if sizes.size < 2:
        raise DataError(f"The grid has fewer than two sizes within the {data.n_public:,} "
                        "distinct public points: lower the first size or the step.")
    report = None if progress is None else (lambda f, text: progress(min(f, 1.0)))
    study = subset_study(data, epsilon=eps, sizes=sizes, repeats=n_reps, lam=lam,
                         accounting=accounting, selection=selection, rng=int(seed),
                         progress=report)
    options = [int(s) for s in sizes]  # as the page's size slider
    size = c["sub_size"]
    size = int(study.sizes[study.selected[0]]) if size not in options else int(size)
    j = options.index(size)
    metrics = {
        "selected_size_repeat1": int(study.sizes[study.selected[0]]),
        "inspected_size": size,
        "error_here_nonprivate": float(study.dp_curve[j]),
        "public_only_error_nonprivate": float(study.public_only),
        "epsilon_spent": float(study.epsilon_spent),
        "epsilon_claimed": float(study.epsilon_claimed),
        "sensitivity_bound": float(study.sensitivity_bound),
        "epsilon1": eps[0], "epsilon2": eps[1], "epsilon3": eps[2],
        "repeats": study.repeats, "n_sizes": int(study.sizes.size),
        "n_public": int(data.n_public), "n_private": int(data.n_private),
    }
    if study.lei is not None:
        metrics["lei_error_mean_nonprivate"] = float(np.mean(study.lei))
    numbers = {"metrics": pd.DataFrame([metrics])}
    view = c["sub_view"] or VIEWS[0]
    if view == VIEWS[0]:
        picked, counts = np.unique(study.selected, return_counts=True)
        times = np.zeros(study.sizes.size, dtype=int)
        times[picked] = counts
        curve = {"size": study.sizes.astype(int),
                 "dp_error_mean_nonprivate": study.dp_curve,
                 "dp_error_sd_nonprivate": (study.dp_curves.std(axis=0, ddof=1)
                                            if study.repeats > 1 else np.zeros(study.sizes.size)),
                 "hybrid_error_nonprivate": study.hybrid_curve,
                 "times_selected": times}
        if study.noisy_curves is not None:
            curve["noisy_criterion_repeat1"] = study.noisy_curves[0]
        numbers["error_curve"] = pd.DataFrame(curve)
        repeats = np.repeat(np.arange(1, study.repeats + 1), study.sizes.size)
        numbers["error_by_repeat"] = pd.DataFrame({
            "repeat": repeats, "size": np.tile(study.sizes.astype(int), study.repeats),
            "dp_error_nonprivate": study.dp_curves.ravel(),
            "hybrid_error_nonprivate": study.hybrid_curves.ravel()})
        numbers["selected"] = pd.DataFrame({
            "repeat": np.arange(1, study.repeats + 1),
            "selected_size": study.sizes[study.selected].astype(int),
            "dp_error_nonprivate": study.selected_error})
    elif view == VIEWS[1]:
        numbers["distance_curve_nonprivate"] = pd.DataFrame({
            "size": study.sizes.astype(int), "distance_nonprivate": study.distance.mean(axis=0)})
    elif view == VIEWS[2]:
        first = study.first
        public_xy, private_xy, labels = display_plane(data)
        weights = np.zeros(data.n_public)
        weights[first.order] = first.candidate_weights[:, j]
        in_subset = np.zeros(data.n_public, dtype=bool)
        in_subset[first.order[:size]] = True
        numbers["public_points"] = pd.DataFrame({
            "x": public_xy[:, 0], "y": public_xy[:, 1], "dp_weight": weights,
            "in_subset": in_subset})
        numbers["private_points_nonprivate"] = pd.DataFrame({"x": private_xy[:, 0],
                                                             "y": private_xy[:, 1]})
        numbers["axes"] = pd.DataFrame({"axis": ["x", "y"], "label": list(labels)})
        numbers["estimate"] = pd.DataFrame({
            "coefficient": [data.columns[k] for k in data.covariates] + ["intercept"],
            "dp_estimate": first.estimates[j], "theta_D_nonprivate": first.reference})
        w = first.candidate_weights[:size, j]
        numbers["subset_summary"] = pd.DataFrame([{
            "points_released": size, "total_dp_weight": float(w.sum()),
            "share_of_weights_at_0": float(np.mean(w == 0)), "largest_weight": float(w.max())}])
    return numbers


def takeaway(numbers: Mapping[str, pd.DataFrame], controls: Mapping[str, Any]) -> str:
    """Two sentences on the selected size and its error, from the numbers."""
    m = numbers["metrics"].iloc[0]
    c = {**CONTROLS, **controls}
    first = (f"At ε = {float(c['sub_epsilon']):g} (spent {m['epsilon_spent']:.3g} per run), "
             f"Algorithm 2 selected {int(m['selected_size_repeat1']):,} of "
             f"{int(m['n_public']):,} public points in repeat 1.")
    curve = numbers.get("error_curve")
    if curve is not None:
        best = curve.loc[curve["dp_error_mean_nonprivate"].idxmin()]
        second = (f"The DP error is smallest at size {int(best['size']):,} "
                  f"({best['dp_error_mean_nonprivate']:.3g}, non-private evaluation), against "
                  f"{m['public_only_error_nonprivate']:.3g} for the public set alone.")
    else:
        second = (f"At size {int(m['inspected_size']):,} the DP estimate's error is "
                  f"{m['error_here_nonprivate']:.3g} (non-private evaluation), against "
                  f"{m['public_only_error_nonprivate']:.3g} for the public set alone.")
    return f"{first} {second}"
