"""Choosing epsilon: accuracy targets to epsilon, epsilon as risk, and composition totals.

Three questions a data owner asks before any release, answered without spending budget:

* **Which epsilon meets my accuracy target?** Closed forms invert the noise's tail where one
  exists (:func:`epsilon_for_laplace`, :func:`epsilon_for_gaussian`, the importance weights'
  Theorem 2 variance in :func:`epsilon_for_importance_theory`; :mod:`dpcore.planning.closed_form`);
  otherwise a Monte-Carlo curve over a log-epsilon grid is fitted monotone (isotonic,
  :func:`isotonic_decreasing`) and read at the target (:func:`epsilon_from_curve`), with its
  uncertainty from a bootstrap of the runs (:mod:`dpcore.planning.fitting`). Curves for the
  pages' mechanisms: :func:`importance_errors`, :func:`logistic_errors` (the default
  logistic-regression release, approximate minima perturbation at the λ it picks on E),
  :func:`subset_errors` (:mod:`dpcore.planning.monte_carlo`).
* **Is the default logistic-regression release useful at this ε and n, and if not, what would
  make it so?** :func:`~dpcore.planning.release.reach_note`, from public information only: the
  release simulated on E (:func:`~dpcore.planning.release.release_point`) against a model without
  noise on E (:mod:`dpcore.planning.release`).
* **What does epsilon mean as risk?** :func:`posterior_bound`: how far a release can move an
  attacker's belief that a given person is in the data (:mod:`dpcore.planning.risk`);
  :func:`tradeoff`: the attacker's best true-positive rate at each false-positive rate against
  a plan of releases (the f-DP view, :mod:`dpcore.planning.tradeoff`).
* **What do several releases cost together?** :func:`compose` under sequential, advanced
  (Kairouz-Oh-Viswanath), zero-concentrated, Rényi DP or PLD composition
  (:mod:`dpcore.composition`, the rules the accountant also uses), :func:`pld_interval` for the
  PLD total as an interval (optimistic, point and pessimistic discretisations), and
  :func:`compare_compositions` for a planned set of releases (the "what if" table,
  :mod:`dpcore.planning.what_if`; see also :meth:`dpcore.accountant.BudgetAccountant.preview`)
  with :func:`plan_interval`, its PLD total as an interval.
* **Where does this epsilon sit among real deployments?** :func:`deployments`: published
  budgets with their units and sources (:mod:`dpcore.planning.deployments`).
* **Which epsilons meet several accuracy targets at once?** :func:`plan_targets`: each target's
  smallest epsilon and their total, or the split of a fixed total that minimises the worst
  shortfall (:mod:`dpcore.planning.targets`).

Answers computed from private data (every Monte-Carlo curve evaluates errors against the
non-private truth) are *non-private studies*: the epsilon they return depends on D. Run them on a
public stand-in (the scenario's E, :func:`public_stand_in`) to choose epsilon without looking at D.
"""

from dpcore.composition import (
    COMPOSITION_ASSUMPTIONS,
    COMPOSITION_NAMES,
    COMPOSITIONS,
    MAX_PART_CHOICES,
    PLAN_DATASET,
    EpsilonInterval,
    PlannedRelease,
    compose,
    compose_parts,
    composition_growth,
    gaussian_rho,
    pld_interval,
)
from dpcore.planning.closed_form import (
    EPSILON_RANGE,
    epsilon_for_gaussian,
    epsilon_for_importance_theory,
    epsilon_for_laplace,
    mean_sensitivity,
    noise_answer,
)
from dpcore.planning.deployments import (
    DEPLOYMENT_COLUMNS,
    SHOWN_COLUMNS,
    deployments,
    epsilon_rank,
)
from dpcore.planning.fitting import (
    COARSE_GRID,
    EpsilonAnswer,
    epsilon_from_curve,
    isotonic_decreasing,
    search_epsilon,
)
from dpcore.planning.monte_carlo import (
    importance_errors,
    logistic_errors,
    public_stand_in,
    subset_errors,
)
from dpcore.planning.risk import posterior_bound, posterior_curves
from dpcore.planning.targets import (
    TARGET_MECHANISM_NAMES,
    TARGET_MECHANISMS,
    plan_targets,
    target_records,
)
from dpcore.planning.tradeoff import (
    TRADEOFF_MECHANISMS,
    TRADEOFF_METHODS,
    dp_tradeoff,
    laplace_tradeoff,
    tradeoff,
)
from dpcore.planning.what_if import (
    PLANNABLE,
    compare_compositions,
    plan_interval,
    planned_releases,
    records_interval,
)

__all__ = [
    "COARSE_GRID",
    "COMPOSITIONS",
    "COMPOSITION_ASSUMPTIONS",
    "COMPOSITION_NAMES",
    "DEPLOYMENT_COLUMNS",
    "EPSILON_RANGE",
    "MAX_PART_CHOICES",
    "PLANNABLE",
    "SHOWN_COLUMNS",
    "PLAN_DATASET",
    "TARGET_MECHANISMS",
    "TARGET_MECHANISM_NAMES",
    "TRADEOFF_MECHANISMS",
    "TRADEOFF_METHODS",
    "EpsilonAnswer",
    "EpsilonInterval",
    "PlannedRelease",
    "compare_compositions",
    "compose",
    "compose_parts",
    "deployments",
    "epsilon_rank",
    "composition_growth",
    "epsilon_for_gaussian",
    "epsilon_for_importance_theory",
    "epsilon_for_laplace",
    "epsilon_from_curve",
    "gaussian_rho",
    "importance_errors",
    "isotonic_decreasing",
    "laplace_tradeoff",
    "logistic_errors",
    "mean_sensitivity",
    "noise_answer",
    "plan_interval",
    "plan_targets",
    "planned_releases",
    "pld_interval",
    "posterior_bound",
    "posterior_curves",
    "public_stand_in",
    "dp_tradeoff",
    "records_interval",
    "search_epsilon",
    "subset_errors",
    "target_records",
    "tradeoff",
]
