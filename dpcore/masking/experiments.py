"""The experiments of Pham et al.: the toy data (Fig. 2), digits (Figs 3-4), accuracy vs epsilon
(Fig. 5), as tasks a page or a benchmark can run.

A :class:`MaskingTask` holds a private set, a public or fake initial masked set, a public
validation set, a pool to draw studies from, and the domain bound on record norms. Studies are
seeded (named streams of :mod:`dpcore.random`) and spend no budget.

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Sect. "Experiments".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np
import pandas as pd

from dpcore.datasets import load_scenario
from dpcore.datasets.builtin import TOY_BOUNDS, TOY_MEANS
from dpcore.masking.generator import (
    GAP_TOL,
    MaskedDataGenerator,
    design_records,
    input_perturbation,
    intercept_value,
    lipschitz_constant,
    scale_records,
)
from dpcore.masking.greedy import greedy_masked_batches
from dpcore.masking.marginals import Column, columns_of
from dpcore.masking.model import fit_logistic_model, n_logits, predict_labels
from dpcore.masking.prior import public_model
from dpcore.perturbation import perturb_output
from dpcore.random import stream
from dpcore.validation import DataError, check_scalar

__all__ = ["FIG5_EPSILONS", "METHODS", "TASKS", "MaskingTask", "accuracy_vs_epsilon",
           "accuracy_vs_epsilon_by_size", "decision_regions",
           "digits_task", "generator", "scenario_task", "toy_sample", "toy_task"]

#: Epsilons of [PGY]_ Fig. 5.
FIG5_EPSILONS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
#: Methods compared in Fig. 5, in legend order.
METHODS = ("masked generation", "input perturbation", "output perturbation", "non-private")
#: Mean of the fake class 3 of the toy's initial set ([PGY]_ Fig. 2(b)).
TOY_FAKE_MEAN = (2.0, 2.0)


@dataclass(frozen=True)
class MaskingTask:
    """Data for one masking experiment; all features in the task's own (unscaled) units.

    Attributes
    ----------
    name, title : str
    X_private, y_private : ndarray
        The private set the generator masks (labels are codes ``0 .. C-1``).
    X_initial, y_initial : ndarray
        Public or fake initial masked set ([PGY]_ "initially masked" samples).
    X_valid, y_valid : ndarray
        Validation set (public, or for a scenario a held-out part of D: a study's yardstick).
    valid_private : bool
        Whether the validation set is held-out private data (then every accuracy measured on
        it is a non-private number and says so).
    X_pool, y_pool : ndarray
        Private pool from which a study draws its training sets.
    data_norm : float
        Bound on ``||x||`` from the domain (never from the private data).
    class_names : tuple of str
        Human name of each label code.
    description : str
        Markdown: how the task is built.
    feature_names : tuple of str
    offset : ndarray or None
        Public mean subtracted from the records (scenario tasks); :meth:`to_records` adds it
        back.
    X_view : ndarray or None
        Public records that the 2-D view (:meth:`projection`) is fitted on when ``d > 2``; None
        means the initial and validation sets, which are then both public.
    mean, components : ndarray or None
        For digits: the public PCA (pixel mean of shape (64,), components of shape (k, 64)) that
        maps features back to images.
    target_columns : int, default=0
        For a scenario task, the encoded columns of the scenario's target (its d is ``d``:
        :mod:`dpcore.datasets.dimension`); 0 otherwise.
    intercept : bool, default=False
        Whether the model has the intercept column
        (:func:`dpcore.masking.generator.design_records`); the paper's experiments have none.
    prior : ndarray of shape (K, d + intercept) or None, default=None
        Centre ``W_E`` of the penalty, fitted on public data only
        (:func:`dpcore.masking.prior.public_model`); None: the paper's penalty, centred at 0.
    prior_lambda : float or None, default=None
        The λ ``W_E`` was fitted at.
    columns : tuple of Column, default=()
        The table's columns among the features, in recipient units (:meth:`to_records`), as
        the report card bins them (:func:`dpcore.masking.card.task_binning`); empty: every
        feature a column of its own, binned over ``[-data_norm, data_norm]``.
    """

    name: str
    title: str
    X_private: np.ndarray
    y_private: np.ndarray
    X_initial: np.ndarray
    y_initial: np.ndarray
    X_valid: np.ndarray
    y_valid: np.ndarray
    X_pool: np.ndarray
    y_pool: np.ndarray
    data_norm: float
    class_names: tuple[str, ...]
    description: str
    mean: np.ndarray | None = None
    components: np.ndarray | None = None
    image_shape: tuple[int, int] | None = None
    feature_names: tuple[str, ...] = field(default=())
    offset: np.ndarray | None = None
    X_view: np.ndarray | None = None
    valid_private: bool = False
    target_columns: int = 0
    intercept: bool = False
    prior: np.ndarray | None = None
    prior_lambda: float | None = None
    columns: tuple[Column, ...] = ()

    @property
    def n_classes(self) -> int:
        return len(self.class_names)

    @property
    def d(self) -> int:
        return self.X_private.shape[1]

    def design(self, X) -> np.ndarray:
        """Records (task units) as the model reads them: scaled by :attr:`data_norm`, with the
        intercept column if the task has one (:func:`dpcore.masking.generator.design_records`)."""
        return design_records(X, self.data_norm, intercept=self.intercept)[0]

    def to_records(self, X) -> np.ndarray:
        """Features in the units a recipient sees (the public centring undone, if any)."""
        X = np.asarray(X, dtype=float)
        return X if self.offset is None else X + self.offset

    def to_images(self, X) -> np.ndarray:
        """Features back to images in the pixel domain [0, 1], shape (n, *image_shape)."""
        if self.components is None or self.image_shape is None:
            raise ValueError(f"task {self.name!r} has no image representation.")
        pixels = np.clip(self.mean + np.asarray(X, dtype=float) @ self.components, 0.0, 1.0)
        return pixels.reshape(-1, *self.image_shape)

    def weights_to_images(self, coef) -> np.ndarray:
        """Classifier rows (for scaled records) as images in pixel space ([PGY]_ Fig. 3(d-f)).

        A row ``w`` scores a scaled record by ``w . (V (p - mean)) / data_norm``, i.e. by
        ``(V^T w / data_norm) . (p - mean)`` on pixels, so ``V^T w / data_norm`` is drawn.
        """
        if self.components is None or self.image_shape is None:
            raise ValueError(f"task {self.name!r} has no image representation.")
        W = np.asarray(coef, dtype=float) @ self.components / self.data_norm
        return W.reshape(-1, *self.image_shape)

    def project(self, X) -> np.ndarray:
        """Points in the 2-D view of :meth:`projection`, shape (n, 2)."""
        mean, components, _ = self.projection()
        return (np.asarray(X, dtype=float) - mean) @ components.T

    def projection(self) -> tuple[np.ndarray, np.ndarray, bool]:
        """A 2-D view of the features: ``(mean, components)`` with ``components`` (2, d).

        The identity for 2-D tasks; otherwise the first two principal axes of public records
        only (:attr:`X_view`, or the public initial and validation sets), never of private
        data. The bool says whether it is the identity. Computed once per task.
        """
        return self._view

    @cached_property
    def _view(self) -> tuple[np.ndarray, np.ndarray, bool]:
        if self.d == 2:
            return np.zeros(2), np.eye(2), True
        if self.X_view is not None:
            public = self.X_view
        elif self.valid_private:
            public = self.X_initial
        else:
            public = np.concatenate([self.X_initial, self.X_valid])
        mean = public.mean(axis=0)
        _, _, vt = np.linalg.svd(public - mean, full_matrices=False)
        return mean, vt[:2], False


def toy_sample(n: int, rng, classes: Sequence[int] = (1, 2, 3)) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points of Pham et al.'s three Gaussian classes, balanced, truncated to the domain.

    Class ``c`` is ``N(TOY_MEANS[c], 0.25 I)`` ([PGY]_ Sect. "Results on toy data"; the means
    and the domain box are those of ``dpcore.datasets``' ``three-gaussians`` scenario). Labels
    are codes ``c - 1`` (class 3, the sensitive one, is code 2).
    """
    classes = list(classes)
    labels = rng.permutation(np.arange(n) % len(classes))
    codes = np.array(classes)[labels] - 1
    means = np.array([TOY_MEANS[c] for c in np.array(classes)[labels]]).reshape(n, 2)
    X = np.clip(means + 0.5 * rng.standard_normal((n, 2)), *TOY_BOUNDS)
    return X, codes.astype(np.intp)


def toy_task(n_private: int = 100, *, n_initial: int = 100, seed: int = 2016) -> MaskingTask:
    """The toy experiment of [PGY]_ Fig. 2.

    Private: ``n_private`` points of the three classes (class 3 sensitive). Initial masked set:
    public draws of classes 1 and 2 and a fake class 3 from ``N((2, 2), 0.25 I)`` (two thirds
    and one third of ``n_initial``). Validation: 3,000 fresh draws; study pool: 20,000 draws.
    Domain: the scenario's box ``[-2.5, 3]^2``, so ``||x|| <= 3 sqrt(2)``.
    """
    X, y = toy_sample(n_private, stream(seed, "toy", "private"))
    n_real = (2 * n_initial) // 3
    X12, y12 = toy_sample(n_real, stream(seed, "toy", "initial"), classes=(1, 2))
    fake_rng = stream(seed, "toy", "fake")
    X3 = np.clip(np.array(TOY_FAKE_MEAN) + 0.5 * fake_rng.standard_normal((n_initial - n_real,
                                                                           2)), *TOY_BOUNDS)
    Xv, yv = toy_sample(3000, stream(seed, "toy", "valid"))
    Xp, yp = toy_sample(20_000, stream(seed, "toy", "pool"))
    bound = max(abs(TOY_BOUNDS[0]), abs(TOY_BOUNDS[1])) * math.sqrt(2.0)
    text = (
        f"**Toy data** (Pham et al. Fig. 2): {n_private} private points of three Gaussian "
        "classes N((0, 1.5), 0.25 I), N((1, 1), 0.25 I), N((1, -1), 0.25 I); class 3 is "
        f"sensitive. The initial masked set holds {n_real} public points of classes 1 and 2 and "
        f"{n_initial - n_real} fake class-3 points from N((2, 2), 0.25 I). Records live in the "
        f"box [{TOY_BOUNDS[0]:g}, {TOY_BOUNDS[1]:g}]^2, so every norm is at most "
        f"{bound:.3g} (the domain bound used to scale them)."
    )
    return MaskingTask(
        "toy", "Three Gaussian classes (toy)", X, y, np.r_[X12, X3],
        np.r_[y12, np.full(n_initial - n_real, 2)], Xv, yv, Xp, yp, bound,
        ("class 1", "class 2", "class 3"), text, feature_names=("x1", "x2"),
        columns=tuple(Column(f"x{j + 1}", "scaled", (j,), *TOY_BOUNDS) for j in range(2)))


def digits_task(digits: Sequence[int] = (0, 1, 3), replacement: int = 6, *,
                n_components: int = 25, n_initial_per_class: int = 30) -> MaskingTask:
    """The digit experiments of [PGY]_ Figs 3-4 on scikit-learn's 8x8 digits.

    The ``digits`` scenario of :mod:`dpcore.datasets` gives the split: private set D and public
    set E (pixels / 16 in [0, 1]). A PCA to ``n_components`` dimensions is fitted on all of E.
    Private: the D images of ``digits``. Initial masked set: the E images of the first two
    digits and of ``replacement`` labelled as the third (the first ``n_initial_per_class`` of
    each, in E's order). Validation: the other E images of
    ``digits``. Domain bound: ``||V (p - mean)|| <= ||p - mean|| <= sqrt(sum_j max(mean_j,
    1 - mean_j)^2)`` for any image ``p`` in ``[0, 1]^64`` (mean and V from E only).
    """
    digits = tuple(int(v) for v in digits)
    if len(digits) != 3 or len(set(digits) | {replacement}) != 4:
        raise ValueError(f"digits must be three different digits and replacement a fourth, got "
                         f"{digits} and {replacement}.")
    scenario = load_scenario("digits")
    pixels = [c for c in scenario.public.columns if c.startswith("pixel")]
    P_pub = scenario.public[pixels].to_numpy()
    P_priv = scenario.private[pixels].to_numpy()
    d_pub = scenario.raw_public["digit"].to_numpy()
    d_priv = scenario.raw_private["digit"].to_numpy()
    mean = P_pub.mean(axis=0)
    _, _, vt = np.linalg.svd(P_pub - mean, full_matrices=False)
    V = vt[:n_components]
    bound = float(np.sqrt(np.sum(np.maximum(mean, 1.0 - mean) ** 2)))
    code = {v: i for i, v in enumerate(digits)}

    def pick(P, labels, wanted, relabel):
        rows = np.isin(labels, wanted)
        return (P[rows] - mean) @ V.T, np.array([relabel[v] for v in labels[rows]], np.intp)

    X, y = pick(P_priv, d_priv, digits, code)
    initial_digits = (digits[0], digits[1], replacement)
    chosen = np.sort(np.concatenate([np.flatnonzero(d_pub == v)[:n_initial_per_class]
                                     for v in initial_digits]))
    initial_code = dict(zip(initial_digits, range(3), strict=True))
    X0, y0 = pick(P_pub[chosen], d_pub[chosen], initial_digits, initial_code)
    rest = np.setdiff1d(np.arange(len(d_pub)), chosen)  # validate on images not in the set
    Xv, yv = pick(P_pub[rest], d_pub[rest], digits, code)
    text = (
        f"**Digits {digits}** (Pham et al. Figs 3-4 on scikit-learn's 8x8 digits): the "
        f"{len(y)} private images of these digits; the initial masked set holds the public "
        f"images of {digits[0]} and {digits[1]} and public images of {replacement} standing in "
        f"for {digits[2]} ({len(y0)} images). PCA to {n_components} dimensions fitted on the "
        f"public set; domain bound on the norm {bound:.3g} (from the public mean only)."
    )
    return MaskingTask(
        f"digits-{''.join(map(str, digits))}-{replacement}",
        f"Digits {', '.join(map(str, digits))} ({digits[2]} replaced by {replacement})",
        X, y, X0, y0, Xv, yv, X, y, bound, tuple(f"digit {v}" for v in digits), text,
        mean=mean, components=V, image_shape=(8, 8),
        feature_names=tuple(f"PC{i + 1}" for i in range(n_components)))


def scenario_task(scenario, *, n_initial: int = 100, valid_fraction: float = 0.3,
                  seed: int = 0) -> MaskingTask:
    """A binary masking task from a :class:`~dpcore.datasets.Scenario` (built-in or upload).

    Records are centred by the *public* mean (which keeps the norm bound tight) and the model
    has an intercept (a constant column, not centred) and a penalty centred at the public model
    ``W_E`` (:func:`dpcore.masking.prior.public_model`, fitted on all of E). Private: D's
    predictors and 0/1 target; a seeded ``valid_fraction`` of D is held out for validation (a
    study's non-private yardstick, as the paper validates on the data's own distribution) and
    the rest is the study pool and the private set. Initial masked set: ``n_initial`` public
    records of E (a seeded choice). Domain bound on ``||x - mean||`` summed over the encoded
    groups: a one-hot or dummy group has at most one item on, so it adds at most
    ``max(||m||^2 + 1 - 2 min_i m_i, ||m||^2)`` for its public means ``m``; any other column in
    [0, 1] adds ``max(m, 1 - m)^2``.
    """
    if scenario.target is None:
        raise DataError(f"Scenario {scenario.title!r} has no target; masking needs a label. "
                        "Choose a target in the sidebar.")
    cols = scenario.predictors
    mean = scenario.public[cols].to_numpy(float).mean(axis=0)
    position = {c: i for i, c in enumerate(cols)}
    bound2 = 0.0
    for group, members in scenario.groups.items():
        idx = [position[c] for c in members if c in position]
        if not idx:
            continue
        m = mean[idx]
        if scenario.kinds.get(group) in ("onehot", "dummy") and len(idx) > 1:
            bound2 += max(float(m @ m) + 1.0 - 2.0 * float(m.min()), float(m @ m))
        else:
            bound2 += float(np.sum(np.maximum(m, 1.0 - m) ** 2))
    bound = math.sqrt(bound2)
    X = scenario.private[cols].to_numpy(float) - mean
    y = scenario.private[scenario.target].to_numpy().astype(np.intp)
    Xe = scenario.public[cols].to_numpy(float) - mean
    ye = scenario.public[scenario.target].to_numpy().astype(np.intp)
    pick = np.sort(stream(seed, "initial", scenario.name).permutation(len(ye))[:n_initial])
    order = stream(seed, "holdout", scenario.name).permutation(len(y))
    n_valid = int(round(valid_fraction * len(y)))
    valid, train = np.sort(order[:n_valid]), np.sort(order[n_valid:])
    prior = public_model(Xe, ye, bound, seed=seed)
    text = (
        f"**{scenario.title}**: {len(train):,} private records (and {n_valid:,} held out for "
        f"validation), target {scenario.target} (1) against the rest (0), "
        f"{scenario.dimension.text()}, centred by the public mean. The initial masked set "
        f"holds {len(pick)} public records. Norm bound {bound:.3g} (from the encoding's domain "
        "and the public mean). The model has an intercept, and its penalty is centred at the "
        f"model fitted on the public set (λ = {prior.lam:g}, chosen on the public set)."
    )
    return MaskingTask(
        scenario.name, scenario.title, X[train], y[train], Xe[pick], ye[pick],
        X[valid], y[valid], X[train], y[train], bound, ("0", "1"), text,
        feature_names=tuple(cols), offset=mean, X_view=Xe, valid_private=True,
        target_columns=scenario.dimension.target_columns, intercept=True, prior=prior.coef,
        prior_lambda=prior.lam, columns=columns_of(scenario.groups, scenario.kinds, cols))


def decision_regions(coef, data_norm: float, x_range, y_range, resolution: int = 120, *,
                     intercept: bool = False):
    """Predicted class on a grid of a 2-D feature space, for drawing decision regions.

    Returns ``(xs, ys, labels)`` with ``labels`` of shape (resolution, resolution), row ``i``
    at ``ys[i]``. ``coef`` acts on design records (scaled by ``data_norm``, with the
    intercept column if ``intercept``; points outside the bound are scored on it).
    """
    xs = np.linspace(*x_range, resolution)
    ys = np.linspace(*y_range, resolution)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    grid, _ = design_records(grid, data_norm, intercept=intercept)
    return xs, ys, predict_labels(coef, grid).reshape(resolution, resolution)


def _accuracy(coef, X, y) -> np.ndarray:
    return np.mean(predict_labels(coef, X) == y, axis=-1)


def accuracy_vs_epsilon(task: MaskingTask, *, epsilons: Sequence[float] = FIG5_EPSILONS,
                        lam: float = 0.5, n_samples: int = 100, n_draws: int = 50,
                        seed: int = 0, n_starts: int = 8, max_iter: int = 10,
                        progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """Validation accuracy vs epsilon of the four methods of [PGY]_ Fig. 5 (a seeded study).

    For each of ``n_draws`` draws, ``n_samples`` records are drawn without replacement from the
    task's pool. Per draw and epsilon: *masked generation* (Algorithm 1 from an empty set, then
    the classifier refitted on the masked set), *input perturbation* (Algorithm 2, then a fit on
    the perturbed records with their true labels), *output perturbation* (the noisy classifier
    of step 2) and *non-private* (the step-1 fit). All draws and epsilons run at once: one
    batched greedy search over ``len(epsilons) * n_draws`` masked sets and batched Newton fits.
    :func:`accuracy_vs_epsilon_by_size` runs several ``n_samples`` at once, with the same numbers.

    Parameters
    ----------
    task : MaskingTask
    epsilons : sequence of float, default=FIG5_EPSILONS
    lam : float, default=0.5
    n_samples : int, default=100
        ``N``: records per draw, and size of each masked set.
    n_draws : int, default=50
    seed : int, default=0
        The study's seed; every part draws from its own named stream.
    n_starts, max_iter : int
        Search settings of the greedy step (see :class:`MaskedDataGenerator`).
    progress : callable(fraction, message), default=None
        Called as the study advances (for a progress bar).

    Returns
    -------
    DataFrame
        Columns ``method, epsilon, n_samples, mean, sd, n_draws``: one row per method and epsilon
        (mean and standard deviation over draws of the validation accuracy).
    """
    return accuracy_vs_epsilon_by_size(
        task, (n_samples,), epsilons=epsilons, lam=lam, n_draws=n_draws, seed=seed,
        n_starts=n_starts, max_iter=max_iter, progress=progress)[n_samples]


def accuracy_vs_epsilon_by_size(task: MaskingTask, sizes: Sequence[int], *,
                                epsilons: Sequence[float] = FIG5_EPSILONS, lam: float = 0.5,
                                n_draws: int = 50, seed: int = 0, n_starts: int = 8,
                                max_iter: int = 10,
                                progress: Callable[[float, str], None] | None = None
                                ) -> dict[int, pd.DataFrame]:
    """:func:`accuracy_vs_epsilon` at every ``n_samples`` of ``sizes``, the numbers of each
    call alone (every part of a size draws from its own stream, named by the size), with the
    greedy searches of all sizes in one loop (:func:`~dpcore.masking.greedy_masked_batches`:
    ``max(sizes)`` steps instead of ``sum(sizes)``).

    Parameters
    ----------
    task : MaskingTask
    sizes : sequence of int
        The ``n_samples`` of the curves (distinct).
    epsilons, lam, n_draws, seed, n_starts, max_iter, progress
        As for :func:`accuracy_vs_epsilon`.

    Returns
    -------
    dict of int to DataFrame
        :func:`accuracy_vs_epsilon`'s table by size, in the order of ``sizes``.
    """
    lam = check_scalar(lam, "lam", min_val=0.0)
    eps = np.array([check_scalar(e, "epsilon", min_val=0.0) for e in epsilons])
    sizes = [int(n) for n in sizes]
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"sizes == {sizes} repeats a size; give each size once.")
    for N in sizes:
        if N > task.X_pool.shape[0]:
            raise ValueError(f"n_samples == {N} exceeds the pool of {task.X_pool.shape[0]} "
                             "records of this task.")

    def report(fraction, message):
        if progress is not None:
            progress(fraction, message)

    report(0.02, "non-private fits")
    parts = {N: _fig5_start(task, N, eps, lam, n_draws, seed) for N in sizes}
    report(0.05, "masked generation")

    def step(j, total):
        if j % 10 == 0:
            report(0.05 + 0.75 * j / total, f"masked generation: sample {j} of {total}")

    results = greedy_masked_batches(
        [(part.W, part.G0, N, stream(seed, "greedy", N)) for N, part in parts.items()],
        n_classes=task.n_classes, n_starts=n_starts, max_iter=max_iter,
        fixed=intercept_value() if task.intercept else None, callback=step)
    report(0.8, "refitting on masked sets")
    tables = {}
    for i, ((N, part), res) in enumerate(zip(parts.items(), results, strict=True)):
        tables[N] = _fig5_finish(task, part, res, eps, lam, n_draws, seed,
                                 report=lambda f, m, i=i: report(
                                     0.8 + 0.2 * (i + f) / len(sizes), m))
    report(1.0, "done")
    return tables


class _Fig5Start(NamedTuple):
    """One size of Fig. 5 before its greedy search: the drawn records, the accuracies known so
    far, and the greedy search's start (noisy classifiers ``W``, gradients ``G0``)."""

    Xs: np.ndarray
    yd: np.ndarray
    acc: dict
    W: np.ndarray
    G0: np.ndarray


def _fig5_start(task, N, eps, lam, D, seed) -> _Fig5Start:
    """Draw the records of size ``N``, fit them non-privately and perturb the fits at every ε."""
    C, K = task.n_classes, n_logits(task.n_classes)
    E = eps.size
    p = task.d + int(task.intercept)
    prior = task.prior
    pool, _ = scale_records(task.X_pool, task.data_norm)
    Xv = task.design(task.X_valid)
    keys = stream(seed, "draws", N).random((D, pool.shape[0]))
    idx = np.argsort(keys, axis=1)[:, :N]
    Xs, yd = pool[idx], task.y_pool[idx]
    Xd = design_records(Xs, intercept=task.intercept)[0]
    fit = fit_logistic_model(Xd, yd, lam=lam, n_classes=C, coef_prior=prior)
    noisy = np.stack([  # the release's law: the solver term of the public GAP_TOL
        perturb_output(fit.coef.reshape(D, K * p), n=N, lam=lam, epsilon=e,
                       lipschitz=lipschitz_constant(C), gap=GAP_TOL,
                       rng=stream(seed, "output", N, float(e)))
        for e in eps]).reshape(E, D, K, p)
    if K > 1:  # the noise along the softmax's null direction changes nothing; drop it
        noisy = noisy - noisy.mean(axis=-2, keepdims=True)
        if prior is not None:
            noisy = noisy + prior.mean(axis=0)
    acc = {"non-private": np.broadcast_to(_accuracy(fit.coef, Xv, task.y_valid), (E, D)),
           "output perturbation": _accuracy(noisy, Xv, task.y_valid)}
    W = noisy.reshape(E * D, K, p)
    G0 = N * lam * (W if prior is None else W - prior)
    return _Fig5Start(Xs, yd, acc, W, G0)


def _fig5_finish(task, part: _Fig5Start, res, eps, lam, D, seed, *, report) -> pd.DataFrame:
    """Refit on the masked sets ``res``, fit on the input-perturbed records, and tabulate."""
    C, E = task.n_classes, eps.size
    N = part.Xs.shape[1]
    prior = task.prior
    Xv = task.design(task.X_valid)
    acc = dict(part.acc)
    refit = fit_logistic_model(res.X, res.y, lam=lam, n_classes=C, coef_prior=prior)
    acc["masked generation"] = _accuracy(refit.coef, Xv, task.y_valid).reshape(E, D)
    report(0.5, "input perturbation")
    Xp = np.stack([input_perturbation(part.Xs, e, rng=stream(seed, "input", N, float(e)))
                   for e in eps])
    Xp = design_records(Xp, intercept=task.intercept, project=False)[0]
    # Records of norm ~ d / epsilon saturate the loss at a prior's margins: Newton's steps
    # shrink there, so these fits get more of them.
    fit_p = fit_logistic_model(Xp, np.broadcast_to(part.yd, (E, D, N)), lam=lam, n_classes=C,
                               coef_prior=prior, max_iter=200)
    acc["input perturbation"] = _accuracy(fit_p.coef, Xv, task.y_valid)
    rows = [
        {"method": m, "epsilon": float(e), "n_samples": N, "mean": float(acc[m][i].mean()),
         "sd": float(acc[m][i].std(ddof=1)) if D > 1 else 0.0, "n_draws": D}
        for m in METHODS for i, e in enumerate(eps)
    ]
    return pd.DataFrame(rows)


#: Experiment -> (task key, built-in scenario that routes the page's release; None: the
#: sidebar's scenario).
TASKS = {
    "Toy: three Gaussians (Fig. 2)": ("toy", "three-gaussians"),
    "Digits 0, 1, 3: 3 masked by 6 (Fig. 3)": ("digits-013-6", "digits"),
    "Digits 0, 1, 4: 4 masked by 8 (Fig. 4)": ("digits-014-8", "digits"),
    "Sidebar scenario (its binary target)": ("scenario", None),
}


def generator(task: MaskingTask, epsilon: float, lam: float, n: int, *, bounded: bool = True,
              rng=None, accountant=None) -> MaskedDataGenerator:
    """The page's Algorithm 1 for ``task``: its classes, norm bound, intercept and penalty
    centre (the paper's model on the paper's experiments; on a scenario an intercept and the
    public model ``W_E``). The study (``rng`` a seeded stream) and the release
    (:func:`dpcore.releases.masking.publish`: ``rng=None`` and the session's ``accountant``)
    build it here, so they run one mechanism."""
    return MaskedDataGenerator(epsilon, lam, n, rng=rng, accountant=accountant,
                               n_classes=task.n_classes, data_norm=task.data_norm,
                               fit_intercept=task.intercept, coef_prior=task.prior,
                               bounded=bounded, dataset=task.title)
