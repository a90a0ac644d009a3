"""Optimal public subset under DP: [WJ18]_ Algorithm 2 with corrected privacy accounting.

Algorithm 2: (1) rescale D and E (Step 1 of Algorithm 1); (2) noisy weights of all public
points at ``epsilon1``; (3) sort the public points by them, decreasing; (4) for nested candidate
subsets ``E_(1) c ... c E_(k)`` of the first ``n_1 < ... < n_k`` points, DP weights at
``epsilon2 / k`` each and the DP M-estimator ``theta_i``, and the criterion
``t_i = ||h(theta_i) - h(theta_D)||_2``; (5) noisy criteria at ``epsilon3``; (6) release the
subset with the smallest noisy criterion and its DP weights.

Two corrections to the paper (both kept selectable as ``accounting="as-printed"``):

* **Accounting of step 5.** The paper releases all k criteria, each with Laplace(1/epsilon3)
  noise, and counts epsilon3 for the lot. By sequential composition ([WJ18]_ Definition 4) that
  costs ``k * epsilon3``. By default (``accounting="calibrated"``) the whole selection costs
  epsilon3: ``selection="exponential"`` picks the index with the exponential mechanism
  (utility ``-t_i``, sensitivity ``S``) and releases only the index, which the paper's
  discussion (Sect. 6) suggests; its loss in utility grows like ``2 S log(k) / epsilon3``,
  whereas ``selection="noisy-curve"`` releases the whole curve with Laplace(k S / epsilon3)
  per criterion, whose noise grows like k. Report-noisy-min would need Laplace(2 S / epsilon3)
  (the criteria are not monotone in the data) and selects like the exponential mechanism, so
  it adds nothing here.
* **Sensitivity of t_i.** The paper (Sect. 5.1) takes S = 1, arguing that one record changes
  one component of ``h(theta_i) - h(theta_D)``. But ``theta_D`` is fitted on D, so a changed
  record moves every component. With ``theta_D`` the L2-regularised fit
  ``argmin (1/n_D) sum l(x, y; theta) + lam/2 ||theta||^2`` and ``||x|| <= R`` (covariates with
  intercept), ``||theta_D - theta_D'|| <= 2R/(n_D lam)`` (+ the solver's error); the sigmoid is
  1/4-Lipschitz, so the other n_D - 1 components move by at most
  ``(1/4) sqrt(n_D - 1) R ||theta_D - theta_D'||`` in L2, and the changed row by at most 1
  (``| |a| - |a'| | <= 1`` for a, a' in (-1, 1)). Hence (:func:`criterion_sensitivity`)
  ``S = 1 + (R/4) sqrt(n_D - 1) (2R/(n_D lam) + 2 sqrt(2 tol/lam))``.

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3), Algorithm 2, Sect. 5.1
   and Sect. 6.
.. [CM08] Chaudhuri & Monteleoni (2008), NIPS, Corollary 2 (sensitivity 2/(n lam) of a
   regularised logistic regression).
.. [MT07] McSherry & Talwar (2007), FOCS, Theorem 6 (the exponential mechanism).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcore.mechanisms import Exponential, Laplace
from dpcore.subset.estimators import (
    GROUP_COLUMNS,
    GROUP_SPAN,
    SOLVER_TOL,
    UNCERTIFIED,
    check_loss,
    design,
    logistic_estimates,
    m_estimate,
    predict,
    reference_fit,
)
from dpcore.subset.rescale import Rescaled, rescale
from dpcore.subset.weights import (
    NEIGHBOURING,
    Neighbours,
    check_sizes,
    distance_to_subset,
    hybrid_counts,
    nearest_in_prefixes,
    neighbour_lists,
    noisy_counts,
    skip_laplace_draws,
)
from dpcore.validation import (
    DataError,
    check_choice,
    check_epsilon,
    check_random_state,
    check_scalar,
    check_study_or_release,
    fingerprint,
)

__all__ = [
    "ACCOUNTINGS",
    "SELECTIONS",
    "Prepared",
    "SubsetResult",
    "candidate_criteria",
    "check_epsilons",
    "check_prepared",
    "criterion_sensitivity",
    "default_sizes",
    "prepare_selection",
    "release_estimates",
    "report_progress",
    "run_algorithm2",
    "select_subset",
    "selection_probabilities",
]

ACCOUNTINGS = ("calibrated", "as-printed")
#: Steps after which a study's DP fits take their shared Hessian again, at the mean of their
#: iterates (:meth:`dpcore.logistic.BatchedProblem.fit`'s ``refresh``): the noisy weights put
#: the fits far from theta_D, where the first one was taken. On Adult's page (ε 0.02-3) it
#: saved about a sixth of their steps; any small number does (1-4 measured alike).
REFRESH_STEPS = 2
#: How a study groups its candidates' fits (support sizes within a factor 3, at most 128 in a
#: group: the page's default grid in one group per run): fewer shared Hessians, and with the
#: refresh above each suits its group. On Adult's page (ε 0.02-3) the DP fits took a quarter
#: less time than in groups of (GROUP_SPAN, GROUP_COLUMNS), the non-private ones a fifth.
STUDY_GROUPS = (3.0, 128)
SELECTIONS = ("exponential", "noisy-curve")
MECHANISM = "optimal public subset (Wang et al. 2018, Alg. 2)"

Progress = Callable[[float, str], None] | None


@dataclass(frozen=True)
class SubsetResult:
    """What :func:`select_subset` computed, and which part of it may be released.

    Released (DP): ``size``, ``rows`` and ``weights`` (the selected subset with its DP weights),
    ``order`` (the ranking by the epsilon1 weights), ``candidate_weights`` and ``estimates``
    (every candidate's DP weights and estimate, at epsilon2 / k each), and ``noisy_criteria``
    when not None. Non-private (for studies and display only, computed from D without noise):
    ``criteria``, ``distance``, ``reference``.

    Attributes
    ----------
    size : int
        Selected size ``n_{i*}``.
    index : int
        Its position ``i*`` in ``sizes``.
    rows : ndarray of shape (size, q)
        The released rescaled public points (distinct), in ranked order.
    weights : ndarray of shape (size,)
        Their DP weights (candidate i*'s, truncated when ``truncate``).
    public_rows : ndarray of int of shape (size,)
        Row of the original public table where each released point first appears.
    sizes : ndarray of int of shape (k,)
    criteria : ndarray of shape (k,)
        Noise-free ``t_i`` of the DP estimates (non-private).
    noisy_criteria : ndarray of shape (k,) or None
        The released noisy ``t_i`` (``"noisy-curve"`` and ``"as-printed"``); None when the
        exponential mechanism releases only the index.
    estimates : ndarray of shape (k, d)
        DP M-estimate of every candidate.
    candidate_weights : ndarray of shape (m, k)
        DP weights of every candidate over the ranked public points (0 beyond its size).
    order : ndarray of int of shape (m,)
        Ranking of the distinct public points by their epsilon1 weights (decreasing).
    ranking_weights : ndarray of shape (m,)
        The epsilon1 weights, in the original (distinct-point) order.
    distance : ndarray of shape (k,)
        ``d(D, E_(i))`` of eq. (5) (non-private).
    reference : ndarray of shape (d,)
        ``theta_D`` (non-private).
    epsilon : tuple of float
        ``(epsilon1, epsilon2, epsilon3)``.
    epsilon_spent : float
        The true privacy cost: ``epsilon1 + epsilon2 + epsilon3`` under the calibrated
        accounting; ``epsilon1 + epsilon2 + k S epsilon3`` under the as-printed one.
    epsilon_claimed : float
        What the paper counts: ``epsilon1 + epsilon2 + epsilon3``.
    sensitivity : float
        Sensitivity of each ``t_i`` used for the noise.
    sensitivity_bound : float
        The correct bound :func:`criterion_sensitivity`.
    accounting, selection, loss : str
    rescaled : Rescaled
        The Step-1 data (private part non-private).
    """

    size: int
    index: int
    rows: np.ndarray
    weights: np.ndarray
    public_rows: np.ndarray
    sizes: np.ndarray
    criteria: np.ndarray
    noisy_criteria: np.ndarray | None
    estimates: np.ndarray
    candidate_weights: np.ndarray
    order: np.ndarray
    ranking_weights: np.ndarray
    distance: np.ndarray
    reference: np.ndarray
    epsilon: tuple[float, float, float]
    epsilon_spent: float
    epsilon_claimed: float
    sensitivity: float
    sensitivity_bound: float
    accounting: str
    selection: str
    loss: str
    rescaled: Rescaled = field(repr=False)

    @property
    def under_count(self) -> float:
        """How much the paper's count falls short of the true cost (0 when calibrated)."""
        return self.epsilon_spent - self.epsilon_claimed


def criterion_sensitivity(
    n_private: int,
    radius: float,
    lam: float,
    *,
    loss: str = "logistic",
    accounting: str = "calibrated",
    dim: int | None = None,
    tol: float = SOLVER_TOL,
) -> float:
    """Sensitivity of one criterion ``t_i = ||h(theta_i) - h(theta_D)||_2`` (replace-one).

    Parameters
    ----------
    n_private : int
        n_D (public under replace-one).
    radius : float
        R, the domain bound on ``||x||_2`` of a covariate vector with its intercept.
    lam : float
        L2 penalty of ``theta_D``'s objective ``(1/n_D) sum l + lam/2 ||theta||^2``.
    loss : {"logistic", "squared", "absolute"}, default="logistic"
    accounting : {"calibrated", "as-printed"}, default="calibrated"
        ``"as-printed"`` returns the paper's 1 (Sect. 5.1), which is too small.
    dim : int, default=None
        q, the number of columns (squared and absolute losses).
    tol : float, default=SOLVER_TOL
        Certified objective gap of the solver (relative to the total weight 1).

    Returns
    -------
    float

    Notes
    -----
    Logistic (module docstring): ``1 + (R/4) sqrt(n_D - 1) (2R/(n_D lam) + 2 sqrt(2 tol/lam))``;
    the last term bounds the solver's error on both neighbours (``||theta - theta*|| <=
    sqrt(2 gap / lam)`` by lam-strong convexity). Squared loss, ``h`` the identity: the mean
    of D moves by at most ``sqrt(q) / n_D``. Absolute loss: a median can jump across the whole
    domain, so ``sqrt(q)``.

    Examples
    --------
    >>> round(criterion_sensitivity(10_000, math.sqrt(3), 1e-2), 3)  # 1 + 3 / (2 lam 100)
    2.501
    >>> criterion_sensitivity(10_000, math.sqrt(3), 1e-2, accounting="as-printed")
    1.0
    """
    loss = check_loss(loss)
    check_choice(accounting, "accounting", ACCOUNTINGS)
    if loss == "logistic" and accounting == "as-printed":
        return 1.0
    if loss != "logistic":
        if dim is None:
            raise ValueError("dim (the number of columns) is needed for this loss.")
        return math.sqrt(dim) / (n_private if loss == "squared" else 1.0)
    lam = check_scalar(lam, "lam", min_val=0.0)
    shift = 2.0 * radius / (n_private * lam) + 2.0 * math.sqrt(2.0 * tol / lam)
    return 1.0 + 0.25 * radius * math.sqrt(n_private - 1) * shift


def check_epsilons(epsilon: Any) -> tuple[float, float, float]:
    """``(epsilon1, epsilon2, epsilon3)`` of Algorithm 2 as floats, each checked to be > 0.

    >>> check_epsilons((0.8, 0.2, 1))
    (0.8, 0.2, 1.0)
    """
    if not isinstance(epsilon, Sequence) or isinstance(epsilon, str) or len(epsilon) != 3:
        raise TypeError(
            f"epsilon must be a tuple (epsilon1, epsilon2, epsilon3), got {epsilon!r}. The "
            "paper uses (0.8, 0.2, 1) x epsilon."
        )
    return tuple(check_epsilon(e, f"epsilon{i + 1}") for i, e in enumerate(epsilon))


def default_sizes(n_public: int, start: int = 10, step: int = 50, count: int = 60) -> np.ndarray:
    """The paper's candidate grid ``start, start + step, ...`` ([WJ18]_ Sect. 5.1), cut at n.

    >>> default_sizes(10_000)[:3].tolist(), default_sizes(10_000).size
    ([10, 60, 110], 60)
    """
    sizes = start + step * np.arange(count)
    sizes = sizes[sizes <= n_public]
    if sizes.size == 0:
        return np.array([n_public])
    return sizes


@dataclass(frozen=True)
class Prepared:
    """The part of Algorithm 2 that neither ε nor the noise changes, for one (D, E, loss, λ).

    Non-private: computed from D without noise, never released. A page computes it once and
    passes it to every run (:func:`select_subset` and the studies), so that a run only draws
    noise, ranks and fits the candidates.

    Attributes
    ----------
    reference : ndarray
        ``theta_D`` (:func:`~dpcore.subset.estimators.reference_fit`).
    certified : bool
        Whether ``theta_D`` reached the objective gap the criterion's sensitivity assumes
        (always True for losses without a solver); a release refuses an uncertified one.
    reference_prediction : ndarray
        ``h(theta_D)`` (:func:`~dpcore.subset.estimators.predict`), the reference of every
        criterion ``t_i``.
    nearest : ndarray of int of shape (n_D,)
        Each private point's nearest point in all of E (step 2's counts).
    neighbours : Neighbours
        Each distinct private point's nearest public points in tie groups
        (:func:`~dpcore.subset.weights.neighbour_lists`), from which every run finds the
        nearest points of its nested candidates (step 4) for its own ranking.
    loss : str
    lam : float
    fingerprint : str
        A digest of the rescaled D and E (kept in memory only), so that a prepared part cannot
        be used with other data.
    counts : ndarray of shape (m,)
        Step 2's counts ``|D_y|`` over all of E (from ``nearest``).
    copies : ndarray of int of shape (n,)
        How many private records each distinct private point (``neighbours.private``) stands
        for.
    public_design : tuple of (ndarray, ndarray) or None
        Logistic loss: the covariates with intercept and the labels of E's distinct points
        (:func:`~dpcore.subset.estimators.design`), in E's order; every run's fits read the
        rows of its ranking from them. None for the other losses.
    private_design : ndarray or None
        Logistic loss: the covariates with intercept of the distinct private points, on which
        every criterion predicts. None for the other losses.
    distinct_reference : ndarray or None
        Logistic loss: ``h(theta_D)`` on the distinct private points (``reference_prediction``
        of their first records). None for the other losses.
    """

    reference: np.ndarray
    certified: bool
    reference_prediction: np.ndarray
    nearest: np.ndarray
    neighbours: Neighbours
    loss: str
    lam: float
    fingerprint: str
    counts: np.ndarray
    copies: np.ndarray
    public_design: tuple[np.ndarray, np.ndarray] | None
    private_design: np.ndarray | None
    distinct_reference: np.ndarray | None


def prepare_selection(data: Rescaled, loss: str = "logistic", lam: float = 1e-2) -> Prepared:
    """``theta_D`` and the nearest public points of D: the non-private, ε-free part of
    Algorithm 2 (its step 2's counts, step 4's reference and the neighbour lists from which
    step 4 finds the nearest points of any ranking's candidates), computed once.

    Parameters
    ----------
    data : Rescaled
        Step 1's output (:func:`~dpcore.subset.rescale`).
    loss : {"logistic", "squared", "absolute"}, default="logistic"
    lam : float, default=1e-2

    Returns
    -------
    Prepared
    """
    loss = check_loss(loss)
    lam = check_scalar(lam, "lam", min_val=0.0)
    reference, certified = reference_fit(data.private, loss, target=data.target, lam=lam)
    neighbours = neighbour_lists(data.private, data.public)
    h_ref = predict(data.private, reference, loss, data.target)[0]
    copies = np.bincount(neighbours.inverse, minlength=neighbours.private.shape[0])
    public_design = private_design = distinct_reference = None
    if loss == "logistic":
        public_design = design(data.public, data.target)
        private_design = design(neighbours.private, data.target)[0]
        distinct_reference = np.empty(copies.size)
        distinct_reference[neighbours.inverse] = h_ref
    return Prepared(reference, certified, h_ref, neighbours.nearest, neighbours, loss, lam,
                    fingerprint(data.private, data.public),
                    hybrid_counts(neighbours.nearest[:, None], data.n_public)[:, 0], copies,
                    public_design, private_design, distinct_reference)


def check_prepared(prepared: Any, data: Rescaled, loss: str, lam: float) -> Prepared:
    """``prepared`` if :func:`prepare_selection` computed it for ``data``, ``loss`` and ``lam``.

    Raises ``TypeError`` for anything but a :class:`Prepared` and ``ValueError`` for one of
    other data (its fingerprint), another loss or another λ.
    """
    if not isinstance(prepared, Prepared):
        raise TypeError(f"prepared must come from prepare_selection(), got "
                        f"{type(prepared).__name__}.")
    same_data = prepared.fingerprint == fingerprint(data.private, data.public)
    if (prepared.loss, prepared.lam) != (loss, lam) or not same_data:
        raise ValueError(
            f"prepared was computed for loss={prepared.loss!r}, lam={prepared.lam:g} or on other "
            f"data; this run needs loss={loss!r}, lam={lam:g} on these data. Pass "
            "prepare_selection(data, loss, lam) of the same data, or no prepared."
        )
    return prepared


@dataclass(frozen=True)
class _Curves:
    """One run of Algorithm 2 steps 2-4 on rescaled data (internal)."""

    order: np.ndarray
    ranking_weights: np.ndarray
    candidate_weights: np.ndarray  # (m, k) in ranked order
    clean_weights: np.ndarray  # (m, k) non-private hybrid weights, ranked order
    estimates: np.ndarray
    criteria: np.ndarray
    distance: np.ndarray


def _weights_by_prefix(data: Rescaled, ranked: np.ndarray, sizes: np.ndarray,
                       prepared: Prepared) -> tuple:
    index, sqdist = nearest_in_prefixes(prepared.neighbours, ranked, sizes, distinct=True)
    copies = prepared.copies  # each distinct point for its copies
    counts = hybrid_counts(index, data.n_public, copies)
    mask = np.arange(data.n_public)[:, None] < sizes[None, :]
    return counts, mask, distance_to_subset(sqdist, copies)


def _fit_candidates(data: Rescaled, order: np.ndarray, W: np.ndarray,
                    clean_W: np.ndarray | None, loss: str, lam: float,
                    start: np.ndarray | None, prepared: Prepared, top: int) -> np.ndarray:
    """Step 4's M-estimators of every candidate on the public points ranked by ``order``: the
    DP weights ``W``, then (if given) the non-private ``clean_W``, both 0 beyond the ``top``
    ranked points (the largest candidate); shape (k, q) or (2k, q).

    The DP and the non-private columns are fitted apart: noisy weights and exact counts put
    their mass on different points, and one Hessian shared by both suits neither (at small ε
    most DP fits then left the shared iteration for exact Newton). Logistic fits read E's
    design kept by ``prepared`` and take that Hessian at ``start`` when given (a study passes
    ``theta_D``, which every candidate estimates); each keeps its certified gap
    (:func:`~dpcore.subset.estimators.m_estimate`).
    """
    parts = (W,) if clean_W is None else (W, clean_W)
    if loss != "logistic":
        points = data.public[order]
        return np.vstack([m_estimate(points, weights, loss) for weights in parts])
    X, y = prepared.public_design  # the rows past the largest candidate weigh nothing
    # A study's DP fits (noisy weights, far from theta_D) take their group's shared Hessian
    # again after REFRESH_STEPS steps, and a study fits in STUDY_GROUPS; a release's fits keep
    # the solver's own path.
    study = start is not None
    refresh = (REFRESH_STEPS, 0) if study else (0, 0)
    groups = STUDY_GROUPS if study else (GROUP_SPAN, GROUP_COLUMNS)
    return np.vstack([logistic_estimates(X, y, order[:top], weights[:top], lam=lam,
                                         start=start, refresh=again, groups=groups)
                      for weights, again in zip(parts, refresh, strict=False)])


def candidate_criteria(theta: np.ndarray, prepared: Prepared, data: Rescaled) -> np.ndarray:
    """Step 5's criteria ``t = ||h(theta) - h(theta_D)||_2`` of every row of ``theta``
    ([WJ18]_ Algorithm 2; non-private: the release adds its noise to them or selects by them).

    Logistic: summed over the distinct private points, each counted as many times as it occurs
    in D (equal rows have equal predictions), on the design kept by ``prepared``; the sigmoid
    of :func:`~dpcore.subset.estimators.predict`, computed in place.

    Parameters
    ----------
    theta : ndarray of shape (K, q)
        Estimates (:func:`release_estimates`).
    prepared : Prepared
        :func:`prepare_selection` of ``data`` (``theta_D``'s predictions).
    data : Rescaled

    Returns
    -------
    ndarray of shape (K,)
    """
    if prepared.private_design is None:
        h = predict(data.private, theta, prepared.loss, data.target)
        return np.linalg.norm(h - prepared.reference_prediction, axis=1)
    h = theta @ prepared.private_design.T
    h *= 0.5  # 0.5 (1 + tanh(z / 2)), as predict
    np.tanh(h, out=h)
    h += 1.0
    h *= 0.5
    h -= prepared.distinct_reference
    return np.sqrt(np.square(h, out=h) @ prepared.copies)


def release_estimates(data: Rescaled, prepared: Prepared, order: np.ndarray, W: np.ndarray,
                      top: int) -> np.ndarray:
    """Step 4's M-estimators ``theta_i`` of the candidates as a release fits them ([WJ18]_
    Algorithm 2): on the public points ranked by ``order``, with the released weights ``W``,
    without a start at ``theta_D`` (a function of the released ranking and weights and of E
    alone, as the criteria's sensitivity :func:`criterion_sensitivity` assumes).

    Parameters
    ----------
    data : Rescaled
    prepared : Prepared
        :func:`prepare_selection` of ``data`` (its design of E is read).
    order : ndarray of int of shape (m,)
        The released ranking of E.
    W : ndarray of shape (m, K)
        Weight columns in ranked order (each candidate's released weights, 0 beyond it).
    top : int
        The largest candidate's size (the rows past it weigh nothing).

    Returns
    -------
    ndarray of shape (K, q)
    """
    return _fit_candidates(data, order, W, None, prepared.loss, prepared.lam, None, prepared,
                           top)


def _run(
    data: Rescaled,
    sizes: np.ndarray,
    eps: tuple[float, float, float],
    loss: str,
    lam: float,
    truncate: bool,
    gen: np.random.Generator | None,
    progress: Progress,
    prepared: Prepared,
    accountant: Any = None,
    dataset: str = "private",
    clean: bool = False,
) -> _Curves:
    """Steps 2-4 of Algorithm 2 (study noise from ``gen``, release noise when it is None);
    optionally also the non-private curve. ``prepared``: D's nearest points in all of E and
    its neighbour lists."""
    n, m, k = data.n_private, data.n_public, sizes.size
    e1, e2, _ = eps
    if accountant is not None:
        accountant.spend(e1, mechanism=f"{MECHANISM}: ranking weights (epsilon1)",
                         dataset=dataset, note=f"Laplace(2/epsilon1) on {m} counts",
                         relation="replace")
    ranking = noisy_counts(prepared.counts, e1, rng=gen) / n
    order = np.argsort(-ranking, kind="stable")  # decreasing; ties by the public order
    report_progress(progress, 0.25, f"nearest points in {k} nested candidate subsets")
    counts, mask, distance = _weights_by_prefix(data, order, sizes, prepared)
    if accountant is not None:
        accountant.spend(e2, mechanism=f"{MECHANISM}: candidate weights (epsilon2)",
                         dataset=dataset, note=f"{k} candidates at epsilon2/{k} each",
                         relation="replace")
    if gen is None:  # a release draws only the weights it publishes: each candidate's prefix
        # One call for all k candidates: every count gets noise of scale 2k/epsilon2, as k
        # releases of sensitivity-2 vectors at epsilon2/k each (sequential composition: epsilon2).
        W = np.zeros_like(counts)
        W[mask] = noisy_counts(counts[mask], e2 / k) / n
    else:  # a study draws every count's noise, row by row of (m, k); the rows past the
        top = int(sizes[-1])  # largest candidate are masked, so their draws are only skipped
        W = np.zeros_like(counts)
        W[:top] = np.where(mask[:top], noisy_counts(counts[:top], e2 / k, rng=gen) / n, 0.0)
        skip_laplace_draws(gen, (m - top) * k)
    if truncate:
        np.maximum(W, 0.0, out=W)
    report_progress(progress, 0.5, f"fitting {k} DP M-estimators"
                    + (" and the non-private ones" if clean else ""))
    clean_W = counts / n
    # A study starts the fits' shared Hessian at theta_D; a release does not: its criteria's
    # sensitivity S treats each candidate's fit as a function of the noisy weights alone, and
    # a start at theta_D (private) would move it within its certified gap with D.
    start = prepared.reference if gen is not None and loss == "logistic" else None
    theta = _fit_candidates(data, order, W, clean_W if clean else None, loss, lam, start,
                            prepared, int(sizes[-1]))
    report_progress(progress, 0.85, "criteria")
    t = candidate_criteria(theta, prepared, data)
    return _Curves(
        order=order,
        ranking_weights=ranking,
        candidate_weights=W,
        clean_weights=clean_W,
        estimates=theta[:k],
        criteria=t,  # length k, or 2k with the non-private curve appended
        distance=distance,
    )


def _step6(accounting: str, selection: str, k: int, bound: float,
           printed: float) -> tuple[str, float]:
    """Step 6's mechanism and the sensitivity its noise is calibrated to: ``("laplace", s)``
    (the argmin of criteria plus Laplace(s/epsilon3) each) or ``("exponential", S)``."""
    if accounting == "as-printed":
        return "laplace", printed
    if selection == "noisy-curve":
        return "laplace", k * bound
    return "exponential", bound


#: Points of the grid on which :func:`selection_probabilities` integrates a noisy argmin.
ARGMIN_GRID = 20_001


def _laplace_argmin_probabilities(t: np.ndarray, scale: float) -> np.ndarray:
    """``P(argmin_i t_i + Z_i = i)`` for iid ``Z_i ~ Laplace(scale)``: the integral of
    ``f(x - t_i) prod_{j != i} P(Z > x - t_j)`` over x, by the trapezoid rule on a grid that
    covers the criteria and 30 scales either side (the integrand is below e^-30 of its peak
    beyond), normalised to sum 1."""
    x = np.linspace(t.min() - 30 * scale, t.max() + 30 * scale, ARGMIN_GRID)
    z = (x[:, None] - t[None, :]) / scale
    log_survival = np.where(z >= 0, np.log(0.5) - np.maximum(z, 0),
                            np.log1p(-0.5 * np.exp(np.minimum(z, 0))))
    log_density = -np.abs(z)  # up to the constant 1/(2 scale), removed by the normalisation
    log_f = log_density + log_survival.sum(axis=1, keepdims=True) - log_survival
    f = np.exp(log_f - log_f.max())
    p = np.trapezoid(f, x, axis=0)
    return p / p.sum()


def selection_probabilities(
    criteria: Any,
    epsilon3: float,
    sensitivity: float,
    *,
    accounting: str = "calibrated",
    selection: str = "exponential",
    printed: float = 1.0,
) -> np.ndarray:
    """The probability that Algorithm 2's step 6 selects each candidate, given the criteria.

    Compare it with the uniform ``1/k`` to see how much the selection says about the
    criteria: with a large sensitivity S (e.g. many covariates, small λ) the calibrated
    selection is close to a uniform draw over the candidate sizes.

    Parameters
    ----------
    criteria : array-like of shape (..., k)
        Noise-free ``t_i`` (one row per run). Computed from D: the result is non-private (for
        evaluation and display only).
    epsilon3 : float
    sensitivity : float
        The correct sensitivity bound S of each ``t_i`` (:func:`criterion_sensitivity`).
    accounting, selection : str
        As in :func:`select_subset`.
    printed : float, default=1.0
        The sensitivity the as-printed accounting calibrates its noise to (the paper's 1 for
        the logistic loss).

    Returns
    -------
    ndarray of shape (..., k)
        Rows sum to 1. The exponential mechanism's are exact (``P(i) ∝ exp(-epsilon3 t_i /
        2S)``); the noisy curves' (Laplace per criterion, then the argmin) are integrated
        numerically (:data:`ARGMIN_GRID` points).

    Examples
    --------
    >>> selection_probabilities([0.0, 0.0], 1.0, 1.0).tolist()
    [0.5, 0.5]
    >>> p = selection_probabilities([0.0, 1.0], 1.0, 1.0, selection="noisy-curve")
    >>> bool(0.5 < p[0] < 1.0)
    True
    """
    t = np.asarray(criteria, dtype=float)
    check_choice(accounting, "accounting", ACCOUNTINGS)
    check_choice(selection, "selection", SELECTIONS)
    epsilon3 = check_epsilon(epsilon3, "epsilon3")
    mechanism, used = _step6(accounting, selection, t.shape[-1], sensitivity, printed)
    if mechanism == "exponential":
        return Exponential(epsilon3, used, neighbouring=NEIGHBOURING).probabilities(-t)
    rows = t.reshape(-1, t.shape[-1])
    out = np.array([_laplace_argmin_probabilities(row, used / epsilon3) for row in rows])
    return out.reshape(t.shape)


def report_progress(progress: Progress, fraction: float, text: str) -> None:
    """Call ``progress(fraction, text)`` unless ``progress`` is None."""
    if progress is not None:
        progress(fraction, text)


def select_subset(
    private: Any,
    public: Any,
    epsilon: tuple[float, float, float] = (0.8, 0.2, 1.0),
    sizes: Sequence[int] | None = None,
    loss: str = "logistic",
    accounting: str = "calibrated",
    rng: Any = None,
    progress: Progress = None,
    *,
    selection: str = "exponential",
    lam: float = 1e-2,
    truncate: bool = True,
    target: str | None = None,
    groups: Any = None,
    kinds: Any = None,
    accountant: Any = None,
    dataset: str = "private",
    prepared: Prepared | None = None,
) -> SubsetResult:
    """Select the public subset to release with DP weights ([WJ18]_ Algorithm 2).

    Parameters
    ----------
    private, public : DataFrame or array-like
        D and E with the same columns; rescaled by Step 1 (:func:`~dpcore.subset.rescale`)
        with ``target``, ``groups`` and ``kinds``. A :class:`Rescaled` may be passed as
        ``private`` with ``public=None``.
    epsilon : (float, float, float), default=(0.8, 0.2, 1.0)
        ``(epsilon1, epsilon2, epsilon3)``: ranking weights, candidate weights (epsilon2/k
        each), selection.
    sizes : sequence of int, default=None
        Increasing candidate sizes; None: the paper's grid 10, 60, ... (:func:`default_sizes`).
    loss : {"logistic", "squared", "absolute"}, default="logistic"
        Contrast function; ``h`` is the predicted probability on D's covariates (logistic) or
        the identity.
    accounting : {"calibrated", "as-printed"}, default="calibrated"
        ``"calibrated"``: the selection costs epsilon3 in total and uses the correct
        sensitivity; ``"as-printed"``: Laplace(1/epsilon3) on each criterion, as the paper
        (which then costs ``k S epsilon3``, reported in ``epsilon_spent``).
    rng : None, int or numpy.random.Generator, default=None
        None: a release (OpenDP's float-safe samplers, fresh OS entropy); a seed or Generator: a
        study (numpy draws of the same laws, reproducible).
    progress : callable(fraction, text), default=None
        Called as the work proceeds (for a progress bar).
    selection : {"exponential", "noisy-curve"}, default="exponential"
        Calibrated selection: the exponential mechanism (index only) or the noisy curve at
        Laplace(k S / epsilon3) (module docstring).
    lam : float, default=1e-2
        L2 penalty of every logistic fit (theta_D and the candidates), next to weights summing
        to about 1; it sets the sensitivity of t_i.
    truncate : bool, default=True
        Truncate negative weights at 0 ([WJ18]_ Definition 6); required by the logistic and
        absolute losses.
    target, groups, kinds :
        Passed to :func:`~dpcore.subset.rescale` (``scenario_arguments(scenario)`` gives them).
    accountant : dpcore.accountant.BudgetAccountant, default=None
        If given, epsilon1, epsilon2 and the true cost of step 5 are spent as three ledger
        entries, each before its noise is drawn; BudgetExceeded stops the run (``rng=None``
        only). A release also refuses a reference fit ``theta_D`` that is not certified.
    dataset : str, default="private"
        Name of the private dataset in the ledger.
    prepared : Prepared, default=None
        :func:`prepare_selection` of the same rescaled data, ``loss`` and ``lam`` (checked):
        what does not depend on ε, computed once. None computes it here.

    Returns
    -------
    SubsetResult

    Notes
    -----
    Neighbouring relation: replace one private record (n_D fixed). Public information used for
    bounds: E's ranges (Step 1), the column kinds (R), n_D. Step 2 is epsilon1-DP and step 4
    epsilon2-DP (k Laplace releases of sensitivity-2 count vectors at epsilon2/k, sequential
    composition); step 5 as in the module docstring. The noise-free criteria and d(D, E') in
    the result are non-private.
    """
    eps = check_epsilons(epsilon)
    loss = check_loss(loss)
    check_choice(accounting, "accounting", ACCOUNTINGS)
    check_choice(selection, "selection", SELECTIONS)
    lam = check_scalar(lam, "lam", min_val=0.0)
    if not isinstance(truncate, bool):
        raise TypeError(f"truncate must be True or False, got {truncate!r}.")
    if not truncate and loss != "squared":
        raise ValueError(
            f"truncate=False is only possible for the squared loss; the {loss} loss needs "
            "non-negative weights (Definition 6)."
        )
    check_study_or_release(rng, accountant)
    gen = None if rng is None else check_random_state(rng)
    data = private if isinstance(private, Rescaled) else rescale(
        private, public, target=target, groups=groups, kinds=kinds
    )
    if loss == "logistic" and data.target is None:
        raise DataError("The logistic loss needs target= (the 0/1 label column).")
    sizes = default_sizes(data.n_public) if sizes is None else check_sizes(sizes, data.n_public)
    report_progress(progress, 0.02, "θ_D and the nearest public points (all of E)")
    prepared = (prepare_selection(data, loss, lam) if prepared is None
                else check_prepared(prepared, data, loss, lam))
    return run_algorithm2(data, eps, sizes, loss, accounting, selection, lam, truncate, gen,
                          progress, prepared, accountant, dataset)[0]


def run_algorithm2(
    data: Rescaled,
    eps: tuple[float, float, float],
    sizes: np.ndarray,
    loss: str,
    accounting: str,
    selection: str,
    lam: float,
    truncate: bool,
    gen: np.random.Generator | None,
    progress: Progress,
    prepared: Prepared,
    accountant: Any = None,
    dataset: str = "private",
    clean: bool = False,
) -> tuple[SubsetResult, np.ndarray | None]:
    """Steps 2-6 of [WJ18]_ Algorithm 2 on checked, rescaled inputs (:func:`select_subset`
    checks and prepares them; a study calls this once per repeat).

    Parameters
    ----------
    data : Rescaled
        Step 1's output.
    eps : (float, float, float)
        ``(epsilon1, epsilon2, epsilon3)``, checked (:func:`check_epsilons`).
    sizes : ndarray of int of shape (k,)
        Checked candidate sizes (:func:`~dpcore.subset.weights.check_sizes`).
    loss, accounting, selection, lam, truncate, accountant, dataset :
        As in :func:`select_subset`, checked.
    gen : numpy.random.Generator or None
        A study's noise (reproducible draws); None: a release (fresh OS entropy), which is
        refused before anything is spent when ``prepared`` is not certified.
    progress : callable(fraction, text) or None
    prepared : Prepared
        :func:`prepare_selection` of ``data``, ``loss`` and ``lam`` (checked).
    clean : bool, default=False
        Also fit the candidates with their hybrid weights without noise.

    Returns
    -------
    result : SubsetResult
    clean_criteria : ndarray of shape (k,) or None
        ``t_i`` of the noise-free hybrid estimates (non-private) when ``clean``, else None.
    """
    k = sizes.size
    if gen is None and not prepared.certified:  # a release: before anything is spent
        raise DataError(UNCERTIFIED.format(tol=SOLVER_TOL, lam=lam))
    reference = prepared.reference
    bound = criterion_sensitivity(data.n_private, data.radius, lam, loss=loss,
                                  dim=data.public.shape[1])
    used = criterion_sensitivity(data.n_private, data.radius, lam, loss=loss,
                                 accounting=accounting, dim=data.public.shape[1])
    e1, e2, e3 = eps
    e3_true = k * bound * e3 / used if accounting == "as-printed" else e3
    if accountant is not None:  # refuse before any work if the whole run does not fit
        accountant.check(e1 + e2 + e3_true, relation="replace")
    curves = _run(data, sizes, eps, loss, lam, truncate, gen,
                  progress, prepared, accountant, dataset, clean=clean)
    report_progress(progress, 0.95, "selection")
    if accountant is not None:
        accountant.spend(
            e3_true, mechanism=f"{MECHANISM}: selection (epsilon3)", dataset=dataset,
            note=(f"exponential mechanism over {k} candidates" if selection == "exponential"
                  and accounting == "calibrated" else
                  f"{k} noisy criteria; paper counts {e3:g}" if accounting == "as-printed"
                  else f"{k} noisy criteria at Laplace({k}S/epsilon3)"),
            relation="replace",
        )
    t = curves.criteria[:k]
    noisy = None
    mechanism, noise_sensitivity = _step6(accounting, selection, k, bound, used)
    if mechanism == "laplace":
        noisy = Laplace(e3, noise_sensitivity, neighbouring=NEIGHBOURING).draw(t, rng=gen)
        best = int(np.argmin(noisy))
    else:
        best = int(Exponential(e3, noise_sensitivity, neighbouring=NEIGHBOURING).draw(-t,
                                                                                      rng=gen))
    size = int(sizes[best])
    chosen = curves.order[:size]
    report_progress(progress, 1.0, "done")
    result = SubsetResult(
        size=size,
        index=best,
        rows=data.public[chosen],
        weights=curves.candidate_weights[:size, best],
        public_rows=data.public_rows[chosen],
        sizes=np.asarray(sizes),
        criteria=t,
        noisy_criteria=noisy,
        estimates=curves.estimates,
        candidate_weights=curves.candidate_weights,
        order=curves.order,
        ranking_weights=curves.ranking_weights,
        distance=curves.distance,
        reference=reference,
        epsilon=eps,
        epsilon_spent=e1 + e2 + e3_true,
        epsilon_claimed=e1 + e2 + e3,
        sensitivity=used,
        sensitivity_bound=bound,
        accounting=accounting,
        selection=selection,
        loss=loss,
        rescaled=data,
    )
    return result, (curves.criteria[k:] if clean else None)

