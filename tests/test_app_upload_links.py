"""A link made on uploads reproduces the page once the same files are uploaded in a new tab,
and names the private file only where its owner opts in (issue 34, item 7)."""

from __future__ import annotations

import json

import app_support
import pytest
from app_support import marked_files, rerun
from streamlit.testing.v1 import AppTest

from ui.runconfig import SHARE_PRIVATE_NAME

pytestmark = pytest.mark.slow
TIMEOUT = 300


def _upload(at: AppTest, public: bytes, private: bytes) -> AppTest:
    at.file_uploader(key="upload_public").set_value(("public.csv", public, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("secret_layoffs.csv", private, "text/csv"))
    return rerun(at)


def _numbers(at: AppTest) -> list[str]:
    """The page's numbers as shown: its metrics and its tables."""
    return ([f"{m.label}={m.value}" for m in at.metric]
            + [df.value.to_csv() for df in at.dataframe])


def test_a_link_made_on_uploads_reproduces_the_importance_page_in_a_new_tab():
    public, private, _ = marked_files()
    at = app_support.start(timeout=TIMEOUT, source="Upload")
    _upload(at, public, private)
    at.switch_page("pages/importance.py")
    rerun(at)
    opened_at = at.session_state["iw_lambda"]  # the rule's λ for these files
    chosen = next(lam for lam in (0.05, 0.2, 0.5) if lam != opened_at)
    at.select_slider(key="iw_lambda").set_value(chosen)
    rerun(at)
    params = dict(at.query_params)
    assert json.loads(params["iw_lambda"]) == chosen
    shown = _numbers(at)
    assert shown

    # A new tab: the link first, then the same two files.
    again = AppTest.from_file(str(app_support.ROOT / "app.py"), default_timeout=TIMEOUT)
    again.switch_page("pages/importance.py")
    for key, value in params.items():
        again.query_params[key] = value
    again.run()
    _upload(again, public, private)
    assert again.session_state["iw_lambda"] == chosen  # not the rule's λ for the new scenario
    assert again.session_state["iw_reps"] == at.session_state["iw_reps"]
    assert _numbers(again) == shown
    # Later scenarios in that tab open at their own defaults again.
    again.session_state["_iw_defaults_for"] = None
    rerun(again)
    assert again.session_state["iw_lambda"] == opened_at


def _page_text(at) -> str:
    """Every text and figure of the main area (the figures' specifications as JSON)."""
    texts = [el.value for kind in ("markdown", "caption", "header", "subheader", "info",
                                   "warning") for el in getattr(at.main, kind)]
    texts += [chart.proto.spec for chart in at.get("plotly_chart")]
    return "\n".join(texts)


def test_the_private_file_is_named_in_a_link_only_when_its_owner_ticks_the_box():
    public, private, _ = marked_files()
    at = app_support.start(timeout=TIMEOUT, source="Upload")
    _upload(at, public, private)
    at.switch_page("pages/importance.py")
    rerun(at)
    box = at.checkbox(key=SHARE_PRIVATE_NAME)
    assert box.value is False and "link" in box.label
    files = json.loads(at.query_params["files"])
    assert [f["name"] for f in files] == ["public.csv", "the private file"]
    assert "secret_layoffs" not in json.dumps(dict(at.query_params))
    # Nor in the page: the scenario's title, and so every figure's settings and file name.
    assert at.session_state["scenario"].title == "Uploaded data: public.csv + the private file"
    assert "secret_layoffs" not in _page_text(at)
    box.check()
    rerun(at)
    files = json.loads(at.query_params["files"])
    assert [f["name"] for f in files] == ["public.csv", "secret_layoffs.csv"]
    assert "secret_layoffs.csv" in at.session_state["scenario"].title
    assert "secret_layoffs" in _page_text(at)
    assert SHARE_PRIVATE_NAME not in at.query_params  # the choice itself is never in a link


def test_a_links_empty_choices_stay_when_the_files_arrive():
    """A link made with no column left out (the owner used a suggested ID after all) keeps it
    so once the same files are uploaded, instead of the files' first suggestions."""
    from test_leaks import affairs_frame

    def with_row_numbers(frame):
        return frame.drop(columns="code").assign(row=range(len(frame))).to_csv(
            index=False).encode()

    public = with_row_numbers(affairs_frame(100, seed=21))
    private = with_row_numbers(affairs_frame(80, seed=22))
    at = app_support.start(timeout=TIMEOUT, source="Upload")
    _upload(at, public, private)
    assert at.multiselect(key="upload_exclude").value == ["row"]  # suggested: row numbers
    at = AppTest.from_file(str(app_support.ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["source"] = "Upload"
    at.query_params["upload_exclude"] = "[]"
    at.run()
    _upload(at, public, private)
    assert at.multiselect(key="upload_exclude").value == []
    assert "row" in at.session_state["scenario"].features
