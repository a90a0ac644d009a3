"""The importance-weighting page's study ([JE13]_ Figs 1-4, Sect. 5.1), in two stages.

:func:`prepare` does what no ε move changes: the query, the bootstrap resamples of D and their
non-private fits (:class:`~dpcore.importance.BootstrapStudy`, one batched solve per λ), the
estimates at the "Estimates vs ε" grid's budgets (:data:`EPSILON_GRID`), Theorem 2/3's terms
and the model comparison of Fig. 3 (which uses its own budgets). :func:`at` draws only what ε
changes: the noise of the cells at the slider's ε. Each cell's noise comes from its own stream
``(seed, "importance", lam, epsilon)`` (:func:`~dpcore.importance.bootstrap_estimates`), so a
cell is the same whichever stage computes it and in whatever order. The λ cells (fits and
variance terms) are shared by the prepared parts of every λ and view at one seed and number of
replicates (:func:`share`, kept through :func:`prepare`'s ``keep`` or passed as ``shared``): a λ
move fits the new λ alone.

Everything is a seeded simulation of the mechanism, not a release; the "Publish" view's release
draws fresh OS entropy on the page and cannot be recomputed, so that view's numbers are the
headline numbers only.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from dpcore.datasets import Scenario
from dpcore.domains import EPSILONS, LAMBDAS, SEED, OneOf, ViewOf, query_domains
from dpcore.importance import (
    PULL_SHARE,
    BootstrapFits,
    BootstrapStudy,
    VarianceTerms,
    bootstrap_estimates,
    expected_noise_norm,
    summarise,
    typical_log_weight_noise,
)
from dpcore.importance import baselines as dp_baselines
from dpcore.importance import model_distances as dp_model_distances
from dpcore.importance import variance_terms as dp_variance_terms
from dpcore.queries import Query, query_from_controls
from dpcore.simulation import Progress
from dpcore.studies.base import Keep, QueryParams, StudyParams, check_prepared, computed

__all__ = ["CONTROLS", "DOMAINS", "SEED_KEY", "VIEWS", "VIEW_LABELS", "GRID_VIEWS", "LAMBDA_GRID",
           "EPSILON_GRID", "MODEL_EPSILONS", "REPLICATES", "QUERY_KEY", "CELLS_KEPT", "Params",
           "Lazy", "LambdaCells", "Prepared", "WHISKERS", "WHISKER_QUANTILES", "epsilon_axis",
           "lambda_axis", "share", "prepare", "at", "compute", "caption", "takeaway"]

#: The lambdas of the "Estimates vs λ" view ([JE13]_ Fig. 1), plus the slider's value.
LAMBDA_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
#: The epsilons of the "Estimates vs ε" view ([JE13]_ Fig. 2), plus the slider's value.
EPSILON_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: The "Model training" view's own budgets ([JE13]_ Fig. 3).
MODEL_EPSILONS = (0.1, 1.0, 10.0)
REPLICATES = (20, 50, 100, 200)
#: The page's views by key, with the label the page shows.
VIEW_LABELS = {"by_epsilon": "Estimates vs ε", "by_lambda": "Estimates vs λ",
               "bias_sd": "Bias vs SD", "variance": "Variance: theory",
               "baselines": "Baselines", "models": "Model training", "publish": "Publish"}
VIEWS = tuple(VIEW_LABELS)
#: The views drawn over the whole λ grid (they share one prepared part).
GRID_VIEWS = ("by_lambda", "bias_sd", "variance")
#: Prefix of the page's query-builder widgets.
QUERY_KEY = "iw_q"
_LAMBDA_KEY = "iw_lambda"  # the field ``lam`` (:attr:`Params.KEYS`)
#: Fields that :func:`prepare` reads only through :meth:`Params.stage`.
_STAGE_FIELDS = ("view", "models", "model_reps")



@dataclass(frozen=True, kw_only=True)
class Params(QueryParams, StudyParams):
    """The importance-weighting page's controls (widget keys ``iw_<field>``).

    Parameters
    ----------
    epsilon : float, default=0.1
        The slider's budget: the only field an ε move changes (:func:`at`).
    lam : float, default=0.1
        The regularisation λ (widget ``iw_lambda``). The page opens a new scenario at
        :func:`~dpcore.importance.default_lambda` (0.5 on Adult at ε = 0.1), the noise-limited
        rule of N_D, d, ε and the public records.
    reps : int, default=100
        Bootstrap resamples of D (:data:`REPLICATES`).
    view : str, default="by_epsilon"
        One of :data:`VIEWS` (a label reads as its key, None as the first).
    models, model_reps : bool and int, default=False and 10
        Whether the "Model training" view trains its models, on how many resamples.
    q_kind, q_mean_column, q_n, q_combine, q_col_i, q_op_i, q_value_i
        The query builder's controls (:func:`dpcore.queries.query_from_controls`; None takes
        the widget's default for the scenario).
    seed : int, default=0
        The simulation seed (``iw_seed``).
    """

    PREFIX = "iw_"
    KEYS: ClassVar[dict[str, str]] = {"lam": _LAMBDA_KEY}
    VIEW_LABELS: ClassVar[dict[str, str]] = VIEW_LABELS

    epsilon: float = 0.1
    lam: float = 0.1
    reps: int = 100
    view: str = VIEWS[0]
    models: bool = False
    model_reps: int = 10

    def stage(self) -> tuple[bool, int | None]:
        """What the view asks :func:`prepare` for: the whole λ grid or λ alone, and the model
        comparison's replicates (None when the view trains no models)."""
        trains = self.view == "models" and self.models
        return self.view in GRID_VIEWS, self.model_reps if trains else None

    def prepare_key(self) -> tuple:
        """What :func:`prepare` reads: every field but ε, with the view only as its
        :meth:`stage`, so that views that prepare the same parts share them (an "Estimates vs
        ε" to "Baselines" switch fits nothing)."""
        key = (item for item in super().prepare_key()
               if not (isinstance(item, tuple) and item[0] in _STAGE_FIELDS))
        return (*key, ("stage", self.stage()))

    def share_key(self) -> tuple:
        """What :func:`share` reads: the resamples' seed and number (and the scenario, which
        the caller's cache keys by), the same for every λ, query and view."""
        return (type(self).__qualname__, self.seed, ("reps", self.reps))

    def query_key(self) -> tuple:
        """The query builder's controls (what the variance terms read beyond λ)."""
        return tuple(getattr(self, f.name) for f in dataclasses.fields(QueryParams))


CONTROLS: dict[str, Any] = Params.defaults()
SEED_KEY = Params.seed_key()
#: The values each control can take, as the page draws it (:mod:`dpcore.domains`).
DOMAINS = {
    "iw_epsilon": OneOf(EPSILONS), _LAMBDA_KEY: OneOf(LAMBDAS), "iw_reps": OneOf(REPLICATES),
    "iw_view": ViewOf(VIEW_LABELS), "iw_model_reps": OneOf((5, 10, 20, 50)), SEED_KEY: SEED,
    **query_domains(QUERY_KEY),
}


def lambda_axis(lam: float) -> tuple[float, ...]:
    """The λ of the grid views' boxes and curves: :data:`LAMBDA_GRID` and ``lam``, sorted."""
    return tuple(sorted(set(LAMBDA_GRID) | {lam}))


def epsilon_axis(epsilon: float) -> tuple[float, ...]:
    """The ε of the boxes and curves against ε: :data:`EPSILON_GRID` and ``epsilon``, sorted."""
    return tuple(sorted(set(EPSILON_GRID) | {epsilon}))


#: The λ cells one :class:`LambdaCells` keeps (fits, and variance terms per query): the
#: slider's λ values (:data:`~dpcore.domains.LAMBDAS`, which hold :data:`LAMBDA_GRID`),
#: and as many again for the terms of a second query.
CELLS_KEPT = 2 * len(LAMBDAS)


class LambdaCells:
    """The λ cells of one scenario's bootstrap resamples at a seed and a number of replicates,
    each computed once: the batched fits of a λ (:meth:`BootstrapStudy.fit`) and its variance
    terms for a query.

    Shared by the prepared parts of every λ and view at the same seed and replicates
    (:func:`share`), so that a λ move on a grid view fits only the new λ and the λ view reuses
    the slider's cell that the ε view fitted. A cell's numbers do not depend on which part
    computes it: the fits are deterministic (the resamples are the seed's) and each cell's noise
    is drawn from its own stream later (:func:`~dpcore.importance.bootstrap_estimates`). The
    resamples themselves (:class:`BootstrapStudy`'s merged design, tens of MB on Adult) are
    drawn again for each batch of missing cells and not kept: the cells hold what the prepared
    parts hold. The last :data:`CELLS_KEPT` of each table are kept. Thread safe (one lock for
    the tables, the cells computed outside it: two threads computing the same cell get the
    same numbers), and picklable without its lock.

    Parameters
    ----------
    scenario : Scenario
    params : Params
        Read for its seed and replicates only (:meth:`Params.share_key`).
    """

    def __init__(self, scenario: Scenario, params: Params) -> None:
        self.key = params.share_key()
        self.scenario = scenario
        self.reps, self.seed = params.reps, params.seed
        self.kept_fits: OrderedDict[float, BootstrapFits] = OrderedDict()
        self.kept_terms: OrderedDict[tuple, VarianceTerms] = OrderedDict()
        self.fitted = 0  # λ cells fitted so far (the others were kept)
        self.lock = threading.Lock()

    def _keep(self, table: OrderedDict, key: Any, value: Any) -> None:
        """``table[key] = value``, the oldest dropped beyond :data:`CELLS_KEPT` (under the
        lock)."""
        table[key] = value
        table.move_to_end(key)
        while len(table) > CELLS_KEPT:
            table.popitem(last=False)

    def fits(self, lams: Sequence[float], *, parallel=None,
             progress: Progress = None) -> list[BootstrapFits]:
        """The fits at each of ``lams``, the missing ones in one
        :meth:`BootstrapStudy.fit_many` (run by ``parallel``, reporting to ``progress``)."""
        with self.lock:
            found = {lv: self.kept_fits[lv] for lv in lams if lv in self.kept_fits}
        missing = [lv for lv in lams if lv not in found]
        if missing:
            study = BootstrapStudy(self.scenario.private, self.scenario.public, self.reps,
                                   rng=self.seed)
            found |= dict(zip(missing, study.fit_many(missing, parallel=parallel,
                                                      progress=progress), strict=True))
        with self.lock:
            self.fitted += len(missing)
            for lv in lams:
                self._keep(self.kept_fits, lv, found[lv])
        return [found[lv] for lv in lams]

    def terms(self, query: Query, key: tuple, fits: BootstrapFits) -> VarianceTerms:
        """Theorem 2/3's terms at ``fits.lam`` for ``query`` (keyed by ``key``, the query's
        controls: :meth:`Params.query_key`)."""
        cell = (fits.lam, key)
        with self.lock:
            if cell in self.kept_terms:
                self.kept_terms.move_to_end(cell)
                return self.kept_terms[cell]
        value = dp_variance_terms(self.scenario.private, self.scenario.public, query, fits.lam,
                                  beta0=fits.coef_full)
        with self.lock:
            self._keep(self.kept_terms, cell, value)
        return value

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.lock = threading.Lock()


class Lazy(Mapping):
    """A mapping of fixed keys whose values are computed on first access and kept.

    A prepared part holds what some views read only (the variance terms of the grid's λ, the
    estimates at the ε grid) this way: a view that does not read them computes none (the
    "Estimates vs λ" view reads no variance terms and one ε). ``compute`` must be picklable (a
    module-level function or a :func:`functools.partial` of one), as the part may be stored.
    Two threads asking for the same key may both compute it; the first value is kept.
    """

    def __init__(self, keys: Sequence[Any], compute: Callable[[Any], Any]) -> None:
        self._keys = tuple(keys)
        self._compute = compute
        self._values: dict[Any, Any] = {}
        self._lock = threading.Lock()

    def __getitem__(self, key: Any) -> Any:
        if key not in self._keys:
            raise KeyError(key)
        with self._lock:
            if key in self._values:
                return self._values[key]
        value = self._compute(key)
        with self._lock:
            return self._values.setdefault(key, value)

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


def _terms_at(cells: LambdaCells, query: Query, key: tuple,
              fits: Mapping[float, BootstrapFits], lam: float) -> VarianceTerms:
    """The variance terms at ``lam`` (for :class:`Lazy`): ``cells.terms`` of its fits."""
    return cells.terms(query, key, fits[lam])


def share(scenario: Scenario, params: Params) -> LambdaCells:
    """What the prepared parts of every λ, query and view at ``params``' seed and replicates
    share: their λ cells (keyed by :meth:`Params.share_key`; none computed yet)."""
    return LambdaCells(scenario, params)


@dataclass(frozen=True)
class Prepared:
    """What every ε move reuses: non-private fits and the cells at the grid's budgets.

    Attributes
    ----------
    key : tuple
        The :meth:`Params.prepare_key` it was prepared for.
    scenario : Scenario
    query : Query
    public_values : ndarray of shape (n_public,)
        The query ``b`` on each public record.
    truth : float
        The query's answer on D, without noise (non-private).
    public_mean : float
        The unweighted mean of ``b`` over E.
    lam : float
    fits : dict of float to BootstrapFits
        Non-private ``beta*`` of every resample at each λ the view needs (:func:`lambda_axis`
        for a grid view, else ``lam`` alone), in that order.
    by_epsilon : mapping of float to ndarray of shape (reps,)
        The estimates at ``lam`` and each ε of :data:`EPSILON_GRID` (:class:`Lazy`: drawn when
        first read).
    terms : mapping of float to VarianceTerms
        Theorem 2/3 and plug-in terms at each λ of a grid view (non-private; empty otherwise;
        :class:`Lazy`: computed when first read).
    model_distances : DataFrame or None
        Fig. 3's comparison (:func:`~dpcore.importance.model_distances`) when the view trains
        its models.
    """

    key: tuple
    scenario: Scenario
    query: Query
    public_values: np.ndarray
    truth: float
    public_mean: float
    lam: float
    fits: dict[float, BootstrapFits]
    by_epsilon: Mapping[float, np.ndarray]
    terms: Mapping[float, VarianceTerms]
    model_distances: pd.DataFrame | None

    @property
    def d(self) -> int:
        """Components of a record, the intercept included."""
        return self.fits[self.lam].d

    def estimates(self, lam: float, epsilon: float) -> np.ndarray:
        """The replicates' DP estimates at (``lam``, ``epsilon``): prepared at the grid's ε,
        else drawn from the cell's own stream."""
        if lam == self.lam and epsilon in self.by_epsilon:
            return self.by_epsilon[epsilon]
        return bootstrap_estimates(self.fits[lam], self.public_values, epsilon)


def prepare(scenario: Scenario, params: Params, *, progress: Progress = None,
            parallel=None, shared: LambdaCells | None = None,
            keep: Keep = computed) -> Prepared:
    """The part of the study that no ε move changes (reads every field of ``params`` but ε).

    Parameters
    ----------
    scenario : Scenario
    params : Params
    progress : callable, optional
        Called with the fraction of the batched fits (then of the model comparison) done.
    parallel : dpcore.parallel.Parallel, optional
        Where the lambdas' batched solves run, one cell per lambda (default: in this process).
        Each cell runs with the caller's BLAS thread count (:class:`dpcore.parallel.Parallel`),
        so the fits, and so the numbers, are the same on every backend.
    shared : LambdaCells, optional
        :func:`share` of this scenario at ``params``' :meth:`~Params.share_key`, whose λ cells
        this part reuses and adds to (default: the one ``keep`` holds). The numbers are the
        same either way.
    keep : callable, optional
        ``keep(parts, compute)`` (:data:`~dpcore.studies.base.Keep`): where the λ cells of
        :func:`share` are kept, under ``("λ cells", *params.share_key())``, when ``shared`` is
        not given (default: a new store, used by this part alone; a page passes its cache).

    Returns
    -------
    Prepared

    Raises
    ------
    ValueError
        When ``shared`` was drawn for another seed or number of replicates than ``params``'.
    """
    if shared is not None and shared.key != params.share_key():
        raise ValueError("shared was drawn for other parameters; call share(scenario, params) "
                         "with these params (same seed and replicates).")
    D, E = scenario.private, scenario.public
    query = query_from_controls(scenario, params.controls(), QUERY_KEY)
    b_D, b_E = query.evaluate(D), query.evaluate(E)
    grid, model_reps = params.stage()
    lams = lambda_axis(params.lam) if grid else (params.lam,)
    cells = shared if shared is not None else keep(("λ cells", *params.share_key()),
                                                   lambda: share(scenario, params))
    fits = dict(zip(lams, cells.fits(lams, parallel=parallel, progress=progress), strict=True))
    at_lam = fits[params.lam]
    # Read by some views only (the variance terms by the bias and variance views; the ε grid's
    # estimates by the ε view): computed when first read.
    terms = Lazy(lams if grid else (), partial(_terms_at, cells, query, params.query_key(), fits))
    models = None
    if model_reps is not None and scenario.target is not None:
        group = next((cols for cols in scenario.groups.values() if scenario.target in cols),
                     [scenario.target])
        models = dp_model_distances(D, E, scenario.target, params.lam, MODEL_EPSILONS,
                                    model_reps, rng=params.seed, exclude=group,
                                    progress=progress)
    return Prepared(
        params.prepare_key(), scenario, query, b_E, float(b_D.mean()), float(b_E.mean()),
        params.lam, fits, Lazy(EPSILON_GRID, partial(bootstrap_estimates, at_lam, b_E)),
        terms, models)


#: The replicates' estimates at a (lam, epsilon) cell, as :func:`at` draws them.
_Cells = Callable[[float, float], np.ndarray]


def _estimates(prepared: Prepared, cells: _Cells, lams: Sequence[float],
               epss: Sequence[float]) -> pd.DataFrame:
    """One row per (lam, epsilon, replicate), as the page's box plots take them."""
    rows = [pd.DataFrame({"lam": lv, "epsilon": ev, "rep": np.arange(prepared.fits[lv].n_reps),
                          "estimate": cells(lv, ev)})
            for lv in lams for ev in epss]
    return pd.concat(rows, ignore_index=True).assign(truth=prepared.truth)


def _public(frame: pd.DataFrame) -> pd.DataFrame:
    """A study table for export: the non-private truth column says so."""
    return frame.rename(columns={"truth": "truth_nonprivate"})


def _by_epsilon(prepared: Prepared, params: Params, cells: _Cells) -> dict[str, pd.DataFrame]:
    """[JE13]_ Fig. 2: the estimates at λ over the ε grid."""
    return {"estimates_by_epsilon": _public(
        _estimates(prepared, cells, [params.lam], epsilon_axis(params.epsilon)))}


def _by_lambda(prepared: Prepared, params: Params, cells: _Cells) -> dict[str, pd.DataFrame]:
    """[JE13]_ Fig. 1: the estimates at ε over the λ grid."""
    return {"estimates_by_lambda": _public(
        _estimates(prepared, cells, list(prepared.fits), [params.epsilon]))}


def _bias_sd(prepared: Prepared, params: Params, cells: _Cells) -> dict[str, pd.DataFrame]:
    """[JE13]_ Fig. 4: bias and SD over the λ grid, measured and predicted (Theorems 2-3)."""
    lams = list(prepared.fits)
    return {"summary_by_lambda": summarise(_estimates(prepared, cells, lams, [params.epsilon])),
            "theory_by_lambda_nonprivate": pd.DataFrame(
                [prepared.terms[lv].at(params.epsilon) for lv in lams])}


def _variance(prepared: Prepared, params: Params, cells: _Cells) -> dict[str, pd.DataFrame]:
    """Measured variance against Theorem 2's bound and the plug-in, over λ and over ε."""
    eps_axis = epsilon_axis(params.epsilon)
    return {**_bias_sd(prepared, params, cells),
            "summary_by_epsilon": summarise(_estimates(prepared, cells, [params.lam], eps_axis)),
            "theory_by_epsilon_nonprivate": pd.DataFrame(
                [prepared.terms[params.lam].at(ev) for ev in eps_axis])}


def _baselines(prepared: Prepared, params: Params, cells: _Cells) -> dict[str, pd.DataFrame]:
    """[JE13]_ Sect. 5.1: every method on the same resamples, at ε (their noise is ε's)."""
    scenario = prepared.scenario
    base = dp_baselines(scenario.private, scenario.public, prepared.query, [params.epsilon],
                        params.reps, rng=params.seed, binary=scenario.binary_columns,
                        l1_sensitivity=scenario.record_l1_sensitivity,
                        value_range=prepared.query.value_range)
    here = pd.Series(cells(params.lam, params.epsilon))
    ours = pd.DataFrame({"method": "importance weights (this page)", "estimate": here})
    frame = pd.concat([ours, base[["method", "estimate"]]], ignore_index=True)
    return {"baselines": frame,
            "baselines_summary": (frame.groupby("method", sort=False).estimate
                                  .agg(median="median", sd="std").reset_index())}


def _models(prepared: Prepared, params: Params, cells: _Cells) -> dict[str, pd.DataFrame]:
    """[JE13]_ Fig. 3, prepared at the view's own budgets: nothing here depends on ε."""
    dist = prepared.model_distances
    if dist is None:
        return {}
    norms, a = dist.attrs["reference_norm"], dist.attrs
    weighted = (dist[(dist["model"] == "logistic regression")
                     & (dist["method"] == "importance weights")]
                .groupby("epsilon")["accuracy_nonprivate"].median())
    rows = [{"model": f"weighted E, ε = {eps:g} (median)", "penalty": a["Lambda"],
             "accuracy_on_D_nonprivate": float(acc)} for eps, acc in weighted.items()]
    rows += [{"model": "E alone (free)", "penalty": a["Lambda"],
              "accuracy_on_D_nonprivate": a["accuracy_public_only"]},
             {"model": "D at its own best penalty (non-private, cross-validated)",
              "penalty": a["best_penalty_nonprivate"],
              "accuracy_on_D_nonprivate": a["best_accuracy_nonprivate"]},
             {"model": "majority class of D (non-private)", "penalty": float("nan"),
              "accuracy_on_D_nonprivate": a["majority_nonprivate"]}]
    return {"model_distances": pd.DataFrame(dist),
            "model_reference_norms_nonprivate": pd.DataFrame(
                {"model": list(norms), "reference_norm": [float(v) for v in norms.values()]}),
            "model_accuracy_nonprivate": pd.DataFrame(rows)}


def _headline(prepared: Prepared, params: Params, cells: _Cells) -> dict[str, pd.DataFrame]:
    """Publish: the page's release cannot be recomputed, so its run holds the metrics only."""
    return {}


#: The tables behind each view's figures, from the prepared part and the cell at ε.
_TABLES: dict[str, Callable[[Prepared, Params, _Cells], dict[str, pd.DataFrame]]] = {
    "by_epsilon": _by_epsilon, "by_lambda": _by_lambda, "bias_sd": _bias_sd,
    "variance": _variance, "baselines": _baselines, "models": _models, "publish": _headline,
}


def at(prepared: Prepared, params: Params) -> dict[str, pd.DataFrame]:
    """The numbers the page shows at ``params.epsilon``, from :func:`prepare`'s part.

    Draws only the noise of the cells at ε (one per λ the view shows, and the baselines' at ε
    in "Baselines"); the cells at the ε grid's budgets are prepared.

    Returns
    -------
    dict of DataFrame
        ``"metrics"`` (one row: the page's headline numbers; ``truth_nonprivate`` is the query's
        answer on D without noise) and the tables behind the selected view's figure:
        ``estimates_by_epsilon`` / ``estimates_by_lambda`` (one row per replicate),
        ``summary_by_*`` and ``theory_by_*_nonprivate`` (Theorem 2/3 and plug-in terms read
        from D without noise), ``baselines`` and ``baselines_summary``, or ``model_distances``,
        ``model_reference_norms_nonprivate`` and ``model_accuracy_nonprivate`` (the logistic
        regression's accuracy on D: on weighted E at the view's budgets, on E alone, on D at
        its own best penalty, and the majority class; non-private evaluations).

    Raises
    ------
    ValueError
        When ``prepared`` was prepared for other parameters than ``params`` (all but ε).
    """
    check_prepared(prepared.key, params)
    epsilon, lam = params.epsilon, params.lam
    at_epsilon = prepared.estimates(lam, epsilon)  # drawn once, shown in the metrics and the view

    def cells(lv: float, ev: float) -> np.ndarray:
        return at_epsilon if (lv, ev) == (lam, epsilon) else prepared.estimates(lv, ev)

    here = pd.Series(at_epsilon)
    d, n_private = prepared.d, len(prepared.scenario.private)
    metrics = pd.DataFrame([{
        "query": str(prepared.query), "epsilon": epsilon, "lam": lam,
        "replicates": params.reps, "d": d, "n_private": n_private,
        "n_public": len(prepared.scenario.public),
        "truth_nonprivate": prepared.truth, "public_mean": prepared.public_mean,
        "median_estimate": float(here.median()), "sd_estimate": float(here.std()),
        "noise_norm": expected_noise_norm(d, n_private, lam, epsilon),
        "log_weight_noise": typical_log_weight_noise(prepared.scenario.public, n_private, lam,
                                                     epsilon),
    }])
    return {"metrics": metrics, **_TABLES[params.view](prepared, params, cells)}


def compute(scenario: Scenario, params: Params, *, progress: Progress = None,
            parallel=None) -> dict[str, pd.DataFrame]:
    """The numbers the importance-weighting page shows for ``params``: :func:`at` of
    :func:`prepare` (what ``python -m dpcore run`` calls)."""
    return at(prepare(scenario, params, progress=progress, parallel=parallel), params)


#: A median "moves" when it changes by more than this share of the distance between the truth
#: and the public mean (the two dashed lines of the box figures); else it "barely moves".
MOVE_SHARE = 0.1
#: An SD "shrinks" or "grows" when it changes by more than this factor (about 3 standard errors
#: of an SD from 100 replicates, 1/sqrt(2 * 99) = 7 % each); else it "stays about the same".
SD_FACTOR = 1.25
#: Where the box figures' whiskers end: the 2.5 % and 97.5 % quantiles of the replicates, the
#: definition of Ji & Elkan's figures ("the 95 % confidence interval and quantiles at 1/4, 1/2
#: and 3/4", [JE13]_ Sect. 5.2), not plotly's default of 1.5 interquartile ranges
#: (:func:`dpcore.figures.importance.box_stats` draws them).
WHISKER_QUANTILES = (0.025, 0.975)
#: The whisker definition in words: in the captions and in the exported figures' note.
WHISKERS = ("Boxes: median and quartiles over the replicates; whiskers: the 2.5 % and 97.5 % "
            "quantiles (the middle 95 %, as in Ji & Elkan's figures); dots: replicates beyond.")


def _place(median: float, truth: float, public_mean: float) -> str:
    """Where a median sits against the two reference lines, in words (from the numbers)."""
    gap = abs(truth - public_mean)
    if abs(median - truth) <= PULL_SHARE * gap:
        return "near the truth"
    if abs(median - public_mean) <= PULL_SHARE * gap:
        return "near the unweighted public mean"
    if min(truth, public_mean) < median < max(truth, public_mean):
        return "between the truth and the public mean"
    return "away from both the truth and the public mean"


def _median_move(medians: pd.Series, truth: float, public_mean: float) -> str:
    """"rises from a to b", "falls from a to b" or "barely moves (a to b)", over ``medians``
    in the order of their index, judged against :data:`MOVE_SHARE` of the reference gap."""
    first, last = float(medians.iloc[0]), float(medians.iloc[-1])
    step = MOVE_SHARE * abs(truth - public_mean)
    span = f"from {first:.3f} to {last:.3f}"
    if float(medians.max() - medians.min()) <= step:
        return f"barely moves ({span})"
    if last - first > step:
        return f"rises {span}"
    if first - last > step:
        return f"falls {span}"
    return (f"moves between {float(medians.min()):.3f} and {float(medians.max()):.3f} and ends "
            f"near where it starts ({span})")


def _sd_move(first: float, last: float, *, down: str = "shrinks", up: str = "grows") -> str:
    """How an SD changes from ``first`` to ``last`` (:data:`SD_FACTOR`), in words."""
    if last * SD_FACTOR < first:
        return f"{down} from {first:.3g} to {last:.3g}"
    if last > first * SD_FACTOR:
        return f"{up} from {first:.3g} to {last:.3g}"
    return f"stays about the same ({first:.3g} to {last:.3g})"


def _box_caption(table: pd.DataFrame, by: str, m: pd.Series) -> str:
    """The trend of the boxes against ``by`` ("epsilon" or "lam"), from the table drawn."""
    g = table.groupby(by, sort=True)["estimate"]
    med, sd = g.median(), g.std()
    truth, public = float(m["truth_nonprivate"]), float(m["public_mean"])
    refs = f"(truth {truth:.3f}, non-private; unweighted public mean {public:.3f})"
    lo, hi = med.index[0], med.index[-1]
    if by == "epsilon":
        text = (f"From ε = {lo:g} to {hi:g} the SD over replicates "
                f"{_sd_move(sd.iloc[0], sd.iloc[-1])} and the median "
                f"{_median_move(med, truth, public)}; at ε = {hi:g} it sits "
                f"{_place(med.iloc[-1], truth, public)} {refs}.")
    else:
        best = (med - truth).abs().idxmin()
        text = (f"At the smallest λ ({lo:g}) the median is {med.iloc[0]:.3f}, "
                f"{_place(med.iloc[0], truth, public)}, with SD {sd.iloc[0]:.3g}; at the "
                f"largest ({hi:g}) it is {med.iloc[-1]:.3f}, "
                f"{_place(med.iloc[-1], truth, public)}, with SD {sd.iloc[-1]:.3g} {refs}. "
                f"The median is closest to the truth at λ = {best:g} ({med[best]:.3f}).")
    return f"{text} {WHISKERS}"


def _bias_sd_caption(summary: pd.DataFrame) -> str:
    """Fig. 4's trade-off in numbers: the SD and |bias| at both ends of λ, the best MSE."""
    s = summary.sort_values("lam")
    first, last = s.iloc[0], s.iloc[-1]
    best = s.loc[s["mse"].idxmin()]
    return (f"From λ = {first['lam']:g} to {last['lam']:g} the SD over replicates "
            f"{_sd_move(first['sd'], last['sd'], down='falls', up='rises')} and |bias| "
            f"{_sd_move(abs(first['bias']), abs(last['bias']), down='falls', up='rises')}; the "
            f"mean squared error is smallest at λ = {best['lam']:g}. The dashed curve predicts "
            "both without simulation (non-private).")


def _variance_caption(numbers: Mapping[str, pd.DataFrame], m: pd.Series) -> str:
    """How the measured variances sit against Theorem 2's bounds, counted on both panels."""
    pairs = [(numbers[f"summary_by_{by}"], numbers[f"theory_by_{by}_nonprivate"])
             for by in ("epsilon", "lambda")]
    merged = pd.concat([m.merge(t, on=["lam", "epsilon"]) for m, t in pairs],
                       ignore_index=True).drop_duplicates(["lam", "epsilon"])
    below = int((merged["variance"] < merged["bound_delta"]).sum())
    extra = merged["bound_printed_solver"] / merged["bound_printed"] - 1.0
    top = merged.loc[extra.idxmax()]
    why = "" if below == len(merged) else (
        f" (the bound holds as N_D grows, and N_D = {int(m['n_private']):,} here; a variance "
        f"from {int(m['replicates'])} replicates has a relative standard error of "
        f"{np.sqrt(2 / (int(m['replicates']) - 1)):.0%})")
    return (f"Dots: measured variance of the DP estimates; {below} of {len(merged)} lie below "
            f"Theorem 2's bound in the delta-method form with the solver term (solid){why}. The "
            "bound as printed (dotted) uses an alpha twice the derivative, so 4× the "
            "delta-method form, and the paper's noise scale; the solver term in the scale "
            f"raises it by up to {100 * float(extra.max()):.1f} % here (at λ = {top['lam']:g}, "
            f"ε = {top['epsilon']:g}; dash-dot). The plug-in curve predicts the variance "
            "without simulation. Curves read D without noise: non-private references.")


def _baselines_caption(summary: pd.DataFrame, m: pd.Series) -> str:
    """Each baseline's centre and spread, as the table beside the figure gives them."""
    t = summary.set_index("method")
    raw, trimmed = t.loc["Laplace perturbation (raw)"], t.loc["Laplace perturbation (trimmed)"]
    lap = t.loc["Laplace mechanism (this query)"]
    return (f"Raw Laplace perturbation of the records gives estimates with SD {raw['sd']:.3g} "
            f"over the replicates; trimmed to [0, 1], their median is {trimmed['median']:.3f} "
            f"(SD {trimmed['sd']:.3g}) against the truth {m['truth_nonprivate']:.3f} "
            f"(non-private); the Laplace mechanism (median {lap['median']:.3f}, SD "
            f"{lap['sd']:.3g}) answers this one query but spends budget on every question "
            f"asked. {WHISKERS}")


def caption(numbers: Mapping[str, pd.DataFrame], params: Params) -> str:
    """The sentence under the view's figure, every trend in it computed from ``numbers`` (the
    tables the figure draws); "" for a view without one.

    The medians' and SDs' verbs follow :data:`MOVE_SHARE` and :data:`SD_FACTOR`, a median's
    place :data:`~dpcore.importance.PULL_SHARE` of the gap between the truth and the public
    mean. The box views end with the whisker definition (:data:`WHISKERS`).
    """
    m = numbers["metrics"].iloc[0]
    if "estimates_by_epsilon" in numbers:
        return _box_caption(numbers["estimates_by_epsilon"], "epsilon", m)
    if "estimates_by_lambda" in numbers:
        return _box_caption(numbers["estimates_by_lambda"], "lam", m)
    if "theory_by_epsilon_nonprivate" in numbers:
        return _variance_caption(numbers, m)
    if "summary_by_lambda" in numbers:
        return _bias_sd_caption(numbers["summary_by_lambda"])
    if "baselines_summary" in numbers:
        return _baselines_caption(numbers["baselines_summary"], m)
    if "model_distances" in numbers:
        return WHISKERS
    return ""


def _sd_trend(table: pd.DataFrame, by: str, symbol: str) -> str:
    """"raising λ from a to b moves the median from … to … and the SD from … to …"."""
    g = table.groupby(by, sort=True)["estimate"]
    med, sd = g.median(), g.std()
    lo, hi = med.index[0], med.index[-1]
    return (f"raising {symbol} from {lo:g} to {hi:g} moves the median estimate from "
            f"{med.iloc[0]:.3f} to {med.iloc[-1]:.3f} and its SD over replicates from "
            f"{sd.iloc[0]:.3f} to {sd.iloc[-1]:.3f}.")


def takeaway(numbers: Mapping[str, pd.DataFrame], params: Params) -> str:
    """Two sentences on the run's numbers (for presentation mode), computed from ``numbers``."""
    m = numbers["metrics"].iloc[0]
    first = (f"At ε = {m['epsilon']:g} and λ = {m['lam']:g} the DP estimates of {m['query']} have "
             f"median {m['median_estimate']:.3f} against the non-private truth "
             f"{m['truth_nonprivate']:.3f} (unweighted public mean {m['public_mean']:.3f}).")
    if "estimates_by_epsilon" in numbers:
        second = "Keeping λ, " + _sd_trend(numbers["estimates_by_epsilon"], "epsilon", "ε")
    elif "estimates_by_lambda" in numbers:
        second = "Keeping ε, " + _sd_trend(numbers["estimates_by_lambda"], "lam", "λ")
    elif "summary_by_lambda" in numbers:
        summary = numbers["summary_by_lambda"]
        best = summary.loc[summary["mse"].idxmin()]
        second = (f"Across λ the mean squared error is smallest at λ = {best['lam']:g} "
                  f"(|bias| {abs(best['bias']):.3f}, SD {best['sd']:.3f}), where bias and "
                  "variance balance.")
        if "theory_by_epsilon_nonprivate" in numbers:
            theory = numbers["theory_by_epsilon_nonprivate"]
            measured = numbers["summary_by_epsilon"]
            row = theory[np.isclose(theory["epsilon"], m["epsilon"])].iloc[0]
            var = measured[np.isclose(measured["epsilon"], m["epsilon"])]["variance"].iloc[0]
            side = "below" if var < row["bound_delta"] else "above"
            second = (f"At ε = {m['epsilon']:g} the measured variance {var:.3g} lies {side} "
                      f"Theorem 2's bound {row['bound_delta']:.3g} (delta method, with the "
                      f"solver term; {row['bound_printed']:.3g} as printed), and the plug-in "
                      f"predicts {row['plugin']:.3g}.")
    elif "baselines_summary" in numbers:
        table = numbers["baselines_summary"].set_index("method")
        truth = m["truth_nonprivate"]
        errors = (table["median"] - truth).abs() + table["sd"]
        errors = errors.drop(index=["truth (non-private)"], errors="ignore")
        best = errors.idxmin()
        second = (f"Of the methods on the same resamples, {best} lands closest (median "
                  f"{table.at[best, 'median']:.3f}, SD {table.at[best, 'sd']:.3f}); the "
                  "importance weights answer every further query without spending more budget.")
    elif "model_distances" in numbers:
        dist = numbers["model_distances"]
        med = dist.groupby(["model", "method", "epsilon"], dropna=False)["distance"].median()
        part = med.xs("logistic regression", level="model")
        ours = part.xs("importance weights", level="method")
        second = (f"For logistic regression the median distance to the non-private model on D "
                  f"falls from {ours.iloc[0]:.3g} at ε = {ours.index[0]:g} to "
                  f"{ours.iloc[-1]:.3g} at ε = {ours.index[-1]:g}.")
    else:
        second = (f"Their SD over {int(m['replicates'])} bootstrap replicates is "
                  f"{m['sd_estimate']:.3f}, with an expected noise norm E‖δ‖ of "
                  f"{m['noise_norm']:.3g}.")
    return f"{first} {second}"
