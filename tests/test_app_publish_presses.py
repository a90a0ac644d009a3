"""AppTest: every Publish press is a release in the ledger or a message (issue 33, section 5).

A press is recorded by the button's ``on_click`` callback, which Streamlit runs first in the run
that carries it, and served once by :func:`ui.release.serve_presses` before the page draws. So a
press survives a run that never reads the button (the view changed in the same run), presses
queued faster than they are served are each served once and in order, and one that the budget
cannot take is named with its reason under the button.
"""

from __future__ import annotations

import datetime as dt
from functools import partial

import app_support
import numpy as np
from app_support import rerun

from dpcore.importance import ImportanceWeights
from ui.release import PRESSES_KEY, Outcome, Press

PAGE = "pages/importance.py"
TIMEOUT = 120
LEDGER = "_budget_accountant"

open_page = partial(app_support.open_page, PAGE, timeout=TIMEOUT, builtin_name="wine")
show_view = partial(app_support.show_view, key="iw_view")


def presses_log(at) -> list[Outcome]:
    return list(at.session_state["_publish_log_importance"])


def test_a_press_in_a_run_that_never_reads_the_button_still_releases():
    at = show_view(open_page(), "Publish")
    at.select_slider(key="iw_epsilon").set_value(0.5)
    rerun(at)
    # The press and a view change reach the server in one run: the Publish view, and its
    # button, are not drawn in it (a button's True alone would be lost here).
    at.button(key="publish_importance").click()
    at.button_group(key="iw_view").set_value("by_epsilon")
    rerun(at)
    ledger = at.session_state[LEDGER].ledger
    assert list(ledger.epsilon) == [0.5]
    assert not at.session_state[PRESSES_KEY]  # served, once
    rerun(at)
    assert len(at.session_state[LEDGER]) == 1
    at = show_view(at, "Publish")  # the release and the press's outcome are there
    (outcome,) = presses_log(at)
    lam = at.session_state["iw_lambda"]  # the page's default at ε = 0.5 (a rule of public data)
    assert outcome.released and outcome.entries == (1, 1)
    assert outcome.settings == f"ε = 0.5, λ = {lam:g}"
    assert any(m.label == "DP estimate of the query from this release" for m in at.main.metric)
    (log,) = [e for e in at.main.expander if e.label.startswith("Your presses of this button")]
    assert "released, entry 1 of the ledger" in log.markdown[0].value


def test_queued_presses_are_each_served_once_in_order_and_a_refusal_says_why():
    at = show_view(open_page(), "Publish")
    at.select_slider(key="iw_epsilon").set_value(0.5)  # two fit in the session budget of 1
    rerun(at)
    scenario, scenario_id = at.session_state["scenario"], at.session_state["scenario_id"]

    def release(accountant):
        return ImportanceWeights(0.5, 2.0, accountant=accountant).fit(
            scenario.private, scenario.public, dataset=scenario.title)

    start = dt.datetime(2026, 1, 1, 12, tzinfo=dt.UTC)
    # Three presses recorded before a run serves them (as three presses during one long run).
    at.session_state[PRESSES_KEY] = [
        Press("importance", scenario, scenario_id, 0.5, "ε = 0.5, λ = 2", "replace", release,
              start + dt.timedelta(milliseconds=300 * i)) for i in range(3)]
    rerun(at, allow_errors=True)
    assert not at.session_state[PRESSES_KEY]
    ledger = at.session_state[LEDGER].ledger
    assert list(ledger.epsilon) == [0.5, 0.5]  # two releases, the third over budget
    log = presses_log(at)
    assert [o.pressed for o in log] == [start + dt.timedelta(milliseconds=300 * i)
                                        for i in range(3)]
    assert [o.entries for o in log] == [(1, 1), (2, 2), None]
    assert "budget" in log[2].reason
    (refusal,) = at.main.error  # the latest press's reason, where the eye is
    assert "Press at 12:00:00.60 UTC" in refusal.value and "not released" in refusal.value
    assert not any(m.label == "DP estimate of the query from this release" for m in at.main.metric)
    (shown,) = [e for e in at.main.expander if e.label == "Your presses of this button (3)"]
    lines = shown.markdown[0].value.splitlines()
    assert [line.split(": ", 1)[1][:14] for line in lines] == ["released, entr"] * 2 + [
        "**not released"]
    releases = [at.session_state["_release_importance"].value.weights_]
    rerun(at, allow_errors=True)  # nothing is served twice; the refusal stays on screen
    assert len(at.main.error) == 1
    assert len(at.session_state[LEDGER]) == 2 and len(presses_log(at)) == 3
    np.testing.assert_array_equal(at.session_state["_release_importance"].value.weights_,
                                  releases[0])
