"""The home page's numbers from a run config: the public set E next to the private set D.

The home page has no controls and no randomness: its numbers are the scenario's summary (records,
encoded features, target rate) and every feature's mean in E and D, largest difference first.
The page draws its table and bar chart from :func:`summary_table` and :func:`feature_means`
(through :mod:`dpcore.figures.home`), and :func:`compute` returns the same tables. D's numbers are a
non-private reference (computed without noise, never a release); its labels say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from dpcore.simulation import Progress

__all__ = ["CONTROLS", "SEED_KEY", "TOP_FEATURES", "PUBLIC_LABEL", "PRIVATE_LABEL",
           "summary_table", "feature_means", "compute", "takeaway"]

#: The home page has no controls of its own and no study seed.
CONTROLS: dict[str, Any] = {}
SEED_KEY = None
#: How many features the page's bar chart shows (the most different first).
TOP_FEATURES = 20
PUBLIC_LABEL = "public E"
PRIVATE_LABEL = "private D (non-private reference)"


def summary_table(scenario) -> pd.DataFrame:
    """One row per set: number of records, encoded features d and, with a target, its rate.

    Indexed by ``set``; D's row is labelled a non-private reference.
    """
    frames = {PUBLIC_LABEL: scenario.public, PRIVATE_LABEL: scenario.private}
    table = pd.DataFrame(
        {
            "records": [len(frame) for frame in frames.values()],
            "features d": [scenario.d] * len(frames),
        },
        index=pd.Index(list(frames), name="set"),
    )
    if scenario.target is not None:
        table["target rate"] = [frame[scenario.target].mean() for frame in frames.values()]
    return table


def feature_means(scenario) -> pd.DataFrame:
    """Mean of every encoded feature but the target's in E and D, largest difference first.

    Indexed by ``feature``; columns :data:`PUBLIC_LABEL`, :data:`PRIVATE_LABEL` (non-private)
    and ``"difference E - D"``.
    """
    columns = scenario.predictors
    means = pd.DataFrame(
        {
            PUBLIC_LABEL: scenario.public[columns].mean(),
            PRIVATE_LABEL: scenario.private[columns].mean(),
        }
    )
    means["difference E - D"] = means[PUBLIC_LABEL] - means[PRIVATE_LABEL]
    order = means["difference E - D"].abs().sort_values(ascending=False, kind="stable").index
    return means.loc[order].rename_axis("feature")


def compute(scenario, controls: Mapping[str, object], seed: int, *, progress: Progress = None,
            parallel=None) -> dict[str, pd.DataFrame]:
    """The home page's tables for ``scenario`` (``controls`` and ``seed`` are not used).

    Returns
    -------
    dict of DataFrame
        ``"summary"`` (:func:`summary_table` with its index as the column ``set``) and
        ``"feature_means"`` (:func:`feature_means` with the column ``feature``). D's rows and
        columns are labelled "non-private reference": D read without noise.

    Examples
    --------
    >>> from dpcore.datasets import load_scenario
    >>> numbers = compute(load_scenario("wine"), {}, 0)
    >>> list(numbers["summary"]["set"])
    ['public E', 'private D (non-private reference)']
    """
    del controls, seed, progress, parallel
    return {"summary": summary_table(scenario).reset_index(),
            "feature_means": feature_means(scenario).reset_index()}


def takeaway(numbers: Mapping[str, pd.DataFrame], controls: Mapping[str, object]) -> str:
    """Two sentences on the run's numbers (for presentation mode), computed from ``numbers``."""
    summary = numbers["summary"].set_index("set")
    public, private = summary.loc[PUBLIC_LABEL], summary.loc[PRIVATE_LABEL]
    first = (f"The public set E has {int(public['records']):,} records and the private set D "
             f"{int(private['records']):,}, each with d = {int(public['features d'])} encoded "
             "features")
    if "target rate" in summary:
        first += (f"; the target is 1 in {public['target rate']:.1%} of E against "
                  f"{private['target rate']:.1%} of D (non-private)")
    means = numbers["feature_means"]
    if means.empty:
        return first + "."
    top = means.iloc[0]
    second = (f"The feature that differs most is {top['feature']}, with mean "
              f"{top[PUBLIC_LABEL]:.3f} in E against {top[PRIVATE_LABEL]:.3f} in D (non-private), "
              "so E stands in for D only after correction.")
    return f"{first}. {second}"
