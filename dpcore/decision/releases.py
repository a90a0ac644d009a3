"""The releases a decision can be about: for each page that publishes, what its study measured.

A page's release (its Publish button) has a study that simulates it. :data:`RELEASES` says, for
each such page, what the release is, which view of its study holds the utility at the page's ε
(:attr:`Release.view`), which audit case attacks which step of it, at what ε, and which of its
steps no audit here attacks (:attr:`Release.audit`, an :class:`AuditScope`), and how to read the
utility with its spread from the study's numbers (:attr:`Release.utility`, rows of
``quantity``, ``value``, ``spread``, ``meaning``, ``non_private``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dpcore.studies.masking import TASKS as MASKING_TASKS
from dpcore.studies.perturbation import LAMBDA_MODES, SYNTHETIC

__all__ = ["RELEASES", "AuditScope", "Release", "release"]

_COLUMNS = ["quantity", "value", "spread", "sd", "meaning", "non_private"]
_RULE = LAMBDA_MODES[0]  # the perturbation study's λ by its rule (the release chooses its own)
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
             f"ε = {m['epsilon']:g} and the study's λ = {m['lam']:.3g}, the noise the release "
             f"(approximate minima perturbation) draws, measured on held-out records; one "
             f"release varies with a standard deviation of {sd:.3g}."
             + (" (Under the rule, the Publish view chooses its own λ on the public set E.)"
                if m["lambda_mode"] == _RULE else ""), True, sd=sd),
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


def _importance_scope(params: Any, metrics: pd.Series) -> AuditScope:
    epsilon = float(params.epsilon)
    return AuditScope("importance_release", epsilon,
                      "the noise on the fitted coefficients β (Ji & Elkan Algorithm 1 step 2)",
                      epsilon, rest="the weights are computed from the noisy β "
                                    "(post-processing)")


def _perturbation_scope(params: Any, metrics: pd.Series) -> AuditScope:
    epsilon = float(params.epsilon)
    return AuditScope("amp_release", epsilon,
                      "the whole release: the objective's noise, the certified solve and the "
                      "output noise (approximate minima perturbation, Iyengar et al. 2019 "
                      "Algorithm 1)", epsilon,
                      rest="the solver's error is covered by the output noise's sensitivity")


def _masking_scope(params: Any, metrics: pd.Series) -> AuditScope:
    epsilon = float(params.epsilon)
    return AuditScope("masking", epsilon,
                      "the noisy classifier w′ (Pham et al. Algorithm 1 steps 1-2)", epsilon,
                      rest="step 3's greedy masked records read only w′ and public records "
                           "(post-processing)")


def _subset_scope(params: Any, metrics: pd.Series) -> AuditScope:
    """Algorithm 2 spends ε₁ (step 2), ε₂ (step 4) and ε₃ (steps 5-6); the audit attacks the
    selection at ε₃, with the case of the page's accounting and selection."""
    calibrated = params.accounting == "calibrated"
    mode = params.selection if calibrated else "as-printed"
    e1, e2, e3 = (float(metrics[f"epsilon{i}"]) for i in (1, 2, 3))
    unaudited = (
        ("the noisy weights that rank the public points (Wang et al. Algorithm 2 step 2)", e1),
        ("the DP weights of the candidate subsets, the released one's among them (step 4, "
         "ε₂/k per candidate)", e2),
    )
    step = "the selection of a subset size (Algorithm 2 steps 5-6" + (
        ")" if calibrated else ", as printed: ε₃ claimed for all k noisy criteria)")
    return AuditScope(f"selection_{mode}", e3, step, float(metrics["epsilon_spent"]),
                      unaudited, rest="the audit page's case 'Wang et al. counts as released' "
                                      "attacks the noise of steps 2 and 4")


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
    audit: Callable[[Any, pd.Series], AuditScope]
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


def _page_epsilon(metrics: pd.Series) -> float:
    return float(metrics["epsilon"])


#: The pages whose release a decision can be about, by page name.
RELEASES: dict[str, Release] = {r.page: r for r in (
    Release("importance", "importance weights for the public set (Ji & Elkan Alg. 1)",
            "Estimates vs ε", _importance, _importance_scope, _page_epsilon),
    Release("perturbation", "a logistic regression model (approximate minima perturbation, "
            "Iyengar et al. 2019 Alg. 1: Chaudhuri & Monteleoni's objective perturbation made "
            "float-safe)", "Error vs ε", _perturbation, _perturbation_scope,
            _page_epsilon, _perturbation_data),
    Release("masking", "a masked dataset (Pham et al. Alg. 1)", "Masked vs original", _masking,
            _masking_scope, _page_epsilon, _masking_data),
    Release("subset", "a public subset with noisy weights (Wang et al. Alg. 2)", "Error vs size",
            _subset, _subset_scope, lambda metrics: float(metrics["epsilon_spent"])),
)}


def release(page: str) -> Release:
    """The release of ``page``; raises ValueError naming the pages that have one."""
    if page not in RELEASES:
        raise ValueError(f"No release to decide on for page {page!r}; choose one of "
                         f"{sorted(RELEASES)}.")
    return RELEASES[page]
