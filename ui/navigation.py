"""The app's pages, and a guard that makes a direct link behave like the navigation.

On a freshly started server Streamlit serves a link to ``/<page>`` in its old pages-directory
mode (``pages/<page>.py`` run on its own, with file names as navigation and the narrow layout)
until ``st.navigation`` has run once in the process. :func:`require_router`, the first call of
every page, declares the navigation (which switches that mode off for the process) and reruns, so
``app.py`` routes to the same page. It also serves the Publish presses of the run
(:func:`ui.release.serve_presses`): every page calls it first, whichever way it is run.
"""

from __future__ import annotations

import streamlit as st

from ui.presentation import presentation_toggle
from ui.registry import PAGES
from ui.release import serve_presses
from ui.state import hold_widget_state

_ROUTED = False  # has st.navigation run in this server process?


def pages() -> dict[str, list[st.Page]]:
    """Every page of :data:`ui.registry.PAGES` as an ``st.Page``, by section."""
    sections: dict[str, list[st.Page]] = {}
    for entry in PAGES:
        sections.setdefault(entry.section, []).append(
            st.Page(entry.path, title=entry.title, icon=entry.icon, default=entry.default))
    return sections


def route() -> None:
    """``app.py``'s whole work: page set-up, then run the chosen page."""
    global _ROUTED
    st.set_page_config(page_title="Privacy/utility explorer", page_icon=":material/lock:",
                       layout="wide")
    hold_widget_state()
    navigation = st.navigation(pages())
    _ROUTED = True
    presentation_toggle(navigation)
    navigation.run()


def require_router() -> None:
    """Reroute a page that Streamlit ran on its own (a direct link on a fresh server); then
    serve the Publish presses that reached this run (:func:`ui.release.serve_presses`), before
    the page draws anything."""
    global _ROUTED
    if not _ROUTED:
        st.navigation(pages())
        _ROUTED = True
        st.rerun()
    serve_presses()
