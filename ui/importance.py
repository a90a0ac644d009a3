"""Cached study results of the importance-weighting page, routed by :func:`ui.cache.memo`.

Built-in scenarios share their (read-only) results across sessions; uploaded scenarios keep them
in this session only. Keys are the scenario's content id plus every parameter, so the same seed
always gives the same figure, and a slider recomputes only what it changes: an epsilon move reuses
the fits, a lambda move reuses the prepared resamples. Releases are never cached here: the
Publish panel (:mod:`ui.release`) makes them; only step 1 of the mechanism (non-private, keyed by
dpcore on the data and lambda) is reused when epsilon moves.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpcore.datasets import Scenario
from dpcore.importance import (
    BalancedFit,
    BootstrapFits,
    BootstrapStudy,
    VarianceTerms,
    balanced_fit,
    bootstrap_estimates,
    typical_log_weight_noise,
)
from dpcore.importance import baselines as dp_baselines
from dpcore.importance import model_distances as dp_model_distances
from dpcore.importance import variance_terms as dp_variance_terms
from dpcore.queries import Query
from dpcore.simulation import Progress
from ui.cache import is_cached, memo


def study(scenario: Scenario, scenario_id: str, n_reps: int, seed: int) -> BootstrapStudy:
    """The prepared bootstrap resamples of D against E."""
    return memo(scenario, scenario_id, ("study", n_reps, seed),
                lambda: BootstrapStudy(scenario.private, scenario.public, n_reps, rng=seed))


def fits(scenario: Scenario, scenario_id: str, n_reps: int, seed: int,
         lam: float) -> BootstrapFits:
    """Batched non-private fits of every resample at ``lam``."""
    return memo(scenario, scenario_id, ("fits", n_reps, seed, lam),
                lambda: study(scenario, scenario_id, n_reps, seed).fit(lam))


def has_fits(scenario: Scenario, scenario_id: str, n_reps: int, seed: int, lam: float) -> bool:
    """Whether :func:`fits` is already cached (no progress bar needed)."""
    return is_cached(scenario, scenario_id, ("fits", n_reps, seed, lam))


def estimates(scenario: Scenario, scenario_id: str, query: Query, n_reps: int, seed: int,
              lam: float, epsilon: float) -> np.ndarray:
    """The replicates' DP estimates at (lam, epsilon): a slider move computes only new cells."""
    return memo(scenario, scenario_id, ("estimates", query, n_reps, seed, lam, epsilon),
                lambda: bootstrap_estimates(fits(scenario, scenario_id, n_reps, seed, lam),
                                            query.evaluate(scenario.public), epsilon))


def log_weight_noise(scenario: Scenario, scenario_id: str, lam: float, epsilon: float) -> float:
    """:func:`dpcore.importance.typical_log_weight_noise` at (lam, epsilon) (public records and
    N_D only), computed once per cell."""
    return memo(scenario, scenario_id, ("log-weight noise", lam, epsilon),
                lambda: typical_log_weight_noise(scenario.public, len(scenario.private), lam,
                                                 epsilon))


def variance_terms(scenario: Scenario, scenario_id: str, query: Query, n_reps: int, seed: int,
                   lam: float) -> VarianceTerms:
    """Theorem 2/3 and plug-in terms at ``lam``, reusing the fit on the whole of D."""
    return memo(scenario, scenario_id, ("terms", query, lam), lambda: dp_variance_terms(
        scenario.private, scenario.public, query, lam,
        beta0=fits(scenario, scenario_id, n_reps, seed, lam).coef_full))


def baselines(scenario: Scenario, scenario_id: str, query: Query, epsilon: float, n_reps: int,
              seed: int) -> pd.DataFrame:
    """Sect. 5.1 baselines on the same resamples."""
    return memo(scenario, scenario_id, ("baselines", query, epsilon, n_reps, seed),
                lambda: dp_baselines(scenario.private, scenario.public, query, [epsilon], n_reps,
                                     rng=seed, binary=scenario.binary_columns,
                                     l1_sensitivity=scenario.record_l1_sensitivity,
                                     value_range=query.value_range))


def model_distances(scenario: Scenario, scenario_id: str, lam: float, epsilons: tuple,
                    n_reps: int, seed: int, progress: Progress = None) -> pd.DataFrame:
    """Fig. 3's model comparison, cached on its own inputs (it uses its own epsilons)."""
    group = next((cols for cols in scenario.groups.values() if scenario.target in cols),
                 [scenario.target])
    return memo(scenario, scenario_id, ("models", lam, epsilons, n_reps, seed),
                lambda: dp_model_distances(scenario.private, scenario.public, scenario.target,
                                           lam, epsilons, n_reps, rng=seed, exclude=group,
                                           progress=progress))


def step1(scenario: Scenario, scenario_id: str, lam: float) -> BalancedFit:
    """Step 1 of Algorithm 1 (non-private, no noise), reused when only epsilon moves."""
    return memo(scenario, scenario_id, ("balanced fit", lam),
                lambda: balanced_fit(scenario.private, scenario.public, lam))
