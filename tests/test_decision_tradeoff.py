"""The decision's trade-off curve (issue 37 items 3-4): the audited step's claimed curve with
the audit's (FPR, TPR) points and their Clopper-Pearson boxes, the curve of the release's steps
composed beside it, and claim, audited bound and gap side by side on the page and in the
report."""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest

from dpcore.decision import audit_numbers, decide, report_html
from dpcore.decision.decide import tradeoff_table
from dpcore.figures.decision import decision_figures, decision_tradeoff_figure
from dpcore.planning.tradeoff import tradeoff
from dpcore.releases.base import AuditScope
from dpcore.studies.audit import CURVE_FPR

SUBSET = "dpcore/examples/subset-mvn-shift.json"
BUG = "audit's point significantly above the curve: a bug"


def _quick_audit(case: str, epsilon: float, seed: int) -> dict[str, pd.DataFrame]:
    return audit_numbers(case, epsilon, runs=2_000, seed=seed)


def _claim(epsilon: float) -> pd.DataFrame:
    return pd.DataFrame({"fpr": CURVE_FPR,
                         "tpr": tradeoff([epsilon], CURVE_FPR, mechanism="pure")})


def test_one_step_plan_is_its_claim_and_more_steps_lie_above_it():
    whole = AuditScope("laplace", 1.0, "the count", 1.0)
    table = tradeoff_table(whole, _claim(1.0))
    assert np.array_equal(table["plan_tpr"], table["claim_tpr"])
    three = AuditScope("laplace", 1.0, "the count", 2.0, (("the sum", 0.5), ("the mean", 0.5)))
    table = tradeoff_table(three, _claim(1.0))
    assert np.array_equal(table["plan_tpr"], tradeoff([1.0, 0.5, 0.5], CURVE_FPR,
                                                      mechanism="pure"))
    # composition only adds loss: the composed curve is on or above the step's at every FPR
    # (both from one discretisation of one loss grid, so up to its step's rounding only)
    assert (table["plan_tpr"] >= table["claim_tpr"] - 1e-9).all()
    assert table["plan_tpr"].iloc[1:-1].gt(table["claim_tpr"].iloc[1:-1]).any()


def _points(above: bool) -> pd.DataFrame:
    return pd.DataFrame([{"test": "D′ when beyond the threshold", "fpr": 0.1, "tpr": 0.9,
                          "fpr_low": 0.09, "fpr_high": 0.11, "tpr_low": 0.88, "tpr_high": 0.92,
                          "allowed": 0.27, "above": above}])


@pytest.mark.parametrize("above", [False, True])
def test_the_figure_draws_the_points_boxes_and_marks_a_bug(above):
    scope = AuditScope("laplace", 1.0, "the count", 1.5, (("the sum", 0.5),))
    fig = decision_tradeoff_figure(tradeoff_table(scope, _claim(1.0)), _points(above),
                                   pd.Series({"curve": "randomised response at ε = 1"}))
    names = [trace.name for trace in fig.data]
    assert "claim's curve: randomised response at ε = 1" in names
    assert "the release's steps composed (each as randomised response)" in names
    assert (BUG in names) == above
    box = fig.layout.shapes[0]
    assert (box.x0, box.x1, box.y0, box.y1) == (0.09, 0.11, 0.88, 0.92)


def test_a_one_step_release_draws_one_curve():
    scope = AuditScope("laplace", 1.0, "the count", 1.0)
    fig = decision_tradeoff_figure(tradeoff_table(scope, _claim(1.0)), _points(False),
                                   pd.Series({"curve": "randomised response at ε = 1"}))
    assert not [t for t in fig.data if t.name and "composed" in t.name]


def test_the_decision_and_its_report_show_claim_bound_gap_and_the_curve():
    decision = decide(SUBSET, audit=_quick_audit)
    a = decision.audit.iloc[0]
    assert a["gap"] == pytest.approx(a["claimed_epsilon"] - a["audited_lower_bound"])
    points = decision.audit_points
    assert len(points) == 2 and not points["above"].any()
    assert ((points["fpr_low"] <= points["fpr"]) & (points["fpr"] <= points["fpr_high"])).all()
    assert (decision.tradeoff["claim_tpr"] == tradeoff([a["claimed_epsilon"]], CURVE_FPR,
                                                       mechanism="pure")).all()
    figures = decision_figures(decision.numbers(), release=decision.release.name,
                               epsilon=decision.epsilon)
    assert "trade-off curve" in figures["tradeoff"].layout.title.text
    sentence = decision.tradeoff_sentence()
    assert "found no bug" in sentence and "total ε = 3" in sentence
    page = report_html(decision)
    body = html.unescape(re.sub(r"<[^>]+>", " ", page.split("</head>")[1]))
    assert sentence in body
    assert "above the curve (a bug)" in body and "the claim allows at the upper FPR" in body
    assert page.count('class="plotly-graph-div"') == 4
