"""AppTest of the "Choose epsilon" page: every control, the three views and the budget's
composition select box."""

from __future__ import annotations

import math
from functools import partial

import app_support
from app_support import captions, metrics, rerun
from streamlit.testing.v1 import AppTest

from dpcore.composition import pld_interval
from dpcore.planning import (
    COMPOSITION_NAMES,
    COMPOSITIONS,
    TARGET_MECHANISM_NAMES,
    compose,
    epsilon_for_gaussian,
    epsilon_for_laplace,
    gaussian_rho,
    mean_sensitivity,
    posterior_bound,
)

PAGE = "pages/choose_epsilon.py"
TIMEOUT = 240  # the logistic-regression study on wine fits 7 epsilons x 3 folds x restarts

open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT, builtin_name="wine")
show_view = partial(app_support.show_view, key="ce_view")
charts = app_support.chart_ids


def view_table(at: AppTest):
    """The view's last table (the tuning table closes every view: :func:`tuning`)."""
    return [d for d in at.dataframe if "tuned on" not in d.value.columns][-1].value


def tuning(at: AppTest):
    """The page's table of which data each choice was tuned on."""
    (table,) = [d for d in at.dataframe if "tuned on" in d.value.columns]
    return table.value


def target(at: AppTest, name: str) -> AppTest:
    at.selectbox(key="ce_target").set_value(name)
    return rerun(at)


def test_default_view_answers_a_count_target_in_closed_form():
    at = open_page()
    # a count within ±10 in 95 % of releases: ε = ln(20) / 10 = 0.2996
    assert metrics(at)["Smallest ε"] == f"{epsilon_for_laplace(1.0, 10.0):.3g}" == "0.3"
    assert metrics(at)["Uncertainty"] == "none (exact)"
    assert len(charts(at)) == 1 and charts(at)[0].endswith("fig_ce_target")
    text = captions(at)
    assert "more privacy ← → more accuracy" in text
    assert "at ε = 1, a 1 % prior can rise to at most 2.7 %" in text  # the slider's risk line
    assert "no data read" in text


def test_laplace_controls_mean_level_and_error():
    at = open_page()
    at.number_input(key="ce_err_count").set_value(5.0)
    assert metrics(rerun(at))["Smallest ε"] == f"{epsilon_for_laplace(1.0, 5.0):.3g}"
    at.select_slider(key="ce_level").set_value(0.99)
    assert metrics(rerun(at))["Smallest ε"] == f"{epsilon_for_laplace(1.0, 5.0, 0.99):.3g}"
    at.radio(key="ce_query").set_value("mean")
    rerun(at)
    at.number_input(key="ce_low").set_value(17.0)
    at.number_input(key="ce_high").set_value(90.0)
    at.number_input(key="ce_n").set_value(20000)
    at.number_input(key="ce_err_mean").set_value(0.05)
    rerun(at)
    expected = epsilon_for_laplace(mean_sensitivity(20000, 17.0, 90.0), 0.05, 0.99)
    assert metrics(at)["Smallest ε"] == f"{expected:.3g}"


def test_gaussian_target_and_its_delta():
    at = target(open_page(), "gaussian")
    assert metrics(at)["Smallest ε"] == f"{epsilon_for_gaussian(1.0, 10.0, delta=1e-6):.3g}"
    at.select_slider(key="ce_delta").set_value(1e-9)
    rerun(at)
    assert metrics(at)["Smallest ε"] == f"{epsilon_for_gaussian(1.0, 10.0, delta=1e-9):.3g}"
    assert "analytic Gaussian calibration, δ = 1e-09" in captions(at)


def test_out_of_reach_target_says_so_and_shows_the_best_reachable():
    at = target(open_page(), "laplace")
    at.number_input(key="ce_err_count").set_value(0.01)  # needs ε = 300
    rerun(at)
    assert metrics(at)["Smallest ε"] == "none ≤ 10"
    assert any("No ε up to 10 meets the target 0.01" in w.value for w in at.warning)


def test_importance_theory_forms_tails_and_the_public_route():
    at = target(open_page(), "iw_theory")
    assert "non-private references" in captions(at)
    first = metrics(at)
    at.radio(key="ce_kind").set_value("plugin")
    second = metrics(rerun(at))
    at.radio(key="ce_tail").set_value("chebyshev")
    third = metrics(rerun(at))
    assert first != second != third
    at.radio(key="ce_route").set_value("public")
    rerun(at)
    assert "never reads D" not in captions(at)  # the closed form's caption names the stand-in
    assert "of the stand-in" in captions(at)
    at.select_slider(key="ce_lambda").set_value(1.0)
    at.number_input(key="ce_err_iw").set_value(0.2)
    rerun(at)
    assert len(charts(at)) == 1


def test_importance_monte_carlo_shows_runs_and_interval():
    at = target(open_page(), "iw_mc")
    shown = metrics(at)
    assert shown["Runs per ε"] == "100"
    assert "non-private" in captions(at) and "not a release" in captions(at)
    at.select_slider(key="ce_reps").set_value(50)
    at.number_input(key="ce_err_iw").set_value(0.1)
    rerun(at)
    assert metrics(at)["Runs per ε"] == "50"
    at.radio(key="ce_route").set_value("public")
    rerun(at)
    assert "never reads D" in captions(at)
    at.number_input(key="ce_seed").set_value(3)
    rerun(at)
    assert len(charts(at)) == 1


def test_logistic_regression_target_runs_when_asked():
    at = target(open_page(), "lr")
    assert not charts(at) and any("switch it on" in i.value for i in at.info)
    at.select_slider(key="ce_restarts").set_value(3)
    at.toggle(key="ce_run_lr").set_value(True)
    at.number_input(key="ce_err_lr").set_value(0.3)
    rerun(at)
    assert len(charts(at)) == 1 and metrics(at)["Runs per ε"] == "9"  # 3 folds x 3 restarts
    # studied on D (the default route): the answer is tuned on D and refused as a choice
    refused = [w.value for w in at.warning if w.value.startswith("Refused as a choice")]
    assert len(refused) == 1 and "public stand-in" in refused[0]
    table = tuning(at)
    assert table["tuned on"].tolist() == ["private data", "public set"]
    assert table["cost"].tolist() == ["refused", "free"]
    assert "target\\): **private data** (refused)" in captions(at)  # md() escapes the ( )
    at.radio(key="ce_route").set_value("public")
    rerun(at)
    assert not [w for w in at.warning if w.value.startswith("Refused as a choice")]
    assert tuning(at)["tuned on"].tolist() == ["public set", "public set"]


def test_subset_target_runs_when_asked():
    at = target(open_page(), "subset")
    assert not charts(at)
    at.select_slider(key="ce_sub_reps").set_value(1)
    at.toggle(key="ce_run_sub").set_value(True)
    at.number_input(key="ce_err_sub").set_value(3.0)
    rerun(at)
    assert len(charts(at)) == 1 and metrics(at)["Runs per ε"] == "1"


def test_risk_view_prior_delta_and_the_slider():
    at = show_view(open_page(), "ε as risk")
    assert sorted(c.rsplit("-", 1)[1] for c in charts(at)) == ["fig_ce_deployments",
                                                               "fig_ce_risk"]
    expected = f"{100 * posterior_bound(0.01, 1):.2f} %"
    assert metrics(at)["At most, after one ε = 1 release"] == expected
    at.select_slider(key="ce_prior").set_value(0.1)
    at.select_slider(key="ce_risk_delta").set_value(1e-3)
    at.select_slider(key="ce_epsilon").set_value(2.0)
    rerun(at)
    shown = metrics(at)
    assert shown["At most, after one ε = 2 release"] == f"{100 * posterior_bound(0.1, 2):.2f} %"
    assert shown["(ε, δ) = (2, 0.001), expected"] == \
        f"{100 * posterior_bound(0.1, 2, 1e-3):.2f} %"
    assert "at ε = 2, a 1 % prior can rise to at most 6.9 %" in captions(at)


def test_composition_view_compares_the_three_methods():
    at = show_view(open_page(), "Composition")
    shown = metrics(at)
    # the default plan: 100 Laplace at 0.05, 4 Gaussian at (0.5, 1e-6), 1 importance at 0.1
    assert shown["sequential"] == "ε = 7.1"
    eps, deltas = [0.05] * 100 + [0.5] * 4 + [0.1], [0] * 100 + [1e-6] * 4 + [0]
    advanced = compose(eps, deltas, "advanced", 1e-6)
    assert shown["advanced"] == f"ε = {advanced[0]:.3g}" and advanced[0] < 7.1
    rho = [None] * 100 + [gaussian_rho(0.5, 1e-6)] * 4 + [None]
    assert shown["zCDP"] == f"ε = {compose(eps, deltas, 'zcdp', 1e-6, rhos=rho)[0]:.3g}"
    # Each method by its name, not its code, with a badge short enough not to be cut.
    assert list(shown) == [COMPOSITION_NAMES[method] for method in COMPOSITIONS]
    assert {m.proto.delta for m in at.metric} == {"over budget 1"}
    assert view_table(at)["method"].tolist() == list(shown)
    # No "None" in the plan's empty cells (the part of the rows each release reads).
    (editor,) = [el for el in at.dataframe if el.proto.editing_mode]
    assert editor.proto.placeholder == ""
    assert len(charts(at)) == 2
    assert "Nothing was spent" in captions(at)
    # the PLD total as an interval beside its point value, in the caption and the table
    got = pld_interval(eps, deltas, 1e-6, rhos=rho, mechanisms=["Laplace"] * 100
                       + ["Gaussian"] * 4 + ["Importance weights"])
    assert shown[COMPOSITION_NAMES["pld"]] == f"ε = {got.point:.3g}"
    assert (f"{got.optimistic:.5g} (optimistic, every loss rounded down) ≤ **{got.point:.5g}** "
            f"(point, connect-the-dots) ≤ {got.pessimistic:.5g} (pessimistic") in captions(at)
    table = view_table(at).set_index("method")
    assert table.loc[COMPOSITION_NAMES["pld"], "ε, pessimistic (PLD)"] == got.pessimistic
    assert table["ε, optimistic (PLD)"].isna().sum() == len(COMPOSITIONS) - 1
    at.select_slider(key="ce_slack").set_value(1e-9)
    at.toggle(key="ce_with_ledger").set_value(True)
    rerun(at)
    assert metrics(at)["sequential"] == "ε = 7.1"  # an empty ledger adds nothing
    assert metrics(at)["advanced"] != shown["advanced"]  # a smaller δ′ costs more ε


def test_budget_sidebar_composition_select_box():
    # The filter is chosen while nothing is released, then fixed (issue 33: a filter switched
    # after releases adds up both filters' δ); the test switched it after 30 releases before.
    at = open_page()
    acc = at.session_state["_budget_accountant"]
    at.selectbox(key="budget_composition").set_value("zcdp")
    rerun(at)
    assert acc.composition == ("zcdp", 1e-6) and acc.budget == (1.0, 1e-6)
    assert "Bun & Steinke" in captions(at)
    at.select_slider(key="budget_delta_slack").set_value(1e-5)
    rerun(at)
    assert acc.composition == ("zcdp", 1e-5) and acc.budget[1] == 1e-5
    at.selectbox(key="budget_composition").set_value("sequential")
    rerun(at)
    assert acc.composition[0] == "sequential"
    at.selectbox(key="budget_composition").set_value("zcdp")
    rerun(at)
    for _ in range(30):
        acc.spend(0.03, mechanism="Laplace", dataset="wine")
    rerun(at)
    total = compose([0.03] * 30, method="zcdp", delta_slack=1e-5)
    assert any(f"total ε = {total[0]:.3g} of 1 in 30 releases (zcdp" in p.proto.text
               for p in at.get("progress"))
    assert not [box for box in at.selectbox if box.key == "budget_composition"]  # fixed now
    assert "Releases are refused by: **zCDP filter" in captions(at)
    assert "δ′ = 1e-05 of the δ budget" in captions(at)
    assert not math.isnan(acc.total("advanced")[0])


def test_several_statistics_view_plans_every_target_and_splits_a_total():
    at = show_view(open_page(), "Several statistics")
    shown = metrics(at)
    # the default table: a count (±10) and a mean (Δ = 0.1, ±1) by Laplace at 95 %, a sum by
    # the Gaussian at δ = 1e-6, and a model fixed at ε = 0.5 by its study
    laplace = epsilon_for_laplace(1.0, 10.0)
    gaussian = epsilon_for_gaussian(100.0, 2000.0, 0.95, delta=1e-6)
    sequential = 2 * laplace + gaussian + 0.5
    assert shown["sequential"] == f"ε = {sequential:.3g}"
    assert list(shown) == [COMPOSITION_NAMES[method] for method in COMPOSITIONS]
    pld = COMPOSITION_NAMES["pld"]
    assert float(shown[pld].split("= ")[1]) < sequential  # PLD counts Laplace by its curve
    # its PLD total as an interval beside the point value (the one shown above)
    line = [c.value for c in at.caption if "as an interval" in c.value]
    assert len(line) == 1 and f"**{shown[pld].split('= ')[1]}" in line[0]
    assert [c.rsplit("-", 1)[-1] for c in charts(at)] == ["fig_ce_stats_totals",
                                                           "fig_ce_stats_split"]
    table = view_table(at)  # the plan (the first is the editor)
    assert table["epsilon"].round(6).tolist()[:2] == [round(laplace, 6)] * 2
    assert table["meets"].all()
    assert table["mechanism"].tolist()[-1] == TARGET_MECHANISM_NAMES["fixed"]
    assert all(el.proto.placeholder in ("", "—") for el in at.dataframe)
    at.toggle(key="ce_stats_split").set_value(True)
    rerun(at)
    at.number_input(key="ce_stats_total").set_value(1.0)
    rerun(at)
    split = view_table(at)
    assert not split["meets"].all()
    assert any("within" in w.value and "Not every target" in w.value for w in at.warning)
