"""The run of the data-masking page: [PGY]_ Algorithm 1 on the page's experiment (Figs 2-5).

The page's numbers for a set of controls: one row of headline metrics and the table(s) behind
the figure of the selected view. The page builds its task with :func:`load_task`, sizes the
masked set with :func:`masked_size` and runs :func:`masking_study` (streams
``stream(seed, "masking page", "generator" | "input")``), so the CLI repeats exactly its calls;
the "Accuracy vs ε" view is :func:`dpcore.masking.accuracy_vs_epsilon` with the page's seed.

The private records, the non-private model's accuracy and its decision regions are computed
from D without noise (named "nonprivate"); the masked set and its model are DP. A seeded study:
nothing is released and no budget is spent.

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithm 1 (masked
   data generation), Algorithm 2 (input perturbation), Figs 2-5.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from dpcore.masking import (
    FIG5_EPSILONS,
    MaskedDataGenerator,
    MaskingTask,
    accuracy_vs_epsilon,
    decision_regions,
    digits_task,
    fit_logistic_model,
    input_perturbation,
    scale_records,
    scenario_task,
    toy_task,
)
from dpcore.random import stream
from dpcore.runs.domains import LAMBDAS, SEED, OneOf
from dpcore.validation import DataError

__all__ = ["CONTROLS", "DOMAINS", "FIG5_N", "INITIAL", "SEED_KEY", "TASKS", "VIEWS", "MaskingStudy",
           "accuracy_label", "axis_ranges", "compute", "domain_ranges", "fig5_sizes", "load_task",
           "masked_size", "masking_study", "takeaway", "validation_accuracy"]

#: Experiment -> (task key, built-in scenario that routes the page's cache and release; None:
#: the sidebar's scenario).
TASKS = {
    "Toy: three Gaussians (Fig. 2)": ("toy", "three-gaussians"),
    "Digits 0, 1, 3: 3 masked by 6 (Fig. 3)": ("digits-013-6", "digits"),
    "Digits 0, 1, 4: 4 masked by 8 (Fig. 4)": ("digits-014-8", "digits"),
    "Sidebar scenario (its binary target)": ("scenario", None),
}
INITIAL = ("Public / fake initial set", "Empty")
FIG5_N = (100, 200)
VIEWS = ("Masked vs original", "Greedy animation", "Accuracy vs ε", "Digit images", "Publish")
REGION_RESOLUTION = 60  # the page's decision-region grid
IMAGES_PER_CLASS = 6

#: The page's controls (widget keys of pages/masking.py) with their defaults.
CONTROLS: dict[str, Any] = {
    "mk_task": next(iter(TASKS)), "mk_epsilon": 5.0, "mk_lambda": 0.5, "mk_initial": INITIAL[0],
    "mk_n": 300, "mk_bounded": True, "mk_view": VIEWS[0], "mk_alone": False, "mk_input": False,
    "mk_draws": 20,
}
SEED_KEY = "mk_seed"
#: The values each control can take, as the page draws it (:mod:`dpcore.runs.domains`).
DOMAINS = {
    "mk_task": OneOf(tuple(TASKS)), "mk_epsilon": OneOf(FIG5_EPSILONS), "mk_lambda": OneOf(LAMBDAS),
    "mk_initial": OneOf(INITIAL), "mk_n": OneOf((50, 100, 150, 200, 300, 400, 500)),
    "mk_view": OneOf(VIEWS), "mk_draws": OneOf((10, 20, 50)), SEED_KEY: SEED,
}


class MaskingStudy(NamedTuple):
    """What the page's study computes once per setting (its cache entry)."""

    gen: MaskedDataGenerator  #: the fitted generator (Algorithm 1)
    perturbed: np.ndarray  #: the private records after input perturbation (Algorithm 2)
    initial_coef: np.ndarray | None  #: the model of the initial set (None without one)


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


def masking_study(task: MaskingTask, epsilon: float, lam: float, n: int,
                  initial: tuple[np.ndarray, np.ndarray] | None, bounded: bool, seed: int, *,
                  progress: Callable[[float], None] | None = None) -> MaskingStudy:
    """Algorithm 1 on the task's private set, input perturbation at the same ε, and the initial
    set's own model: the page's seeded study (no budget is spent).

    Parameters
    ----------
    task : MaskingTask
    epsilon, lam : float
    n : int
        Size of the masked set, the initial set included (see :func:`masked_size`).
    initial : (X, y) or None
        The initial masked set, or None to start from empty.
    bounded : bool
        Keep masked records in the data domain.
    seed : int
        The page's seed: streams ``(seed, "masking page", "generator" | "input")``.
    progress : callable(fraction), optional
    """
    gen = MaskedDataGenerator(epsilon, lam, n, rng=stream(seed, "masking page", "generator"),
                              n_classes=task.n_classes, data_norm=task.data_norm,
                              bounded=bounded, dataset=task.title, progress=progress)
    gen.fit(task.X_private, task.y_private, initial=initial)
    gen.progress = None  # the cached result keeps no reference to this run's widgets
    perturbed = input_perturbation(task.X_private, epsilon, data_norm=task.data_norm,
                                   rng=stream(seed, "masking page", "input"))
    initial_coef = None
    if initial is not None:
        initial_coef = fit_logistic_model(scale_records(initial[0], task.data_norm)[0],
                                          initial[1], lam=lam, n_classes=task.n_classes).coef
    return MaskingStudy(gen, perturbed, initial_coef)


def fig5_sizes(task: MaskingTask) -> list[int]:
    """The masked-set sizes of the accuracy-vs-epsilon study: the paper's :data:`FIG5_N` that
    the task's private pool can supply, or, when it is smaller than all of them, the whole pool
    (the paper's default N, the private size)."""
    pool = len(task.y_pool)
    return [n for n in FIG5_N if n <= pool] or [pool]


def validation_accuracy(gen: MaskedDataGenerator, task: MaskingTask) -> dict[str, float]:
    """Validation accuracy of the masked set's model ("refit") and the non-private one
    ("private")."""
    return {which: float(np.mean(gen.predict(task.X_valid, which) == task.y_valid))
            for which in ("refit", "private")}


def accuracy_label(valid_private: bool, *, axis: bool = False) -> str:
    """What an accuracy is measured on: a public or simulated validation set, or held-out
    private records (then the number is non-private and says so). ``axis``: the lower-case
    axis title; otherwise the suffix of a metric's label."""
    if axis:
        return ("accuracy on held-out private records (non-private)" if valid_private
                else "validation accuracy")
    return " (non-private)" if valid_private else ""


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
                                      resolution=REGION_RESOLUTION)
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


def _images(images: np.ndarray, titles: list[str]) -> pd.DataFrame:
    n, h, w = images.shape
    return pd.DataFrame({
        "image": np.repeat(np.arange(n), h * w), "title": np.repeat(titles, h * w),
        "row": np.tile(np.repeat(np.arange(h), w), n), "col": np.tile(np.arange(w), n * h),
        "value": images.ravel()})


def compute(scenario: Any, controls: Mapping[str, Any], seed: int, *,
            progress: Callable[[float], None] | None = None,
            parallel: Any = None) -> dict[str, pd.DataFrame]:
    """The page's numbers: ``metrics`` (one row) and the table(s) of the selected view.

    Parameters
    ----------
    scenario : dpcore.datasets.Scenario or None
        Read only by the "Sidebar scenario" experiment.
    controls : mapping
        The page's controls (:data:`CONTROLS`; missing keys take its defaults).
    seed : int
        The page's simulation seed (``mk_seed``).
    progress : callable(fraction), optional
    parallel : ignored
        The study is one batched computation in this process.

    Returns
    -------
    dict of str to DataFrame
    """
    c = {**CONTROLS, **controls}
    if c["mk_task"] not in TASKS:
        raise DataError(f"Unknown experiment {c['mk_task']!r}; expected one of {list(TASKS)}.")
    task_key, _ = TASKS[c["mk_task"]]
    task = load_task(task_key, scenario)
    epsilon, lam, seed = float(c["mk_epsilon"]), float(c["mk_lambda"]), int(seed)
    initial = (task.X_initial, task.y_initial) if c["mk_initial"] == INITIAL[0] else None
    m = len(task.y_initial) if initial is not None else 0
    n = masked_size(int(c["mk_n"]), m)
    view = c["mk_view"] or VIEWS[0]
    study_share = 0.5 if view == VIEWS[2] else 1.0
    report = None if progress is None else (lambda f: progress(study_share * f))
    gen, perturbed, initial_coef = masking_study(task, epsilon, lam, n, initial,
                                                 bool(c["mk_bounded"]), seed, progress=report)
    accuracy = validation_accuracy(gen, task)
    names = task.class_names
    numbers = {"metrics": pd.DataFrame([{
        "gradient_norm": float(gen.gradient_norm_),
        "refit_distance": float(gen.refit_distance_),
        "distance_bound": float(gen.distance_bound_),
        "masked_model_accuracy": accuracy["refit"],
        "nonprivate_model_accuracy": accuracy["private"],
        "masked_set_size": n, "initial_set_size": int(gen.n_initial_),
        "private_records": len(task.y_private), "epsilon": epsilon, "lambda": lam,
        "validation_private": bool(task.valid_private),
    }])}
    _, _, identity = task.projection()
    xtitle, ytitle = task.feature_names[:2] if identity else ("public PC 1", "public PC 2")

    def regions(name, coef, x_range, y_range):
        return _regions(name, coef, task, x_range, y_range) if identity else None

    def axes(x_range, y_range):
        numbers["classes"] = pd.DataFrame({"code": np.arange(len(names)), "name": list(names)})
        return pd.DataFrame({"axis": ["x", "y"], "title": [xtitle, ytitle],
                             "low": [x_range[0], y_range[0]], "high": [x_range[1], y_range[1]]})

    if view == VIEWS[0]:
        masked2 = task.project(gen.masked_X_)
        private2 = task.project(task.X_private)
        initial2 = task.project(task.X_initial) if initial is not None else np.empty((0, 2))
        x_range, y_range = domain_ranges(task)
        from_initial = np.arange(len(gen.masked_y_)) < gen.n_initial_
        numbers["masked_points"] = _points(masked2, gen.masked_y_, names,
                                           from_initial_set=from_initial)
        parts = [regions("masked set (DP)", gen.refit_coef_, x_range, y_range)]
        if not c["mk_alone"]:
            numbers["private_points_nonprivate"] = _points(private2, task.y_private, names)
            parts.insert(0, regions("original (non-private)", gen.coef_, x_range, y_range))
            if initial is not None:
                numbers["initial_points"] = _points(initial2, task.y_initial, names)
                parts.insert(1, regions("initial set", initial_coef, x_range, y_range))
            if c["mk_input"]:
                numbers["input_perturbed_points"] = _points(task.project(perturbed),
                                                            task.y_private, names)
        parts = [p for p in parts if p is not None]
        if parts:
            numbers["regions"] = pd.concat(parts, ignore_index=True)
        numbers["axes"] = axes(x_range, y_range)
    elif view == VIEWS[1]:
        init2 = task.project(gen.masked_X_[:gen.n_initial_])
        new2 = task.project(gen.masked_X_[gen.n_initial_:])
        x_range, y_range = axis_ranges(init2, new2)
        both = np.concatenate([init2, new2])
        numbers["masked_points"] = _points(
            both, gen.masked_y_, names,
            from_initial_set=np.arange(len(gen.masked_y_)) < gen.n_initial_)
        numbers["gradient_trace"] = pd.DataFrame({
            "samples_added": np.arange(len(gen.gradient_trace_)),
            "gradient_norm": gen.gradient_trace_})
        numbers["axes"] = axes(x_range, y_range)
    elif view == VIEWS[2]:
        draws = int(c["mk_draws"])
        sizes = fig5_sizes(task)
        for i, n_fig in enumerate(sizes):
            step = None if progress is None else (
                lambda f, text, i=i: progress(0.5 + 0.5 * (i + f) / len(sizes)))
            numbers[f"accuracy_N{n_fig}"] = accuracy_vs_epsilon(
                task, lam=lam, n_samples=n_fig, n_draws=draws, seed=seed, progress=step)
    elif view == VIEWS[3] and task.components is not None:
        def some(y):
            return np.concatenate([np.flatnonzero(y == k)[:IMAGES_PER_CLASS]
                                   for k in range(task.n_classes)])

        rows = some(task.y_private)
        numbers["private_images_nonprivate"] = _images(
            task.to_images(task.X_private[rows]), [names[k] for k in task.y_private[rows]])
        if initial is not None:
            rows0 = some(task.y_initial)
            numbers["initial_images"] = _images(
                task.to_images(task.X_initial[rows0]),
                [f"as {names[k]}" for k in task.y_initial[rows0]])
        new_y, new_X = gen.masked_y_[gen.n_initial_:], gen.masked_X_[gen.n_initial_:]
        rows1 = some(new_y)
        numbers["masked_images"] = _images(task.to_images(new_X[rows1]),
                                           [names[k] for k in new_y[rows1]])
        coefs = [("non-private", gen.coef_), ("masked set", gen.refit_coef_)]
        if initial_coef is not None:
            coefs.insert(1, ("initial set", initial_coef))
        weights = np.concatenate([task.weights_to_images(coef) for _, coef in coefs])
        numbers["weight_images"] = _images(weights, [f"{label}: {name}" for label, _ in coefs
                                                     for name in names])
    return numbers


def takeaway(numbers: Mapping[str, pd.DataFrame], controls: Mapping[str, Any]) -> str:
    """Two sentences on how close the masked set's model comes, from the numbers."""
    m = numbers["metrics"].iloc[0]
    curves = [numbers[k] for k in sorted(numbers) if k.startswith("accuracy_N")]
    if curves:
        frame = curves[-1]
        top = frame["epsilon"].max()
        at = frame[frame["epsilon"] == top].set_index("method")["mean"]
        low = frame["epsilon"].min()
        at_low = frame[frame["epsilon"] == low].set_index("method")["mean"]
        first = (f"With N = {int(frame['n_samples'].iloc[0])} records, the masked set's model "
                 f"reaches a mean validation accuracy of {at['masked generation']:.3f} at "
                 f"ε = {top:g} and {at_low['masked generation']:.3f} at ε = {low:g}.")
        second = (f"Input perturbation gets {at['input perturbation']:.3f} at ε = {top:g}, "
                  f"against {at['non-private']:.3f} for the non-private model.")
        return f"{first} {second}"
    first = (f"At ε = {m['epsilon']:g}, the {int(m['masked_set_size'])} masked records leave a "
             f"gradient norm of {m['gradient_norm']:.2g} at the noisy model, so a recipient's "
             f"model lies within {m['refit_distance']:.2g} of it.")
    second = (f"That model's validation accuracy is {m['masked_model_accuracy']:.3f}, against "
              f"{m['nonprivate_model_accuracy']:.3f} for the non-private model.")
    return f"{first} {second}"
