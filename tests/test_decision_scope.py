"""Which part of a release a decision's audit covers (issue 34 §6): the step, its ε, and what is
not audited, in the decision's sentences, on the page's table and in the report.

Before, a subset release at ε = 3 (split 0.8 : 0.2 : 1, so ε₁ = 1.2, ε₂ = 0.3, ε₃ = 1.5) was
audited as "subset selection" claimed at 0.3, which is ε₂, the candidate weights' share, not
the selection's ε₃, and nothing said that the audit covered one step of three.
"""

from __future__ import annotations

import html
import re

import pandas as pd
import pytest

from dpcore.decision import RELEASES, AuditScope, audit_numbers, decide, report_html
from dpcore.decision.decide import decision_params
from dpcore.figures.decision import decision_figures
from dpcore.studies.subset import split_epsilon

SUBSET = "dpcore/examples/subset-mvn-shift.json"


def subset_metrics(total: float, split: str) -> pd.Series:
    e1, e2, e3 = split_epsilon(total, split)
    return pd.Series({"epsilon1": e1, "epsilon2": e2, "epsilon3": e3, "epsilon_spent": total})


def test_a_subset_release_is_audited_at_its_selection_step_and_says_so():
    params = decision_params("subset", {"sub_epsilon": 3.0}, 0)
    scope = RELEASES["subset"].audit(params, subset_metrics(3.0, params.split))
    assert (scope.case, scope.epsilon, scope.total) == ("selection_exponential",
                                                         pytest.approx(1.5), 3.0)
    assert [eps for _, eps in scope.unaudited] == [pytest.approx(1.2), pytest.approx(0.3)]
    assert not scope.whole
    text = scope.sentence()
    assert text.startswith("The audit covers one step of the release: the selection of a "
                           "subset size (Algorithm 2 steps 5-6) at ε = 1.5, of the release's "
                           "total ε = 3.")
    assert "Not audited here: the noisy weights that rank the public points" in text
    assert "at ε = 1.2;" in text and "at ε = 0.3." in text
    table = scope.table()
    assert table["audited"].tolist() == [True, False, False]
    assert table["epsilon"].sum() == pytest.approx(3.0)


@pytest.mark.parametrize("controls, case", [
    ({"sub_selection": "noisy-curve"}, "selection_noisy-curve"),
    ({"sub_accounting": "as-printed"}, "selection_as-printed"),
])
def test_the_audited_selection_follows_the_pages_accounting(controls, case):
    params = decision_params("subset", {"sub_epsilon": 2.0, **controls}, 0)
    scope = RELEASES["subset"].audit(params, subset_metrics(2.0, params.split))
    assert scope.case == case and scope.epsilon == pytest.approx(1.0)  # ε₃ of 2 at 0.8:0.2:1


@pytest.mark.parametrize("page", ["importance", "perturbation", "masking"])
def test_a_one_step_release_is_audited_at_all_of_its_epsilon(page):
    params = decision_params(page, {}, 0)
    scope = RELEASES[page].audit(params, pd.Series({"epsilon": params.epsilon}))
    assert isinstance(scope, AuditScope) and scope.whole
    assert scope.epsilon == scope.total == params.epsilon
    assert scope.sentence().startswith(f"The audit covers {scope.step} at ε = "
                                       f"{params.epsilon:.3g}, all of the release's ε.")
    assert scope.table()["audited"].tolist() == [True]


def _quick_audit(case: str, epsilon: float, seed: int) -> dict[str, pd.DataFrame]:
    return audit_numbers(case, epsilon, runs=2_000, seed=seed)


def test_the_decision_and_its_report_name_the_audited_step():
    decision = decide(SUBSET, audit=_quick_audit)
    a = decision.audit.iloc[0]
    assert a["claimed_epsilon"] == pytest.approx(1.5) and decision.epsilon == 3.0
    assert decision.sentences()["audit"].startswith(decision.audit_scope.sentence())
    page = report_html(decision)
    body = html.unescape(re.sub(r"<[^>]+>", " ", page.split("</head>")[1]))
    assert decision.audit_scope.sentence() in body
    assert "step of the release that spends ε" in body  # the report's table of the steps
    assert body.count("not audited") >= 2  # the two steps no audit here attacks
    figure = decision_figures(decision.numbers(), release=decision.release.name,
                              epsilon=decision.epsilon)["audit"]
    assert "one step: ε = 1.5 of 3" in figure.layout.title.text
