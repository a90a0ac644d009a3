"""AppTest of the privacy-audit page: one mechanism, the table, a fault, the one-run audit, the
floating-point attacks."""

from __future__ import annotations

import json
from functools import partial

import app_support
import pytest
from app_support import chart_specs, metrics

from dpcore import audit as A
from dpcore.audit_float import float_cases
from dpcore.releases.catalogue import (
    BROKEN_KEYS,
    CASE_KEYS,
    ONE_RUN_KEYS,
    audit_case,
    one_run_case,
)

PAGE = "pages/audit.py"
TIMEOUT = 120

# A flagged fault is an st.error on this page: rerun checks for exceptions only.
open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT, allow_errors=True)
rerun = partial(app_support.rerun, allow_errors=True)


def curve_names(at) -> list[str]:
    """The names of the traces of the trade-off figure (the page's second chart)."""
    spec = json.loads(list(chart_specs(at).values())[1])
    return [trace.get("name", "") for trace in spec["data"]]


def test_page_opens_on_a_correct_mechanism_below_its_claim():
    at = open_page(au_runs=3000)
    shown = metrics(at)
    assert shown["Claimed ε"] == "1"
    assert float(shown["Audited lower bound"]) <= 1.0
    assert shown["Runs per dataset"] == "3,000"
    assert not at.error and len(at.success) == 1
    assert len(at.get("plotly_chart")) == 2
    assert any("not releases" in c.value for c in at.caption)


def test_claim_audited_bound_and_gap_side_by_side_with_the_curve():
    at = open_page(au_runs=3000)
    shown = metrics(at)
    labels = list(shown)
    i = labels.index("Claimed ε")
    assert labels[i:i + 3] == ["Claimed ε", "Audited lower bound", "Gap (claimed − audited)"]
    gap = float(shown["Gap (claimed − audited)"])
    assert gap == pytest.approx(1.0 - float(shown["Audited lower bound"]), abs=0.011)
    names = curve_names(at)
    assert "claim's curve: Laplace at ε = 1" in names and not any("bug" in n for n in names)
    assert any("Curve: Laplace at ε = 1" in c.value and "found no bug" in c.value
               for c in at.caption)


def test_a_point_above_the_claims_curve_is_shown_as_a_bug():
    at = open_page(au_runs=3000, au_case="laplace_halved")
    assert float(metrics(at)["Gap (claimed − audited)"]) < 0.0
    assert "audit's point significantly above the curve: a bug" in curve_names(at)
    assert any(e.value.startswith("Bug: the test") and "does not hold" in e.value
               for e in at.error)


def test_other_cases_say_which_curve_bounds_them():
    at = open_page(au_runs=1000, au_case="gaussian")
    assert any("Curve: (ε, δ)-DP at ε = 1, δ = 1e-05" in c.value for c in at.caption)
    at = open_page(au_runs=1000, au_case="exponential")
    assert any("Curve: randomised response at ε = 1" in c.value and "worst case" in c.value
               for c in at.caption)


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
    assert (table["gap"] == table["claimed epsilon"] - table["audited lower bound"]).all()
    assert len(at.get("plotly_chart")) == 3
    at.toggle(key="au_broken").set_value(False)
    rerun(at)
    at.button(key="au_run_all").click()
    rerun(at)
    assert len(at.dataframe[0].value) == len(CASE_KEYS) - len(BROKEN_KEYS)


def test_one_run_audit_of_every_release_beside_its_many_run_bound_with_its_cost():
    at = open_page(au_runs=1000, au_canaries=50)
    assert not any("**One run**" in m.value for m in at.markdown)
    at.button(key="au_one_run").click()
    rerun(at)
    table = at.dataframe[0].value
    assert list(table["release"]) == [one_run_case(k, 1.0, 50).name for k in ONE_RUN_KEYS]
    assert (table["claimed epsilon"] == 1.0).all()
    assert (table["one-run bound"] <= 1.0).all() and (table["many-run bound"] <= 1.0).all()
    assert (table["many-run runs"] == 2000).all() and (table["one-run runs"] == 1).all()
    assert (table["one-run seconds"] > 0).all() and (table["many-run seconds"] > 0).all()
    assert (table["right guesses"].str.endswith("/ 10")).all()
    assert not at.error
    assert any("**One run** (50 canaries" in m.value for m in at.markdown)


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
    assert len(specs) == 3 and "reachability" in specs[2]


def test_sensitivity_checks_of_every_release_behind_a_button():
    # issue 37: every release within its declared sensitivity, every broken variant caught
    at = open_page()
    assert not any("Every release within" in s.value for s in at.success)
    at.select_slider(key="au_sens_pairs").set_value(100)
    at.button(key="au_sens_run").click()
    rerun(at)
    table = next(d.value for d in at.dataframe if "branches_differ" in d.value.columns)
    assert len(table) == len(A.release_names())
    broken = table["name"].str.endswith("(broken)")
    assert broken.any() and table.loc[~broken, "ok"].all() and not table.loc[broken, "ok"].any()
    assert (table["batch_differs"] == 0).all()  # the batched probes agree with the releases
    assert any("every broken variant caught" in s.value for s in at.success)
