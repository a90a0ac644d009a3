"""Data masking with privacy guarantees (Pham, Ghosh & Yegneswaran).

Masked Data Generation ([PGY]_ Algorithm 1) publishes a synthetic ("masked") dataset whose
regularised logistic regression is a noisy, epsilon-DP copy of the one fitted on the private data;
input perturbation ([PGY]_ Algorithm 2) adds noise to every record instead, and output
perturbation publishes the noisy classifier itself.

Public entry points
-------------------
``MaskedDataGenerator(epsilon=1.0, lam="auto", n_samples=None, rng=None, accountant=None,
center=None, fit_intercept=False, coef_prior=None).fit(X, y, initial)``
    Algorithm 1, binary and C-class; ``masked_X_``, ``masked_y_``, ``noisy_coef_`` (w'),
    ``gradient_norm_``, ``refit_distance_``. ``fit_intercept`` and ``coef_prior`` (a public
    model, :func:`dpcore.masking.prior.public_model`) are the page's additions on a scenario;
    the defaults are the paper's model.
``design_records``
    The model's records: scaled into the unit ball, with the intercept column if asked.
``input_perturbation(X, epsilon, rng=None, accountant=None)``
    Algorithm 2 (features only: labels are not protected).
``fit_logistic_model``
    Batched Newton solver for the binary / multinomial regularised model, with a certified gap.
``toy_task``, ``digits_task``, ``accuracy_vs_epsilon``, ``accuracy_vs_epsilon_by_size``
    The paper's experiments (Figs 2-5).
``k_marginal_score(original, masked)``, ``exact_match_share(original, masked)``
    SDNist's 2-way k-marginal score (0-1000) and the share of masked records equal to an
    original one, on binned columns (:mod:`dpcore.masking.marginals`); the page's report card
    across ε is :func:`dpcore.masking.card.report_card`.

Label convention: integer codes ``0 .. C-1`` everywhere (the paper mixes {-1, 1} and {0, 1}).

References
----------
.. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*.
"""

from dpcore.masking.experiments import (
    FIG5_EPSILONS,
    METHODS,
    MaskingTask,
    accuracy_vs_epsilon,
    accuracy_vs_epsilon_by_size,
    decision_regions,
    digits_task,
    scenario_task,
    toy_sample,
    toy_task,
)
from dpcore.masking.generator import (
    AUTO_LAMBDA,
    GAP_TOL,
    INTERCEPT_SCALING,
    MaskedDataGenerator,
    NoInterceptWarning,
    auto_lambda,
    design_records,
    fit_generators,
    input_perturbation,
    intercept_value,
    lipschitz_constant,
    records_from_design,
    scale_records,
    summed_gradient,
)
from dpcore.masking.greedy import (
    GreedyResult,
    greedy_masked_batches,
    greedy_masked_samples,
    masking_objective,
)
from dpcore.masking.marginals import exact_match_share, k_marginal_score
from dpcore.masking.model import (
    LogisticModelFit,
    fit_logistic_model,
    model_gradient,
    model_objective,
    predict_labels,
    predict_proba,
)

__all__ = [
    "AUTO_LAMBDA",
    "FIG5_EPSILONS",
    "GAP_TOL",
    "INTERCEPT_SCALING",
    "METHODS",
    "GreedyResult",
    "LogisticModelFit",
    "MaskedDataGenerator",
    "MaskingTask",
    "NoInterceptWarning",
    "accuracy_vs_epsilon",
    "accuracy_vs_epsilon_by_size",
    "auto_lambda",
    "decision_regions",
    "design_records",
    "digits_task",
    "exact_match_share",
    "fit_generators",
    "fit_logistic_model",
    "greedy_masked_batches",
    "greedy_masked_samples",
    "input_perturbation",
    "intercept_value",
    "k_marginal_score",
    "lipschitz_constant",
    "masking_objective",
    "model_gradient",
    "model_objective",
    "predict_labels",
    "predict_proba",
    "records_from_design",
    "scale_records",
    "scenario_task",
    "summed_gradient",
    "toy_sample",
    "toy_task",
]
