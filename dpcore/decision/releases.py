"""The releases a decision can be about: for each page that publishes, what its study measured.

A page's release (its Publish button) has a study that simulates it. :data:`RELEASES` says, for
each such page, what the release is, which view of its study holds the utility at the page's ε
(:attr:`Release.view`), which audit case attacks the same mechanism (:mod:`dpcore.audit`) and how
to read the utility with its spread from the study's numbers (:attr:`Release.utility`, rows of
``quantity``, ``value``, ``spread``, ``meaning``, ``non_private``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dpcore.studies.masking import TASKS as MASKING_TASKS
from dpcore.studies.perturbation import SYNTHETIC

__all__ = ["RELEASES", "Release", "release"]

_COLUMNS = ["quantity", "value", "spread", "sd", "meaning", "non_private"]
Numbers = Mapping[str, pd.DataFrame]


def _row(quantity: str, value: float, meaning: str, non_private: bool, *,
         sd: float = math.nan, kind: str = "SD", missing: str = "exact") -> dict[str, Any]:
    """One utility row; ``sd`` its spread (one SD, or an SE when ``kind`` names one), NaN for
    an exact number or none measured (``missing`` says which, in words)."""
    if math.isnan(sd):
        spread = missing
    else:
        spread = f"SD {sd:.3g}" if kind == "SD" else f"± {sd:.3g} ({kind})"
    return {"quantity": quantity, "value": float(value), "spread": spread, "sd": float(sd),
            "meaning": meaning, "non_private": bool(non_private)}


def _importance(numbers: Numbers, params: Any) -> pd.DataFrame:
    m = numbers["metrics"].iloc[0]
    median, sd, truth = m["median_estimate"], m["sd_estimate"], m["truth_nonprivate"]
    reps = int(m["replicates"])
    return pd.DataFrame([
        _row("DP estimate (median of releases)", median,
             f"Over {reps} simulated releases at ε = {m['epsilon']:g} (λ = {m['lam']:g}), half "
             f"of the importance-weighted estimates of {m['query']} fell below {median:.3g}; "
             f"they spread with a standard deviation of {sd:.3g}.", False, sd=sd),
        _row("answer on the private data", truth,
             f"What {m['query']} is on D without noise: the yardstick, never published.", True),
        _row("error of the median", abs(median - truth),
             f"How far the typical release lands from the private answer ({abs(median - truth):.3g}"
             f"), with the spread of one release around it ({sd:.3g}).", True, sd=sd),
        _row("public set alone (no privacy cost)", m["public_mean"],
             "The same query on the public set E without weights: what is known for free. A "
             "release is worth its ε only where it lands closer to the truth than this.", False),
    ], columns=_COLUMNS)


def _perturbation(numbers: Numbers, params: Any) -> pd.DataFrame:
    # The release is approximate minima perturbation: objective perturbation's noise, a
    # certified solve and 1 % of epsilon as output noise. The study's objective-perturbation
    # curve simulates that law with the 2011 calibration, whose Jacobian term is at most twice
    # the release's: the row is the release's error or a little more.
    m = numbers["metrics"].iloc[0]
    error, sd = m["error objective perturbation"], m["sd objective perturbation"]
    restarts = int(m["restarts"])
    rows = [
        _row("test error of the released model", error,
             f"The mean test error of {restarts} simulated fits of objective perturbation at "
             f"ε = {m['epsilon']:g} (λ = {m['lam']:.3g}), the noise the release (approximate "
             f"minima perturbation) draws, measured on held-out records; one release varies "
             f"with a standard deviation of {sd:.3g}.", True, sd=sd),
        _row("test error without privacy", m["error non-private"],
             "The same model fitted without noise: the floor any private model can reach.", True),
        _row("always guessing the majority class", m["guessing_error_nonprivate"],
             "A model that ignores the features: a release no better than this is not worth "
             "its ε.", True),
    ]
    if error >= m["guessing_error_nonprivate"]:
        rows[0]["meaning"] += " It does no better than guessing the majority class."
    return pd.DataFrame(rows, columns=_COLUMNS)


def _masking(numbers: Numbers, params: Any) -> pd.DataFrame:
    m = numbers["metrics"].iloc[0]
    n_valid = int(m["validation_records"])
    accuracy = m["masked_model_accuracy"]
    se = math.sqrt(accuracy * (1 - accuracy) / n_valid) if n_valid > 1 else math.nan
    private = bool(m["validation_private"])
    where = "held-out private records" if private else "a public validation set"
    rows = [
        _row("accuracy of a model on the masked records", accuracy,
             f"One masked set of {int(m['masked_set_size'])} records at ε = {m['epsilon']:g} "
             f"(λ = {m['lambda']:g}) trains a classifier that is right on {accuracy:.1%} of "
             f"{where}.", private, sd=se, kind="validation SE", missing="one masked set"),
        _row("accuracy of the same model on the private records", m["nonprivate_model_accuracy"],
             "The model the masking is built around, fitted without noise.", True),
        _row("always guessing the majority class", m["majority_accuracy"],
             "A classifier that ignores the features: the line to clear.", True),
    ]
    if accuracy <= m["majority_accuracy"]:
        rows[0]["meaning"] += " It does no better than guessing the majority class."
    return pd.DataFrame(rows, columns=_COLUMNS)


def _subset(numbers: Numbers, params: Any) -> pd.DataFrame:
    m = numbers["metrics"].iloc[0]
    selected = numbers["selected"]
    errors = selected["dp_error_nonprivate"].to_numpy(dtype=float)
    sd = float(errors.std(ddof=1)) if errors.size > 1 else float("nan")
    sizes = ", ".join(str(int(s)) for s in selected["selected_size"])
    return pd.DataFrame([
        _row("prediction error of the selected subset", errors.mean(),
             f"Over {errors.size} repeats of Algorithm 2 at a total ε = {m['epsilon_spent']:g}, "
             f"the selected subsets ({sizes} public points) predicted with a mean error of "
             f"{errors.mean():.3g}, measured against the private data.", True, sd=sd,
             missing="one repeat"),
        _row("public data alone", m["public_only_error_nonprivate"],
             "The same model fitted on the public set without weights: the release must beat "
             "it.", True),
    ], columns=_COLUMNS)


def _subset_case(params: Any, metrics: pd.Series) -> tuple[str, float]:
    mode = params.selection if params.accounting == "calibrated" else "exponential"
    return f"selection_{mode}", float(metrics["epsilon2"])


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
        ``(params, metrics) -> (case key, claimed ε)`` of the audit that attacks the same
        mechanism (:data:`dpcore.audit.CASE_KEYS`).
    epsilon : callable
        ``(metrics) -> ε`` the release spends.
    data : callable
        ``(params, prepared) -> (title, description)`` of the data the study built itself, or
        None when it reads the sidebar's scenario (whose title and description then apply).
    """

    page: str
    name: str
    view: str
    utility: Callable[[Numbers, Any], pd.DataFrame]
    audit: Callable[[Any, pd.Series], tuple[str, float]]
    epsilon: Callable[[pd.Series], float]
    data: Callable[[Any, Any], tuple[str, str] | None] = lambda params, prepared: None

    def reads_scenario(self, params: Any, prepared: Any = None) -> bool:
        """Whether the study reads the sidebar's scenario at ``params`` (else it builds its
        own data from built-in definitions)."""
        return self.data(params, prepared) is None


def _perturbation_data(params: Any, prepared: Any) -> tuple[str, str] | None:
    if params.source not in SYNTHETIC:
        return None
    return (params.source, "Simulated as in Chaudhuri & Monteleoni (2008) Sect. 6: points "
            "drawn uniformly on the unit sphere in 10 dimensions, labelled by a hyperplane "
            "through the origin ('separable': with a margin of 0.03; 'noisy': with 10 % of the "
            "labels flipped). Both the training and the test records are simulated.")


def _masking_data(params: Any, prepared: Any) -> tuple[str, str] | None:
    if MASKING_TASKS[params.task][1] is None:
        return None
    if prepared is None:  # the task is built-in: its name is enough to say so
        return params.task, ""
    return prepared.task.title, prepared.task.description


def _at_epsilon(case: str) -> Callable[[Any, pd.Series], tuple[str, float]]:
    return lambda params, metrics: (case, float(params.epsilon))


def _page_epsilon(metrics: pd.Series) -> float:
    return float(metrics["epsilon"])


#: The pages whose release a decision can be about, by page name.
RELEASES: dict[str, Release] = {r.page: r for r in (
    Release("importance", "importance weights for the public set (Ji & Elkan Alg. 1)",
            "Estimates vs ε", _importance, _at_epsilon("importance_release"), _page_epsilon),
    Release("perturbation", "a logistic regression model (approximate minima perturbation, "
            "Iyengar et al. 2019 Alg. 1: Chaudhuri & Monteleoni's objective perturbation made "
            "float-safe)", "Error vs ε", _perturbation, _at_epsilon("amp_release"),
            _page_epsilon, _perturbation_data),
    Release("masking", "a masked dataset (Pham et al. Alg. 1)", "Masked vs original", _masking,
            _at_epsilon("masking"), _page_epsilon, _masking_data),
    Release("subset", "a public subset with noisy weights (Wang et al. Alg. 2)", "Error vs size",
            _subset, _subset_case, lambda metrics: float(metrics["epsilon_spent"])),
)}


def release(page: str) -> Release:
    """The release of ``page``; raises ValueError naming the pages that have one."""
    if page not in RELEASES:
        raise ValueError(f"No release to decide on for page {page!r}; choose one of "
                         f"{sorted(RELEASES)}.")
    return RELEASES[page]
