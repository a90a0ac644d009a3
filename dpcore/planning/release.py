"""Planning the default logistic-regression release from public information: error vs (ε, n).

The release a data owner publishes on the logistic-regression page is approximate minima
perturbation (:class:`~dpcore.perturbation.PrivateLogisticRegression`, ``method="amp"``) with
its penalty centred on a public model (``prior=``
:func:`~dpcore.perturbation.experiments.public_prior` of E), at the λ that
:func:`~dpcore.perturbation.experiments.release_lambda` (``centred=True``) picks by simulating
it on the public set E. The planner simulates that same release the same way: E in three parts
taking turns as the public model's rows, the private set (fitted with the noise of a release
of ``n`` records, centred on that model) and the scoring rows (:func:`release_point`). Beside it,
a model without noise at its own best λ on E (:func:`public_reference`) says how low an error
these columns allow. :func:`reach_note` reads the curve of the release's error against ε at the
target "within :data:`REACH_MARGIN` of that model" and says which ε, or which n at the chosen ε,
would get there.

Everything here reads the public set and public numbers only (``n`` is public under replace-one
neighbours, d is the encoding's): no private record, so nothing is spent and the answer may be
shown beside a release. It is a seeded simulation, not a release.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dpcore.perturbation.experiments import (
    BEST_LAMBDAS,
    ReleaseSimulation,
    guessing_error,
    lambda_by_cv,
    release_lambda,
    release_simulation,
    simulated_release,
)
from dpcore.random import stream

__all__ = ["LEARNS", "PLAN_EPSILONS", "PLAN_ROWS", "PLAN_WORK", "REACH_MARGIN", "PublicReference",
           "ReleasePlan", "crossing", "plan_draws", "plan_lambda", "public_reference",
           "public_rows", "reach_note", "release_plan", "release_point"]

#: The ε at which :func:`reach_note` reads the release's curve (beyond the pages' largest ε,
#: 10, so that "ε ≈ 20" can be read and n scaled from it).
PLAN_EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
#: At most this many rows of E are simulated on (a seeded subset of a larger E): the simulation
#: then takes seconds, not minutes, on a table like Adult's 12,000 public rows.
PLAN_ROWS = 2000
#: Rows times noise draws that one simulated λ may cost: a small E gets more draws (its
#: errors are noisier), a large one fewer (between 3 and 20).
PLAN_WORK = 2000
#: The planner's target: a release within this much of the model without noise at its own best
#: λ on E (a convention: "about as good as these columns allow").
REACH_MARGIN = 0.05
#: A model without noise that beats guessing by less than this on E leaves a release nothing to
#: aim at (two points of error: a convention).
LEARNS = 0.02
_STREAM = "release planner"


def public_rows(n_public: int, *, rows: int = PLAN_ROWS, seed: int = 0) -> np.ndarray:
    """Indices of the rows of E the planner simulates on: all of them, or a seeded ``rows``."""
    if n_public <= rows:
        return np.arange(n_public)
    return np.sort(stream(seed, _STREAM, "rows").permutation(n_public)[:rows])


def plan_draws(n_rows: int) -> int:
    """Noise draws per simulated λ for ``n_rows`` rows of E (:data:`PLAN_WORK`)."""
    return int(np.clip(PLAN_WORK // max(int(0.7 * n_rows), 1), 3, 20))


@dataclass(frozen=True)
class PublicReference:
    """A model without noise on E: its 3-fold cross-validated error at its own best λ, that λ,
    the error of always guessing E's most frequent class, and how many rows of E were used."""

    error: float
    lam: float
    guess: float
    rows: int

    def target(self, margin: float = REACH_MARGIN) -> float:
        """The error a useful release reaches: within ``margin`` of this model, or half-way
        from guessing to it where guessing is closer than ``2 margin``."""
        return self.error + min(margin, (self.guess - self.error) / 2.0)

    @property
    def learns(self) -> bool:
        """Whether this model beats guessing by :data:`LEARNS` (else there is little to plan)."""
        return self.guess - self.error >= LEARNS


def public_reference(X_pub, y_pub, *, data_norm: float | None, fit_intercept: bool,
                     seed: int = 0) -> PublicReference:
    """The model without noise on (up to :data:`PLAN_ROWS` rows of) E, at its own best λ.

    :func:`~dpcore.perturbation.experiments.lambda_by_cv` over
    :data:`~dpcore.perturbation.experiments.BEST_LAMBDAS`, records scaled as the release scales
    them. E is public: the number is not a private one.
    """
    X, y = _subset(X_pub, y_pub, seed)
    lam, table = lambda_by_cv(X, y, BEST_LAMBDAS, folds=3, data_norm=data_norm,
                              fit_intercept=fit_intercept, seed=seed)
    return PublicReference(float(table["mean"].min()), lam, guessing_error(y), len(y))


def _subset(X_pub, y_pub, seed: int) -> tuple[np.ndarray, np.ndarray]:
    take = public_rows(len(y_pub), seed=seed)
    return np.asarray(X_pub)[take], np.asarray(y_pub)[take]


@dataclass(frozen=True)
class ReleasePlan:
    """E as the planner simulates the default release on it (:func:`release_plan`): what no ε
    and no ``n`` changes, prepared once, so that the planner at another ε fits no public model
    again.

    Attributes
    ----------
    choose : ReleaseSimulation
        (Up to :data:`PLAN_ROWS` rows of) E in the roles that choose λ (:func:`plan_lambda`).
    score : ReleaseSimulation
        The same rows in other roles (the next seed), that score the chosen λ
        (:func:`release_point`).
    rows : int
        How many rows of E the simulations share.
    """

    choose: ReleaseSimulation
    score: ReleaseSimulation
    rows: int


def release_plan(X_pub, y_pub, *, data_norm: float | None, fit_intercept: bool, classes=None,
                 seed: int = 0) -> ReleasePlan:
    """The centred release's two simulations on (up to :data:`PLAN_ROWS` rows of) E, prepared
    (:func:`~dpcore.perturbation.experiments.release_simulation`): in the roles of ``seed``
    (choosing λ) and of ``seed + 1`` (scoring it)."""
    X, y = _subset(X_pub, y_pub, seed)
    common = dict(data_norm=data_norm, fit_intercept=fit_intercept, classes=classes,
                  centred=True)
    return ReleasePlan(release_simulation(X, y, seed=seed, **common),
                       release_simulation(X, y, seed=seed + 1, **common), len(y))


def plan_lambda(X_pub, y_pub, epsilon: float, *, n_private: int, data_norm: float | None,
                fit_intercept: bool, classes=None, seed: int = 0) -> float:
    """λ as the release of ``n_private`` records at ``epsilon`` picks it:
    :func:`~dpcore.perturbation.experiments.release_lambda` of the release centred on a public
    model (``centred=True``) on (up to :data:`PLAN_ROWS` rows of) E with :func:`plan_draws`
    draws."""
    X, y = _subset(X_pub, y_pub, seed)
    return release_lambda(X, y, n_private=int(n_private), epsilon=float(epsilon),
                          data_norm=data_norm, fit_intercept=fit_intercept, classes=classes,
                          draws=plan_draws(len(y)), seed=seed, centred=True)[0]


def release_point(X_pub, y_pub, epsilon: float, *, n_private: int, data_norm: float | None,
                  fit_intercept: bool, classes=None, seed: int = 0,
                  lam: float | None = None, plan: ReleasePlan | None = None
                  ) -> tuple[float, float]:
    """The default release of ``n_private`` records at ``epsilon``, centred on a public model,
    simulated on E.

    λ as the release picks it (:func:`plan_lambda`); its error from a second, independent
    simulation of the centred release at that λ (another seeded split of E in three parts,
    other draws), so that picking the best of many λ does not flatter it. ``lam``, if given,
    is that λ already chosen (a page passes the one its release picked on all of E, so the
    note and the release name one λ); it too must come from public data. ``plan``, if given,
    is :func:`release_plan` of the same E, parameters and seed, kept by the caller: then no
    public model is fitted again (the numbers are the same).

    Returns
    -------
    lam : float
    error : float
        The mean simulated test error on E's held-out part.
    """
    if plan is None:
        plan = release_plan(X_pub, y_pub, data_norm=data_norm, fit_intercept=fit_intercept,
                            classes=classes, seed=seed)
    draws = plan_draws(plan.rows)
    if lam is None:
        lam = simulated_release(plan.choose, n_private=int(n_private), epsilon=float(epsilon),
                                draws=draws)[0]
    _, table = simulated_release(plan.score, n_private=int(n_private), epsilon=float(epsilon),
                                 lams=(lam,), draws=draws)
    return lam, float(table["error"].iloc[0])


def reach_note(point: Callable[[float], tuple[float, float]], *, epsilon: float, n: int, d: int,
               reference: PublicReference, grid: Sequence[float] = PLAN_EPSILONS,
               margin: float = REACH_MARGIN) -> str | None:
    """What the default release at ``epsilon`` and ``n`` records gives, and what would make it
    useful; None when it already is (at most ``reference.target(margin)``), or when it beats
    guessing and ``reference`` itself does not learn (:attr:`PublicReference.learns`).

    Parameters
    ----------
    point : callable
        ``point(ε) -> (λ, error)``: :func:`release_point` at ε for these ``n`` records (a page
        passes a cached one). Called at ``epsilon`` and, when the release is not useful there,
        at the ε of ``grid`` above it, upwards, up to the first that is.
    epsilon, n, d : the release's ε, its number of records and the model's d (public)
    reference : PublicReference
    grid : sequence of float
        The ε beyond ``epsilon`` at which the curve is read (:func:`crossing`: the first that
        reaches the target, linear in log ε from the one before, so the answer is always above
        ``epsilon``, where the release was measured not to reach it).

    The noise of the release shrinks like ``1 / (n ε)``, so the n that would do at ``epsilon``
    is about ``n ε* / ε`` for the ε* read off the curve.
    """
    lam, here = point(float(epsilon))
    start = (f"At n = {n:,}, d = {d} the release Publish makes (approximate minima "
             "perturbation centred on the public model, a logistic regression fitted on E) at "
             f"ε = {epsilon:g} has a test error of {here:.2f}, simulated on the public set E "
             f"({reference.rows:,} rows, λ = {lam:.2g} as the release would choose it). A model "
             f"without noise reaches {reference.error:.2f} there (its own best λ), always "
             f"guessing the most frequent class {reference.guess:.2f}. ")
    if not reference.learns:
        if here < reference.guess:
            return None
        return start + ("On E these columns say little about the target, so no ε or n can make "
                        "a release say much more.")
    target = reference.target(margin)
    if here <= target:
        return None
    eps, errors = [float(epsilon)], [here]
    for e in sorted(set(map(float, grid))):  # upwards, only as far as the first that reaches
        if e > epsilon:
            eps.append(e)
            errors.append(point(e)[1])
            if errors[-1] <= target:
                break
    needed = crossing(eps, errors, target)
    if needed is None:
        rows = float(f"{n * max(eps) / epsilon:.2g}")
        return start + (f"No ε up to {max(eps):g} brings the release to {target:.2f} "
                        f"({min(errors):.2f} at best): at ε = {epsilon:g} it would need more "
                        f"than n ≈ {rows:,.0f} records (the noise shrinks like 1/(n·ε)). The "
                        f"simulation fits a third of E ({reference.rows // 3:,} rows) as the "
                        "private set, so part of the shortfall may be E's size rather than "
                        "the noise.")
    rows = float(f"{n * needed / epsilon:.2g}")
    return start + (f"ε ≈ {needed:.2g}, or n ≈ {rows:,.0f} records at ε = {epsilon:g}, would "
                    f"reach {target:.2f} (the noise shrinks like 1/(n·ε)).")


def crossing(epsilons: Sequence[float], errors: Sequence[float], target: float) -> float | None:
    """The first ε at which a curve that starts above ``target`` reaches it, linear in log ε
    between the two grid points around it; None if it never does.

    Examples
    --------
    >>> crossing([1.0, 2.0, 4.0], [0.4, 0.2, 0.1], 0.15) == 2.0 * 2.0 ** 0.5
    True
    """
    for i in range(1, len(epsilons)):
        if errors[i] <= target:
            lo, hi = np.log(epsilons[i - 1]), np.log(epsilons[i])
            share = (errors[i - 1] - target) / (errors[i - 1] - errors[i])
            return float(np.exp(lo + share * (hi - lo)))
    return None
