"""The home page's study: the public set E next to the private set D.

The home page has no controls and no randomness: its numbers are the scenario's summary (records,
d, encoded columns, target rate) and every feature's mean in E and D, largest difference first.
:func:`prepare` computes both tables once per scenario; :func:`at` hands them out. D's numbers
are a non-private reference (computed without noise, never a release); their labels say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import pandas as pd

from dpcore.datasets import Scenario
from dpcore.datasets.dimension import Dimension
from dpcore.simulation import Progress
from dpcore.studies.base import StudyParams

__all__ = ["CONTROLS", "COLUMNS", "D", "DOMAINS", "PRIVATE_LABEL", "PUBLIC_LABEL", "SEED_KEY",
           "TOP_FEATURES", "VIEW_LABELS",
           "Params", "Tables", "at", "compute", "feature_means", "prepare", "summary_table",
           "takeaway"]

#: How many features the page's bar chart shows (the most different first).
TOP_FEATURES = 20
PUBLIC_LABEL = "public E"
PRIVATE_LABEL = "private D (non-private reference)"
#: The summary's column of d (:mod:`dpcore.datasets.dimension`) and of every encoded column.
D = "d (features after encoding)"
COLUMNS = "encoded columns (target's included)"


@dataclass(frozen=True, kw_only=True)
class Params(StudyParams):
    """The home page's parameters: none (no controls of its own, no study seed).

    Examples
    --------
    >>> Params.from_controls({"other_key": 1}) == Params()
    True
    >>> Params.seed_key() is None
    True
    """

    PREFIX = ""
    CHEAP = ()


#: The home page has no controls of its own and no study seed.
CONTROLS: dict[str, Any] = Params.defaults()
SEED_KEY = Params.seed_key()
#: The page has one view: none to choose.
VIEW_LABELS: dict[str, str] = {}
DOMAINS: dict[str, Any] = {}


class Tables(NamedTuple):
    """The home page's two tables (what :func:`prepare` computes once per scenario)."""

    #: :func:`summary_table` with its index as the column ``set``.
    summary: pd.DataFrame
    #: :func:`feature_means` with its index as the column ``feature``.
    feature_means: pd.DataFrame


def summary_table(scenario: Scenario) -> pd.DataFrame:
    """One row per set: number of records, d (:data:`D`), every encoded column (:data:`COLUMNS`)
    and, with a target, its rate.

    Indexed by ``set``; D's row is labelled a non-private reference.
    """
    frames = {PUBLIC_LABEL: scenario.public, PRIVATE_LABEL: scenario.private}
    dim = scenario.dimension
    table = pd.DataFrame(
        {
            "records": [len(frame) for frame in frames.values()],
            D: [dim.d] * len(frames),
            COLUMNS: [dim.columns] * len(frames),
        },
        index=pd.Index(list(frames), name="set"),
    )
    if scenario.target is not None:
        table["target rate"] = [frame[scenario.target].mean() for frame in frames.values()]
    return table


def feature_means(scenario: Scenario) -> pd.DataFrame:
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


def prepare(scenario: Scenario, params: Params, *, progress: Progress = None,
            parallel: Any = None) -> Tables:
    """The two tables of ``scenario`` (``params``, ``progress`` and ``parallel`` are not used:
    two means per feature take no time worth a bar)."""
    del params, progress, parallel
    return Tables(summary_table(scenario).reset_index(), feature_means(scenario).reset_index())


def at(prepared: Tables, params: Params) -> dict[str, pd.DataFrame]:
    """The page's tables by name: ``"summary"`` and ``"feature_means"`` (:class:`Tables`).

    D's rows and columns are labelled "non-private reference": D read without noise.
    """
    del params
    return prepared._asdict()


def compute(scenario: Scenario, params: Params, *, progress: Progress = None,
            parallel: Any = None) -> dict[str, pd.DataFrame]:
    """The home page's tables for ``scenario``: :func:`at` of :func:`prepare`.

    Examples
    --------
    >>> from dpcore.datasets import load_scenario
    >>> numbers = compute(load_scenario("wine"), Params())
    >>> list(numbers["summary"]["set"])
    ['public E', 'private D (non-private reference)']
    """
    return at(prepare(scenario, params, progress=progress, parallel=parallel), params)


def takeaway(numbers: Mapping[str, pd.DataFrame], params: Params) -> str:
    """Two sentences on the run's numbers (for presentation mode), computed from ``numbers``."""
    summary = numbers["summary"].set_index("set")
    public, private = summary.loc[PUBLIC_LABEL], summary.loc[PRIVATE_LABEL]
    dim = Dimension(int(public[D]), int(public[COLUMNS]) - int(public[D]))
    first = (f"The public set E has {int(public['records']):,} records and the private set D "
             f"{int(private['records']):,}, each with {dim.text()}")
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
