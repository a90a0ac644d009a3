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

Besides the two-dataset audit, :func:`one_run` implements the one-run audit of [SNJ23]_
(canaries included at random in a single run; a lower bound from the number of correct
guesses), on each release through its hook (:class:`OneRunCase`, ``ONE_RUN`` of each module of
:mod:`dpcore.releases`).

The cases (:func:`audit_cases`) cover every mechanism the product releases with and the
deliberate faults ("broken on purpose"). The package, one module per job:

* :mod:`dpcore.audit.statistics`: the bounds (Clopper-Pearson, the rates' epsilon, the threshold
  test of :func:`audit_scores`, the ceiling and the reach of a number of runs, the one-run
  bound, an (FPR, TPR) point against a claim's curve);
* :mod:`dpcore.audit.pairs`: hard neighbouring pairs (built-in, synthetic);
* :mod:`dpcore.audit.case`: one case (:class:`AuditCase`) and the scores' shared pieces;
* :mod:`dpcore.audit.cases`: the mechanisms' cases and their faults (the whole catalogue, the
  releases' cases included, is :mod:`dpcore.releases.catalogue`);
* :mod:`dpcore.audit.running`: running an audit (:func:`audit`);
* :mod:`dpcore.audit.onerun`: the one-run audit (:func:`one_run` of a :class:`OneRunCase`);
* :mod:`dpcore.audit.sensitivity`: the grey-box sensitivity check of one probe (a release's
  computation run on neighbouring pairs with its noise held identical); the probes of the
  releases and the entry points :func:`release_names` and :func:`check_sensitivity` are
  :mod:`dpcore.releases.sensitivity.checks`.

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

from __future__ import annotations

import importlib
from typing import Any

#: Each public name -> the module that defines it, imported when the name is first read (the
#: package's face imports none of its modules). The catalogue of every case, the releases'
#: included, is :mod:`dpcore.releases.catalogue`: the releases build their cases from here.
_EXPORTS = {
    "AuditCase": "dpcore.audit.case",
    "IMPORTANCE_CORNERS": "dpcore.audit.pairs",
    "hill_climb_pair": "dpcore.audit.pairs",
    "importance_pair": "dpcore.audit.pairs",
    "logistic_pair": "dpcore.audit.pairs",
    "PLOT_SCORES": "dpcore.audit.running",
    "AuditResult": "dpcore.audit.running",
    "audit": "dpcore.audit.running",
    "OneRunCase": "dpcore.audit.onerun",
    "OneRunOutcome": "dpcore.audit.onerun",
    "one_run": "dpcore.audit.onerun",
    "GaussianTradeoff": "dpcore.audit.statistics",
    "RatePoint": "dpcore.audit.statistics",
    "ScoreAudit": "dpcore.audit.statistics",
    "audit_ceiling": "dpcore.audit.statistics",
    "audit_reach": "dpcore.audit.statistics",
    "audit_scores": "dpcore.audit.statistics",
    "check_runs": "dpcore.audit.statistics",
    "clopper_pearson_upper": "dpcore.audit.statistics",
    "epsilon_from_rates": "dpcore.audit.statistics",
    "one_run_epsilon": "dpcore.audit.statistics",
    "point_against_curve": "dpcore.audit.statistics",
    # The grey-box sensitivity check reads the releases, which sit above the audit: its entry
    # points live in dpcore.releases.sensitivity.checks, named here only (nothing imported).
    "check_sensitivity": "dpcore.releases.sensitivity.checks",
    "release_names": "dpcore.releases.sensitivity.checks",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (see :data:`_EXPORTS`)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
