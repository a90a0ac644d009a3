"""Tables and plotly figures of the home page.

The private set D is drawn here only as a *non-private reference*: showing its statistics is not
a differentially private release, and every label says so.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from dpcore.datasets import Scenario
from ui.figures.common import COLORS

PUBLIC_LABEL = "public E"
PRIVATE_LABEL = "private D (non-private reference)"
PUBLIC_COLOR = COLORS["public"]
PRIVATE_COLOR = COLORS["nonprivate"]


def summary_table(scenario: Scenario) -> pd.DataFrame:
    """One row per set: number of records, encoded features d and, with a target, its rate."""
    frames = {PUBLIC_LABEL: scenario.public, PRIVATE_LABEL: scenario.private}
    table = pd.DataFrame(
        {
            "records": [len(frame) for frame in frames.values()],
            "features d": [scenario.d] * len(frames),
        },
        index=pd.Index(list(frames), name="set"),
    )
    if scenario.target is not None:
        table["target rate"] = [frame[scenario.target].mean() for frame in frames.values()]
    return table


def feature_means(scenario: Scenario) -> pd.DataFrame:
    """Mean of every encoded feature but the target's in E and D, largest difference first."""
    columns = scenario.predictors
    means = pd.DataFrame(
        {
            PUBLIC_LABEL: scenario.public[columns].mean(),
            PRIVATE_LABEL: scenario.private[columns].mean(),
        }
    )
    means["difference E - D"] = means[PUBLIC_LABEL] - means[PRIVATE_LABEL]
    order = means["difference E - D"].abs().sort_values(ascending=False, kind="stable").index
    return means.loc[order].rename_axis("feature")


def mean_difference_figure(means: pd.DataFrame, top: int = 20) -> go.Figure:
    """Horizontal grouped bars of the ``top`` rows of :func:`feature_means`, E next to D."""
    shown = means.head(top)
    labels = list(shown.index)
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
