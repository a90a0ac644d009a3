"""The masking page's λ for a scenario, read off the public set E (it spends nothing).

On a scenario the page's model has an intercept and a penalty ``λ/2 ||W - W_E||^2`` centred at
the public model ``W_E`` (:func:`dpcore.masking.prior.public_model`): a large λ shrinks the
noise of step 2 (scale ``2 / (N_D λ ε)``) and pulls the release towards ``W_E``, a small one
lets the private records speak. Which is better depends on the table, ``N_D`` and ε, so it is
read off the public set, as the logistic regression page's release does
(:func:`dpcore.perturbation.experiments.release_lambda`). E is split at random into three
parts: ``W_E`` is refitted on the first 35 % (at the public model's own λ), the private set is
played by the next 35 %, fitted with the penalty centred there for each λ of the page's slider,
the noise of step 2 is added for the private set's size at ε
(:func:`dpcore.perturbation.perturb_output`, the generator's own law), and the last 30 % scores
it. A public set of fewer than :data:`SMALL_PUBLIC` rows is split :data:`SPLITS` times (the
accuracies averaged), a larger one once. Of the λ whose mean accuracy is within :data:`LEARNS`
of the best, the largest is kept (less noise, closer to ``W_E``, for what the simulation cannot
tell apart). Only E, ``N_D`` (public under replace-one) and ε are read. When ``ε N_D`` is
small every small λ drowns in noise and the choice falls on a large λ, whose release is close
to ``W_E``: the page then says what the public set says, not less.

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithm 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from dpcore.masking.experiments import scenario_task
from dpcore.masking.generator import GAP_TOL, design_records, lipschitz_constant
from dpcore.masking.model import fit_logistic_model, predict_labels
from dpcore.perturbation.output import perturb_output
from dpcore.random import stream
from dpcore.validation import DataError, check_epsilon

__all__ = ["LAMBDAS", "LEARNS", "PUBLIC_PRIOR", "PUBLIC_TRAIN", "SMALL_PUBLIC", "SPLITS",
           "best_lambda", "default_lambda", "public_lambda_table", "reach_note"]

#: The λ tried: the page's whole slider. Its top (10) leaves noise of scale ``0.2 / (N_D ε)``,
#: at which the release is ``W_E`` up to little: the fallback when ``ε N_D`` is small.
LAMBDAS = (0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0,
           3.0, 5.0, 10.0)
#: Share of E that ``W_E`` is refitted on in the simulation.
PUBLIC_PRIOR = 0.35
#: Share of E fitted in all (the prior's part, then the private set's stand-in); the rest
#: scores the simulated releases.
PUBLIC_TRAIN = 0.7
#: A simulated accuracy this far above always guessing E's majority class counts as learning;
#: λ within this much of the best simulated accuracy count as as good.
LEARNS = 0.01
#: Random three-way splits of a public set smaller than :data:`SMALL_PUBLIC` rows.
SPLITS = 5
SMALL_PUBLIC = 2000


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
        Columns ``lam``, ``accuracy`` (mean over draws and splits), ``noise_free`` (the fit
        itself, no noise) and ``majority`` (always guessing the scoring part's most frequent
        class), all on E's held-out rows: public numbers.
    """
    epsilon = check_epsilon(epsilon)
    task = scenario_task(scenario)  # the page's task: its centring, bound and private size
    target = scenario.target
    X = scenario.public[scenario.predictors].to_numpy(float) - task.offset
    y = scenario.public[target].to_numpy().astype(np.intp)
    cut, first = int(PUBLIC_TRAIN * len(y)), int(PUBLIC_PRIOR * len(y))
    if len(y) - cut == 0 or cut - first == 0 or first == 0:
        raise DataError(f"The public set has {len(y)} rows: too few to choose λ on; set λ by "
                        "hand.")
    Xs, _ = design_records(X, task.data_norm, intercept=task.intercept)
    n_private = len(task.y_private)
    tables = []
    for split in range(SPLITS if len(y) < SMALL_PUBLIC else 1):
        order = stream(seed, "masking", "public lambda", split).permutation(len(y))
        prior_part, train, test = order[:first], order[first:cut], order[cut:]
        prior = None
        if task.prior is not None:  # W_E as the simulation can have it: its own part of E
            prior = fit_logistic_model(Xs[prior_part], y[prior_part],
                                       lam=float(task.prior_lambda), n_classes=2).coef
        majority = float(max(np.mean(y[test]), 1.0 - np.mean(y[test])))
        rows = []
        for lam in lams:
            coef = fit_logistic_model(Xs[train], y[train], lam=float(lam), n_classes=2,
                                      coef_prior=prior).coef
            noisy = perturb_output(np.broadcast_to(coef.ravel(), (draws, coef.size)),
                                   n=n_private, lam=float(lam), epsilon=epsilon,
                                   lipschitz=lipschitz_constant(2), gap=GAP_TOL,
                                   rng=stream(seed, "masking", "public lambda", lam, split))
            predicted = predict_labels(noisy.reshape(draws, 1, -1), Xs[test])
            rows.append({"lam": float(lam), "accuracy": float(np.mean(predicted == y[test])),
                         "noise_free": float(np.mean(predict_labels(coef, Xs[test])
                                                     == y[test])),
                         "majority": majority})
        tables.append(pd.DataFrame(rows))
    return pd.concat(tables).groupby("lam", as_index=False, sort=True).mean()


def best_lambda(table: pd.DataFrame) -> float:
    """The largest λ of a :func:`public_lambda_table` whose simulated accuracy is within
    :data:`LEARNS` of the best (less noise for what the simulation cannot tell apart)."""
    best = table["accuracy"].max()
    return float(table.loc[table["accuracy"] >= best - LEARNS - 1e-12, "lam"].max())


def default_lambda(scenario, epsilon: float, **options) -> float:
    """The masking page's λ for ``scenario`` at ``epsilon``: :func:`best_lambda` of its
    :func:`public_lambda_table` (``options`` go to that function).

    Examples
    --------
    >>> from dpcore.datasets import load_scenario
    >>> default_lambda(load_scenario("breast-cancer"), 0.01)  # ε N_D ~ 2: the fallback
    10.0
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
    words = [f"Simulated on the public set (the public model refitted on 35 % of E, a fit "
             f"centred on it to another 35 %, the noise of step 2 for N_D = {n_private:,} "
             f"records, scored on the last 30 %; no private data read): "
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
