"""The home page's figure: E's and D's feature averages, side by side.

The private set D is drawn here only as a *non-private reference*: showing its statistics is not
a differentially private release, and every label says so.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.common import COLORS, titled
from dpcore.studies.home import PRIVATE_LABEL, PUBLIC_LABEL, TOP_FEATURES, Params

__all__ = ["TITLES", "figures", "mean_difference_figure"]

PUBLIC_COLOR = COLORS["public"]
PRIVATE_COLOR = COLORS["nonprivate"]

#: Each figure's title, by name (the page shows it with the same title).
TITLES = {"feature_means": "How the two sets differ: the features whose averages differ most"}


def mean_difference_figure(means: pd.DataFrame, top: int = TOP_FEATURES) -> go.Figure:
    """Horizontal grouped bars of the ``top`` rows of the study's ``feature_means`` table
    (:func:`dpcore.studies.home.feature_means`), E next to D."""
    shown = means.head(top)
    labels = [html.escape(str(name)) for name in shown["feature"]]  # plotly renders tags
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


def figures(numbers: Mapping[str, pd.DataFrame], params: Params) -> dict[str, go.Figure]:
    """The home page's figure for its study's numbers (:func:`dpcore.studies.home.compute`),
    titled: ``"feature_means"``, the :data:`~dpcore.studies.home.TOP_FEATURES` features whose
    averages differ most."""
    del params
    fig = mean_difference_figure(numbers["feature_means"])
    titled(fig, TITLES["feature_means"])
    return {"feature_means": fig}
