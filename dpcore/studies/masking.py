"""The data-masking page's study: [PGY]_ Algorithm 1 on the page's experiment (Figs 2-5).

The page's numbers for a set of controls: one row of headline metrics and the table(s) behind
the figure of the selected view. :func:`prepare` builds the experiment (:func:`load_task`),
sizes the masked set (:func:`masked_size`), fits the initial set's own model and, in the
"Accuracy vs ε" view, runs :func:`dpcore.masking.accuracy_vs_epsilon` at every masked-set size
(every ε of Fig. 5 and every size in one batch:
:func:`dpcore.masking.accuracy_vs_epsilon_by_size`) and, in the "Report card" view, the card's
curves (:func:`dpcore.masking.card.report_card`, every number non-private). :func:`at` needs the
masked set at the page's ε: Algorithm 1 at that ε, stream ``stream(seed, "masking page",
"generator")``, which :meth:`Prepared.at_epsilon` computes once per ε and keeps, so a view's
toggles and a return to an ε seen before redraw from it (an ε move computes the slider's nearest
values in the same search: :data:`BATCH_NUMBERS`); input perturbation (Algorithm 2, stream
``(seed, "masking page", "input")``) is drawn when shown (:meth:`Prepared.perturbed_at`). The
views share that keep (``prepare``'s ``keep``): a view opened after another finds its masked set
at ε.

The private records, the non-private model's accuracy and its decision regions are computed
from D without noise (named "nonprivate"); the masked set and its model are DP. A seeded study:
nothing is released and no budget is spent.

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithm 1 (masked
   data generation), Algorithm 2 (input perturbation), Figs 2-5.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd

from dpcore.datasets.dimension import Dimension
from dpcore.domains import LAMBDAS, SEED, OneOf, ViewOf
from dpcore.masking import (
    FIG5_EPSILONS,
    MaskedDataGenerator,
    MaskingTask,
    accuracy_vs_epsilon_by_size,
    decision_regions,
    digits_task,
    fit_generators,
    fit_logistic_model,
    input_perturbation,
    scenario_task,
    toy_task,
)
from dpcore.masking.card import REPETITIONS, report_card
from dpcore.masking.experiments import TASKS, generator
from dpcore.random import stream
from dpcore.simulation import Progress
from dpcore.studies.base import Keep, StudyParams, check_prepared, computed
from dpcore.validation import DataError

__all__ = ["ACCURACY", "BATCH_NUMBERS", "CARD", "CONTROLS", "DOMAINS", "EPSILONS", "FIG5_N",
           "IMAGES_PER_CLASS", "INITIAL", "MAJORITY", "N_OPTIONS", "REGION_RESOLUTION",
           "SEED_KEY", "TASKS", "VIEWS", "VIEW_LABELS", "MaskedSet", "Params", "Prepared",
           "accuracy_label",
           "at", "axis_ranges", "axis_titles", "batch_rows", "below_majority", "compute",
           "domain_ranges", "fig5_sizes", "generator", "load_task", "majority_accuracy",
           "majority_warning", "masked_size", "model_note", "points_outside",
           "prepare", "takeaway", "validation_accuracy"]

INITIAL = ("Public / fake initial set", "Empty")
FIG5_N = (100, 200)
#: The values of the page's ε slider (Fig. 5's).
EPSILONS = FIG5_EPSILONS
#: An ε move's greedy search takes the slider's nearest other values along while a step's
#: candidate arrays hold at most this many numbers (:func:`batch_rows`). A step makes some 500
#: small numpy calls whatever its rows; measured on the toy (d = 2), digits (d = 25) and Adult
#: (d = 112, 2 cores, one BLAS thread), their cost matches the arithmetic on about 5,000 numbers
#: per step, so within this budget eight more ε cost about one more (toy, digits), and
#: Adult's rows, 1,800 numbers each, take two neighbours along.
BATCH_NUMBERS = 6000
#: The page's views by key, with the label the page shows.
VIEW_LABELS = {"scatter": "Masked vs original", "animation": "Greedy animation",
               "accuracy": "Accuracy vs ε", "images": "Digit images", "card": "Report card",
               "publish": "Publish"}
VIEWS = tuple(VIEW_LABELS)
ACCURACY = "accuracy"  # the views whose numbers need more than the masked set at ε
CARD = "card"  # the report card's curves (:func:`dpcore.masking.card.report_card`)
N_OPTIONS = (50, 100, 150, 200, 300, 400, 500)
REGION_RESOLUTION = 60  # the page's decision-region grid
IMAGES_PER_CLASS = 6
#: The constant predictor's name wherever it is shown (a figure's line, a metric, a warning).
MAJORITY = "majority class (non-private: it reads the labels)"


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The data-masking page's parameters (widget keys ``mk_<field>``; ``lambda_`` is
    ``mk_lambda``).

    Parameters
    ----------
    task : str
        The experiment, a key of :data:`TASKS`.
    epsilon : float
        Privacy budget of the noisy classifier w′ (Algorithm 1, step 2).
    lambda_ : float
        Regularisation of the logistic model (the paper: 0.5).
    initial : str
        Start the masked set from the public / fake initial set or from nothing (:data:`INITIAL`).
    n : int
        Chosen size of the masked set, the initial set included (:func:`masked_size`).
    bounded : bool
        Keep masked records in the data domain.
    view : str
        The page's view (:data:`VIEWS`; a label reads as its key, None as the first).
    alone : bool
        "Masked vs original": the masked set alone, as a recipient sees it.
    input : bool
        "Masked vs original": the input-perturbed records too.
    draws : int
        "Accuracy vs ε": draws per ε.
    seed : int
        The page's simulation seed (``mk_seed``).

    Examples
    --------
    >>> Params.from_controls({"mk_lambda": 0.2}, seed=3).lambda_
    0.2
    >>> Params(lambda_=0.2).controls()["mk_lambda"]
    0.2
    """

    PREFIX = "mk_"
    #: ``prepare`` reads the view and the draws only for the accuracy curves (:meth:`prepare_key`).
    CHEAP = ("epsilon", "view", "alone", "input", "draws")
    VIEW_LABELS: ClassVar[dict[str, str]] = VIEW_LABELS

    task: str = next(iter(TASKS))
    epsilon: float = 5.0
    lambda_: float = 0.5
    initial: str = INITIAL[0]
    n: int = 300
    bounded: bool = True
    view: str = VIEWS[0]
    alone: bool = False
    input: bool = False
    draws: int = 20

    def prepare_key(self) -> tuple:
        """What :func:`prepare` reads: the experiment, λ, the initial set, N, the domain and the
        seed; in the "Accuracy vs ε" view, the draws of its curves; in the "Report card"
        view, that it computes the card."""
        curves = self.view == ACCURACY
        key = (*self.shared_key(), ("curves", self.draws if curves else None))
        return (*key, (CARD, REPETITIONS)) if self.view == CARD else key

    def shared_key(self) -> tuple:
        """What every view's :func:`prepare` shares reads (the experiment, λ, the initial set,
        N, the domain, the seed): the task, the initial set's model and the masked sets by ε."""
        return super().prepare_key()


#: The page's controls (widget keys of pages/masking.py) with their defaults.
CONTROLS: dict[str, Any] = Params.defaults()
SEED_KEY = Params.seed_key()
#: The values each control can take, as the page draws it (:mod:`dpcore.domains`).
DOMAINS = {
    "mk_task": OneOf(tuple(TASKS)), "mk_epsilon": OneOf(EPSILONS), "mk_lambda": OneOf(LAMBDAS),
    "mk_initial": OneOf(INITIAL), "mk_n": OneOf(N_OPTIONS),
    "mk_view": ViewOf(VIEW_LABELS), "mk_draws": OneOf((10, 20, 50)), SEED_KEY: SEED,
}


class MaskedSet(NamedTuple):
    """The part of the study that ε changes: the masked set at one ε (the input-perturbed
    records, shown on demand, are :meth:`Prepared.perturbed_at`'s)."""

    gen: MaskedDataGenerator  #: the fitted generator (Algorithm 1)


@dataclass(frozen=True)
class Prepared:
    """What :func:`prepare` computes once per experiment and setting: everything ε leaves alone.

    Attributes
    ----------
    params : Params
        The parameters it was prepared for (:func:`at` checks that its own agree on
        :meth:`Params.prepare_key`).
    task : MaskingTask
    initial : (X, y) or None
        The initial masked set, or None to start from empty.
    n : int
        Size of the masked set, the initial set included (:func:`masked_size`).
    initial_coef : ndarray or None
        The model of the initial set (None without one).
    curves : dict of int to DataFrame
        The "Accuracy vs ε" view's :func:`~dpcore.masking.accuracy_vs_epsilon` by masked-set
        size (:func:`fig5_sizes`); empty in the other views.
    card : DataFrame or None
        The "Report card" view's :func:`~dpcore.masking.card.report_card`; None in the other
        views.
    """

    params: Params
    task: MaskingTask
    initial: tuple[np.ndarray, np.ndarray] | None
    n: int
    initial_coef: np.ndarray | None
    curves: dict[int, pd.DataFrame]
    card: pd.DataFrame | None = None
    _masked: dict[float, MaskedSet] = field(default_factory=dict, repr=False, compare=False)
    _fixed: dict[str, pd.DataFrame | None] = field(default_factory=dict, repr=False,
                                                   compare=False)
    _perturbed: dict[float, np.ndarray] = field(default_factory=dict, repr=False,
                                                compare=False)

    def at_epsilon(self, epsilon: float) -> MaskedSet:
        """Algorithm 1 on the private set and input perturbation at ``epsilon``, computed the
        first time an ε is asked for and kept (a seeded study: every ε draws from the same
        streams, so the order in which ε are asked for changes nothing).

        The first ε is computed alone (a first view computes what it shows). A later new ε
        (an ε move) is computed with every value of the page's slider (:data:`EPSILONS`) not
        kept yet, in one greedy search (:func:`~dpcore.masking.fit_generators`): each ε's
        masked set is the one it gets alone, to the bit, and the search's steps cost little
        more for nine ε than for one, so the slider's next moves find theirs kept.
        """
        epsilon = float(epsilon)
        if epsilon not in self._masked:
            todo = [epsilon]
            if self._masked:  # the nearest values first, as many as cost little
                others = [e for e in EPSILONS if e != epsilon and e not in self._masked]
                others.sort(key=lambda e: abs(math.log(e / epsilon)))
                todo += others[:batch_rows(self.task) - 1]
            for e, masked in zip(todo, _masked_sets(self, todo), strict=True):
                self._masked.setdefault(e, masked)
        return self._masked[epsilon]

    def perturbed_at(self, epsilon: float) -> np.ndarray:
        """The private records after input perturbation (Algorithm 2) at ``epsilon``, drawn the
        first time they are shown and kept (stream ``(seed, "masking page", "input")``)."""
        epsilon = float(epsilon)
        if epsilon not in self._perturbed:
            self._perturbed.setdefault(epsilon, input_perturbation(
                self.task.X_private, epsilon, data_norm=self.task.data_norm,
                rng=stream(self.params.seed, "masking page", "input")))
        return self._perturbed[epsilon]


def load_task(task_key: str, scenario: Any = None) -> MaskingTask:
    """The experiment ``task_key`` (the first item of a :data:`TASKS` value)."""
    if task_key == "toy":
        return toy_task()
    if task_key == "digits-013-6":
        return digits_task((0, 1, 3), 6)
    if task_key == "digits-014-8":
        return digits_task((0, 1, 4), 8)
    if task_key == "scenario":
        if scenario is None:
            raise DataError("The 'Sidebar scenario' experiment needs a scenario.")
        return scenario_task(scenario)
    raise DataError(f"Unknown masking experiment {task_key!r}; expected one of "
                    f"{[key for key, _ in TASKS.values()]}.")


def masked_size(n_chosen: int, n_initial: int) -> int:
    """Size ``N`` of the masked set: the chosen one, or the initial set plus 50 when the choice
    does not exceed the initial set.

    >>> masked_size(300, 100), masked_size(100, 100), masked_size(50, 0)
    (300, 150, 50)
    """
    return int(n_chosen) if n_chosen > n_initial else int(n_initial) + 50


def fig5_sizes(task: MaskingTask) -> list[int]:
    """The masked-set sizes of the accuracy-vs-epsilon study: the paper's :data:`FIG5_N` that
    the task's private pool can supply, or, when it is smaller than all of them, the whole pool
    (the paper's default N, the private size)."""
    pool = len(task.y_pool)
    return [n for n in FIG5_N if n <= pool] or [pool]


def prepare(scenario: Any, params: Params, *, progress: Progress = None,
            parallel: Any = None, keep: Keep = computed) -> Prepared:
    """The experiment, the initial set's model and, in the "Accuracy vs ε" view, the curves of
    [PGY]_ Fig. 5, in the "Report card" view the card's curves
    (:func:`~dpcore.masking.card.report_card`): what every ε shares.

    Parameters
    ----------
    scenario : dpcore.datasets.Scenario or None
        Read only by the "Sidebar scenario" experiment (the others build their data from
        built-in definitions).
    params : Params
    progress : callable(fraction), optional
    parallel : ignored
        The curves are one batched computation in this process.
    keep : callable, optional
        ``keep(parts, compute)`` (:data:`~dpcore.studies.base.Keep`): where the part every view
        shares (the task, the initial set's model and the masked sets computed at each ε so far)
        is kept, under ``("views", params.shared_key())``, so that a view opened after another
        reuses its masked set at ε. By default it is computed.

    Returns
    -------
    Prepared
    """
    if params.task not in TASKS:
        raise DataError(f"Unknown experiment {params.task!r}; expected one of {list(TASKS)}.")
    part = keep(("views", params.shared_key()), lambda: _shared(scenario, params))
    curves = {}
    if params.view == ACCURACY:
        curves = accuracy_vs_epsilon_by_size(
            part.task, fig5_sizes(part.task), lam=params.lambda_, n_draws=params.draws,
            seed=params.seed, progress=None if progress is None else lambda f, text: progress(f))
    card = None
    if params.view == CARD:
        card = report_card(part.task, n=part.n, lam=params.lambda_, initial=part.initial,
                           bounded=params.bounded, seed=params.seed,
                           progress=None if progress is None else lambda f, text: progress(f))
    # The masked sets by ε are the shared part's own dictionary: what one view computes at an ε,
    # every view finds.
    return dataclasses.replace(part, params=params, curves=curves, card=card,
                               _masked=part._masked)


def _shared(scenario: Any, params: Params) -> Prepared:
    """The part of :func:`prepare` that no view changes (:meth:`Params.shared_key`): the task,
    the initial set and its model, with no curves."""
    task = load_task(TASKS[params.task][0], scenario)
    initial = (task.X_initial, task.y_initial) if params.initial == INITIAL[0] else None
    n = masked_size(params.n, len(task.y_initial) if initial is not None else 0)
    initial_coef = None
    if initial is not None:
        initial_coef = fit_logistic_model(task.design(initial[0]), initial[1],
                                          lam=params.lambda_, n_classes=task.n_classes,
                                          coef_prior=task.prior).coef
    return Prepared(params, task, initial, n, initial_coef, {})


def _masked_sets(prepared: Prepared, epsilons: list[float]) -> list[MaskedSet]:
    """Algorithm 1 on the task's private set at each of ``epsilons``, the greedy searches in
    one loop (no budget is spent: at every ε, stream ``(seed, "masking page", "generator")``)."""
    task, params = prepared.task, prepared.params
    gens = fit_generators([generator(task, e, params.lambda_, prepared.n, bounded=params.bounded,
                                     rng=stream(params.seed, "masking page", "generator"))
                           for e in epsilons],
                          task.X_private, task.y_private, initial=prepared.initial)
    return [MaskedSet(gen) for gen in gens]


def batch_rows(task: MaskingTask) -> int:
    """How many ε one greedy search of :meth:`Prepared.at_epsilon` computes at most: as many
    as keep a step's candidate arrays within :data:`BATCH_NUMBERS` numbers (rows × candidates
    × features), at least one."""
    starts = MaskedDataGenerator().n_starts  # the study's generator searches from the default
    return max(1, BATCH_NUMBERS // (task.n_classes * starts * (task.d + int(task.intercept))))


def validation_accuracy(gen: MaskedDataGenerator, task: MaskingTask) -> dict[str, float]:
    """Validation accuracy of the masked set's model ("refit") and the non-private one
    ("private")."""
    return {which: float(np.mean(gen.predict(task.X_valid, which) == task.y_valid))
            for which in ("refit", "private")}


def majority_accuracy(y) -> float:
    """Accuracy of always predicting the most frequent label of ``y`` (the best constant
    predictor on ``y``): the line every accuracy on the page must clear to mean anything.

    A non-private number (it reads the labels), shown as such.

    >>> majority_accuracy([0, 1, 1, 1])
    0.75
    """
    y = np.asarray(y)
    if y.size == 0:
        raise DataError("majority_accuracy needs at least one label; got none.")
    _, counts = np.unique(y, return_counts=True)
    return float(counts.max() / counts.sum())


def accuracy_label(valid_private: bool, *, axis: bool = False) -> str:
    """What an accuracy is measured on: a public or simulated validation set, or held-out
    private records (then the number is non-private and says so). ``axis``: the lower-case
    axis title; otherwise the suffix of a metric's label."""
    if axis:
        return ("accuracy on held-out private records (non-private)" if valid_private
                else "validation accuracy")
    return " (non-private)" if valid_private else ""


def axis_titles(task: MaskingTask) -> tuple[str, str]:
    """The titles of the 2-D view's axes: the two features, or the public principal axes."""
    _, _, identity = task.projection()
    return tuple(task.feature_names[:2]) if identity else ("public PC 1", "public PC 2")


def _points(xy: np.ndarray, y: np.ndarray, names: tuple[str, ...], **extra: Any) -> pd.DataFrame:
    frame = pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "code": np.asarray(y, dtype=int),
                          "label": [names[c] for c in y]})
    for key, value in extra.items():
        frame[key] = value
    return frame


def _regions(name: str, coef: np.ndarray | None, task: MaskingTask, x_range, y_range
             ) -> pd.DataFrame | None:
    if coef is None:
        return None
    xs, ys, labels = decision_regions(coef, task.data_norm, x_range, y_range,
                                      resolution=REGION_RESOLUTION, intercept=task.intercept)
    gx, gy = np.meshgrid(xs, ys)
    return pd.DataFrame({"panel": name, "x": gx.ravel(), "y": gy.ravel(),
                         "label": labels.ravel()})


def axis_ranges(*point_sets: np.ndarray, pad: float = 0.08) -> tuple[list[float], list[float]]:
    """Ranges that hold every given 2-D point, padded by ``pad`` of the span (the page's axes,
    and the grid of its decision regions)."""
    points = np.concatenate([np.asarray(p, dtype=float).reshape(-1, 2) for p in point_sets])
    lo, hi = points.min(axis=0), points.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    lo, hi = lo - pad * span, hi + pad * span
    return [float(lo[0]), float(hi[0])], [float(lo[1]), float(hi[1])]


def domain_ranges(task: MaskingTask, pad: float = 0.05) -> tuple[list[float], list[float]]:
    """Axis ranges that hold the task's whole data domain in the 2-D view: the disc of radius
    ``data_norm`` (every record's norm bound, a public number) around the projection of the
    origin, padded by ``pad`` of the radius.

    Read from public information only, and the same for every ε, λ and N: the panels of the
    "Masked vs original" view keep their axes when a slider moves (a masked record kept in the
    domain is always on them), so a panel that a slider does not change is not redrawn.

    >>> from dpcore.masking.experiments import toy_task
    >>> [round(v, 3) for v in domain_ranges(toy_task())[0]]
    [-4.455, 4.455]
    """
    centre = task.project(np.zeros((1, task.d)))[0]
    radius = (1.0 + pad) * float(task.data_norm)
    return ([float(centre[0] - radius), float(centre[0] + radius)],
            [float(centre[1] - radius), float(centre[1] + radius)])


def points_outside(points: pd.DataFrame, axes: pd.DataFrame) -> int:
    """How many points of a view's table (columns ``x``, ``y``) fall outside its ``axes``."""
    outside = np.zeros(len(points), dtype=bool)
    for coord, low, high in zip(axes["axis"], axes["low"], axes["high"], strict=True):
        outside |= (points[coord] < low).to_numpy() | (points[coord] > high).to_numpy()
    return int(outside.sum())


def _images(images: np.ndarray, titles: list[str]) -> pd.DataFrame:
    n, h, w = images.shape
    return pd.DataFrame({
        "image": np.repeat(np.arange(n), h * w), "title": np.repeat(titles, h * w),
        "row": np.tile(np.repeat(np.arange(h), w), n), "col": np.tile(np.arange(w), n * h),
        "value": images.ravel()})


def _scatter_tables(numbers: dict[str, pd.DataFrame], prepared: Prepared, masked: MaskedSet,
                    params: Params) -> None:
    """The "Masked vs original" view's points, decision regions and axes, into ``numbers``."""
    task, gen = prepared.task, masked.gen
    names, identity = task.class_names, task.projection()[2]
    x_range, y_range = domain_ranges(task)

    def regions(name, coef):
        return _regions(name, coef, task, x_range, y_range) if identity else None

    def fixed(name, compute):  # a table no ε changes: computed once per prepared part
        if name not in prepared._fixed:
            prepared._fixed.setdefault(name, compute())
        return prepared._fixed[name]

    numbers["masked_points"] = _points(task.project(gen.masked_X_), gen.masked_y_, names,
                                       from_initial_set=np.arange(len(gen.masked_y_))
                                       < gen.n_initial_)
    parts = [regions("masked set (DP)", gen.refit_coef_)]
    if not params.alone:
        numbers["private_points_nonprivate"] = fixed("private points", lambda: _points(
            task.project(task.X_private), task.y_private, names))
        # the non-private fit (step 1 of Algorithm 1) is the same at every ε
        parts.insert(0, fixed("original regions",
                              lambda: regions("original (non-private)", gen.coef_)))
        if prepared.initial is not None:
            numbers["initial_points"] = fixed("initial points", lambda: _points(
                task.project(task.X_initial), task.y_initial, names))
            parts.insert(1, fixed("initial regions",
                                  lambda: regions("initial set", prepared.initial_coef)))
        if params.input:
            perturbed = prepared.perturbed_at(float(params.epsilon))
            numbers["input_perturbed_points"] = _points(task.project(perturbed), task.y_private,
                                                        names)
    parts = [p for p in parts if p is not None]
    if parts:
        numbers["regions"] = pd.concat(parts, ignore_index=True)
    _axes(numbers, task, x_range, y_range)


def _animation_tables(numbers: dict[str, pd.DataFrame], task: MaskingTask,
                      gen: MaskedDataGenerator) -> None:
    """The "Greedy animation" view's points in order of addition and the gradient trace."""
    init2 = task.project(gen.masked_X_[:gen.n_initial_])
    new2 = task.project(gen.masked_X_[gen.n_initial_:])
    x_range, y_range = axis_ranges(init2, new2)
    numbers["masked_points"] = _points(
        np.concatenate([init2, new2]), gen.masked_y_, task.class_names,
        from_initial_set=np.arange(len(gen.masked_y_)) < gen.n_initial_)
    numbers["gradient_trace"] = pd.DataFrame({
        "samples_added": np.arange(len(gen.gradient_trace_)),
        "gradient_norm": gen.gradient_trace_})
    _axes(numbers, task, x_range, y_range)


def _axes(numbers: dict[str, pd.DataFrame], task: MaskingTask, x_range, y_range) -> None:
    """The class names and the 2-D view's axes (titles and ranges), into ``numbers``."""
    names = task.class_names
    numbers["classes"] = pd.DataFrame({"code": np.arange(len(names)), "name": list(names)})
    numbers["axes"] = pd.DataFrame({"axis": ["x", "y"], "title": list(axis_titles(task)),
                                    "low": [x_range[0], y_range[0]],
                                    "high": [x_range[1], y_range[1]]})


def _image_tables(numbers: dict[str, pd.DataFrame], prepared: Prepared,
                  gen: MaskedDataGenerator) -> None:
    """The "Digit images" view: private, initial and masked images and the classifiers'
    weights as images ([PGY]_ Fig. 3)."""
    task, names = prepared.task, prepared.task.class_names

    def some(y):
        return np.concatenate([np.flatnonzero(y == k)[:IMAGES_PER_CLASS]
                               for k in range(task.n_classes)])

    rows = some(task.y_private)
    numbers["private_images_nonprivate"] = _images(
        task.to_images(task.X_private[rows]), [names[k] for k in task.y_private[rows]])
    if prepared.initial is not None:
        rows0 = some(task.y_initial)
        numbers["initial_images"] = _images(
            task.to_images(task.X_initial[rows0]),
            [f"as {names[k]}" for k in task.y_initial[rows0]])
    new_y, new_X = gen.masked_y_[gen.n_initial_:], gen.masked_X_[gen.n_initial_:]
    rows1 = some(new_y)
    numbers["masked_images"] = _images(task.to_images(new_X[rows1]),
                                       [names[k] for k in new_y[rows1]])
    coefs = [("non-private", gen.coef_), ("masked set", gen.refit_coef_)]
    if prepared.initial_coef is not None:
        coefs.insert(1, ("initial set", prepared.initial_coef))
    weights = np.concatenate([task.weights_to_images(coef) for _, coef in coefs])
    numbers["weight_images"] = _images(weights, [f"{label}: {name}" for label, _ in coefs
                                                 for name in names])


def at(prepared: Prepared, params: Params) -> dict[str, pd.DataFrame]:
    """The page's numbers at ``params``' ε and view: ``metrics`` (one row) and the view's tables.

    Parameters
    ----------
    prepared : Prepared
        :func:`prepare` for parameters with the same :meth:`Params.prepare_key`.
    params : Params

    Returns
    -------
    dict of str to DataFrame
        ``metrics`` (the masked set's gradient norm at w′, ‖refit − w′‖ and its bound, the
        validation accuracies, the majority class's accuracy on the same records, and the
        model's settings: λ, intercept, the public model's λ (NaN without one), norm bound, d
        and the target's encoded columns), then
        "Masked vs original": ``masked_points``, ``private_points_nonprivate``, ``initial_points``,
        ``input_perturbed_points``, ``regions``, ``classes``, ``axes``; "Greedy animation":
        ``masked_points``, ``gradient_trace``, ``classes``, ``axes``; "Accuracy vs ε":
        ``accuracy_N<size>``; "Report card": ``report_card_nonprivate``
        (:func:`~dpcore.masking.card.report_card`); "Digit images" (digit experiments):
        ``private_images_nonprivate``, ``initial_images``, ``masked_images``,
        ``weight_images``.
    """
    check_prepared(prepared.params.prepare_key(), params)
    task, epsilon = prepared.task, float(params.epsilon)
    masked = prepared.at_epsilon(epsilon)
    gen = masked.gen
    accuracy = validation_accuracy(gen, task)
    numbers = {"metrics": pd.DataFrame([{
        "gradient_norm": float(gen.gradient_norm_),
        "refit_distance": float(gen.refit_distance_),
        "distance_bound": float(gen.distance_bound_),
        "masked_model_accuracy": accuracy["refit"],
        "nonprivate_model_accuracy": accuracy["private"],
        "masked_set_size": prepared.n, "initial_set_size": int(gen.n_initial_),
        "private_records": len(task.y_private), "epsilon": epsilon,
        "lambda": float(params.lambda_), "validation_private": bool(task.valid_private),
        "majority_accuracy": majority_accuracy(task.y_valid),
        "validation_records": int(len(task.y_valid)),
        "intercept": bool(task.intercept), "data_norm": float(task.data_norm),
        "prior_lambda": (float("nan") if task.prior_lambda is None
                         else float(task.prior_lambda)),
        "d": int(task.d), "target_columns": int(task.target_columns),
    }])}
    view = params.view
    if view == "scatter":
        _scatter_tables(numbers, prepared, masked, params)
    elif view == "animation":
        _animation_tables(numbers, task, gen)
    elif view == ACCURACY:
        numbers.update({f"accuracy_N{n_fig}": curve for n_fig, curve in prepared.curves.items()})
    elif view == "images" and task.components is not None:
        _image_tables(numbers, prepared, gen)
    elif view == CARD:
        numbers["report_card_nonprivate"] = prepared.card
    return numbers


def compute(scenario: Any, params: Params, *, progress: Progress = None,
            parallel: Any = None) -> dict[str, pd.DataFrame]:
    """The page's numbers: ``at(prepare(scenario, params), params)``."""
    return at(prepare(scenario, params, progress=progress, parallel=parallel), params)


def below_majority(numbers: Mapping[str, pd.DataFrame]) -> dict[str, list[float]]:
    """What does no better than always guessing the majority class, from the numbers.

    Returns
    -------
    dict of str to list of float
        ``"masked-set model"`` and ``"non-private model"`` (the metrics at the page's ε; an
        empty list means "at this ε") when their accuracy is at most the majority class's, and,
        for every accuracy curve ``accuracy_N<size>``, ``"<method>, N = <size>"`` with the ε at
        which its mean accuracy is at most it. Only what is no better appears.
    """
    m = numbers["metrics"].iloc[0]
    majority = float(m["majority_accuracy"])
    out: dict[str, list[float]] = {}
    for column, name in (("masked_model_accuracy", "masked-set model"),
                         ("nonprivate_model_accuracy", "non-private model")):
        if float(m[column]) <= majority:
            out[name] = []
    for key in sorted(k for k in numbers if k.startswith("accuracy_N")):
        frame = numbers[key]
        size = int(frame["n_samples"].iloc[0])
        for method, rows in frame.groupby("method", sort=False):
            low = sorted(float(e) for e in rows.loc[rows["mean"] <= majority, "epsilon"])
            if low:
                out[f"{method}, N = {size}"] = low
    return out


def majority_warning(numbers: Mapping[str, pd.DataFrame]) -> str | None:
    """A sentence naming every model or curve that does no better than always guessing the
    majority class (:func:`below_majority`), or None when all do better."""
    low = below_majority(numbers)
    if not low:
        return None
    majority = float(numbers["metrics"]["majority_accuracy"].iloc[0])
    every = sorted({float(e) for k in numbers if k.startswith("accuracy_N")
                    for e in numbers[k]["epsilon"]})
    parts = []
    for name, eps in low.items():
        if not eps and name.startswith("masked"):
            epsilon = float(numbers["metrics"]["epsilon"].iloc[0])
            parts.append(f"the {name} (at ε = {epsilon:g})")
        elif not eps:
            parts.append(f"the {name}")
        elif eps == every:
            parts.append(f"{name} at every ε")
        else:
            parts.append(f"{name} at ε = {', '.join(f'{e:g}' for e in eps)}")
    return (f"No better than always guessing the majority class (accuracy {majority:.3f}; "
            f"non-private: it reads the labels): {'; '.join(parts)}. There the model has "
            "learned nothing a constant could not.")


def model_note(numbers: Mapping[str, pd.DataFrame]) -> str:
    """Why this page's non-private accuracy differs from the logistic regression page's on the
    same data, from the study's settings: its λ, whether the model has an intercept and a
    penalty centred at the public model, its norm bound."""
    m = numbers["metrics"].iloc[0]
    lam, bound = float(m["lambda"]), float(m["data_norm"])
    prior = float(m.get("prior_lambda", float("nan")))
    if bool(m["intercept"]):
        model = ("Pham et al.'s model with an intercept (a constant column inside the norm "
                 "bound, which the paper's model lacks) and the penalty λ/2 ‖w − w_E‖² "
                 "centred at w_E, the same model fitted on the public set alone"
                 + (f" (at λ = {prior:g})" if prior == prior else "")
                 + f": λ = {lam:g} on the averaged loss. A recipient refits the masked set "
                 "with the same penalty (w_E is public). At a large λ the release stays near "
                 "w_E, what the public set says")
    else:
        model = (f"Pham et al.'s model: λ = {lam:g} on the averaged loss, no intercept "
                 "(records are centred by the public mean, so the decision threshold sits at "
                 "that mean and cannot move to the classes' base rate)")
    return (f"This page fits {model}; records are divided by a norm bound of {bound:.3g} (over "
            f"{Dimension(int(m['d']), int(m['target_columns'])).text()}). The logistic "
            "regression page chooses its own λ, centres its penalty at 0, uses its own norm "
            "bound and scores on another split, so its accuracy on the same data differs from "
            "this one.")


def takeaway(numbers: Mapping[str, pd.DataFrame], params: Params) -> str:
    """Two sentences on how close the masked set's model comes, from the numbers."""
    m = numbers["metrics"].iloc[0]
    curves = [numbers[k] for k in sorted(numbers) if k.startswith("accuracy_N")]
    if curves:
        frame = curves[-1]
        top = frame["epsilon"].max()
        at_top = frame[frame["epsilon"] == top].set_index("method")["mean"]
        low = frame["epsilon"].min()
        at_low = frame[frame["epsilon"] == low].set_index("method")["mean"]
        first = (f"With N = {int(frame['n_samples'].iloc[0])} records, the masked set's model "
                 f"reaches a mean validation accuracy of {at_top['masked generation']:.3f} at "
                 f"ε = {top:g} and {at_low['masked generation']:.3f} at ε = {low:g}.")
        second = (f"Input perturbation, whose ε protects the features only (its labels go out "
                  f"unperturbed), gets {at_top['input perturbation']:.3f} at ε = {top:g}, "
                  f"against {at_top['non-private']:.3f} for the non-private model.")
        return " ".join(filter(None, (first, second, majority_warning(numbers))))
    first = (f"At ε = {m['epsilon']:g}, the {int(m['masked_set_size'])} masked records leave a "
             f"gradient norm of {m['gradient_norm']:.2g} at the noisy model, so a recipient's "
             f"model lies within {m['refit_distance']:.2g} of it.")
    second = (f"That model's validation accuracy is {m['masked_model_accuracy']:.3f}, against "
              f"{m['nonprivate_model_accuracy']:.3f} for the non-private model.")
    return " ".join(filter(None, (first, second, majority_warning(numbers))))
