"""Uploads a newcomer can fix in place (issue 24): the files stay for the session, their options
stay editable on every page, the target is pre-selected, and a split does not eat the target."""

from __future__ import annotations

import app_support
import pandas as pd
import pytest
from app_support import marked_files, rerun

from dpcore.datasets import likely_target
from dpcore.runs.scenarios import BY_VALUE, ONE_FILE
from ui.runconfig import run_config

pytestmark = pytest.mark.slow
TIMEOUT = 300


def sidebar_keys(at) -> set[str]:
    return {w.key for w in at.sidebar.selectbox} | {w.key for w in at.sidebar.radio}


def two_files():
    """The app with a public and a private file uploaded (nothing else chosen)."""
    public, private, _ = marked_files()
    at = app_support.start(timeout=TIMEOUT, source="Upload")
    at.file_uploader(key="upload_public").set_value(("public.csv", public, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    return rerun(at)


def test_the_target_is_preselected_and_stays_editable_on_every_page():
    at = two_files()
    # 'income' is the table's only 0/1 column: pre-selected, no choice needed
    assert at.selectbox(key="upload_target").value == "income"
    assert at.session_state["scenario"].target == "income"
    for page in ("pages/importance.py", "pages/perturbation.py", "pages/subset.py",
                 "pages/home.py"):
        at.switch_page(page)
        rerun(at)
        assert not at.exception, page
        # the uploaders start empty on a new page; the files and their options are still here
        assert "upload_target" in sidebar_keys(at), page
        assert any("uploaded earlier in this session" in c.value for c in at.sidebar.caption)
    at.selectbox(key="upload_target").set_value(None)  # changed in place, no new upload
    rerun(at)
    assert at.session_state["scenario"].target is None
    at.selectbox(key="upload_target").set_value("income")
    rerun(at)
    assert at.session_state["scenario"].target == "income"


def test_forgetting_the_files_asks_for_new_ones():
    at = two_files()
    at.switch_page("pages/importance.py")  # another page: its uploaders start empty
    rerun(at)
    at.button(key="upload_forget").click()
    rerun(at)
    assert any("Upload your data" in i.value for i in at.info)
    assert "upload_target" not in sidebar_keys(at)


def test_the_split_does_not_take_the_target_and_is_changed_in_place():
    """One file split by a rule: no split column is picked for the user; splitting by the
    target is said, and undone in place without uploading again."""
    rows = ["grp,x,label"] + [f"{'ab'[i % 2]},{i},{int(i % 4 == 0)}" for i in range(200)]
    data = "\n".join(rows).encode()
    at = app_support.start(timeout=TIMEOUT, source="Upload", upload_mode=ONE_FILE)
    at.file_uploader(key="upload_single").set_value(("one.csv", data, "text/csv"))
    rerun(at, allow_errors=True)
    assert at.selectbox(key="upload_target").value == "label"  # the named 0/1 column
    at.radio(key="split_rule").set_value(BY_VALUE)
    rerun(at, allow_errors=True)
    assert at.selectbox(key="split_column").value is None  # no column is picked for the user
    at.selectbox(key="split_column").set_value("label")  # split by the target: it goes away
    rerun(at, allow_errors=True)
    at.selectbox(key="split_value").set_value("1")
    rerun(at, allow_errors=True)
    assert any("can no longer be a target" in c.value for c in at.sidebar.caption)
    at.selectbox(key="split_column").set_value("grp")  # undone in place
    rerun(at, allow_errors=True)
    at.selectbox(key="split_value").set_value("a")
    rerun(at)
    assert at.session_state["scenario"].target == "label"


def test_likely_target_reads_yes_no_columns():
    frame = pd.DataFrame({"id": range(4), "sex": ["F", "M", "M", "F"],
                          "species": ["a", "b", "c", "a"], "Outcome": [0, 1, 1, 0]})
    assert likely_target(frame) == "Outcome"  # named like a target, before 'sex'
    assert likely_target(frame.drop(columns="Outcome")) == "sex"
    assert likely_target(frame[["id", "species"]]) is None


def weather_files() -> tuple[bytes, bytes]:
    """A public and a private table shaped like seattle-weather: a date and a row ID (over the
    width limit with them), measurements, a region code and a five-class target."""
    from test_upload_columns import weather

    return (weather(700).to_csv(index=False).encode(),
            weather(300, start=700, seed=1).to_csv(index=False).encode())


def test_dates_and_ids_are_left_out_and_columns_changed_in_place():
    public, private = weather_files()
    at = app_support.start(timeout=TIMEOUT, source="Upload")
    at.file_uploader(key="upload_public").set_value(("public.csv", public, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    rerun(at)
    assert not at.error  # accepted: the date and the ID are left out, and it is said
    assert at.multiselect(key="upload_exclude").value == ["date", "record_id"]
    assert any("Left out by default" in c.value and "date" in c.value for c in at.sidebar.caption)
    assert at.selectbox(key="upload_target").value is None  # no yes/no column
    at.selectbox(key="upload_target").set_value("weather")
    rerun(at)
    positive = at.selectbox(key="upload_positive")
    assert positive.options == ["drizzle", "fog", "rain", "snow", "sun"]
    for page in ("pages/importance.py", "pages/perturbation.py", "pages/subset.py"):
        at.switch_page(page)
        rerun(at)
        assert not at.exception, page
    # Back on Home, without uploading again: another positive class, a code read as
    # categories, a column left out.
    at.switch_page("pages/home.py")
    rerun(at)
    at.selectbox(key="upload_positive").set_value("rain")
    at.multiselect(key="upload_categorical").set_value(["region"])
    at.multiselect(key="upload_exclude").set_value(["date", "record_id", "precipitation"])
    rerun(at)
    scenario = at.session_state["scenario"]
    assert scenario.target == "weather=rain"
    assert "precipitation" not in scenario.features
    assert {f"region={i}" for i in range(1, 5)} <= set(scenario.features)
    # Using the date after all: refused for its width, in place; undone in place.
    at.multiselect(key="upload_exclude").set_value(["record_id"])
    rerun(at, allow_errors=True)
    assert any("over the limit" in e.value for e in at.error)
    at.multiselect(key="upload_exclude").set_value(["date", "record_id"])
    rerun(at)
    assert not at.error
    assert at.session_state["scenario"].target == "weather=rain"


def test_a_stray_word_in_a_public_number_column_is_fixed_in_place_and_kept_in_the_config():
    """A public column of numbers with one word is refused with a button that reads such cells
    as missing; the choice is undone in the "Columns" expander, and a run config (and so a
    link) carries it with the other column choices."""
    public, private, _ = marked_files()
    lines = public.decode().splitlines()
    lines[5] = "forty," + lines[5].split(",", 1)[1]
    at = app_support.start(timeout=TIMEOUT, source="Upload")
    at.file_uploader(key="upload_public").set_value(("public.csv", "\n".join(lines).encode(),
                                                     "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    rerun(at, allow_errors=True)
    (message,) = [e.value for e in at.main.error]
    assert "holds numbers except for 1 cell" in message and "button in the sidebar" in message
    at.button(key="upload_read_as_missing").click()
    rerun(at)
    assert at.session_state["upload_as_missing"] == ["age"]
    assert at.multiselect(key="upload_as_missing").value == ["age"]
    scenario = at.session_state["scenario"]
    assert "age" in scenario.features and scenario.target == "income"
    at.multiselect(key="upload_exclude").set_value(["note"])
    rerun(at)
    config = run_config("importance", at.session_state)
    assert {key: config["scenario"][key] for key in (
        "upload_as_missing", "upload_exclude", "upload_target")} == {
        "upload_as_missing": ["age"], "upload_exclude": ["note"], "upload_target": "income"}
    at.multiselect(key="upload_as_missing").set_value([])  # undone: refused again, in place
    rerun(at, allow_errors=True)
    assert any("holds numbers except" in e.value for e in at.main.error)


def test_an_upload_is_refused_with_a_message_when_the_server_is_short_of_memory(monkeypatch):
    # issue 26: a class shares one server; a new upload that would pass the memory limit is
    # refused in place (the sidebar and the main area say why), and the session goes on
    from ui.memory import LIMIT_ENV

    monkeypatch.setenv(LIMIT_ENV, "1")  # 1 MB: below any Python process
    public, private, _ = marked_files()
    at = app_support.start(timeout=TIMEOUT, source="Upload")
    at.file_uploader(key="upload_public").set_value(("public.csv", public, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    rerun(at, allow_errors=True)
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "short of memory" in errors and LIMIT_ENV.replace("_", "\\_") in errors
    assert "scenario" not in at.session_state or at.session_state["scenario"] is None
    monkeypatch.delenv(LIMIT_ENV)  # memory freed: the same files are read on the next run
    rerun(at)
    assert at.session_state["scenario"].name == "upload"
