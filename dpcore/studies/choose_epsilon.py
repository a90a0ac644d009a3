"""The run of the "Choose epsilon" page: the smallest ε for a target, ε as risk, composition.

The page's numbers for a set of controls, for the view in ``ce_view``:

* "Target → ε": the answer (smallest ε, what it achieves, its interval) as one row of metrics,
  and the curve behind the figure. Closed forms read no data; the Monte-Carlo targets are seeded
  studies that measure errors against the private data (their curve is named non-private) or,
  on the public stand-in, against half of E.
* "ε as risk": the worst-case belief after one release, and the curves of the figure.
* "Composition": the plan's totals under each method and the growth of k identical releases.
  A run has no session ledger: it composes the plan alone (``ce_with_ledger`` is not applied).

The page calls the helpers below (:func:`route_data`, :func:`noise_sensitivity`,
:func:`logistic_arrays`, :func:`subset_data`, :func:`subset_sizes`, :func:`risk_grid`,
:data:`DEFAULT_PLAN`), so a run repeats exactly its dpcore calls and seeds. Nothing here is a
release and nothing spends budget.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dpcore.planning import (
    COARSE_GRID,
    compare_compositions,
    composition_growth,
    epsilon_for_importance_theory,
    epsilon_from_curve,
    importance_errors,
    logistic_errors,
    mean_sensitivity,
    noise_answer,
    planned_releases,
    posterior_bound,
    posterior_curves,
    public_stand_in,
    search_epsilon,
    subset_errors,
)
from dpcore.queries import INDICATOR, MAX_CONDITIONS, query_from_controls
from dpcore.runs.domains import (
    EPSILONS,
    LAMBDAS,
    SEED,
    Between,
    NotFromLink,
    OneOf,
    query_domains,
)
from dpcore.validation import DataError

__all__ = ["CONTROLS", "DEFAULT_PLAN", "DOMAINS", "QUERY_KEY", "SEED_KEY", "TARGETS", "VIEWS",
           "compute", "logistic_arrays", "noise_sensitivity", "plan_table", "risk_grid",
           "route_data", "subset_data", "subset_sizes", "takeaway"]

VIEWS = ("Target → ε", "ε as risk", "Composition")
TARGETS = ("laplace", "gaussian", "iw_theory", "iw_mc", "lr", "subset")
LEVEL_TARGETS = ("laplace", "gaussian", "iw_theory", "iw_mc")
DATA_TARGETS = ("iw_theory", "iw_mc", "lr", "subset")
PRIORS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)
RISK_EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
SUBSET_SIZES = (10, 30, 100, 300, 600, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 10000)
#: The plan the composition view's table starts from (its widget edits apply to this).
DEFAULT_PLAN = pd.DataFrame({
    "mechanism": ["Laplace", "Gaussian", "Importance weights"],
    "epsilon": [0.05, 0.5, 0.1],
    "delta": [0.0, 1e-6, 0.0],
    "count": [100, 4, 1],
    "part": [None, None, None],
})
QUERY_KEY = "ce_q"
RISK_PRIOR = 0.01  # the "risk at that ε" metric: how far a 1 % belief can rise

#: The page's controls (widget keys of pages/choose_epsilon.py, and the session budget of the
#: sidebar) with their defaults. ``ce_plan`` takes the table editor's edits of
#: :data:`DEFAULT_PLAN` (its widget state) or a list of rows.
CONTROLS: dict[str, Any] = {
    "ce_view": VIEWS[0], "ce_epsilon": 1.0, "ce_target": "laplace", "ce_level": 0.95,
    "ce_query": "count", "ce_low": 0.0, "ce_high": 100.0, "ce_n": 1000, "ce_err_count": 10.0,
    "ce_err_mean": 0.5, "ce_delta": 1e-6, "ce_route": "private", "ce_err_iw": 0.05,
    "ce_kind": "bound", "ce_tail": "normal", "ce_lambda": 0.1, "ce_reps": 100,
    "ce_err_lr": 0.17, "ce_restarts": 5, "ce_run_lr": False, "ce_err_sub": 2.0,
    "ce_sub_reps": 2, "ce_run_sub": False, "ce_prior": 0.01, "ce_risk_delta": 0.0,
    "ce_plan": {"edited_rows": {}, "added_rows": [], "deleted_rows": []}, "ce_slack": 1e-6,
    "ce_with_ledger": False, "budget_epsilon": 1.0,
    f"{QUERY_KEY}_kind": INDICATOR, f"{QUERY_KEY}_mean_column": None, f"{QUERY_KEY}_n": 1,
    f"{QUERY_KEY}_combine": "and",
    **{f"{QUERY_KEY}_{part}_{i}": None for i in range(MAX_CONDITIONS)
       for part in ("col", "op", "value")},
}
SEED_KEY = "ce_seed"
_DELTAS = (1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4)
#: The values each control can take, as the page draws it (:mod:`dpcore.runs.domains`). The
#: plan table's edits are the table editor's own state, which only the editor can set.
DOMAINS = {
    "ce_view": OneOf(VIEWS), "ce_epsilon": OneOf(EPSILONS), "ce_target": OneOf(TARGETS),
    "ce_level": OneOf((0.5, 0.8, 0.9, 0.95, 0.99)), "ce_query": OneOf(("count", "mean")),
    "ce_low": Between(), "ce_high": Between(), "ce_n": Between(1, 2**53 - 1, integer=True),
    "ce_err_count": Between(1e-6), "ce_err_mean": Between(1e-9), "ce_delta": OneOf(_DELTAS),
    "ce_route": OneOf(("private", "public")), "ce_err_iw": Between(1e-6),
    "ce_kind": OneOf(("bound", "plugin")), "ce_tail": OneOf(("normal", "chebyshev")),
    "ce_lambda": OneOf(LAMBDAS), "ce_reps": OneOf((20, 50, 100, 200)),
    "ce_err_lr": Between(0.0, 1.0), "ce_restarts": OneOf((3, 5, 10, 20)),
    "ce_err_sub": Between(0.0), "ce_sub_reps": OneOf((1, 2, 3, 5)), "ce_prior": OneOf(PRIORS),
    "ce_risk_delta": OneOf((0.0, 1e-6, 1e-4, 1e-3, 1e-2)),
    "ce_plan": NotFromLink("the plan table keeps its own edits"), "ce_slack": OneOf(_DELTAS),
    "budget_epsilon": Between(0.01, 100.0), SEED_KEY: SEED, **query_domains(QUERY_KEY),
}


# ----------------------------------------------------------------------------- shared helpers --

def route_data(scenario: Any, route: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(private, public)`` of a study's route: D and E, or two seeded halves of E (the public
    stand-in, :func:`dpcore.planning.public_stand_in`)."""
    if route == "private":
        return scenario.private, scenario.public
    if route != "public":
        raise DataError(f"Unknown route {route!r}; expected 'private' or 'public'.")
    return public_stand_in(scenario.public, rng=seed)


def noise_sensitivity(kind: str, n: int, low: float, high: float) -> float:
    """Sensitivity of the closed-form targets: 1 for a count, the replace-one sensitivity of a
    mean of ``n`` values in ``[low, high]`` otherwise."""
    return 1.0 if kind == "count" else mean_sensitivity(n, low, high)


def logistic_arrays(scenario: Any, route: str) -> tuple[Any, bool]:
    """The arrays of the logistic-regression target and whether every predictor is one-hot
    (then the model has no intercept)."""
    from dpcore.perturbation.experiments import scenario_arrays

    arrays = scenario_arrays(scenario, part="private" if route == "private" else "public")
    onehot = all(scenario.kinds.get(g) == "onehot" for g, cols in scenario.groups.items()
                 if any(c in arrays.features for c in cols))
    return arrays, onehot


def subset_data(scenario: Any, route: str, seed: int) -> Any:
    """The rescaled data of the optimal-subset target (Step 1 of [WJ18] Algorithm 1)."""
    from dpcore.subset import rescale, scenario_arguments

    private, public = route_data(scenario, route, seed)
    return rescale(private, public, **scenario_arguments(scenario))


def subset_sizes(n_public: int) -> np.ndarray:
    """The 13 coarse candidate sizes within ``n_public`` distinct public points."""
    return np.array([s for s in SUBSET_SIZES if s < n_public] + [n_public])


def risk_grid(epsilon: float) -> tuple[np.ndarray, list[float]]:
    """The priors and the ε values of the risk figure (the slider's ε among them)."""
    return np.geomspace(PRIORS[0], PRIORS[-1], 60), sorted(set(RISK_EPSILONS) | {epsilon})


def plan_table(plan: Any) -> pd.DataFrame:
    """The composition view's plan: :data:`DEFAULT_PLAN` with the table editor's edits
    (``{"edited_rows", "added_rows", "deleted_rows"}``), or rows given as a list of dicts.

    >>> plan = plan_table({"edited_rows": {"0": {"epsilon": 0.2}}, "deleted_rows": [1],
    ...                    "added_rows": [{"mechanism": "Laplace", "epsilon": 1.0, "count": 2}]})
    >>> plan[["mechanism", "epsilon", "count"]].values.tolist()
    [['Laplace', 0.2, 100], ['Importance weights', 0.1, 1], ['Laplace', 1.0, 2]]
    """
    if plan is None:
        return DEFAULT_PLAN.copy()
    if isinstance(plan, pd.DataFrame):
        return plan.copy()
    if isinstance(plan, list | tuple):
        return pd.DataFrame(list(plan), columns=list(DEFAULT_PLAN.columns))
    if not isinstance(plan, Mapping):
        raise DataError(f"ce_plan must be the table's edits or a list of rows; got "
                        f"{type(plan).__name__}.")
    rows = DEFAULT_PLAN.to_dict("records")
    for row, changes in (plan.get("edited_rows") or {}).items():
        rows[int(row)] = {**rows[int(row)], **changes}
    deleted = {int(r) for r in plan.get("deleted_rows") or []}
    rows = [row for i, row in enumerate(rows) if i not in deleted]
    rows += [dict(row) for row in plan.get("added_rows") or []]
    return pd.DataFrame(rows, columns=list(DEFAULT_PLAN.columns))


# ------------------------------------------------------------------------------------ compute --

def _lr_cell(epsilon: float, shared: tuple) -> np.ndarray:
    """Test errors at one ε of the logistic-regression study (a grid cell: its streams are
    named by the seed and ε inside :func:`dpcore.planning.logistic_errors`)."""
    arrays, onehot, restarts, seed = shared
    return logistic_errors(arrays.X, arrays.y, [epsilon], X_test=arrays.X_test,
                           y_test=arrays.y_test, restarts=restarts, data_norm=arrays.data_norm,
                           fit_intercept=not onehot, seed=seed)[0]


def _subset_cell(epsilon: float, shared: tuple) -> np.ndarray:
    """Selected-subset errors at one ε of the subset study (streams named by seed inside
    :func:`dpcore.subset.subset_study`, independent of the other ε)."""
    data, sizes, repeats, seed = shared
    return subset_errors(data, [epsilon], sizes=sizes, repeats=repeats, seed=seed)[0]


def _answer_numbers(answer: Any, *, target: str, private_curve: bool,
                    extra: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    row = {"target": target, "statistic": answer.statistic, "source": answer.source,
           "target_value": float(answer.target), "met": bool(answer.met),
           "smallest_epsilon": float(answer.epsilon) if answer.met else np.nan,
           "achieved": float(answer.achieved), "best_epsilon": float(answer.best_epsilon),
           "interval_low": float(answer.low), "interval_high": float(answer.high),
           "runs_per_epsilon": int(answer.n_runs),
           "risk_of_1pct_prior": (float(posterior_bound(RISK_PRIOR, answer.epsilon))
                                  if answer.met else np.nan),
           **extra}
    curve = "curve_nonprivate" if private_curve else "curve"
    return {"metrics": pd.DataFrame([row]), curve: answer.curve.reset_index(drop=True)}


def _target(scenario: Any, c: Mapping[str, Any], seed: int,
            progress: Callable[[float], None] | None, parallel: Any) -> dict[str, pd.DataFrame]:
    target = c["ce_target"]
    if target not in TARGETS:
        raise DataError(f"Unknown target {target!r}; expected one of {TARGETS}.")
    level = float(c["ce_level"]) if target in LEVEL_TARGETS else 0.95
    if target in ("laplace", "gaussian"):
        mechanism = "Laplace" if target == "laplace" else "Gaussian"
        kind = c["ce_query"]
        sensitivity = noise_sensitivity(kind, int(c["ce_n"]), c["ce_low"], c["ce_high"])
        error = c["ce_err_count"] if kind == "count" else c["ce_err_mean"]
        delta = float(c["ce_delta"]) if mechanism == "Gaussian" else 1e-6
        answer = noise_answer(mechanism, sensitivity, float(error), level, delta=delta)
        return _answer_numbers(answer, target=target, private_curve=False,
                               extra={"level": level, "sensitivity": sensitivity,
                                      "delta": delta if mechanism == "Gaussian" else 0.0})
    if scenario is None:
        raise DataError("This target needs a scenario.")
    route = c["ce_route"]
    extra = {"route": route}
    if target in ("iw_theory", "iw_mc"):
        from dpcore.importance import BootstrapStudy, variance_terms

        query = query_from_controls(scenario, c, QUERY_KEY)
        lam, reps, error = float(c["ce_lambda"]), int(c["ce_reps"]), float(c["ce_err_iw"])
        private, public = route_data(scenario, route, seed)
        fits = BootstrapStudy(private, public, reps, rng=seed).fit(lam)
        b_D, b_E = query.evaluate(private), query.evaluate(public)
        truth = float(b_D.mean())
        extra |= {"query": str(query), "level": level, "lambda": lam, "replicates": reps}
        if target == "iw_theory":
            terms = variance_terms(private, public, query, lam, beta0=fits.coef_full)
            answer = epsilon_for_importance_theory(terms, error, level, kind=c["ce_kind"],
                                                   tail=c["ce_tail"])
        else:
            answer = search_epsilon(lambda e: importance_errors(fits, b_E, truth, e), error,
                                    statistic=level, rng=seed, name="|estimate − truth|")
        return _answer_numbers(answer, target=target, private_curve=route == "private",
                               extra=extra)
    if scenario.target is None:
        raise DataError("This target needs a scenario with a 0/1 target column.")
    if target == "lr":
        if not c["ce_run_lr"]:
            return {"metrics": pd.DataFrame([{"target": target, "study_run": False, **extra}])}
        arrays, onehot = logistic_arrays(scenario, route)
        shared = (arrays, onehot, int(c["ce_restarts"]), seed)
        if parallel is None:  # the page's one call over the grid
            values = logistic_errors(arrays.X, arrays.y, COARSE_GRID, X_test=arrays.X_test,
                                     y_test=arrays.y_test, restarts=shared[2],
                                     data_norm=arrays.data_norm, fit_intercept=not onehot,
                                     seed=seed, progress=progress)
        else:  # one cell per ε, each from its own streams: the same numbers on any backend
            values = np.stack(parallel.map(_lr_cell, list(COARSE_GRID), progress=progress,
                                           shared=shared))
        answer = epsilon_from_curve(COARSE_GRID, values, float(c["ce_err_lr"]), rng=seed,
                                    name="test error")
    else:
        if not c["ce_run_sub"]:
            return {"metrics": pd.DataFrame([{"target": target, "study_run": False, **extra}])}
        data = subset_data(scenario, route, seed)
        shared = (data, subset_sizes(data.n_public), int(c["ce_sub_reps"]), seed)
        if parallel is None:  # the page's one call over the grid
            values = subset_errors(data, COARSE_GRID, sizes=shared[1], repeats=shared[2],
                                   seed=seed, progress=progress)
        else:  # one cell per ε, each from its own streams: the same numbers on any backend
            values = np.stack(parallel.map(_subset_cell, list(COARSE_GRID), progress=progress,
                                           shared=shared))
        answer = epsilon_from_curve(COARSE_GRID, values, float(c["ce_err_sub"]), rng=seed,
                                    name="prediction error t")
    numbers = _answer_numbers(answer, target=target, private_curve=route == "private",
                              extra={**extra, "study_run": True})
    runs = pd.DataFrame(values, columns=[f"run_{r + 1}" for r in range(values.shape[1])])
    runs.insert(0, "epsilon", list(COARSE_GRID))
    numbers["runs_nonprivate" if route == "private" else "runs"] = runs
    return numbers


def _risk(c: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    epsilon, prior, delta = float(c["ce_epsilon"]), float(c["ce_prior"]), float(c["ce_risk_delta"])
    priors, eps_set = risk_grid(epsilon)
    row = {"epsilon": epsilon, "prior": prior, "delta": delta,
           "posterior_at_most": float(posterior_bound(prior, epsilon)),
           "posterior_expected_with_delta": (float(posterior_bound(prior, epsilon, delta))
                                             if delta > 0 else np.nan)}
    numbers = {"metrics": pd.DataFrame([row]), "posterior_curves": posterior_curves(priors,
                                                                                     eps_set)}
    if delta > 0:
        numbers["posterior_curve_delta"] = posterior_curves(priors, [epsilon], delta)
    numbers["odds"] = pd.DataFrame({
        "epsilon": eps_set, "odds_ratio": np.exp(eps_set),
        "belief_after_one_release": [float(posterior_bound(prior, e)) for e in eps_set]})
    return numbers


def _composition(c: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    slack, budget = float(c["ce_slack"]), float(c["budget_epsilon"])
    planned = planned_releases(plan_table(c["ce_plan"]))
    table = compare_compositions(planned, slack, ledger=None)
    from_plan = bool(planned) and planned[0].delta == 0.0
    each = planned[0].epsilon if from_plan else float(c["ce_epsilon"])
    metrics = {"budget": budget, "delta_slack": slack,
               "releases": int(table["releases"].iloc[0]),
               "growth_epsilon_each": each, "growth_from": "plan" if from_plan else "slider",
               "ledger_included": False}
    for row in table.itertuples(index=False):
        metrics[f"{row.method}_epsilon"] = float(row.epsilon)
        metrics[f"{row.method}_fits_budget"] = bool(row.epsilon <= budget)
    return {"metrics": pd.DataFrame([metrics]), "composition": table,
            "growth": composition_growth(each, delta_slack=slack)}


def compute(scenario: Any, controls: Mapping[str, Any], seed: int, *,
            progress: Callable[[float], None] | None = None,
            parallel: Any = None) -> dict[str, pd.DataFrame]:
    """The page's numbers for the view in ``ce_view`` (see the module docstring).

    Parameters
    ----------
    scenario : dpcore.datasets.Scenario or None
        Read only by the data-based targets (importance weights, logistic regression, subset).
    controls : mapping
        The page's controls (:data:`CONTROLS`; missing keys take its defaults).
    seed : int
        The page's simulation seed (``ce_seed``).
    progress : callable(fraction), optional
        Advanced by the logistic-regression and subset studies.
    parallel : dpcore.parallel.Parallel, optional
        Where the logistic-regression and subset studies run their ε grid: a loky or Dask
        backend gets one cell per ε (each with streams named by the seed and ε, so the numbers
        do not depend on it); default and sequential: the page's one call in this process.

    Returns
    -------
    dict of str to DataFrame
    """
    c = {**CONTROLS, **controls}
    view = c["ce_view"] or VIEWS[0]
    if view == VIEWS[1]:
        return _risk(c)
    if view == VIEWS[2]:
        return _composition(c)
    if parallel is not None and parallel.backend == "sequential":
        parallel = None
    return _target(scenario, c, int(seed), progress, parallel)


def takeaway(numbers: Mapping[str, pd.DataFrame], controls: Mapping[str, Any]) -> str:
    """Two sentences on the view's answer, from the numbers."""
    m = numbers["metrics"].iloc[0]
    if "posterior_curves" in numbers:
        odds = numbers["odds"]
        top = odds.iloc[-1]
        return (f"After one release at ε = {m['epsilon']:g}, an attacker's {100 * m['prior']:g} % "
                f"belief that a given person is in the data can rise to at most "
                f"{100 * m['posterior_at_most']:.2f} %. At ε = {top['epsilon']:g} the same prior "
                f"can rise to {100 * top['belief_after_one_release']:.2f} %.")
    if "composition" in numbers:
        table = numbers["composition"].dropna(subset=["epsilon"])
        best = table.loc[table["epsilon"].idxmin()]
        seq = table[table["method"] == "sequential"]["epsilon"]
        seq_text = f"{float(seq.iloc[0]):.3g}" if len(seq) else "no total"
        fits = "fits" if best["epsilon"] <= m["budget"] else "does not fit"
        return (f"The plan's {int(m['releases'])} releases total ε = {seq_text} under sequential "
                f"composition and ε = {best['epsilon']:.3g} under {best['method']} composition. "
                f"The tightest total {fits} the budget ε = {m['budget']:g}.")
    if "study_run" in m and not bool(m["study_run"]):
        name = {"lr": "logistic-regression", "subset": "optimal-subset"}.get(m["target"])
        return (f"The {name} study is switched off, so no ε was computed for it. "
                f"Switch it on (route: {m['route']}) to get an answer.")
    if m["met"]:
        first = (f"The smallest ε that keeps the {m['statistic']} at most {m['target_value']:g} "
                 f"is {m['smallest_epsilon']:.3g} ({m['source']}).")
        second = (f"At that ε a 1 % prior belief that a person is in the data can rise to "
                  f"{100 * m['risk_of_1pct_prior']:.1f} %.")
    else:
        first = (f"No ε up to 10 keeps the {m['statistic']} at most {m['target_value']:g} "
                 f"({m['source']}).")
        second = (f"The best reachable is {m['achieved']:.3g} at ε = {m['best_epsilon']:.3g}.")
    return f"{first} {second}"
