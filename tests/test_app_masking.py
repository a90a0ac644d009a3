"""AppTest of the data-masking page: views, controls, the recipient view, digits and Publish."""

from __future__ import annotations

import json
from functools import partial

import app_support
import pytest
from app_support import metrics, rerun
from streamlit.testing.v1 import AppTest

PAGE = "pages/masking.py"
TIMEOUT = 120  # seconds per run (2 busy cores)
TOY = "Toy: three Gaussians (Fig. 2)"
DIGITS = "Digits 0, 1, 3: 3 masked by 6 (Fig. 3)"

# The page's own experiments do not read the sidebar scenario: a small one keeps each rerun from
# copying Adult out of the cache.
open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT, builtin_name="three-gaussians")
show_view = partial(app_support.show_view, key="mk_view")
#: The "Masked vs original" view draws one chart per panel.
SCATTER = ["fig_scatter_original", "fig_scatter_initial", "fig_scatter_final"]


def charts(at: AppTest) -> list[str]:
    """The page's charts by the last part of their element ids (e.g. ``fig_scatter``)."""
    return [chart_id.rsplit("-", 1)[-1] for chart_id in app_support.chart_ids(at)]


def test_default_page_shows_the_toy_scatter_and_its_quality():
    at = open_page()
    assert charts(at) == SCATTER
    shown = metrics(at)
    # Default eps = 5, N = 300: the masked set reaches w' (the gradient vanishes numerically).
    assert float(shown["Gradient norm at w′"]) < 1e-6
    assert float(shown["‖refit − w′‖"]) < 1e-4
    assert "non-private" in " ".join(at.metric[3].label.split()).lower()
    assert any("not a release" in c.value for c in at.caption)


@pytest.mark.parametrize(("view", "expected"), [
    ("animation", ["fig_animation"]),
    ("accuracy", ["fig_accuracy_100", "fig_accuracy_200"]),
    ("images", []),
    ("card", ["fig_report_card"]),
    ("publish", []),
])
def test_every_view_builds_only_its_own_figures(view, expected):
    at = show_view(open_page(mk_draws=10), view)
    assert charts(at) == expected


def test_an_epsilon_move_changes_only_the_masked_panel():
    """The panels' axes span the data domain, so an ε move leaves the original and initial
    panels' figures identical (the browser keeps them) and redraws the masked one; with the
    input-perturbed records switched on, the original panel follows ε too."""
    at = open_page()
    before = [chart.proto.spec for chart in at.get("plotly_chart")]
    at.select_slider(key="mk_epsilon").set_value(10.0)
    after = [chart.proto.spec for chart in rerun(at).get("plotly_chart")]
    assert [a == b for a, b in zip(before, after, strict=True)] == [True, True, False]
    at.toggle(key="mk_input").set_value(True)
    before = [chart.proto.spec for chart in rerun(at).get("plotly_chart")]
    names = [trace.get("name") for trace in json.loads(before[0])["data"]]
    assert "hollow: input perturbation, ε = 10" in names
    at.select_slider(key="mk_epsilon").set_value(5.0)
    after = [chart.proto.spec for chart in rerun(at).get("plotly_chart")]
    assert [a == b for a, b in zip(before, after, strict=True)] == [False, True, False]


def test_an_epsilon_move_builds_the_masked_panel_alone(monkeypatch):
    """issue 35: the panels ε does not change are built once, the masked set's at each ε, and
    the figure of all three panels not at all (a download builds it when clicked)."""
    from dpcore.figures import masking as drawn

    built = []
    scatter_panels = drawn.scatter_panels
    monkeypatch.setattr(drawn, "scatter_panels", lambda panels, *args, **kw: built.append(
        len(panels)) or scatter_panels(panels, *args, **kw))
    at = open_page(mk_seed=3535)  # a seed no other test draws: no figure is kept yet
    assert built == [1, 1, 1] and charts(at) == SCATTER
    for epsilon in (10.0, 0.5):
        built.clear()
        at.select_slider(key="mk_epsilon").set_value(epsilon)
        rerun(at)
        assert built == [1] and charts(at) == SCATTER


def test_recipient_view_shows_the_masked_set_alone():
    at = open_page()
    at.toggle(key="mk_alone").set_value(True)
    rerun(at)
    assert charts(at) == ["fig_recipient"]
    spec = at.get("plotly_chart")[0].proto.spec
    assert "non-private" not in spec  # nothing from the private data in the recipient's view


def test_small_n_warns_and_controls_redraw():
    at = open_page()
    before = metrics(at)["Masked-set model accuracy"]
    at.select_slider(key="mk_epsilon").set_value(1.0)
    at.select_slider(key="mk_n").set_value(150)
    rerun(at)
    # eps = 1 and N = 150 (the initial set has 100): the masked set cannot reach w'.
    assert any("could not reach" in w.value for w in at.warning)
    assert metrics(at)["Masked-set model accuracy"] != before
    at.radio(key="mk_initial").set_value("Empty")
    rerun(at)
    assert charts(at) == ["fig_scatter_original", "fig_scatter_final"]


def test_digits_show_images_and_weights():
    at = open_page()
    at.selectbox(key="mk_task").set_value(DIGITS)
    rerun(at)
    assert charts(at) == SCATTER
    assert any("projection fitted on public data" in c.value for c in at.caption)
    show_view(at, "images")
    assert charts(at) == ["fig_private_images", "fig_initial_images", "fig_masked_images",
                          "fig_weights"]


def test_publish_spends_once_and_offers_the_csv():
    at = open_page()
    at.select_slider(key="mk_epsilon").set_value(0.5)  # the default session budget is 1
    show_view(at, "publish")
    at.button(key="publish_masking").click()
    rerun(at)
    ledger = at.session_state["_budget_accountant"].ledger
    assert len(ledger) == 1 and ledger["epsilon"].iloc[0] == 0.5
    assert "masked data generation" in ledger["mechanism"].iloc[0]
    assert charts(at) == ["fig_released"]
    assert any(b.key == "mk_download" for b in at.get("download_button"))
    at.button(key="publish_masking").click()
    rerun(at)
    # 1.5 > 1: said beside the button before a press, which is disabled; nothing recorded
    assert at.button(key="publish_masking").disabled
    assert any("needs ε" in w.value and "sidebar" in w.value for w in at.warning)
    assert len(at.session_state["_budget_accountant"]) == 2


def test_sidebar_scenario_task_runs_and_refuses_publishing_from_a_derived_public_set():
    at = open_page(mk_task="Sidebar scenario (its binary target)", builtin_name="wine")
    assert charts(at) == SCATTER
    assert any("Wine" in c.value for c in at.caption)
    assert any("projection fitted on public data" in c.value for c in at.caption)  # d = 13
    at.session_state["builtin_public"] = "identical"  # E = D: a release would carry D's records
    show_view(rerun(at), "publish")
    assert not [b for b in at.button if b.key == "publish_masking"]
    assert any("refused" in w.value for w in at.warning)


def test_after_an_upload_the_page_opens_on_the_users_data():
    """Issue 24: an analyst who uploaded a table meets it here, not the paper's toy data."""
    public, private, _ = app_support.marked_files()
    at = app_support.upload_marked(public, private, timeout=300)
    at.switch_page("pages/masking.py")
    app_support.rerun(at)
    assert at.selectbox(key="mk_task").value == "Sidebar scenario (its binary target)"
    assert not at.exception
    show_view(at, "card")  # the report card on the upload (kept in this session only)
    assert charts(at) == ["fig_report_card"]
    assert any("non-private" in c.value and "k-marginal" in c.value for c in at.caption)


def test_report_card_on_adult():
    """Issue 38: the card's curves on Adult, both mechanisms and the private sample."""
    at = show_view(open_page(mk_task="Sidebar scenario (its binary target)",
                             builtin_name="adult"), "card")
    assert charts(at) == ["fig_report_card"]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = {trace.get("name") for trace in spec["data"]}
    assert {"masked generation", "input perturbation", "private sample"} <= names
    assert any(str(name).startswith("majority class") for name in names)
    assert "Adult" in spec["layout"]["title"]["text"]
