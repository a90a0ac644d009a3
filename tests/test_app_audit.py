"""AppTest of the privacy-audit page: one mechanism, the table, a fault, the one-run audit, the
floating-point attacks."""

from __future__ import annotations

from functools import partial

import app_support
from app_support import chart_specs, metrics

from dpcore import audit as A
from dpcore.audit_float import float_cases
from dpcore.releases.catalogue import BROKEN_KEYS, CASE_KEYS, audit_case

PAGE = "pages/audit.py"
TIMEOUT = 120

# A flagged fault is an st.error on this page: rerun checks for exceptions only.
open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT, allow_errors=True)
rerun = partial(app_support.rerun, allow_errors=True)


def test_page_opens_on_a_correct_mechanism_below_its_claim():
    at = open_page(au_runs=3000)
    shown = metrics(at)
    assert shown["Claimed ε"] == "1"
    assert float(shown["Audited lower bound"]) <= 1.0
    assert shown["Runs per dataset"] == "3,000"
    assert not at.error and len(at.success) == 1
    assert len(at.get("plotly_chart")) == 1
    assert any("not releases" in c.value for c in at.caption)


def test_the_gaussian_at_the_page_defaults_shows_a_bound_and_why_it_is_small():
    # Issue 23: 0.00 and "Laplace-type noise" here before; the study's tests pin the numbers.
    at = open_page(au_case="gaussian")
    shown = metrics(at)
    assert shown["Runs per dataset"] == "10,000" and shown["Claimed ε"] == "1"
    assert 0.0 < float(shown["Audited lower bound"]) < 1.0
    assert not at.error and len(at.success) == 1
    text = at.success[0].value
    assert "Gaussian noise" in text and "Laplace" not in text
    reach = A.audit_reach(audit_case("gaussian").tradeoff, 10_000, 0.95, 1e-5)
    assert f"would typically show ε ≥ {reach:.2f}" in text


def test_a_fault_is_flagged_in_red():
    at = open_page(au_runs=10_000)
    at.selectbox(key="au_case").set_value("laplace_halved")
    rerun(at)
    assert float(metrics(at)["Audited lower bound"]) > 1.0
    assert at.error and "too weak" in at.error[0].value


def test_refitting_mechanisms_run_fewer_times():
    at = open_page(au_runs=100_000, au_case="objective2011")
    assert metrics(at)["Runs per dataset"] == "20,000"


def test_table_of_every_mechanism_behind_a_button():
    at = open_page(au_runs=1000)
    assert not at.dataframe and at.info
    at.button(key="au_run_all").click()
    rerun(at)
    table = at.dataframe[0].value
    assert len(table) == len(CASE_KEYS)
    broken = table[table["broken on purpose"]]
    correct = table[~table["broken on purpose"]]
    assert (correct["audited lower bound"] <= correct["claimed epsilon"]).all()
    assert broken["flagged"].sum() >= 2
    assert len(at.get("plotly_chart")) == 2
    at.toggle(key="au_broken").set_value(False)
    rerun(at)
    at.button(key="au_run_all").click()
    rerun(at)
    assert len(at.dataframe[0].value) == len(CASE_KEYS) - len(BROKEN_KEYS)


def test_one_run_audit():
    at = open_page(au_runs=1000, au_canaries=50)
    at.button(key="au_one_run").click()
    rerun(at)
    shown = metrics(at)
    assert shown["Correct guesses"].endswith("/ 10")
    assert float(shown["Audited lower bound"]) <= 1.0


def test_floating_point_attacks_behind_a_button(numpy_model):
    at = open_page(au_runs=1000, au_float_runs=2000)
    assert not at.dataframe
    at.button(key="au_float_run").click()
    rerun(at)
    table = at.dataframe[0].value
    assert list(table["mechanism"]) == [case.name for case in float_cases(1.0)]
    broken = table[table["broken on purpose"]]
    releases = table[~table["broken on purpose"] & (table["runs per dataset"] > 0)]
    assert len(broken) == 2 and len(releases) == len(table) - 3  # one index, not attacked
    assert broken["flagged"].all() and (broken["reachability bound"] > 3.0).all()
    assert not releases["flagged"].any()
    assert (releases[["reachability bound", "granularity bound"]] <= 1.0).all().all()
    assert (releases["P(reachable from D) on D′"] == 1.0).all()
    assert (table.loc[table["runs per dataset"] > 0, "P(reachable from D) on D"] == 1.0).all()
    assert (table.loc[table["runs per dataset"] > 0, "runs per dataset"] == 2000).all()
    assert any("catches numpy's sampler" in s.value for s in at.success)
    assert any("cannot be seeded" in c.value for c in at.caption)
    specs = list(chart_specs(at).values())
    assert len(specs) == 2 and "reachability" in specs[1]
