"""Draw a figure on a page with its title, its settings and its HTML/PNG downloads."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import plotly.graph_objects as go
import streamlit as st

from dpcore.figures.common import titled
from dpcore.figures.files import file_stem
from dpcore.text import md
from ui.export import figure_downloads
from ui.snapshot import Snapshot

__all__ = ["show", "show_panels"]


def show(fig: go.Figure | Snapshot, key: str, *, title: str, context: str = "",
         export: Callable[[], go.Figure] | None = None, alt: str | None = None) -> None:
    """Draw a figure whose PNG/HTML export carries its title and the settings behind it.

    ``title`` names the figure and ``context`` the settings (dataset, query, ε, λ); both go into
    the figure's title (:func:`titled`), so the camera button's PNG is self-explanatory, and
    into the file name. Under the figure, "HTML" and "PNG" buttons download it
    (:func:`ui.export.figure_downloads`: built only when clicked), or the figure that
    ``export`` builds (for example with the legend that the page shows as text).

    ``fig`` may be a :class:`~ui.snapshot.Snapshot` (a figure cached for every rerun and
    session, :func:`ui.study.figures`): it is titled in a copy and downloaded from a new figure.
    """
    if isinstance(fig, Snapshot):  # shared: titled in a copy, downloaded from another
        name = file_stem(f"{title} {context}")
        drawn = fig.titled(title, context)
        export = export or fig.figure
    else:
        name, drawn = titled(fig, title, context), fig  # built for this run: titled in place
    st.plotly_chart(drawn, key=key, config={"toImageButtonOptions": {"filename": name}},
                    alt=alt)

    def exported() -> go.Figure:
        whole = export()
        titled(whole, title, context)
        return whole

    figure_downloads(drawn if export is None else exported, name, key=key)


def show_panels(panels: Sequence[tuple[str, go.Figure | Snapshot]],
                whole: Callable[[], go.Figure],
                key: str, *, title: str, context: str = "") -> None:
    """Draw a figure of several panels as one chart per panel, side by side, under one title,
    with one pair of HTML/PNG downloads for the whole figure.

    The browser redraws a chart only when its specification changed, so a slider that changes
    one panel redraws that panel alone (one figure of three panels is redrawn whole).

    Parameters
    ----------
    panels : sequence of (name, figure or Snapshot)
        Each panel's figure; the chart's key is ``{key}_{name}``.
    whole : callable
        Builds the same panels as one figure, for the downloads (called only when clicked).
    key : str
        The downloads' key.
    title, context : str
        As for :func:`show`; shown above the panels and in the downloaded figure's title.
    """
    st.markdown(f"**{md(title)}**  \n{md(context)}")
    name = file_stem(f"{title} {context}")
    for column, (panel, fig) in zip(st.columns(len(panels)), panels, strict=True):
        with column:  # a panel's own PNG is named without the settings, which a slider changes
            drawn = fig.untitled() if isinstance(fig, Snapshot) else fig
            st.plotly_chart(drawn, key=f"{key}_{panel}",  # for every panel, redrawing them all
                            config={"toImageButtonOptions": {
                                "filename": file_stem(f"{title} {panel}")}})

    def build() -> go.Figure:
        fig = whole()
        titled(fig, title, context)
        return fig

    figure_downloads(build, name, key=key)
