"""The importance-weighting page's numbers from a run config ([JE13]_ Figs 1-4, Sect. 5.1).

:func:`compute` repeats the page's study (``pages/importance.py``) without Streamlit: the same
bootstrap resamples (:class:`~dpcore.importance.BootstrapStudy` seeded with the page's seed),
the same noise streams (:func:`~dpcore.importance.bootstrap_estimates`, one stream per
``(seed, lam, epsilon)``) and the same query (:func:`dpcore.queries.query_from_controls`, which
the page's query builder calls too), so its numbers are the page's, bit for bit. Everything is a
seeded simulation of the mechanism, not a release; the "Publish" view's release draws fresh OS
entropy and cannot be recomputed, so a run of that view gives the headline numbers only.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from dpcore.importance import (
    BootstrapFits,
    BootstrapStudy,
    bootstrap_estimates,
    expected_noise_norm,
    summarise,
    typical_log_weight_noise,
)
from dpcore.importance import baselines as dp_baselines
from dpcore.importance import model_distances as dp_model_distances
from dpcore.importance import variance_terms as dp_variance_terms
from dpcore.queries import INDICATOR, MAX_CONDITIONS, query_from_controls
from dpcore.runs.domains import EPSILONS, LAMBDAS, SEED, OneOf, query_domains
from dpcore.simulation import Progress

__all__ = ["CONTROLS", "DOMAINS", "SEED_KEY", "VIEWS", "LAMBDA_GRID", "EPSILON_GRID",
           "MODEL_EPSILONS", "REPLICATES", "QUERY_KEY", "compute", "takeaway"]

#: The lambdas of the "Estimates vs λ" view ([JE13]_ Fig. 1), plus the slider's value.
LAMBDA_GRID = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
#: The epsilons of the "Estimates vs ε" view ([JE13]_ Fig. 2), plus the slider's value.
EPSILON_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
#: The "Model training" view's own budgets ([JE13]_ Fig. 3).
MODEL_EPSILONS = (0.1, 1.0, 10.0)
REPLICATES = (20, 50, 100, 200)
VIEWS = ("Estimates vs ε", "Estimates vs λ", "Bias vs SD", "Variance: theory", "Baselines",
         "Model training", "Publish")
#: Prefix of the page's query-builder widgets.
QUERY_KEY = "iw_q"

SEED_KEY = "iw_seed"
#: Every control the page's numbers depend on, with the page's defaults. The query builder's
#: None values mean "the widget's default for this scenario" (:func:`query_from_controls`);
#: the page opens a new scenario at :func:`~dpcore.importance.default_lambda` and
#: :func:`~dpcore.simulation.default_replicates` (lambda 0.1 and 100 replicates on Adult).
CONTROLS: dict[str, Any] = {
    "iw_epsilon": 0.1,
    "iw_lambda": 0.1,
    "iw_reps": 100,
    "iw_view": VIEWS[0],
    "iw_models": False,
    "iw_model_reps": 10,
    f"{QUERY_KEY}_kind": INDICATOR,
    f"{QUERY_KEY}_mean_column": None,
    f"{QUERY_KEY}_n": 1,
    f"{QUERY_KEY}_combine": "and",
    **{f"{QUERY_KEY}_{part}_{i}": None for i in range(MAX_CONDITIONS)
       for part in ("col", "op", "value")},
}
#: The values each control can take, as the page draws it (:mod:`dpcore.runs.domains`).
DOMAINS = {
    "iw_epsilon": OneOf(EPSILONS), "iw_lambda": OneOf(LAMBDAS), "iw_reps": OneOf(REPLICATES),
    "iw_view": OneOf(VIEWS), "iw_model_reps": OneOf((5, 10, 20, 50)), SEED_KEY: SEED,
    **query_domains(QUERY_KEY),
}

_GRID_VIEWS = ("Estimates vs λ", "Bias vs SD", "Variance: theory")


def _settings(controls: Mapping[str, object]) -> dict[str, Any]:
    values = {**CONTROLS, **controls}
    view = values["iw_view"] or VIEWS[0]
    if view not in VIEWS:
        raise ValueError(f"iw_view == {view!r}; choose one of {list(VIEWS)}.")
    return {"epsilon": float(values["iw_epsilon"]), "lam": float(values["iw_lambda"]),
            "n_reps": int(values["iw_reps"]), "view": view, "models": bool(values["iw_models"]),
            "model_reps": int(values["iw_model_reps"]), "values": values}


def _estimates(fits_at: Callable[[float], BootstrapFits], b_E: np.ndarray, lams, epss,
               n_reps: int, truth: float) -> pd.DataFrame:
    """One row per (lam, epsilon, replicate), as the page's box plots take them."""
    rows = [pd.DataFrame({"lam": lv, "epsilon": ev, "rep": np.arange(n_reps),
                          "estimate": bootstrap_estimates(fits_at(lv), b_E, ev)})
            for lv in lams for ev in epss]
    return pd.concat(rows, ignore_index=True).assign(truth=truth)


def _public(frame: pd.DataFrame) -> pd.DataFrame:
    """A study table for export: the non-private truth column says so."""
    return frame.rename(columns={"truth": "truth_nonprivate"})


def compute(scenario, controls: Mapping[str, object], seed: int, *, progress: Progress = None,
            parallel=None) -> dict[str, pd.DataFrame]:
    """The numbers the importance-weighting page shows for ``controls`` and study ``seed``.

    Parameters
    ----------
    scenario : Scenario
    controls : mapping
        The page's widget values (keys of :data:`CONTROLS`; missing keys take its defaults).
    seed : int
        The page's simulation seed (``iw_seed``).
    progress : callable, optional
        Called with the fraction of the batched fits done.
    parallel : dpcore.parallel.Parallel, optional
        Where the lambdas' batched solves run, one cell per lambda (default: in this process).
        Each cell runs with the caller's BLAS thread count (:class:`dpcore.parallel.Parallel`),
        so the fits, and so the numbers, are the page's bit for bit on every backend.

    Returns
    -------
    dict of DataFrame
        ``"metrics"`` (one row: the page's headline numbers; ``truth_nonprivate`` is the query's
        answer on D without noise) and the tables behind the selected view's figure:
        ``estimates_by_epsilon`` / ``estimates_by_lambda`` (one row per replicate),
        ``summary_by_*`` and ``theory_by_*_nonprivate`` (Theorem 2/3 and plug-in terms read
        from D without noise), ``baselines`` and ``baselines_summary``, or ``model_distances``
        and ``model_reference_norms_nonprivate``.
    """
    s = _settings(controls)
    epsilon, lam, n_reps, view = s["epsilon"], s["lam"], s["n_reps"], s["view"]
    D, E = scenario.private, scenario.public
    query = query_from_controls(scenario, s["values"], QUERY_KEY)
    b_D, b_E = query.evaluate(D), query.evaluate(E)
    truth, public_mean = float(b_D.mean()), float(b_E.mean())

    study = BootstrapStudy(D, E, n_reps, rng=seed)
    fitted: dict[float, BootstrapFits] = {}

    def fits_at(lam_value: float) -> BootstrapFits:
        if lam_value not in fitted:
            fitted[lam_value] = study.fit(lam_value)
        return fitted[lam_value]

    lam_axis = tuple(sorted(set(LAMBDA_GRID) | {lam}))
    eps_axis = tuple(sorted(set(EPSILON_GRID) | {epsilon}))
    lams_needed = lam_axis if view in _GRID_VIEWS else (lam,)
    fitted.update(zip(lams_needed, study.fit_many(lams_needed, parallel=parallel,
                                                  progress=progress), strict=True))
    d = fits_at(lam).d
    here = pd.Series(bootstrap_estimates(fits_at(lam), b_E, epsilon))

    def estimates(lams, epss) -> pd.DataFrame:
        return _estimates(fits_at, b_E, lams, epss, n_reps, truth)

    numbers: dict[str, pd.DataFrame] = {"metrics": pd.DataFrame([{
        "query": str(query), "epsilon": epsilon, "lam": lam, "replicates": n_reps, "d": d,
        "n_private": len(D), "n_public": len(E),
        "truth_nonprivate": truth, "public_mean": public_mean,
        "median_estimate": float(here.median()), "sd_estimate": float(here.std()),
        "noise_norm": expected_noise_norm(d, len(D), lam, epsilon),
        "log_weight_noise": typical_log_weight_noise(E, len(D), lam, epsilon),
    }])}

    if view == "Estimates vs ε":
        numbers["estimates_by_epsilon"] = _public(estimates([lam], eps_axis))
    elif view == "Estimates vs λ":
        numbers["estimates_by_lambda"] = _public(estimates(lam_axis, [epsilon]))
    elif view in ("Bias vs SD", "Variance: theory"):
        by_lam = estimates(lam_axis, [epsilon])
        terms = {lv: dp_variance_terms(D, E, query, lv, beta0=fits_at(lv).coef_full)
                 for lv in lam_axis}
        numbers["summary_by_lambda"] = summarise(by_lam)
        numbers["theory_by_lambda_nonprivate"] = pd.DataFrame(
            [terms[lv].at(epsilon) for lv in lam_axis])
        if view == "Variance: theory":
            numbers["summary_by_epsilon"] = summarise(estimates([lam], eps_axis))
            numbers["theory_by_epsilon_nonprivate"] = pd.DataFrame(
                [terms[lam].at(ev) for ev in eps_axis])
    elif view == "Baselines":
        base = dp_baselines(D, E, query, [epsilon], n_reps, rng=seed,
                            binary=scenario.binary_columns,
                            l1_sensitivity=scenario.record_l1_sensitivity,
                            value_range=query.value_range)
        ours = pd.DataFrame({"method": "importance weights (this page)", "estimate": here})
        frame = pd.concat([ours, base[["method", "estimate"]]], ignore_index=True)
        numbers["baselines"] = frame
        numbers["baselines_summary"] = (frame.groupby("method", sort=False).estimate
                                        .agg(median="median", sd="std").reset_index())
    elif view == "Model training" and s["models"] and scenario.target is not None:
        group = next((cols for cols in scenario.groups.values() if scenario.target in cols),
                     [scenario.target])
        dist = dp_model_distances(D, E, scenario.target, lam, MODEL_EPSILONS, s["model_reps"],
                                  rng=seed, exclude=group, progress=progress)
        numbers["model_distances"] = pd.DataFrame(dist)
        norms = dist.attrs["reference_norm"]
        numbers["model_reference_norms_nonprivate"] = pd.DataFrame(
            {"model": list(norms), "reference_norm": [float(v) for v in norms.values()]})
    return numbers


def _sd_trend(table: pd.DataFrame, by: str, symbol: str) -> str:
    """"raising λ from a to b moves the median from … to … and the SD from … to …"."""
    g = table.groupby(by, sort=True)["estimate"]
    med, sd = g.median(), g.std()
    lo, hi = med.index[0], med.index[-1]
    return (f"raising {symbol} from {lo:g} to {hi:g} moves the median estimate from "
            f"{med.iloc[0]:.3f} to {med.iloc[-1]:.3f} and its SD over replicates from "
            f"{sd.iloc[0]:.3f} to {sd.iloc[-1]:.3f}.")


def takeaway(numbers: Mapping[str, pd.DataFrame], controls: Mapping[str, object]) -> str:
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
            second = (f"At ε = {m['epsilon']:g} the measured variance {var:.3g} lies below "
                      f"Theorem 2's bound {row['bound_delta']:.3g} (delta method; "
                      f"{row['bound_printed']:.3g} as printed), and the plug-in predicts "
                      f"{row['plugin']:.3g}.")
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
