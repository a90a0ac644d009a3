"""Cached simulation state for the importance-weighting page.

Built-in scenarios are shared through ``st.cache_resource`` (the objects are read-only and large,
so they are not copied on every rerun); uploaded scenarios stay in this session's memory only
(:func:`ui.cache.session_memo`). Keys are the scenario's content id plus every parameter, so the
same seed always gives the same figure, and a slider only recomputes what it changes: an epsilon
move reuses the fits, a lambda move reuses the prepared resamples.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pandas as pd
import streamlit as st

from dpcore.datasets import Scenario
from dpcore.importance import (
    BootstrapFits,
    BootstrapStudy,
    ImportanceWeights,
    VarianceTerms,
    balanced_fit,
)
from dpcore.importance import baselines as dp_baselines
from dpcore.importance import variance_terms as dp_variance_terms
from dpcore.queries import Query
from ui.cache import content_key, session_memo
from ui.sidebar import current_upload_report

T = TypeVar("T")


@st.cache_resource(max_entries=64, show_spinner=False)
def _shared(key: str, _compute: Callable[[], T]) -> T:
    return _compute()


def _memo(scenario_id: str, parts: tuple, compute: Callable[[], T]) -> T:
    key = content_key(scenario_id, *map(repr, parts))
    if current_upload_report() is not None:
        return session_memo(key, compute)
    return _shared(key, compute)


def study(scenario: Scenario, scenario_id: str, n_reps: int, seed: int) -> BootstrapStudy:
    """The prepared bootstrap resamples of D against E."""
    return _memo(scenario_id, ("study", n_reps, seed),
                 lambda: BootstrapStudy(scenario.private, scenario.public, n_reps, seed))


def fits(scenario: Scenario, scenario_id: str, n_reps: int, seed: int,
         lam: float) -> BootstrapFits:
    """Batched non-private fits of every resample at ``lam``."""
    return _memo(scenario_id, ("fits", n_reps, seed, lam),
                 lambda: study(scenario, scenario_id, n_reps, seed).fit(lam))


def variance_terms(scenario: Scenario, scenario_id: str, query: Query, n_reps: int, seed: int,
                   lam: float) -> VarianceTerms:
    """Theorem 2/3 and plug-in terms at ``lam``, reusing the fit on the whole of D."""
    return _memo(scenario_id, ("terms", query, lam), lambda: dp_variance_terms(
        scenario.private, scenario.public, query, lam,
        beta0=fits(scenario, scenario_id, n_reps, seed, lam).coef_full))


def baselines(scenario: Scenario, scenario_id: str, query: Query, epsilon: float, n_reps: int,
              seed: int) -> pd.DataFrame:
    """Sect. 5.1 baselines on the same resamples."""
    return _memo(scenario_id, ("baselines", query, epsilon, n_reps, seed), lambda: dp_baselines(
        scenario.private, scenario.public, query, [epsilon], n_reps, seed,
        l1_sensitivity=scenario.record_l1_sensitivity))


def release(scenario: Scenario, scenario_id: str, epsilon: float, lam: float,
            seed: int) -> ImportanceWeights:
    """One DP release of the weights (Algorithm 1); moving epsilon or the seed reuses step 1."""
    beta_star = _memo(scenario_id, ("balanced fit", lam), lambda: balanced_fit(
        scenario.private, scenario.public, lam))
    return _memo(scenario_id, ("release", epsilon, lam, seed), lambda: ImportanceWeights(
        epsilon, lam, rng=seed).fit(scenario.private, scenario.public, beta_star=beta_star))
