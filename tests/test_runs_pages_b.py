"""Runs of the subset, masking, audit and choose-epsilon pages reproduce the pages (issue 12).

Each test opens a page in AppTest with non-default controls and a non-default seed, reads what
it shows (the metrics as displayed, and every figure's data decoded from the chart JSON), builds
the run config from the session state as "Export this run" does (the sidebar's keys, the page's
CONTROLS and its seed widget, through JSON), runs it with :func:`dpcore.runs.run` and checks that
the numbers are identical: bit for bit for every x and y that reaches a figure (the run's
figures are built from its tables by ``run_figures``), as displayed for the formatted metrics.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import app_support
import numpy as np
import pytest
from app_support import ROOT, metrics, rerun, show_view
from run_support import (
    assert_same_figures,
    config_of,
    numbers_in,
    page_figures,
    run_figures_of,
)

from dpcore.figures import figures
from dpcore.runs import RunConfig, run, script
from dpcore.studies.masking import accuracy_label

TIMEOUT = 180  # seconds per script run (2 shared cores)
EXAMPLES = {"subset": "subset-mvn-shift", "masking": "masking-toy", "audit": "audit-laplace",
            "choose_epsilon": "choose_epsilon-adult"}


# --- optimal subset ------------------------------------------------------------------------------

open_subset = partial(app_support.open_page, "pages/subset.py", timeout=TIMEOUT,
                      builtin_name="mvn-shift")


def _subset_metrics(row) -> dict[str, str]:
    return {"Selected size (repeat 1)": f"{int(row['selected_size_repeat1']):,}",
            "Error here (non-private)": f"{row['error_here_nonprivate']:.3g}",
            "Public only (non-private)": f"{row['public_only_error_nonprivate']:.3g}",
            "ε spent per run": f"{row['epsilon_spent']:.3g}",
            "Sensitivity S of t": f"{row['sensitivity_bound']:.3g}"}


def test_subset_run_reproduces_every_view_of_the_page():
    at = open_subset(sub_grid="Coarse: 13 sizes over all of E", sub_reps=2)
    at.select_slider(key="sub_epsilon").set_value(1.0)
    at.select_slider(key="sub_split").set_value("1 : 1 : 1 (Sect. 5.2)")
    at.radio(key="sub_selection").set_value("noisy-curve")
    at.select_slider(key="sub_lambda").set_value(0.1)
    at.number_input(key="sub_seed").set_value(3)
    rerun(at)
    slider = at.select_slider(key="sub_size")  # inspect another size than the selected one
    slider.set_value(int(next(s for s in slider.options if str(s) != str(slider.value))))
    rerun(at)
    for view in ("Error vs size", "Distance vs size", "Points and weights", "Publish"):
        if view != "Error vs size":
            show_view(at, view, key="sub_view")
        config = config_of(at, "subset")
        assert config.seed == 3 and config.controls["sub_selection"] == "noisy-curve"
        result = run(config)
        row = result.numbers["metrics"].iloc[0]
        assert (row["epsilon1"], row["epsilon3"], row["repeats"]) == (1.0, 1.0, 2)
        assert row["inspected_size"] == config.controls["sub_size"]
        assert metrics(at) == _subset_metrics(row), view
        if view == "Publish":
            assert list(result.numbers) == ["metrics"] and not page_figures(at)
            continue
        assert_same_figures(page_figures(at), run_figures_of(result))
        if view == "Error vs size":  # the released noisy criteria are drawn too
            assert "noisy_criterion_repeat1" in result.numbers["error_curve"]
        if view == "Points and weights":  # the page's tables are the run's
            summary = result.numbers["subset_summary"].iloc[0]
            shown = at.table[-1].value["value"].tolist()
            assert shown[:2] == [f"{int(summary['points_released']):,}",
                                 f"{summary['total_dp_weight']:.3g}"]


# --- data masking ------------------------------------------------------------------------------

open_masking = partial(app_support.open_page, "pages/masking.py", timeout=TIMEOUT,
                       builtin_name="three-gaussians")
DIGITS = "Digits 0, 1, 3: 3 masked by 6 (Fig. 3)"


def _masking_metrics(row) -> dict[str, str]:
    # On a scenario the accuracy is measured on held-out private records: labelled non-private.
    accuracy = "Masked-set model accuracy" + accuracy_label(bool(row["validation_private"]))
    return {"Gradient norm at w′": f"{row['gradient_norm']:.2g}",
            "‖refit − w′‖": f"{row['refit_distance']:.2g}",
            accuracy: f"{row['masked_model_accuracy']:.3f}",
            "Non-private model accuracy": f"{row['nonprivate_model_accuracy']:.3f}"}


def _masking_page(task: str | None = None):
    """ε = 2, λ = 0.2, N = 200, seed 4 (and the experiment ``task``)."""
    at = open_masking(mk_draws=10)
    if task is not None:
        at.selectbox(key="mk_task").set_value(task)
    at.select_slider(key="mk_epsilon").set_value(2.0)
    at.select_slider(key="mk_lambda").set_value(0.2)
    at.select_slider(key="mk_n").set_value(200)
    at.number_input(key="mk_seed").set_value(4)
    return rerun(at)


def _masking_figures(at) -> list[list[dict]]:
    """The page's figures, with its scatter panels (one chart each) joined into the one figure
    of three panels that a run writes."""
    ids = [chart_id.rsplit("-", 1)[-1] for chart_id in app_support.chart_ids(at)]
    shown = page_figures(at)
    panels = [fig for key, fig in zip(ids, shown, strict=True) if key.startswith("fig_scatter_")]
    rest = [fig for key, fig in zip(ids, shown, strict=True) if not key.startswith("fig_scatter_")]
    return ([sum(panels, [])] if panels else []) + rest


def _check_masking(at) -> object:
    config = config_of(at, "masking")
    assert config.seed == 4 and config.controls["mk_n"] == 200
    result = run(config)
    assert metrics(at) == _masking_metrics(result.numbers["metrics"].iloc[0])
    assert_same_figures(_masking_figures(at), run_figures_of(result))
    return result


def test_masking_run_reproduces_the_toy_views():
    at = _masking_page()
    at.toggle(key="mk_input").set_value(True)
    result = _check_masking(rerun(at))  # masked vs original, input-perturbed records, regions
    assert {"regions", "private_points_nonprivate", "input_perturbed_points"} <= set(
        result.numbers)
    at.toggle(key="mk_alone").set_value(True)
    result = _check_masking(rerun(at))
    assert "private_points_nonprivate" not in result.numbers  # the recipient's view
    at.toggle(key="mk_alone").set_value(False)
    at.radio(key="mk_initial").set_value("Empty")
    at.toggle(key="mk_bounded").set_value(False)
    _check_masking(rerun(at))
    for view in ("Greedy animation", "Accuracy vs ε"):
        result = _check_masking(show_view(at, view, key="mk_view"))
    assert set(result.numbers) == {"metrics", "accuracy_N100", "accuracy_N200"}
    assert (result.numbers["accuracy_N200"]["n_draws"] == 10).all()


def test_masking_run_reproduces_the_digit_images():
    at = show_view(_masking_page(DIGITS), "Digit images", key="mk_view")
    result = _check_masking(at)
    assert len(page_figures(at)) == 4 and "private_images_nonprivate" in result.numbers


def test_masking_run_on_the_sidebar_scenario_rebuilds_it_from_the_config():
    at = _masking_page("Sidebar scenario (its binary target)")
    config = config_of(at, "masking")
    assert config.scenario["builtin_name"] == "three-gaussians"
    result = _check_masking(at)
    assert result.numbers["metrics"].iloc[0]["private_records"] == 77  # 70 % of D's 110


# --- privacy audit ------------------------------------------------------------------------------

def test_audit_run_reproduces_the_page():
    at = app_support.open_page("pages/audit.py", timeout=TIMEOUT, builtin_name="wine")
    at.selectbox(key="au_case").set_value("gaussian")
    at.select_slider(key="au_epsilon").set_value(2.0)
    at.select_slider(key="au_runs").set_value(1000)
    at.select_slider(key="au_confidence").set_value(0.9)
    at.number_input(key="au_seed").set_value(6)
    rerun(at, allow_errors=True)
    config = config_of(at, "audit")
    assert config.seed == 6 and config.controls["au_case"] == "gaussian"
    result = run(config)
    row = result.numbers["metrics"].iloc[0]
    assert metrics(at) == {"Claimed ε": f"{row['claimed_epsilon']:g}",
                           "Audited lower bound": f"{row['audited_lower_bound']:.2f}",
                           "Pair's share f of the sensitivity": f"{row['f']:.2f}",
                           "Runs per dataset": f"{int(row['runs_per_dataset']):,}"}
    page, ran = page_figures(at), run_figures_of(result)
    assert_same_figures(page[:1], ran)  # the histogram (the summary needs its button)
    scores = result.numbers["scores"]
    assert np.array_equal(np.sort(page[0][0]["x"]), np.sort(np.clip(
        scores.loc[scores["dataset"] == "D", "score"], *np.quantile(scores["score"],
                                                                    [0.002, 0.998]))))


# --- choose epsilon -----------------------------------------------------------------------------

open_choose = partial(app_support.open_page, "pages/choose_epsilon.py", timeout=TIMEOUT,
                      builtin_name="wine")


def _answer_metrics(row) -> dict[str, str]:
    """The answer panel's metrics as the page formats them, from the run's metrics row."""
    shown = {}
    if row["met"]:
        shown["Smallest ε"] = f"{row['smallest_epsilon']:.3g}"
        shown["Risk at that ε"] = f"1 % → {100 * row['risk_of_1pct_prior']:.1f} %"
    else:
        shown["Smallest ε"] = "none ≤ 10"
        shown["Best reachable"] = f"{row['achieved']:.3g}"
    if row["runs_per_epsilon"]:
        if np.isfinite(row["interval_low"]):
            high = ("not met ≤ 10" if np.isinf(row["interval_high"])
                    else f"{row['interval_high']:.3g}")
            shown["90 % interval"] = f"{row['interval_low']:.3g} – {high}"
        shown["Runs per ε"] = f"{int(row['runs_per_epsilon'])}"
    else:
        shown["Uncertainty"] = "none (exact)"
        shown["Source"] = row["source"].split(":")[0]
    return shown


def _check_choose(at, *, risk_labels: bool = False) -> object:
    config = config_of(at, "choose_epsilon")
    assert config.seed == 9
    result = run(config)
    if not risk_labels:
        assert {m.label: m.value for m in at.metric if m.label != "Budget"} \
            == _answer_metrics(result.numbers["metrics"].iloc[0])
    assert_same_figures(page_figures(at), run_figures_of(result))
    return result


def _choose_page():
    at = open_choose()
    at.select_slider(key="ce_epsilon").set_value(2.0)
    at.number_input(key="ce_seed").set_value(9)
    return rerun(at)


def test_choose_epsilon_closed_form_targets_match_the_page():
    at = _choose_page()
    at.selectbox(key="ce_target").set_value("gaussian")
    at.select_slider(key="ce_level").set_value(0.9)
    rerun(at)
    at.radio(key="ce_query").set_value("mean")
    rerun(at)
    at.number_input(key="ce_n").set_value(500)
    at.number_input(key="ce_err_mean").set_value(0.3)
    at.select_slider(key="ce_delta").set_value(1e-5)
    result = _check_choose(rerun(at))
    row = result.numbers["metrics"].iloc[0]
    assert (row["delta"], row["level"], row["sensitivity"]) == (1e-5, 0.9, 100.0 / 500)


@pytest.mark.parametrize("target, route", [("iw_mc", "public"), ("iw_theory", "private"),
                                           ("lr", "private"), ("subset", "public")])
def test_choose_epsilon_data_targets_match_the_page(target, route):
    at = _choose_page()
    at.selectbox(key="ce_target").set_value(target)
    rerun(at)
    at.radio(key="ce_route").set_value(route)
    if target.startswith("iw"):
        at.select_slider(key="ce_reps").set_value(20)
        at.select_slider(key="ce_lambda").set_value(0.3)
        at.number_input(key="ce_err_iw").set_value(0.2)
    elif target == "lr":
        at.select_slider(key="ce_restarts").set_value(3)
        at.toggle(key="ce_run_lr").set_value(True)
    else:
        at.select_slider(key="ce_sub_reps").set_value(1)
        at.toggle(key="ce_run_sub").set_value(True)
    result = _check_choose(rerun(at))
    curve = "curve_nonprivate" if route == "private" else "curve"
    assert curve in result.numbers and result.numbers["metrics"].iloc[0]["route"] == route


def test_choose_epsilon_risk_and_composition_views_match_the_page():
    at = show_view(_choose_page(), "ε as risk", key="ce_view")
    at.select_slider(key="ce_prior").set_value(0.05)
    at.select_slider(key="ce_risk_delta").set_value(1e-4)
    result = _check_choose(rerun(at), risk_labels=True)
    row = result.numbers["metrics"].iloc[0]
    assert metrics(at)["At most, after one ε = 2 release"] \
        == f"{100 * row['posterior_at_most']:.2f} %"
    assert metrics(at)["(ε, δ) = (2, 0.0001), expected"] \
        == f"{100 * row['posterior_expected_with_delta']:.2f} %"
    show_view(at, "Composition", key="ce_view")
    at.select_slider(key="ce_slack").set_value(1e-8)
    at.number_input(key="budget_epsilon").set_value(5.0)
    result = _check_choose(rerun(at), risk_labels=True)
    table = result.numbers["composition"]
    shown = metrics(at)
    for method, total in zip(table["method"], table["epsilon"], strict=True):
        assert shown[method] == f"ε = {total:.3g}"
    assert result.numbers["metrics"].iloc[0]["budget"] == 5.0


# --- examples, takeaways and the exported script ------------------------------------------------

@pytest.mark.parametrize("page", list(EXAMPLES))
def test_example_config_runs_and_its_takeaway_quotes_its_numbers(page):
    config = RunConfig.load(ROOT / "examples" / f"{EXAMPLES[page]}.json")
    assert config.page == page
    result = run(config)
    assert result.numbers and all(not table.empty for table in result.numbers.values())
    assert figures(result) and all(fig.data for fig in figures(result).values())
    text = result.takeaway()
    assert text.count(". ") == 1 and text.endswith(".")
    words = numbers_in(text)
    row = result.numbers["metrics"].iloc[0]
    if page == "subset":
        curve = result.numbers["error_curve"]
        best = curve["dp_error_mean_nonprivate"].min()
        assert {f"{int(row['selected_size_repeat1']):,}", f"{best:.3g}",
                f"{row['public_only_error_nonprivate']:.3g}"} <= words
    elif page == "masking":
        assert {f"{row['masked_model_accuracy']:.3f}",
                f"{row['nonprivate_model_accuracy']:.3f}"} <= words
    elif page == "audit":
        assert config.controls["au_runs"] == 1000
        assert {f"{row['audited_lower_bound']:.2f}", f"{row['limit_on_this_pair']:.2f}"} <= words
    else:
        assert {f"{row['smallest_epsilon']:.3g}",
                f"{100 * row['risk_of_1pct_prior']:.1f}"} <= words


@pytest.mark.parametrize("page, controls, other", [
    ("subset", {"sub_grid": "Coarse: 13 sizes over all of E", "sub_reps": 1},
     {"sub_epsilon": 0.3}),
    ("masking", {"mk_view": "Accuracy vs ε", "mk_draws": 3}, {"mk_lambda": 0.05}),
    ("audit", {"au_case": "laplace_halved", "au_runs": 1000}, {"au_epsilon": 0.3}),
    ("choose_epsilon", {"ce_view": "ε as risk"}, {"ce_epsilon": 0.3}),
    ("choose_epsilon", {"ce_view": "Composition"}, {"budget_epsilon": 20.0}),
])
def test_takeaways_are_computed_from_the_numbers(page, controls, other):
    config = RunConfig(page, {"builtin_name": "mvn-shift"}, controls, 1)
    first, second = run(config), run(config.with_controls(**other))
    assert first.takeaway().count(". ") == 1
    assert first.takeaway() != second.takeaway()  # nothing canned


def test_exported_script_prints_the_same_numbers_in_a_fresh_process(tmp_path: Path):
    config = RunConfig.load(ROOT / "examples" / "audit-laplace.json")
    path = tmp_path / "rerun.py"
    path.write_text(script(config), encoding="utf-8")
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         cwd=tmp_path, check=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    expected = run(config)
    for name, table in expected.numbers.items():
        assert f"## {name}\n{table.to_csv(index=False)}" in out
    assert expected.takeaway() in out
