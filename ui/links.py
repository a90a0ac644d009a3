"""Shareable links: every control in the URL, and a link that reopens the page as it was.

After each run, :func:`mirror` (called by :func:`ui.export.export_panel`) writes the run's
controls into ``st.query_params``: the sidebar's scenario keys, the page's control keys and its
seed, named by their widget keys. Numbers, booleans and None are written as JSON (``0.1``,
``true``, ``null``), strings as they are (a string that would read as JSON is quoted, so that it
comes back a string). An upload is named by its files' names and SHA-256 (the ``files``
parameter); no data is ever put in the URL.

When a session starts, :func:`restore` (called by :func:`ui.state.hold_widget_state`, before any
widget is drawn) reads the URL once: each known key is checked against its default's type and
set in ``st.session_state`` (and ``_kept_<key>``, where :func:`ui.state.keep_widget_state` keeps
it); a page's own first-run defaults cannot override it, because
:func:`ui.state.keep_widget_state` applies the link's value once more (:func:`claim`) as the
widget is managed. Values that do not fit (wrong type, unknown key, or not among the widget's
choices) are ignored with a warning in the main area (:func:`show_link_messages`). A link to an
upload scenario says which files to upload.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import streamlit as st

from dpcore.text import md
from ui import export

RESTORED_KEY = "_link_restored"  # the URL was read in this session
PENDING_KEY = "_link_pending"    # key -> value, applied once more when the widget is managed
APPLIED_KEY = "_link_applied"    # key -> value, checked against the widget once it is drawn
MESSAGES_KEY = "_link_messages"  # warnings for the main area
FILES_KEY = "_link_files"        # the files an upload link asks for
FILES_PARAM = "files"
ROLES = ("public", "private", "single")
#: Query parameters that Streamlit itself reads (never controls).
STREAMLIT_PARAMS = frozenset({"embed", "embed_options"})


class InvalidValue(ValueError):
    """A link's value that does not fit its control."""


def _no_constant(name: str) -> float:
    raise InvalidValue(f"{name} is not a number a control can take")


def encode(value: Any) -> str:
    """A control's value as a query parameter: strings plain, anything else as JSON.

    >>> encode(0.1), encode(True), encode(None), encode("Estimates vs ε"), encode("0.5")
    ('0.1', 'true', 'null', 'Estimates vs ε', '"0.5"')
    """
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError:
            return value
        return json.dumps(value, ensure_ascii=False)  # it would read back as JSON: quote it
    return json.dumps(export._plain(value), allow_nan=False, ensure_ascii=False)


def decode(text: str) -> Any:
    """A query parameter back as a value (the inverse of :func:`encode`).

    >>> decode("0.1"), decode("true"), decode("null"), decode("Estimates vs ε"), decode('"0.5"')
    (0.1, True, None, 'Estimates vs ε', '0.5')
    """
    try:
        return json.loads(text, parse_constant=_no_constant)
    except InvalidValue:
        raise
    except ValueError:
        return text


def fit_value(value: Any, default: Any, *, text: str | None = None) -> Any:
    """``value`` converted to the type of the control whose default is ``default``.

    Raises
    ------
    InvalidValue
        When the value cannot be the control's (a word for a number, a number for a switch).
    """
    if default is None:
        if isinstance(value, dict):
            raise InvalidValue("a control takes a number, a word or a list, not a mapping")
        return value
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InvalidValue("expected true or false")
        return value
    if isinstance(default, int | float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidValue("expected a number")
        if not math.isfinite(value):
            raise InvalidValue("expected a finite number")
        if isinstance(default, int):
            if float(value) != int(value):
                raise InvalidValue("expected a whole number")
            return int(value)
        return float(value)
    if isinstance(default, str):
        if isinstance(value, str):
            return value
        if text is not None:  # a word that reads as JSON (such as 2 or null): keep the word
            return text
        raise InvalidValue("expected a word")
    if isinstance(default, list | tuple):
        if not isinstance(value, list):
            raise InvalidValue("expected a list")
        return type(default)(value)
    return value


def _warn(message: str) -> None:
    st.session_state.setdefault(MESSAGES_KEY, []).append(message)


def known_defaults() -> dict[str, Any]:
    """Every key a link may set, with its default: the sidebar's scenario keys, every page's
    controls and seed (where ``dpcore.runs.<page>`` exists)."""
    from ui.sidebar import _DEFAULTS

    known = dict(_DEFAULTS)
    for page in export.PREFIXES:
        module = export.page_module(page)
        if module is None:
            continue
        known.update(module.CONTROLS)
        if module.SEED_KEY:
            known[module.SEED_KEY] = 0
    return known


def _prefixed(key: str) -> bool:
    return any(p and key.startswith(p) for p in export.PREFIXES.values())


def restore() -> None:
    """Set every control a link names, once per session, before any widget is drawn."""
    state = st.session_state
    if state.get(RESTORED_KEY):
        return
    state[RESTORED_KEY] = True
    params = {key: st.query_params[key] for key in st.query_params}
    if not params:
        return
    known = known_defaults()
    pending: dict[str, Any] = {}
    applied: dict[str, Any] = {}
    for key, text in params.items():
        if key in STREAMLIT_PARAMS:
            continue
        if key == FILES_PARAM:
            _restore_files(text)
            continue
        if key.startswith("_") or (key not in known and not _prefixed(key)):
            _warn(f"The link's setting {md(key)} is not a control of this app; it was ignored.")
            continue
        try:
            value = decode(text)
            if key in known:
                value = fit_value(value, known[key], text=text)
        except InvalidValue as exc:
            _warn(f"The link's value {md(text)} for {md(key)} was ignored: {exc}.")
            continue
        pending[key] = value
        if key in known:
            state[key] = state[f"_kept_{key}"] = value
            applied[key] = value
    state[PENDING_KEY] = pending
    state[APPLIED_KEY] = applied


def _restore_files(text: str) -> None:
    try:
        files = json.loads(text)
        files = [{"role": str(f["role"]), "name": str(f["name"]), "sha256": str(f["sha256"])}
                 for f in files]
        for f in files:
            if f["role"] not in ROLES or not re.fullmatch(r"[0-9a-f]{64}", f["sha256"]):
                raise ValueError(f"expected roles {', '.join(ROLES)} and 64 hex digits")
    except (ValueError, TypeError, KeyError) as exc:
        _warn(f"The link's list of uploaded files could not be read ({md(exc)}); it was "
              "ignored.")
        return
    st.session_state[FILES_KEY] = files


def claim(key: str, default: Any, current: Any) -> Any:
    """The value a managed widget takes: the link's (once, checked against ``default``), else
    ``current``. Called by :func:`ui.state.keep_widget_state`."""
    pending = st.session_state.get(PENDING_KEY)
    if not pending or key not in pending:
        return current
    value = pending.pop(key)
    try:
        return fit_value(value, default)
    except InvalidValue as exc:
        _warn(f"The link's value {md(encode(value))} for {md(key)} was ignored: {exc}.")
        st.session_state.get(APPLIED_KEY, {}).pop(key, None)
        return current


def parameters(page: str, config: Mapping[str, Any]) -> dict[str, str]:
    """The query parameters of a run config (see :func:`ui.export.run_config`)."""
    params: dict[str, str] = {}
    for key, value in config["scenario"].items():
        if key == "files":
            params[FILES_PARAM] = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        else:
            params[key] = encode(value)
    for key, value in config["controls"].items():
        params[key] = encode(value)
    seed_key = export.seed_key(page)
    if seed_key:
        params[seed_key] = encode(config["seed"])
    # Any other widget the page keeps (a control that its run module does not read), and the
    # link's values for widgets this run has not reached yet.
    state, prefix = st.session_state, export.PREFIXES.get(page)
    if prefix:
        extra = {key: state[key] for key in sorted(state.get("_held_widget_keys", ()))
                 if key in state}
        extra.update(state.get(PENDING_KEY) or {})
        for key, value in extra.items():
            if key.startswith(prefix) and key not in params:
                try:
                    params[key] = encode(value)
                except (TypeError, ValueError):  # not a JSON value: not a control
                    continue
    return params


def mirror(page: str, config: Mapping[str, Any]) -> None:
    """Write the run's controls into the URL (only when they changed)."""
    params = parameters(page, config)
    current = {key: st.query_params[key] for key in st.query_params}
    if current != params:
        st.query_params.from_dict(params)


def show_link_messages() -> None:
    """In the main area: what a link could not restore, and the files an upload link needs."""
    state = st.session_state
    applied = state.pop(APPLIED_KEY, None) or {}
    for key, value in applied.items():  # the widgets drawn so far (the sidebar) have checked
        if key in state and state[key] != value:
            _warn(f"The link's value {md(encode(value))} for {md(key)} is not among the "
                  f"choices here; {md(encode(state[key]))} is shown instead.")
    for message in state.pop(MESSAGES_KEY, []):
        st.warning(message, icon=":material/link_off:")
    files = state.get(FILES_KEY)
    if not files or state.get("source") != "Upload":
        return
    uploaded = {f["sha256"] for f in state.get(export.UPLOAD_FILES_KEY, [])}
    missing = [f for f in files if f["sha256"] not in uploaded]
    if not missing:
        state.pop(FILES_KEY)
        return
    lines = "\n".join(f"- {md(f['role'])}: **{md(f['name'])}** (SHA-256 `{f['sha256']}`)"
                      for f in missing)
    st.info("This link was made with uploaded files, which a link never carries. Upload the "
            f"same files in the sidebar to reproduce it:\n{lines}", icon=":material/upload:")
