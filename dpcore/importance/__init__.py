"""Differentially private importance weights (Ji & Elkan 2013): the mechanism and its study.

Modules
-------
``mechanism``
    :class:`ImportanceWeights` ([JE13]_ Algorithm 1, a release), :func:`balanced_fit` (step 1),
    ``lam="auto"`` (:func:`auto_lambda`), the sensitivity with the solver term
    (:func:`release_sensitivity`) and the noise scale.
``experiments``
    The Monte-Carlo study over bootstrap resamples of D: :class:`BootstrapStudy`,
    :func:`monte_carlo`, :func:`bootstrap_estimates`, the model comparison of Fig. 3
    (:func:`model_distances`, its penalty cross-validated on E by :func:`model_penalty`).
``theory``
    Theorem 2's variance bound (:func:`variance_bound`, both forms), the plug-in prediction and
    Theorem 3's bias.
``baselines``
    The Sect. 5.1 baselines on the same resamples.

References
----------
.. [JE13] Ji & Elkan (2013), *Differential privacy based on importance weighting*, Mach. Learn. 93.
"""

from dpcore.importance.baselines import baselines
from dpcore.importance.experiments import (
    BootstrapFits,
    BootstrapStudy,
    bootstrap_estimates,
    bootstrap_fits,
    model_design,
    model_distances,
    model_penalty,
    monte_carlo,
)
from dpcore.importance.mechanism import (
    AUTO_LOG_WEIGHT_NOISE,
    LOG_WEIGHT_NOISE_LIMIT,
    PAGE_LOG_WEIGHT_NOISE,
    PULL_SHARE,
    BalancedFit,
    ImportanceWeights,
    auto_lambda,
    balanced_fit,
    correcting_epsilon,
    default_lambda,
    expected_noise_norm,
    noise_scale,
    pulled_to_public,
    release_sensitivity,
    smallest_epsilon,
    typical_log_weight_noise,
)
from dpcore.importance.theory import (
    VarianceTerms,
    asymptotic_bias,
    estimate_gradient,
    plugin_variance,
    theory_curves,
    variance_bound,
    variance_terms,
)
from dpcore.simulation import summarise

__all__ = [
    "AUTO_LOG_WEIGHT_NOISE",
    "LOG_WEIGHT_NOISE_LIMIT",
    "PAGE_LOG_WEIGHT_NOISE",
    "PULL_SHARE",
    "BalancedFit",
    "BootstrapFits",
    "BootstrapStudy",
    "ImportanceWeights",
    "VarianceTerms",
    "asymptotic_bias",
    "auto_lambda",
    "balanced_fit",
    "baselines",
    "correcting_epsilon",
    "bootstrap_estimates",
    "bootstrap_fits",
    "default_lambda",
    "estimate_gradient",
    "expected_noise_norm",
    "model_design",
    "model_distances",
    "model_penalty",
    "monte_carlo",
    "noise_scale",
    "plugin_variance",
    "pulled_to_public",
    "release_sensitivity",
    "smallest_epsilon",
    "summarise",
    "theory_curves",
    "typical_log_weight_noise",
    "variance_bound",
    "variance_terms",
]
