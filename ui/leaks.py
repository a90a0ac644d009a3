"""Home's warning about columns that give the target away, each with a one-click "leave out"."""

from __future__ import annotations

import streamlit as st

from dpcore.datasets import UploadReport
from dpcore.text import md

__all__ = ["EXCLUDE_KEY", "leak_warnings"]

#: The sidebar's "Columns left out" key (kept in the session and in links, like every column
#: choice of an upload).
EXCLUDE_KEY = "upload_exclude"


def _leave_out(column: str) -> None:
    """Add ``column`` to the left-out columns (a callback: it runs before the sidebar's widget
    is drawn again, so it may set the widget's value)."""
    kept = list(st.session_state.get(EXCLUDE_KEY) or ())
    if column not in kept:
        st.session_state[EXCLUDE_KEY] = [*kept, column]


def leak_warnings(report: UploadReport | None, target: str | None) -> None:
    """A warning per column of ``report.leaks``, each with a button that leaves it out."""
    if report is None or not report.leaks:
        return
    for leak in report.leaks:
        st.warning(
            f"**{md(leak.column)}** alone predicts the target {md(target or '')} on the public "
            f"file: its best rule is right for {leak.accuracy:.1%} of the public rows, against "
            f"{leak.majority:.1%} for always guessing the most frequent class. A model that "
            "uses it learns the rule that made the target, not what the other columns say; "
            "leave it out unless it is known before the target is.",
            icon=":material/warning:")
        st.button(f"Leave out {md(leak.column)}", key=f"leave_out_{leak.column}",
                  on_click=_leave_out, args=(leak.column,), icon=":material/remove_circle:")
