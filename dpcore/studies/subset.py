"""The study of the optimal-public-subset page: [WJ18]_ Algorithm 2 repeated (Figs 2-6).

The page's numbers for its parameters: one row of headline metrics and the table behind the
figure of the selected view, in two stages. :func:`prepare` does what ε does not change, once
per scenario and λ: Step 1, ``theta_D``, the nearest public points and each private point's
nearest public points in tie groups (from which every ranking's nested candidates find their
nearest points without a distance computation), the public-only baseline
(:func:`dpcore.subset.prepare_study`). :func:`at` runs Algorithm 2's repeats on the candidate
grid at the split ε (:func:`dpcore.subset.run_study`; repeat ``r`` draws from
``stream(seed, "subset", r)``): ε and the seed feed every step of Algorithm 2 (the ε₁ ranking
orders the nested subsets that every fit uses), so a new ε or seed ranks and fits them all
again, but reads the distances from the prepared part. Each set of runs is computed once and
kept with the prepared part, so that the view, the inspected size and an ε seen before only
re-read them; the points view's display plane is computed when that view is first shown.

Every error here is measured against D without noise (an evaluation, labelled non-private); the
weights and estimates are DP. Nothing is released and no budget is spent.

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), *Selecting optimal subset to release under
   differentially private M-estimators from hybrid datasets*, IEEE TKDE 30(3), Sect. 5.1.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd

from dpcore.datasets import MAX_UPLOAD_BYTES, Scenario
from dpcore.domains import EPSILONS, LAMBDAS, SEED, Between, OneOf, ViewOf
from dpcore.model_selection import cv_penalty
from dpcore.studies.base import StudyParams
from dpcore.subset import (
    StudySetup,
    SubsetStudy,
    display_plane,
    lei_errors,
    paper_sizes,
    prepare_study,
    rescale,
    run_study,
    scenario_arguments,
)
from dpcore.subset.baselines import LEI_MAX_DIM
from dpcore.subset.estimators import design
from dpcore.validation import DataError

__all__ = ["CONTROLS", "COARSE", "DEFAULT_GRID", "DOMAINS", "GRIDS", "LEI_BINS", "LEI_BUDGETS",
           "NEAR_UNIFORM_RATIO", "SEED_KEY", "SET_FROM_DATA", "SLIDER_EPSILONS", "SPLITS", "VIEWS",
           "VIEW_LABELS",
           "Params", "POINTS_PER_COEFFICIENT", "PreparedStudy", "StudyRuns", "at",
           "candidate_sizes", "compute", "default_lambda", "grid_sizes",
           "lei_applies", "lei_epsilon", "near_uniform_note", "prepare", "grids_not_offered",
           "split_epsilon", "takeaway"]

#: The page's views by key, with the label the page shows.
VIEW_LABELS = {"error_vs_size": "Error vs size", "distance_vs_size": "Distance vs size",
               "points_and_weights": "Points and weights", "publish": "Publish"}
VIEWS = tuple(VIEW_LABELS)
#: Split of the total ε into (ε₁ ranks, ε₂ weights, ε₃ selects), as ratios: the page's ε is the
#: total a run costs (:func:`split_epsilon`), so the paper's 0.8 : 0.2 : 1 at its ε is the
#: total 2ε here.
SPLITS = {
    "0.8 : 0.2 : 1 (Sect. 5.1)": (0.8, 0.2, 1.0),
    "1 : 1 : 1 (Sect. 5.2)": (1.0, 1.0, 1.0),
    "0.5 : 1 : 0.5": (0.5, 1.0, 0.5),
    "0.4 : 0.2 : 0.4": (0.4, 0.2, 0.4),
}
#: The ε slider's values: the common ones and 6, the total the paper's ε = 3 costs under its
#: split 0.8 : 0.2 : 1 (its ε = 0.5 and 1 cost 1 and 2).
SLIDER_EPSILONS = tuple(sorted({*EPSILONS, 6.0}))
GRIDS = ("Paper, low dimension: 10, 60, … (60 sizes)",
         "Paper, high dimension: 100, 300, … (50 sizes)",
         "Coarse: 13 sizes over all of E", "Custom",
         "Low dimension from 10 points per coefficient")
#: The page's default grid (:data:`GRIDS`' last): the paper's low-dimension sizes from
#: :data:`POINTS_PER_COEFFICIENT` points per coefficient of the logistic fit.
DEFAULT_GRID = GRIDS[4]
#: The smallest candidate of :data:`DEFAULT_GRID`, per coefficient of the logistic fit (the
#: covariates and the intercept): the usual "ten events per variable" of logistic regression
#: (Peduzzi et al. 1996), a convention, not tuned. Smaller subsets give a fit that is mostly
#: noise; under a near-uniform selection (:data:`NEAR_UNIFORM_RATIO`) Algorithm 2 then releases
#: them as often as any other size. Public: the number of coefficients follows from the columns.
POINTS_PER_COEFFICIENT = 10
COARSE = (10, 30, 100, 300, 600, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 10000)
#: Sets of runs kept with a prepared part (the oldest dropped first): every ε of the slider,
#: for two settings of the other controls (with fewer than the slider's values, a walk across
#: the slider found none of them kept: each evicted the one it would need next).
RUNS_KEPT = 2 * len(SLIDER_EPSILONS)
#: The privacy loss of Lei's histogram, by ``Params.lei_budget``: the paper's ε₁ + ε₂ ([WJ18]_
#: Sect. 5.1, "to make it fair to the perturbed histogram method") or Algorithm 2's total.
LEI_BUDGETS = {"paper": "ε₁ + ε₂ (the paper's)", "total": "ε₁ + ε₂ + ε₃ (Algorithm 2's total)"}
#: Cells per axis of Lei's histogram offered on the page; None: the rule
#: ⌈(n_D ε)^(1/(p+2))⌉ of :func:`dpcore.subset.lei_bins` (the paper states none).
LEI_BINS = (None, 5, 8, 10, 12, 14, 16, 20, 30, 50)
#: The page says that the selection is close to uniform when, in every repeat, no candidate is
#: more than this many times as likely to be selected as another (max/min probability ratio).
#: A convention: at 2 the selection's log-odds between any two sizes stay within ln 2.
NEAR_UNIFORM_RATIO = 2.0


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The page's controls (widget keys ``sub_<field>``; λ is ``sub_lambda``).

    Parameters
    ----------
    seed : int
        The page's simulation seed (``sub_seed``).
    epsilon : float, default=3.0
        The total ε a run costs (calibrated accounting), shared by ``split`` into (ε₁, ε₂,
        ε₃).
    split : str
        A key of :data:`SPLITS`.
    accounting : {"calibrated", "as-printed"}
    selection : {"exponential", "noisy-curve"}
        The calibrated selection (the as-printed accounting always selects by its noisy curve).
    grid : str
        One of :data:`GRIDS`; ``start``, ``step`` and ``count`` define the custom one.
    start, step, count : int
    lambda_ : float, default=0.01
        L2 penalty of every logistic fit (``sub_lambda``): the paper's. The page opens a new
        scenario at :func:`default_lambda` (cross-validated on E); the paper's slides keep
        0.01.
    reps : int, default=3
        Independent runs of Algorithm 2 on the same D and E.
    view : str
        One of :data:`VIEWS` (a label reads as its key, None as the first).
    size : int or None, default=None
        The inspected candidate size; None (or a size off the grid): the size Algorithm 2
        selected in repeat 1.
    lei_budget : {"paper", "total"}, default="paper"
        Lei's privacy loss (:data:`LEI_BUDGETS`): ε₁ + ε₂ as the paper, or ε₁ + ε₂ + ε₃.
    lei_bins : int or None, default=None
        Lei's cells per axis (one of :data:`LEI_BINS`); None: the rule of
        :func:`dpcore.subset.lei_bins`.
    """

    PREFIX = "sub_"
    #: What only :func:`at` reads: all but λ (the seed too: see :meth:`prepare_key`).
    CHEAP: ClassVar[tuple[str, ...]] = ("epsilon", "split", "accounting", "selection", "grid",
                                        "start", "step", "count", "reps", "view", "size",
                                        "lei_budget", "lei_bins")
    VIEW_LABELS: ClassVar[dict[str, str]] = VIEW_LABELS

    epsilon: float = 3.0
    split: str = next(iter(SPLITS))
    accounting: str = "calibrated"
    selection: str = "exponential"
    grid: str = DEFAULT_GRID
    start: int = 10
    step: int = 50
    count: int = 30
    lambda_: float = 0.01
    reps: int = 3
    view: str = VIEWS[0]
    size: int | None = None
    lei_budget: str = "paper"
    lei_bins: int | None = None

    def prepare_key(self) -> tuple:
        """What :func:`prepare` reads: λ; not the seed (the prepared part draws no noise)."""
        return (type(self).__qualname__, self.lambda_)


#: The page's controls (widget keys of pages/subset.py) with their defaults. ``sub_size`` None:
#: the size Algorithm 2 selected in repeat 1 (what the page's size slider starts at).
CONTROLS: dict[str, Any] = Params.defaults()
SEED_KEY = Params.seed_key()
#: The values each control can take, as the page draws it (:mod:`dpcore.domains`). A
#: subset size is at most the number of public rows, which an upload of at most
#: ``MAX_UPLOAD_BYTES`` (two bytes a row at least) bounds.
DOMAINS = {
    "sub_epsilon": OneOf(SLIDER_EPSILONS), "sub_split": OneOf(tuple(SPLITS)),
    "sub_accounting": OneOf(("calibrated", "as-printed")),
    "sub_selection": OneOf(("exponential", "noisy-curve")), "sub_grid": OneOf(GRIDS),
    "sub_start": Between(1, 100_000, integer=True), "sub_step": Between(1, 100_000, integer=True),
    "sub_count": Between(2, 100, integer=True), "sub_lambda": OneOf(LAMBDAS),
    "sub_reps": OneOf((1, 2, 3, 5, 10)), "sub_view": ViewOf(VIEW_LABELS),
    "sub_size": Between(1, MAX_UPLOAD_BYTES // 2, integer=True, optional=True),
    "sub_lei_budget": OneOf(tuple(LEI_BUDGETS)), "sub_lei_bins": OneOf(LEI_BINS), SEED_KEY: SEED,
}
#: Controls that the page fills in from its study of D when the user has not set them (the
#: size Algorithm 2 selected, from a seeded run on the private data). The config and the link
#: of an upload leave them unset, so that nothing computed from a private file is shared.
SET_FROM_DATA = ("sub_size",)


def split_epsilon(epsilon: float, split: str) -> tuple[float, float, float]:
    """``(ε₁, ε₂, ε₃)`` of the split named ``split`` (a key of :data:`SPLITS`): the total
    ``epsilon`` shared in the split's ratios, so that ε₁ + ε₂ + ε₃ = ε.

    >>> split_epsilon(4.0, "0.8 : 0.2 : 1 (Sect. 5.1)")
    (1.6, 0.4, 2.0)
    """
    if split not in SPLITS:
        raise DataError(f"Unknown split {split!r}; expected one of {list(SPLITS)}.")
    ratios = SPLITS[split]
    return tuple(float(epsilon) * r / sum(ratios) for r in ratios)


def default_lambda(scenario: Scenario) -> float:
    """The page's λ for ``scenario``: :func:`dpcore.model_selection.cv_penalty` of the logistic
    regression of the target on the covariates, fitted to the public set E alone after Step 1
    (each distinct point as many times as E holds it), by the one-standard-error rule: every
    DP estimate is fitted to a few points with noisy weights, so of the penalties E cannot tell
    apart it takes the largest.

    Public information only: E rescaled by its own ranges (what Step 1 does to E, whatever D
    holds), so it spends nothing and two private sets give the same λ. The values are the λ
    slider's (:data:`~dpcore.domains.LAMBDAS`); a tie goes to the larger λ.
    """
    if scenario.target is None:
        raise DataError("The optimal-subset page fits a logistic regression: choose a scenario "
                        "with a 0/1 target.")
    public = rescale(scenario.public, scenario.public, **scenario_arguments(scenario))
    X, y = design(np.repeat(public.public, public.multiplicity, axis=0), public.target)
    return cv_penalty(X, y, LAMBDAS, one_se=True)


def lei_applies(scenario: Scenario | None) -> bool:
    """Whether the page draws Lei's histogram for ``scenario``: at most
    :data:`~dpcore.subset.baselines.LEI_MAX_DIM` covariates (the scenario's d features: every
    encoded column but the target's, as :func:`prepare` rescales them). Its controls are shown
    only then.

    Examples
    --------
    >>> from dpcore.datasets import load_scenario
    >>> lei_applies(load_scenario("mvn-shift", p=2)), lei_applies(load_scenario("wine"))
    (True, False)
    """
    return scenario is not None and scenario.d <= LEI_MAX_DIM


def lei_epsilon(epsilons: tuple[float, float, float], budget: str) -> float:
    """Lei's privacy loss under ``budget`` (a key of :data:`LEI_BUDGETS`) at split ``epsilons``.

    >>> lei_epsilon((0.8, 0.2, 1.0), "paper"), lei_epsilon((0.8, 0.2, 1.0), "total")
    (1.0, 2.0)
    """
    if budget not in LEI_BUDGETS:
        raise DataError(f"Unknown Lei budget {budget!r}; expected one of {list(LEI_BUDGETS)}.")
    e1, e2, e3 = epsilons
    return e1 + e2 + (e3 if budget == "total" else 0.0)


def grid_sizes(grid: str, n_public: int, start: int = 10, step: int = 50,
               count: int = 30, *, coefficients: int = 1) -> np.ndarray:
    """The candidate sizes of the grid named ``grid`` (one of :data:`GRIDS`) within ``n_public``
    distinct public points; ``start``, ``step`` and ``count`` define the custom one,
    ``coefficients`` (the covariates and the intercept) the floor of :data:`DEFAULT_GRID`, whose
    sizes are the paper's low-dimension ones from ``POINTS_PER_COEFFICIENT * coefficients`` on
    (all of them when fewer than two reach it).

    >>> grid_sizes(GRIDS[2], 2500).tolist()
    [10, 30, 100, 300, 600, 1000, 1500, 2000, 2500]
    >>> grid_sizes(GRIDS[3], 2500, start=100, step=1000, count=5).tolist()
    [100, 1100, 2100]
    >>> grid_sizes(DEFAULT_GRID, 420, coefficients=8).tolist()
    [110, 160, 210, 260, 310, 360, 410]
    """
    if grid == GRIDS[0]:
        return paper_sizes(2, n_public)
    if grid == DEFAULT_GRID:
        sizes = paper_sizes(2, n_public)
        kept = sizes[sizes >= POINTS_PER_COEFFICIENT * int(coefficients)]
        return kept if kept.size >= 2 else sizes
    if grid == GRIDS[1]:
        return paper_sizes(100, n_public)
    if grid == GRIDS[2]:
        return np.array([s for s in COARSE if s < n_public] + [n_public])
    if grid != GRIDS[3]:
        raise DataError(f"Unknown grid {grid!r}; expected one of {list(GRIDS)}.")
    sizes = int(start) + int(step) * np.arange(int(count))
    return sizes[sizes <= n_public]


def grids_not_offered(scenario: Scenario) -> dict[str, str]:
    """The grids of :data:`GRIDS` that the page does not offer on ``scenario``'s public set E,
    each mapped to the grid offered in its place.

    Left out: a grid whose candidate sizes within E's distinct points repeat those of a grid
    before it (the paper's low-dimension grid, when :data:`DEFAULT_GRID` falls back to it
    because fewer than two of its sizes reach :data:`POINTS_PER_COEFFICIENT` points per
    coefficient), and one with fewer than two sizes (Algorithm 2 needs two; the paper's
    high-dimension grid on a few hundred points), which gives way to :data:`DEFAULT_GRID`.
    :data:`DEFAULT_GRID` comes first and is always offered, then :data:`GRIDS`' order; so is the
    custom grid (its sizes are the user's). Public information only: E rescaled by its own
    ranges, as in :func:`default_lambda` (Step 1 finds E's distinct points and the coefficients
    from E alone).

    Examples
    --------
    >>> from dpcore.datasets import load_scenario
    >>> for grid, instead in grids_not_offered(load_scenario("breast-cancer")).items():
    ...     print(f"{grid} -> {instead}")  # 284 distinct points, 31 coefficients
    Paper, low dimension: 10, 60, … (60 sizes) -> Low dimension from 10 points per coefficient
    Paper, high dimension: 100, 300, … (50 sizes) -> Low dimension from 10 points per coefficient
    >>> grids_not_offered(load_scenario("adult"))  # 7,399 points, 112 coefficients
    {}
    """
    public = rescale(scenario.public, scenario.public, **scenario_arguments(scenario))
    offered: dict[tuple[int, ...], str] = {}
    left_out: dict[str, str] = {}
    for grid in (DEFAULT_GRID, *(g for g in GRIDS if g not in (DEFAULT_GRID, GRIDS[3]))):
        sizes = tuple(grid_sizes(grid, public.n_public,
                                 coefficients=len(public.covariates) + 1).tolist())
        if sizes in offered:
            left_out[grid] = offered[sizes]
        elif len(sizes) < 2 and grid != DEFAULT_GRID:
            left_out[grid] = DEFAULT_GRID
        else:
            offered[sizes] = grid
    return left_out


class StudyRuns:
    """:func:`dpcore.subset.run_study` (and :func:`dpcore.subset.lei_errors`) on one setup,
    each set of runs computed once.

    The last :data:`RUNS_KEPT` sets of each are kept. Thread safe (one lock for the tables, the
    runs computed outside it: they are seeded, so two threads computing the same set get the
    same numbers), and picklable without its lock.

    Parameters
    ----------
    setup : dpcore.subset.StudySetup
        What every run reads (:func:`dpcore.subset.prepare_study`).
    """

    def __init__(self, setup: StudySetup) -> None:
        self.setup = setup
        self.kept: OrderedDict[tuple, SubsetStudy] = OrderedDict()
        self.kept_lei: OrderedDict[tuple, tuple[np.ndarray, int]] = OrderedDict()
        self.kept_selection: OrderedDict[tuple, dict[str, float]] = OrderedDict()
        self.kept_plane: tuple[np.ndarray, np.ndarray, tuple[str, str]] | None = None
        self.computed = 0  # sets of Algorithm 2 runs computed so far (the others were kept)
        self.lock = threading.Lock()

    def _kept(self, table: OrderedDict, compute: Callable[..., Any],
              arguments: dict[str, Any]) -> tuple[Any, bool]:
        """``compute(setup, **arguments)`` from ``table`` or computed (and kept); whether it was
        computed."""
        key = tuple(sorted(arguments.items()))
        with self.lock:
            if key in table:
                table.move_to_end(key)
                return table[key], False
        value = compute(self.setup, **arguments)
        with self.lock:
            table[key] = value
            while len(table) > RUNS_KEPT:
                table.popitem(last=False)
        return value, True

    def __call__(self, **arguments: Any) -> SubsetStudy:
        """The runs of ``run_study(setup, **arguments)``."""
        study, computed = self._kept(self.kept, run_study, arguments)
        if computed:
            with self.lock:
                self.computed += 1
        return study

    def lei(self, **arguments: Any) -> tuple[np.ndarray, int]:
        """``lei_errors(setup, **arguments)``: Lei's errors and its cells per axis."""
        return self._kept(self.kept_lei, lei_errors, arguments)[0]

    def selection(self, **arguments: Any) -> dict[str, float]:
        """How uniform step 6's selection is in the runs of ``arguments`` (integrating a noisy
        argmin takes about 0.1 s a repeat, so it is kept with them)."""
        return self._kept(self.kept_selection,
                          lambda _setup, **a: _selection_metrics(self(**a)), arguments)[0]

    def plane(self) -> tuple[np.ndarray, np.ndarray, tuple[str, str]]:
        """:func:`dpcore.subset.display_plane` of the data, computed when the points view first
        needs it (a principal-axes fit of E that no other view reads) and kept."""
        if self.kept_plane is None:
            plane = display_plane(self.setup.data)
            with self.lock:
                self.kept_plane = plane
        return self.kept_plane

    def __getstate__(self) -> dict[str, Any]:
        return {"setup": self.setup, "kept": self.kept, "kept_lei": self.kept_lei,
                "kept_selection": self.kept_selection, "kept_plane": self.kept_plane,
                "computed": self.computed}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()


class PreparedStudy(NamedTuple):
    """What :func:`prepare` computes once per scenario and λ (non-private, never shown as it
    is).

    Attributes
    ----------
    setup : dpcore.subset.StudySetup
        Step 1's data, ``theta_D``, the nearest points and neighbour lists, the public-only
        baseline.
    runs : StudyRuns
        :func:`dpcore.subset.run_study` on ``setup``, keyword arguments only, each set of runs
        computed once; also the display plane of the points view (:meth:`StudyRuns.plane`),
        computed when that view is first shown.
    """

    setup: StudySetup
    runs: StudyRuns


def prepare(scenario: Scenario, params: Params, *,
            progress: Callable[[float], None] | None = None,
            parallel: Any = None) -> PreparedStudy:
    """Step 1, ``theta_D``, the nearest public points (and the neighbour lists every run reads)
    and the public-only baseline; the display plane waits for the points view.

    Parameters
    ----------
    scenario : dpcore.datasets.Scenario
        Needs a 0/1 target (the page fits a logistic regression).
    params : Params
        Reads λ only (:meth:`Params.prepare_key`).
    progress : callable(fraction), optional
    parallel : ignored
        Everything runs in this process (the study draws repeat ``r`` from
        ``stream(seed, "subset", r)``, so the numbers do not depend on where it runs).

    Returns
    -------
    PreparedStudy
    """
    if scenario.target is None:
        raise DataError("The optimal-subset page fits a logistic regression: choose a scenario "
                        "with a 0/1 target.")
    data = rescale(scenario.private, scenario.public, **scenario_arguments(scenario))
    if progress is not None:
        progress(0.1)
    setup = prepare_study(data, lam=params.lambda_)
    return PreparedStudy(setup, StudyRuns(setup))


def candidate_sizes(prepared: PreparedStudy, params: Params) -> np.ndarray:
    """The candidate sizes of ``params``'s grid within the distinct public points (at least
    two, else a :class:`~dpcore.validation.DataError` that says what to change)."""
    data = prepared.setup.data
    n_public = data.n_public
    sizes = grid_sizes(params.grid, n_public, params.start, params.step, params.count,
                       coefficients=len(data.covariates) + 1)
    if sizes.size < 2:
        raise DataError(f"The grid has fewer than two sizes within the {n_public:,} "
                        "distinct public points: lower the first size or the step.")
    return sizes


def at(prepared: PreparedStudy, params: Params) -> dict[str, pd.DataFrame]:
    """The page's numbers at ``params``: ``metrics`` (one row) and the table(s) of its view.

    Runs Algorithm 2's ``params.reps`` repeats on the grid at the split ε (once per ε, split,
    grid, accounting, selection, repeats and seed: kept in ``prepared.runs``), and Lei's
    histogram at its budget and bins (kept likewise) when there are at most 3 covariates.

    Returns
    -------
    dict of str to DataFrame
    """
    eps = split_epsilon(params.epsilon, params.split)
    accounting = params.accounting
    selection = params.selection if accounting == "calibrated" else "exponential"
    sizes = tuple(int(s) for s in candidate_sizes(prepared, params))
    arguments = {"epsilon": eps, "sizes": sizes, "repeats": int(params.reps),
                 "accounting": accounting, "selection": selection, "lei": False,
                 "rng": int(params.seed)}
    study = prepared.runs(**arguments)
    data = prepared.setup.data
    size = params.size  # the page's size slider: one of the sizes, else the selected one
    size = int(study.sizes[study.selected[0]]) if size not in sizes else int(size)
    j = sizes.index(size)
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
    metrics.update(prepared.runs.selection(**arguments))
    metrics.update(_lei_metrics(prepared, params, eps))
    numbers = {"metrics": pd.DataFrame([metrics])}
    view = params.view
    if view == "error_vs_size":
        numbers.update(_error_tables(study))
    elif view == "distance_vs_size":
        numbers["distance_curve_nonprivate"] = pd.DataFrame({
            "size": study.sizes.astype(int), "distance_nonprivate": study.distance.mean(axis=0)})
    elif view == "points_and_weights":
        numbers.update(_points_tables(study, prepared, size, j))
    return numbers


def _selection_metrics(study: SubsetStudy) -> dict[str, float]:
    """How far step 6's selection is from a uniform draw over the sizes (non-private: from the
    noise-free criteria): the largest max/min probability ratio over the repeats and the mean
    total-variation distance to uniform."""
    probabilities = study.selection_probabilities()
    k = probabilities.shape[1]
    lowest = probabilities.min(axis=1)
    ratio = np.where(lowest > 0, probabilities.max(axis=1) / np.maximum(lowest, 1e-300), np.inf)
    return {"selection_max_min_ratio_nonprivate": float(ratio.max()),
            "selection_tv_to_uniform_nonprivate": float(
                0.5 * np.abs(probabilities - 1.0 / k).sum(axis=1).mean())}


def _lei_metrics(prepared: PreparedStudy, params: Params,
                 eps: tuple[float, float, float]) -> dict[str, float]:
    """Lei's histogram (at most :data:`~dpcore.subset.baselines.LEI_MAX_DIM` covariates): its ε,
    its cells per axis and its mean error (non-private evaluation); nothing for more."""
    if len(prepared.setup.data.covariates) > LEI_MAX_DIM:
        return {}
    epsilon = lei_epsilon(eps, params.lei_budget)
    errors, bins = prepared.runs.lei(epsilon=epsilon, bins=params.lei_bins,
                                     repeats=int(params.reps), rng=int(params.seed))
    return {"lei_epsilon": epsilon, "lei_bins": bins,
            "lei_error_mean_nonprivate": float(np.mean(errors))}


def near_uniform_note(metrics: pd.Series) -> str | None:
    """What the page says when step 6 selects nearly uniformly (:data:`NEAR_UNIFORM_RATIO`),
    from the metrics of :func:`at`; None otherwise."""
    ratio = float(metrics["selection_max_min_ratio_nonprivate"])
    if ratio > NEAR_UNIFORM_RATIO:
        return None
    return (
        f"The selection is close to a uniform draw over the {int(metrics['n_sizes'])} sizes: "
        f"with the criterion's sensitivity S = {metrics['sensitivity_bound']:.3g} and "
        f"ε₃ = {metrics['epsilon3']:.3g}, no size is more than {ratio:.3g} times as likely to "
        f"be selected as any other (total-variation distance "
        f"{metrics['selection_tv_to_uniform_nonprivate']:.2g} from a uniform pick; non-private "
        "evaluation from the noise-free errors). Which size Algorithm 2 releases then says "
        "little about the error curve: a larger ε₃ or λ (a smaller S) makes the choice count."
    )


def _error_tables(study: SubsetStudy) -> dict[str, pd.DataFrame]:
    """The error curves (Figs 5-6): mean and SD per size, per repeat, the selected sizes."""
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
    repeats = np.repeat(np.arange(1, study.repeats + 1), study.sizes.size)
    return {
        "error_curve": pd.DataFrame(curve),
        "error_by_repeat": pd.DataFrame({
            "repeat": repeats, "size": np.tile(study.sizes.astype(int), study.repeats),
            "dp_error_nonprivate": study.dp_curves.ravel(),
            "hybrid_error_nonprivate": study.hybrid_curves.ravel()}),
        "selected": pd.DataFrame({
            "repeat": np.arange(1, study.repeats + 1),
            "selected_size": study.sizes[study.selected].astype(int),
            "dp_error_nonprivate": study.selected_error}),
    }


def _points_tables(study: SubsetStudy, prepared: PreparedStudy, size: int,
                   j: int) -> dict[str, pd.DataFrame]:
    """Repeat 1's DP weights of candidate ``j`` (of ``size`` points) on the display plane
    (Figs 2-3), its estimate next to ``theta_D`` and a summary of its weights."""
    data, first = prepared.setup.data, study.first
    public_xy, private_xy, labels = prepared.runs.plane()
    weights = np.zeros(data.n_public)
    weights[first.order] = first.candidate_weights[:, j]
    in_subset = np.zeros(data.n_public, dtype=bool)
    in_subset[first.order[:size]] = True
    w = first.candidate_weights[:size, j]
    return {
        "public_points": pd.DataFrame({"x": public_xy[:, 0], "y": public_xy[:, 1],
                                       "dp_weight": weights, "in_subset": in_subset}),
        "private_points_nonprivate": pd.DataFrame({"x": private_xy[:, 0],
                                                   "y": private_xy[:, 1]}),
        "axes": pd.DataFrame({"axis": ["x", "y"], "label": list(labels)}),
        "estimate": pd.DataFrame({
            "coefficient": [data.columns[k] for k in data.covariates] + ["intercept"],
            "dp_estimate": first.estimates[j], "theta_D_nonprivate": first.reference}),
        "subset_summary": pd.DataFrame([{
            "points_released": size, "total_dp_weight": float(w.sum()),
            "share_of_weights_at_0": float(np.mean(w == 0)), "largest_weight": float(w.max())}]),
    }


def compute(scenario: Scenario, params: Params, *,
            progress: Callable[[float], None] | None = None,
            parallel: Any = None) -> dict[str, pd.DataFrame]:
    """``at(prepare(scenario, params), params)``: the page's numbers in one call."""
    return at(prepare(scenario, params, progress=progress, parallel=parallel), params)


def takeaway(numbers: Mapping[str, pd.DataFrame], params: Params) -> str:
    """Two sentences on the selected size and its error, from the numbers."""
    m = numbers["metrics"].iloc[0]
    first = (f"At ε = {float(params.epsilon):g} (spent {m['epsilon_spent']:.3g} per run), "
             f"Algorithm 2 selected {int(m['selected_size_repeat1']):,} of "
             f"{int(m['n_public']):,} public points in repeat 1.")
    selected = numbers.get("selected")
    if selected is not None:
        errors = selected["dp_error_nonprivate"].to_numpy(dtype=float)
        low, high = float(errors.min()), float(errors.max())
        spread = f"{low:.3g}" if f"{low:.3g}" == f"{high:.3g}" else f"{low:.3g} to {high:.3g}"
        second = (f"The subset{'s' if errors.size > 1 else ''} it selected "
                  f"predict{'s' if errors.size == 1 else ''} with an error of {spread} "
                  f"over {errors.size} repeat{'s' if errors.size > 1 else ''} (what the "
                  "algorithm delivers; non-private evaluation), against "
                  f"{m['public_only_error_nonprivate']:.3g} for the public set alone.")
    else:
        second = (f"At size {int(m['inspected_size']):,} the DP estimate's error is "
                  f"{m['error_here_nonprivate']:.3g} (non-private evaluation), against "
                  f"{m['public_only_error_nonprivate']:.3g} for the public set alone.")
    return f"{first} {second}"
