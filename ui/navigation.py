"""The app's pages, and a guard that makes a direct link behave like the navigation.

On a freshly started server Streamlit serves a link to ``/<page>`` in its old pages-directory
mode (``pages/<page>.py`` run on its own, with file names as navigation and the narrow layout)
until ``st.navigation`` has run once in the process. :func:`require_router`, the first call of
every page, declares the navigation (which switches that mode off for the process) and reruns, so
``app.py`` routes to the same page.
"""

from __future__ import annotations

import streamlit as st

from ui.presentation import presentation_toggle
from ui.state import hold_widget_state

_ROUTED = False  # has st.navigation run in this server process?


def pages() -> dict[str, list]:
    """Every page, by section. To add one, add a single ``st.Page`` line to its section."""
    return {
        "Start": [
            st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
            st.Page("pages/primer.py", title="Mechanism primer", icon=":material/school:"),
            st.Page("pages/present.py", title="Present", icon=":material/slideshow:"),
        ],
        "Publishing with a public set": [
            st.Page("pages/importance.py", title="Importance weighting",
                    icon=":material/balance:"),
            st.Page("pages/subset.py", title="Optimal public subset",
                    icon=":material/filter_list:"),
        ],
        "Private models": [
            st.Page("pages/perturbation.py", title="Private logistic regression",
                    icon=":material/tune:"),
            st.Page("pages/masking.py", title="Data masking", icon=":material/masks:"),
        ],
        "Trust": [
            st.Page("pages/audit.py", title="Privacy audit", icon=":material/fact_check:"),
        ],
        "Deciding": [
            st.Page("pages/choose_epsilon.py", title="Choose epsilon", icon=":material/key:"),
        ],
    }


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
    """Reroute a page that Streamlit ran on its own (a direct link on a fresh server)."""
    global _ROUTED
    if not _ROUTED:
        st.navigation(pages())
        _ROUTED = True
        st.rerun()
