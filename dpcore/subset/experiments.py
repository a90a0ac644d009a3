"""Monte-Carlo study of the optimal public subset ([WJ18]_ Sect. 5.1, Figs 4-6).

A study is seeded and reproducible and spends no budget: it repeats Algorithm 2 on the same D and
E with independent noise and reports, per candidate size, the prediction error ``t_i`` of the DP
estimate (the red curve of Figs 5-6), of the hybrid estimate without noise (black, non-private),
the public-only estimate (blue) and Lei's perturbed histogram (pink, p <= 3; at the paper's
epsilon1 + epsilon2 unless set), with the sizes that
Algorithm 2 selected and ``d(D, E_(i))`` (Fig. 4). Every error is computed from the private
data without noise, to evaluate the mechanism; none of it is a release.

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3), Sect. 5.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore.random import stream, study_seed
from dpcore.subset.baselines import (
    LEI_MAX_DIM,
    check_bins,
    lei_bins,
    lei_histogram,
    public_only_estimate,
)
from dpcore.subset.estimators import check_loss, predict
from dpcore.subset.rescale import Rescaled, rescale
from dpcore.subset.selection import (
    ACCOUNTINGS,
    SELECTIONS,
    Prepared,
    Progress,
    SubsetResult,
    check_epsilons,
    check_prepared,
    default_sizes,
    prepare_selection,
    report_progress,
    run_algorithm2,
    selection_probabilities,
)
from dpcore.subset.weights import check_sizes
from dpcore.threads import threads
from dpcore.validation import check_choice, check_scalar

__all__ = ["StudySetup", "SubsetStudy", "lei_errors", "paper_sizes", "paper_split",
           "prepare_study", "run_study", "subset_study"]

#: Threads on which :func:`run_study` runs Algorithm 2's repeats at once.
REPEAT_THREADS = 3


def paper_split(epsilon: float) -> tuple[float, float, float]:
    """``(0.8, 0.2, 1) x epsilon``, the split of [WJ18]_ Sect. 5.1."""
    return (0.8 * epsilon, 0.2 * epsilon, 1.0 * epsilon)


def paper_sizes(p: int, n_public: int = 10_000) -> np.ndarray:
    """The paper's candidate grid: 10, 60, ..., 2960 for p = 2 (60 sizes); 100, 300, ..., 9900
    for larger p (50 sizes), cut at ``n_public`` ([WJ18]_ Sect. 5.1).

    >>> paper_sizes(2).size, paper_sizes(100).size
    (60, 50)
    """
    if p <= 2:
        return default_sizes(n_public, 10, 50, 60)
    return default_sizes(n_public, 100, 200, 50)


@dataclass(frozen=True)
class SubsetStudy:
    """Curves of a Monte-Carlo study; every error here is non-private (evaluation only).

    Attributes
    ----------
    sizes : ndarray of int of shape (k,)
    dp_curves : ndarray of shape (repeats, k)
        ``t_i`` of the DP estimate of each candidate, per repeat.
    hybrid_curves : ndarray of shape (repeats, k)
        ``t_i`` of the hybrid estimate without noise on the same candidates (non-private).
    noisy_curves : ndarray of shape (repeats, k) or None
        The released noisy criteria (noisy-curve or as-printed selection).
    distance : ndarray of shape (repeats, k)
        ``d(D, E_(i))`` of eq. (5).
    public_only : float
        ``t`` of the public-only estimate.
    lei : ndarray of shape (repeats,) or None
        ``t`` of Lei's histogram estimate at ``lei_epsilon`` (None when p > 3 or not asked).
    lei_epsilon : float
        Its privacy loss (the paper's ``epsilon1 + epsilon2`` unless set).
    lei_bins : int or None
        Its cells per axis (None when it did not run).
    selected : ndarray of int of shape (repeats,)
        Index of the selected candidate in each repeat.
    epsilon : tuple of float
    epsilon_spent, epsilon_claimed, sensitivity, sensitivity_bound : float
        Per repeat (the same in every repeat), as in :class:`SubsetResult`.
    accounting, selection, loss : str
    seed : int
    first : SubsetResult
        The first repeat in full (weights of every candidate, for inspection).
    """

    sizes: np.ndarray
    dp_curves: np.ndarray
    hybrid_curves: np.ndarray
    noisy_curves: np.ndarray | None
    distance: np.ndarray
    public_only: float
    lei: np.ndarray | None
    lei_epsilon: float
    lei_bins: int | None
    selected: np.ndarray
    epsilon: tuple[float, float, float]
    epsilon_spent: float
    epsilon_claimed: float
    sensitivity: float
    sensitivity_bound: float
    accounting: str
    selection: str
    loss: str
    seed: int
    first: SubsetResult

    @property
    def repeats(self) -> int:
        return self.dp_curves.shape[0]

    @property
    def dp_curve(self) -> np.ndarray:
        """Mean DP error per size (the red curve)."""
        return self.dp_curves.mean(axis=0)

    @property
    def hybrid_curve(self) -> np.ndarray:
        """Mean non-private hybrid error per size (the black curve)."""
        return self.hybrid_curves.mean(axis=0)

    @property
    def selected_sizes(self) -> np.ndarray:
        return self.sizes[self.selected]

    @property
    def selected_error(self) -> np.ndarray:
        """``t`` of the selected candidate in each repeat (non-private)."""
        return self.dp_curves[np.arange(self.repeats), self.selected]

    def selection_probabilities(self) -> np.ndarray:
        """The probability that step 6 selects each candidate, per repeat, given its noise-free
        criteria (:func:`~dpcore.subset.selection.selection_probabilities`; non-private).

        Returns
        -------
        ndarray of shape (repeats, k)
        """
        return selection_probabilities(self.dp_curves, self.epsilon[2], self.sensitivity_bound,
                                       accounting=self.accounting, selection=self.selection,
                                       printed=self.sensitivity)

    @property
    def best_index(self) -> int:
        """Index of the smallest mean DP error (non-private: for the figure only)."""
        return int(np.argmin(self.dp_curve))


@dataclass(frozen=True)
class StudySetup:
    """The part of a study that neither ε, the noise, the candidate sizes nor the number of
    repeats changes, for one (D, E, loss, λ).

    Non-private: computed from D without noise, for evaluation only. :func:`prepare_study`
    computes it once; :func:`run_study` runs Algorithm 2 on it at any ε and grid.

    Attributes
    ----------
    data : Rescaled
        Step 1's output.
    prepared : Prepared
        ``theta_D`` and D's nearest public points (:func:`~dpcore.subset.prepare_selection`).
    reference_prediction : ndarray
        ``h(theta_D)``, the reference of every criterion ``t``.
    public_only : float
        ``t`` of the public-only estimate.
    """

    data: Rescaled
    prepared: Prepared
    reference_prediction: np.ndarray
    public_only: float

    @property
    def loss(self) -> str:
        return self.prepared.loss

    @property
    def lam(self) -> float:
        return self.prepared.lam


def prepare_study(
    private: Any,
    public: Any = None,
    *,
    loss: str = "logistic",
    lam: float = 1e-2,
    target: str | None = None,
    groups: Any = None,
    kinds: Any = None,
    prepared: Prepared | None = None,
) -> StudySetup:
    """Step 1, ``theta_D``, the nearest public points and the public-only baseline: what every
    run of a study at any ε shares ([WJ18]_ Sect. 5.1).

    Parameters
    ----------
    private, public : DataFrame, array-like, or a Rescaled as ``private`` with public=None
    loss, lam, target, groups, kinds :
        As in :func:`~dpcore.subset.select_subset`.
    prepared : Prepared, default=None
        :func:`~dpcore.subset.prepare_selection` of the same data, loss and lam (checked); None
        computes it.

    Returns
    -------
    StudySetup
    """
    loss = check_loss(loss)
    lam = check_scalar(lam, "lam", min_val=0.0)
    data = private if isinstance(private, Rescaled) else rescale(
        private, public, target=target, groups=groups, kinds=kinds
    )
    prepared = (prepare_selection(data, loss, lam) if prepared is None  # theta_D, nearest points
                else check_prepared(prepared, data, loss, lam))
    h_ref = prepared.reference_prediction
    pub = public_only_estimate(data, loss, lam=lam)
    public_t = float(np.linalg.norm(predict(data.private, pub, loss, data.target)[0] - h_ref))
    return StudySetup(data, prepared, h_ref, public_t)


def run_study(
    setup: StudySetup,
    *,
    epsilon: tuple[float, float, float] = (0.8, 0.2, 1.0),
    sizes: Sequence[int] | None = None,
    repeats: int = 10,
    accounting: str = "calibrated",
    selection: str = "exponential",
    lei: bool = True,
    lei_epsilon: float | None = None,
    lei_bins: int | None = None,
    rng: Any = None,
    progress: Progress = None,
) -> SubsetStudy:
    """Repeat Algorithm 2 ``repeats`` times with independent noise on a prepared study: the
    curves of [WJ18]_ Figs 4-6 at one ε.

    Parameters
    ----------
    setup : StudySetup
        :func:`prepare_study`'s output.
    epsilon, sizes, accounting, selection :
        As in :func:`~dpcore.subset.select_subset`.
    repeats : int, default=10
        The paper averages 10 repeats.
    lei : bool, default=True
        Also run Lei's histogram when there are at most 3 covariates.
    lei_epsilon : float, default=None
        Its privacy loss; None: ``epsilon1 + epsilon2``, as the paper ("to make it fair to the
        perturbed histogram method, we estimate beta under privacy parameter epsilon1 +
        epsilon2", [WJ18]_ Sect. 5.1).
    lei_bins : int, default=None
        Its cells per axis; None: :func:`~dpcore.subset.lei_bins` at ``lei_epsilon``.
    rng : None, int or numpy.random.Generator, default=None
        Seed of the study: repeat r uses ``dpcore.random.stream(seed, "subset", r)`` and Lei's
        histogram ``stream(seed, "lei")`` (:func:`lei_errors`), so a run does not depend on what
        ran before it.
    progress : callable(fraction, text), default=None

    Returns
    -------
    SubsetStudy
    """
    eps = check_epsilons(epsilon)
    check_choice(accounting, "accounting", ACCOUNTINGS)
    check_choice(selection, "selection", SELECTIONS)
    if isinstance(repeats, bool) or not isinstance(repeats, int | np.integer) or repeats < 1:
        raise ValueError(f"repeats == {repeats!r}, must be an integer >= 1.")
    seed = study_seed(rng)
    data, loss, lam = setup.data, setup.loss, setup.lam
    sizes = default_sizes(data.n_public) if sizes is None else check_sizes(sizes, data.n_public)
    dp, clean, noisy, dist, chosen = [], [], [], [], []
    first = None

    def repeat(r: int) -> tuple:
        return run_algorithm2(data, eps, sizes, loss, accounting, selection, lam, True,
                              stream(seed, "subset", r), None, setup.prepared, clean=True)

    # The repeats run on REPEAT_THREADS threads (their solvers' numpy and BLAS work releases
    # the interpreter's lock), each from its own stream: the numbers of one thread. Progress is
    # reported from this thread, as each repeat is collected in order.
    with ThreadPoolExecutor(threads(min(REPEAT_THREADS, int(repeats)))) as pool:
        runs = [pool.submit(repeat, r) for r in range(int(repeats))]
        report_progress(progress, 0.0, f"{repeats} repeat(s) of Algorithm 2")
        for r, run in enumerate(runs):
            result, clean_t = run.result()
            report_progress(progress, (r + 1) / (repeats + 1), f"repeat {r + 1}/{repeats}")
            if first is None:
                first = result
            dp.append(result.criteria)
            clean.append(clean_t)
            noisy.append(result.noisy_criteria)
            dist.append(result.distance)
            chosen.append(result.index)
    report_progress(progress, repeats / (repeats + 1), "baselines")
    lei_eps = eps[0] + eps[1] if lei_epsilon is None else check_scalar(
        lei_epsilon, "lei_epsilon", min_val=0.0)
    lei_t, bins = None, None
    if lei and len(data.covariates) <= LEI_MAX_DIM:
        lei_t, bins = lei_errors(setup, lei_eps, bins=lei_bins, repeats=int(repeats), rng=seed)
    report_progress(progress, 1.0, "done")
    return SubsetStudy(
        sizes=sizes,
        dp_curves=np.array(dp),
        hybrid_curves=np.array(clean),
        noisy_curves=None if noisy[0] is None else np.array(noisy),
        distance=np.array(dist),
        public_only=setup.public_only,
        lei=lei_t,
        lei_epsilon=lei_eps,
        lei_bins=bins,
        selected=np.array(chosen),
        epsilon=eps,
        epsilon_spent=first.epsilon_spent,
        epsilon_claimed=first.epsilon_claimed,
        sensitivity=first.sensitivity,
        sensitivity_bound=first.sensitivity_bound,
        accounting=accounting,
        selection=selection,
        loss=loss,
        seed=seed,
        first=first,
    )


def lei_errors(
    setup: StudySetup,
    epsilon: float,
    *,
    bins: int | None = None,
    repeats: int = 10,
    rng: Any = None,
) -> tuple[np.ndarray, int]:
    """``t`` of Lei's perturbed-histogram estimate of D, ``repeats`` independent histograms
    (the pink line of [WJ18]_ Fig. 5; non-private evaluation).

    Parameters
    ----------
    setup : StudySetup
        :func:`prepare_study`'s output, with at most ``LEI_MAX_DIM`` covariates.
    epsilon : float
        The histogram's privacy loss (the paper's ``epsilon1 + epsilon2``).
    bins : int, default=None
        Cells per axis; None: :func:`~dpcore.subset.lei_bins` at ``epsilon``.
    repeats : int, default=10
    rng : None, int or numpy.random.Generator, default=None
        Seed of the study; the histograms draw from ``dpcore.random.stream(seed, "lei")``.

    Returns
    -------
    errors : ndarray of shape (repeats,)
    bins : int
        The cells per axis used.
    """
    data, loss = setup.data, setup.loss
    epsilon = check_scalar(epsilon, "epsilon", min_val=0.0)
    bins = (lei_bins(data.n_private, len(data.covariates), epsilon) if bins is None
            else check_bins(bins))
    theta, _, _ = lei_histogram(data, epsilon, loss, bins=bins, lam=setup.lam,
                                rng=stream(study_seed(rng), "lei"), repeats=int(repeats))
    h = predict(data.private, theta, loss, data.target)
    return np.linalg.norm(h - setup.reference_prediction, axis=1), bins


def subset_study(
    private: Any,
    public: Any = None,
    *,
    epsilon: tuple[float, float, float] = (0.8, 0.2, 1.0),
    sizes: Sequence[int] | None = None,
    repeats: int = 10,
    loss: str = "logistic",
    accounting: str = "calibrated",
    selection: str = "exponential",
    lam: float = 1e-2,
    lei: bool = True,
    lei_epsilon: float | None = None,
    lei_bins: int | None = None,
    rng: Any = None,
    progress: Progress = None,
    target: str | None = None,
    groups: Any = None,
    kinds: Any = None,
    prepared: Prepared | None = None,
) -> SubsetStudy:
    """Repeat Algorithm 2 ``repeats`` times with independent noise; the curves of Figs 4-6.

    :func:`prepare_study` then :func:`run_study`, in one call.

    Parameters
    ----------
    private, public : DataFrame, array-like, or a Rescaled as ``private`` with public=None
    epsilon, sizes, loss, accounting, selection, lam, target, groups, kinds :
        As in :func:`~dpcore.subset.select_subset`.
    repeats, lei, lei_epsilon, lei_bins, rng, progress :
        As in :func:`run_study`.
    prepared : Prepared, default=None
        :func:`~dpcore.subset.prepare_selection` of the same data, loss and lam (checked), so
        that a caller computes θ_D and the nearest points once for every ε; None computes it.

    Returns
    -------
    SubsetStudy
    """
    setup = prepare_study(private, public, loss=loss, lam=lam, target=target, groups=groups,
                          kinds=kinds, prepared=prepared)
    return run_study(setup, epsilon=epsilon, sizes=sizes, repeats=repeats,
                     accounting=accounting, selection=selection, lei=lei,
                     lei_epsilon=lei_epsilon, lei_bins=lei_bins, rng=rng, progress=progress)
