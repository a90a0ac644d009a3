"""Empirical privacy audits: a statistical lower bound on the epsilon a mechanism really gives.

A mechanism ``M`` is (epsilon, delta)-DP when, for every pair of neighbouring datasets D, D' and
every set S of outputs, ``P(M(D) in S) <= e^epsilon P(M(D') in S) + delta`` and vice versa. An
audit runs the mechanism many times on one hard pair, reduces each output to a scalar score
(a projection on the direction the change moves the output, or the log-likelihood ratio of the
two output laws), and tests "D or D'" with a threshold ``t`` (S = {score > t}):

* ``FPR = P(score > t | D)`` and ``FNR = P(score <= t | D')``;
* (epsilon, delta)-DP implies ``FNR + e^epsilon FPR >= 1 - delta`` and ``FPR + e^epsilon FNR >=
  1 - delta`` ([KOV15]_ Theorem 2.1, the hypothesis-testing view), so with upper confidence bounds
  on both rates, ``epsilon_lb = max(log((1 - delta - FNR_up) / FPR_up), log((1 - delta - FPR_up)
  / FNR_up))`` is a lower bound on the true epsilon ([JUO20]_ Sect. 3; [NST21]_ Sect. 2).

The threshold is chosen on one half of the runs (the largest bound that holds for every
candidate threshold at once) and the rates are bounded on the other half by Clopper-Pearson
intervals, each at level ``1 - alpha/2`` so that both hold together with probability at least
``confidence = 1 - alpha`` (Bonferroni). Hence for a correctly calibrated mechanism
``P(epsilon_lb > epsilon) <= 1 - confidence``, whatever the pair, statistic or number of runs:
a bound above the claim is evidence of a fault, a bound below it is not a proof of privacy
("the noise is at least this strong": the audit can only show too little noise).

What an audit can see is limited by the pair: if the noiseless outputs on D and D' are a
fraction ``f`` of the sensitivity apart, even a perfect test shows at most about ``f epsilon``
for mechanisms whose privacy loss is linear in the distance (Laplace, L2-Laplace and discrete
Laplace noise). Every result reports ``f``; :func:`hill_climb_pair` searches the domain for a
pair with a large ``f``. It is limited by the runs too: Gaussian noise reaches its epsilon only
in tails that few runs visit (delta pays for them), and :func:`audit_reach` says what a given
number of runs can expect to show on correct noise. Each case words its limit
(:attr:`AuditCase.limit_note`).

Besides the two-dataset audit, :func:`one_run_audit` implements the one-run audit of [SNJ23]_
(canaries included at random in a single training run; a lower bound from the number of correct
guesses) for the mechanisms that fit a model.

The cases (:func:`audit_cases`) cover every mechanism the product releases with and the
deliberate faults ("broken on purpose"). The package, one module per job:

* :mod:`dpcore.audit.statistics`: the bounds (Clopper-Pearson, the rates' epsilon, the threshold
  test of :func:`audit_scores`, the ceiling and the reach of a number of runs, the one-run
  bound, an (FPR, TPR) point against a claim's curve);
* :mod:`dpcore.audit.pairs`: hard neighbouring pairs (built-in, synthetic);
* :mod:`dpcore.audit.cases`: the catalogue of cases;
* :mod:`dpcore.audit.running`: running an audit (:func:`audit`, :func:`one_run_audit`).

References
----------
.. [KOV15] Kairouz, Oh & Viswanath (2015), *The composition theorem for differential privacy*,
   ICML, Theorem 2.1.
.. [JUO20] Jagielski, Ullman & Oprea (2020), *Auditing differentially private machine learning:
   how private is private SGD?*, NeurIPS, Algorithm 2 (Clopper-Pearson bounds on the error rates).
.. [NST21] Nasr, Song, Thakurta, Papernot & Carlini (2021), *Adversary instantiation: lower bounds
   for differentially private machine learning*, IEEE S&P, Sect. 2.
.. [SNJ23] Steinke, Nasr & Jagielski (2023), *Privacy auditing with one (1) training run*,
   NeurIPS, Algorithm 1 and Theorem 3.1 (pure epsilon-DP).
"""

from dpcore.audit.cases import BROKEN_KEYS, CASE_KEYS, AuditCase, audit_case, audit_cases
from dpcore.audit.pairs import IMPORTANCE_CORNERS, hill_climb_pair, importance_pair, logistic_pair
from dpcore.audit.running import PLOT_SCORES, AuditResult, OneRunResult, audit, one_run_audit
from dpcore.audit.statistics import (
    GaussianTradeoff,
    RatePoint,
    ScoreAudit,
    audit_ceiling,
    audit_reach,
    audit_scores,
    check_runs,
    clopper_pearson_upper,
    epsilon_from_rates,
    one_run_epsilon,
    point_against_curve,
)

__all__ = [
    "BROKEN_KEYS",
    "CASE_KEYS",
    "IMPORTANCE_CORNERS",
    "PLOT_SCORES",
    "AuditCase",
    "AuditResult",
    "GaussianTradeoff",
    "OneRunResult",
    "RatePoint",
    "ScoreAudit",
    "audit",
    "audit_case",
    "audit_ceiling",
    "audit_cases",
    "audit_reach",
    "audit_scores",
    "check_runs",
    "clopper_pearson_upper",
    "epsilon_from_rates",
    "hill_climb_pair",
    "importance_pair",
    "logistic_pair",
    "one_run_audit",
    "one_run_epsilon",
    "point_against_curve",
]
