"""Published deployments of differential privacy: where a chosen epsilon sits among real ones.

:func:`deployments` reads ``dpcore/data/deployments.csv``, shipped with the package (nothing is
fetched at run time). Every row names the organisation, the data, the budget as published
(epsilon, delta and/or the zCDP rho; none converted here), its **unit** (what one budget
protects and over what period: a person in a whole release, a user per day, a device per day, a
query), and its source: a title, an address and the sentence of the source that states the
numbers. Units differ, so the numbers are not comparable one to one: a per-day budget spent
every day adds up over a year. Where a row cites the OpenDP deployments registry or Damien
Desfontaines's list, that page quotes the primary source; Apple's per-day figures are the
list's translation of Apple's per-submission values.
"""

from __future__ import annotations

import functools
from importlib import resources

import pandas as pd

__all__ = ["DEPLOYMENT_COLUMNS", "SHOWN_COLUMNS", "deployments", "epsilon_rank"]

#: The columns of :func:`deployments`, in order.
DEPLOYMENT_COLUMNS = ("name", "organisation", "year", "epsilon", "delta", "rho", "unit", "data",
                      "source", "url", "quote")
#: The columns the pages and the report show (the data's description and the quote stay in the
#: shipped table).
SHOWN_COLUMNS = ("name", "organisation", "year", "epsilon", "delta", "rho", "unit", "source",
                 "url")


def deployments() -> pd.DataFrame:
    """Published deployments with their privacy parameters, one sourced row each.

    Returns
    -------
    DataFrame
        Columns :data:`DEPLOYMENT_COLUMNS`: ``epsilon``, ``delta`` and ``rho`` as published
        (NaN where the source gives none), ``unit`` what the budget protects and over what
        period, ``source`` and ``url`` the citation and ``quote`` the source's words.

    Examples
    --------
    >>> table = deployments()
    >>> table.loc[table["organisation"] == "U.S. Census Bureau", ["epsilon", "rho"]].values.tolist()
    [[17.14, 2.56], [2.47, 0.07]]
    """
    return _read().copy()


@functools.cache
def _read() -> pd.DataFrame:
    """The shipped table, read once per process (the risk view asks for it on every rerun)."""
    path = resources.files("dpcore") / "data" / "deployments.csv"
    with resources.as_file(path) as file:
        frame = pd.read_csv(file, dtype={"year": "int64"})
    frame = frame.rename(columns={"source_title": "source", "source_url": "url"})
    return frame.loc[:, list(DEPLOYMENT_COLUMNS)]


@functools.lru_cache(maxsize=256)  # every page's every run asks, for a handful of totals
def epsilon_rank(epsilon: float) -> tuple[int, int]:
    """How many published deployments used a smaller ε than ``epsilon``, and how many publish
    an ε at all (a row with only a zCDP ρ has none to compare).

    >>> epsilon_rank(1.0)
    (1, 12)
    """
    published = _read()["epsilon"].dropna()
    return int((published < epsilon).sum()), len(published)
