"""The subset page's release: a public subset with noisy weights ([WJ18]_ Algorithm 2), what a
decision reads about it, and its audit cases.

* :func:`publish`: the release itself, one run of Algorithm 2 on all of D with the user's ε₁,
  ε₂, ε₃, candidate sizes, accounting, selection and λ, spending ε₁, ε₂ and ε₃ as three ledger
  entries, each before its noise is drawn (OpenDP's float-safe samplers, fresh OS entropy);
  :func:`charged_epsilon`, :func:`settings` and :data:`NOISE` say what it costs and is,
  :func:`released_table` is what the data owner hands over;
* :data:`DECISION`: the release as the decision page reads it (its utility from the study's
  numbers, the step the audit attacks and the two it does not);
* :data:`AUDIT_CASES`: the noisy counts as released (steps 2 and 4) and the selection of a
  subset size (steps 5-6), calibrated two ways and as printed (:data:`AUDIT_FAULTS`: ε₃
  claimed for all k noisy criteria).

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), IEEE TKDE 30(3), Algorithm 2.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from dpcore.accountant import BudgetAccountant
from dpcore.audit.case import AuditCase, capped_note, laplace_llr
from dpcore.audit.onerun import OneRunCase
from dpcore.datasets.scenario import Scenario
from dpcore.mechanisms import DiscreteLaplace, Exponential, Laplace
from dpcore.releases.base import AuditScope, Numbers, Release, utility_row, utility_table
from dpcore.subset.experiments import StudySetup
from dpcore.subset.selection import SubsetResult, select_subset

__all__ = ["AUDIT_CASES", "AUDIT_FAULTS", "DECISION", "NOISE", "ONE_RUN", "charged_epsilon",
           "publish", "released_table", "settings"]

#: How the release draws its noise, in words (shown beside the Publish button).
NOISE = "Laplace on the counts and criteria, the exponential mechanism for the size"


def publish(scenario: Scenario, setup: StudySetup, *, epsilon: tuple[float, float, float],
            sizes: Sequence[int], accounting: str, selection: str, lam: float,
            accountant: BudgetAccountant) -> SubsetResult:
    """Publish a public subset with DP weights: one run of [WJ18]_ Algorithm 2 on all of D.

    Parameters
    ----------
    scenario : Scenario
        The data (its title names it in the ledger).
    setup : StudySetup
        Step 1 and the non-private reference fit of the scenario at ``lam``
        (:func:`~dpcore.subset.experiments.prepare_study`; no noise in them).
    epsilon : (float, float, float)
        ε₁, ε₂ and ε₃ (the user's split of ε).
    sizes : sequence of int
        The candidate sizes (a public rule of E's size).
    accounting : {"calibrated", "as-printed"}
    selection : {"exponential", "noisy-curve"}
    lam : float
        The L2 penalty of every logistic fit.
    accountant : BudgetAccountant
        The session's ledger: ε₁, ε₂ and ε₃ are spent as three entries, each before its noise
        is drawn; it refuses a step over the budget (``BudgetExceeded``).

    Returns
    -------
    SubsetResult
        The selected rows with their DP weights (:func:`released_table`).

    Raises
    ------
    DataError
        When E was derived from D (:meth:`~dpcore.datasets.scenario.Scenario.check_publishable`)
        or a step does not fit the budget.
    """
    scenario.check_publishable()
    return select_subset(setup.data, None, epsilon, sizes, "logistic", accounting, None, None,
                         selection=selection, lam=lam, accountant=accountant,
                         dataset=scenario.title, prepared=setup.prepared)


def charged_epsilon(epsilon: tuple[float, float, float], accounting: str, spent: float) -> float:
    """The ε the ledger is asked for before the press: ε₁ + ε₂ + ε₃, or as printed the study's
    ``spent`` (what the k noisy criteria really cost)."""
    return spent if accounting == "as-printed" else float(sum(epsilon))


def settings(epsilon: tuple[float, float, float], lam: float, accounting: str) -> str:
    """The release's settings in words, as the ledger's outcome and the page name them."""
    return f"ε = ({', '.join(f'{e:g}' for e in epsilon)}), λ = {lam:g}, {accounting}"


def released_table(scenario: Scenario, result: SubsetResult) -> pd.DataFrame:
    """The release as handed over: one row per distinct public point selected (its first row
    of E, as read before encoding where the scenario keeps it), with its DP weight and the
    number of E's rows it stands for (``public_rows_alike``) in the first two columns."""
    shown = scenario.raw_public if scenario.raw_public is not None else scenario.public
    released = shown.iloc[result.public_rows].reset_index(drop=True)
    released.insert(0, "dp_weight", result.weights)
    released.insert(1, "public_rows_alike",
                    result.rescaled.multiplicity[result.order[:result.size]])
    return released


def _utility(numbers: Numbers, params: Any) -> pd.DataFrame:
    m = numbers["metrics"].iloc[0]
    selected = numbers["selected"]
    errors = selected["dp_error_nonprivate"].to_numpy(dtype=float)
    sd = float(errors.std(ddof=1)) if errors.size > 1 else float("nan")
    sizes = ", ".join(str(int(s)) for s in selected["selected_size"])
    return utility_table([
        utility_row(
            "prediction error of the selected subset", errors.mean(),
            f"Over {errors.size} repeats of Algorithm 2 at a total ε = {m['epsilon_spent']:g}, "
            f"the selected subsets ({sizes} public points) predicted with a mean error of "
            f"{errors.mean():.3g}, measured against the private data.", True, sd=sd,
            missing="one repeat"),
        utility_row(
            "public data alone", m["public_only_error_nonprivate"],
            "The same model fitted on the public set without weights: the release must beat "
            "it.", True),
    ])


def _scope(params: Any, metrics: pd.Series) -> AuditScope:
    """Algorithm 2 spends ε₁ (step 2), ε₂ (step 4) and ε₃ (steps 5-6); the audit attacks the
    selection at ε₃, with the case of the page's accounting and selection."""
    calibrated = params.accounting == "calibrated"
    mode = params.selection if calibrated else "as-printed"
    e1, e2, e3 = (float(metrics[f"epsilon{i}"]) for i in (1, 2, 3))
    unaudited = (
        ("the noisy weights that rank the public points (Wang et al. Algorithm 2 step 2)", e1),
        ("the DP weights of the candidate subsets, the released one's among them (step 4, "
         "ε₂/k per candidate)", e2),
    )
    step = "the selection of a subset size (Algorithm 2 steps 5-6" + (
        ")" if calibrated else ", as printed: ε₃ claimed for all k noisy criteria)")
    return AuditScope(f"selection_{mode}", e3, step, float(metrics["epsilon_spent"]),
                      unaudited, rest="the audit page's case 'Wang et al. counts as released' "
                                      "attacks the noise of steps 2 and 4")


def _epsilon(metrics: pd.Series) -> float:
    """The release spends ε₁ + ε₂ + ε₃ (the study's ``epsilon_spent``)."""
    return float(metrics["epsilon_spent"])


#: The release as a decision reads it.
DECISION = Release("subset", "a public subset with noisy weights (Wang et al. Alg. 2)",
                   "Error vs size", _utility, _scope, _epsilon)


def _counts_release_case(epsilon: float) -> AuditCase:
    mech = DiscreteLaplace(epsilon, 2)
    c_d, c_dp = np.array([30, 70]), np.array([29, 71])

    def sample(runs, rng):
        a = mech.randomise(np.broadcast_to(c_d, (runs, 2)), rng=rng)
        b = mech.randomise(np.broadcast_to(c_dp, (runs, 2)), rng=rng)
        return laplace_llr(a, c_dp, c_d), laplace_llr(b, c_dp, c_d)

    return AuditCase("counts_release", "Wang et al. counts as released (discrete Laplace)",
                     epsilon, 0.0, "replace one private record",
                     "one record moves from one public point's cell to another's (L1 change 2)",
                     1.0, "discrete Laplace log-likelihood ratio of the noisy counts", sample,
                     covers="the noise step of the ranking and candidate counts", linear=True,
                     noise="discrete Laplace noise")


def _selection_case(epsilon: float, *, k: int = 10, mode: str = "exponential") -> AuditCase:
    """[WJ18]_ Algorithm 2 step 5 at the level of its noise, with its stated sensitivity S.

    The pair moves every criterion by S (what the sensitivity statement allows). ``mode``:
    ``"exponential"`` (calibrated, index only), ``"noisy-curve"`` (calibrated: Laplace(k S/eps3)
    per criterion) or ``"as-printed"`` (Laplace(S / eps3) per criterion, eps3 claimed for all).
    """
    S = 1.0
    t_d = np.full(k, S)  # D: subset 0 is the best (criterion 0, the others S)
    t_d[0] = 0.0
    t_dp = np.zeros(k)  # D': every criterion moved by S the other way
    t_dp[0] = S
    if mode == "exponential":
        mech = Exponential(epsilon, S)

        def sample(runs, rng):
            a = mech.randomise(np.broadcast_to(-t_d, (runs, k)), rng=rng) == 0
            b = mech.randomise(np.broadcast_to(-t_dp, (runs, k)), rng=rng) == 0
            return a.astype(float), b.astype(float)

        stat, broken, label = "subset 0 chosen (0/1)", False, "exponential mechanism, calibrated"
        noise = "exponential-mechanism noise"
        note = capped_note("The exponential mechanism releases an index (the test: was "
                            "subset 0 chosen?)", epsilon)
    else:
        broken = mode == "as-printed"
        mech = Laplace(epsilon, S if broken else k * S)

        def sample(runs, rng):
            a = mech.randomise(np.broadcast_to(t_d, (runs, k)), rng=rng)
            b = mech.randomise(np.broadcast_to(t_dp, (runs, k)), rng=rng)
            return laplace_llr(a, t_dp, t_d), laplace_llr(b, t_dp, t_d)

        stat = "Laplace log-likelihood ratio of the k noisy criteria"
        label = ("k noisy criteria at Laplace(S/eps3), eps3 counted once (as printed)" if broken
                 else "k noisy criteria at Laplace(k S/eps3), calibrated")
        noise, note = "Laplace noise", ""
    return AuditCase(f"selection_{mode}", f"Wang et al. subset selection: {label}", epsilon, 0.0,
                     "replace one private record",
                     f"k = {k} criteria, each moved by its stated sensitivity S", 1.0, stat,
                     sample, broken=broken,
                     covers="the selection step's noise with its stated sensitivity S",
                     linear=mode != "exponential", noise=noise, note=note)


#: The release's audit cases (key -> builder at a claimed ε).
AUDIT_CASES: dict[str, Callable[[float], AuditCase]] = {
    "counts_release": _counts_release_case,
    "selection_exponential": lambda e: _selection_case(e, mode="exponential"),
    "selection_noisy-curve": lambda e: _selection_case(e, mode="noisy-curve"),
    "selection_as-printed": lambda e: _selection_case(e, mode="as-printed"),
}
#: Those of :data:`AUDIT_CASES` broken on purpose: Wang et al.'s accounting as printed.
AUDIT_FAULTS: tuple[str, ...] = ("selection_as-printed",)


def _counts_one_run(epsilon: float, canaries: int, *,
                    noise_epsilon: float | None = None) -> OneRunCase:
    """The noisy counts of steps 2 and 4 with ``canaries`` public cells: canary ``i`` is in
    cell ``i`` when in and in one more cell (where every canary that is out goes) when out, a
    record replaced, so the counts move by 2 in L1 (the release's sensitivity). One run is one
    noisy count vector (the release's discrete Laplace law, drawn by its seeded study twin);
    a canary's score is its cell's count minus 1/2. Its cell alone moves by 1 of the 2 the noise
    is calibrated to, so on a correct release this design shows at most about ε/2.
    ``noise_epsilon``: the ε the noise is calibrated to (default the claimed ε; larger is a
    fault, broken on purpose)."""
    law = DiscreteLaplace(epsilon if noise_epsilon is None else noise_epsilon, 2)

    def run(included: np.ndarray, rng) -> np.ndarray:
        cells = np.r_[included.astype(int), int((~included).sum())]
        return law.randomise(cells, rng=rng)[:canaries] - 0.5

    return OneRunCase(
        "subset_counts", "Wang et al. counts as released (discrete Laplace)", epsilon, canaries,
        "replace one private record",
        "canary i alone in public cell i when in, in a shared cell when out", "counts_release",
        run, broken=noise_epsilon not in (None, epsilon),
        note="A canary that is out is in the shared cell: its own cell moves by 1 of the "
             "sensitivity 2, so a correct release shows at most about ε/2 here.")


#: The release's one-run audits (key -> builder at a claimed ε and a number of canaries).
ONE_RUN: dict[str, Callable[..., OneRunCase]] = {"subset_counts": _counts_one_run}
