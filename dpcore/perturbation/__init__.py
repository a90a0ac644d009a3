"""Private logistic regression by approximate minima, output and objective perturbation
([IJ19]_, [CM08]_, [CMS11]_).

Modules
-------
``amp``
    Approximate minima perturbation (:func:`~dpcore.perturbation.amp.amp_coefs`), the default
    release: objective perturbation's noise through OpenDP, a certified solve
    (:func:`~dpcore.perturbation.amp.certified_distance`) and output noise covering its gap.
``output``
    :func:`perturb_output` and :func:`output_sensitivity` ([CM08]_ Algorithm 1, with the
    certified solver term) and :func:`check_certified` (a release refuses a solve that is not
    certified to that term's gap), shared with other pages that perturb a fitted model.
``objective``
    The calibration of objective perturbation (:func:`objective_calibration`: [CMS11]_
    Algorithm 2, its rank-one form, or [CM08]_ Algorithm 2 as printed), its noise, and the AMP
    correction for inexact solves.
``model``
    :class:`PrivateLogisticRegression` (a scikit-learn classifier), :func:`lambda_rule` (its
    default ``lam="auto"``, a rule of (epsilon, n, d)) and the batched core (:func:`prepare`,
    :func:`private_coefs`).
``synthetic``
    The data of [CM08]_ Sect. 6 (uniform on the unit sphere, margin or label noise).
``experiments``
    Error vs epsilon, learning curves, coefficient distances, Lemma 3/4 bounds, lambda by
    cross-validation or on public data (the release's lambda), and the public model a release
    is centred on (:func:`~dpcore.perturbation.experiments.public_prior`).

References
----------
.. [CM08] Chaudhuri & Monteleoni (2008), *Privacy-preserving logistic regression*, NIPS.
.. [CMS11] Chaudhuri, Monteleoni & Sarwate (2011), *Differentially private empirical risk
   minimization*, JMLR 12.
.. [IJ19] Iyengar, Near, Song, Thakkar, Thakurta & Wang (2019), *Towards practical
   differentially private convex optimization*, IEEE S&P.
"""

from dpcore.perturbation.model import (
    METHODS,
    PrivateLogisticRegression,
    encode_labels,
    lambda_rule,
    prepare,
    private_coefs,
    scale_records,
)
from dpcore.perturbation.objective import (
    PROOFS,
    FlawedProofWarning,
    ObjectiveCalibration,
    objective_calibration,
)
from dpcore.perturbation.output import check_certified, output_sensitivity, perturb_output

__all__ = [
    "METHODS",
    "PROOFS",
    "FlawedProofWarning",
    "ObjectiveCalibration",
    "PrivateLogisticRegression",
    "check_certified",
    "encode_labels",
    "lambda_rule",
    "objective_calibration",
    "output_sensitivity",
    "perturb_output",
    "prepare",
    "private_coefs",
    "scale_records",
]
