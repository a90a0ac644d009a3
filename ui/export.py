"""Exports: every figure as standalone HTML and PNG, and every page's run as a config and a script.

Nothing here is built while a page redraws. Streamlit's :func:`st.download_button` takes its
``data`` as a callable, which runs only when the button is clicked (in a worker thread of the
server), so a figure's HTML (about 4 MB with plotly.js inlined) or PNG (about 3 s through Chromium)
costs a rerun nothing but the registration of two callables.

:func:`figure_downloads`
    The "HTML" and "PNG" buttons under each figure, called by :func:`ui.show.show`. The files
    come from :mod:`dpcore.figures.files` (the PNG through kaleido and a Chromium); where no
    Chromium is found, a caption says so in place of the button.
:func:`export_panel`
    The sidebar's "Export this run" expander, called by each page right after
    :func:`ui.budget.budget_sidebar`: the run's JSON config (the contract's
    ``privacy-utility-explorer/run`` format, read back by :meth:`dpcore.runs.RunConfig.from_dict`),
    the standalone script of :func:`dpcore.runs.script`, and the command line that reruns it. It
    also mirrors the page's controls into the URL (:mod:`ui.links`).

What a config holds, and what it never holds (data, or anything computed from a private file),
is :mod:`ui.runconfig`'s job.

The config's numbers are a study (seeded, reproducible), not a release: the download buttons say
so, and the script and the command line label the tables they write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import plotly.graph_objects as go
import streamlit as st

import ui.links as links
from dpcore.figures.files import PNG_MISSING, chromium_path, figure_html, figure_png, file_stem
from ui.runconfig import STUDY, cli_command, config_json, config_script, run_config


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

def _lazy(build: Callable[[], str]) -> Callable[[], bytes]:
    return lambda: build().encode("utf-8")


def _live(page: str) -> dict[str, Any]:
    """This session's current run config of ``page``, in a plain dict that the download
    callables read when clicked (they run outside the script, so they cannot read
    ``st.session_state`` themselves)."""
    return st.session_state.setdefault(f"_export_live_{page}", {})


def refresh_export(page: str) -> None:
    """After a fragment rerun (a control drawn inside a fragment changed): bring the export's
    config and the URL up to date without redrawing the panel."""
    config = _live(page)["config"] = run_config(page, st.session_state)
    links.mirror(page, config)


def export_panel(page: str) -> None:
    """The sidebar's "Export this run" expander, and the URL that reopens this run.

    The JSON config and the script are built only when their button is clicked. Also mirrors
    the controls into ``st.query_params`` (:func:`ui.links.mirror`) and shows, in the main area,
    what a link opened in this session could not restore.
    """
    live = _live(page)
    config = live["config"] = run_config(page, st.session_state)
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
            st.download_button("Script (.py)", _lazy(lambda: config_script(live["config"])),
                               f"{stem}.py", "text/x-python", key=f"export_script_{page}",
                               on_click="ignore", icon=":material/download:",
                               help=f"Prints the page's tables, a {STUDY}: anyone with the "
                                    "script can recompute their noise and remove it.")
        st.caption("Rerun it from a terminal:")
        st.code(cli_command(config, f"{stem}.json"), language="bash", wrap_lines=True)
        st.caption("Or open this page with the same settings: copy the address bar's link.")
