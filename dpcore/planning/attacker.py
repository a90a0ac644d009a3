"""What an attacker can do against a plan of releases, at a few false-alarm rates, and the
plan's ε as an interval: the two readings of ε the "ε as risk" view and the decision report
show beside the point value.

* :func:`attacker_table`: the best true-positive rate of any membership test at each
  false-positive rate (:func:`dpcore.planning.tradeoff.tradeoff`, the f-DP view), beside the
  cruder ``min(1, e^(sum of ε) FPR)`` that reading the total ε alone gives.
* :func:`interval_table`: the plan's ε at δ by privacy loss distributions as optimistic, point
  and pessimistic totals (:func:`dpcore.composition.pld_interval`), beside the sequential total.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dpcore.composition import pld_interval
from dpcore.planning.tradeoff import tradeoff

__all__ = ["FALSE_ALARMS", "attacker_table", "interval_table"]

#: The false-positive rates ("false alarms") at which the attacker's power is read.
FALSE_ALARMS = (0.01, 0.1)


def attacker_table(epsilons: Sequence[float], *, mechanism: str = "laplace",
                   fpr: Sequence[float] = FALSE_ALARMS) -> pd.DataFrame:
    """The attacker's best TPR against the plan at each false-positive rate.

    Parameters
    ----------
    epsilons : sequence of float
        ε of each release of the plan.
    mechanism : {"laplace", "pure"}, default="laplace"
        Laplace releases, or any pure ε-DP releases (their worst case, randomised response).
    fpr : sequence of float, default=FALSE_ALARMS

    Returns
    -------
    DataFrame
        One row per FPR: ``fpr``, ``tpr`` (the curve of :func:`~dpcore.planning.tradeoff.
        tradeoff`) and ``tpr_from_total`` (``min(1, e^(sum ε) fpr)``, what the total ε alone
        allows; the curve is not above it but for its discretisation's error, at most
        ``e^(k Δ) - 1`` for k releases).

    Examples
    --------
    >>> attacker_table([1.0]).round(4).to_dict("list")  # one release: e^ε FPR up to e^-ε / 2
    {'fpr': [0.01, 0.1], 'tpr': [0.0272, 0.2718], 'tpr_from_total': [0.0272, 0.2718]}
    >>> attacker_table([0.05] * 100).round(3).to_dict("list")  # 100 releases: far below e^5
    {'fpr': [0.01, 0.1], 'tpr': [0.033, 0.216], 'tpr_from_total': [1.0, 1.0]}
    """
    alarms = np.asarray(fpr, dtype=float)
    total = float(np.sum(np.asarray(epsilons, dtype=float)))
    return pd.DataFrame({"fpr": alarms,
                         "tpr": tradeoff(list(epsilons), alarms, mechanism=mechanism),
                         "tpr_from_total": np.minimum(1.0, np.exp(total) * alarms)})


def interval_table(epsilons: Sequence[float], *, mechanism: str = "laplace",
                   delta_slack: float = 1e-6) -> pd.DataFrame:
    """The plan's ε at ``delta_slack`` by privacy loss distributions, as an interval, beside
    the sequential total (one row: ``optimistic``, ``point``, ``pessimistic``, ``delta``,
    ``sequential``). ``mechanism`` as in :func:`attacker_table` ("pure": randomised response).

    Examples
    --------
    >>> row = interval_table([0.05] * 100).iloc[0]
    >>> [round(float(row[k]), 4) for k in ("optimistic", "point", "pessimistic")]
    [2.1932, 2.1933, 2.1934]
    """
    eps = [float(e) for e in epsilons]
    names = ["Laplace" if mechanism == "laplace" else None] * len(eps)
    got = pld_interval(eps, delta_slack=delta_slack, mechanisms=names)
    return pd.DataFrame([{"optimistic": got.optimistic, "point": got.point,
                          "pessimistic": got.pessimistic, "delta": got.delta,
                          "sequential": float(sum(eps))}])
