"""The masking page's release: a masked dataset ([PGY]_ Algorithm 1), what a decision reads
about it, and its audit case.

* :func:`publish`: the release itself, the page's Algorithm 1 on the task's private records
  (:func:`dpcore.masking.experiments.generator`, the one mechanism the study simulates) with the
  user's ε, λ, N and bound, spent through the session's ledger before any noise is drawn (the
  L2-Laplace on W′ drawn as a Gaussian scale mixture by OpenDP from fresh OS entropy);
  :data:`NOISE` says how, :func:`masked_table` is what the data owner hands over;
* :data:`DECISION`: the release as the decision page reads it (its utility from the study's
  numbers, the step the audit attacks, the data a built-in task builds itself);
* :data:`AUDIT_CASES`: the noisy classifier w′ (steps 1-2; step 3 is post-processing);
  :data:`ONE_RUN`: its one-run audit ([SNJ23]_), one canary per coordinate.

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Algorithm 1.
.. [SNJ23] Steinke, Nasr & Jagielski (2023), *Privacy auditing with one (1) training run*,
   NeurIPS, Algorithm 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from dpcore.accountant import BudgetAccountant
from dpcore.audit.case import AuditCase, l2laplace_llr
from dpcore.audit.onerun import LABEL_CANARIES, OneRunCase, label_canaries
from dpcore.audit.pairs import logistic_pair
from dpcore.datasets.scenario import Scenario
from dpcore.masking.experiments import TASKS, MaskingTask, generator
from dpcore.masking.generator import MaskedDataGenerator, lipschitz_constant
from dpcore.masking.generator import scale_records as mask_scale
from dpcore.masking.model import fit_logistic_model
from dpcore.perturbation.output import output_sensitivity, perturb_output
from dpcore.releases.base import AuditScope, Numbers, Release, utility_row, utility_table

__all__ = ["AUDIT_CASES", "AUDIT_FAULTS", "DECISION", "NOISE", "ONE_RUN", "masked_table",
           "publish"]

#: How the release draws its noise, in words (shown beside the Publish button).
NOISE = ("the paper's L2-Laplace on W′, drawn as a Gaussian scale mixture (the studies draw the "
         "same law)")


def publish(scenario: Scenario, task: MaskingTask, *, epsilon: float, lam: float, n: int,
            bounded: bool, initial: tuple[np.ndarray, np.ndarray] | None,
            accountant: BudgetAccountant) -> MaskedDataGenerator:
    """Publish a masked dataset of ``task``'s private records ([PGY]_ Algorithm 1).

    Parameters
    ----------
    scenario : Scenario
        The scenario the release is routed to (the sidebar's, or a built-in experiment's):
        it says whether its public set was derived from its private one.
    task : MaskingTask
        The task (:func:`dpcore.studies.masking.load_task`): its private records, classes,
        norm bound and public penalty centre.
    epsilon, lam : float
        The release's ε and λ (the user's choice).
    n : int
        Size N of the masked set.
    bounded : bool
        Whether the invented records stay in the task's domain.
    initial : (ndarray, ndarray) or None
        The initial set (public records and their labels) the masked set starts from.
    accountant : BudgetAccountant
        The session's ledger, charged before any noise is drawn.

    Returns
    -------
    MaskedDataGenerator
        Fitted: ``masked_X_``, ``masked_y_`` (the release, :func:`masked_table`).

    Raises
    ------
    DataError
        When E was derived from D, or over the budget (nothing recorded).
    """
    scenario.check_publishable()
    return generator(task, epsilon, lam, n, bounded=bounded, accountant=accountant).fit(
        task.X_private, task.y_private, initial=initial)


def masked_table(task: MaskingTask, gen: MaskedDataGenerator) -> pd.DataFrame:
    """A fitted generator's masked set as a recipient gets it: the label, then the records in
    the task's units (the public centring undone)."""
    table = pd.DataFrame(task.to_records(gen.masked_X_), columns=list(task.feature_names))
    table.insert(0, "label", [task.class_names[c] for c in gen.masked_y_])
    return table


def _utility(numbers: Numbers, params: Any) -> pd.DataFrame:
    m = numbers["metrics"].iloc[0]
    n_valid = int(m["validation_records"])
    accuracy = m["masked_model_accuracy"]
    se = math.sqrt(accuracy * (1 - accuracy) / n_valid) if n_valid > 1 else math.nan
    private = bool(m["validation_private"])
    where = "held-out private records" if private else "a public validation set"
    rows = [
        utility_row(
            "accuracy of a model on the masked records", accuracy,
            f"One masked set of {int(m['masked_set_size'])} records at ε = {m['epsilon']:g} "
            f"(λ = {m['lambda']:g}) trains a classifier that is right on {accuracy:.1%} of "
            f"{where}.", private, sd=se, kind="validation SE", missing="one masked set"),
        utility_row(
            "accuracy of the same model on the private records", m["nonprivate_model_accuracy"],
            "The model the masking is built around, fitted without noise.", True),
        utility_row(
            "always guessing the majority class", m["majority_accuracy"],
            "A classifier that ignores the features: the line to clear.", True),
    ]
    if accuracy <= m["majority_accuracy"]:
        rows[0]["meaning"] += " It does no better than guessing the majority class."
    return utility_table(rows)


def _scope(params: Any, metrics: pd.Series) -> AuditScope:
    epsilon = float(params.epsilon)
    return AuditScope("masking", epsilon,
                      "the noisy classifier w′ (Pham et al. Algorithm 1 steps 1-2)", epsilon,
                      rest="step 3's greedy masked records read only w′ and public records "
                           "(post-processing)")


def _data(params: Any, prepared: Any) -> tuple[str, str] | None:
    if TASKS[params.task][1] is None:
        return None
    if prepared is None:  # the task is built-in: its name is enough to say so
        return params.task, ""
    return prepared.task.title, prepared.task.description


#: The release as a decision reads it.
DECISION = Release("masking", "a masked dataset (Pham et al. Alg. 1)", "Masked vs original",
                   _utility, _scope, data=_data)


def _case(epsilon: float, *, n: int = 50, d: int = 2, lam: float = 0.1,
          seed: int = 13) -> AuditCase:
    X, y, Xp, yp = logistic_pair(n, d, seed)
    L = lipschitz_constant(2)
    fits = [fit_logistic_model(mask_scale(A)[0], lab, lam=lam, n_classes=2)
            for A, lab in ((X, y), (Xp, yp))]
    centres = [f.coef.ravel() for f in fits]
    scales = [output_sensitivity(n, lam, 1.0, L, float(f.gap)) / epsilon for f in fits]

    def sample(runs, rng):
        outs = [perturb_output(np.broadcast_to(c, (runs, c.size)), n=n, lam=lam, epsilon=epsilon,
                               lipschitz=L, gap=float(f.gap), rng=rng)
                for c, f in zip(centres, fits, strict=True)]
        return tuple(l2laplace_llr(o, centres[1], centres[0], scales[1], scales[0])
                     for o in outs)

    fraction = float(np.linalg.norm(centres[0] - centres[1])) / (scales[0] * epsilon)
    return AuditCase("masking", "Masked data: the noisy classifier w' (Pham et al. Alg. 1 step 2)",
                     epsilon, 0.0, "replace one record (n fixed)",
                     f"n = {n}, d = {d}, lam = {lam:g}; changed record u -> -u, ||u|| = 1",
                     fraction, "log-likelihood ratio of w'", sample,
                     covers="step 1-2 (fit once per dataset, noise per run); step 3 (greedy "
                            "masked samples) is post-processing", linear=True,
                     noise="L2-Laplace noise")


#: The release's audit cases (key -> builder at a claimed ε).
AUDIT_CASES: dict[str, Callable[[float], AuditCase]] = {"masking": _case}
#: Those of :data:`AUDIT_CASES` broken on purpose: none.
AUDIT_FAULTS: tuple[str, ...] = ()


def _one_run(epsilon: float, canaries: int, *, lam: float = 0.01,
             noise_epsilon: float | None = None) -> OneRunCase:
    """The noisy classifier w′ (steps 1-2) on the canaries of
    :func:`~dpcore.audit.onerun.label_canaries` (one per coordinate, n = m + 2): the step-1
    fit on the scaled records and one draw of its output noise (the study's law); a canary's
    score is its coefficient. ``noise_epsilon``: the ε the noise is calibrated to (default the
    claimed ε; larger is a fault, broken on purpose)."""
    n, lipschitz = canaries + 2, lipschitz_constant(2)
    noise = epsilon if noise_epsilon is None else noise_epsilon

    def run(included: np.ndarray, rng) -> np.ndarray:
        X, y = label_canaries(included)
        fit = fit_logistic_model(mask_scale(X)[0], y, lam=lam, n_classes=2)
        return perturb_output(fit.coef.ravel(), n=n, lam=lam, epsilon=noise,
                              lipschitz=lipschitz, gap=float(fit.gap), rng=rng)

    return OneRunCase(
        "masking", "Masked data: the noisy classifier w′", epsilon, canaries,
        "replace one record (n fixed)",
        LABEL_CANARIES.format(lam=lam), "masking", run,
        broken=noise_epsilon not in (None, epsilon),
        note="The noise is spread over all m coordinates while a canary moves only its own by "
             "a fraction of the sensitivity, so one run shows little unless m is large.")


#: The release's one-run audit (key -> builder at a claimed ε and a number of canaries).
ONE_RUN: dict[str, Callable[..., OneRunCase]] = {"masking": _one_run}
