"""AppTest of the importance-weighting page: views, controls, the query builder and Publish."""

from __future__ import annotations

import json
import pickle
import re
from functools import partial

import app_support
import numpy as np
import pytest
from app_support import DATA, captions, changed_charts, metrics, rerun
from streamlit.runtime.caching import cache_data_api, cache_resource_api
from streamlit.testing.v1 import AppTest

from dpcore.datasets import load_scenario
from dpcore.domains import LAMBDAS
from dpcore.figures.common import COLORS
from dpcore.figures.importance import DISTANCE_ROLES
from dpcore.importance import default_lambda
from dpcore.studies.importance import WHISKERS
from dpcore.text import md as escape
from ui.cache import SHARED

PAGE = "pages/importance.py"
TIMEOUT = 120  # seconds per run: the first run on Adult fits 9 lambdas x 100 replicates
VIEWS = {"by_epsilon": 1, "by_lambda": 1, "bias_sd": 1, "variance": 2,
         "baselines": 1, "models": 0, "publish": 0}

open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT)
show_view = partial(app_support.show_view, key="iw_view")
charts = app_support.chart_specs


def _cached_values(node: object):
    """The values held by a Streamlit cache registry (caches per scope, then per function)."""
    if isinstance(node, dict):
        for child in list(node.values()):
            yield from _cached_values(child)
    elif hasattr(node, "_mem_cache"):
        for value in list(node._mem_cache.values()):
            yield getattr(value, "value", value)
    elif hasattr(node, "storage"):
        yield from _cached_values(node.storage)
    elif hasattr(node, "persist_storage"):
        yield from _cached_values(node.persist_storage)


def shared_cache_bytes() -> bytes:
    """Everything held by the stores that every session of the process shares, pickled."""
    values = list(SHARED.values.values())
    for registry in (cache_resource_api._resource_caches, cache_data_api._data_caches):
        values += list(_cached_values(registry._function_caches))
    assert values, "the shared caches hold nothing: this check would see nothing"
    return b"".join(v if isinstance(v, bytes) else pickle.dumps(v) for v in values)


def test_default_page_on_adult_shows_truth_public_mean_and_the_first_view():
    at = open_page()
    shown = metrics(at)
    assert float(shown["Truth on D (non-private)"]) == pytest.approx(0.30, abs=0.02)
    assert float(shown["Unweighted public mean"]) == pytest.approx(0.15, abs=0.02)
    # Only the first view is built: Fig. 2, which needs the fits at one lambda.
    assert len(charts(at)) == 1 and next(iter(charts(at))).endswith("fig_epsilon")
    captions = " ".join(c.value for c in at.caption)
    assert "none of them is a release" in captions
    assert "more privacy ← → more accuracy" in captions
    assert not [w for w in at.number_input if w.key == "iw_release_seed"]  # no release seed


@pytest.mark.parametrize("view, count", VIEWS.items())
def test_every_view_builds_only_its_own_figures(view, count):
    at = show_view(open_page(builtin_name="wine"), view)
    assert len(charts(at)) == count


@pytest.mark.parametrize(
    "key, value",
    [("iw_epsilon", 1.0), ("iw_lambda", 0.3), ("iw_reps", 50), ("iw_seed", 7)],
)
def test_each_control_redraws_the_figure(key, value):
    at = open_page(builtin_name="wine")
    widget = at.number_input(key=key) if key == "iw_seed" else at.select_slider(key=key)
    assert changed_charts(at, widget, value), f"moving {key} changed no figure"


def test_query_builder_in_the_datas_own_units():
    at = open_page(builtin_name="wine")
    raw = at.session_state["scenario"].raw_private
    # The default asks how often the target takes its positive class (cultivar 1).
    assert any(md.value.endswith(escape("I(cultivar == 1)")) for md in at.subheader)
    assert float(metrics(at)["Truth on D (non-private)"]) == pytest.approx(
        (raw["cultivar"] == 1).mean(), abs=5e-5)
    at.radio(key="iw_q_kind").set_value("Mean of a column")
    rerun(at)
    at.selectbox(key="iw_q_mean_column").set_value("alcohol")
    rerun(at)
    # A mean in % alcohol, not in the rescaled [0, 1] units.
    assert float(metrics(at)["Truth on D (non-private)"]) == pytest.approx(
        raw["alcohol"].clip(*at.session_state["scenario"].bounds["alcohol"]).mean(), abs=5e-5)
    at.radio(key="iw_q_kind").set_value("Fraction of records where…")
    rerun(at)
    at.number_input(key="iw_q_n").set_value(2)
    rerun(at)
    at.radio(key="iw_q_combine").set_value("or")
    at.selectbox(key="iw_q_col_1").set_value("alcohol")
    rerun(at)
    at.selectbox(key="iw_q_op_1").set_value(">")
    at.number_input(key="iw_q_value_1").set_value(13.5)
    rerun(at)
    assert any(md.value.endswith(escape("I(cultivar == 1 OR alcohol > 13.5)"))
               for md in at.subheader)
    expected = ((raw["cultivar"] == 1) | (raw["alcohol"] > 13.5)).mean()
    assert float(metrics(at)["Truth on D (non-private)"]) == pytest.approx(expected, abs=5e-5)


def test_a_numeric_condition_starts_at_the_public_median():
    at = open_page(builtin_name="mvn-shift")
    at.selectbox(key="iw_q_col_0").set_value("x1")
    rerun(at)
    scenario = at.session_state["scenario"]
    median = float(scenario.raw_public["x1"].median())
    assert at.number_input(key="iw_q_value_0").value == pytest.approx(median, abs=1e-6)


def test_model_training_uses_its_own_epsilons():
    at = show_view(open_page(builtin_name="wine"), "models")
    assert any("its own budgets" in md.value for md in at.markdown)
    at.toggle(key="iw_models").set_value(True)
    specs = charts(rerun(at))
    assert len(specs) == 2  # the SVM and logistic-regression distance panels
    # A legend above the panels names each method in its palette colour (the downloaded
    # figures carry plotly's own); each title says the dataset and the view's own ε.
    legend = captions(at)
    for method, role in DISTANCE_ROLES.items():
        assert method in legend and COLORS[role] in legend
    for spec in map(json.loads, specs.values()):
        title = spec["layout"]["title"]["text"]
        assert "own ε = 0.1, 1, 10" in title and "Wine" in title
    at.select_slider(key="iw_epsilon").set_value(2.0)  # not an input of this view's models
    assert charts(rerun(at)) == specs


def test_publish_twice_gives_two_releases_then_the_budget_refuses_a_third():
    at = show_view(open_page(builtin_name="wine"), "publish")
    at.select_slider(key="iw_epsilon").set_value(0.5)  # the default session budget is 1
    rerun(at)
    released = []
    for _ in range(2):
        at.button(key="publish_importance").click()
        rerun(at)
        released.append(at.session_state["_release_importance"].value.weights_)
    assert not np.array_equal(*released)  # fresh OS entropy: identical settings, new noise
    ledger = at.session_state["_budget_accountant"].ledger
    assert list(ledger.epsilon) == [0.5, 0.5]
    assert any("spent ε = 1 of 1 in 2 releases" in p.proto.text for p in at.get("progress"))
    (download,) = [b for b in at.get("download_button") if b.key == "iw_download"]
    assert download.label.startswith("Download the release")
    (table,) = [df.value for df in at.main.dataframe if "weight" in df.value.columns]
    assert table.columns[0] == "weight"  # the most-weighted records, weight first
    assert table["weight"].is_monotonic_decreasing and len(table) == 10
    # A third would pass the budget: said beside the button before any press, button disabled
    assert at.button(key="publish_importance").disabled
    assert any("needs ε" in w.value and "sidebar" in w.value for w in at.warning)
    assert len(at.session_state["_budget_accountant"]) == 2  # and nothing recorded
    np.testing.assert_array_equal(at.session_state["_release_importance"].value.weights_,
                                  released[1])
    # Nothing released sits in a cache shared across sessions.
    shared = shared_cache_bytes()
    assert released[1].tobytes() not in shared and released[0].tobytes() not in shared


@pytest.mark.parametrize("public", ["identical", "bootstrap"])
def test_publish_is_refused_when_the_public_set_is_derived_from_the_private_one(public):
    at = show_view(open_page(builtin_name="wine", builtin_public=public), "publish")
    assert not [b for b in at.button if b.key == "publish_importance"]
    assert any("Publishing is refused" in w.value for w in at.warning)
    at.button_group(key="iw_view").set_value("by_epsilon")
    assert len(charts(rerun(at))) == 1  # the study still runs


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
    assert len(charts(at)) == 1
    caption = next(c.value for c in at.caption if "bootstrap resamples of D" in c.value)
    dim = at.session_state["scenario"].dimension  # d, with its definition, and β's k
    assert dim.text() in caption
    assert f"k = {dim.coefficients(intercept=True, target=True)} coefficients" in caption


def upload(at: AppTest, public: bytes, private: bytes) -> AppTest:
    at.radio(key="source").set_value("Upload").run()
    at.file_uploader(key="upload_public").set_value(("public.csv", public, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    return rerun(at)


def test_page_on_an_uploaded_scenario_without_a_target():
    at = app_support.start(timeout=TIMEOUT, builtin_name="wine")
    upload(at, (DATA / "valid_public.csv").read_bytes(), (DATA / "valid_private.csv").read_bytes())
    assert at.session_state["upload_report"] is not None
    assert at.selectbox(key="upload_target").value == "income"  # pre-selected: two values
    at.selectbox(key="upload_target").set_value(None).run()
    at.switch_page(PAGE)
    rerun(at)
    assert len(charts(at)) == 1
    assert any("no target" in info.value for info in show_view(at, "models").info)


def test_uploaded_data_never_enters_a_cache_shared_across_sessions():
    marker = "ZQXMARKER"
    rng = np.random.default_rng(0)

    def csv(n: int) -> bytes:
        rows = [f"age,{marker}_city,income"]
        rows += [f"{rng.integers(18, 90)},{marker}{rng.integers(3)},{rng.integers(2)}"
                 for _ in range(n)]
        return "\n".join(rows).encode()

    at = app_support.start(timeout=TIMEOUT, builtin_name="wine")
    upload(at, csv(80), csv(60))
    at.switch_page(PAGE)
    rerun(at)
    for view in ("by_lambda", "baselines", "publish"):
        show_view(at, view)
    # Positive controls: the session's own memory holds the upload's results, and the scan does
    # read st.cache_data (the built-in wine scenario loaded first is found there).
    assert marker.encode() in pickle.dumps(at.session_state["_upload_memo"])
    shared = shared_cache_bytes()
    assert b"cultivar" in shared
    assert marker.encode() not in shared


def test_small_data_opens_on_defaults_with_signal_and_says_when_noise_swamps_it():
    at = open_page(builtin_name="wine")
    # The rule of N_D, d, ε and public E (at the page's ε = 0.1 on wine: the largest λ, 10).
    wine = load_scenario("wine")
    default = default_lambda(wine.public, len(wine.private), 0.1, LAMBDAS)
    assert at.select_slider(key="iw_lambda").value == default == 10.0
    assert not at.warning
    shown = metrics(at)
    assert float(shown["SD over replicates"]) < 0.25  # boxes no longer span the whole range
    at.select_slider(key="iw_lambda").set_value(0.1)
    rerun(at)
    (warning,) = at.warning
    assert "the weights are mostly noise" in warning.value
    assert f"raise λ to {default:g}" in warning.value and "raise ε to" in warning.value
    at.session_state["builtin_name"] = "adult"
    rerun(at)
    adult = load_scenario("adult")
    # Adult opens on the same rule: λ = 0.5 at ε = 0.1 (the paper's λ = 0.1 is its slides').
    assert at.select_slider(key="iw_lambda").value == default_lambda(
        adult.public, len(adult.private), 0.1, LAMBDAS) == 0.5
    assert not [i for i in at.info if "weights stay close to 1" in i.value]


def test_small_data_default_says_when_the_estimates_sit_at_the_public_mean():
    # Wine at its default lambda = 10: little noise, but the weights barely move, so the median
    # estimate is the public mean (0.109), not the truth (0.570): the page says it is lambda's
    # bias, and what a larger budget would allow, by the rule of N_D, d and E.
    at = open_page(builtin_name="wine")
    shown = metrics(at)
    median, truth = float(shown["Median DP estimate"]), float(shown["Truth on D (non-private)"])
    public = float(shown["Unweighted public mean"])
    assert abs(median - public) < 0.25 * abs(truth - public)
    (info,) = [i.value for i in at.info if "weights stay close to 1" in i.value]
    assert "λ's bias" in info and "non-private)" in info
    eps, lam = map(float, re.search(r"at ε = ([\d.]+) the rule picks λ = ([\d.]+)", info).groups())
    assert eps > 0.1 and lam <= 10.0 / 50
    at.select_slider(key="iw_epsilon").set_value(eps)
    at.select_slider(key="iw_lambda").set_value(lam)
    rerun(at)  # what it suggests: the estimates move off the public mean, towards the truth
    shown = metrics(at)
    assert abs(float(shown["Median DP estimate"]) - public) > 0.25 * abs(truth - public)
    assert not [i for i in at.info if "weights stay close to 1" in i.value]


def test_sliders_view_and_query_survive_a_page_switch():
    at = open_page(builtin_name="wine")
    at.select_slider(key="iw_epsilon").set_value(2.0)
    at.button_group(key="iw_view").set_value("baselines")
    at.number_input(key="iw_q_n").set_value(2)
    rerun(at)
    at.selectbox(key="iw_q_col_1").set_value("alcohol")
    rerun(at)
    at.selectbox(key="iw_q_op_1").set_value("<=")
    rerun(at)
    at.switch_page("pages/home.py")
    rerun(at)
    at.switch_page(PAGE)
    rerun(at)
    assert at.select_slider(key="iw_epsilon").value == 2.0
    assert at.button_group(key="iw_view").value == "baselines"
    assert at.selectbox(key="iw_q_col_1").value == "alcohol"
    assert at.selectbox(key="iw_q_op_1").value == "<="


def test_the_reading_guide_explains_boxes_replicates_seeds_and_the_noise():
    at = open_page(builtin_name="wine")
    (guide,) = [e for e in at.expander if e.label == "How to read this page"]
    text = " ".join(m.value for m in guide.markdown)
    for phrase in ("The query", "I(income == >50K)", "A replicate", "A box plot", "whiskers",
                   "2.5 % and 97.5 % quantiles", "E‖δ‖", "Three sources of randomness",
                   "Non-private"):
        assert phrase in text, phrase


def test_the_caption_is_computed_from_the_boxes_on_screen_and_follows_epsilon():
    """Issue 23: no fixed trend sentence; the caption under the boxes quotes their medians (the
    study's caption of the numbers drawn), names the whisker definition, and changes when ε
    changes the boxes."""
    at = show_view(open_page(builtin_name="wine"), "by_lambda")

    def sentence() -> str:
        (text,) = [c.value for c in at.caption if "At the smallest λ" in c.value]
        return text

    before = sentence()
    assert WHISKERS in before and "centred on the truth but noisy" not in before
    at.select_slider(key="iw_epsilon").set_value(10.0)
    after = sentence() if rerun(at) else ""
    assert after != before and WHISKERS in after
    show_view(at, "variance")
    assert re.search(r"\d+ of \d+ lie below Theorem 2's bound", captions(at))
