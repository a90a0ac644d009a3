"""The scenario chooser that every page draws first, in the sidebar.

A page calls :func:`scenario_sidebar` and gets the current :class:`~dpcore.datasets.Scenario` (or
None before one is loaded). The choice lives in ``st.session_state`` so every page shares it:

``st.session_state["scenario"]``
    The current Scenario. Only a scenario that loaded without error is stored, so a bad upload
    or option never loses the previous one.
``st.session_state["scenario_id"]``
    A short string that changes whenever the scenario does (built-in options and seed, or a
    SHA-256 of the uploaded bytes and options): a cheap cache key for pages.
``st.session_state["upload_report"]``
    The :class:`~dpcore.datasets.UploadReport` of an uploaded scenario, else None.

The widgets (all keyed, see ``_DEFAULTS``) are drawn by each page, so Streamlit would reset them
on a page switch; :func:`ui.state.keep_widget_state` re-assigns their values first, Streamlit's
documented way to keep widget state across pages. File uploaders cannot be re-assigned: after a
page switch they are empty and the uploaded scenario stays current until a new file is chosen.
"""

from __future__ import annotations

import functools
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from dpcore import DataError
from dpcore.datasets import (
    PUBLIC_OPTIONS,
    Scenario,
    UploadReport,
    align_columns,
    infer_column_types,
    list_scenarios,
    read_csv_upload,
    scenario_from_uploads,
    scenario_title,
    split_by_value,
    split_random,
)
from ui.cache import content_key, load_builtin, session_memo
from ui.state import choose, keep_widget_state

SCENARIO_KEY = "scenario"
SCENARIO_ID_KEY = "scenario_id"
REPORT_KEY = "upload_report"

BUILTIN, UPLOAD = "Built-in", "Upload"
TWO_FILES, ONE_FILE = "Public and private files", "One file, split by a rule"
BY_VALUE, AT_RANDOM = "By a column value (biased)", "At random"
MAX_SPLIT_VALUES = 50  # most frequent values offered for a split rule
UPLOAD_SEED = 0  # seed of a split when the seed box is empty

_PUBLIC_LABELS = {
    "default": "The scenario's own public set",
    "identical": "Identical to the private set (E = D)",
    "uniform": "Uniform over the domain",
    "bootstrap": "Bootstrap resample of the private set",
}
_ENCODING_LABELS = {
    "onehot": "One-hot items (arules)",
    "compact": "Compact (k - 1 items, as the paper)",
}
_SHIFT_LABELS = {
    "paper": "As the paper (first for p ≤ 2, else all)",
    "first": "First coordinate only",
    "all": "Every coordinate",
}
# Options of load_scenario that only some scenarios take.
_ENCODINGS = {"adult": tuple(_ENCODING_LABELS)}
_DIMENSION_SCENARIOS = {"mvn-shift"}

# Initial values of the widgets whose state must survive a page switch.
_DEFAULTS: dict[str, Any] = {
    "source": BUILTIN,
    "builtin_name": "adult",
    "builtin_public": "default",
    "builtin_encoding": "onehot",
    "builtin_p": 2,
    "builtin_shift": "paper",
    "seed": None,
    "upload_mode": TWO_FILES,
    "upload_target": None,
    "upload_drop_missing": False,
    "split_rule": BY_VALUE,
    "split_column": None,
    "split_value": None,
    "split_p": 0.9,
    "split_fraction": 0.5,
}


def scenario_sidebar() -> Scenario | None:
    """Draw the scenario chooser in the sidebar and return the current scenario."""
    keep_widget_state(_DEFAULTS)
    with st.sidebar:
        st.header("Scenario")
        source = st.radio("Data", (BUILTIN, UPLOAD), key="source", horizontal=True)
        if source == BUILTIN:
            _builtin_panel()
        else:
            _upload_panel()
    return current_scenario()


def current_scenario() -> Scenario | None:
    """The scenario chosen in the sidebar, or None before one has loaded."""
    return st.session_state.get(SCENARIO_KEY)


def current_upload_report() -> UploadReport | None:
    """How the current scenario's uploaded files were read and encoded (None for a built-in)."""
    return st.session_state.get(REPORT_KEY)


def _set_current(scenario: Scenario, scenario_id: str, report: UploadReport | None) -> None:
    st.session_state[SCENARIO_KEY] = scenario
    st.session_state[SCENARIO_ID_KEY] = scenario_id
    st.session_state[REPORT_KEY] = report


def _show_problems(problems: list[str]) -> None:
    for problem in problems:
        st.error(problem, icon="⚠️")
    previous = current_scenario()
    if problems and previous is not None:
        st.caption(f"Still showing the previous scenario: **{previous.title}**.")


def _seed_input() -> int | None:
    return st.number_input(
        "Random seed",
        min_value=0,
        step=1,
        key="seed",
        placeholder="the scenario's own",
        help="Seeds the split and any simulated data. Leave empty for the scenario's fixed seed.",
    )


def _builtin_panel() -> None:
    name = choose("Scenario", list_scenarios(), "builtin_name", format_func=scenario_title)
    public = st.selectbox(
        "Public set E", PUBLIC_OPTIONS, key="builtin_public", format_func=_PUBLIC_LABELS.get
    )
    options: dict[str, Any] = {}
    if name in _ENCODINGS:
        options["encoding"] = st.radio(
            "Encoding", _ENCODINGS[name], key="builtin_encoding", format_func=_ENCODING_LABELS.get
        )
    if name in _DIMENSION_SCENARIOS:
        options["p"] = int(st.number_input("Dimension p", 1, 100, step=1, key="builtin_p"))
        options["shift"] = st.selectbox(
            "Covariates with smaller variance in E",
            tuple(_SHIFT_LABELS),
            key="builtin_shift",
            format_func=_SHIFT_LABELS.get,
        )
    seed = _seed_input()
    scenario_id = content_key("builtin", name, public, sorted(options.items()), seed)
    try:
        scenario = load_builtin(name, seed=seed, public=public, **options)
    except ValueError as exc:
        _show_problems([str(exc)])
        return
    _set_current(scenario, scenario_id, None)


def _upload_panel() -> None:
    st.caption(
        "Uploads stay in the server's memory for this session only: never saved to disk, logged "
        "or shared with other sessions."
    )
    mode = st.radio("Files", (TWO_FILES, ONE_FILE), key="upload_mode")
    if mode == TWO_FILES:
        files = [
            st.file_uploader("Public CSV (E)", key="upload_public"),
            st.file_uploader("Private CSV (D)", key="upload_private"),
        ]
    else:
        files = [st.file_uploader("CSV to split into E and D", key="upload_single")]
    problems: list[str] = []
    frames = [_read(file, problems) for file in files]
    if any(file is None for file in files):
        _waiting_for_files()
    elif not problems:
        _build_from_frames(mode, files, frames, problems)
    _show_problems(problems)


def _waiting_for_files() -> None:
    previous = current_scenario()
    if current_upload_report() is not None:
        st.caption("Using the data uploaded earlier in this session; upload files to change it.")
    elif previous is not None:
        st.caption(
            "Upload CSV files (comma-separated, UTF-8, one header row). Until then the pages "
            f"show **{previous.title}**."
        )
    else:
        st.caption("Upload CSV files (comma-separated, UTF-8, one header row).")


def _read(file: UploadedFile | None, problems: list[str]) -> pd.DataFrame | None:
    if file is None:
        return None
    data = file.getvalue()
    try:
        read = functools.partial(read_csv_upload, data, file.name)
        return session_memo(content_key("csv", data, file.name), read)
    except DataError as exc:
        problems.append(str(exc))
        return None


def _build_from_frames(
    mode: str, files: list[UploadedFile], frames: list[pd.DataFrame], problems: list[str]
) -> None:
    contents = [file.getvalue() for file in files]
    try:
        if mode == TWO_FILES:
            public, private = frames
            rule: tuple[Any, ...] = ()
        else:
            public, private, rule = _split_panel(frames[0], contents[0])
        shared, _, _ = align_columns(public, private)
    except ValueError as exc:
        problems.append(str(exc))
        return
    with st.expander("Column types"):
        st.dataframe(infer_column_types(shared), hide_index=True)
    target = choose(
        "Target (column to predict)",
        [None, *shared.columns],
        "upload_target",
        format_func=lambda col: "(none)" if col is None else col,
    )
    drop_missing = st.checkbox("Drop rows with missing values", key="upload_drop_missing")
    names = [file.name for file in files]
    build = functools.partial(
        scenario_from_uploads, public, private, target=target, drop_missing=drop_missing,
        title="Uploaded data: " + " + ".join(names),
    )  # fmt: skip
    scenario_id = content_key("upload", mode, *names, *contents, *rule, target, drop_missing)
    try:
        scenario, report = session_memo(scenario_id, build)
    except ValueError as exc:
        problems.append(str(exc))
        return
    _set_current(scenario, scenario_id, report)


def _split_panel(
    frame: pd.DataFrame, content: bytes
) -> tuple[pd.DataFrame, pd.DataFrame, tuple[Any, ...]]:
    """Widgets for the split rule; returns (public, private, the rule's settings)."""
    rule = st.radio("Split rule", (BY_VALUE, AT_RANDOM), key="split_rule")
    if rule == BY_VALUE:
        column = choose("Column", list(frame.columns), "split_column")
        values = list(frame[column].value_counts().index[:MAX_SPLIT_VALUES])
        if not values:
            raise DataError(f"Column {column!r} has no values to split by; choose another.")
        value = choose("Value", values, "split_value")
        p = st.slider("Share of those rows made private", 0.5, 1.0, step=0.05, key="split_p")
        st.caption(
            f"{p:.0%} of the rows with {column} = {value} and {1 - p:.0%} of the others go to "
            f"D; then {column!r} is removed, as Ji & Elkan remove sex from Adult."
        )
        settings: tuple[Any, ...] = (rule, column, repr(value), p)
        split = functools.partial(split_by_value, frame, column, value, p=p)
    else:
        fraction = st.slider(
            "Share of rows made private", 0.1, 0.9, step=0.05, key="split_fraction"
        )
        settings = (rule, fraction)
        split = functools.partial(split_random, frame, fraction)
    seed = _seed_input()
    rng = UPLOAD_SEED if seed is None else seed
    key = content_key("split", content, *settings, rng)
    public, private = session_memo(key, functools.partial(split, rng=rng))
    return public, private, (*settings, rng)
