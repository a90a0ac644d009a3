"""Decide on one release with the whole picture, and hand the decision over as a report.

* :func:`decide` (from a page's run config, with the caller's scenario and caches if any): the
  utility the study measured with its spread, the risk at a prior, the audit's lower bound with
  the step of the release it covers (:class:`AuditScope`), the budget spent and left, the
  published deployments and, for a masked release, the synthetic-data utility report
  (:mod:`dpcore.decision.decide`);
* :data:`RELEASES`: the pages whose release a decision can be about
  (:mod:`dpcore.decision.releases`);
* :func:`synthetic_report`: marginals, correlations, pMSE and train-on-masked accuracy
  (:mod:`dpcore.decision.synthetic`);
* which data each choice of the choose-ε and decision pages was tuned on, and whether it is
  free, charged or refused (:func:`choose_epsilon_tuning`, :func:`release_tuning`,
  :func:`refusal`; :mod:`dpcore.decision.tuning`);
* :func:`report_html` and :func:`report_pdf`: the decision as one self-contained file
  (:mod:`dpcore.decision.report`; ``python -m dpcore report CONFIG --out FILE.html``).

Nothing here releases anything or spends budget: a decision reads seeded studies.
"""

from dpcore.decision.decide import (
    AUDIT_CONFIDENCE,
    AUDIT_RUNS,
    Decision,
    audit_numbers,
    budget_table,
    decide,
    decision_params,
    masked_report,
)
from dpcore.decision.releases import RELEASES, AuditScope, Release, release
from dpcore.decision.report import report_html, report_pdf
from dpcore.decision.synthetic import synthetic_report
from dpcore.decision.tuning import choose_epsilon_tuning, refusal, release_tuning

__all__ = ["AUDIT_CONFIDENCE", "AUDIT_RUNS", "RELEASES", "AuditScope", "Decision", "Release",
           "audit_numbers",
           "budget_table", "choose_epsilon_tuning", "decide", "decision_params",
           "masked_report", "refusal", "release", "release_tuning", "report_html", "report_pdf",
           "synthetic_report"]
