"""The "what if" table: planned releases and their totals under every composition method.

Rows of a table become :class:`~dpcore.composition.PlannedRelease` objects
(:func:`planned_releases`); :func:`compare_compositions` totals them, with the ledger's releases
already made, under each method of :data:`~dpcore.composition.COMPOSITIONS` (see also
:meth:`dpcore.accountant.BudgetAccountant.preview`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from dpcore.composition import (
    COMPOSITION_ASSUMPTIONS,
    COMPOSITIONS,
    PLAN_DATASET,
    PlannedRelease,
    compose_parts,
    gaussian_rho,
)

__all__ = ["PLANNABLE", "compare_compositions", "planned_releases"]

#: Mechanisms of the "what if" table and whether they need delta > 0.
PLANNABLE = {"Laplace": False, "Gaussian": True, "L2 Laplace": False, "Exponential": False,
             "Importance weights": False, "Logistic regression": False, "Optimal subset": False}


def planned_releases(table: pd.DataFrame, *, calibration: str = "analytic") -> list[PlannedRelease]:
    """Rows of a "what if" table (columns mechanism, epsilon, delta, count, and optionally
    part) as releases.

    A row with a ``part`` (e.g. "region = North") reads only that part of the data's rows:
    releases on different parts compose in parallel (:func:`compose_parts`). The parts must be
    disjoint and fixed by a rule that reads no private values as a whole (a column's value,
    record by record).

    A ``"Gaussian"`` row gets its ρ from the calibrated mechanism (:func:`gaussian_rho`); every
    other row must be pure (δ = 0) and counts as ε²/2 under zCDP. Rows with a missing epsilon or
    a count of 0 are skipped (an editor's empty rows).

    Raises
    ------
    ValueError
        For a row that cannot be a release, saying which row and why.
    """
    out: list[PlannedRelease] = []
    for i, row in enumerate(table.itertuples(index=False), start=1):
        eps, count = getattr(row, "epsilon", None), getattr(row, "count", 1)
        if eps is None or pd.isna(eps) or count is None or pd.isna(count) or int(count) == 0:
            continue
        mech = str(getattr(row, "mechanism", "Laplace") or "Laplace")
        delta = getattr(row, "delta", 0.0)
        delta = 0.0 if delta is None or pd.isna(delta) else float(delta)
        if float(eps) <= 0.0 or int(count) < 0:
            raise ValueError(f"Row {i}: ε must be > 0 and the count >= 0 (got ε = {eps}, count "
                             f"= {count}).")
        if mech == "Gaussian":
            if not 0.0 < delta < 1.0:
                raise ValueError(f"Row {i}: a Gaussian release needs 0 < δ < 1 (got δ = "
                                 f"{delta:g}); e.g. δ = 1e-6.")
            rho = gaussian_rho(float(eps), delta, calibration=calibration)
        else:
            if delta != 0.0:
                raise ValueError(f"Row {i}: {mech} is a pure ε-DP mechanism, so δ must be 0 "
                                 f"(got δ = {delta:g}); choose 'Gaussian' for an (ε, δ) release.")
            rho = None
        part = getattr(row, "part", None)
        part = None if part is None or pd.isna(part) or not str(part).strip() else str(part)
        out.append(PlannedRelease(mech, float(eps), delta, int(count), rho, part))
    return out


def _records(releases: Iterable[PlannedRelease]) -> list[dict[str, Any]]:
    """Planned releases as ledger-like records (a release on a part belongs to the plan's
    data, :data:`PLAN_DATASET`)."""
    return [{"dataset": PLAN_DATASET if r.partition is not None else "",
             "partition": r.partition, "partition_rule": r.partition_rule,
             "epsilon": r.epsilon, "delta": r.delta, "rho": r.rho, "mechanism": r.mechanism}
            for r in releases for _ in range(r.count)]


def compare_compositions(releases: Iterable[PlannedRelease], delta_slack: float = 1e-6, *,
                         ledger: pd.DataFrame | None = None) -> pd.DataFrame:
    """Totals of (the ledger plus) the planned releases under every composition method.

    Parameters
    ----------
    releases : iterable of PlannedRelease
    delta_slack : float, default=1e-6
        δ' of every method but sequential.
    ledger : DataFrame, default=None
        Releases already made (columns epsilon, delta and optionally rho, partition and
        partition_rule: :attr:`dpcore.accountant.BudgetAccountant.records`), composed with the
        plan.

    Returns
    -------
    DataFrame
        One row per method: method, epsilon, delta, releases, assumptions (and ``problem``, the
        reason when a method cannot account for the set, with NaN totals).
    """
    records = _records(releases)
    if ledger is not None and len(ledger):
        past = [{"dataset": row.get("dataset", ""),
                 "partition": None if pd.isna(row.get("partition")) else row.get("partition"),
                 "partition_rule": (None if pd.isna(row.get("partition_rule"))
                                    else row.get("partition_rule")),
                 "epsilon": float(row["epsilon"]), "delta": float(row["delta"]),
                 "rho": None if pd.isna(row.get("rho")) else float(row.get("rho")),
                 "mechanism": row.get("mechanism")}
                for row in ledger.to_dict("records")]
        records = past + records
    rows = []
    for method in COMPOSITIONS:
        try:
            total_eps, total_delta = compose_parts(records, method, delta_slack)
            problem = ""
        except ValueError as exc:
            total_eps = total_delta = math.nan
            problem = str(exc)
        rows.append({"method": method, "epsilon": total_eps, "delta": total_delta,
                     "releases": len(records), "assumptions": COMPOSITION_ASSUMPTIONS[method],
                     "problem": problem})
    return pd.DataFrame(rows)
