"""Shareable links: every control in the URL, and a link that reopens the page as it was.

After each run, :func:`mirror` (called by :func:`ui.export.export_panel`) writes the run's
controls into ``st.query_params``: the sidebar's scenario keys, the page's control keys and its
seed, named by their widget keys. Numbers, booleans and None are written as JSON (``0.1``,
``true``, ``null``), strings as they are (a string that would read as JSON is quoted, so that it
comes back a string). An upload is named by its files' roles and names, the public file also by
its SHA-256 (the ``files`` parameter): no data, and nothing computed from a private file, is ever
put in the URL (a private file's digest would let anyone with the link test guesses about its
rows).

When a session starts, :func:`restore` (called by :func:`ui.state.hold_widget_state`, before any
widget is drawn) reads the URL once. Each known key is checked against its default's type and
against its control's domain (the options or the range the page draws it with, ``DOMAINS`` of
:mod:`dpcore.runs.scenarios` and of each page's study, see :mod:`dpcore.domains`), then set in
``st.session_state`` (and ``_kept_<key>``, where :func:`ui.state.keep_widget_state` keeps it); a
page's own first-run defaults cannot override it, because :func:`ui.state.keep_widget_state`
applies the link's value once more (:func:`claim`) as the widget is managed. A value read off the
data (a column, a category) is checked when its widget is drawn (:func:`settle`). A value that
does not fit (unknown key, wrong type, outside its control's options or range, not among the
data's choices) is never used: the control keeps its default, and a note in the main area names
the parameter and the value (:func:`show_link_messages`). A page never sees a value from a link
that its control could not take, so a link cannot raise a traceback. A link to an upload
scenario says which files to upload.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import ui.registry as registry
from dpcore.domains import Domain, NotFromLink, check
from dpcore.runs import scenarios, shareable_files
from dpcore.text import md
from ui.runconfig import PREFIXES, UPLOAD_FILES_KEY, plain, seed_key

RESTORED_KEY = "_link_restored"  # the URL was read in this session
PENDING_KEY = "_link_pending"    # key -> value, applied once more when the widget is managed
APPLIED_KEY = "_link_applied"    # key -> value, checked against the widget once it is drawn
LINKED_KEY = "_link_linked"      # key -> value, checked by settle() when its widget is drawn
MESSAGES_KEY = "_link_messages"  # notes for the main area
SLOT_KEY = "_link_slot"          # this run's place for the notes, in the main area
FILES_KEY = "_link_files"        # the files an upload link asks for
DATA_KEY = "_link_for_data"      # key -> value, taken by the first scenario's data defaults
FILES_PARAM = "files"
#: Query parameters that Streamlit itself reads (never controls).
STREAMLIT_PARAMS = frozenset({"embed", "embed_options"})
_QUOTED = 60  # characters of a link's value quoted in a note


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
    return json.dumps(plain(value), allow_nan=False, ensure_ascii=False)


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
        if isinstance(value, dict | list):
            raise InvalidValue("a control takes a number or a word here, not a "
                               f"{'mapping' if isinstance(value, dict) else 'list'}")
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
    if isinstance(default, dict) and not isinstance(value, dict):
        raise InvalidValue("expected a JSON object")
    return value


def _quote(text: str) -> str:
    """A link's value as a note quotes it: escaped (:func:`dpcore.text.md`), and shortened."""
    text = str(text)
    return md(text if len(text) <= _QUOTED else text[:_QUOTED - 1] + "…")


def _warn(message: str) -> None:
    """A note for the main area: into this run's slot once :func:`show_link_messages` has
    drawn it (a widget drawn later in the run), else kept until it is drawn."""
    slot = st.session_state.get(SLOT_KEY)
    if slot is not None and not _fragment_rerun():
        slot.warning(message, icon=":material/link_off:")
    else:
        st.session_state.setdefault(MESSAGES_KEY, []).append(message)


def _fragment_rerun() -> bool:
    ctx = get_script_run_ctx()
    return bool(ctx is not None and getattr(ctx, "fragment_ids_this_run", None))


def _ignored(key: str, text: str, reason: object) -> None:
    _warn(f"The link's value {_quote(text)} for {md(key)} was ignored: {md(reason)}. The "
          "control shows its default instead.")


def known_defaults() -> dict[str, Any]:
    """Every key a link may set, with its default: the sidebar's scenario keys, every page's
    controls and seed (where ``dpcore.runs.<page>`` exists)."""
    known = dict(scenarios.CONTROLS)
    for entry in registry.PAGES:
        study = entry.study
        if study is None:
            continue
        known.update(study.CONTROLS)
        if study.SEED_KEY:
            known[study.SEED_KEY] = 0
    return known


def known_domains() -> dict[str, Domain]:
    """The domain of every control a link may set (:mod:`dpcore.domains`): the sidebar's
    and every page's ``DOMAINS``. A switch has none (its type is its domain)."""
    domains = dict(scenarios.DOMAINS)
    for entry in registry.PAGES:
        study = entry.study
        if study is not None:
            domains.update(study.DOMAINS)
    return domains


def _prefixed(key: str) -> bool:
    return any(p and key.startswith(p) for p in PREFIXES.values())


def start_run() -> None:
    """At the start of every full run: no slot for notes until :func:`show_link_messages` draws
    this run's; then, once per session, :func:`restore`."""
    st.session_state.pop(SLOT_KEY, None)
    restore()


def restore() -> None:
    """Set every control a link names, once per session, before any widget is drawn.

    A value is set only when it fits its control's type and domain; any other is reported by a
    note (:func:`show_link_messages`) and the control keeps its default.
    """
    state = st.session_state
    if state.get(RESTORED_KEY):
        return
    state[RESTORED_KEY] = True
    params = {key: st.query_params[key] for key in st.query_params}
    if not params:
        return
    known, domains = known_defaults(), known_domains()
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
            value = check(domains, key, value)
        except ValueError as exc:  # InvalidValue, or outside the control's domain
            if not (isinstance(domains.get(key), NotFromLink) and key in known
                    and _same_as_default(text, known[key])):
                _ignored(key, text, exc)
            continue
        pending[key] = value
        if key in known:
            state[key] = state[f"_kept_{key}"] = value
            applied[key] = value
    state[PENDING_KEY] = pending
    state[APPLIED_KEY] = applied
    state[LINKED_KEY] = dict(pending)
    state[DATA_KEY] = dict(applied)


def data_default(key: str, computed: Any) -> Any:
    """The value a control that a page sets from the scenario's data (a λ chosen by a rule of
    the public set) takes when a scenario opens: the link's value the first time, else
    ``computed``.

    A link made on uploads is opened before its files arrive: the widget takes the link's value
    on the first run (:func:`claim`), and the page's defaults for the uploaded scenario, which
    come later, would replace it. The link's value is kept for them, once per key, so that the
    same files uploaded in a new tab show the link's controls and numbers.
    """
    linked = st.session_state.get(DATA_KEY) or {}
    return linked.pop(key) if key in linked else computed


def _same_as_default(text: str, default: Any) -> bool:
    """Whether a link's value is its control's default (an old link's unsettable control)."""
    try:
        return decode(text) == default
    except InvalidValue:
        return False


def _restore_files(text: str) -> None:
    """The files an upload link asks for: roles and names, and the public file's SHA-256. A
    private file's digest in an older link is dropped, never shown."""
    try:
        files = shareable_files(json.loads(text))
    except ValueError as exc:  # DataError and JSONDecodeError are ValueErrors
        _warn(f"The link's list of uploaded files could not be read ({md(exc)}); it was "
              "ignored.")
        return
    st.session_state[FILES_KEY] = files


def claim(key: str, default: Any, current: Any) -> Any:
    """The value a managed widget takes: the link's (once, checked against ``default`` and the
    control's domain), else ``current``. Called by :func:`ui.state.keep_widget_state`."""
    pending = st.session_state.get(PENDING_KEY)
    if not pending or key not in pending:
        return current
    value = pending.pop(key)
    try:
        value = check(known_domains(), key, fit_value(value, default))
    except ValueError as exc:  # InvalidValue, or outside the control's domain
        _ignored(key, encode(value), exc)
        st.session_state.get(APPLIED_KEY, {}).pop(key, None)
        st.session_state.get(LINKED_KEY, {}).pop(key, None)
        return current
    return value


def settle(key: str, accepts: Callable[[Any], bool], fallback: Any) -> None:
    """Before a managed widget is drawn: a value it cannot take becomes ``fallback``.

    Called by the widget helpers (:func:`ui.state.choose`, :mod:`ui.widgets`) after
    :func:`ui.state.keep_widget_state`, with the widget's own test (its options, its range). A
    value that came from this session's link gets a note naming the parameter; any other (a
    value kept from another scenario) changes without one, as Streamlit's own reset would.
    """
    state = st.session_state
    linked = state.get(LINKED_KEY) or {}
    from_link = key in linked and linked.pop(key) == state.get(key)
    if accepts(state.get(key)):
        return
    if from_link:
        _warn(f"The link's value {_quote(encode(state[key]))} for {md(key)} is not among the "
              f"choices here; {_quote(encode(fallback))} is shown instead.")
        (state.get(APPLIED_KEY) or {}).pop(key, None)
    state[key] = state[f"_kept_{key}"] = fallback


def parameters(page: str, config: Mapping[str, Any]) -> dict[str, str]:
    """The query parameters of a run config (see :func:`ui.runconfig.run_config`). A control that
    a link cannot set (:class:`dpcore.domains.NotFromLink`) is left out."""
    unsettable = {key for key, domain in known_domains().items()
                  if isinstance(domain, NotFromLink)}
    params: dict[str, str] = {}
    for key, value in config["scenario"].items():
        if key == "files":
            params[FILES_PARAM] = json.dumps(shareable_files(value), ensure_ascii=False,
                                             separators=(",", ":"))
        else:
            params[key] = encode(value)
    for key, value in config["controls"].items():
        if key not in unsettable:
            params[key] = encode(value)
    key_of_seed = seed_key(page)
    if key_of_seed:
        params[key_of_seed] = encode(config["seed"])
    # Any other widget the page keeps (a control that its study does not read), and the
    # link's values for widgets this run has not reached yet.
    state, prefix = st.session_state, PREFIXES.get(page)
    if prefix:
        extra = {key: state[key] for key in sorted(state.get("_held_widget_keys", ()))
                 if key in state}
        extra.update(state.get(PENDING_KEY) or {})
        for key, value in extra.items():
            if key.startswith(prefix) and key not in params and key not in unsettable:
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
    """In the main area: what a link could not restore, and the files an upload link needs.

    Draws this run's place for the notes: a widget drawn later in the run that cannot take its
    link's value (:func:`settle`) adds its note there.
    """
    state = st.session_state
    applied = state.pop(APPLIED_KEY, None) or {}
    for key, value in applied.items():  # the widgets drawn so far (the sidebar) have checked
        if key in state and state[key] != value:
            _warn(f"The link's value {_quote(encode(value))} for {md(key)} is not among the "
                  f"choices here; {_quote(encode(state[key]))} is shown instead.")
    slot = st.container()
    for message in state.pop(MESSAGES_KEY, []):
        slot.warning(message, icon=":material/link_off:")
    if not _fragment_rerun():
        state[SLOT_KEY] = slot
    _show_files()


def _show_files() -> None:
    """The files an upload link asks for, until they are uploaded: the public file's SHA-256
    is checked; a private file is named only, so its name is all the note can give."""
    state = st.session_state
    files = state.get(FILES_KEY)
    if not files or state.get("source") != "Upload":
        return
    uploaded = state.get(UPLOAD_FILES_KEY, [])
    digests = {f.get("sha256") for f in uploaded if f.get("role") == "public"}
    roles = {f.get("role") for f in uploaded}
    missing = [f for f in files
               if (f["sha256"] not in digests if f.get("sha256") else f["role"] not in roles)]
    if not missing:
        state.pop(FILES_KEY)
        return
    lines = "\n".join(
        f"- {md(f['role'])}: **{md(f['name'])}**"
        + (f" (SHA-256 `{f['sha256']}`, checked when it is uploaded)" if f.get("sha256")
           else " (named only: a link holds nothing computed from a private file)")
        for f in missing)
    st.info("This link was made with uploaded files, which a link never carries. Upload the "
            f"same files in the sidebar to reproduce it:\n{lines}", icon=":material/upload:")
