"""AppTest of the mechanism primer: defaults, controls, bounds (never from D), run = page."""

from __future__ import annotations

import json
from functools import partial

import app_support
import pytest
from app_support import DATA, captions, changed_charts, chart_specs, metrics, rerun
from streamlit.testing.v1 import AppTest

from dpcore.figures.primer import figures
from dpcore.mechanisms import Gaussian, Laplace
from dpcore.primer import default_bounds
from dpcore.primer.coverage import derived_study
from dpcore.runs import run
from dpcore.studies import primer as primer_study
from dpcore.text import md as escape

PAGE = "pages/primer.py"
TIMEOUT = 120

open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT)


def config_of(at) -> dict:
    """The run config of what the page shows (as "Export this run" writes it)."""
    state = at.session_state
    controls = {k: state[k] for k in primer_study.CONTROLS if k in state}
    scenario = {k: state[k] for k in ("source", "builtin_name", "builtin_public",
                                      "builtin_encoding", "builtin_p", "builtin_shift", "seed")
                if k in state}
    return {"format": "privacy-utility-explorer/run", "version": 1, "page": "primer",
            "scenario": scenario, "controls": controls, "seed": int(state["pr_seed"])}


def test_default_page_on_adult():
    at = open_page()
    shown = metrics(at)
    raw = at.session_state["scenario"].raw_private
    assert shown["Sensitivity"] == "1"
    assert shown["True answer (non-private)"] == f"{(raw['income'] == '>50K').sum():,}"
    # The 95 % half-widths are the mechanisms' tail bounds at the slider's epsilon = 0.1.
    assert shown["Laplace: 95 % of answers within"] == f"±{Laplace(0.1, 1).tail_bound(0.95):,.4g}"
    assert shown["Gaussian (analytic): 95 % of answers within"] == \
        f"±{Gaussian(0.1, 1e-6, 1).tail_bound(0.95):,.4g}"
    assert shown["Laplace answers"] == "10"  # total 1 / 0.1 each
    assert len(chart_specs(at)) == 2
    text = captions(at)
    assert "seeded simulation (not a release" in text
    assert text.count("more privacy ← → more accuracy") == 2  # both epsilon sliders
    assert "non-private" in text and "replace one record" in text
    assert any(escape("count of records with income == >50K") in m.value for m in at.markdown)


def test_page_numbers_equal_the_runs_numbers():
    at = open_page()
    at.radio(key="pr_kind").set_value("mean")
    rerun(at)
    at.select_slider(key="pr_epsilon").set_value(0.5)
    at.number_input(key="pr_seed").set_value(7)
    rerun(at)
    result = run(config_of(at))
    summary = result.numbers["mechanisms"].set_index("mechanism")
    info = result.numbers["query"].iloc[0]
    shown = metrics(at)
    assert info["label"] == "mean of age clipped to [17, 90]"  # the public set's range
    assert shown["Sensitivity"] == f"{info['sensitivity']:,.4g}" == f"{73 / 20688:,.4g}"
    for key, name in (("laplace", "Laplace"), ("gaussian_classic", "Gaussian (classic)")):
        assert shown[f"{name}: 95 % of answers within"] == \
            f"±{summary.loc[key, 'half_width']:,.4g}"
    # The figure holds the run's draws (same seed, same streams): its histograms are those of
    # the run's figure, bar for bar.
    spec = next(v for k, v in chart_specs(at).items() if k.endswith("fig_answers"))
    shown_bars = [t for t in json.loads(spec)["data"] if t.get("type") == "bar"]
    run_bars = [t for t in figures(result.numbers, result.params)["answers"].data
                if t.type == "bar"]
    assert len(shown_bars) == len(run_bars) == 3
    for page_bar, run_bar in zip(shown_bars, run_bars, strict=True):
        assert _values(page_bar["y"]) == pytest.approx(list(run_bar.y), abs=1e-12)


def _values(data) -> list[float]:
    """Plotly's JSON may hold an array as a list or as {"dtype", "bdata"} (base64)."""
    if isinstance(data, dict):
        import base64

        import numpy as np

        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"]).tolist()
    return list(data)


def test_bounds_from_the_private_data_are_refused_and_public_ones_are_offered():
    at = open_page(builtin_name="wine")
    at.radio(key="pr_kind").set_value("sum")
    rerun(at)
    at.selectbox(key="pr_column").set_value("alcohol")
    rerun(at)
    scenario = at.session_state["scenario"]
    assert (at.number_input(key="pr_low").value, at.number_input(key="pr_high").value) == \
        scenario.bounds["alcohol"]
    at.number_input(key="pr_low").set_value(12.0)
    rerun(at)
    at.button(key="pr_from_private").click()
    rerun(at, allow_errors=True)
    assert any("never taken from the private data" in e.value for e in at.error)
    assert at.number_input(key="pr_low").value == 12.0  # unchanged
    at.button(key="pr_from_public").click()
    rerun(at)
    raw = scenario.raw_public["alcohol"]
    assert (at.number_input(key="pr_low").value, at.number_input(key="pr_high").value) == \
        (raw.min(), raw.max())
    at.button(key="pr_from_scaling").click()
    rerun(at)
    assert at.number_input(key="pr_low").value == scenario.bounds["alcohol"][0]


def test_bad_bounds_are_said_and_nothing_is_drawn():
    at = open_page(builtin_name="wine")
    at.radio(key="pr_kind").set_value("mean")
    rerun(at)
    at.number_input(key="pr_low").set_value(20.0)
    at.run()
    assert any("must be larger than the lower bound" in e.value for e in at.error)
    assert not chart_specs(at)


def test_mean_under_add_remove_is_refused_with_the_reason():
    at = open_page(builtin_name="wine")
    at.radio(key="pr_kind").set_value("mean")
    rerun(at)
    at.radio(key="pr_relation").set_value("add_remove")
    at.run()
    assert any("denominator" in e.value for e in at.error)
    # step 7 has its own answer for a mean under add/remove (a noisy sum over a noisy count)
    assert at.selectbox(key="pr_derived").value == "mean"
    assert "held the true value" in captions(at)
    at.radio(key="pr_kind").set_value("sum")
    rerun(at)  # a sum is fine under add/remove: sensitivity max(|low|, |high|)
    assert "add or remove one record" in captions(at)


def test_classic_gaussian_is_not_available_at_epsilon_one():
    at = open_page(builtin_name="wine")
    at.select_slider(key="pr_epsilon").set_value(1.0)
    rerun(at)
    assert metrics(at)["Gaussian (classic)"] == "not available"
    assert "proven only for ε < 1" in captions(at)


def test_total_budget_counts_the_answers():
    at = open_page(builtin_name="wine")
    at.select_slider(key="pr_total").set_value(0.3)
    rerun(at)
    assert metrics(at)["Laplace answers"] == "3"
    at.select_slider(key="pr_total_delta").set_value(1e-6)
    rerun(at)
    assert metrics(at)["Gaussian (analytic) answers"] == "1"  # delta 1e-6 each, 1e-6 in all
    assert metrics(at)["Laplace answers"] == "3"


@pytest.mark.parametrize("key, value", [("pr_epsilon", 1.0), ("pr_delta", 1e-4),
                                        ("pr_draws", 1000), ("pr_seed", 3)])
def test_each_control_redraws_the_figures(key, value):
    at = open_page(builtin_name="wine")
    widget = at.number_input(key=key) if key == "pr_seed" else at.select_slider(key=key)
    changed = changed_charts(at, widget, value)
    assert any(k.endswith("fig_answers") for k in changed), f"{key} changed no figure"


def test_the_exponential_column_can_be_chosen():
    at = open_page()
    assert at.selectbox(key="pr_choice_column").value == "occupation"  # the closest race in E
    at.selectbox(key="pr_choice_column").set_value("race")
    rerun(at)
    spec = next(v for k, v in chart_specs(at).items() if k.endswith("fig_choice"))
    assert "Amer-Indian-Eskimo" in spec


def test_count_over_a_numeric_threshold_starts_at_the_public_median():
    at = open_page(builtin_name="mvn-shift")
    at.selectbox(key="pr_column").set_value("x1")
    rerun(at)
    scenario = at.session_state["scenario"]
    median = float(scenario.raw_public["x1"].median())
    assert at.number_input(key="pr_threshold").value == pytest.approx(median, abs=1e-6)
    expected = (scenario.raw_private["x1"] >= at.number_input(key="pr_threshold").value).sum()
    assert metrics(at)["True answer (non-private)"] == f"{expected:,}"


@pytest.mark.parametrize("state", [
    {"builtin_name": "three-gaussians", "builtin_public": "uniform"},
    {"builtin_name": "breast-cancer", "builtin_public": "bootstrap"},
    {"builtin_name": "digits"},
], ids=lambda s: "-".join(s.values()))
def test_page_runs_on_other_scenarios(state):
    at = open_page(**state)
    assert len(chart_specs(at)) == 2
    at.radio(key="pr_kind").set_value("mean")
    rerun(at)
    assert len(chart_specs(at)) == 2


def test_page_on_an_upload():
    at = app_support.start(timeout=TIMEOUT, builtin_name="wine")
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_public").set_value(
        ("public.csv", (DATA / "valid_public.csv").read_bytes(), "text/csv"))
    at.file_uploader(key="upload_private").set_value(
        ("private.csv", (DATA / "valid_private.csv").read_bytes(), "text/csv"))
    rerun(at)
    at.switch_page(PAGE)
    rerun(at)
    assert len(chart_specs(at)) >= 1


def test_a_link_restores_every_control_including_typed_bounds():
    params = {"pr_kind": "mean", "pr_column": "hours-per-week", "pr_low": "10", "pr_high": "60",
              "pr_relation": "replace", "pr_epsilon": "0.5", "pr_delta": "1e-05",
              "pr_draws": "1000", "pr_total": "2.0", "pr_total_delta": "0.0001",
              "pr_choice_column": "race", "pr_seed": "4"}
    at = AppTest.from_file(str(app_support.ROOT / "app.py"), default_timeout=TIMEOUT)
    at.switch_page(PAGE)
    for key, value in params.items():
        at.query_params[key] = value
    rerun(at.run())
    assert at.radio(key="pr_kind").value == "mean"
    assert at.selectbox(key="pr_column").value == "hours-per-week"
    # The typed bounds survive the first visit (they are not reset to the public range).
    assert (at.number_input(key="pr_low").value, at.number_input(key="pr_high").value) == \
        (10.0, 60.0)
    assert at.select_slider(key="pr_epsilon").value == 0.5
    assert at.select_slider(key="pr_total").value == 2.0
    assert at.selectbox(key="pr_choice_column").value == "race"
    assert at.number_input(key="pr_seed").value == 4
    label = escape("mean of hours-per-week clipped to [10, 60]")
    assert any(label in m.value for m in at.markdown)
    assert metrics(at)["Laplace answers"] == "4"


def test_derived_statistics_show_their_interval_and_measured_coverage():
    at = open_page(builtin_name="wine")
    state = at.session_state
    assert at.selectbox(key="pr_derived").value == "mean"
    column = at.selectbox(key="pr_derived_column").value
    low, high, _ = default_bounds(state["scenario"], column)
    values = state["scenario"].raw_private[column].to_numpy(dtype=float)
    expected = derived_study("mean", values, epsilon=0.1, delta=1e-6, bounds=(low, high),
                             relation="replace", runs=10_000, seed=int(state["pr_seed"]))
    shown = metrics(at)
    for row in expected.itertuples():  # the page shows the library's study
        assert shown[f"{row.name}: one simulated answer"] == f"{row.simulated_answer:,.4g}"
    text = captions(at)
    assert f"[{expected['low'].iloc[0]:,.4g}, {expected['high'].iloc[0]:,.4g}]" in text
    assert f"held the true value {100 * expected['coverage'].iloc[0]:.1f} %" in text
    assert "seeded simulation (not a release; no budget is spent)" in text
    assert "(non-private)" in text and "sampling adds up to" in text
    # A difference of group means under add/remove: four noisy parts, a page without error.
    at.radio(key="pr_relation").set_value("add_remove")
    at.selectbox(key="pr_derived").set_value("difference")
    rerun(at)
    (table,) = [d.value for d in at.dataframe if "parts" in d.value.columns]
    assert list(table["parts"]) == ["sum of A, count of A, sum of B, count of B"] * 2
    assert table["coverage"].between(0.9, 1.0).all()
    assert "Group A:" in captions(at)


def test_a_published_answer_shows_its_interval():
    at = open_page(builtin_name="wine")
    at.button(key="publish_primer").click()
    rerun(at)
    (table,) = [d.value for d in at.dataframe if "low_95" in d.value.columns]
    number = [float(str(v).replace(",", "")) for v in table.iloc[0][["answer", "low_95",
                                                                      "high_95"]]]
    answer, low, high = number
    half = Laplace(0.1, 1.0).tail_bound(0.95)  # a count at the page's epsilon
    assert low == pytest.approx(answer - half, abs=1.0) and high == pytest.approx(answer + half,
                                                                                  abs=1.0)
    assert "95 % interval for the noise" in captions(at)


def test_a_published_derived_statistic_shows_its_interval_and_its_spend():
    at = open_page(builtin_name="wine")
    at.button(key="publish_primer_derived").click()
    rerun(at)
    (table,) = [d.value for d in at.dataframe if "low_95" in d.value.columns
                and "noisy_part" in d.value.columns]
    assert list(table["part"]) == ["sum"]  # a mean under replace one record: n is public
    low, estimate, high = (float(str(table.iloc[0][k]).replace(",", ""))
                           for k in ("low_95", "estimate", "high_95"))
    assert low <= estimate <= high
    assert any("calibrated under 'replace one record'" in s.value for s in at.success)
    assert "Its 95 % interval" in metrics(at)
    ledger = at.session_state["_budget_accountant"].ledger
    assert list(ledger["epsilon"]) == pytest.approx([at.session_state["pr_epsilon"]])
    assert "mean = sum / count" in ledger["mechanism"].iloc[0]
    (panel,) = [e for e in at.sidebar.expander if e.label == "Ledger of releases"]
    (line,) = panel.markdown[0].value.splitlines()  # the sidebar's ledger shows the spend
    assert line.endswith(f"**ε = {at.session_state['pr_epsilon']:g}**")
