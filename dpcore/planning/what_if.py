"""The "what if" table: planned releases and their totals under every composition method.

Rows of a table become :class:`~dpcore.composition.PlannedRelease` objects
(:func:`planned_releases`); :func:`compare_compositions` totals them, with the ledger's releases
already made, under each method of :data:`~dpcore.composition.COMPOSITIONS` (see also
:meth:`dpcore.accountant.BudgetAccountant.preview`), and :func:`plan_interval` gives their
total by privacy loss distributions as an interval (optimistic, point and pessimistic
discretisations).
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
    pld_interval_parts,
)

__all__ = ["PLANNABLE", "compare_compositions", "plan_interval", "planned_releases",
           "records_interval"]

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


def _with_ledger(releases: Iterable[PlannedRelease],
                 ledger: pd.DataFrame | None) -> list[dict[str, Any]]:
    """The ledger's releases (:attr:`dpcore.accountant.BudgetAccountant.records`), if any, then
    the planned ones, as records."""
    records = _records(releases)
    if ledger is None or not len(ledger):
        return records
    past = [{"dataset": row.get("dataset", ""),
             "partition": None if pd.isna(row.get("partition")) else row.get("partition"),
             "partition_rule": (None if pd.isna(row.get("partition_rule"))
                                else row.get("partition_rule")),
             "epsilon": float(row["epsilon"]), "delta": float(row["delta"]),
             "rho": None if pd.isna(row.get("rho")) else float(row.get("rho")),
             "mechanism": row.get("mechanism")}
            for row in ledger.to_dict("records")]
    return past + records


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
    records = _with_ledger(releases, ledger)
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


def plan_interval(releases: Iterable[PlannedRelease], delta_slack: float = 1e-6, *,
                  ledger: pd.DataFrame | None = None) -> pd.DataFrame:
    """(The ledger plus) the planned releases' ε by privacy loss distributions as an interval.

    The connect-the-dots ``point`` value ([DGK22]_ Algorithm 1) between the ``optimistic``
    (every loss rounded down) and ``pessimistic`` (rounded up, [MM18]_) discretisations of the
    same loss distribution, at ``delta`` = Σ δ_i + δ' (:func:`dpcore.composition.
    pld_interval_parts`, parallel over parts as :func:`compare_compositions`); the exact ε lies
    in ``[optimistic, point]``. ``sequential`` is the sequential total beside it (the total the
    "pld" row of :func:`compare_compositions` shows when it is smaller than ``point``).

    References
    ----------
    .. [DGK22] Doroshenko, Ghazi, Kamath, Kumar & Manurangsi (2022), *Connect the dots:
       tighter discrete approximations of privacy loss distributions*, PETS, Algorithm 1.
    .. [MM18] Meiser & Mohammadi (2018), *Tight on budget? Tight bounds for r-fold approximate
       differential privacy*, CCS.

    Returns
    -------
    DataFrame
        One row: ``optimistic``, ``point``, ``pessimistic``, ``delta``, ``sequential``,
        ``discretisation`` and ``problem`` (why the interval cannot be given, with NaN
        numbers; "" otherwise).

    Examples
    --------
    >>> plan = [PlannedRelease("Laplace", 0.05, 0.0, 100, None, None)]
    >>> row = plan_interval(plan).iloc[0]
    >>> [round(float(row[k]), 4) for k in ("optimistic", "point", "pessimistic")]
    [2.1932, 2.1933, 2.1934]
    """
    return records_interval(_with_ledger(releases, ledger), delta_slack)


def records_interval(records: list[dict[str, Any]], delta_slack: float) -> pd.DataFrame:
    """:func:`plan_interval` of composition records (as :func:`dpcore.composition.
    compose_parts` reads them), in the same one-row table.

    >>> records = [{"dataset": "", "partition": None, "epsilon": 1.0, "delta": 0.0,
    ...             "mechanism": "Laplace"}]
    >>> row = records_interval(records, 1e-6).iloc[0]
    >>> bool(row["optimistic"] <= row["point"] <= row["pessimistic"] <= row["sequential"])
    True
    """
    try:
        got = pld_interval_parts(records, delta_slack)
        numbers = {"optimistic": got.optimistic, "point": got.point,
                   "pessimistic": got.pessimistic, "delta": got.delta,
                   "discretisation": got.discretisation}
        problem = ""
    except ValueError as exc:
        numbers = dict.fromkeys(("optimistic", "point", "pessimistic", "delta",
                                 "discretisation"), math.nan)
        problem = str(exc)
    sequential = compose_parts(records, "sequential", 0.0)[0] if records else 0.0
    return pd.DataFrame([{**numbers, "sequential": sequential, "problem": problem}])
