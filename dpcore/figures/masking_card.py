"""The masking page's report card as one figure: five panels of curves over ε.

Each panel is one number of :data:`dpcore.masking.card.METRICS` against ε (log scale) for
masked generation and input perturbation, the mean over repetitions with a shaded band holding
the middle 95 % of them; the private sample (no noise, a non-private reference) is a dashed
line with its own band, and the train-on-masked panel has the majority class as a dotted line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpcore.figures.common import COLORS, layout, legend_at_foot, rgba
from dpcore.masking.card import CARD_METHODS, METRICS, REFERENCE

__all__ = ["CARD_ROLES", "card_figure"]

#: Series of the card -> palette role (:data:`dpcore.figures.common.COLORS`).
CARD_ROLES = {"masked generation": "dp", "input perturbation": "input",
              REFERENCE: "nonprivate"}
_COLUMNS = 3


def _curve(fig: go.Figure, x, rows: pd.DataFrame, name: str, *, row: int, col: int,
           first: bool, dash: str | None = None) -> None:
    """The mean of ``rows`` over ``x`` with its band (``low`` to ``high``)."""
    color = COLORS[CARD_ROLES[name]]
    x = np.asarray(x, dtype=float)
    low, high = rows["low"].to_numpy(float), rows["high"].to_numpy(float)
    fig.add_trace(go.Scatter(x=np.r_[x, x[::-1]], y=np.r_[high, low[::-1]], mode="lines",
                             fill="toself", fillcolor=rgba(color, 0.18), line={"width": 0},
                             hoverinfo="skip", showlegend=False, legendgroup=name),
                  row=row, col=col)
    fig.add_trace(go.Scatter(x=x, y=rows["mean"].to_numpy(float), name=name, legendgroup=name,
                             mode="lines" if dash else "lines+markers", showlegend=first,
                             line={"color": color, "dash": dash}, marker={"color": color}),
                  row=row, col=col)


def card_figure(card: pd.DataFrame, *, epsilon: float, majority: float,
                height: int = 620) -> go.Figure:
    """The report card's five panels (:func:`dpcore.masking.card.report_card`'s table).

    Parameters
    ----------
    card : DataFrame
        Columns ``metric, method, epsilon, mean, low, high``.
    epsilon : float
        The page's ε (a dotted vertical line).
    majority : float
        Accuracy of always guessing the majority class (a dotted line on the TSTR panel).
    height : int, default=620
    """
    eps = sorted(float(e) for e in card["epsilon"].dropna().unique())
    titles = [f"{label} ({better} is better)" for label, better in METRICS.values()]
    rows = -(-len(METRICS) // _COLUMNS)
    fig = make_subplots(rows=rows, cols=_COLUMNS, subplot_titles=titles,
                        horizontal_spacing=0.07, vertical_spacing=0.2)
    for i, metric in enumerate(METRICS):
        row, col = i // _COLUMNS + 1, i % _COLUMNS + 1
        part = card[card["metric"] == metric]
        reference = part[part["method"] == REFERENCE]
        if not reference.empty:
            flat = pd.concat([reference] * 2, ignore_index=True)
            _curve(fig, [eps[0], eps[-1]], flat, REFERENCE, row=row, col=col, first=i == 0,
                   dash="dash")
        for method in CARD_METHODS:
            _curve(fig, eps, part[part["method"] == method].sort_values("epsilon"), method,
                   row=row, col=col, first=i == 0)
        if metric == "tstr_accuracy":
            fig.add_trace(go.Scatter(x=[eps[0], eps[-1]], y=[majority, majority], mode="lines",
                                     name=f"majority class (non-private): {majority:.3f}",
                                     line={"color": COLORS["baseline"], "dash": "dot"}),
                          row=row, col=col)
        fig.add_vline(x=epsilon, line_dash="dot", line_color=COLORS["chosen"], row=row, col=col)
    layout(fig, "", "", height=height)
    legend_at_foot(fig)
    fig.update_xaxes(type="log", tickvals=eps, ticktext=[f"{e:g}" for e in eps],
                     title={"text": "ε (log scale)", "standoff": 4})
    fig.update_yaxes(title=None)
    fig.update_annotations(font={"size": 12})
    fig.update_layout(margin={"t": 100, "b": 70})  # the title above the panels' titles
    return fig
