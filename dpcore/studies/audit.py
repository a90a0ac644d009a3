"""The run of the privacy-audit page: an empirical lower bound on one mechanism's ε.

The page's numbers for a set of controls: one row of headline metrics (claimed ε, audited lower
bound, the pair's share f of the sensitivity, runs per dataset, the test's error rates) and the
held-out scores behind its histogram. The page audits through :func:`audit_one`, so the CLI runs
:func:`dpcore.audit.audit` on the same case, the same number of runs and the same seed.

An audit runs the mechanism on built-in synthetic pairs of neighbouring datasets: it reads no
scenario, no private data, and spends no budget (a seeded study).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dpcore import audit as A
from dpcore.runs.domains import EPSILONS, SEED, OneOf
from dpcore.validation import DataError

__all__ = ["CONTROLS", "DOMAINS", "REFIT_RUNS", "SEED_KEY", "audit_one", "compute", "runs_for",
           "takeaway"]

REFIT_RUNS = 20_000  # mechanisms that refit a model per run: at most this many runs

#: The page's controls (widget keys of pages/audit.py) with their defaults.
CONTROLS: dict[str, Any] = {"au_case": A.CASE_KEYS[0], "au_epsilon": 1.0, "au_runs": 10_000,
                            "au_confidence": 0.95}
SEED_KEY = "au_seed"
#: The values each control can take, as the page draws it (:mod:`dpcore.runs.domains`), with
#: the page's one-run audit's canaries.
DOMAINS = {
    "au_case": OneOf(A.CASE_KEYS), "au_epsilon": OneOf(EPSILONS),
    "au_runs": OneOf((1000, 3000, 10_000, 30_000, 100_000)),
    "au_confidence": OneOf((0.9, 0.95, 0.99)), "au_canaries": OneOf((50, 100, 200, 500)),
    "au_float_runs": OneOf((2000, 5000, 20_000, 50_000)), SEED_KEY: SEED,
}


def runs_for(case: A.AuditCase, runs: int) -> int:
    """Runs per dataset for ``case``: ``runs``, at most :data:`REFIT_RUNS` for a refit."""
    return min(int(runs), REFIT_RUNS) if case.refits else int(runs)


def audit_one(key: str, epsilon: float, runs: int, confidence: float, seed: int, *,
              progress: Callable[[float], None] | None = None) -> A.AuditResult:
    """Audit the mechanism ``key`` claimed at ``epsilon`` (the page's single audit).

    ``progress`` splits the runs into 4 batches, which draws the same runs in another order:
    the page and a run pass none, so their numbers agree.
    """
    if key not in A.CASE_KEYS:
        raise DataError(f"Unknown mechanism {key!r}; expected one of {list(A.CASE_KEYS)}.")
    case = A.audit_case(key, float(epsilon))
    return A.audit(case, runs_for(case, runs), confidence=float(confidence), rng=int(seed),
                   progress=progress, chunks=4 if progress else 1)


def compute(scenario: Any, controls: Mapping[str, Any], seed: int, *,
            progress: Callable[[float], None] | None = None,
            parallel: Any = None) -> dict[str, pd.DataFrame]:
    """The page's numbers: ``metrics`` (one row) and ``scores`` (the held-out scores on D and
    D′ behind the histogram, which clips them to their 0.2 %-99.8 % quantiles).

    Parameters
    ----------
    scenario : ignored
        The audit uses built-in pairs of datasets, never the scenario.
    controls : mapping
        The page's controls (:data:`CONTROLS`; missing keys take its defaults).
    seed : int
        The page's simulation seed (``au_seed``).
    progress, parallel : ignored
        One vectorised batch in this process (batching for a progress bar would change the
        numbers, see :func:`audit_one`).

    Returns
    -------
    dict of str to DataFrame
    """
    c = {**CONTROLS, **controls}
    result = audit_one(c["au_case"], c["au_epsilon"], c["au_runs"], c["au_confidence"], seed)
    case = result.case
    metrics = pd.DataFrame([{
        "mechanism": case.name, "broken_on_purpose": bool(case.broken),
        "claimed_epsilon": float(case.epsilon), "delta": float(case.delta),
        "audited_lower_bound": float(result.epsilon_lb), "confidence": float(result.confidence),
        "runs_per_dataset": int(result.runs), "f": float(case.fraction),
        "limit_on_this_pair": float(case.pair_limit),
        "ceiling": float(A.audit_ceiling(result.runs, result.confidence, case.delta)),
        "threshold": float(result.threshold), "fpr": float(result.fpr), "fnr": float(result.fnr),
        "fpr_upper": float(result.fpr_upper), "fnr_upper": float(result.fnr_upper),
        "above_claim": bool(result.above_claim), "flagged": bool(result.flagged),
        "statistic": case.statistic,
    }])
    s0, s1 = np.asarray(result.scores_d), np.asarray(result.scores_dprime)
    scores = pd.DataFrame({"dataset": ["D"] * s0.size + ["D′"] * s1.size,
                           "score": np.concatenate([s0, s1])})
    return {"metrics": metrics, "scores": scores}


def takeaway(numbers: Mapping[str, pd.DataFrame], controls: Mapping[str, Any]) -> str:
    """Two sentences on the audited bound against the claim, from the numbers."""
    m = numbers["metrics"].iloc[0]
    runs = int(m["runs_per_dataset"])
    first = (f"{m['mechanism']} claims ε = {m['claimed_epsilon']:g}; {runs:,} "
             f"runs on each dataset of its hard pair show ε ≥ {m['audited_lower_bound']:.2f} "
             f"at confidence {m['confidence']:g}.")
    if m["flagged"]:
        second = (f"That is above the {m['limit_on_this_pair']:.2f} that correct noise allows on "
                  "this pair: the audit caught a fault, the noise is too weak.")
    else:
        second = (f"That stays below the {m['limit_on_this_pair']:.2f} that correct noise allows "
                  f"on this pair (a share f = {m['f']:.2f} of the sensitivity), so the audit "
                  "found no fault (it cannot prove privacy).")
    return f"{first} {second}"
