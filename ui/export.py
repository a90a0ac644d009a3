"""Exports: every figure as standalone HTML and PNG, and every page's run as a config and a script.

Nothing here is built while a page redraws. Streamlit's :func:`st.download_button` takes its
``data`` as a callable, which runs only when the button is clicked (in a worker thread of the
server), so a figure's HTML (about 4 MB with plotly.js inlined) or PNG (about 3 s through Chromium)
costs a rerun nothing but the registration of two callables.

:func:`figure_downloads`
    The "HTML" and "PNG" buttons under each figure, called by :func:`dpcore.figures.common.show`.
    The PNG is rendered by kaleido 1.x through a Chromium found by :func:`chromium_path`; where
    none is found, a caption says so in place of the button.
:func:`export_panel`
    The sidebar's "Export this run" expander, called by each page right after
    :func:`ui.budget.budget_sidebar`: the run's JSON config (the contract's
    ``privacy-utility-explorer/run`` format, read back by :meth:`dpcore.runs.RunConfig.from_dict`),
    the standalone script of :func:`dpcore.runs.script`, and the command line that reruns it. It
    also mirrors the page's controls into the URL (:mod:`ui.links`).

A config never holds data, nor anything computed from a private file: an upload is named by its
files' names, and the public file also by its SHA-256 (:func:`dpcore.runs.shareable_files`); a
private file's digest would let anyone who holds the config test guesses about its rows. Controls
that a page fills in from a study of the private data (``SET_FROM_DATA`` of a run module, such as
the subset size that Algorithm 2 selected) are left unset in the config of an upload.

The config's numbers are a study (seeded, reproducible), not a release: the download buttons say
so, and the script and the command line label the tables they write.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from dpcore.figures.files import PNG_MISSING, chromium_path, figure_html, figure_png, file_stem

CONFIG_FORMAT = "privacy-utility-explorer/run"
CONFIG_VERSION = 1
#: Each page's widget-key prefix (the contract's; home has no controls of its own).
PREFIXES: dict[str, str | None] = {
    "home": None,
    "importance": "iw_",
    "subset": "sub_",
    "perturbation": "lr_",
    "masking": "mk_",
    "audit": "au_",
    "choose_epsilon": "ce_",
    "primer": "pr_",
}
#: The sidebar's scenario keys that belong to each data source (the rest are not exported).
SOURCE_KEYS = {
    "Built-in": ("source", "builtin_name", "builtin_public", "builtin_encoding", "builtin_p",
                 "builtin_shift", "seed"),
    "Upload": ("source", "upload_mode", "upload_target", "upload_drop_missing", "split_rule",
               "split_column", "split_value", "split_p", "split_fraction", "seed"),
}
UPLOAD_FILES_KEY = "upload_files"
#: What an exported run's numbers are (:data:`dpcore.runs.STUDY_LABEL` in short).
STUDY = "study (seeded, reproducible), not a release"


def figure_downloads(fig: go.Figure | Callable[[], go.Figure], name: str, *,
                     key: str | None = None) -> None:
    """The "HTML" and "PNG" download buttons of one figure, in one small row under it.

    Both files are built only when their button is clicked (``data`` is a callable), never on a
    rerun. Without Chromium the PNG button is replaced by a caption that says why.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure or callable
        The figure as drawn (its title carries the settings, see :func:`show`), or a function
        that builds it when a button is clicked (a figure drawn as several charts).
    name : str
        The file name without extension.
    key : str, optional
        The figure's widget key; the buttons are keyed ``{key}_html`` and ``{key}_png``.
    """
    import streamlit as st

    name = file_stem(name)
    key = key or name

    def figure() -> go.Figure:
        return fig() if callable(fig) else fig

    with st.container(horizontal=True, gap="small"):
        st.download_button(
            "HTML", lambda: figure_html(figure()), f"{name}.html", "text/html", key=f"{key}_html",
            on_click="ignore", type="tertiary", icon=":material/download:",
            help="This figure as a standalone web page (interactive, opens offline).")
        if chromium_path() is None:
            st.caption(PNG_MISSING)
        else:
            st.download_button(
                "PNG", lambda: figure_png(figure()), f"{name}.png", "image/png", key=f"{key}_png",
                on_click="ignore", type="tertiary", icon=":material/download:",
                help="This figure as an image, with its title and settings (takes a few "
                     "seconds).")


# ------------------------------------------------------------------------------ run config --

def _plain(value: Any) -> Any:
    """A widget value as JSON: numpy scalars as Python numbers, tuples as lists."""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def page_module(page: str) -> Any | None:
    """``dpcore.runs.<page>`` or None while it is not written (or dpcore.runs is missing)."""
    name = f"dpcore.runs.{page}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name in (name, "dpcore.runs"):
            return None
        raise


def seed_key(page: str) -> str | None:
    """The page's seed widget key (``SEED_KEY`` of its run module, else ``<prefix>seed``)."""
    module = page_module(page)
    if module is not None:
        return module.SEED_KEY
    prefix = PREFIXES.get(page)
    return f"{prefix}seed" if prefix else None


def control_defaults(page: str, state: Mapping[str, Any]) -> dict[str, Any]:
    """The page's control keys with their defaults.

    ``CONTROLS`` of ``dpcore.runs.<page>``; while that module is missing, every widget the
    page keeps (:func:`ui.state.keep_widget_state`) whose key has the page's prefix, with its
    current value as the default.
    """
    module = page_module(page)
    if module is not None:
        return dict(module.CONTROLS)
    prefix = PREFIXES.get(page)
    if not prefix:
        return {}
    held = state.get("_held_widget_keys", ())
    return {key: state[key] for key in sorted(held) if key.startswith(prefix) and key in state}


def scenario_spec(state: Mapping[str, Any]) -> dict[str, Any]:
    """The sidebar's scenario keys as set (those of the chosen source), and for an upload the
    files' roles and names, with the public file's SHA-256 (never their bytes, nor anything
    computed from a private file)."""
    from dpcore.runs import shareable_files

    source = state.get("source", "Built-in")
    spec = {key: _plain(state[key]) for key in SOURCE_KEYS.get(source, ()) if key in state}
    if source == "Upload":
        spec["files"] = shareable_files(list(state.get(UPLOAD_FILES_KEY, [])))
    return spec


def run_config(page: str, state: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The run on screen as a config dict (the issue-12 contract's format).

    ``controls`` holds the values the page's controls have (their defaults where a control was
    not drawn yet, and for an upload where the page set it from a study of the private data:
    ``SET_FROM_DATA``); ``seed`` is the page's study seed (0 for a page without one).
    """
    if state is None:
        import streamlit as st

        state = st.session_state
    key = seed_key(page)
    module = page_module(page)
    from_data = (getattr(module, "SET_FROM_DATA", ()) if state.get("source") == "Upload"
                 else ())
    controls = {k: _plain(state[k] if k in state and k not in from_data else default)
                for k, default in control_defaults(page, state).items() if k != key}
    seed = state.get(key) if key else None
    return {"format": CONFIG_FORMAT, "version": CONFIG_VERSION, "page": page,
            "scenario": scenario_spec(state), "controls": controls,
            "seed": int(seed) if seed is not None else 0}


def config_json(config: Mapping[str, Any]) -> str:
    """The config as JSON, validated by :meth:`dpcore.runs.RunConfig.from_dict` when it exists."""
    try:
        from dpcore.runs import RunConfig
    except ImportError:
        return json.dumps(config, indent=2, ensure_ascii=False)
    return RunConfig.from_dict(dict(config)).to_json()


def config_script(config: Mapping[str, Any]) -> str:
    """The standalone script that reruns the config (:func:`dpcore.runs.script`)."""
    from dpcore.runs import RunConfig, script

    return script(RunConfig.from_dict(dict(config)))


def cli_command(config: Mapping[str, Any], config_file: str) -> str:
    """The command line that reruns the config (uploads: one ``--file ROLE=PATH`` per file)."""
    parts = ["python", "-m", "dpcore", "run", config_file, "--out", Path(config_file).stem]
    for f in config["scenario"].get("files", []):
        parts += ["--file", f"{f['role']}={f['name']}"]
    return shlex.join(parts)


def _lazy(build: Callable[[], str]) -> Callable[[], bytes]:
    return lambda: build().encode("utf-8")


def _live(page: str) -> dict[str, Any]:
    """This session's current run config of ``page``, in a plain dict that the download
    callables read when clicked (they run outside the script, so they cannot read
    ``st.session_state`` themselves)."""
    import streamlit as st

    return st.session_state.setdefault(f"_export_live_{page}", {})


def refresh_export(page: str) -> None:
    """After a fragment rerun (a control drawn inside a fragment changed): bring the export's
    config and the URL up to date without redrawing the panel."""
    from ui import links

    config = _live(page)["config"] = run_config(page)
    links.mirror(page, config)


def export_panel(page: str) -> None:
    """The sidebar's "Export this run" expander, and the URL that reopens this run.

    The JSON config and the script are built only when their button is clicked. Also mirrors
    the controls into ``st.query_params`` (:func:`ui.links.mirror`) and shows, in the main area,
    what a link opened in this session could not restore.
    """
    import streamlit as st

    from ui import links

    live = _live(page)
    config = live["config"] = run_config(page)
    links.mirror(page, config)
    links.show_link_messages()
    stem = f"{page}-run"
    with st.sidebar, st.expander("Export this run"):
        st.caption("The settings of this page as a config file, and a Python script that "
                   "recomputes its numbers and figures with dpcore (same seed, same numbers): "
                   f"a {STUDY}. Uploaded files are named, never included; the public file "
                   "also by its SHA-256, a private file by its name only.")
        with st.container(horizontal=True, gap="small"):
            st.download_button("Config (JSON)", _lazy(lambda: config_json(live["config"])),
                               f"{stem}.json", "application/json", key=f"export_config_{page}",
                               on_click="ignore", icon=":material/download:",
                               help=f"The settings of this {STUDY}.")
            if importlib.util.find_spec("dpcore.runs") is not None:
                st.download_button("Script (.py)", _lazy(lambda: config_script(live["config"])),
                                   f"{stem}.py", "text/x-python", key=f"export_script_{page}",
                                   on_click="ignore", icon=":material/download:",
                                   help=f"Prints the page's tables, a {STUDY}: anyone with "
                                        "the script can recompute their noise and remove it.")
            else:
                st.caption("The script export needs dpcore.runs, which is not installed.")
        st.caption("Rerun it from a terminal:")
        st.code(cli_command(config, f"{stem}.json"), language="bash", wrap_lines=True)
        st.caption("Or open this page with the same settings: copy the address bar's link.")
