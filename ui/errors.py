"""Show problems as messages, never as tracebacks."""

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from dpcore.text import md


@contextmanager
def show_errors() -> Iterator[None]:
    """Run a block of page code and show a ``ValueError`` (``DataError`` included) as ``st.error``.

    ``dpcore`` raises ``DataError``/``ValueError`` with a message that says what is wrong and what
    to do, so the message is all a reader needs. Anything else is a bug: Streamlit shows it without
    details (``client.showErrorDetails = "none"`` in ``.streamlit/config.toml``). The message is
    shown as text: it may quote a file name, a column or a value from an upload, which must not
    be rendered as Markdown (:func:`dpcore.text.md`).
    """
    try:
        yield
    except ValueError as exc:
        st.error(md(exc), icon="⚠️")
