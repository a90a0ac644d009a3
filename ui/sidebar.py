"""The scenario chooser that every page draws first, in the sidebar.

A page calls :func:`scenario_sidebar` and gets the current :class:`~dpcore.datasets.Scenario` (or
None before one is loaded). The choice lives in ``st.session_state`` so every page shares it:

``st.session_state["scenario"]``
    The current Scenario. Only a scenario that loaded without error is stored, so a bad upload
    or option never loses the previous one.
``st.session_state["scenario_id"]``
    A short string that changes whenever the scenario does (built-in options and seed, or a
    SHA-256 of the uploaded bytes and options): a cheap cache key for pages. For an upload it is
    a function of the private file, so it stays a key of this session's own memory (never a
    URL, config, script, file name or shared cache).
``st.session_state["upload_report"]``
    The :class:`~dpcore.datasets.UploadReport` of an uploaded scenario, else None.
``st.session_state["upload_files"]``
    The uploaded scenario's files as ``[{"role", "name", "sha256"}]`` (role "public", "private"
    or "single"): what an exported config or a shareable link names instead of the data.
    ``sha256`` is the public file's digest, and None for "private" and "single" (the single
    file holds the private rows): a link or config carries nothing computed from private data,
    since a digest lets anyone who knows all but one private row find that row by trying its
    possible values.

Reading: the public file with its own types; a file that holds private rows (the private file,
or one file to be split) with ``read_csv_upload(..., private=True)``, so that nothing it
decides (refused or not, columns, types, number of rows) turns on a private value; the public
part of a split gets its types from its own rows (:func:`~dpcore.datasets.type_columns`).

The widgets (all keyed, see :data:`dpcore.runs.scenarios.CONTROLS`) are drawn by each page, so
Streamlit would reset them on a page switch; :func:`ui.state.keep_widget_state` re-assigns their
values first, Streamlit's documented way to keep widget state across pages. File uploaders cannot
be re-assigned: after a page switch they are empty. So the uploaded files are kept in this
session's memory (:class:`KeptFile`, never on disk or in a shared cache) and the options that
read them (columns left out or read as categories, target and its positive class, split,
missing values) stay drawn and editable on every page, until the person uploads other files or
forgets these. Every option's choices and defaults are read from the public rows only.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

import ui.memory as memory
from dpcore import DataError
from dpcore.datasets import (
    MAX_SPLIT_VALUES,
    MAX_UPLOAD_BYTES,
    PUBLIC_OPTIONS,
    MostlyNumbersError,
    Scenario,
    UploadReport,
    align_columns,
    columns_to_leave_out,
    infer_column_types,
    likely_target,
    list_scenarios,
    read_csv_upload,
    scenario_from_uploads,
    scenario_title,
    split_by_value,
    split_columns,
    split_random,
    target_classes,
    type_columns,
)
from dpcore.runs.scenarios import (
    AT_RANDOM,
    BUILTIN,
    BY_VALUE,
    CONTROLS,
    ONE_FILE,
    TWO_FILES,
    UPLOAD,
    UPLOAD_SEED,
)
from dpcore.text import md
from ui.cache import content_key, load_builtin, session_memo, session_memo_has
from ui.links import data_default
from ui.runconfig import HIDDEN_NAMES, SHARE_PRIVATE_NAME, SHARE_SPLIT_VALUE
from ui.state import choose, hold_widget_state, keep_widget_state

SCENARIO_KEY = "scenario"
SCENARIO_ID_KEY = "scenario_id"
REPORT_KEY = "upload_report"
UPLOAD_FILES_KEY = "upload_files"
PROBLEMS_KEY = "_scenario_problems"
#: Whether this run's main area already says why there is no scenario (a refusal, a prompt).
EXPLAINED_KEY = "_scenario_explained"
_NOT_LINKED = object()  # a choice that no link made
_CHOSEN_FOR = "_upload_chosen_for"  # the files whose target and left-out columns were pre-set
KEPT_KEY = "_upload_kept"  # {uploader key: KeptFile}: this session's files, in its memory only
LIMIT_TEXT = (f"CSV files up to {MAX_UPLOAD_BYTES // 2**20} MB each (comma-separated, UTF-8, "
              "one header row); a larger file is refused by the uploader, which marks it with a "
              "red icon (its tooltip gives the reason), and never reaches the app.")


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



def scenario_sidebar() -> Scenario | None:
    """Draw the scenario chooser in the sidebar and return the current scenario.

    When the sidebar's choice cannot be used (a refused upload or split), the reasons are shown
    in the main area as well, and None is returned: a page never shows data that no longer
    matches the sidebar. The last good scenario is kept, and comes back when the choice is
    undone.
    """
    hold_widget_state()
    keep_widget_state(CONTROLS)
    st.session_state[PROBLEMS_KEY] = []
    prompt = None
    with st.sidebar:
        st.header("Scenario")
        source = st.radio("Data", (BUILTIN, UPLOAD), key="source", horizontal=True)
        if source == BUILTIN:
            _builtin_panel()
        else:
            prompt = _upload_panel()
    problems = st.session_state[PROBLEMS_KEY]
    st.session_state[EXPLAINED_KEY] = bool(problems or prompt)
    if problems:
        for problem in problems:
            st.error(md(problem), icon=":material/error:")
        st.info("The pages show nothing until the sidebar's data can be used: fix or replace "
                "the file, change the option that was refused, or choose a built-in scenario.",
                icon=":material/info:")
        return None
    if prompt:  # the sidebar asks for a file or a choice: no page shows other data meanwhile
        st.info(prompt, icon=":material/upload:")
        return None
    report = current_upload_report()
    if source == UPLOAD and report is not None:  # on every page: each may publish
        for warning in report.private_warnings:
            st.warning(md(warning), icon=":material/warning:")
    return current_scenario()


def ask_for_scenario(text: str) -> None:
    """Say ``text`` (what to choose in the sidebar) in the main area, unless
    :func:`scenario_sidebar` already said why there is no scenario: after a refused upload the
    page tells what to do about the files, not to choose a built-in scenario."""
    if not st.session_state.get(EXPLAINED_KEY):
        st.info(text)


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
    """Show problems in the sidebar, and record them for the main area."""
    for problem in problems:  # as text: a message may quote a file or column name
        st.error(md(problem), icon=":material/error:")
    st.session_state[PROBLEMS_KEY] = st.session_state.get(PROBLEMS_KEY, []) + list(problems)


def _seed_input() -> int | None:
    return st.number_input(
        "Random seed",
        value=None,  # clearable: empty means the scenario's own seed
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


@dataclass(frozen=True)
class KeptFile:
    """An uploaded file kept in this session's memory (``st.session_state``), read like
    Streamlit's ``UploadedFile``: the uploader starts empty on every other page."""

    name: str
    data: bytes
    file_id: str

    def getvalue(self) -> bytes:
        """The file's bytes."""
        return self.data


def _kept(key: str, file: UploadedFile | None) -> UploadedFile | KeptFile | None:
    """The file in uploader ``key``, kept for the session; or the one kept earlier."""
    kept = st.session_state.setdefault(KEPT_KEY, {})
    if file is not None:
        kept[key] = KeptFile(file.name, file.getvalue(), file.file_id)
        return file
    return kept.get(key)


#: What the main area says while the sidebar waits for the user.
UPLOAD_PROMPT = (f"Upload your data in the sidebar: {LIMIT_TEXT} The pages show no data until "
                 "the files are in.")
#: Beside the split column and value: where their choices come from, and where the value goes.
_SPLIT_NOTE = ("Non-private choices: the columns offered and their values are read from every "
               "row of the file, private rows included. The value is kept out of the page's "
               "link and exported config unless you tick the box below it.")
SPLIT_PROMPT = ("Choose the column and the value to split the file by in the sidebar (under "
                "\"Split rule\"), or split it at random. The pages show no data until then.")


def _upload_panel() -> str | None:
    """The upload widgets; what the main area should say while a file or a choice is missing,
    else None."""
    st.caption(
        f"{LIMIT_TEXT} Uploads stay in the server's memory for this session only: never saved to "
        "disk, logged or shared with other sessions."
    )
    mode = st.radio("Files", (TWO_FILES, ONE_FILE), key="upload_mode")
    keys = ("upload_public", "upload_private") if mode == TWO_FILES else ("upload_single",)
    labels = {"upload_public": "Public CSV (E)", "upload_private": "Private CSV (D)",
              "upload_single": "CSV to split into E and D"}
    files = [_kept(key, st.file_uploader(labels[key], key=key)) for key in keys]
    private = [False, True] if mode == TWO_FILES else [True]
    keep_widget_state({SHARE_PRIVATE_NAME: False})
    st.checkbox("Show the private file's name in titles, the page's link and exported config",
                key=SHARE_PRIVATE_NAME,
                help="Left out unless ticked: a file name can itself tell something (a project, "
                     "a person, a date). Titles, figures, a link or a config then say \"the "
                     "private file\"; whoever opens a link uploads the same file under any "
                     "name.")
    kept = [f.name for f in files if isinstance(f, KeptFile)]
    if kept:
        st.caption(f"Using {', '.join(md(name) for name in kept)}, uploaded earlier in this "
                   "session: its options below can still be changed. Upload a file to replace "
                   "it.")
        if st.button("Forget the uploaded files", key="upload_forget",
                     icon=":material/delete:"):
            st.session_state.pop(KEPT_KEY, None)
            st.rerun()
    problems: list[str] = []
    as_missing = tuple(st.session_state.get("upload_as_missing") or ())
    frames = [_read(file, problems, p, () if p else as_missing)
              for file, p in zip(files, private, strict=True)]
    if any(file is None for file in files):
        prompt: str | None = _waiting_for([labels[key] for key in keys], files)
    elif problems:
        prompt = None
    else:
        prompt = _build_from_frames(mode, files, frames, problems, as_missing)
    _show_problems(problems)
    return prompt


def _waiting_for(labels: list[str], files: list[UploadedFile | KeptFile | None]) -> str:
    """:data:`UPLOAD_PROMPT`, and once one of two files is in, which one was read and which one
    is still to upload (a file just given can take a while to reach a busy server)."""
    received = [f"**{md(file.name)}** ({label})"
                for label, file in zip(labels, files, strict=True) if file is not None]
    if not received:
        return UPLOAD_PROMPT
    missing = [label for label, file in zip(labels, files, strict=True) if file is None]
    return (f"{UPLOAD_PROMPT} Read so far: {', '.join(received)}; still to upload: "
            f"{', '.join(missing)}.")


def _read(file: UploadedFile | None, problems: list[str], private: bool,
          as_missing: tuple[str, ...]) -> pd.DataFrame | None:
    """The file's table; one that holds private rows is read as text (module notes), a public
    one with the cells of ``as_missing``'s columns that are not numbers read as missing."""
    if file is None:
        return None
    data = file.getvalue()
    key = content_key("csv", data, file.name, private, as_missing)
    if not session_memo_has(key) and (refused := memory.refusal(len(data))):
        problems.append(refused)
        return None
    try:
        read = functools.partial(read_csv_upload, data, file.name, private=private,
                                 as_missing=as_missing)
        with st.spinner(f"Reading {md(file.name)} ({len(data) / 2**20:.1f} MB)…"):
            return session_memo(key, read)
    except MostlyNumbersError as exc:
        _offer_as_missing(exc, problems)
        return None
    except DataError as exc:
        problems.append(str(exc))
        return None


def _offer_as_missing(exc: MostlyNumbersError, problems: list[str]) -> None:
    """The refusal of a public column of numbers with a few other cells, and a button that
    reads those cells as missing values in place (kept as ``upload_as_missing``; undone in
    the "Columns" expander)."""
    problems.append(f"{exc} Or read those cells as missing values: the button in the sidebar.")
    if st.button(f"Read the cells of {md(exc.column)} that are not numbers as missing",
                 key="upload_read_as_missing", icon=":material/build:"):
        kept = list(st.session_state.get("upload_as_missing") or ())
        st.session_state["upload_as_missing"] = [*kept, exc.column]
        st.rerun()


def _build_from_frames(
    mode: str, files: list[UploadedFile | KeptFile], frames: list[pd.DataFrame],
    problems: list[str], as_missing: tuple[str, ...]
) -> str | None:
    """The scenario of the read files; :data:`SPLIT_PROMPT` while the split is not chosen."""
    contents = [file.getvalue() for file in files]
    try:
        if mode == TWO_FILES:
            public, private = frames
            rule: tuple[Any, ...] = ()
        else:
            split = _split_panel(frames[0], contents[0])
            if split is None:
                return SPLIT_PROMPT
            private, public, rule = split
            public = type_columns(public, f"the public part of {files[0].name!r}",
                                  as_missing=as_missing)
        _, shared, _ = align_columns(private, public)
    except MostlyNumbersError as exc:
        _offer_as_missing(exc, problems)
        return None
    except ValueError as exc:
        problems.append(str(exc))
        return None
    suggested = columns_to_leave_out(shared)
    _preselect(tuple(file.name for file in files), shared, suggested)
    exclude, categorical = _columns_panel(shared, suggested)
    target = choose(
        "Target (column to predict)",
        [None, *(col for col in shared.columns  # a column constant in E is dropped
                 if col not in exclude and shared[col].nunique() > 1)],
        "upload_target",
        format_func=lambda col: "(none)" if col is None else col,
    )
    try:
        positive = _positive_class(shared, target)
    except DataError as exc:
        problems.append(str(exc))
        return None
    drop_public = st.checkbox(
        "Drop public rows with missing values", key="upload_drop_missing",
        help="Otherwise missing public values are filled in (median or most frequent value). "
             "Missing private values are always filled in by a fixed rule from the public file, "
             "never dropped: dropping private rows would change N_D, which the privacy proof "
             "takes as public.")
    public_missing = "drop" if drop_public else "impute"
    names = [file.name for file in files]
    roles = ("public", "private") if mode == TWO_FILES else ("single",)
    title = "Uploaded data: " + " + ".join(shown_names(roles, names))
    build = functools.partial(
        scenario_from_uploads, private, public, target=target, positive=positive,
        exclude=exclude, categorical=categorical, public_missing=public_missing, title=title,
    )  # fmt: skip
    scenario_id = content_key("upload", mode, *names, *contents, *rule, target, repr(positive),
                              exclude, categorical, list(as_missing), public_missing, title)
    try:
        with st.spinner("Encoding the files…"):
            scenario, report = session_memo(scenario_id, build)
    except ValueError as exc:
        problems.append(str(exc))
        return None
    _set_current(scenario, scenario_id, report)
    st.session_state[UPLOAD_FILES_KEY] = [
        {"role": role, "name": file.name, "sha256": _public_digest(role, file, data)}
        for role, file, data in zip(roles, files, contents, strict=True)
    ]
    return None


def shown_names(roles: tuple[str, ...], names: list[str]) -> list[str]:
    """The uploaded files' names as the scenario's title (and so every figure's settings and
    file name, and the ledger) gives them: a file with private rows as "the private file" (or
    "the uploaded file" split into both sets), as in a link, unless the owner ticked
    :data:`~ui.runconfig.SHARE_PRIVATE_NAME`; the public file by its name."""
    shared = bool(st.session_state.get(SHARE_PRIVATE_NAME))
    return [name if shared or role not in HIDDEN_NAMES else HIDDEN_NAMES[role]
            for role, name in zip(roles, names, strict=True)]


def _preselect(names: tuple[str, ...], public: pd.DataFrame, suggested: dict[str, str]) -> None:
    """For files not seen before, pre-select the target a table most likely predicts (a yes/no
    column, :func:`~dpcore.datasets.likely_target`) and leave out the ``suggested`` columns
    (dates, IDs), both read from the public rows only; a target or left-out columns among the
    files' columns, chosen already by the person or a link, stay; so do a link's "no column
    left out" and "no target" (:func:`ui.links.data_default`), which the files' first choices
    would otherwise replace."""
    marker = (names, tuple(public.columns))
    if st.session_state.get(_CHOSEN_FOR) == marker:
        return
    st.session_state[_CHOSEN_FOR] = marker
    linked = {key: data_default(key, _NOT_LINKED) for key in ("upload_exclude", "upload_target")}
    left_out = st.session_state.get("upload_exclude") or []
    if linked["upload_exclude"] == []:
        st.session_state["upload_exclude"] = []
    elif not left_out or not set(left_out) <= set(public.columns):
        st.session_state["upload_exclude"] = list(suggested)
    if linked["upload_target"] is None:
        st.session_state["upload_target"] = None
    elif st.session_state.get("upload_target") not in public.columns:
        target = likely_target(public)
        st.session_state["upload_target"] = None if target in suggested else target


def _columns_panel(public: pd.DataFrame, suggested: dict[str, str]) -> tuple[list[str], list[str]]:
    """The "Columns" expander: the columns left out, the numeric columns read as categories,
    and the type of every column; returns (left out, read as categories)."""
    with st.expander("Columns", expanded=bool(suggested)):
        columns = [str(col) for col in public.columns]
        exclude = _multiselect(
            "Columns left out", columns, "upload_exclude",
            help="Columns that no page uses: an ID, a date, a column that gives the target "
                 "away. Decided with the public file only.")
        if suggested:
            st.caption("Left out by default, read from the public file: " + "; ".join(
                f"**{md(col)}** ({why})" for col, why in suggested.items())
                + ". Take a column out of the list to use it.")
        used = public.loc[:, [col for col in columns if col not in exclude]]
        numeric = [col for col in used.columns if pd.api.types.is_numeric_dtype(used[col])]
        categorical = _multiselect(
            "Numbers read as categories", numeric, "upload_categorical",
            help="A numeric column that is a code (a region or product number): one-hot items, "
                 "one per value in the public file, instead of a number scaled by its public "
                 "range.")
        if st.session_state.get("upload_as_missing"):
            _multiselect(  # over every numeric column: leaving one out keeps it readable
                "Numbers with other cells read as missing",
                [col for col in columns if pd.api.types.is_numeric_dtype(public[col])],
                "upload_as_missing",
                help="Numeric columns of the public file whose few cells that are not numbers "
                     "(a word, an infinite value) are read as missing values, by your choice; "
                     "take a column out to see the refusal again.")
        types = infer_column_types(used)
        types.loc[types["column"].isin(categorical), "type"] = "categorical (by choice)"
        st.dataframe(types, hide_index=True)
    return exclude, categorical


def _multiselect(label: str, options: list[str], key: str, **kwargs: Any) -> list[str]:
    """A multiselect over ``options`` whose kept value (:data:`CONTROLS`) loses names that are
    no longer options, such as the columns of earlier files."""
    st.session_state[key] = [name for name in st.session_state.get(key) or [] if name in options]
    return list(st.multiselect(label, options, key=key, **kwargs))


def _positive_class(public: pd.DataFrame, target: str | None) -> Any:
    """The target's class encoded as 1, chosen among its public classes; None (the 0/1
    column's own 1) when there is no choice to make."""
    classes, default = (None, None) if target is None else target_classes(public[target])
    if classes is None:
        st.session_state["upload_positive"] = None
        return None
    return choose(
        "Class encoded as 1", classes, "upload_positive", default=default, format_func=str,
        help=f"The class that a model of {target} predicts; every other class is 0 (one class "
             "against the rest). The default is the rarest class in the public file.")


def _public_digest(role: str, file: UploadedFile, data: bytes) -> str | None:
    """The SHA-256 of the public file; None for a file with private rows (module notes)."""
    if role != "public":
        return None
    key = content_key("sha256", file.file_id, file.name, len(data))
    return session_memo(key, functools.partial(_sha256, data))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _same_option(options: list[Any], value: Any) -> Any:
    """The option that ``value`` stands for: the file is read as text, so a number from a
    link or an older config (``1``) is the option written ``"1"`` (or ``"1.0"``)."""
    if value is None or value in options:
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    for option in options:
        try:
            if float(option) == number:
                return option
        except (TypeError, ValueError):
            continue
    return None


def _split_panel(
    frame: pd.DataFrame, content: bytes
) -> tuple[pd.DataFrame, pd.DataFrame, tuple[Any, ...]] | None:
    """Widgets for the split rule; returns (private, public, the rule's settings), or None while
    a split by value has no column or value chosen.

    The file holds private rows, so nothing read from it is chosen for the user: the split is
    at random until the user picks a column and a value. The column goes into links and
    configs; the value only where the user ticks :data:`ui.runconfig.SHARE_SPLIT_VALUE`, since
    the values offered are read off every row, private ones included."""
    rule = st.radio("Split rule", (AT_RANDOM, BY_VALUE), key="split_rule",
                    help="At random: E and D are alike. By a column value: E differs from D, "
                         "as Ji & Elkan split Adult by sex (importance weighting then matters).")
    if rule == BY_VALUE:
        candidates = split_columns(frame)
        if not candidates:
            raise DataError(f"No column of the file has few enough distinct values (at most "
                            f"{MAX_SPLIT_VALUES}) to split by, keeping another column: choose "
                            f"\"{AT_RANDOM}\" under \"Split rule\" instead.")
        column = choose("Column", [None, *candidates], "split_column",
                        format_func=lambda col: "(choose a column)" if col is None else col,
                        help="Columns with few distinct values (such as sex or region). The "
                             "split removes its column, so it cannot be the target.")
        st.caption(_SPLIT_NOTE)
        if column is None:
            st.caption("Choose the column to split by.")
            return None
        values = sorted(frame[column].dropna().unique(), key=str)
        value = choose("Value", [None, *values], "split_value",
                       format_func=lambda v: "(choose a value)" if v is None else str(v),
                       default=_same_option(values, st.session_state.get("split_value")))
        if value is None:
            st.caption(f"Choose the value of {md(column)} whose rows go mostly to D.")
            return None
        keep_widget_state({SHARE_SPLIT_VALUE: False})
        st.checkbox("Put this value in the page's link and exported config",
                    key=SHARE_SPLIT_VALUE,
                    help="Left out unless ticked: it was picked from values read off every row "
                         "of the file, private ones included, and a rare value tells that a "
                         "record holding it is in the file. Without it, a link or a config "
                         "names the split but cannot redo it.")
        p = st.slider("Share of those rows made private", 0.5, 1.0, step=0.05, key="split_p")
        st.caption(
            f"{p:.0%} of the rows with {md(column)} = {md(value)} and {1 - p:.0%} of the others "
            f"go to D; then {md(column)} is removed, as Ji & Elkan remove sex from Adult."
            + (f" **{md(column)} looks like what the table predicts: split by it and it can no "
               "longer be a target.**" if column == likely_target(frame) else "")
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
    private, public = session_memo(key, functools.partial(split, rng=rng))
    return private, public, (*settings, rng)
