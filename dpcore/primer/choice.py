"""The exponential mechanism choosing the most common category of a column ([JLE14]_ Sect. 1.4).

Utility of a candidate = its count in D; sensitivity 1 under either relation (one record more,
fewer or replaced moves any one count by at most 1); not monotonic under "replace" (one count
rises while another falls), so the general form ``P(i) ∝ exp(epsilon u_i / 2)`` is used
([JLE14]_ Definition 6; [DR14]_ Theorem 3.10). The candidates are the column's public levels
(:func:`dpcore.primer.columns.candidates`); their counts are **non-private**.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1.4 (the exponential mechanism).
.. [DR14] Dwork & Roth (2014), *The algorithmic foundations of differential privacy*, Found.
   Trends Theor. Comput. Sci. 9, Theorem 3.10.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from dpcore.mechanisms import Exponential
from dpcore.primer.columns import candidates, raw_records
from dpcore.primer.noise import check_draws
from dpcore.primer.queries import show_value
from dpcore.random import stream
from dpcore.validation import DataError

__all__ = ["CandidateCounts", "candidate_counts", "runner_up_epsilon", "selection_from_counts",
           "selection_study"]


class CandidateCounts(NamedTuple):
    """The candidates of a column and how many private records hold each (**non-private**)."""

    column: str
    levels: list[Any]
    counts: np.ndarray


def candidate_counts(scenario: Any, column: str) -> CandidateCounts:
    """Count the private records holding each public level of ``column``.

    Raises
    ------
    DataError
        When ``column`` has no public list of categories, or the private data lacks it.
    """
    levels = candidates(scenario, column)
    raw = raw_records(scenario, "private")
    if column not in raw.columns:
        raise DataError(f"The private data has no column {column!r}.")
    counts = np.array([float((raw[column] == level).fillna(False).sum()) for level in levels])
    return CandidateCounts(column, levels, counts)


def selection_from_counts(counts: CandidateCounts, epsilon: float, *, n_draws: int,
                          seed: int) -> pd.DataFrame:
    """``n_draws`` choices of the exponential mechanism among ``counts``' candidates.

    All draws come from one vectorised call on the stream ``stream(seed, "primer",
    "exponential")``.

    Returns
    -------
    DataFrame
        One row per candidate: candidate (as text), count_nonprivate, probability_nonprivate
        (the exact selection probability, computed from the counts), frequency (share of draws
        that chose it), best_nonprivate (whether it has the largest count).
    """
    n_draws = check_draws(n_draws)
    mech = Exponential(epsilon, 1.0, neighbouring="replace one record, or add or remove one")
    utilities = np.broadcast_to(counts.counts, (n_draws, counts.counts.size))
    chosen = mech.randomise(utilities, rng=stream(seed, "primer", "exponential"))
    frequency = np.bincount(np.atleast_1d(chosen), minlength=counts.counts.size) / n_draws
    return pd.DataFrame({
        "candidate": [show_value(v) for v in counts.levels],
        "count_nonprivate": counts.counts,
        "probability_nonprivate": mech.probabilities(counts.counts),
        "frequency": frequency,
        "best_nonprivate": counts.counts == counts.counts.max(),
    })


def selection_study(scenario: Any, column: str, epsilon: float, *, n_draws: int,
                    seed: int) -> pd.DataFrame:
    """The exponential mechanism choosing the most common category of ``column``, ``n_draws``
    times: :func:`selection_from_counts` on :func:`candidate_counts`."""
    return selection_from_counts(candidate_counts(scenario, column), epsilon, n_draws=n_draws,
                                 seed=seed)


def runner_up_epsilon(lead: float, odds: float = 9.0) -> float:
    """The ε below which the runner-up is picked at least once per ``odds + 1`` picks against
    the leader, when the leader's count is ``lead`` higher (**non-private** when ``lead`` comes
    from D's counts).

    The exponential mechanism picks the two in the ratio ``exp(ε · lead / 2)`` (sensitivity 1),
    so the ratio is at most ``odds`` for ``ε <= 2 ln(odds) / lead``; infinite for a tie.

    Examples
    --------
    >>> round(runner_up_epsilon(100.0), 4)
    0.0439
    """
    if not lead > 0:
        return float("inf")
    return 2.0 * float(np.log(odds)) / float(lead)
