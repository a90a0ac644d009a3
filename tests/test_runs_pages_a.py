"""Runs of the home, importance and perturbation pages reproduce what the pages show (issue 12).

Each test opens a page in AppTest with non-default controls and a non-default seed, reads the
numbers it shows (metrics as displayed, and the figures' data decoded from the chart JSON),
builds the run config from the session state (the sidebar's keys, the page's CONTROLS and its
seed widget), runs it with :func:`dpcore.runs.run` and checks that the numbers are identical:
exact for every float that reaches a figure, as displayed for the formatted metrics.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import app_support
import numpy as np
import pandas as pd
import pytest
from app_support import ROOT, metrics, rerun
from run_support import (
    assert_same_figures,
    config_of,
    numbers_in,
    page_figures,
    run_figures_of,
)

from dpcore.figures import figures
from dpcore.runs import RunConfig, run

TIMEOUT = 180  # seconds per script run (2 shared cores)
EXAMPLES = {page: ROOT / "examples" / f"{page}-adult.json"
            for page in ("home", "importance", "perturbation")}


# --- importance ---------------------------------------------------------------------------------

open_importance = partial(app_support.open_page, "pages/importance.py", timeout=TIMEOUT)


def _importance_page(view: str, **state):
    """Wine, ε = 0.3, λ = 0.03, 50 replicates, seed 7, a two-condition OR query, ``view``."""
    at = open_importance(builtin_name="wine", **state)
    at.select_slider(key="iw_epsilon").set_value(0.3)
    at.select_slider(key="iw_lambda").set_value(0.03)
    at.select_slider(key="iw_reps").set_value(50)
    at.number_input(key="iw_seed").set_value(7)
    at.number_input(key="iw_q_n").set_value(2)
    rerun(at)
    at.radio(key="iw_q_combine").set_value("or")
    at.selectbox(key="iw_q_col_1").set_value("alcohol")
    rerun(at)
    at.selectbox(key="iw_q_op_1").set_value(">")
    at.number_input(key="iw_q_value_1").set_value(13.5)
    rerun(at)
    return app_support.show_view(at, view, key="iw_view") if view != "Estimates vs ε" else at


def _importance_metrics(row: pd.Series) -> dict[str, str]:
    """The page's metrics as it formats them, from the run's metrics row."""
    return {"Truth on D (non-private)": f"{row['truth_nonprivate']:.4f}",
            "Unweighted public mean": f"{row['public_mean']:.4f}",
            "Median DP estimate": f"{row['median_estimate']:.4f}",
            "SD over replicates": f"{row['sd_estimate']:.4f}",
            "Noise norm E‖δ‖": f"{row['noise_norm']:.3g}"}


@pytest.mark.parametrize("view", ["Estimates vs ε", "Estimates vs λ", "Bias vs SD",
                                  "Variance: theory", "Baselines", "Model training"])
def test_importance_run_reproduces_the_page(view):
    at = _importance_page(view)
    if view == "Model training":
        at.toggle(key="iw_models").set_value(True)
        at.select_slider(key="iw_model_reps").set_value(5)
        rerun(at)
    config = config_of(at, "importance")
    assert config.seed == 7 and config.controls["iw_q_combine"] == "or"
    result = run(config)
    row = result.numbers["metrics"].iloc[0]
    assert row["query"] == "I(cultivar == 1 OR alcohol > 13.5)"
    assert (row["epsilon"], row["lam"], row["replicates"]) == (0.3, 0.03, 50)
    assert metrics(at) == _importance_metrics(row)
    # Every figure, the linear SVM's included (liblinear is seeded), is bit-identical.
    assert_same_figures(page_figures(at), run_figures_of(result))
    if view == "Estimates vs ε":  # the boxes hold exactly the run's estimates, per epsilon
        shown: dict[str, list] = {}  # two box traces (the chosen epsilon's apart), by category
        for box in (t for t in page_figures(at)[0] if t["type"] == "box"):
            for label, value in zip(box["x"], box["y"], strict=True):
                shown.setdefault(label, []).append(value)
        table = result.numbers["estimates_by_epsilon"]
        expected = {f"{eps:g}": group["estimate"].to_numpy()
                    for eps, group in table.groupby("epsilon", sort=True)}
        assert shown.keys() == expected.keys()
        for label, values in expected.items():
            assert np.array_equal(np.array(shown[label]), values), label


def test_importance_publish_view_runs_the_headline_numbers_only():
    at = _importance_page("Publish")
    result = run(config_of(at, "importance"))
    assert list(result.numbers) == ["metrics"]
    assert metrics(at) == _importance_metrics(result.numbers["metrics"].iloc[0])


def test_importance_mean_query_and_defaults_match_the_page():
    at = open_importance(builtin_name="mvn-shift")
    at.radio(key="iw_q_kind").set_value("Mean of a column")
    rerun(at)
    config = config_of(at, "importance")
    result = run(config)
    assert result.numbers["metrics"].iloc[0]["query"].startswith("mean of ")
    assert metrics(at) == _importance_metrics(result.numbers["metrics"].iloc[0])
    assert_same_figures(page_figures(at), run_figures_of(result))


# --- perturbation -------------------------------------------------------------------------------

open_perturbation = partial(app_support.open_page, "pages/perturbation.py", timeout=TIMEOUT)
PERTURBATION_VIEWS = ["Error vs ε", "Learning curve", "Distance to non-private",
                      "Bounds (Lemmas 3-4)"]


def _perturbation_page(view: str, *, source: str | None = None, mode: str | None = None):
    """Breast cancer, ε = 2, λ by hand 0.03 (or ``mode``), n = 200, 5 restarts, seed 11."""
    at = open_perturbation(builtin_name="breast-cancer")
    if source is not None:
        at.radio(key="lr_source").set_value(source)
    at.select_slider(key="lr_epsilon").set_value(2.0)
    at.radio(key="lr_lambda_mode").set_value(mode or "set by hand")
    at.select_slider(key="lr_lambda").set_value(0.03)
    at.select_slider(key="lr_n").set_value(200)
    at.select_slider(key="lr_restarts").set_value(5)
    at.number_input(key="lr_seed").set_value(11)
    rerun(at)
    return app_support.show_view(at, view, key="lr_view") if view != "Error vs ε" else at


def _perturbation_metrics(result) -> dict[str, str]:
    row = result.numbers["metrics"].iloc[0]
    methods = [c.removeprefix("error ") for c in row.index if c.startswith("error ")]
    return {(m if m != "non-private" else "non-private (no noise)"): f"{row[f'error {m}']:.3f}"
            for m in methods}


@pytest.mark.parametrize("view", PERTURBATION_VIEWS)
def test_perturbation_run_reproduces_the_page(view):
    at = _perturbation_page(view)
    config = config_of(at, "perturbation")
    assert config.seed == 11 and config.controls["lr_lambda"] == 0.03
    result = run(config)
    assert result.numbers["metrics"].iloc[0]["lam"] == 0.03
    assert metrics(at) == _perturbation_metrics(result)
    assert_same_figures(page_figures(at), run_figures_of(result))
    if view == "Error vs ε":
        assert len(metrics(at)) == 4


@pytest.mark.parametrize("source, mode", [
    ("Paper: noisy sphere", "CV on public data"),
    ("Scenario (sidebar)", "rule of (ε, n, d)"),
])
def test_perturbation_sources_and_lambda_rules_match_the_page(source, mode):
    at = _perturbation_page("Error vs ε", source=source, mode=mode)
    result = run(config_of(at, "perturbation"))
    assert result.numbers["metrics"].iloc[0]["lambda_mode"] == mode
    assert metrics(at) == _perturbation_metrics(result)
    assert_same_figures(page_figures(at), run_figures_of(result))


# --- home ---------------------------------------------------------------------------------------

def test_home_run_reproduces_the_page():
    at = app_support.open_page("pages/home.py", timeout=TIMEOUT, builtin_name="adult",
                               builtin_public="bootstrap", seed=5)
    config = config_of(at, "home")
    assert config.scenario["builtin_public"] == "bootstrap" and config.scenario["seed"] == 5
    result = run(config)
    summary = result.numbers["summary"].set_index("set")
    shown = at.dataframe[0].value
    assert list(shown.index) == list(summary.index)
    for column in shown.columns:
        assert np.array_equal(shown[column].to_numpy(), summary[column].to_numpy())
    assert_same_figures(page_figures(at), run_figures_of(result))
    # the expander's table of all the means is the run's table, bit for bit
    means = result.numbers["feature_means"].set_index("feature")
    assert at.dataframe[1].value.equals(means)


# --- examples and takeaways ---------------------------------------------------------------------

@pytest.mark.parametrize("page", list(EXAMPLES))
def test_example_config_runs_and_its_takeaway_quotes_its_numbers(page):
    config = RunConfig.load(EXAMPLES[page])
    assert config.page == page and config.scenario["builtin_name"] == "adult"
    result = run(config)
    assert result.numbers and all(not table.empty for table in result.numbers.values())
    assert all(fig.data for fig in figures(result).values())
    text = result.takeaway()
    assert text.count(". ") >= 1 and text.endswith(".")
    words = numbers_in(text)
    if page == "importance":
        row = result.numbers["metrics"].iloc[0]
        assert {f"{row['median_estimate']:.3f}", f"{row['truth_nonprivate']:.3f}"} <= words
        table = result.numbers["estimates_by_epsilon"]
        sd = table.groupby("epsilon")["estimate"].std()
        assert {f"{sd.iloc[0]:.3f}", f"{sd.iloc[-1]:.3f}"} <= words
    elif page == "perturbation":
        s = result.numbers["summary"]
        at = s[np.isclose(s["epsilon"], config.controls["lr_epsilon"])].set_index("method")
        assert {f"{at.at['objective perturbation', 'mean']:.3f}",
                f"{at.at['output perturbation', 'mean']:.3f}"} <= words
    else:
        means = result.numbers["feature_means"]
        assert means.iloc[0]["feature"] in text
        assert f"{means.iloc[0]['public E']:.3f}" in words


@pytest.mark.parametrize("page, controls", [
    ("importance", {"iw_view": "Estimates vs λ", "iw_reps": 20}),
    ("importance", {"iw_view": "Bias vs SD", "iw_reps": 20}),
    ("importance", {"iw_view": "Variance: theory", "iw_reps": 20}),
    ("importance", {"iw_view": "Baselines", "iw_reps": 20}),
    ("perturbation", {"lr_view": "Learning curve", "lr_n": 200, "lr_restarts": 5}),
    ("perturbation", {"lr_view": "Distance to non-private", "lr_n": 200, "lr_restarts": 5}),
    ("perturbation", {"lr_view": "Bounds (Lemmas 3-4)", "lr_n": 200, "lr_restarts": 5}),
])
def test_every_views_takeaway_is_computed_from_its_numbers(page, controls):
    config = RunConfig(page, {"builtin_name": "breast-cancer"}, controls, 2)
    result = run(config)
    other = run(config.with_controls(**{("iw_epsilon" if page == "importance"
                                         else "lr_epsilon"): 5.0}))
    # Two sentences, and a different run says different things (nothing canned).
    assert result.takeaway().count(". ") >= 1
    assert result.takeaway() != other.takeaway()


def test_same_config_same_numbers_in_a_fresh_process(tmp_path: Path):
    """The exported script prints the run's numbers as CSV, identical to run()'s."""
    import os
    import subprocess
    import sys

    from dpcore.runs import script

    config = RunConfig("importance", {"builtin_name": "wine"},
                       {"iw_epsilon": 0.3, "iw_reps": 20, "iw_q_kind": "Mean of a column"}, 4)
    path = tmp_path / "rerun.py"
    path.write_text(script(config), encoding="utf-8")
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         cwd=tmp_path, check=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    expected = run(config)
    for name, table in expected.numbers.items():
        assert f"## {name}\n{table.to_csv(index=False)}" in out
