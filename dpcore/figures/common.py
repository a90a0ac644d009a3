"""One palette and one layout for every page's figures.

A colour means the same thing on every page:

==================  ==========================================================================
role                what it marks
==================  ==========================================================================
``"dp"``            the page's own DP output (estimates, released weights, masked samples)
``"chosen"``        the value the sliders have chosen (a highlighted box or point)
``"nonprivate"``    anything computed from the private data without noise: the truth, D
                    itself, a non-private fit (always labelled "non-private")
``"public"``        the public set E, or an estimate from public data only
``"theory"``        a proved bound
``"prediction"``    a plug-in prediction
``"output"``        output perturbation
``"objective"``     objective perturbation (corrected form)
``"objective2008"`` objective perturbation as printed in 2008
``"input"``         input perturbation
``"baseline"``      any other baseline
==================  ==========================================================================
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dpcore.figures.files import file_stem

COLORS = {
    "dp": "#1f77b4",
    "chosen": "#ff7f0e",
    "nonprivate": "#2ca02c",
    "public": "#7f7f7f",
    "theory": "#9467bd",
    "prediction": "#8c564b",
    "output": "#d62728",
    "objective": "#17becf",
    "objective2008": "#bcbd22",
    "input": "#e377c2",
    "baseline": "#393b79",
}
#: Colours for a list of methods without a role of their own (cycled): none of them is a role's
#: colour, so no such method looks like the truth, the chosen value or a mechanism.
SEQUENCE = ("#637939", "#843c39", "#7b4173", "#5254a3", "#8c6d31", "#b5cf6b")


def rgba(color: str, alpha: float) -> str:
    """The CSS ``rgba(...)`` of a ``#rrggbb`` colour at opacity ``alpha`` (a band's or a
    region's pale fill).

    Examples
    --------
    >>> rgba("#1f77b4", 0.18)
    'rgba(31,119,180,0.18)'
    """
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def fmt(value: float) -> str:
    """A number as a person writes it (0.1, 10, 1e-05)."""
    return f"{value:g}"


def spec_figure(spec: dict) -> go.Figure:
    """A figure from a complete specification (``{"data": [...], "layout": {...}}``), built
    without plotly's property-by-property validation.

    For the figures that every slider move redraws: validating a box plot of 800 points costs
    about 9 ms of the move, building it unvalidated 1 ms. ``tests/test_figures_spec.py`` builds
    each such figure once more with validation, so a mistyped property still fails a test. A
    plotly without the (private) ``_validate`` flag gets a validated figure.
    """
    try:
        return go.Figure(spec, _validate=False)
    except TypeError:
        return go.Figure(spec)


def layout_spec(xtitle: str, ytitle: str, *, height: int = 420,
                title: str | None = None) -> dict:
    """The shared layout as a dictionary: legend on top in one row, small margins, axis titles
    (for :func:`spec_figure`, merged into a specification's ``layout``)."""
    spec: dict = {
        "height": height, "margin": {"l": 10, "r": 10, "t": 40 if title else 30, "b": 10},
        "showlegend": True,
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "left",
                   "x": 0, "traceorder": "normal"},
        "xaxis": {"title": {"text": xtitle}}, "yaxis": {"title": {"text": ytitle}},
    }
    if title:
        spec["title"] = {"text": title, "x": 0, "xanchor": "left"}
    return spec


def legend_at_foot(fig: go.Figure) -> go.Figure:
    """Move the legend from above the plot to the foot of the figure, under the axis title,
    for a legend of several rows: there it cannot reach the title, however many rows it
    takes (plotly makes room for it). Call it after :func:`layout`."""
    fig.update_layout(legend={"orientation": "h", "yref": "container", "yanchor": "bottom",
                              "y": 0, "xanchor": "left", "x": 0})
    return fig


def layout(fig: go.Figure, xtitle: str, ytitle: str, *, height: int = 420,
           title: str | None = None) -> go.Figure:
    """The shared layout (:func:`layout_spec`) applied to ``fig``, in one update with nested
    dictionaries (plotly's ``xaxis_title=`` shorthand parses a path per property and costs
    several times more on every redraw)."""
    fig.update_layout(layout_spec(xtitle, ytitle, height=height, title=title))
    return fig


def legend_entry(fig: go.Figure, name: str, role: str, *, kind: str = "line",
                 dash: str | None = None) -> None:
    """A legend item without data (for shapes such as reference lines or coloured boxes)."""
    if kind == "line":
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name=name, hoverinfo="skip",
                                 line={"dash": dash, "color": COLORS[role]}))
    else:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 hoverinfo="skip",
                                 marker={"color": COLORS[role], "symbol": "square"}))


def legend_html(items: Sequence[tuple[str, str, str]]) -> str:
    """A figure's legend as one line of HTML: ``(name, role, mark)`` with ``mark`` "markers" (a
    square) or "lines" (a dashed line), in the role's colour (:data:`COLORS`). Names are
    escaped."""
    marks = {"markers": "■", "lines": "╌╌"}
    return " &nbsp; ".join(
        f'<span style="color:{COLORS[role]}">{marks[mark]}</span>&nbsp;{html.escape(name)}'
        for name, role, mark in items)


def reference_line(fig: go.Figure, y: float, name: str, role: str, *,
                   dash: str = "dash") -> None:
    """A horizontal reference line, named in the legend (a label on the plot would sit on the
    widest boxes)."""
    fig.add_hline(y=y, line_dash=dash, line_color=COLORS[role])
    legend_entry(fig, name, role, dash=dash)


def band(fig: go.Figure, x: Sequence[float], mean: Sequence[float], sd: Sequence[float],
         name: str, role: str | None = None, *, color: str | None = None) -> None:
    """A mean curve with a shaded band of one standard deviation either side."""
    color = color or COLORS[role or "dp"]
    x, mean, sd = (np.asarray(v, dtype=float) for v in (x, mean, sd))
    rgb = tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))
    fig.add_trace(go.Scatter(
        x=np.r_[x, x[::-1]], y=np.r_[mean + sd, (mean - sd)[::-1]], mode="lines", fill="toself",
        fillcolor=f"rgba{(*rgb, 0.18)}", line={"width": 0}, hoverinfo="skip",
        showlegend=False, legendgroup=name,
    ))
    fig.add_trace(go.Scatter(x=x, y=mean, mode="lines+markers", name=name, legendgroup=name,
                             line={"color": color}, marker={"color": color}))


def title_update(previous: dict, margin_top: float | None, title: str,
                 context: str = "") -> dict:
    """The layout properties that put ``title`` and ``context`` (the settings: dataset, query,
    ε, λ) into a figure's title, given its present title (``layout.title`` as a dictionary) and
    top margin: ``{"title": {...}, "margin": {"t": ...}}``. Reads nothing else and changes
    nothing, so a figure shared between sessions can be titled in a copy (:func:`titled`
    applies it in place)."""
    title, context = html.escape(title), html.escape(context)  # they may quote column names
    # A figure enlarged for a slide keeps its larger title, its place and its top margin.
    size = max(15, (previous.get("font") or {}).get("size") or 0)
    # The settings a little smaller than the title (12 px at 15), not <sup> (about 7 px in a
    # figure: unreadable, on slides too).
    small = round(size * 0.8)
    text = f"{title}<br><span style='font-size:{small}px'>{context}</span>" if context else title
    place = ({"y": previous.get("y"), "yref": "container", "yanchor": previous.get("yanchor"),
              "pad": {"t": (previous.get("pad") or {}).get("t")}}
             if previous.get("yref") == "container" else {})
    return {"title": {"text": text, "x": 0, "xanchor": "left", "font": {"size": size}} | place,
            "margin": {"t": max(80, margin_top or 0)}}


def titled(fig: go.Figure, title: str, context: str = "") -> str:
    """Put ``title`` and ``context`` (the settings: dataset, query, ε, λ) into ``fig``'s title,
    so that its PNG and HTML exports say what they show; return the file name they give."""
    name = file_stem(f"{title} {context}")  # from the words as read, not their HTML escapes
    update = title_update(fig.layout.title.to_plotly_json(), fig.layout.margin.t, title,
                          context)
    # Assigned rather than passed to update_layout: on a figure built without validation
    # (spec_figure) an update costs 10 ms, an assignment well under 1 ms.
    fig.layout.title = update["title"]
    fig.layout.margin.t = update["margin"]["t"]
    return name
