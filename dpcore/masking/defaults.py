"""The masking page's λ for a scenario, read off the public set E (it spends nothing).

Pham et al.'s model has no intercept and its records are centred by E's mean, so a heavily
penalised model (the paper's λ = 0.5 on its own data) splits the records at that mean whatever
the classes' base rate: on Adult its accuracy (0.691) falls below always guessing the majority
class (0.707). The best λ depends on the table (how much a penalty costs against how much noise
it saves), so it is read off the public set, as the logistic regression page's release does
(:func:`dpcore.perturbation.experiments.release_lambda`): for each λ of the page's slider, fit
70 % of E (centred and scaled as the task's records), add the noise of step 2 of Algorithm 1
for the private set's size at ε (:func:`dpcore.perturbation.perturb_output`, the generator's
own law), score the other 30 %, and keep the λ with the best mean accuracy. Only E, ``N_D``
(public under replace-one) and ε are read.

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithm 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from dpcore.masking.experiments import scenario_task
from dpcore.masking.generator import GAP_TOL, lipschitz_constant, scale_records
from dpcore.masking.model import fit_logistic_model, predict_labels
from dpcore.perturbation.output import perturb_output
from dpcore.random import stream
from dpcore.validation import DataError, check_epsilon

__all__ = ["LAMBDAS", "LEARNS", "PUBLIC_TRAIN", "best_lambda", "default_lambda",
           "public_lambda_table", "reach_note"]

#: The λ tried: the page's slider up to the paper's 0.5.
LAMBDAS = (0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5)
#: Share of E fitted; the rest scores the simulated releases.
PUBLIC_TRAIN = 0.7
#: A simulated accuracy this far above always guessing E's majority class counts as learning.
LEARNS = 0.01


def public_lambda_table(scenario, epsilon: float, *, lams: Sequence[float] = LAMBDAS,
                        draws: int = 20, seed: int = 0) -> pd.DataFrame:
    """Mean accuracy on E's held-out part of the noisy classifier w′ that Algorithm 1 would
    publish at ``epsilon`` for each λ, simulated on the public set E only.

    Parameters
    ----------
    scenario : dpcore.datasets.Scenario
        Needs a 0/1 target; only E, the encoding and the number of private rows are read.
    epsilon : float
    lams : sequence of float, default=LAMBDAS
    draws : int, default=20
        Noise draws per λ (a seeded study: nothing is released or spent).
    seed : int, default=0

    Returns
    -------
    DataFrame
        Columns ``lam``, ``accuracy`` (mean over draws), ``noise_free`` (the fit itself, no
        noise) and ``majority`` (always guessing E's most frequent class), all on E's held-out
        rows: public numbers.
    """
    epsilon = check_epsilon(epsilon)
    task = scenario_task(scenario)  # the page's task: its centring, bound and private size
    target = scenario.target
    X = scenario.public[scenario.predictors].to_numpy(float) - task.offset
    y = scenario.public[target].to_numpy().astype(np.intp)
    order = stream(seed, "masking", "public lambda").permutation(len(y))
    cut = int(PUBLIC_TRAIN * len(y))
    train, test = order[:cut], order[cut:]
    if test.size == 0 or np.unique(y[train]).size < 2:
        raise DataError(f"The public set has {len(y)} rows: too few (or one class in its "
                        "first 70 %) to choose λ on; set λ by hand.")
    Xs, _ = scale_records(X, task.data_norm)
    n_private = len(task.y_private)
    majority = float(max(np.mean(y[test]), 1.0 - np.mean(y[test])))
    rows = []
    for lam in lams:
        coef = fit_logistic_model(Xs[train], y[train], lam=float(lam), n_classes=2).coef
        noisy = perturb_output(np.broadcast_to(coef.ravel(), (draws, coef.size)), n=n_private,
                               lam=float(lam), epsilon=epsilon, lipschitz=lipschitz_constant(2),
                               gap=GAP_TOL, rng=stream(seed, "masking", "public lambda", lam))
        predicted = predict_labels(noisy.reshape(draws, 1, -1), Xs[test])
        rows.append({"lam": float(lam), "accuracy": float(np.mean(predicted == y[test])),
                     "noise_free": float(np.mean(predict_labels(coef, Xs[test]) == y[test])),
                     "majority": majority})
    return pd.DataFrame(rows)


def best_lambda(table: pd.DataFrame) -> float:
    """The λ of a :func:`public_lambda_table` with the best simulated accuracy; of a tie, the
    larger (less noise for the same accuracy)."""
    best = table["accuracy"].max()
    return float(table.loc[table["accuracy"] >= best - 1e-12, "lam"].max())


def default_lambda(scenario, epsilon: float, **options) -> float:
    """The masking page's λ for ``scenario`` at ``epsilon``: :func:`best_lambda` of its
    :func:`public_lambda_table` (``options`` go to that function).

    Examples
    --------
    >>> from dpcore.datasets import load_scenario
    >>> default_lambda(load_scenario("adult"), 5.0) < 0.5
    True
    """
    return best_lambda(public_lambda_table(scenario, epsilon, **options))


def reach_note(table_at: Callable[[float], pd.DataFrame], epsilon: float, lam: float,
               n_private: int, epsilons: Sequence[float]) -> str:
    """What λ or ε would help the masked set's model, in numbers simulated on the public set:
    the simulated accuracy at the page's λ and at the best λ, the fit without noise, and the
    smallest of ``epsilons`` from which the noise costs at most :data:`LEARNS` there.

    Parameters
    ----------
    table_at : callable
        ``epsilon -> public_lambda_table(scenario, epsilon)`` (a page passes its cached one).
    epsilon, lam : float
        The page's settings.
    n_private : int
        Records the generator fits (public under replace-one).
    epsilons : sequence of float
        The budgets the page offers.
    """
    table = table_at(epsilon)
    here = float(table.iloc[(table["lam"] - lam).abs().argmin()]["accuracy"])
    best, top = best_lambda(table), float(table["accuracy"].max())
    clean = float(table["noise_free"].max())
    words = [f"Simulated on the public set (a fit to 70 % of E, the noise of step 2 for "
             f"N_D = {n_private:,} records, scored on the other 30 %; no private data read): "
             f"at ε = {epsilon:g} the classifier w′ reaches {here:.3f} at λ = {lam:g} and "
             f"{top:.3f} at λ = {best:g}; without noise the model reaches {clean:.3f} there "
             f"(E's majority class: {float(table['majority'].iloc[0]):.3f})."]
    if best != lam and top > here + LEARNS:
        words.append(f"Set λ = {best:g}.")
    if top < clean - LEARNS:
        enough = next((e for e in sorted(epsilons) if e > epsilon
                       and float(table_at(e)["accuracy"].max()) >= clean - LEARNS), None)
        words.append(f"From ε = {enough:g} the noise costs at most {LEARNS:g} there."
                     if enough is not None else
                     f"Even at ε = {max(epsilons):g} the noise costs more than {LEARNS:g} "
                     "there: this table needs more private records.")
    return " ".join(words)
