"""The importance page's release: DP importance weights for the public set ([JE13]_
Algorithm 1), what a decision reads about it, and its audit case.

* :func:`publish`: the release itself, from the user's ε and λ and the scenario's private and
  public records, spent through the session's ledger before any noise is drawn
  (:class:`~dpcore.importance.mechanism.ImportanceWeights` with an accountant: the L2-Laplace
  on β drawn as a Gaussian scale mixture by OpenDP from fresh OS entropy);
  :func:`settings` and :data:`NOISE` say what it is, :func:`released_table` is what the data
  owner hands over (the public rows with their weights);
* :data:`DECISION`: the release as the decision page reads it (its utility from the study's
  numbers, the step the audit attacks);
* :data:`AUDIT_CASES`: the release's noise law as released, on a hard pair;
* :data:`ONE_RUN`: its one-run audit ([SNJ23]_), one canary per coordinate.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn.
   93, Algorithm 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from dpcore.accountant import BudgetAccountant
from dpcore.audit.case import AuditCase, release_law_case
from dpcore.audit.onerun import OneRunCase
from dpcore.audit.pairs import importance_pair
from dpcore.datasets.scenario import Scenario
from dpcore.importance.mechanism import (
    BalancedFit,
    ImportanceWeights,
    balanced_fit,
    release_sensitivity,
)
from dpcore.mechanisms import L2Laplace
from dpcore.releases.base import AuditScope, Numbers, Release, utility_row, utility_table

__all__ = ["AUDIT_CASES", "AUDIT_FAULTS", "DECISION", "NOISE", "ONE_RUN", "publish",
           "released_table", "settings"]

#: How the release draws its noise, in words (shown beside the Publish button).
NOISE = ("the paper's L2-Laplace on β at Lemma 2's L2 sensitivity, drawn as a Gaussian scale "
         "mixture (the studies draw the same law)")


def publish(scenario: Scenario, *, epsilon: float, lam: float, accountant: BudgetAccountant,
            step1: BalancedFit | None = None) -> ImportanceWeights:
    """Publish DP importance weights for the scenario's public records ([JE13]_ Algorithm 1).

    Parameters
    ----------
    scenario : Scenario
        The private records D and the public records E (encoded).
    epsilon : float
        The release's ε (the user's choice).
    lam : float
        The regularisation λ (the user's choice).
    accountant : BudgetAccountant
        The session's ledger, charged before any noise is drawn.
    step1 : BalancedFit, optional
        :func:`~dpcore.importance.mechanism.balanced_fit` of these records at ``lam`` (step 1
        carries no noise, so a caller may keep it while only ε moves).

    Returns
    -------
    ImportanceWeights
        Fitted: ``weights_`` (one per public record, the release) and ``beta_``.

    Raises
    ------
    DataError
        When E was derived from D, or over the budget (nothing recorded).
    """
    scenario.check_publishable()
    return ImportanceWeights(epsilon, lam, accountant=accountant).fit(
        scenario.private, scenario.public, step1=step1, dataset=scenario.title)


def settings(epsilon: float, lam: float) -> str:
    """The release's settings in words, as the ledger's outcome and the page name them."""
    return f"ε = {epsilon:g}, λ = {lam:g}"


def released_table(scenario: Scenario, weights: np.ndarray) -> pd.DataFrame:
    """The release as handed over: the public records as read (before encoding, where the
    scenario keeps them) with their weight in a first column ``weight``."""
    shown = scenario.raw_public if scenario.raw_public is not None else scenario.public
    released = shown.reset_index(drop=True)
    released.insert(0, "weight", weights)
    return released


def _utility(numbers: Numbers, params: Any) -> pd.DataFrame:
    m = numbers["metrics"].iloc[0]
    median, sd, truth = m["median_estimate"], m["sd_estimate"], m["truth_nonprivate"]
    reps = int(m["replicates"])
    return utility_table([
        utility_row(
            "DP estimate (median of releases)", median,
            f"Over {reps} simulated releases at ε = {m['epsilon']:g} (λ = {m['lam']:g}), half "
            f"of the importance-weighted estimates of {m['query']} fell below {median:.3g}; "
            f"they spread with a standard deviation of {sd:.3g}.", False, sd=sd),
        utility_row(
            "answer on the private data", truth,
            f"What {m['query']} is on D without noise: the yardstick, never published.", True),
        utility_row(
            "error of the median", abs(median - truth),
            f"How far the typical release lands from the private answer ({abs(median - truth):.3g}"
            f"), with the spread of one release around it ({sd:.3g}).", True, sd=sd),
        utility_row(
            "public set alone (no privacy cost)", m["public_mean"],
            "The same query on the public set E without weights: what is known for free. A "
            "release is worth its ε only where it lands closer to the truth than this.", False),
    ])


def _scope(params: Any, metrics: pd.Series) -> AuditScope:
    epsilon = float(params.epsilon)
    return AuditScope("importance_release", epsilon,
                      "the noise on the fitted coefficients β (Ji & Elkan Algorithm 1 step 2)",
                      epsilon, rest="the weights are computed from the noisy β "
                                    "(post-processing)")


#: The release as a decision reads it.
DECISION = Release("importance", "importance weights for the public set (Ji & Elkan Alg. 1)",
                   "Estimates vs ε", _utility, _scope)


def _release_case(epsilon: float, *, n_private: int = 50, d: int = 3, lam: float = 0.01,
                  seed: int = 13) -> AuditCase:
    b_d, b_dp, _, x, xp = importance_pair(n_private, d, lam, seed)
    mech = L2Laplace(epsilon, release_sensitivity(b_d.size, n_private, lam), b_d.size)
    return release_law_case(
        "importance_release", "DP importance weights as released (Gaussian scale mixture)",
        epsilon, mech, b_d, b_dp, "replace one private record (N_D public)",
        f"N_D = {n_private}, d = {d}, lam = {lam:g}; changed record {np.round(x, 2).tolist()} "
        f"-> {np.round(xp, 2).tolist()} (hill-climbed)",
        "step 1 fitted once per dataset, the release's noise per run")


#: The release's audit cases (key -> builder at a claimed ε).
AUDIT_CASES: dict[str, Callable[[float], AuditCase]] = {"importance_release": _release_case}
#: Those of :data:`AUDIT_CASES` broken on purpose: none.
AUDIT_FAULTS: tuple[str, ...] = ()


def _one_run(epsilon: float, canaries: int, *, lam: float = 0.01,
             noise_epsilon: float | None = None) -> OneRunCase:
    """The noisy β of [JE13]_ Algorithm 1 (step 1 fitted, step 2's L2-Laplace drawn once by
    the release law's seeded study twin) with ``canaries`` private records in ``canaries``
    features: canary ``i`` is ``e_i`` when in and the origin when out (a private record
    replaced, N_D public), the public set ``canaries`` records at the origin. Feature ``i``
    occurs only in canary ``i``, so ``beta_i`` is positive when it is in and 0 when it is
    out; a canary's score is its noisy ``beta_i`` minus half of an included canary's
    ``beta_i`` (from a fit with every canary in: public, fixed before the run).
    ``noise_epsilon``: the ε the noise is calibrated to (default the claimed ε; larger is a
    fault, broken on purpose)."""
    public = np.zeros((canaries, canaries))
    centre = balanced_fit(np.eye(canaries), public, lam).coef[0] / 2.0
    dim = canaries + 1  # the intercept's coefficient comes last
    law = L2Laplace(epsilon if noise_epsilon is None else noise_epsilon,
                    release_sensitivity(dim, canaries, lam), dim)

    def run(included: np.ndarray, rng) -> np.ndarray:
        beta = balanced_fit(np.diag(included.astype(float)), public, lam).coef
        return law.randomise(beta, rng=rng, law="release")[:canaries] - centre

    return OneRunCase(
        "importance_release", "DP importance weights as released", epsilon, canaries,
        "replace one private record (N_D public)",
        f"canary i is the private record e_i when in, the origin when out, one per feature; "
        f"public records at the origin; λ = {lam:g}", "importance_release", run,
        broken=noise_epsilon not in (None, epsilon),
        note="The noise is spread over all m + 1 coefficients while a canary moves only its "
             "own by a fraction of the sensitivity, so one run shows little unless m is large.")


#: The release's one-run audit (key -> builder at a claimed ε and a number of canaries).
ONE_RUN: dict[str, Callable[..., OneRunCase]] = {"importance_release": _one_run}
