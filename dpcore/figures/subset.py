"""Plotly figures of the optimal-public-subset page ([WJ18] Figs 2-6), from its study's numbers.

:func:`figures` builds the figure of the view that :mod:`dpcore.studies.subset` computed, for the
page, ``python -m dpcore run`` and presentation mode alike. Every error below is measured
against the private data without noise, to evaluate the mechanism; curves and points computed
from D without noise are labelled "non-private" in the legends.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpcore.figures.common import COLORS, band, legend_entry, reference_line, titled
from dpcore.figures.common import layout as _layout
from dpcore.studies.subset import Params

__all__ = ["TITLES", "distance_curve", "error_curve", "figures", "points_map", "settings"]

DP = "DP estimate (mean ± SD over repeats)"
HYBRID = "hybrid weights without noise (non-private)"
PUBLIC = "public set only"
LEI = "Lei's perturbed histogram of D (ε = {epsilon:.3g}, {bins} bins per axis)"
NOISY = "released noisy criterion (repeat 1)"
SELECTED = "size Algorithm 2 selected"
#: The title of each figure, by name.
TITLES = {"error_vs_size": "Prediction error vs released size (Wang et al. Figs 5-6)",
          "distance_vs_size": "d(D, E′) vs size of the nested subsets (Wang et al. Fig. 4)",
          "points_and_weights": "Rescaled points and DP weights (Wang et al. Figs 2-3)"}


def _legend_below(fig: go.Figure) -> go.Figure:
    """Legend under the plot: above it, several rows would run into the figure's title."""
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0,
                              "xanchor": "left"}, margin={"b": 10})
    return fig


def _inspected(fig: go.Figure, size: int) -> None:
    """Mark the inspected size on a curve against the subset size."""
    fig.add_vline(x=float(size), line_color=COLORS["chosen"], line_dash="dash")
    legend_entry(fig, f"inspected size {size}", "chosen", dash="dash")


def error_curve(numbers: dict[str, pd.DataFrame]) -> go.Figure:
    """Prediction error t_i against the released size (Figs 5-6), the inspected size marked.

    Lei's line (at most 3 covariates) names its ε and its cells per axis in the legend.

    Parameters
    ----------
    numbers : dict of str to DataFrame
        The study's numbers of the error view (``metrics`` and ``error_curve``).
    """
    m, curve = numbers["metrics"].iloc[0], numbers["error_curve"]
    sizes, dp = curve["size"].to_numpy(), curve["dp_error_mean_nonprivate"].to_numpy()
    fig = go.Figure()
    band(fig, sizes, dp, curve["dp_error_sd_nonprivate"].to_numpy(), DP, "dp")
    fig.add_trace(go.Scatter(x=sizes, y=curve["hybrid_error_nonprivate"].to_numpy(),
                             mode="lines", name=HYBRID,
                             line={"color": COLORS["nonprivate"], "dash": "dot"}))
    if "noisy_criterion_repeat1" in curve:
        fig.add_trace(go.Scatter(x=sizes, y=curve["noisy_criterion_repeat1"].to_numpy(),
                                 mode="markers", name=NOISY,
                                 marker={"color": COLORS["dp"], "symbol": "x", "size": 6,
                                         "opacity": 0.6}))
    reference_line(fig, float(m["public_only_error_nonprivate"]), PUBLIC, "public")
    lei = m.get("lei_error_mean_nonprivate")
    if lei is not None and not pd.isna(lei):
        name = LEI.format(epsilon=float(m["lei_epsilon"]), bins=int(m["lei_bins"]))
        reference_line(fig, float(lei), name, "baseline", dash="dashdot")
    counts = curve["times_selected"].to_numpy()
    picked = np.flatnonzero(counts)
    fig.add_trace(go.Scatter(
        x=sizes[picked], y=dp[picked], mode="markers", name=SELECTED,
        marker={"color": COLORS["chosen"], "symbol": "star", "size": 9 + 3 * counts[picked],
                "line": {"color": "white", "width": 1}},
        hovertemplate="selected in %{text} repeat(s): size %{x}<extra></extra>",
        text=[str(c) for c in counts[picked]],
    ))
    _inspected(fig, int(m["inspected_size"]))
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(_layout(fig, "released public points (subset size)",
                                 "prediction error t = ‖h(θ) − h(θ_D)‖₂", height=560))


def distance_curve(numbers: dict[str, pd.DataFrame]) -> go.Figure:
    """d(D, E_(i)) of eq. (5) against the subset size (Fig. 4); non-private."""
    dist = numbers["distance_curve_nonprivate"]
    fig = go.Figure(go.Scatter(
        x=dist["size"].to_numpy(), y=dist["distance_nonprivate"].to_numpy(),
        mode="lines+markers", name="d(D, E′) (non-private)",
        line={"color": COLORS["nonprivate"]},
    ))
    _inspected(fig, int(numbers["metrics"]["inspected_size"].iloc[0]))
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(_layout(fig, "released public points (subset size)",
                                 "mean distance of a private point to E′", height=460))


def points_map(numbers: dict[str, pd.DataFrame]) -> go.Figure:
    """Rescaled public points coloured by DP weight, the subset highlighted, next to the
    rescaled private points (non-private) (Figs 2-3)."""
    pub, priv = numbers["public_points"], numbers["private_points_nonprivate"]
    labels = tuple(numbers["axes"]["label"])
    public_xy, private_xy = pub[["x", "y"]].to_numpy(), priv[["x", "y"]].to_numpy()
    weights, in_subset = pub["dp_weight"].to_numpy(), pub["in_subset"].to_numpy(dtype=bool)
    fig = make_subplots(rows=1, cols=2, shared_xaxes=True, shared_yaxes=True,
                        subplot_titles=("public E: DP weight of the inspected subset",
                                        "private D (non-private)"))
    out = ~in_subset
    fig.add_trace(go.Scattergl(
        x=public_xy[out, 0], y=public_xy[out, 1], mode="markers", name="public, not released",
        marker={"color": COLORS["public"], "size": 3, "opacity": 0.35},
    ), row=1, col=1)
    fig.add_trace(go.Scattergl(
        x=public_xy[in_subset, 0], y=public_xy[in_subset, 1], mode="markers",
        name="released subset (colour: DP weight)",
        marker={"color": weights[in_subset], "size": 5,
                "colorscale": [[0.0, "#c6dbef"], [1.0, "#08306b"]],
                "colorbar": {"title": "DP weight", "x": 0.46, "len": 0.8}},
        hovertemplate="DP weight %{marker.color:.2e}<extra></extra>",
    ), row=1, col=1)
    fig.add_trace(go.Scattergl(
        x=private_xy[:, 0], y=private_xy[:, 1], mode="markers", name="private D (non-private)",
        marker={"color": COLORS["nonprivate"], "size": 3, "opacity": 0.35},
    ), row=1, col=2)
    _legend_below(_layout(fig, labels[0], labels[1], height=560))
    fig.update_xaxes(title_text=labels[0], row=1, col=2)
    return fig


#: The figure of each view, by the table that view's numbers hold.
_BUILDERS = (("error_curve", "error_vs_size", error_curve),
             ("distance_curve_nonprivate", "distance_vs_size", distance_curve),
             ("public_points", "points_and_weights", points_map))


def settings(numbers: dict[str, pd.DataFrame], params: Params, name: str) -> str:
    """The settings behind figure ``name``, for its title: the split ε, λ, the repeats and the
    accounting (and the inspected size for the points)."""
    m = numbers["metrics"].iloc[0]
    eps = ", ".join(f"{m[f'epsilon{i}']:g}" for i in (1, 2, 3))
    text = (f"ε = ({eps}), λ = {params.lambda_:g}, {params.reps} repeat(s), "
            f"{params.accounting}")
    if name == "points_and_weights":
        text += f"; size {int(m['inspected_size']):,}, repeat 1"
    return text


def figures(numbers: dict[str, pd.DataFrame], params: Params) -> dict[str, go.Figure]:
    """The figure of the view the study computed (none for Publish), titled, by name."""
    built = {name: build(numbers) for table, name, build in _BUILDERS if table in numbers}
    for name, fig in built.items():
        titled(fig, TITLES[name], settings(numbers, params, name))
    return built
