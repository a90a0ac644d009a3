"""Presentation mode: the papers' headline figures as presets, one at a time, full screen.

A preset (:class:`ui.registry.Preset`, declared with its page in :data:`ui.registry.PAGES`) is a
run config on a built-in scenario plus the figures of its run to show: the page's study computes
them through :func:`dpcore.runs.run`, so a preset shows what the page would show for the same
controls and seed, and its takeaway (:meth:`dpcore.runs.RunResult.takeaway`) is computed from
those numbers. Presets use fewer replicates than the papers so that each opens in seconds; the
paper's number is given in :attr:`Preset.note`.

Every preset is a seeded study (a Monte-Carlo simulation of the mechanism), never a release: no
budget is spent. Results go to the store shared by all sessions (:data:`ui.cache.SHARED`), which is
right because presets use built-in data only. While a slide is shown, :func:`compute_ahead` computes
the next :data:`AHEAD` slides into that store in the background (:mod:`ui.prefetch`: its one
worker, only while a core is idle, a bounded queue), so that Next is a cache hit.

:func:`presentation_toggle` is the sidebar switch that every page shows (``ui.navigation.route``
calls it): turning it on opens ``pages/present.py``; turning it off, or Leave (Escape) there,
returns to the page the presenter came from.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import plotly.graph_objects as go
import streamlit as st

import ui.prefetch as prefetch
from dpcore.runs import RunResult, run
from ui.cache import SHARED, shared_key
from ui.registry import PAGES, PRESENT, Preset, page, presets

__all__ = ["AHEAD", "PRESENT_PAGE", "PRESETS", "Preset", "available", "compute_ahead", "enlarge",
           "figure_title", "is_computed", "pick_figure", "presentation_toggle", "result",
           "return_page"]

#: The presentation page's script and address (:data:`ui.registry.PRESENT`).
PRESENT_PAGE = page(PRESENT).path
PRESENT_URL = page(PRESENT).url_path
TOGGLE_KEY = "presentation"
_TARGET = "_presentation_target"  # "on" / "off": set by the toggle's callback
_RETURN = "_presentation_return"  # url path of the page the presenter came from
#: How many slides after the one shown are computed ahead.
AHEAD = 2

#: The headline figures of the papers: every page's presets, in the navigation's order.
PRESETS: tuple[Preset, ...] = presets()


def _has_run(page: str) -> bool:
    """Whether ``page`` has a study and a figures module."""
    return (importlib.util.find_spec(f"dpcore.studies.{page}") is not None
            and importlib.util.find_spec(f"dpcore.figures.{page}") is not None)


def available(presets: Sequence[Preset] = PRESETS) -> tuple[list[Preset], list[Preset]]:
    """The presets whose page has a run (offered), and those whose page has none yet."""
    offered = [p for p in presets if _has_run(p.page)]
    return offered, [p for p in presets if p not in offered]


def _key(preset: Preset) -> str:
    """The shared store's key of the run of ``preset``."""
    return shared_key("presentation preset", preset.config().to_json())


def is_computed(preset: Preset) -> bool:
    """Whether the run of ``preset`` is in the shared store (its slide opens without computing)."""
    return SHARED.has(_key(preset))


def result(preset: Preset, progress: Callable[[float], None] | None = None) -> RunResult:
    """The run of ``preset``, shared by every session (built-in data, a seeded study).

    A slide waiting to be computed ahead is taken off that queue and computed here (with
    ``progress``); one being computed ahead is waited for. The result is shared: callers must not
    mutate it.
    """
    config = preset.config()
    prefetch.wait_for(_key(preset))
    return SHARED.get(_key(preset), lambda: run(config, progress=progress))


def compute_ahead(slides: Sequence[Preset], shown: int) -> list[Preset]:
    """Compute the :data:`AHEAD` slides after ``slides[shown]`` in the background, into the
    shared store (:func:`ui.prefetch.queue`: not on a busy machine; slides queued earlier and
    not started yet are dropped). Presets are built-in scenarios, never uploads.

    Returns
    -------
    list of Preset
        The slides queued by this call.
    """
    following = {_key(p): p for p in slides[shown + 1:shown + 1 + AHEAD]}
    queued = prefetch.queue({key: partial(run, p.config()) for key, p in following.items()})
    return [following[key] for key in queued]


def pick_figure(figures: dict[str, go.Figure], preset: Preset) -> dict[str, go.Figure]:
    """The figures of the run that the preset shows: its named ones found in ``figures``, or every
    figure when none of the names matches (a figure module that names them differently)."""
    chosen = {name: figures[name] for name in preset.figure if name in figures}
    return chosen or dict(figures)


def figure_title(preset: Preset, name: str) -> str:
    """The title of the run's figure ``name`` on the slide of ``preset``."""
    if name in preset.figure and len(preset.labels) == len(preset.figure):
        return preset.labels[preset.figure.index(name)]
    return preset.title


def enlarge(fig: go.Figure, *, height: int = 640, font: int = 17) -> go.Figure:
    """``fig`` taller and in larger type, for a projector (changes ``fig`` and returns it).

    The title (and its settings line) is pinned to the top, and the top margin made room for a
    legend of up to three rows above the plot under it (less for a legend at the foot): larger
    type must not push a legend over the title. Small notes in the figure are set at
    ``font - 4`` at least."""
    legend = fig.layout.legend
    at_foot = legend.yref == "container" or (legend.y is not None and legend.y < 0.5)
    fig.update_layout(height=height, font={"size": font}, legend={"font": {"size": font - 1}},
                      title={"y": 1, "yref": "container", "yanchor": "top", "pad": {"t": 12},
                             "font": {"size": font}}, margin={"t": 100 if at_foot else 150})
    for note in fig.layout.annotations:  # notes under a plot (whiskers): projector-sized too
        if note.font.size is not None and note.font.size < font - 4:
            note.font.size = font - 4
    fig.update_xaxes(title_font={"size": font + 1}, tickfont={"size": font - 2})
    fig.update_yaxes(title_font={"size": font + 1}, tickfont={"size": font - 2})
    return fig


def _page_by_url(url_path: str | None) -> str:
    """The script of the app's page whose url path is ``url_path`` (the home page if none)."""
    for entry in PAGES:
        if entry.url_path == url_path:
            return entry.path
    return next(entry.path for entry in PAGES if entry.default)


def _toggled() -> None:
    st.session_state[_TARGET] = "on" if st.session_state.get(TOGGLE_KEY) else "off"


def return_page() -> str:
    """The page the presenter came from (the last other page this session showed; the home page
    when the presentation was opened by a link first): where leaving presentation mode goes."""
    return _page_by_url(st.session_state.get(_RETURN))


def presentation_toggle(current: Any) -> None:
    """The sidebar's "Presentation mode" switch; ``current`` is the page ``st.navigation`` chose.

    The switch mirrors the page (on exactly on the presentation page, also when it was opened by a
    link). Turning it on opens the presentation page; turning it off, or :func:`leave`, returns to
    the page the presenter came from; the presentation page's "Leave" button (Escape) goes there
    with :func:`return_page`.
    """
    here = current.url_path == PRESENT_URL
    if not here:  # however the presenter then enters (switch, navigation), leaving comes back
        st.session_state[_RETURN] = current.url_path
    target = st.session_state.pop(_TARGET, None)
    if target is None:
        st.session_state[TOGGLE_KEY] = here
    with st.sidebar:
        st.toggle("Presentation mode", key=TOGGLE_KEY, on_change=_toggled,
                  help="Full-screen slides of the papers' headline figures, recomputed live, "
                       "with a takeaway each. Arrow keys or Page Up/Down step through them; "
                       "Escape leaves.")
    if target == "on" and not here:
        st.switch_page(PRESENT_PAGE)
    elif target == "off" and here:
        st.switch_page(return_page())
