"""Running an audit: a case many times on each dataset of its pair.

:func:`audit` runs an :class:`~dpcore.audit.case.AuditCase` on both datasets of its pair and
lower-bounds its epsilon from the scores (:func:`~dpcore.audit.statistics.audit_scores`). The
one-run audit is :mod:`dpcore.audit.onerun`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from dpcore.audit.case import AuditCase
from dpcore.audit.statistics import audit_scores, check_runs
from dpcore.simulation import Progress
from dpcore.validation import check_random_state

__all__ = ["PLOT_SCORES", "AuditResult", "audit"]

#: Scores kept per side for the plotted distributions (a seeded subsample of the test half).
PLOT_SCORES = 4000


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit` for one case.

    Attributes
    ----------
    case : AuditCase
    epsilon_lb : float
        Audited lower bound (holds with probability ``confidence`` for a correct mechanism).
    confidence : float
    runs : int
        Runs per dataset (half choose the threshold, half bound the rates).
    threshold, fpr, fnr, fpr_upper, fnr_upper : float
        The test on the held-out half.
    scores_d, scores_dprime : ndarray
        A subsample of the held-out scores, for plotting.
    seconds : float
        Wall time of the runs and the test (a measurement: it varies with the machine and its
        load; not compared).
    flagged : bool
        ``epsilon_lb > case.pair_limit``: more loss than the claimed epsilon allows on this pair
        (``f * epsilon`` when the loss is linear in the distance, ``case.linear``: Laplace,
        L2-Laplace, discrete Laplace noise; else epsilon), so the claim is refuted at this
        confidence.
    above_claim : bool
        ``epsilon_lb > case.epsilon``: the audit alone exceeds the claimed epsilon.
    """

    case: AuditCase
    epsilon_lb: float
    confidence: float
    runs: int
    threshold: float
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    scores_d: np.ndarray = field(repr=False)
    scores_dprime: np.ndarray = field(repr=False)
    seconds: float = field(default=0.0, compare=False)

    @property
    def flagged(self) -> bool:
        return self.epsilon_lb > self.case.pair_limit

    @property
    def above_claim(self) -> bool:
        return self.epsilon_lb > self.case.epsilon

    def row(self) -> dict:
        """One row of the audit table."""
        c = self.case
        return {"mechanism": c.name, "broken on purpose": c.broken, "claimed epsilon": c.epsilon,
                "delta": c.delta, "audited lower bound": self.epsilon_lb,
                "confidence": self.confidence, "runs per dataset": self.runs,
                "f": c.fraction, "limit on this pair": c.pair_limit,
                "above the claim": self.above_claim, "flagged": self.flagged,
                "statistic": c.statistic, "pair": c.pair, "covers": c.covers}


def audit(case: AuditCase, runs: int = 100_000, *, confidence: float = 0.95, rng=None,
          progress: Progress = None, chunks: int = 1) -> AuditResult:
    """Run ``case`` ``runs`` times on each dataset of its pair and lower-bound its epsilon.

    Parameters
    ----------
    case : AuditCase
    runs : int, default=100_000
        Runs per dataset, >= 20.
    confidence : float, default=0.95
    rng : None, int or numpy.random.Generator
        Seed of the study (an audit uses no private data and spends no budget).
    progress : callable, default=None
        Called with the fraction done after each chunk.
    chunks : int, default=1
        Split the runs into this many vectorised batches (for the progress bar).

    Returns
    -------
    AuditResult
    """
    if not isinstance(case, AuditCase):
        raise TypeError(f"case must be an AuditCase, got {type(case).__name__}.")
    runs = check_runs(runs)
    gen = check_random_state(rng)
    start = time.perf_counter()
    sizes = np.diff(np.linspace(0, runs, max(1, int(chunks)) + 1).astype(int))
    parts0, parts1 = [], []
    for i, size in enumerate(sizes):
        if size > 0:
            s0, s1 = case.sample(int(size), gen)
            parts0.append(np.asarray(s0, dtype=float))
            parts1.append(np.asarray(s1, dtype=float))
        if progress is not None:
            progress((i + 1) / len(sizes))
    s0, s1 = np.concatenate(parts0), np.concatenate(parts1)
    res = audit_scores(s0, s1, delta=case.delta, confidence=confidence, rng=gen)
    seconds = time.perf_counter() - start
    keep = min(PLOT_SCORES, s0.size, s1.size)
    return AuditResult(case, res.epsilon_lb, confidence, runs, res.threshold, res.fpr, res.fnr,
                       res.fpr_upper, res.fnr_upper, gen.choice(s0, keep, replace=False),
                       gen.choice(s1, keep, replace=False), seconds)
