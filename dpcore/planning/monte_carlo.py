"""Monte-Carlo error curves of the pages' mechanisms, for :func:`~dpcore.planning.search_epsilon`.

Each curve is a *non-private study*: it evaluates errors against the non-private truth, so the
epsilon read off it depends on the data. Run it on a public stand-in (:func:`public_stand_in`,
half of the scenario's E as a pretend D) to choose epsilon without looking at D.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dpcore.importance import bootstrap_estimates
from dpcore.perturbation.experiments import epsilon_curve, lambda_rule, public_prior
from dpcore.perturbation.model import prepare, private_coefs
from dpcore.planning.release import plan_lambda
from dpcore.random import stream
from dpcore.simulation import report
from dpcore.subset import subset_study
from dpcore.validation import check_random_state

__all__ = ["importance_errors", "logistic_errors", "public_stand_in", "subset_errors"]


def importance_errors(fits: Any, public_values: Any, truth: float,
                      epsilons: Iterable[float]) -> np.ndarray:
    """``|estimate - truth|`` of every bootstrap replicate at every epsilon, shape (k, R).

    Reuses the non-private bootstrap fits (:class:`dpcore.importance.BootstrapFits`, e.g. the
    importance page's cached ones) and draws only the release's noise at each epsilon, from the
    study's named streams (:func:`dpcore.importance.bootstrap_estimates`). A seeded simulation.
    """
    return np.stack([np.abs(bootstrap_estimates(fits, public_values, float(eps)) - truth)
                     for eps in epsilons])


def logistic_errors(X: Any, y: Any, epsilons: Sequence[float], *, X_test: Any = None,
                    y_test: Any = None, restarts: int = 10, data_norm: float | None = 1.0,
                    fit_intercept: bool = False, method: str = "amp", X_pub: Any = None,
                    y_pub: Any = None, classes: Any = None, lam: float | None = None,
                    folds: int = 3, seed: int = 0, progress: Any = None) -> np.ndarray:
    """Test error of private logistic regression at every epsilon, shape (k, folds x restarts).

    ``method="amp"`` (default): the release the perturbation page publishes, approximate minima
    perturbation (seeded: a study of the release's law) with its penalty centred on the public
    model (:func:`~dpcore.perturbation.experiments.public_prior` of ``X_pub``, ``y_pub``), at
    the λ the release picks on the public set (:func:`dpcore.planning.release.plan_lambda`,
    for the records of a training part), or at ``lam`` when given (centred on 0 without E).
    Each split's training part is fitted ``restarts`` times (one batched solve,
    :func:`~dpcore.perturbation.model.private_coefs`) and scored on its test part (``X_test``
    if given, else ``folds``-fold cross-validation).

    Another method ("output perturbation", "objective perturbation", "objective (2008
    proof)") runs :func:`dpcore.perturbation.experiments.epsilon_curve` (the perturbation
    page's study); ``lam=None`` then takes
    :func:`~dpcore.perturbation.experiments.lambda_rule` at each epsilon (a rule of epsilon,
    n and d that reads no data). ``progress(fraction)`` is called after each epsilon (after
    each fold for a study method at one λ).
    """
    eps = [float(e) for e in epsilons]
    if method == "amp":
        return _amp_errors(X, y, eps, X_test=X_test, y_test=y_test, restarts=restarts,
                           data_norm=data_norm, fit_intercept=fit_intercept, X_pub=X_pub,
                           y_pub=y_pub, classes=classes, lam=lam, folds=folds, seed=seed,
                           progress=progress)
    common = dict(restarts=restarts, X_test=X_test, y_test=y_test, data_norm=data_norm,
                  fit_intercept=fit_intercept, methods=(method,), seed=seed, excess=False,
                  **({"folds": folds} if X_test is None else {}))
    n = np.asarray(X).shape[0] - (0 if X_test is not None else np.asarray(X).shape[0] // folds)
    d = np.asarray(X).shape[1] + int(fit_intercept)
    if lam is None:
        rule = "objective" if method.startswith("objective") else "output"
        lams = [lambda_rule(e, n, d, rule) for e in eps]
        res = epsilon_curve(X, y, epsilons=eps, lam=lams, progress=progress, **common)
    else:
        res = epsilon_curve(X, y, epsilons=eps, lam=lam, progress=progress, **common)
    res = res.sort_values(["epsilon", "fold", "restart"])
    return res["error"].to_numpy().reshape(len(eps), -1)


def _amp_errors(X, y, epsilons: list[float], *, X_test, y_test, restarts: int, data_norm,
                fit_intercept: bool, X_pub, y_pub, classes, lam, folds: int, seed: int,
                progress) -> np.ndarray:
    """:func:`logistic_errors` of the default release (``method="amp"``): centred on the
    public model of E (:func:`~dpcore.perturbation.experiments.public_prior`) when E is given,
    each (ε, split) one batch of ``restarts`` seeded solves
    (:func:`~dpcore.perturbation.model.private_coefs`)."""
    X, y = np.asarray(X, dtype=float), np.asarray(y)
    if lam is None and (X_pub is None or y_pub is None):
        raise ValueError("The release's λ is chosen on public data: pass X_pub and y_pub (the "
                         "public set E), or a lam.")
    if X_test is not None:
        splits = [(np.arange(len(y)), np.asarray(X_test, dtype=float), np.asarray(y_test))]
    else:
        order = stream(seed, "planning", "logistic folds").permutation(len(y))
        parts = np.array_split(order, folds)
        splits = [(np.concatenate(parts[:k] + parts[k + 1:]), X[part], y[part])
                  for k, part in enumerate(parts)]
    preps = [prepare(X[train], y[train], data_norm=data_norm, fit_intercept=fit_intercept,
                     classes=classes) for train, _, _ in splits]
    centre = None if X_pub is None or y_pub is None else public_prior(
        X_pub, y_pub, data_norm=data_norm, fit_intercept=fit_intercept, classes=classes,
        seed=seed)
    n_fit = min(prep.n for prep in preps)  # folds differ by a record at most
    rows = np.empty((len(epsilons), len(splits) * restarts))
    for i, eps in enumerate(epsilons):
        lam_eps = lam if lam is not None else plan_lambda(
            X_pub, y_pub, eps, n_private=n_fit, data_norm=data_norm, fit_intercept=fit_intercept,
            classes=classes, seed=seed)
        for k, (prep, (_, X_eval, y_eval)) in enumerate(zip(preps, splits, strict=True)):
            prior = None if centre is None else prep.from_model(centre.coef_,
                                                                centre.intercept_[0])
            W, _ = private_coefs(prep, epsilons=[eps], lam=lam_eps, restarts=restarts,
                                 method="amp", rng=stream(seed, "planning", "logistic", eps, k),
                                 prior=prior)
            coef, intercept = prep.to_model(W[0])  # (restarts, d), (restarts,)
            margin = X_eval @ coef.T + intercept  # (n_eval, restarts)
            truth = (y_eval == prep.classes[1])[:, None]
            rows[i, k * restarts:(k + 1) * restarts] = np.mean((margin > 0) != truth, axis=0)
        report(progress, (i + 1) / len(epsilons))
    return rows


def subset_errors(data: Any, epsilons: Sequence[float], *, sizes: Sequence[int] | None = None,
                  repeats: int = 3, split: tuple[float, float, float] = (0.8, 0.2, 1.0),
                  lam: float = 1e-2, seed: int = 0, progress: Any = None) -> np.ndarray:
    """Prediction error ``t`` of the subset Algorithm 2 selects, per epsilon and repeat (k, R).

    Runs :func:`dpcore.subset.subset_study` (the optimal-subset page's study, non-private
    evaluation) for each epsilon, without Lei's baseline. Each epsilon is the total one run
    costs, shared in the ratios ``split`` (as on the subset page).
    """
    rows = []
    epsilons = list(epsilons)
    for i, eps in enumerate(epsilons):
        study = subset_study(data, epsilon=tuple(f * float(eps) / sum(split) for f in split),
                             sizes=sizes,
                             repeats=repeats, lam=lam, lei=False, rng=seed)
        rows.append(study.selected_error)
        report(progress, (i + 1) / len(epsilons))
    return np.stack(rows)


def public_stand_in(public: pd.DataFrame, *, rng: Any = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A random half of the public set E as a pretend private set, the other half as public.

    Lets a study choose epsilon without reading D: the answer then reflects no shift between
    the two sets and half of E's records (usually fewer than D's, so more noise), a rough and
    mostly conservative guide. Seeded: a study, not a release.
    """
    gen = check_random_state(rng)
    order = gen.permutation(len(public))
    half = len(public) // 2
    if half < 2:
        raise ValueError(f"The public set has {len(public)} rows; a stand-in needs at least 4.")
    rows = public.reset_index(drop=True)
    return rows.iloc[order[:half]].reset_index(drop=True), rows.iloc[order[half:]].reset_index(
        drop=True)
