"""Widget state that survives a page switch.

Streamlit forgets the state of a widget that the current page does not draw, and resets a widget
that a different page draws. :func:`keep_widget_state` copies each managed widget's value to a
plain session-state key (which Streamlit never forgets) and assigns it back before the widget is
drawn. Widgets managed here take their initial value from those defaults, never from ``value=``
or ``index=``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st


def keep_widget_state(defaults: Mapping[str, Any]) -> None:
    """Re-assign each widget's remembered value, or its default the first time."""
    for key, default in defaults.items():
        kept = f"_kept_{key}"
        value = st.session_state[key] if key in st.session_state else st.session_state.get(
            kept, default)
        st.session_state[key] = st.session_state[kept] = value


def choose(label: str, options: list[Any], key: str, default: Any = None, **kwargs: Any) -> Any:
    """A select box whose remembered value falls back to ``default`` (or the first option) when
    it is not among the options, for example after the scenario changed."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else options[0]
    return st.selectbox(label, options, key=key, **kwargs)
