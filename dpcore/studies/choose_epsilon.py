"""The study of the "Choose epsilon" page: the smallest ε for a target, ε as risk, composition.

The page (``pages/choose_epsilon.py``), ``python -m dpcore run``, exported scripts and
presentation mode all call this study. Its numbers, for the view in ``ce_view``:

* "Target → ε": the answer (smallest ε, what it achieves, its interval) as one row of metrics,
  and the curve behind the figure. Closed forms read no data; the Monte-Carlo targets are seeded
  studies that measure errors against the private data (their curve is named non-private) or,
  on the public stand-in, against half of E.
* "ε as risk": the worst-case belief after one release, the curves of the figure, and the
  published deployments (:func:`dpcore.planning.deployments`) to place the chosen ε among.
* "Composition": the plan's totals under each method and the growth of k identical releases,
  with the session's ledger when ``ce_with_ledger`` is on and the page passes its ledger
  (:attr:`Params.ledger`; a run has none, so it composes the plan alone).
* "Several statistics": a list of accuracy targets (:data:`DEFAULT_STATS`, edited in a table)
  planned together by :func:`dpcore.planning.plan_targets`: the smallest total under each
  composition method, each target's ε under the chosen one, or the split of a fixed total that
  minimises the worst shortfall. Closed forms: no data is read.

Staged as :mod:`dpcore.studies.base` describes: :func:`prepare` does what a data target reads
from the data, once (the importance weights' bootstrap fits and Theorem 2's terms, the
Monte-Carlo search of an importance-weight target, the errors of the logistic-regression and
subset studies on the coarse ε grid); :func:`at` does the closed forms and the answer from a
grid's errors. The slider's ε changes no target's answer (it marks the figure): it sets the risk
view and the growth of a plan whose first row is not pure. Nothing here is a release and
nothing spends budget.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Machine
   Learning 93, Theorems 2 and 3.
.. [WJ18] Wang, Ji et al. (2018), *Optimal public subsets for private learning*, Algorithms 1
   and 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, NamedTuple

import numpy as np
import pandas as pd

from dpcore.domains import (
    EPSILONS,
    LAMBDAS,
    SEED,
    Between,
    NotFromLink,
    OneOf,
    ViewOf,
    query_domains,
)
from dpcore.importance import BootstrapStudy, VarianceTerms, variance_terms
from dpcore.perturbation.experiments import ScenarioArrays, scenario_arrays
from dpcore.planning import (
    COARSE_GRID,
    COMPOSITION_NAMES,
    COMPOSITIONS,
    SHOWN_COLUMNS,
    EpsilonAnswer,
    PlannedRelease,
    compare_compositions,
    composition_growth,
    deployments,
    epsilon_for_importance_theory,
    epsilon_from_curve,
    importance_errors,
    logistic_errors,
    mean_sensitivity,
    noise_answer,
    plan_interval,
    plan_targets,
    planned_releases,
    posterior_bound,
    posterior_curves,
    public_stand_in,
    records_interval,
    search_epsilon,
    subset_errors,
    target_records,
)
from dpcore.planning.attacker import attacker_table, interval_table
from dpcore.queries import query_from_controls
from dpcore.simulation import Progress
from dpcore.studies.base import QueryParams, StudyParams
from dpcore.subset import rescale, scenario_arguments
from dpcore.validation import DataError

__all__ = ["CONTROLS", "DATA_TARGETS", "DEFAULT_PLAN", "DEFAULT_STATS", "DELTAS", "DOMAINS",
           "IW_REPLICATES", "LEVELS", "LEVEL_TARGETS", "PREPARED", "PRIORS", "QUERIES",
           "QUERY_KEY", "RESTARTS", "RISK_DELTAS", "ROUTES", "ROUTE_LABELS", "SEED_KEY",
           "STUDY_REPEATS", "TARGETS", "VIEWS", "VIEW_LABELS", "Params", "Prepared", "at",
           "compute", "logistic_arrays", "plan_releases", "plan_table", "prepare", "risk_grid",
           "route_data", "stats_table", "stats_targets", "subset_data", "subset_sizes",
           "takeaway"]

#: The page's views by key, with the label the page shows.
VIEW_LABELS = {"target": "Target → ε", "risk": "ε as risk", "composition": "Composition",
               "stats": "Several statistics"}
VIEWS = tuple(VIEW_LABELS)
TARGETS = ("laplace", "gaussian", "iw_theory", "iw_mc", "lr", "subset")
LEVEL_TARGETS = ("laplace", "gaussian", "iw_theory", "iw_mc")
DATA_TARGETS = ("iw_theory", "iw_mc", "lr", "subset")
LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99)
QUERIES = ("count", "mean")
DELTAS = (1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4)
ROUTES = ("private", "public")
ROUTE_LABELS = {"private": "Private D (a non-private study)",
                "public": "Public stand-in (halves of E)"}
IW_REPLICATES = (20, 50, 100, 200)
RESTARTS = (3, 5, 10, 20)
STUDY_REPEATS = (1, 2, 3, 5)
PRIORS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5)
RISK_DELTAS = (0.0, 1e-6, 1e-4, 1e-3, 1e-2)
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
#: The statistics the "Several statistics" view starts from (its table's edits apply to this):
#: a count, a mean of n = 1,000 ages in [0, 100] (Δ = 100 / 1,000), a sum of hours capped at
#: 100 with Gaussian noise, and a model whose ε came from its study ("fixed").
DEFAULT_STATS = pd.DataFrame({
    "statistic": ["count of people", "mean age (n = 1,000, ages 0-100)",
                  "sum of weekly hours (each ≤ 100)", "private model (ε from its study)"],
    "mechanism": ["laplace", "laplace", "gaussian", "fixed"],
    "sensitivity": [1.0, 0.1, 100.0, None],
    "error": [10.0, 1.0, 2000.0, None],
    "level": [0.95, 0.95, 0.95, None],
    "epsilon": [None, None, None, 0.5],
})
QUERY_KEY = "ce_q"
RISK_PRIOR = 0.01  # the "risk at that ε" metric: how far a 1 % belief can rise


@dataclass(frozen=True, kw_only=True)
class Params(QueryParams, StudyParams):
    """The page's controls (widget key ``ce_`` + field name), and the session's ledger.

    ``lambda_`` is ``ce_lambda`` (``lambda`` is a Python keyword) and ``budget`` is the
    sidebar's ``budget_epsilon`` (:attr:`KEYS`). ``ledger`` is not a control: the page passes
    the session's recorded releases.

    Parameters
    ----------
    view : str, default="target"
        One of :data:`VIEWS` (a label reads as its key, None as the first).
    epsilon : float, default=1.0
        The slider's ε: the risk view's ε, marked on a target's curve.
    target : str, default="laplace"
        One of :data:`TARGETS`.
    level : float, default=0.95
        The share of releases that must meet a noise or importance-weight target.
    query, low, high, n : str, float, float, int
        A noise target's released value: a count, or a mean of ``n`` values in
        ``[low, high]``.
    err_count, err_mean, delta : float
        A noise target's largest error (count, mean) and the Gaussian release's δ.
    route : {"private", "public"}, default="private"
        What a data target is computed on: D and E, or two halves of E (:func:`route_data`).
    err_iw, kind, tail, lambda_, reps : float, str, str, float, int
        The importance-weight targets: the largest error, Theorem 2's form ("bound" or
        "plugin") and tail ("normal" or "chebyshev"), λ and the bootstrap replicates.
    q_kind, q_mean_column, q_n, q_combine, q_col_0, q_op_0, q_value_0, ... : optional
        The importance-weight targets' query (:func:`dpcore.queries.query_from_controls`).
    err_lr, restarts, run_lr : float, int, bool
        The logistic-regression target: largest mean test error, noise draws per ε, and
        whether its study runs.
    err_sub, sub_reps, run_sub : float, int, bool
        The optimal-subset target: largest prediction error t, repeats of Algorithm 2 per ε,
        and whether its study runs.
    prior, risk_delta : float
        The risk view's prior belief and the δ of its dashed curve.
    plan : mapping, list of dicts or DataFrame
        The composition view's plan (:func:`plan_table`): the table editor's edits of
        :data:`DEFAULT_PLAN` (its widget state), or rows.
    slack : float, default=1e-6
        δ′ of advanced composition and zCDP.
    with_ledger : bool, default=False
        Whether the composition view adds the session's ledger.
    stats : mapping, list of dicts or DataFrame
        The "Several statistics" view's targets (:func:`stats_table`): the table editor's edits
        of :data:`DEFAULT_STATS`, or rows.
    stats_method : str, default="pld"
        The composition method whose split the view details (one of
        :data:`dpcore.planning.COMPOSITIONS`).
    stats_delta : float, default=1e-6
        The total δ of the Gaussian targets.
    stats_split, stats_total : bool, float
        Whether to split a fixed total ε (``stats_total``) instead of meeting every target.
    budget : float, default=1.0
        The session's budget ε (the sidebar's).
    ledger : tuple of mappings, default=()
        The session's recorded releases (rows of
        :attr:`dpcore.accountant.BudgetAccountant.records`), composed with the plan when
        ``with_ledger`` is on.
    """

    PREFIX = "ce_"
    #: Fields whose widget key is not ``PREFIX + name``.
    KEYS: ClassVar[dict[str, str]] = {"budget": "budget_epsilon"}
    VIEW_LABELS: ClassVar[dict[str, str]] = VIEW_LABELS

    view: str = VIEWS[0]
    epsilon: float = 1.0
    target: str = "laplace"
    level: float = 0.95
    query: str = "count"
    low: float = 0.0
    high: float = 100.0
    n: int = 1000
    err_count: float = 10.0
    err_mean: float = 0.5
    delta: float = 1e-6
    route: str = "private"
    err_iw: float = 0.05
    kind: str = "bound"
    tail: str = "normal"
    lambda_: float = 0.1
    reps: int = 100
    err_lr: float = 0.17
    restarts: int = 5
    run_lr: bool = False
    err_sub: float = 2.0
    sub_reps: int = 2
    run_sub: bool = False
    prior: float = 0.01
    risk_delta: float = 0.0
    plan: Any = field(default_factory=lambda: {"edited_rows": {}, "added_rows": [],
                                                "deleted_rows": []})
    slack: float = 1e-6
    with_ledger: bool = False
    stats: Any = field(default_factory=lambda: {"edited_rows": {}, "added_rows": [],
                                                 "deleted_rows": []})
    stats_method: str = "pld"
    stats_delta: float = 1e-6
    stats_split: bool = False
    stats_total: float = 2.0
    budget: float = 1.0
    ledger: tuple[Mapping[str, Any], ...] = field(default=(), metadata={"control": False})

    @property
    def mode(self) -> str:
        """The view, or on the "Target → ε" view its target."""
        return self.target if self.view == "target" else self.view

    def prepare_key(self) -> tuple:
        """What :func:`prepare` reads: the mode and, for a data target, :data:`PREPARED`."""
        return (type(self).__qualname__, self.mode,
                *((name, getattr(self, name)) for name in PREPARED.get(self.mode, ())))


QUERY_FIELDS = tuple(f.name for f in fields(Params) if f.name.startswith("q_"))
#: The fields :func:`prepare` reads for each data target (the other modes read none).
PREPARED = {
    "iw_theory": ("seed", "route", "lambda_", "reps", *QUERY_FIELDS),
    "iw_mc": ("seed", "route", "lambda_", "reps", *QUERY_FIELDS),
    "lr": ("seed", "route", "run_lr", "restarts"),
    "subset": ("seed", "route", "run_sub", "sub_reps"),
}
#: The page's controls (widget keys of pages/choose_epsilon.py, and the session budget of the
#: sidebar) with their defaults. ``ce_plan`` takes the table editor's edits of
#: :data:`DEFAULT_PLAN` (its widget state) or a list of rows.
CONTROLS: dict[str, Any] = Params.defaults()
SEED_KEY = Params.seed_key()
#: The values each control can take, as the page draws it (:mod:`dpcore.domains`). The
#: plan and statistics tables' edits are the table editor's own state, which only the editor
#: (or a run config) can set.
DOMAINS = {
    "ce_view": ViewOf(VIEW_LABELS), "ce_epsilon": OneOf(EPSILONS), "ce_target": OneOf(TARGETS),
    "ce_level": OneOf(LEVELS), "ce_query": OneOf(QUERIES),
    "ce_low": Between(), "ce_high": Between(), "ce_n": Between(1, 2**53 - 1, integer=True),
    "ce_err_count": Between(1e-6), "ce_err_mean": Between(1e-9), "ce_delta": OneOf(DELTAS),
    "ce_route": OneOf(ROUTES), "ce_err_iw": Between(1e-6),
    "ce_kind": OneOf(("bound", "plugin")), "ce_tail": OneOf(("normal", "chebyshev")),
    "ce_lambda": OneOf(LAMBDAS), "ce_reps": OneOf(IW_REPLICATES),
    "ce_err_lr": Between(0.0, 1.0), "ce_restarts": OneOf(RESTARTS),
    "ce_err_sub": Between(0.0), "ce_sub_reps": OneOf(STUDY_REPEATS), "ce_prior": OneOf(PRIORS),
    "ce_risk_delta": OneOf(RISK_DELTAS),
    "ce_plan": NotFromLink("the plan table keeps its own edits", tuple(DEFAULT_PLAN),
                           len(DEFAULT_PLAN)),
    "ce_slack": OneOf(DELTAS),
    "ce_stats": NotFromLink("the statistics table keeps its own edits", tuple(DEFAULT_STATS),
                            len(DEFAULT_STATS)),
    "ce_stats_method": OneOf(COMPOSITIONS), "ce_stats_delta": OneOf(DELTAS),
    "ce_stats_total": Between(0.001, 100.0),
    "budget_epsilon": Between(0.01, 100.0), SEED_KEY: SEED, **query_domains(QUERY_KEY),
}


class Prepared(NamedTuple):
    """What a data target reads from the data, computed once (None where the mode has none).

    Attributes
    ----------
    query : str or None
        The importance-weight targets' query, as text.
    terms : VarianceTerms or None
        ``"iw_theory"``: the terms of [JE13]_ Theorems 2 and 3 at λ.
    fits : BootstrapStudy or None
        ``"iw_mc"``: the bootstrap fits at λ, which the search of the target's ε reads.
    truth : float or None
        ``"iw_mc"``: the query's answer on the private data (non-private).
    public_answers : ndarray or None
        ``"iw_mc"``: the query evaluated on each public record.
    runs : ndarray of shape (len(COARSE_GRID), n_runs) or None
        ``"lr"``, ``"subset"``: the errors of every run at every ε of
        :data:`dpcore.planning.COARSE_GRID`; None while the study is switched off.
    """

    query: str | None = None
    terms: VarianceTerms | None = None
    fits: BootstrapStudy | None = None
    truth: float | None = None
    public_answers: np.ndarray | None = None
    runs: np.ndarray | None = None


# ----------------------------------------------------------------------------- shared helpers --

def route_data(scenario: Any, route: str, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(private, public)`` of a study's route: D and E, or two seeded halves of E (the public
    stand-in, :func:`dpcore.planning.public_stand_in`)."""
    if route == "private":
        return scenario.private, scenario.public
    if route != "public":
        raise DataError(f"Unknown route {route!r}; expected 'private' or 'public'.")
    return public_stand_in(scenario.public, rng=seed)


def logistic_arrays(scenario: Any, route: str) -> tuple[ScenarioArrays, bool]:
    """The arrays of the logistic-regression target and whether every predictor is one-hot
    (then the model has no intercept)."""
    arrays = scenario_arrays(scenario, part="private" if route == "private" else "public")
    onehot = all(scenario.kinds.get(g) == "onehot" for g, cols in scenario.groups.items()
                 if any(c in arrays.features for c in cols))
    return arrays, onehot


def subset_data(scenario: Any, route: str, seed: int) -> Any:
    """The rescaled data of the optimal-subset target (Step 1 of [WJ18]_ Algorithm 1)."""
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
    return _edited(DEFAULT_PLAN, plan, "ce_plan")


def _edited(default: pd.DataFrame, edits: Any, key: str) -> pd.DataFrame:
    """``default`` with a table editor's edits, or the rows given (a DataFrame or dicts)."""
    if edits is None:
        return default.copy()
    if isinstance(edits, pd.DataFrame):
        return edits.copy()
    if isinstance(edits, list | tuple):
        return pd.DataFrame(list(edits), columns=list(default.columns))
    if not isinstance(edits, Mapping):
        raise DataError(f"{key} must be the table's edits or a list of rows; got "
                        f"{type(edits).__name__}.")
    rows = default.to_dict("records")
    for row, changes in (edits.get("edited_rows") or {}).items():
        rows[int(row)] = {**rows[int(row)], **changes}
    deleted = {int(r) for r in edits.get("deleted_rows") or []}
    rows = [row for i, row in enumerate(rows) if i not in deleted]
    rows += [dict(row) for row in edits.get("added_rows") or []]
    return pd.DataFrame(rows, columns=list(default.columns))


def stats_table(stats: Any) -> pd.DataFrame:
    """The "Several statistics" view's targets: :data:`DEFAULT_STATS` with the table editor's
    edits (as :func:`plan_table` reads them), or rows given as a list of dicts.

    >>> stats_table({"deleted_rows": [0, 1, 2]})[["statistic", "epsilon"]].values.tolist()
    [['private model (ε from its study)', 0.5]]
    """
    return _edited(DEFAULT_STATS, stats, "ce_stats")


def stats_targets(stats: Any) -> list[dict[str, Any]]:
    """The targets of :func:`stats_table` as :func:`dpcore.planning.plan_targets` reads them:
    empty cells dropped, rows without a statistic named by their place."""
    targets = []
    for i, row in enumerate(stats_table(stats).to_dict("records")):
        target = {k: v for k, v in row.items() if v is not None and not pd.isna(v)}
        target.setdefault("statistic", f"statistic {i + 1}")
        targets.append(target)
    return targets


def plan_releases(plan: Any) -> list[PlannedRelease]:
    """The plan's releases (:func:`plan_table`, then :func:`dpcore.planning.planned_releases`)."""
    return planned_releases(plan_table(plan))


# ------------------------------------------------------------------------------------ prepare --

def _logistic_grid(epsilons: list[float], shared: tuple, progress: Progress = None) -> np.ndarray:
    """Test errors of the default logistic-regression release (approximate minima perturbation
    centred on E's model, at the λ it picks on E) at ``epsilons``, simulated on the route's
    data (their streams are named by the seed and ε inside
    :func:`dpcore.planning.logistic_errors`)."""
    arrays, public, onehot, restarts, seed = shared
    return logistic_errors(arrays.X, arrays.y, epsilons, X_test=arrays.X_test,
                           y_test=arrays.y_test, restarts=restarts, data_norm=arrays.data_norm,
                           fit_intercept=not onehot, X_pub=public.X, y_pub=public.y,
                           classes=public.classes, seed=seed, progress=progress)


def _subset_grid(epsilons: list[float], shared: tuple, progress: Progress = None) -> np.ndarray:
    """Selected-subset errors of the subset study at ``epsilons`` (streams named by the seed
    inside :func:`dpcore.subset.subset_study`, independent of the other ε)."""
    data, sizes, repeats, seed = shared
    return subset_errors(data, epsilons, sizes=sizes, repeats=repeats, seed=seed,
                         progress=progress)


def _lr_cell(epsilon: float, shared: tuple) -> np.ndarray:
    return _logistic_grid([epsilon], shared)[0]


def _subset_cell(epsilon: float, shared: tuple) -> np.ndarray:
    return _subset_grid([epsilon], shared)[0]


def _importance(scenario: Any, params: Params) -> Prepared:
    """The bootstrap fits of the importance weights on the route's data ([JE13]_), with
    Theorem 2's terms (``iw_theory``) or what the Monte-Carlo search reads (``iw_mc``)."""
    query = query_from_controls(scenario, params.controls(), QUERY_KEY)
    private, public = route_data(scenario, params.route, params.seed)
    fits = BootstrapStudy(private, public, params.reps, rng=params.seed).fit(params.lambda_)
    if params.target == "iw_theory":
        terms = variance_terms(private, public, query, params.lambda_, beta0=fits.coef_full)
        return Prepared(query=str(query), terms=terms)
    return Prepared(query=str(query), fits=fits, truth=float(query.evaluate(private).mean()),
                    public_answers=query.evaluate(public))


def prepare(scenario: Any, params: Params, *, progress: Progress = None,
            parallel: Any = None) -> Prepared:
    """What the view's target reads from the data (the fields of :data:`PREPARED`).

    Parameters
    ----------
    scenario : dpcore.datasets.Scenario or None
        Read only by the data targets (importance weights, logistic regression, subset).
    params : Params
    progress : callable(fraction), optional
        Advanced by the logistic-regression and subset studies.
    parallel : dpcore.parallel.Parallel, optional
        Where the logistic-regression and subset studies run their ε grid: a loky or Dask
        backend gets one cell per ε (each with streams named by the seed and ε, so the numbers
        do not depend on it); default and sequential: one call over the grid in this process.

    Returns
    -------
    Prepared
        Empty for the closed forms, the risk view and the composition view.

    Raises
    ------
    DataError
        For an unknown target, or a data target without a scenario (or, for the
        logistic-regression and subset targets, without a 0/1 target column).
    """
    mode = params.mode
    if mode not in DATA_TARGETS:
        if mode not in (*TARGETS, "risk", "composition", "stats"):
            raise DataError(f"Unknown target {mode!r}; expected one of {TARGETS}.")
        return Prepared()
    if scenario is None:
        raise DataError("This target needs a scenario.")
    if mode in ("iw_theory", "iw_mc"):
        return _importance(scenario, params)
    if scenario.target is None:
        raise DataError("This target needs a scenario with a 0/1 target column.")
    if not (params.run_lr if mode == "lr" else params.run_sub):
        return Prepared()
    if mode == "lr":
        arrays, onehot = logistic_arrays(scenario, params.route)
        public = scenario_arrays(scenario, part="public")  # where the release picks its λ
        grid, cell, shared = _logistic_grid, _lr_cell, (arrays, public, onehot,
                                                        params.restarts, params.seed)
    else:
        data = subset_data(scenario, params.route, params.seed)
        grid, cell, shared = _subset_grid, _subset_cell, (data, subset_sizes(data.n_public),
                                                          params.sub_reps, params.seed)
    if parallel is None or parallel.backend == "sequential":  # one call over the grid
        return Prepared(runs=grid(COARSE_GRID, shared, progress))
    # one cell per ε, each from its own streams: the same numbers on any backend
    return Prepared(runs=np.stack(parallel.map(cell, list(COARSE_GRID), progress=progress,
                                               shared=shared)))


# ----------------------------------------------------------------------------------------- at --

def _answer_numbers(answer: EpsilonAnswer, *, target: str, private_curve: bool,
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


def _noise_target(params: Params) -> dict[str, pd.DataFrame]:
    """A count or a mean released with Laplace or Gaussian noise, in closed form."""
    mechanism = "Laplace" if params.target == "laplace" else "Gaussian"
    count = params.query == "count"
    sensitivity = 1.0 if count else mean_sensitivity(params.n, params.low, params.high)
    error = params.err_count if count else params.err_mean
    delta = params.delta if mechanism == "Gaussian" else 1e-6
    answer = noise_answer(mechanism, sensitivity, error, params.level, delta=delta)
    return _answer_numbers(answer, target=params.target, private_curve=False,
                           extra={"level": params.level, "sensitivity": sensitivity,
                                  "delta": delta if mechanism == "Gaussian" else 0.0})


def _data_target(prepared: Prepared, params: Params) -> dict[str, pd.DataFrame]:
    """A data target's answer from what :func:`prepare` computed."""
    target, route = params.target, params.route
    private_curve = route == "private"
    if target == "iw_mc":  # the search of the target's ε through the prepared fits
        answer = search_epsilon(
            lambda e: importance_errors(prepared.fits, prepared.public_answers, prepared.truth,
                                        e),
            params.err_iw, statistic=params.level, rng=params.seed, name="|estimate − truth|")
    if target == "iw_theory":
        answer = epsilon_for_importance_theory(prepared.terms, params.err_iw, params.level,
                                               kind=params.kind, tail=params.tail)
    if target in ("iw_theory", "iw_mc"):
        return _answer_numbers(answer, target=target, private_curve=private_curve,
                               extra={"route": route, "query": prepared.query,
                                      "level": params.level, "lambda": params.lambda_,
                                      "replicates": params.reps})
    if prepared.runs is None:
        return {"metrics": pd.DataFrame([{"target": target, "study_run": False, "route": route}])}
    error, name = ((params.err_lr, "test error") if target == "lr"
                   else (params.err_sub, "prediction error t"))
    answer = epsilon_from_curve(COARSE_GRID, prepared.runs, error, rng=params.seed, name=name)
    numbers = _answer_numbers(answer, target=target, private_curve=private_curve,
                              extra={"route": route, "study_run": True,
                                     "grid_smallest": float(min(COARSE_GRID))})
    runs = pd.DataFrame(prepared.runs,
                        columns=[f"run_{r + 1}" for r in range(prepared.runs.shape[1])])
    runs.insert(0, "epsilon", list(COARSE_GRID))
    numbers["runs_nonprivate" if private_curve else "runs"] = runs
    return numbers


def _risk(params: Params) -> dict[str, pd.DataFrame]:
    epsilon, prior, delta = params.epsilon, params.prior, params.risk_delta
    priors, eps_set = risk_grid(epsilon)
    row = {"epsilon": epsilon, "prior": prior, "delta": delta,
           "posterior_at_most": float(posterior_bound(prior, epsilon)),
           "posterior_expected_with_delta": (float(posterior_bound(prior, epsilon, delta))
                                             if delta > 0 else np.nan)}
    numbers = {"metrics": pd.DataFrame([row]), "posterior_curves": posterior_curves(priors,
                                                                                     eps_set)}
    if delta > 0:
        numbers["posterior_curve_delta"] = posterior_curves(priors, [epsilon], delta)
    attacker = attacker_table([epsilon])
    attacker["tpr_any_pure_dp"] = attacker_table([epsilon], mechanism="pure")["tpr"]
    numbers["attacker"] = attacker
    numbers["interval"] = interval_table([epsilon], delta_slack=params.slack)
    numbers["deployments"] = deployments().loc[:, list(SHOWN_COLUMNS)]
    numbers["odds"] = pd.DataFrame({
        "epsilon": eps_set, "odds_ratio": np.exp(eps_set),
        "belief_after_one_release": [float(posterior_bound(prior, e)) for e in eps_set]})
    return numbers


def _composition(params: Params) -> dict[str, pd.DataFrame]:
    slack = params.slack
    planned = plan_releases(params.plan)
    ledger = (pd.DataFrame(list(params.ledger)) if params.with_ledger and params.ledger
              else None)
    table = compare_compositions(planned, slack, ledger=ledger)
    from_plan = bool(planned) and planned[0].delta == 0.0
    each = planned[0].epsilon if from_plan else params.epsilon
    metrics = {"budget": params.budget, "delta_slack": slack,
               "releases": int(table["releases"].iloc[0]),
               "growth_epsilon_each": each, "growth_from": "plan" if from_plan else "slider",
               "ledger_included": ledger is not None}
    for row in table.itertuples(index=False):
        metrics[f"{row.method}_epsilon"] = float(row.epsilon)
        metrics[f"{row.method}_fits_budget"] = bool(row.epsilon <= params.budget)
    return {"metrics": pd.DataFrame([metrics]), "composition": table,
            "interval": plan_interval(planned, slack, ledger=ledger),
            "growth": composition_growth(each, delta_slack=slack)}


def _stats(params: Params) -> dict[str, pd.DataFrame]:
    """Every composition method's smallest total for the targets, and the chosen method's
    split (of a fixed total when ``stats_split``)."""
    targets = stats_targets(params.stats)
    if not targets:
        raise DataError("The table lists no statistic: add a row (what you will release, its "
                        "sensitivity and the error bar it must meet).")
    try:
        plans = {method: plan_targets(targets, method=method, delta=params.stats_delta,
                                      delta_slack=params.slack) for method in COMPOSITIONS}
        totals = [{"method": method, "epsilon": plan.attrs["total"][0],
                   "delta": plan.attrs["total"][1], "separately": plan.attrs["separately"]}
                  for method, plan in plans.items()]
        interval = records_interval(target_records(plans["pld"]), params.slack)
        total = params.stats_total if params.stats_split else None
        chosen = plan_targets(targets, method=params.stats_method, total=total,
                              delta=params.stats_delta, delta_slack=params.slack)
    except (TypeError, ValueError) as exc:
        raise DataError(str(exc)) from exc
    epsilon, delta = chosen.attrs["total"]
    metrics = {"method": params.stats_method, "split_total": bool(params.stats_split),
               "total_epsilon": epsilon, "total_delta": delta,
               "separately": chosen.attrs["separately"], "factor": chosen.attrs["factor"],
               "all_met": bool(chosen["meets"].all()), "budget": params.budget,
               "targets": len(targets)}
    return {"metrics": pd.DataFrame([metrics]), "stats_totals": pd.DataFrame(totals),
            "stats_interval": interval, "stats_plan": chosen.reset_index(drop=True)}


def at(prepared: Prepared, params: Params) -> dict[str, pd.DataFrame]:
    """The view's numbers (see the module docstring) from :func:`prepare`'s part.

    Returns
    -------
    dict of str to DataFrame
        Always ``metrics`` (one row). A target's answer adds its curve (``curve``, or
        ``curve_nonprivate`` when it measured errors against D) and, for the
        logistic-regression and subset targets, every run's errors (``runs``,
        ``runs_nonprivate``); the risk view adds ``posterior_curves``, ``odds``,
        ``attacker`` (the best TPR of a membership test at 1 % and 10 % false alarms against
        one Laplace release at ε, and against any ε-DP release: ``tpr_any_pure_dp``;
        :func:`dpcore.planning.attacker.attacker_table`), ``interval`` (that release's ε at
        δ′ = ``slack`` by privacy loss distributions, optimistic, point and pessimistic:
        :func:`dpcore.planning.attacker.interval_table`) and, for δ > 0,
        ``posterior_curve_delta``; the composition view ``composition``, ``interval`` (the
        plan's PLD total as optimistic, point and pessimistic values:
        :func:`dpcore.planning.plan_interval`) and ``growth``; "Several statistics"
        ``stats_totals`` (one row per composition method) and ``stats_plan`` (one row per
        target, :func:`dpcore.planning.plan_targets`) with ``stats_interval`` (the PLD
        total of meeting every target as an interval, as ``interval`` of the composition
        view).
    """
    mode = params.mode
    if mode == "stats":
        return _stats(params)
    if mode == "risk":
        return _risk(params)
    if mode == "composition":
        return _composition(params)
    if mode in DATA_TARGETS:
        return _data_target(prepared, params)
    return _noise_target(params)


def compute(scenario: Any, params: Params, *, progress: Progress = None,
            parallel: Any = None) -> dict[str, pd.DataFrame]:
    """``at(prepare(scenario, params), params)``: the page's numbers for its view."""
    return at(prepare(scenario, params, progress=progress, parallel=parallel), params)


def takeaway(numbers: Mapping[str, pd.DataFrame], params: Params) -> str:
    """Two sentences on the view's answer, from the numbers."""
    del params
    m = numbers["metrics"].iloc[0]
    if "stats_plan" in numbers:
        totals = numbers["stats_totals"].set_index("method")["epsilon"]
        best = totals.idxmin()
        if m["split_total"]:
            met = ("Every target is met." if m["all_met"] else
                   "Not every target is met: raise the total or relax a target.")
            return (f"Split under {COMPOSITION_NAMES[m['method']]} composition, the total ε = "
                    f"{m['total_epsilon']:.3g} brings every statistic within {m['factor']:.3g} "
                    f"times its error bar, the smallest worst shortfall. {met}")
        return (f"Meeting all {int(m['targets'])} targets costs ε = {totals['sequential']:.3g} "
                f"under sequential composition and ε = {totals[best]:.3g} under "
                f"{COMPOSITION_NAMES[best]}. "
                f"Answering each alone would spend {m['separately']:.3g} in all.")
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
        best_name = COMPOSITION_NAMES[best["method"]]
        return (f"The plan's {int(m['releases'])} releases total ε = {seq_text} under sequential "
                f"composition and ε = {best['epsilon']:.3g} under {best_name} composition. "
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
        if m.get("grid_smallest") is not None and m["smallest_epsilon"] <= m["grid_smallest"]:
            second += (f" The target is met already at the smallest ε tried "
                       f"({m['grid_smallest']:g}), so it says little about the budget: "
                       + ("the release is centred on a model fitted on the public set, which "
                          "meets it without the private records. "
                          if m["target"] == "lr" else "")
                       + "A stricter target shows what more budget buys.")
    else:
        first = (f"No ε up to 10 keeps the {m['statistic']} at most {m['target_value']:g} "
                 f"({m['source']}).")
        second = (f"The best reachable is {m['achieved']:.3g} at ε = {m['best_epsilon']:.3g}.")
    return f"{first} {second}"
