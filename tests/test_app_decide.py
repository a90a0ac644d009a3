"""AppTest of the "Decide and report" page: each release at its page's settings, the numbers
equal to a report's, a masked release's utility report, and the report download."""

from __future__ import annotations

import math
from functools import partial

import app_support
import pytest
from app_support import metrics, rerun

from dpcore.decision import RELEASES, decide, report_html
from dpcore.planning import posterior_bound
from dpcore.runs import RunConfig

PAGE = "pages/decide.py"
TIMEOUT = 240  # Adult's importance weights and logistic regression, cold

open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT)


def choose(at, page: str):
    at.selectbox(key="dc_release").set_value(page)
    return rerun(at)


def test_page_opens_on_the_first_release_with_the_five_parts():
    at = open_page()
    shown = metrics(at)
    assert at.selectbox(key="dc_release").value == next(iter(RELEASES))
    assert shown["Belief after it, from 1 %"] == f"{100 * posterior_bound(0.01, 0.1):.1f} %"
    assert float(shown["Audited ε ≥"]) <= 0.1 + 1e-9  # importance weights at ε = 0.1
    assert shown["Budget left after it"] == "0.9"  # budget 1, nothing spent, this release 0.1
    assert len(at.get("plotly_chart")) == 4  # utility, audit, trade-off curve, deployments
    text = " ".join(m.value for m in at.markdown)
    assert "non-private" not in metrics(at)  # the headline DP estimate is not
    assert "landmarks, not a ranking" in text
    assert at.get("download_button")  # the report


def test_the_prior_moves_the_risk_only():
    at = open_page()
    before = metrics(at)
    at.select_slider(key="dc_prior").set_value(0.1)
    after = metrics(rerun(at))
    assert after["Belief after it, from 10 %"] == f"{100 * posterior_bound(0.1, 0.1):.1f} %"
    assert after["Audited ε ≥"] == before["Audited ε ≥"]


def test_settings_of_the_page_carry_over_and_equal_the_report():
    # the logistic regression page's settings as a user left them (Adult, ε = 2, 10 restarts:
    # values its widgets offer)
    at = open_page(lr_epsilon=2.0, lr_restarts=10)
    at = choose(at, "perturbation")
    shown = metrics(at)
    key = "Test error of the released model (non-private)"
    assert key in shown
    config = RunConfig("perturbation", {"builtin_name": "adult"},
                       {"lr_epsilon": 2.0, "lr_restarts": 10}, 0)
    report = decide(config)
    assert shown[key] == f"{report.utility.iloc[0]['value']:.3g}"
    assert shown["Audited ε ≥"] == f"{report.audit.iloc[0]['audited_lower_bound']:.2f}"
    assert shown["Budget left after it"] == "0"  # 2 does not fit in the budget 1
    page = report_html(report)
    assert f"{report.utility.iloc[0]['value']:.4g}" in page
    r, a = report.risk.iloc[0], report.audit.iloc[0]
    assert shown["Caught at 1 % false alarms"] == f"at most {100 * r['tpr_at_1pct']:.1f} %"
    assert shown["Caught at 10 % false alarms"] == f"at most {100 * r['tpr_at_10pct']:.1f} %"
    label = f"ε by privacy loss distribution (δ = {r['epsilon_delta']:g})"
    assert shown[label] == f"{r['epsilon_point']:.4g}"
    deltas = {m.label: m.delta for m in at.metric}
    assert deltas[label] == (f"between {r['epsilon_optimistic']:.4g} and "
                             f"{r['epsilon_pessimistic']:.4g}; claimed {r['epsilon']:g}")
    assert deltas["Audited ε ≥"].startswith(
        f"claimed {a['claimed_epsilon']:.3g}, gap {a['gap']:.2f}")
    # claim, audited bound and gap side by side, and the trade-off curve's verdict
    assert (shown["Claimed ε"], shown["Audited bound"], shown["Gap"]) == (
        f"{a['claimed_epsilon']:.3g}", f"{a['audited_lower_bound']:.2f}", f"{a['gap']:.2f}")
    assert any(report.tradeoff_sentence() in c.value for c in at.caption)
    # which data each setting was tuned on, on the page and in the report
    (tuned,) = [d.value for d in at.dataframe if "tuned on" in d.value.columns]
    assert tuned["choice"].tolist() == report.tuning["choice"].tolist()
    assert tuned.set_index("choice").loc["λ", "tuned on"] == "your inputs"  # the rule of (ε, n, d)
    assert "tuned on" in page and "cost" in page
    for header in ("caught at 1 % false alarms, at most", "ε by PLD, pessimistic",
                   "gap (claimed − audited)"):
        assert header in page


@pytest.mark.slow
def test_masked_release_adds_the_synthetic_data_report():
    at = open_page(mk_epsilon=5.0)
    at = choose(at, "masking")
    shown = metrics(at)
    assert "pMSE, main-effects logistic (non-private)" in shown
    assert "Train masked → test real" in shown
    assert len(at.get("plotly_chart")) == 6  # + marginals and correlations
    tstr = float(shown["Train masked → test real"])
    assert 0.0 <= tstr <= 1.0 and not math.isnan(tstr)
    assert 0.0 <= float(shown["2-way k-marginal (non-private)"]) <= 1000.0
    assert shown["Records matching a real one (non-private)"].endswith("%")
    assert any("non-private" in c.value for c in at.caption)
