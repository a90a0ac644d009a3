"""Optimal public subset under DP M-estimators from hybrid datasets ([WJ18]_).

A public set E and a private set D: each public point gets a weight, the share of private points
nearest to it, released with Laplace noise; the DP M-estimator is fitted on the weighted public
points; Algorithm 2 chooses how many (top-ranked) public points to release, trading the bias of
few points against the noise of many.

``rescale``                Step 1 of Algorithm 1 (public ranges, one-hot / sqrt(2), distinct E).
``nearest_public``, ``hybrid_weights``, ``noisy_weights``, ``distance_to_subset``
                           eq. (3), Definitions 5/6, eq. (5).
``m_estimate``             DP M-estimators (squared, absolute, logistic) from weighted points.
``prepare_selection``      what ε does not change (θ_D, nearest points), computed once.
``select_subset``          Algorithm 2 with correct accounting -> :class:`SubsetResult`.
``public_only_estimate``, ``lei_histogram``, ``lei_errors``     baselines.
``selection_probabilities``  how likely step 6 selects each candidate (vs uniform).
``subset_study``           the Monte-Carlo curves of Sect. 5.1 (Figs 4-6), seeded: ``prepare_study``
                           (what ε does not change, once) then ``run_study`` (at one ε).

References
----------
.. [WJ18] Wang, Ji, Kim, Wang, Xiong & Jiang (2018), *Selecting optimal subset to release under
   differentially private M-estimators from hybrid datasets*, IEEE TKDE 30(3).
"""

from dpcore.subset.baselines import lei_bins, lei_histogram, public_only_estimate
from dpcore.subset.estimators import LOSSES, m_estimate, predict, reference_estimate
from dpcore.subset.experiments import (
    StudySetup,
    SubsetStudy,
    lei_errors,
    paper_sizes,
    paper_split,
    prepare_study,
    run_study,
    subset_study,
)
from dpcore.subset.rescale import Rescaled, display_plane, rescale, scenario_arguments
from dpcore.subset.selection import (
    ACCOUNTINGS,
    SELECTIONS,
    Prepared,
    SubsetResult,
    criterion_sensitivity,
    default_sizes,
    prepare_selection,
    select_subset,
    selection_probabilities,
)
from dpcore.subset.weights import (
    distance_to_subset,
    hybrid_counts,
    hybrid_weights,
    nearest_public,
    noisy_weights,
)

__all__ = [
    "ACCOUNTINGS",
    "LOSSES",
    "SELECTIONS",
    "Prepared",
    "Rescaled",
    "StudySetup",
    "SubsetResult",
    "SubsetStudy",
    "criterion_sensitivity",
    "default_sizes",
    "display_plane",
    "distance_to_subset",
    "hybrid_counts",
    "hybrid_weights",
    "lei_bins",
    "lei_errors",
    "lei_histogram",
    "m_estimate",
    "nearest_public",
    "noisy_weights",
    "paper_sizes",
    "paper_split",
    "prepare_selection",
    "prepare_study",
    "public_only_estimate",
    "predict",
    "reference_estimate",
    "rescale",
    "run_study",
    "scenario_arguments",
    "select_subset",
    "selection_probabilities",
    "subset_study",
]
