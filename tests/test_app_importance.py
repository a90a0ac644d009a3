"""AppTest of the importance-weighting page: every slider and the query builder redraw it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
PAGE = "pages/importance.py"
TIMEOUT = 120  # seconds per run: the first run fits 9 lambdas x 100 replicates on 2 cores


def open_page(**state: object) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    at.switch_page(PAGE)
    return rerun(at)


def rerun(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [exc.value for exc in at.exception]
    assert not at.error, [err.value for err in at.error]
    return at


def charts(at: AppTest) -> dict[str, str]:
    return {c.proto.id: c.proto.spec for c in at.get("plotly_chart")}


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.fixture(scope="module")
def adult_page() -> AppTest:
    return open_page()


def test_default_page_on_adult_shows_truth_public_mean_and_every_figure(adult_page):
    shown = metrics(adult_page)
    assert float(shown["Truth on D (non-private)"]) == pytest.approx(0.30, abs=0.02)
    assert float(shown["Unweighted public mean"]) == pytest.approx(0.15, abs=0.02)
    assert len(charts(adult_page)) == 7  # Figs 1, 2, 4, two variance panels, baselines, weights
    assert adult_page.get("download_button")[0].label.startswith("Download the release")
    captions = " ".join(c.value for c in adult_page.caption)
    assert "non-private" in captions


@pytest.mark.parametrize(
    "key, value",
    [("iw_epsilon", 1.0), ("iw_lambda", 0.3), ("iw_reps", 50), ("iw_seed", 7)],
)
def test_each_control_redraws_the_figures(adult_page, key, value):
    before = charts(adult_page)
    widget = adult_page.number_input(key=key) if key == "iw_seed" else adult_page.select_slider(
        key=key)
    old = widget.value
    widget.set_value(value)
    after = charts(rerun(adult_page))
    changed = [k for k in before if before[k] != after.get(k)]
    assert changed, f"moving {key} changed no figure"
    # put it back so the module's page stays at the defaults
    (adult_page.number_input(key=key) if key == "iw_seed" else adult_page.select_slider(
        key=key)).set_value(old)
    rerun(adult_page)


def test_query_builder_mean_and_compound_conditions():
    at = open_page(builtin_name="wine")
    first = metrics(at)["Truth on D (non-private)"]
    at.radio(key="iw_q_kind").set_value("Mean of a column")
    rerun(at)
    column = at.selectbox(key="iw_q_mean_column").options[1]
    at.selectbox(key="iw_q_mean_column").set_value(column)
    rerun(at)
    assert metrics(at)["Truth on D (non-private)"] != first
    assert any(column in md.value for md in at.subheader)
    at.radio(key="iw_q_kind").set_value("Fraction of records where…")
    rerun(at)
    at.number_input(key="iw_q_n").set_value(2)
    rerun(at)
    at.radio(key="iw_q_combine").set_value("or")
    at.selectbox(key="iw_q_op_1").set_value(">")
    at.number_input(key="iw_q_value_1").set_value(0.5)
    rerun(at)
    assert any(" OR " in md.value for md in at.subheader)


def test_model_training_and_publish_once():
    at = open_page(builtin_name="wine")
    at.toggle(key="iw_models").set_value(True)
    rerun(at)
    assert len(charts(at)) == 9  # the SVM and logistic-regression distance panels appear
    before = metrics(at)["DP estimate of the query from this release"]
    at.number_input(key="iw_release_seed").set_value(3)
    rerun(at)
    assert metrics(at)["DP estimate of the query from this release"] != before


def test_sliders_and_query_survive_a_page_switch():
    at = open_page(builtin_name="wine")
    at.select_slider(key="iw_epsilon").set_value(2.0)
    at.radio(key="iw_q_kind").set_value("Mean of a column")
    rerun(at)
    at.switch_page("pages/home.py")
    rerun(at)
    at.switch_page(PAGE)
    rerun(at)
    assert at.select_slider(key="iw_epsilon").value == 2.0
    assert at.radio(key="iw_q_kind").value == "Mean of a column"


@pytest.mark.parametrize(
    "state",
    [
        {"builtin_name": "mvn-shift", "builtin_public": "identical"},  # Fig. 5: E = D
        {"builtin_name": "three-gaussians", "builtin_public": "uniform"},  # Figs 5-6: uniform E
        {"builtin_name": "breast-cancer", "builtin_public": "bootstrap"},
        {"builtin_name": "digits"},
        {"builtin_name": "adult", "builtin_encoding": "compact"},  # the paper's d = 63
    ],
    ids=lambda s: "-".join(map(str, s.values())),
)
def test_page_runs_on_every_kind_of_scenario(state):
    at = open_page(**state)
    assert len(charts(at)) == 7
    caption = next(c.value for c in at.caption if c.value.startswith("ε ="))
    assert f"d = {at.session_state['scenario'].d + 1} components" in caption


def test_page_on_an_uploaded_scenario_without_a_target():
    data = ROOT / "tests" / "data"
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.session_state["builtin_name"] = "wine"
    at.run()
    at.radio(key="source").set_value("Upload").run()
    for side in ("public", "private"):
        name = f"valid_{side}.csv"
        at.file_uploader(key=f"upload_{side}").set_value(
            (name, (data / name).read_bytes(), "text/csv"))
    rerun(at)
    assert at.session_state["upload_report"] is not None
    at.switch_page(PAGE)
    rerun(at)
    assert len(charts(at)) == 7
    assert any("no target" in info.value for info in at.info)  # the model tab says why it is empty
