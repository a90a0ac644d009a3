"""The private logistic regression page's study ([CM08]_ Figs. 2a-d, Lemmas 3-4).

Every view is a seeded simulation (restarts are noise draws), not a release; the "Publish"
view's release draws fresh OS entropy and cannot be recomputed, so a run of that view gives the
headline numbers only. The study runs in two stages (:mod:`dpcore.studies.base`):
:func:`prepare` builds the training data, chooses λ on public data (CV), prepares every split,
fits the non-private models when λ does not depend on ε, and computes the curve on the chosen
ε grid (:data:`EPSILON_GRIDS`); :func:`at` draws what ε changes. The data, the splits and the
non-private reference at its own best λ read no λ: :func:`shared` computes them, and a page
keeps them apart (``prepare``'s ``keep``), so a λ typed by hand reuses them.

Every ε of a curve is computed as if alone: each split's private methods draw its noise from the
stream of (seed, method, split), the same for every ε (common random numbers: two points of a
curve differ by ε, not by the draw), and objective perturbation solves the restarts of one ε,
both calibrations (2011 and 2008), in one batch. Under the rule of (ε, n, d) each ε has its own
λ, so the curve is the rule's at every point, not the λ of the slider's ε everywhere. So the
rows at an ε do not depend on which other ε are computed: :func:`prepare` computes the grid's
(and, for a fixed λ, the non-private fits) once, and an ε move computes at most the one ε off the
grid.

References
----------
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd

from dpcore.datasets.dimension import Dimension
from dpcore.domains import EPSILONS, SEED, OneOf, ViewOf
from dpcore.perturbation.experiments import (
    LAMBDA_MODES,
    SYNTHETIC,
    Fitted,
    Split,
    epsilon_splits,
    fit_best,
    fit_split,
    guessing_error,
    lambda_by_cv,
    lambda_rule,
    learning_splits,
    lemma_bounds,
    scenario_arrays,
    split_rows,
    summarise,
    swamped_methods,
)
from dpcore.perturbation.synthetic import synthetic
from dpcore.random import stream
from dpcore.simulation import Progress, report
from dpcore.studies.base import Keep, StudyParams, check_prepared, computed
from dpcore.threads import threads
from dpcore.validation import DataError

__all__ = ["CONTROLS", "DOMAINS", "SEED_KEY", "VIEWS", "VIEW_LABELS", "SOURCES", "SYNTHETIC",
           "EPSILON_GRID",
           "PAPER_EPSILON_GRID", "PAPER_GRID", "EPSILON_GRIDS", "PAPER_LAMBDA",
           "LAMBDAS", "CV_LAMBDAS", "SIZES", "SYNTHETIC_TEST", "LAMBDA_MODES", "PAPER_N",
           "STAGES", "Params", "Shared", "Prepared", "TrainingData", "n_options", "training_data",
           "public_data", "cv_lambda", "study_lambda", "epsilon_axis", "learning_sizes",
           "bound_curves", "best_metrics", "shared", "prepare",
           "at", "compute", "takeaway"]

#: The page's views by key, with the label the page shows.
VIEW_LABELS = {"error_vs_epsilon": "Error vs ε", "learning_curve": "Learning curve",
               "distance": "Distance to non-private", "bounds": "Bounds (Lemmas 3-4)",
               "publish": "Publish"}
VIEWS = tuple(VIEW_LABELS)
SOURCES = ("Scenario (sidebar)", "Paper: separable sphere", "Paper: noisy sphere")
EPSILON_GRID = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
#: Threads on which :func:`prepare` computes the ε rows of its curve at once.
EPSILON_THREADS = 2
#: The ε region of [CM08]_ Figs. 1 and 2c-d. The paper prints no ε for its curves' axis here,
#: but its Fig. 1 errors are reproduced at ε ≈ 0.02 and its text places the crossing of the two
#: curves "for very small ε", where both are close to chance: from 0.001 (both near chance)
#: to 1 (both at the non-private error). ``docs/paper-notes.md`` records what reproduces.
PAPER_EPSILON_GRID = (0.001, 0.002, 0.003, 0.004, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
#: The name the page gives :data:`PAPER_EPSILON_GRID`.
PAPER_GRID = "0.001 to 1 (the paper's Figs. 1-2)"
#: The ε grids a curve against ε can be drawn on, by the name the page offers.
EPSILON_GRIDS = {"0.1 to 10": EPSILON_GRID, PAPER_GRID: PAPER_EPSILON_GRID}
#: The λ of [CM08]_ Sect. 6 (tuned by the paper on a holdout set, the same for both data sets).
PAPER_LAMBDA = 0.01
LAMBDAS = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1.0)
CV_LAMBDAS = LAMBDAS[::2]  # decades: 3-fold CV over 6 values
SIZES = (100, 200, 500, 1000, 2000, 5000, 10_000, 17_500, 20_000, 50_000)
SYNTHETIC_TEST = 10_000
PAPER_N = 17_500
_STREAM = "perturbation page"
#: What :func:`prepare` builds for each view: the ε curve (with the excess training loss for
#: the bounds), the learning curve, or the data alone (Publish: its numbers are the headline).
STAGES = {"error_vs_epsilon": "curve", "distance": "curve", "bounds": "curve with excess loss",
          "learning_curve": "learning curve", "publish": "data"}
_CURVES = ("curve", "curve with excess loss")
#: The splits each stage prepares (:func:`shared`): the ε curves share theirs.
_SPLITS = {"curve": "epsilon", "curve with excess loss": "epsilon",
           "learning curve": "learning", "data": "none"}
_LAMBDA_KEY = "lr_lambda"  # the field ``lam`` (:attr:`Params.KEYS`)



@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The private logistic regression page's controls (widget keys ``lr_<field>``).

    Parameters
    ----------
    source : str, default="Scenario (sidebar)"
        The training data: the scenario's D, or the paper's synthetic sphere data
        (:data:`SOURCES`).
    epsilon : float, default=1.0
        The chosen budget: the only field an ε move changes (:func:`at`).
    lambda_mode : str, default="rule of (ε, n, d)"
        How λ is chosen (:data:`LAMBDA_MODES`); under the rule λ depends on ε.
    lam : float, default=0.01
        The hand-set λ (widget ``lr_lambda``), read only in the mode "set by hand".
    n : int, default=17500
        Training rows (capped at the data's size).
    restarts : int, default=10
        Noise draws per fold and ε.
    view : str, default="error_vs_epsilon"
        One of :data:`VIEWS` (a label reads as its key, None as the first).
    grid : str, default="0.1 to 10"
        The ε grid of the curves against ε (a key of :data:`EPSILON_GRIDS`).
    seed : int, default=0
        The simulation seed (``lr_seed``).
    """

    PREFIX = "lr_"
    KEYS: ClassVar[dict[str, str]] = {"lam": _LAMBDA_KEY}
    VIEW_LABELS: ClassVar[dict[str, str]] = VIEW_LABELS

    source: str = SOURCES[0]
    epsilon: float = 1.0
    lambda_mode: str = LAMBDA_MODES[0]
    lam: float = 0.01
    n: int = PAPER_N
    restarts: int = 10
    view: str = VIEWS[0]
    grid: str = next(iter(EPSILON_GRIDS))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.grid not in EPSILON_GRIDS:
            raise ValueError(f"lr_grid == {self.grid!r}; choose one of {list(EPSILON_GRIDS)}.")

    @property
    def epsilons(self) -> tuple[float, ...]:
        """The ε grid of the curves against ε (:data:`EPSILON_GRIDS`)."""
        return EPSILON_GRIDS[self.grid]

    @property
    def fixed_lambda(self) -> bool:
        """Whether λ is the same at every ε (set by hand or by CV), not the rule's."""
        return self.lambda_mode != LAMBDA_MODES[0]

    def stage(self) -> str:
        """What :func:`prepare` builds for the view (:data:`STAGES`)."""
        return STAGES[self.view]

    def prepare_key(self) -> tuple:
        """What :func:`prepare` reads: every field but ε, with the view only as its
        :meth:`stage` (so "Error vs ε" and "Distance to non-private" share it), the hand-set λ
        only when it is used, and the restarts only when the grid's curve is prepared (the ε
        curve views), as the grid."""
        stage = self.stage()
        unread = {"view"}
        if self.lambda_mode != LAMBDA_MODES[1] or stage == "data":
            unread.add("lam")
        if stage not in _CURVES:
            unread.update(("restarts", "grid"))
        key = (item for item in super().prepare_key()
               if not (isinstance(item, tuple) and item[0] in unread))
        return (*key, ("stage", stage))

    def shared_key(self) -> tuple:
        """What :func:`shared` reads: the data (source, n, seed) and which splits the view's
        stage prepares; neither ε, λ nor how λ is chosen, nor the restarts or the grid."""
        return (type(self).__qualname__, self.seed, ("source", self.source), ("n", self.n),
                ("splits", _SPLITS[self.stage()]))


SEED_KEY = Params.seed_key()
#: Every control the page's numbers depend on, with the page's defaults.
CONTROLS: dict[str, Any] = Params.defaults()
#: The values each control can take, as the page draws it (:mod:`dpcore.domains`).
DOMAINS = {
    "lr_source": OneOf(SOURCES), "lr_epsilon": OneOf(EPSILONS),
    "lr_lambda_mode": OneOf(LAMBDA_MODES), _LAMBDA_KEY: OneOf(LAMBDAS), "lr_n": OneOf(SIZES),
    "lr_restarts": OneOf((5, 10, 20, 50)), "lr_grid": OneOf(tuple(EPSILON_GRIDS)),
    "lr_view": ViewOf(VIEW_LABELS), SEED_KEY: SEED,
}


class TrainingData(NamedTuple):
    """The study's training rows, its held-out rows (None: 3-fold cross-validation), the records'
    norm bound (from the domain, never the data), whether to fit an intercept, a label, and the
    encoded columns of the target (0 for the paper's synthetic data): d is ``X``'s width."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    norm: float
    intercept: bool
    where: str
    target_columns: int = 0

    @property
    def dimension(self) -> Dimension:
        """d of the training data (:mod:`dpcore.datasets.dimension`)."""
        return Dimension(self.X.shape[1], self.target_columns)


def n_options(scenario, source: str) -> tuple[int, ...]:
    """The training sizes that change something: :data:`SIZES` up to the first that takes all
    the rows there are (the scenario's ``N_D``, public, or the paper's synthetic
    :data:`PAPER_N`), so that every step of the slider trains on a different n.

    Examples
    --------
    >>> n_options(None, SOURCES[1])[-1]
    17500
    """
    rows = PAPER_N if source in SYNTHETIC or scenario is None else len(scenario.private)
    fewer = tuple(size for size in SIZES if size < rows)
    return fewer + (next((size for size in SIZES if size >= rows), SIZES[-1]),)


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
    if scenario is None:
        raise DataError("No scenario to train on: choose a scenario in the sidebar, or the "
                        "paper's synthetic data as training data.")
    arrays = scenario_arrays(scenario)
    n = min(n_choice, arrays.X.shape[0])
    take = stream(seed, _STREAM, "rows").permutation(arrays.X.shape[0])[:n]
    onehot = all(scenario.kinds.get(g) == "onehot" for g, cols in scenario.groups.items()
                 if any(c in arrays.features for c in cols))
    return TrainingData(arrays.X[take], arrays.y[take], arrays.X_test, arrays.y_test,
                        arrays.data_norm, not onehot, f"{scenario.title}, n = {n:,}",
                        scenario.dimension.target_columns)


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
                 lam_at: Callable[[float], float]) -> pd.DataFrame:
    """Lemmas 3-4's bounds on a fine ε grid, for the rows a fit trains on, each ε at its own
    λ (``lam_at(ε)``: one value when λ is fixed, the rule's λ(ε) otherwise)."""
    n_fit = n if held_out else n - n // 3
    return pd.concat([lemma_bounds(e, n=n_fit, d=d + int(intercept), lam=lam_at(float(e)))
                      for e in np.geomspace(min(eps_axis), max(eps_axis), 40)],
                     ignore_index=True)


def epsilon_axis(epsilon: float, grid: tuple[float, ...] = EPSILON_GRID) -> tuple[float, ...]:
    """The ε of the curves against ε: ``grid`` (one of :data:`EPSILON_GRIDS`) and ``epsilon``,
    sorted."""
    return tuple(sorted(set(grid) | {epsilon}))


@dataclass(frozen=True)
class Shared:
    """What :func:`prepare` reads that no λ changes (:meth:`Params.shared_key`).

    Attributes
    ----------
    data : TrainingData
    splits : tuple of Split
        As :attr:`Prepared.splits`.
    best : tuple of Fitted
        As :attr:`Prepared.best` (non-private).
    """

    data: TrainingData
    splits: tuple[Split, ...]
    best: tuple[Fitted, ...]


def shared(scenario, params: Params, *, progress: Progress = None) -> Shared:
    """The training data, the splits of the view's stage and, for an ε curve, each split's
    non-private fit at its own best λ: what :func:`prepare` reads that reads no λ (only what
    :meth:`Params.shared_key` holds).

    Parameters
    ----------
    scenario : Scenario or None
        Unused (may be None) when the training data is the paper's synthetic data.
    params : Params
    progress : callable, optional
        Called with the fraction of the reference fits done.

    Returns
    -------
    Shared
    """
    data = training_data(scenario, params.source, params.n, params.seed)
    common = dict(X_test=data.X_test, y_test=data.y_test, data_norm=data.norm,
                  fit_intercept=data.intercept, seed=params.seed,
                  **({"folds": 3} if data.X_test is None else {}))
    splits: list[Split] = []
    best: list[Fitted] = []
    kind = _SPLITS[params.stage()]
    if kind == "epsilon":
        splits = epsilon_splits(data.X, data.y, **common)
        for split in splits:
            best.append(fit_best(split, seed=params.seed))
            report(progress, len(best) / len(splits))
    elif kind == "learning":
        splits = learning_splits(data.X, data.y, **common,
                                 sizes=learning_sizes(data.X.shape[0], data.X_test is not None)[1])
    report(progress, 1.0)
    return Shared(data, tuple(splits), tuple(best))


@dataclass(frozen=True)
class Prepared:
    """What every ε move reuses: the data, its prepared splits, for a λ that does not depend
    on ε the non-private fits, and the ε curve on the grid.

    Attributes
    ----------
    key : tuple
        The :meth:`Params.prepare_key` it was prepared for.
    data : TrainingData
    lam_cv : float or None
        λ chosen by cross-validation on public data (mode "CV on public data"), else None.
    splits : tuple of Split
        The folds (or the held-out split) of the ε curves, or of the learning curve's nested
        training sizes; empty for the Publish view.
    fits : tuple of Fitted or None
        The non-private fit of each split at λ, when λ is fixed (by hand or by CV); None under
        the rule, whose λ moves with ε.
    grid : DataFrame or None
        The ε curve's rows on the chosen grid, each ε computed alone at its λ (an ε curve
        view); else None.
    best : tuple of Fitted
        An ε curve view's non-private reference: each split's fit at its own best λ, chosen by
        cross-validation on that split's training part
        (:func:`~dpcore.perturbation.experiments.fit_best`; non-private); else empty.
    """

    key: tuple
    data: TrainingData
    lam_cv: float | None
    splits: tuple[Split, ...]
    fits: tuple[Fitted, ...] | None
    grid: pd.DataFrame | None
    best: tuple[Fitted, ...] = ()

    @property
    def held_out(self) -> bool:
        """Whether the test error is measured on held-out data (else 3-fold CV over D)."""
        return self.data.X_test is not None


def _rows(fits, epsilons, params: Params, excess: bool) -> list[dict]:
    """Every split's rows at ``epsilons`` from its non-private fit
    (:func:`~dpcore.perturbation.experiments.split_rows`)."""
    rows: list[dict] = []
    for fitted in fits:
        rows += split_rows(fitted, epsilons=epsilons, restarts=params.restarts,
                           seed=params.seed, excess=excess)
    return rows


def _epsilon_rows(prepared_fits, splits, epsilon: float, params: Params, data: TrainingData,
                  lam_cv: float | None, excess: bool) -> list[dict]:
    """Every split's rows at ``epsilon`` alone: from the prepared non-private fits when λ is
    fixed, else from fits at the rule's λ(ε)."""
    if prepared_fits is None:
        lam = _lambda(params.replace(epsilon=epsilon), data, lam_cv)
        prepared_fits = [fit_split(split, lam) for split in splits]
    return _rows(prepared_fits, [epsilon], params, excess)


def _lambda(params: Params, data: TrainingData, lam_cv: float | None) -> float:
    """The study's λ at ``params.epsilon`` (:func:`study_lambda`); the rule counts the
    intercept among the d coefficients, as ``PrivateLogisticRegression(lam="auto")`` does."""
    n, d = data.X.shape
    return study_lambda(params.lambda_mode, epsilon=params.epsilon, n=n,
                        d=d + int(data.intercept),
                        lam_set=params.lam, lam_cv=lam_cv)


def prepare(scenario, params: Params, *, progress: Progress = None, parallel=None,
            keep: Keep = computed) -> Prepared:
    """The part of the study that no ε move changes (it reads what
    :meth:`Params.prepare_key` holds, never ε), on :func:`shared`'s part that no λ changes.

    Parameters
    ----------
    scenario : Scenario or None
        Unused (may be None) when the training data is the paper's synthetic data.
    params : Params
    progress : callable, optional
        Called with the fraction of the non-private fits and the grid's curve done.
    parallel : dpcore.parallel.Parallel, optional
        Unused: the study is batched per fold already (accepted for the common signature).
    keep : callable, optional
        ``keep(parts, compute)`` (:data:`~dpcore.studies.base.Keep`): where :func:`shared`'s
        part is kept under ``("shared", params.shared_key())``, so that the parameters that
        share it (another λ, another λ mode) compute it once. By default it is computed.

    Returns
    -------
    Prepared
    """
    del parallel
    stage = params.stage()
    first = 0.5 if stage in _CURVES else 0.3  # of the progress bar, for the shared part
    part = keep(("shared", params.shared_key()), lambda: shared(
        scenario, params, progress=None if progress is None else lambda f: progress(first * f)))
    data, splits = part.data, part.splits
    report(progress, first)
    lam_cv = None
    if params.lambda_mode == LAMBDA_MODES[2]:
        lam_cv = cv_lambda(*public_data(scenario, params.source, params.seed), data.norm,
                           data.intercept, params.seed)
    fits = grid = None
    share = first  # of the progress bar, up to the end of the non-private fits
    if params.fixed_lambda and splits:
        lam = _lambda(params, data, lam_cv)
        share = first + (1 - first) * (0.3 if stage in _CURVES else 1.0)
        fitted: list[Fitted] = []
        for split in splits:
            fitted.append(fit_split(split, lam))
            report(progress, first + (share - first) * len(fitted) / len(splits))
        fits = tuple(fitted)
    if stage in _CURVES:
        rows: list[dict] = []
        # Each ε alone, from its own streams, on EPSILON_THREADS threads (the fits' BLAS and
        # numpy work releases the interpreter's lock): the rows of one thread, collected and
        # reported in ε order from this thread.
        with ThreadPoolExecutor(threads(EPSILON_THREADS)) as pool:
            pending = [pool.submit(_epsilon_rows, fits, splits, epsilon, params, data, lam_cv,
                                   stage != "curve") for epsilon in params.epsilons]
            for done, future in enumerate(pending, start=1):
                rows += future.result()
                report(progress, share + (1 - share) * done / len(params.epsilons))
        grid = pd.DataFrame(rows)
    report(progress, 1.0)
    return Prepared(params.prepare_key(), data, lam_cv, part.splits, fits, grid, part.best)


def _curve(prepared: Prepared, params: Params) -> pd.DataFrame:
    """The ε curve's rows at :func:`epsilon_axis`: the prepared grid, with the rows of an ε off
    the grid computed alone and put in ε order."""
    if params.epsilon in params.epsilons:
        return prepared.grid
    here = pd.DataFrame(_epsilon_rows(prepared.fits, prepared.splits, params.epsilon, params,
                                      prepared.data, prepared.lam_cv,
                                      params.stage() == "curve with excess loss"))
    table = pd.concat([prepared.grid, here], ignore_index=True)
    return table.sort_values("epsilon", kind="stable", ignore_index=True)


def at(prepared: Prepared, params: Params) -> dict[str, pd.DataFrame]:
    """The numbers the private logistic regression page shows at ``params.epsilon``.

    An ε curve view reuses :func:`prepare`'s curve on the chosen grid and computes the
    rows of an ε off the grid alone (under the rule, at its own λ). The learning curve is
    drawn at ε on the prepared splits (and, for a fixed λ, the prepared non-private fits).

    Returns
    -------
    dict of DataFrame
        ``"metrics"`` (one row: λ, n, d and the target's encoded columns
        (:class:`~dpcore.datasets.dimension.Dimension`), and for "Error vs ε" the guessing error
        of the evaluation labels (``guessing_error_nonprivate``), each method's mean and SD test
        error at ε, and the non-private reference at its own best λ: ``best_error_nonprivate``,
        ``lam_best_low`` and ``lam_best_high`` over the splits), and the tables behind the
        selected view: ``results`` (one row per method,
        ε, fold and restart), ``summary`` (mean, SD, count per method and ε or n), ``bounds``
        (Lemmas 3-4). Method "non-private" is the fit without noise.

    Raises
    ------
    ValueError
        When ``prepared`` was prepared for other parameters than ``params`` (all but ε).
    """
    check_prepared(prepared.key, params)
    data, epsilon, view = prepared.data, params.epsilon, params.view
    n, d = data.X.shape
    lam = _lambda(params, data, prepared.lam_cv)
    metrics: dict[str, Any] = {"epsilon": epsilon, "lam": lam, "lambda_mode": params.lambda_mode,
                               "n": n, "d": d, "target_columns": data.target_columns,
                               "intercept": data.intercept,
                               "data_norm": data.norm, "restarts": params.restarts}
    numbers: dict[str, pd.DataFrame] = {}
    if params.stage() in _CURVES:
        numbers["results"] = res = _curve(prepared, params)
        if view == "error_vs_epsilon":
            numbers["summary"] = summary = summarise(res)
            metrics["guessing_error_nonprivate"] = guess = _guessing(data)
            here = summary[np.isclose(summary["epsilon"], epsilon)].set_index("method")
            for method, row in here.iterrows():
                metrics[f"error {method}"] = row["mean"]
                metrics[f"sd {method}"] = row["std"]
            metrics["swamped"] = ", ".join(swamped_methods(summary, epsilon, guess))
            metrics.update(best_metrics(prepared.best))
        elif view == "bounds":
            numbers["bounds"] = bound_curves(
                epsilon_axis(epsilon, params.epsilons), n=n, d=d, intercept=data.intercept,
                held_out=prepared.held_out,
                lam_at=lambda e: _lambda(params.replace(epsilon=e), data, prepared.lam_cv))
    elif view == "learning_curve":
        fits = prepared.fits or [fit_split(split, lam) for split in prepared.splits]
        numbers["results"] = res = pd.DataFrame(_rows(fits, [epsilon], params, excess=False))
        numbers["summary"] = summarise(res, by="n")
        metrics["n_fold"] = learning_sizes(n, prepared.held_out)[0]
        metrics["guessing_error_nonprivate"] = _guessing(data)
    return {"metrics": pd.DataFrame([metrics]), **numbers}


def best_metrics(best: tuple[Fitted, ...]) -> dict[str, float]:
    """The non-private reference at its own best λ: its mean test error over the splits and the
    range of the λ the splits chose (empty without an ε curve)."""
    if not best:
        return {}
    lams = [fitted.lam for fitted in best]
    return {"best_error_nonprivate": float(np.mean([fitted.error for fitted in best])),
            "lam_best_low": min(lams), "lam_best_high": max(lams)}


def _guessing(data: TrainingData) -> float:
    """The test error of always guessing the most frequent class of the evaluation labels."""
    return guessing_error(data.y_test if data.y_test is not None else data.y)


def compute(scenario, params: Params, *, progress: Progress = None,
            parallel=None) -> dict[str, pd.DataFrame]:
    """The numbers the private logistic regression page shows for ``params``: :func:`at` of
    :func:`prepare` (what ``python -m dpcore run`` calls)."""
    return at(prepare(scenario, params, progress=progress, parallel=parallel), params)


def _moves(start: float, end: float) -> str:
    """How an error moves between two ends, in words read off the numbers."""
    if abs(end - start) < 0.0005:
        return f"stays at {end:.3f}"
    return f"{'falls' if end < start else 'rises'} from {start:.3f} to {end:.3f}"


def _ahead(summary: pd.DataFrame) -> str:
    """Where on the curve output perturbation's mean error is below objective perturbation's
    (the curves cross), in words read off ``summary``; ties within 0.0005 count for neither."""
    by = summary.pivot(index="epsilon", columns="method", values="mean")
    gap = by["objective perturbation"] - by["output perturbation"]
    output = [f"{e:g}" for e, g in gap.items() if g >= 0.0005]
    if not output:
        return ("output perturbation's mean error is below objective perturbation's at no ε "
                "of the curve")
    return (f"output perturbation's mean error is below objective perturbation's at ε = "
            f"{', '.join(output)} ({len(output)} of the curve's {len(gap)} ε)")


def takeaway(numbers: Mapping[str, pd.DataFrame], params: Params) -> str:
    """Two sentences on the run's numbers (for presentation mode), computed from ``numbers``."""
    m = numbers["metrics"].iloc[0]
    eps = float(m["epsilon"])
    if "summary" in numbers and "epsilon" in numbers["summary"]:
        s = numbers["summary"]
        at = s[np.isclose(s["epsilon"], eps)].set_index("method")["mean"]
        lo = s[np.isclose(s["epsilon"], s["epsilon"].min())].set_index("method")["mean"]
        hi = s[np.isclose(s["epsilon"], s["epsilon"].max())].set_index("method")["mean"]
        rule = (" by objective perturbation's rule, for both methods"
                if m["lambda_mode"] == LAMBDA_MODES[0] else "")
        first = (f"At ε = {eps:g} (λ = {m['lam']:.3g}{rule}, n = {int(m['n']):,}) objective "
                 f"perturbation's mean test error is {at['objective perturbation']:.3f} and "
                 f"output perturbation's {at['output perturbation']:.3f}, against "
                 f"{at['non-private']:.3f} without noise (non-private).")
        second = (f"From ε = {s['epsilon'].min():g} to {s['epsilon'].max():g} objective "
                  "perturbation's error "
                  f"{_moves(lo['objective perturbation'], hi['objective perturbation'])}, "
                  "output perturbation's "
                  f"{_moves(lo['output perturbation'], hi['output perturbation'])}")
        return f"{first} {second}; {_ahead(s)}."
    if "summary" in numbers:
        s = numbers["summary"]
        small, large = s["n"].min(), s["n"].max()
        by = s.set_index(["method", "n"])["mean"]
        objective, output = (_moves(by[method, small], by[method, large])
                             for method in ("objective perturbation", "output perturbation"))
        return (f"At ε = {eps:g} and λ = {m['lam']:.3g}, as the training set grows from "
                f"{int(small):,} to {int(large):,} records objective perturbation's mean test "
                f"error {objective}. Output perturbation's {output} (non-private: "
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
    dim = Dimension(int(m["d"]), int(m["target_columns"]))
    return (f"The Publish view releases one model trained on all of D at ε = {eps:g}; its noise "
            "comes from fresh OS entropy, so no run can recompute it. The study's λ here is "
            f"{m['lam']:.3g} (n = {int(m['n']):,}, {dim.text()}).")
