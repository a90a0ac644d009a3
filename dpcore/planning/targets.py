"""Several statistics at once: the smallest total budget that meets every accuracy target.

A person lists what they will release (a count, a sum, a mean, ...), each with its sensitivity
(from the domain), the error bar it must meet and the share of releases that must meet it.
:func:`plan_targets` answers, under a composition method of :mod:`dpcore.composition`:

* with no ``total``: each target's smallest epsilon (the closed forms of
  :mod:`dpcore.planning.closed_form`: the Laplace tail, the analytic Gaussian), and what they
  compose to; answering each target alone costs the same epsilons, so the total is never larger
  than answering them separately (and smaller under a tighter method);
* with a ``total``: the split of that total that minimises the worst shortfall, i.e. the
  smallest common factor ``r`` such that every target is met at ``r`` times its error bar while
  the split composes to at most ``total`` (a bisection on ``r``: each target's epsilon falls as
  its error bar widens, so the composed total does too).

Targets without a closed form (an importance-weighted estimate, a private model's test error, a
subset's prediction error) are answered by the pages' studies (the choose-epsilon page's
"Target → ε" view): such a target enters the plan as ``mechanism="fixed"`` with the ``epsilon``
its study returned, which the plan spends as it is (a split of a ``total`` keeps it and shares
out the rest).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from dpcore.composition import compose
from dpcore.mechanisms import Gaussian, Laplace
from dpcore.planning.closed_form import epsilon_for_gaussian, epsilon_for_laplace
from dpcore.validation import check_choice, check_probability, check_scalar

__all__ = ["TARGET_MECHANISMS", "TARGET_MECHANISM_NAMES", "plan_targets", "target_records"]

#: The mechanisms a target may name: a closed-form tail (Laplace, Gaussian), or an epsilon fixed
#: by a study ("fixed", counted as a pure release: the worst case for its epsilon).
TARGET_MECHANISMS = ("laplace", "gaussian", "fixed")
#: Each of them as a page names it.
TARGET_MECHANISM_NAMES = {"laplace": "Laplace", "gaussian": "Gaussian",
                          "fixed": "fixed ε (from a study)"}
#: Columns of :func:`plan_targets`'s table.
COLUMNS = ("statistic", "mechanism", "sensitivity", "error", "level", "epsilon", "delta", "rho",
           "scale", "error_reached", "meets")


def _check_target(target: Any, i: int) -> dict[str, Any]:
    """Target ``i`` of :func:`plan_targets` as a row of its table: a dict naming a mechanism of
    :data:`TARGET_MECHANISMS` and its sensitivity and error bar, or a study's fixed epsilon."""
    if not isinstance(target, Mapping):
        raise TypeError(f"targets[{i}] must be a dict such as {{'statistic': 'count', "
                        f"'sensitivity': 1.0, 'error': 10.0}}, got {type(target).__name__}.")
    mechanism = str(target.get("mechanism", "laplace")).lower()
    if mechanism not in TARGET_MECHANISMS:
        raise ValueError(
            f"targets[{i}] has mechanism {target.get('mechanism')!r}: plan_targets uses the "
            f"closed forms of 'laplace' and 'gaussian'. Plan a page's release (importance "
            "weights, a private model, a subset) from its study on the choose-epsilon page, "
            "then add it here with mechanism 'fixed' and the epsilon the study returned.")
    if mechanism == "fixed":
        if "epsilon" not in target:
            raise ValueError(f"targets[{i}] is 'fixed': give the epsilon its study returned.")
        return {"statistic": str(target.get("statistic", f"target {i + 1}")),
                "mechanism": mechanism, "sensitivity": math.nan, "error": math.nan,
                "level": math.nan,
                "epsilon": check_scalar(target["epsilon"], f"targets[{i}]['epsilon']",
                                        min_val=0.0)}
    missing = [key for key in ("sensitivity", "error") if key not in target]
    if missing:
        raise ValueError(f"targets[{i}] lacks {missing}: give each target its sensitivity (from "
                         "the domain, e.g. 1 for a count) and the error bar it must meet.")
    return {
        "statistic": str(target.get("statistic", f"target {i + 1}")),
        "mechanism": mechanism,
        "sensitivity": check_scalar(target["sensitivity"], f"targets[{i}]['sensitivity']",
                                    min_val=0.0),
        "error": check_scalar(target["error"], f"targets[{i}]['error']", min_val=0.0),
        "level": check_probability(target.get("level", 0.95), f"targets[{i}]['level']",
                                   "the share of releases that must meet the error bar."),
    }


def _row(target: dict[str, Any], factor: float, delta: float) -> dict[str, Any]:
    """The target met at ``factor`` times its error bar: its epsilon, noise and error (a fixed
    target keeps its epsilon)."""
    if target["mechanism"] == "fixed":
        return {**target, "delta": 0.0, "rho": None, "scale": math.nan,
                "error_reached": math.nan, "meets": True}
    sensitivity, level = target["sensitivity"], target["level"]
    error = target["error"] * factor
    if target["mechanism"] == "laplace":
        epsilon = epsilon_for_laplace(sensitivity, error, level)
        noise: Any = Laplace(epsilon, sensitivity)
        scale, rho, used_delta = noise.scale, None, 0.0
    else:
        epsilon = epsilon_for_gaussian(sensitivity, error, level, delta=delta)
        noise = Gaussian(epsilon, delta, sensitivity)
        scale, used_delta = noise.sigma, delta
        rho = sensitivity**2 / (2.0 * scale**2)
    reached = float(noise.tail_bound(level))
    return {**target, "epsilon": epsilon, "delta": used_delta, "rho": rho, "scale": scale,
            "error_reached": reached, "meets": reached <= target["error"] * (1 + 1e-12)}


_MECHANISM_NAMES = {"laplace": "Laplace", "gaussian": "Gaussian", "fixed": "study"}


def _compose(rows: list[dict[str, Any]], method: str, delta_slack: float) -> tuple[float, float]:
    return compose([r["epsilon"] for r in rows], [r["delta"] for r in rows], method,
                   delta_slack if method != "sequential" else 0.0,
                   rhos=[r["rho"] for r in rows],
                   mechanisms=[_MECHANISM_NAMES[r["mechanism"]] for r in rows])


def plan_targets(targets: Sequence[Mapping[str, Any]], *, method: str = "sequential",
                 total: float | None = None, delta: float = 0.0,
                 delta_slack: float = 1e-6) -> pd.DataFrame:
    """The epsilon of each release that meets its accuracy target, and their composed total.

    Parameters
    ----------
    targets : sequence of dict
        One per release: ``sensitivity`` (L1 for Laplace, L2 for Gaussian, from the domain),
        ``error`` (the error bar, in the statistic's units), and optionally ``statistic`` (a
        name), ``level`` (share of releases within the error bar, default 0.95) and
        ``mechanism`` (``"laplace"``, the default, ``"gaussian"``, or ``"fixed"``: a target
        answered by a page's study, given as its ``epsilon``, spent as it is and counted as a
        pure release without a known curve, i.e. its worst case).
    method : {"sequential", "advanced", "zcdp", "rdp", "pld"}, default="sequential"
        How the releases compose (:func:`dpcore.composition.compose`; a Gaussian release counts
        by its σ under zcdp, rdp and pld).
    total : float or None, default=None
        None: each target at its smallest epsilon. A number: the total epsilon to split; the
        split minimises the worst ratio of the error reached to the error bar (``meets`` says
        which targets the total allows).
    delta : float, default=0.0
        The total δ of the Gaussian releases, split equally between them (each is calibrated
        at its share); needed, and in (0, 1), when a target is Gaussian.
    delta_slack : float, default=1e-6
        δ' of the methods other than sequential.

    Returns
    -------
    DataFrame
        One row per target: statistic, mechanism, sensitivity, error, level, epsilon, delta,
        rho (Gaussian), scale (Laplace b or Gaussian σ), error_reached (the noise's
        ``level``-radius at that epsilon) and meets. ``.attrs["total"]`` is the composed
        ``(epsilon, delta)``; ``.attrs["separately"]`` the sequential sum of the targets'
        epsilons (answering each alone); ``.attrs["factor"]`` the common error factor (1 with
        no ``total``).

    Examples
    --------
    >>> plan = plan_targets([{"statistic": "count", "sensitivity": 1.0, "error": 10.0},
    ...                      {"statistic": "mean age", "sensitivity": 0.01, "error": 0.5}])
    >>> plan[["statistic", "epsilon"]].round(4).values.tolist()
    [['count', 0.2996], ['mean age', 0.0599]]
    >>> round(plan.attrs["total"][0], 4)
    0.3595
    """
    if isinstance(targets, Mapping) or not isinstance(targets, Sequence) or not targets:
        raise ValueError("targets must be a non-empty list of dicts, one per release.")
    checked = [_check_target(t, i) for i, t in enumerate(targets)]
    method = check_choice(method, "method", ("sequential", "advanced", "zcdp", "rdp", "pld"))
    gaussians = sum(t["mechanism"] == "gaussian" for t in checked)
    each_delta = 0.0
    if gaussians:
        delta = check_scalar(delta, "delta", min_val=0.0, max_val=1.0, include_max=False)
        each_delta = delta / gaussians
    rows = [_row(t, 1.0, each_delta) for t in checked]
    factor = 1.0
    if total is not None:
        total = check_scalar(total, "total", min_val=0.0)

        def fits(f: float) -> bool:
            return _compose([_row(t, f, each_delta) for t in checked], method,
                            delta_slack)[0] <= total

        fixed = [t for t in checked if t["mechanism"] == "fixed"]
        if fixed and _compose([_row(t, 1.0, 0.0) for t in fixed], method,
                              delta_slack)[0] >= total:
            raise ValueError(f"The fixed targets alone spend the total {total:g} under "
                             f"{method} composition: raise the total or drop one of them.")
        hi = 1.0
        while not fits(hi):  # bracket the smallest factor whose split fits the total
            hi *= 2.0
        lo = hi / 2.0
        while fits(lo) and lo > 1e-9:
            lo, hi = lo / 2.0, lo
        for _ in range(60):
            mid = math.sqrt(lo * hi)
            lo, hi = (lo, mid) if fits(mid) else (mid, hi)
        factor = hi
        rows = [_row(t, factor, each_delta) for t in checked]
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    frame.attrs["total"] = _compose(rows, method, delta_slack)
    frame.attrs["separately"] = math.fsum(r["epsilon"] for r in rows)
    frame.attrs["factor"] = factor
    frame.attrs["method"] = method
    return frame


def target_records(plan: pd.DataFrame) -> list[dict[str, Any]]:
    """The releases of a plan of :func:`plan_targets` as composition records (on all rows, as
    :func:`dpcore.composition.compose_parts` reads them), each counted as :func:`plan_targets`
    composes it: a Laplace statistic by its own curve, a Gaussian one by its ρ, a fixed one as
    the worst case for its ε.

    >>> plan = plan_targets([{"statistic": "count", "sensitivity": 1.0, "error": 10.0}])
    >>> [(r["mechanism"], round(r["epsilon"], 4)) for r in target_records(plan)]
    [('Laplace', 0.2996)]
    """
    return [{"dataset": "", "partition": None, "epsilon": float(row["epsilon"]),
             "delta": float(row["delta"]),
             "rho": None if pd.isna(row["rho"]) else float(row["rho"]),
             "mechanism": _MECHANISM_NAMES[row["mechanism"]]}
            for row in plan.to_dict("records")]
