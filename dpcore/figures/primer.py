"""Plotly figures of the mechanism primer: noisy answers per mechanism, the exponential choice.

Colours follow :mod:`dpcore.figures.common`: the simulated DP answers are "dp", the true answer
(read from the private data without noise) is "nonprivate" and labelled so, the proved 95 %
interval is "theory". Plotly only: no Streamlit here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpcore.figures.common import COLORS, fmt, layout, legend_at_foot, legend_entry, titled
from dpcore.studies.primer import Params

__all__ = ["TITLES", "answers_figure", "contexts", "figures", "selection_figure"]

BINS = 61
#: The answers figure's top margin (px): room for its title of two lines (centred in the
#: margin) above the first panel's title, which sits just over that panel.
TOP_MARGIN = 120


def _bins(answers: pd.DataFrame, truth: float, widest: float) -> np.ndarray:
    """Common bin edges for every mechanism: the truth ± 1.6 × the widest 95 % half-width,
    widened to hold 99.8 % of the draws."""
    lo, hi = np.quantile(answers["answer"], [0.001, 0.999])
    lo, hi = min(lo, truth - 1.6 * widest), max(hi, truth + 1.6 * widest)
    return np.linspace(lo, hi, BINS)


def answers_figure(answers: pd.DataFrame, summary: pd.DataFrame, *, label: str,
                   chosen: str | None = None) -> go.Figure:
    """One histogram of the noisy answers per available mechanism, stacked, on one x axis.

    The true answer is a solid "nonprivate" line (labelled non-private), the interval that holds
    the noisy answer with the stated probability a shaded "theory" band around it.
    """
    rows = summary[summary["available"].astype(bool)].reset_index(drop=True)
    truth = float(rows["truth_nonprivate"].iloc[0])
    level = float(rows["level"].iloc[0])
    edges = _bins(answers, truth, float(rows["half_width"].max()))
    centres, width = (edges[:-1] + edges[1:]) / 2, edges[1] - edges[0]
    height = 190 + 190 * len(rows)
    fig = make_subplots(rows=len(rows), cols=1, shared_xaxes=True, vertical_spacing=0.09,
                        subplot_titles=[
                            f"{r.name}: ±{r.half_width:.4g} holds {100 * level:.0f} % of answers"
                            for r in rows.itertuples()])
    for i, r in enumerate(rows.itertuples(), start=1):
        values = answers.loc[answers["mechanism"] == r.mechanism, "answer"].to_numpy()
        counts, _ = np.histogram(values, bins=edges)  # draws beyond the edges: not drawn
        highlight = chosen is not None and r.mechanism == chosen
        fig.add_trace(go.Bar(
            x=centres, y=100 * counts / max(values.size, 1), width=width, name=r.name,
            marker={"color": COLORS["chosen" if highlight else "dp"], "line": {"width": 0}},
            showlegend=False,
            hovertemplate=f"{r.name}<br>answer %{{x:.4g}}<br>%{{y:.2f}} % of draws"
                          "<extra></extra>"), row=i, col=1)
        fig.add_vrect(x0=truth - r.half_width, x1=truth + r.half_width, row=i, col=1,
                      fillcolor=COLORS["theory"], opacity=0.12, line_width=0)
        fig.add_vline(x=truth, row=i, col=1, line_color=COLORS["nonprivate"], line_width=2)
    legend_entry(fig, "simulated DP answers", "dp", kind="marker")
    legend_entry(fig, "true answer (non-private)", "nonprivate")
    legend_entry(fig, f"{100 * level:.0f} % interval (proved)", "theory", kind="marker")
    layout(fig, "", "", height=height)
    for i in range(1, len(rows) + 1):
        fig.update_yaxes(title_text="% of draws", row=i, col=1)
    fig.update_xaxes(title_text=f"noisy answer: {label}", row=len(rows), col=1)
    # The legend goes under the x axis: above the plot it would cover the first panel's title.
    # The top margin holds the figure's title (centred in it) clear of the first panel's.
    fig.update_layout(bargap=0, margin={"b": 80, "t": TOP_MARGIN},
                      legend={"y": -70 / height, "yanchor": "top"})
    return fig


def selection_figure(choice: pd.DataFrame, *, column: str, epsilon: float) -> go.Figure:
    """How often the exponential mechanism chose each candidate, against its exact probability.

    Bars: share of the seeded draws ("dp"); diamonds: the exact selection probability, computed
    from the true counts (non-private); the truly most common candidate is outlined.
    """
    fig = go.Figure()
    best = choice["best_nonprivate"].astype(bool).to_numpy()
    fig.add_trace(go.Bar(
        x=choice["candidate"], y=100 * choice["frequency"], name="share of draws that chose it",
        marker={"color": COLORS["dp"],
                "line": {"color": np.where(best, COLORS["nonprivate"], "rgba(0,0,0,0)"),
                         "width": 3}},
        customdata=choice["count_nonprivate"],
        hovertemplate="%{x}<br>chosen in %{y:.2f} % of draws<br>true count %{customdata:,.0f} "
                      "(non-private)<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=choice["candidate"], y=100 * choice["probability_nonprivate"], mode="markers",
        name="exact probability (non-private)",
        marker={"color": COLORS["nonprivate"], "symbol": "diamond", "size": 11},
        hovertemplate="%{x}<br>exact probability %{y:.3g} %<extra></extra>"))
    legend_entry(fig, "outline: truly most common (non-private)", "nonprivate", kind="marker")
    fig.update_xaxes(type="category")
    # At the foot: above the plot the legend would run into the title's settings line.
    return legend_at_foot(layout(fig, f"candidate ({column}); ε = {fmt(epsilon)}", "% of draws",
                                 height=380))


#: Each figure's title, by name (the page shows them with the dataset's name in the context).
TITLES = {
    "answers": "Where the noisy answers land (survey Sect. 1.3)",
    "exponential": "The exponential mechanism picks the most common category (survey Sect. 1.4)",
}


def contexts(numbers: Mapping[str, pd.DataFrame], params: Params) -> dict[str, str]:
    """Each figure's settings (the query, ε, δ), by name, without the dataset's name."""
    label = str(numbers["query"]["label"].iloc[0])
    return {"answers": f"{label}; ε = {params.epsilon:g}, δ = {params.delta:g}",
            "exponential": f"ε = {params.epsilon:g}"}


def figures(numbers: Mapping[str, pd.DataFrame], params: Params) -> dict[str, go.Figure]:
    """The primer's figures for its study's numbers at ``params``, titled, by name: the noisy
    answers of each mechanism, and the exponential mechanism's choices when the data has a
    category column."""
    query = numbers["query"].iloc[0]
    built = {"answers": answers_figure(numbers["answers"], numbers["mechanisms"],
                                       label=str(query["label"]))}
    choice = numbers["exponential"]
    if len(choice):
        built["exponential"] = selection_figure(choice, column=str(choice["column"].iloc[0]),
                                                epsilon=params.epsilon)
    settings = contexts(numbers, params)
    for name, fig in built.items():
        titled(fig, TITLES[name], settings[name])
    return built
