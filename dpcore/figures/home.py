"""Tables and plotly figures of the home page.

The private set D is drawn here only as a *non-private reference*: showing its statistics is not
a differentially private release, and every label says so.
"""

from __future__ import annotations

import html

import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.common import COLORS
from dpcore.studies.home import (
    PRIVATE_LABEL,
    PUBLIC_LABEL,
    TOP_FEATURES,
    feature_means,
    summary_table,
)

__all__ = ["PUBLIC_LABEL", "PRIVATE_LABEL", "summary_table", "feature_means",
           "mean_difference_figure", "run_figures"]

PUBLIC_COLOR = COLORS["public"]
PRIVATE_COLOR = COLORS["nonprivate"]


def mean_difference_figure(means: pd.DataFrame, top: int = 20) -> go.Figure:
    """Horizontal grouped bars of the ``top`` rows of :func:`feature_means`, E next to D."""
    shown = means.head(top)
    labels = [html.escape(str(name)) for name in shown.index]  # plotly renders tags in labels
    fig = go.Figure()
    for label, color in ((PUBLIC_LABEL, PUBLIC_COLOR), (PRIVATE_LABEL, PRIVATE_COLOR)):
        fig.add_bar(
            y=labels,
            x=shown[label],
            name=label,
            orientation="h",
            marker_color=color,
            hovertemplate="%{y}: %{x:.3f}<extra>" + label + "</extra>",
        )
    fig.update_layout(
        barmode="group",
        height=140 + 34 * len(labels),
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "left", "x": 0},
        xaxis={"title": {"text": "mean over the records (features are scaled to [0, 1])"}},
        yaxis={"autorange": "reversed", "automargin": True},
    )
    return fig


def run_figures(numbers: dict[str, pd.DataFrame], controls) -> dict[str, go.Figure]:
    """The home page's figure for a run's numbers (:func:`dpcore.studies.home.compute`)."""
    means = numbers["feature_means"].set_index("feature")
    fig = mean_difference_figure(means, top=TOP_FEATURES)
    fig.update_layout(title={"text": "How the two sets differ: the features whose averages "
                                     "differ most", "x": 0, "xanchor": "left",
                             "font": {"size": 15}}, margin={"t": 80})
    return {"feature_means": fig}
