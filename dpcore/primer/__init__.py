"""The mechanism primer: one query, its sensitivity, and the noisy answers of each mechanism.

A *query* ([JLE14]_ Definition 4) is asked of the scenario's private records in their own units:
a **count** of records in a category (or at or above a threshold), or the **sum** or **mean** of
a numeric column clipped to bounds ``[low, high]`` that the user gives. Its *sensitivity*
([JLE14]_ Definition 5) is the largest change of the answer between two neighbouring datasets
(the table is in :mod:`dpcore.primer.queries`). The clipping bounds are inputs, never read from
the private data.

The package, by job:

:mod:`~dpcore.primer.queries`
    The query, its exact (non-private) answer, its sensitivity.
:mod:`~dpcore.primer.columns`
    The columns a query can use, the exponential mechanism's candidates and default clipping
    bounds: public information only.
:mod:`~dpcore.primer.controls`
    The page's controls, their defaults and the query they ask.
:mod:`~dpcore.primer.noise`
    Seeded studies of the Laplace and Gaussian mechanisms, and how many answers a budget pays
    for (sequential composition).
:mod:`~dpcore.primer.choice`
    A seeded study of the exponential mechanism choosing the most common category.
:mod:`~dpcore.primer.stages`
    Everything the page shows, in two stages: the ε-free part, then the noisy answers at an ε.
:mod:`~dpcore.primer.release`
    What a data owner publishes: fresh entropy, charged to an accountant.
:mod:`~dpcore.primer.remeasure`
    Several releases of one query combined after publication (inverse-variance weighting,
    the Pitman combination of Laplace releases), with their exact intervals.
:mod:`~dpcore.primer.intervals`
    Intervals for the noise of combined answers (exact sums, Fieller's ratio, differences).
:mod:`~dpcore.primer.derived`
    Derived statistics (mean = sum / count, rate, difference of group means, scaled sum)
    released or simulated from noisy parts, with their intervals
    (:func:`~dpcore.primer.derived.mean_interval`).
:mod:`~dpcore.primer.coverage`
    The measured coverage of those intervals (the tables of ``docs/intervals.md``).

The studies spend no budget and are not releases. The true answer they are centred on is
computed from the private data without noise: it is **non-private**, and so is everything in a
column whose name says ``nonprivate``.

References
----------
.. [JLE14] Ji, Lipton & Elkan (2014), *Differential privacy and machine learning: a survey and
   review*, arXiv:1412.7584, Sect. 1.1-1.4 (Definitions 2-6, the Laplacian mechanism, its
   Gaussian variation and the exponential mechanism) and Sect. 1.6 (sequential composition).
"""

from __future__ import annotations

from dpcore.primer.choice import (
    CandidateCounts,
    candidate_counts,
    runner_up_epsilon,
    selection_from_counts,
    selection_study,
)
from dpcore.primer.columns import (
    BOUND_SOURCES,
    bound_problems,
    candidates,
    category_columns,
    default_bounds,
    default_threshold,
    numeric_columns,
    raw_records,
    suggest_bounds,
)
from dpcore.primer.controls import (
    CONTROLS,
    column_options,
    default_choice_column,
    default_count,
    query_from_controls,
    resolve_controls,
)
from dpcore.primer.derived import STATISTICS, derived, mean_interval
from dpcore.primer.intervals import (
    difference_interval,
    laplace_release_interval,
    linear_interval,
    noise_half_width,
    ratio_interval,
    sampling_half_width,
)
from dpcore.primer.noise import (
    MAX_DRAWS,
    MECHANISMS,
    answer_study,
    answers_in_budget,
    budget_table,
    build_mechanisms,
    check_draws,
)
from dpcore.primer.queries import (
    KINDS,
    RELATIONS,
    PrimerQuery,
    answer_range,
    count,
    describe_relation,
    group_sensitivity,
    sensitivity,
    show_value,
    true_answer,
)
from dpcore.primer.release import OTHER_PART, release_answers
from dpcore.primer.stages import PreparedStudy, prepare_study, study, study_at

__all__ = [
    "KINDS",
    "RELATIONS",
    "MECHANISMS",
    "BOUND_SOURCES",
    "CONTROLS",
    "MAX_DRAWS",
    "PrimerQuery",
    "count",
    "show_value",
    "numeric_columns",
    "category_columns",
    "candidates",
    "raw_records",
    "column_options",
    "suggest_bounds",
    "default_bounds",
    "default_threshold",
    "default_count",
    "default_choice_column",
    "bound_problems",
    "true_answer",
    "sensitivity",
    "describe_relation",
    "build_mechanisms",
    "check_draws",
    "answer_study",
    "CandidateCounts",
    "candidate_counts",
    "runner_up_epsilon",
    "selection_from_counts",
    "selection_study",
    "answers_in_budget",
    "budget_table",
    "query_from_controls",
    "resolve_controls",
    "PreparedStudy",
    "prepare_study",
    "study_at",
    "study",
    "OTHER_PART",
    "answer_range",
    "group_sensitivity",
    "release_answers",
    "STATISTICS",
    "derived",
    "mean_interval",
    "noise_half_width",
    "linear_interval",
    "ratio_interval",
    "difference_interval",
    "sampling_half_width",
    "laplace_release_interval",
]
