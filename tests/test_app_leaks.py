"""Home names a public column that gives the target away, with a one-click "leave out"."""

from __future__ import annotations

import app_support
import pytest
from app_support import rerun
from test_leaks import affairs_frame

from ui.runconfig import scenario_spec

pytestmark = pytest.mark.slow
TIMEOUT = 300


def test_a_column_that_is_the_targets_rule_is_named_and_left_out_in_one_click():
    public = affairs_frame(200, seed=11).to_csv(index=False).encode()
    private = affairs_frame(150, seed=12).to_csv(index=False).encode()
    at = app_support.start(timeout=TIMEOUT, source="Upload")
    at.file_uploader(key="upload_public").set_value(("public.csv", public, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    rerun(at)
    assert at.selectbox(key="upload_target").value == "had_affair"  # pre-selected
    before = at.session_state["scenario"]
    assert "affairs" in before.features
    named = [w.value for w in at.warning if "alone predicts the target" in w.value]
    assert len(named) == 1 and "**affairs**" in named[0], named
    at.button(key="leave_out_affairs").click()
    rerun(at)
    after = at.session_state["scenario"]
    assert "affairs" not in after.features
    assert len(after.features) == len(before.features) - 1  # affairs is one scaled number
    assert not [w for w in at.warning if "alone predicts the target" in w.value]
    assert "affairs" in at.multiselect(key="upload_exclude").value
    assert "affairs" in scenario_spec(at.session_state)["upload_exclude"]  # and so in links
    at.switch_page("pages/importance.py")
    rerun(at)
    assert "affairs" not in at.session_state["scenario"].features  # kept for the session
