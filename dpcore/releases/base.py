"""What a decision reads about a release: :class:`Release`, :class:`AuditScope` and the rows of
its utility (:func:`utility_row`).

Each release module (:mod:`dpcore.releases`) declares one :class:`Release`; the registry
(:mod:`dpcore.releases.registry`) gathers them into
:data:`~dpcore.decision.releases.RELEASES`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

__all__ = ["UTILITY_COLUMNS", "AuditScope", "Numbers", "Release", "page_epsilon", "utility_row",
           "utility_table"]

#: The columns of a release's utility table.
UTILITY_COLUMNS = ["quantity", "value", "spread", "sd", "meaning", "non_private"]
#: A study's numbers: its tables by name.
Numbers = Mapping[str, pd.DataFrame]


def utility_row(quantity: str, value: float, meaning: str, non_private: bool, *,
               sd: float = math.nan, kind: str = "SD", missing: str = "exact") -> dict[str, Any]:
    """One utility row; ``sd`` its spread (one SD, or an SE when ``kind`` names one), NaN for
    an exact number or none measured (``missing`` says which, in words)."""
    if math.isnan(sd):
        spread = missing
    else:
        spread = f"SD {sd:.3g}" if kind == "SD" else f"± {sd:.3g} ({kind})"
    return {"quantity": quantity, "value": float(value), "spread": spread, "sd": float(sd),
            "meaning": meaning, "non_private": bool(non_private)}


def utility_table(rows: Any) -> pd.DataFrame:
    """A release's utility table from its rows (:func:`utility_row`), in
    :data:`UTILITY_COLUMNS`."""
    return pd.DataFrame(list(rows), columns=UTILITY_COLUMNS)


@dataclass(frozen=True)
class AuditScope:
    """Which part of a release a decision's audit attacks, at what ε, and what it leaves out.

    A release can be a composite of several noisy steps (the optimal subset spends ε₁, ε₂ and
    ε₃ in three of them); an audit case attacks one mechanism. The decision says which.

    Attributes
    ----------
    case : str
        The audit case (:data:`dpcore.audit.CASE_KEYS`).
    epsilon : float
        The ε the audited step claims (the audit's claimed ε).
    step : str
        The audited step, in words ("the selection of a subset size (Algorithm 2 steps 5-6)").
    total : float
        The ε the whole release spends.
    unaudited : tuple of (str, float)
        The other steps that spend ε, each with its ε: no audit of this decision attacks them.
    rest : str
        One more clause, in words: what the release does without spending ε (post-processing)
        or where the steps not audited here are attacked.
    """

    case: str
    epsilon: float
    step: str
    total: float
    unaudited: tuple[tuple[str, float], ...] = ()
    rest: str = ""

    @property
    def whole(self) -> bool:
        """Whether the audited step spends all of the release's ε."""
        return not self.unaudited

    @property
    def steps(self) -> list[float]:
        """The ε of each step that spends ε (ε > 0), the audited step first: what a plan
        composes.

        Examples
        --------
        >>> AuditScope("laplace", 1.0, "the count", 3.0, (("the sum", 2.0), ("a cut", 0.0))).steps
        [1.0, 2.0]
        """
        return [float(e) for e in (self.epsilon, *(eps for _, eps in self.unaudited)) if e > 0]

    def sentence(self) -> str:
        """Which step the audit covers at what ε, and what is not audited, in words."""
        if self.whole:
            return (f"The audit covers {self.step} at ε = {self.epsilon:.3g}, all of the "
                    f"release's ε. No other step spends ε"
                    + (f": {self.rest}." if self.rest else "."))
        parts = "; ".join(f"{part} at ε = {eps:.3g}" for part, eps in self.unaudited)
        rest = f" {self.rest[0].upper()}{self.rest[1:]}." if self.rest else ""
        return (f"The audit covers one step of the release: {self.step} at ε = "
                f"{self.epsilon:.3g}, of the release's total ε = {self.total:.3g}. Not audited "
                f"here: {parts}.{rest} An audit of one step bounds that step's ε, not the "
                "release's total.")

    def table(self) -> pd.DataFrame:
        """One row per step that spends ε: the step, its ε and whether the audit covers it."""
        rows = [{"step": self.step, "epsilon": self.epsilon, "audited": True}]
        rows += [{"step": part, "epsilon": eps, "audited": False}
                 for part, eps in self.unaudited]
        return pd.DataFrame(rows, columns=["step", "epsilon", "audited"])


def page_epsilon(metrics: pd.Series) -> float:
    """The ε a page's release spends: the study's ε (``metrics["epsilon"]``)."""
    return float(metrics["epsilon"])


@dataclass(frozen=True)
class Release:
    """One page's release, as a decision reads it.

    Attributes
    ----------
    page : str
        The page (its study ``dpcore.studies.<page>``).
    name : str
        What the release publishes, in words.
    view : str
        The study's view whose numbers hold the utility at ε.
    utility : callable
        ``(numbers, params) -> DataFrame`` of the utility rows.
    audit : callable
        ``(params, metrics) -> AuditScope``: the audit case that attacks a step of the release
        (:data:`dpcore.audit.CASE_KEYS`), the step's ε, and the steps it does not attack.
    epsilon : callable, default=page_epsilon
        ``(metrics) -> ε`` the release spends.
    data : callable
        ``(params, prepared) -> (title, description)`` of the data the study built itself, or
        None when it reads the sidebar's scenario (whose title and description then apply).
    """

    page: str
    name: str
    view: str
    utility: Callable[[Numbers, Any], pd.DataFrame]
    audit: Callable[[Any, pd.Series], AuditScope]
    epsilon: Callable[[pd.Series], float] = page_epsilon
    data: Callable[[Any, Any], tuple[str, str] | None] = lambda params, prepared: None

    def reads_scenario(self, params: Any, prepared: Any = None) -> bool:
        """Whether the study reads the sidebar's scenario at ``params`` (else it builds its
        own data from built-in definitions)."""
        return self.data(params, prepared) is None
