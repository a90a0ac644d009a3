"""Monte-Carlo studies of the importance weights ([JE13]_ Sect. 5 and Fig. 3).

Simulations, not releases: every fit here is non-private and every noise comes from the study's
seed (named streams of :mod:`dpcore.random`), so the same seed gives the same numbers.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import softmax

from dpcore.importance.mechanism import (
    TOL,
    balanced_design,
    check_lam,
    design_matrices,
    query_values,
    release_sensitivity,
    weighted_means,
    with_intercept,
)
from dpcore.logistic import BatchedProblem, fit_logistic, fit_logistic_batched
from dpcore.mechanisms import L2Laplace
from dpcore.model_selection import cv_accuracy, cv_penalty
from dpcore.parallel import SEQUENTIAL, Parallel
from dpcore.perturbation import perturb_output
from dpcore.random import stream, study_seed
from dpcore.simulation import Progress, bootstrap_counts, noisy_replicates, report
from dpcore.validation import DataError, check_array, check_epsilon, check_scalar

__all__ = [
    "BootstrapFits",
    "BootstrapStudy",
    "bootstrap_estimates",
    "bootstrap_fits",
    "model_design",
    "model_distances",
    "model_penalty",
    "monte_carlo",
]


@dataclass(frozen=True)
class BootstrapFits:
    """Non-private ``beta*`` for R bootstrap resamples of D at one ``lam`` (a simulation state).

    Everything here is computed from the private data without noise: it exists to study the
    mechanism, never to be released.
    """

    lam: float
    coefs: np.ndarray  # (R, d) beta* of each resample
    coef_full: np.ndarray  # (d,) beta* on the whole of D (the non-private reference beta_0)
    public: np.ndarray  # (N_E, d) public design, intercept included
    n_private: int
    seed: int

    @property
    def d(self) -> int:
        return self.coefs.shape[1]

    @property
    def n_reps(self) -> int:
        return self.coefs.shape[0]

    def mechanism(self, epsilon: float) -> L2Laplace:
        """The release's noise at ``epsilon`` for these fits (what a study simulates)."""
        return L2Laplace(epsilon, release_sensitivity(self.d, self.n_private, self.lam), self.d)


class BootstrapStudy:
    """``n_reps`` bootstrap resamples of D against E, prepared once and fitted at any ``lam``.

    A simulation of the mechanism ([JE13]_ Sect. 5), not a release: the fits are non-private.
    The resamples depend only on the seed, so fits at different ``lam`` share them; the merged
    design is built once, so a lam slider or grid pays only for the fits.

    Parameters
    ----------
    private, public : DataFrame or array of shape (n, d)
        Encoded records, private ones in [0, 1]^d (clipped into it, as in
        :class:`ImportanceWeights`).
    n_reps : int, default=100
    rng : None, int or numpy.random.Generator, default=None
    fit_intercept : bool
        As in :class:`ImportanceWeights`.
    """

    def __init__(self, private, public, n_reps: int = 100, *, rng=None,
                 fit_intercept: bool = True) -> None:
        if isinstance(n_reps, bool) or not isinstance(n_reps, int | np.integer) or n_reps < 1:
            raise ValueError(f"n_reps == {n_reps!r}, must be an integer >= 1.")
        self.n_reps = int(n_reps)
        self.seed = study_seed(rng)
        X_D, X_E = design_matrices(private, public, fit_intercept)
        n_D, n_E = X_D.shape[0], X_E.shape[0]
        X, y, s = balanced_design(X_D, X_E)
        # Column 0 holds the whole of D (beta_0's fit); the others the resamples.
        S = np.empty((n_D + n_E, self.n_reps + 1))
        S[:, 0] = s
        S[:n_D, 1:] = bootstrap_counts(n_D, self.n_reps, self.seed) / n_D
        S[n_D:, 1:] = 1.0 / n_E
        self.problem = BatchedProblem(X, y, S)
        self.public = X_E
        self.n_private = n_D

    def fit(self, lam: float) -> BootstrapFits:
        """``beta*`` of every resample, and of the whole of D, at ``lam`` (one batched solve)."""
        fitted = self.problem.fit(lam=check_lam(lam), tol=TOL)
        return BootstrapFits(float(lam), fitted[1:], fitted[0], self.public, self.n_private,
                             self.seed)

    def fit_many(self, lambdas: Iterable[float], *, parallel: Parallel | None = None,
                 progress: Progress = None) -> list[BootstrapFits]:
        """:meth:`fit` at every ``lam`` of a grid, one cell per ``lam`` run by ``parallel``.

        The fits are deterministic (no noise is drawn), so they are the same on every backend;
        ``None`` runs them here, one after another.
        """
        lambdas = [check_lam(lam) for lam in lambdas]
        return (parallel or SEQUENTIAL).map(_fit_cell, lambdas, progress=progress, shared=self)


def _fit_cell(lam: float, study: BootstrapStudy) -> BootstrapFits:
    """One cell of :meth:`BootstrapStudy.fit_many` (top level, so that workers can unpickle it)."""
    return study.fit(lam)


def bootstrap_fits(private, public, lam: float, n_reps: int = 100, *, rng=None,
                   fit_intercept: bool = True) -> BootstrapFits:
    """Fit ``beta*`` on ``n_reps`` bootstrap resamples of D in one batched solve."""
    study = BootstrapStudy(private, public, n_reps, rng=rng, fit_intercept=fit_intercept)
    return study.fit(lam)


def bootstrap_estimates(fits: BootstrapFits, public_values, epsilon: float | None) -> np.ndarray:
    """Estimates ``(1/N_E) sum_E b w`` of every replicate after Algorithm 1 step 2's noise.

    ``epsilon=None`` gives the noiseless estimates (``beta*`` itself). The noise is the release's
    (:class:`~dpcore.mechanisms.L2Laplace` at :func:`release_sensitivity`), drawn from the stream
    ``(seed, "importance", lam, epsilon)``, so moving epsilon reuses the fits and only draws
    noise.
    """
    b_E = np.asarray(public_values, dtype=float).ravel()
    if epsilon is None:
        return weighted_means(fits.public, fits.coefs, b_E)
    ((_, noisy),) = noisy_replicates(fits.coefs, [epsilon], fits.mechanism, fits.seed,
                                     "importance", fits.lam)
    return weighted_means(fits.public, noisy, b_E)


def _lambda_cell(cell: tuple[float, list[float], np.ndarray],
                 study: BootstrapStudy) -> list[np.ndarray]:
    """One cell of :func:`monte_carlo`'s grid: the fits at one ``lam``, the estimates at every
    epsilon (noise from the stream ``(seed, "importance", lam, epsilon)``, whoever runs it)."""
    lam, epsilons, b_E = cell
    fits = study.fit(lam)
    return [bootstrap_estimates(fits, b_E, eps) for eps in epsilons]


def monte_carlo(private, public, query, lambdas: Iterable[float], epsilons: Iterable[float],
                n_reps: int = 100, *, rng=None, progress: Progress = None,
                fit_intercept: bool = True, parallel: Parallel | None = None) -> pd.DataFrame:
    """Estimates over ``n_reps`` bootstrap resamples of D for a grid of ``lam`` and ``epsilon``.

    One batched solve per ``lam``; every ``epsilon`` reuses it and only draws noise. Each ``lam``
    is one cell of the grid, run by ``parallel``: its noise comes from its own named streams and
    the resamples from the seed, so the numbers are the same on every backend.

    Parameters
    ----------
    private, public : DataFrame or array of shape (n, d)
        Encoded records, private ones in [0, 1]^d.
    query : Query, column name, callable, or pair (private_values, public_values)
        The query ``b``; see :func:`~dpcore.importance.mechanism.query_values`.
    lambdas, epsilons : iterables of float
    n_reps : int, default=100
    rng : None, int or numpy.random.Generator, default=None
    progress : callable taking the fraction done, default=None
    parallel : dpcore.parallel.Parallel, default=None
        Where the cells (one per ``lam``) run; None runs them here, one after another.

    Returns
    -------
    DataFrame with one row per (lam, epsilon, rep) and columns ``lam``, ``epsilon``, ``rep``,
    ``estimate``, plus ``truth`` (the non-private mean of b over D) and ``public_mean``.
    """
    lambdas = [check_lam(lam) for lam in lambdas]
    epsilons = [check_epsilon(eps) for eps in epsilons]
    b_D, b_E = query_values(query, private, public)
    study = BootstrapStudy(private, public, n_reps, rng=rng, fit_intercept=fit_intercept)
    cells = [(lam, epsilons, b_E) for lam in lambdas]
    per_lam = (parallel or SEQUENTIAL).map(_lambda_cell, cells, progress=progress, shared=study)
    frames = [pd.DataFrame({"lam": lam, "epsilon": eps, "rep": np.arange(n_reps),
                            "estimate": estimates})
              for lam, row in zip(lambdas, per_lam, strict=True)
              for eps, estimates in zip(epsilons, row, strict=True)]
    out = pd.concat(frames, ignore_index=True)
    out["truth"] = float(b_D.mean())
    out["public_mean"] = float(b_E.mean())
    return out


def _svm_coef(X: np.ndarray, y: np.ndarray, weights: np.ndarray, Lambda: float) -> np.ndarray:
    """Linear SVM minimising ``Lambda/2 ||w||^2 + (1/n) sum_i weights_i hinge_i``."""
    from sklearn.svm import LinearSVC

    # liblinear's dual solver shuffles with a seed; a fixed one makes the study reproducible
    # (without it, it reads numpy's global random state).
    model = LinearSVC(C=1.0 / (X.shape[0] * Lambda), loss="hinge", fit_intercept=False,
                      dual=True, tol=1e-6, max_iter=20_000, random_state=0)
    model.fit(X, y, sample_weight=weights)
    return model.coef_[0]


def model_design(private, public, target: str, exclude: Sequence[str] = ()
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The models' rows: ``(F_D, F_E, y_D, y_E)``, the features every column but ``target`` and
    ``exclude`` (private ones clipped into [0, 1], :func:`design_matrices`) with a constant
    column appended, the labels ``target``'s 0/1 values."""
    if not isinstance(private, pd.DataFrame) or target not in private.columns:
        raise DataError(f"target {target!r} must be a column of the private DataFrame.")
    features = [c for c in private.columns if c != target and c not in set(exclude)]
    F_D, F_E = design_matrices(private[features], public[features], True)
    y_D, y_E = private[target].to_numpy(float), public[target].to_numpy(float)
    if len(np.unique(y_D)) < 2 or len(np.unique(y_E)) < 2:
        raise DataError(f"target {target!r} needs both classes in the private and public sets.")
    return F_D, F_E, y_D, y_E


def model_penalty(public, target: str, exclude: Sequence[str] = ()) -> float:
    """The models' penalty ``Lambda``: :func:`dpcore.model_selection.cv_penalty` of the logistic
    regression on the public set E alone (free: it reads nothing private)."""
    if not isinstance(public, pd.DataFrame) or target not in public.columns:
        raise DataError(f"target {target!r} must be a column of the public DataFrame.")
    features = [c for c in public.columns if c != target and c not in set(exclude)]
    F_E = with_intercept(check_array(public[features], "public"), True)
    return cv_penalty(F_E, public[target].to_numpy(float))


def _accuracy(F: np.ndarray, y: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """The share of rows of ``F`` each row of ``coef`` classifies right (labels ``y``)."""
    return np.mean((np.atleast_2d(coef) @ F.T > 0) == (y == 1), axis=1)


def model_distances(private, public, target: str, lam: float, epsilons: Iterable[float],
                    n_reps: int = 20, *, rng=None, Lambda: float | None = None,
                    exclude: Sequence[str] = (), progress: Progress = None,
                    fit_intercept: bool = True) -> pd.DataFrame:
    """Distance between linear models trained on weighted E and on D ([JE13]_ Fig. 3).

    For each bootstrap resample and epsilon, the importance weights of Algorithm 1 weight E; a
    linear SVM (hinge loss) and a logistic regression, both with penalty ``Lambda/2 ||w||^2`` and
    an appended constant feature, are trained on weighted E to predict ``target`` from the other
    columns (minus ``exclude``, for example the other items of the target's one-hot group), and
    compared by Euclidean distance with the same model trained on D (non-private reference).
    ``Lambda=None`` takes :func:`model_penalty`, cross-validated on E alone (public).

    Each model is also scored by its accuracy on D (column ``accuracy_nonprivate``: a
    non-private evaluation; E and D are disjoint, so it is out of sample). The ``attrs`` hold
    ``Lambda``, the reference norms, and what the logistic regression reaches without the
    weights: ``"accuracy_public_only"`` (trained on E alone, on D), ``"best_penalty_nonprivate"``
    and ``"best_accuracy_nonprivate"`` (the model on D at its own best penalty and its
    cross-validated accuracy: a non-private reference) and ``"majority_nonprivate"`` (the
    majority class's share of D).

    Two references sit beside them: ``"no noise (non-private)"`` (weights from ``beta*``,
    bootstrap only) and
    ``"output perturbation"``: the SVM trained on D released by
    :func:`dpcore.perturbation.perturb_output` (L2 sensitivity ``2 R / (N_D Lambda)`` with
    ``R = sqrt(d)`` the largest record norm in [0, 1]^d, the hinge loss 1-Lipschitz;
    [CMS11]_ Algorithm 1, replace-one; SVM only, as in the paper). Every noise is simulated from
    the study's seed: nothing here is a release.

    Returns a DataFrame with columns ``model``, ``method``, ``epsilon``, ``rep``, ``distance``.
    """
    epsilons = [check_epsilon(eps) for eps in epsilons]
    F_D, F_E, y_D, y_E = model_design(private, public, target, exclude)
    Lambda = check_scalar(model_penalty(public, target, exclude) if Lambda is None else Lambda,
                          "Lambda", min_val=0.0)
    n_D = F_D.shape[0]
    study = BootstrapStudy(private, public, n_reps, rng=rng, fit_intercept=fit_intercept)
    fits, seed = study.fit(lam), study.seed
    ref = {
        "linear SVM": _svm_coef(F_D, y_D, np.ones(n_D), Lambda),
        "logistic regression": fit_logistic(F_D, y_D, np.full(n_D, 1.0 / n_D), lam=Lambda,
                                            tol=TOL).coef,
    }
    rows: list[dict] = []
    noisy = noisy_replicates(fits.coefs, epsilons, fits.mechanism, seed, "importance", fits.lam)
    settings = [("no noise (non-private)", None, fits.coefs)] + [("importance weights", eps, B)
                                                   for eps, B in noisy]
    for k, (method, eps, B) in enumerate(settings):
        W = softmax(fits.public @ B.T, axis=0)  # (N_E, R), columns sum to 1
        logreg = fit_logistic_batched(F_E, y_E, W, lam=Lambda, coef_init=ref["logistic regression"],
                                      tol=TOL)
        for r in range(fits.n_reps):
            svm = _svm_coef(F_E, y_E, W[:, r] * F_E.shape[0], Lambda)
            for model, coef in (("linear SVM", svm), ("logistic regression", logreg[r])):
                rows.append({"model": model, "method": method, "epsilon": eps, "rep": r,
                             "distance": float(np.linalg.norm(coef - ref[model])),
                             "accuracy_nonprivate": float(_accuracy(F_D, y_D, coef)[0])})
        report(progress, (k + 1) / (len(settings) + 1))
    d_svm = F_D.shape[1]
    svm_ref = np.broadcast_to(ref["linear SVM"], (fits.n_reps, d_svm))
    for eps in epsilons:
        released = perturb_output(svm_ref, n=n_D, lam=Lambda, epsilon=eps,
                                  data_norm=np.sqrt(d_svm),
                                  rng=stream(seed, "output perturbation", eps))
        correct = _accuracy(F_D, y_D, released)
        rows += [{"model": "linear SVM", "method": "output perturbation", "epsilon": eps, "rep": r,
                  "distance": float(np.linalg.norm(released[r] - ref["linear SVM"])),
                  "accuracy_nonprivate": float(correct[r])}
                 for r in range(fits.n_reps)]
    public_only = fit_logistic(F_E, y_E, np.full(len(y_E), 1.0 / len(y_E)), lam=Lambda,
                               tol=TOL).coef
    best = cv_penalty(F_D, y_D)
    report(progress, 1.0)
    out = pd.DataFrame(rows)
    out.attrs["reference_norm"] = {m: float(np.linalg.norm(c)) for m, c in ref.items()}
    out.attrs.update({
        "Lambda": Lambda, "accuracy_public_only": float(_accuracy(F_D, y_D, public_only)[0]),
        "best_penalty_nonprivate": best,
        "best_accuracy_nonprivate": float(cv_accuracy(F_D, y_D, [best])[0]),
        "majority_nonprivate": float(max(y_D.mean(), 1.0 - y_D.mean()))})
    return out
