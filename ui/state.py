"""Widget state that survives a page switch.

Streamlit forgets the state of a widget that the current page does not draw, and resets a widget
that a different page draws. :func:`keep_widget_state` copies each managed widget's value to a
plain session-state key (which Streamlit never forgets) and assigns it back before the widget is
drawn. Widgets managed here take their initial value from those defaults, never from ``value=``
or ``index=``.

A value that the widget about to be drawn cannot take (not among its options: a link's value, or
one kept from another scenario) is replaced by the default before the widget sees it
(:func:`ui.links.settle`), with a note in the main area where it came from a link.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

import ui.links as links

_HELD = "_held_widget_keys"


def hold_widget_state() -> None:
    """Stop Streamlit from forgetting managed widgets that this page does not draw.

    Streamlit's documented pattern: re-assigning a widget's key at the start of a run keeps its
    state through a run that does not draw it. Called by ``app.py`` and by the scenario sidebar
    at the start of every page. The first run of a session also restores the controls a
    shareable link names (:func:`ui.links.restore`), before any widget is drawn.
    """
    links.start_run()
    for key in st.session_state.get(_HELD, ()):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def keep_widget_state(defaults: Mapping[str, Any]) -> None:
    """Re-assign each widget's remembered value, or its default the first time (or, once, the
    value a shareable link gave it: :func:`ui.links.claim`)."""
    held = st.session_state.setdefault(_HELD, set())
    for key, default in defaults.items():
        kept = f"_kept_{key}"
        value = st.session_state[key] if key in st.session_state else st.session_state.get(
            kept, default)
        value = links.claim(key, default, value)
        st.session_state[key] = st.session_state[kept] = value
        held.add(key)


def choose(label: str, options: list[Any], key: str, default: Any = None, **kwargs: Any) -> Any:
    """A select box that keeps its value across pages, falling back to ``default`` (or the first
    option) when the value is not among the options, for example after the scenario changed."""
    fallback = default if default in options else options[0]
    keep_widget_state({key: fallback})
    links.settle(key, lambda value: value in options, fallback)
    return st.selectbox(label, options, key=key, **kwargs)
