"""Plotly figures of the optimal-public-subset page ([WJ18] Figs 2-6).

Every error below is measured against the private data without noise, to evaluate the mechanism;
curves and points computed from D without noise are labelled "non-private" in the legends.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpcore.figures.common import COLORS, band, legend_entry, reference_line
from dpcore.figures.common import layout as _layout

DP = "DP estimate (mean ± SD over repeats)"
HYBRID = "hybrid weights without noise (non-private)"
PUBLIC = "public set only"
LEI = "Lei's perturbed histogram of D"
NOISY = "released noisy criterion (repeat 1)"
SELECTED = "size Algorithm 2 selected"


def _legend_below(fig: go.Figure) -> go.Figure:
    """Legend under the plot: above it, several rows would run into the figure's title."""
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0,
                              "xanchor": "left"}, margin={"b": 10})
    return fig


def error_curve(study, inspected: int) -> go.Figure:
    """Prediction error t_i against the released size (Figs 5-6), the inspected size marked.

    Parameters
    ----------
    study : dpcore.subset.SubsetStudy
    inspected : int
        Index of the candidate the size slider shows.
    """
    sizes = study.sizes
    fig = go.Figure()
    sd = study.dp_curves.std(axis=0, ddof=1) if study.repeats > 1 else np.zeros(sizes.size)
    band(fig, sizes, study.dp_curve, sd, DP, "dp")
    fig.add_trace(go.Scatter(x=sizes, y=study.hybrid_curve, mode="lines", name=HYBRID,
                             line={"color": COLORS["nonprivate"], "dash": "dot"}))
    if study.noisy_curves is not None:
        fig.add_trace(go.Scatter(x=sizes, y=study.noisy_curves[0], mode="markers", name=NOISY,
                                 marker={"color": COLORS["dp"], "symbol": "x", "size": 6,
                                         "opacity": 0.6}))
    reference_line(fig, study.public_only, PUBLIC, "public")
    if study.lei is not None:
        reference_line(fig, float(np.mean(study.lei)), LEI, "baseline", dash="dashdot")
    picked, counts = np.unique(study.selected, return_counts=True)
    fig.add_trace(go.Scatter(
        x=sizes[picked], y=study.dp_curve[picked], mode="markers", name=SELECTED,
        marker={"color": COLORS["chosen"], "symbol": "star", "size": 9 + 3 * counts,
                "line": {"color": "white", "width": 1}},
        hovertemplate="selected in %{text} repeat(s): size %{x}<extra></extra>",
        text=[str(c) for c in counts],
    ))
    fig.add_vline(x=float(sizes[inspected]), line_color=COLORS["chosen"], line_dash="dash")
    legend_entry(fig, f"inspected size {int(sizes[inspected])}", "chosen", dash="dash")
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(_layout(fig, "released public points (subset size)",
                                 "prediction error t = ‖h(θ) − h(θ_D)‖₂", height=560))


def distance_curve(study, inspected: int) -> go.Figure:
    """d(D, E_(i)) of eq. (5) against the subset size (Fig. 4); non-private."""
    fig = go.Figure(go.Scatter(
        x=study.sizes, y=study.distance.mean(axis=0), mode="lines+markers",
        name="d(D, E′) (non-private)", line={"color": COLORS["nonprivate"]},
    ))
    fig.add_vline(x=float(study.sizes[inspected]), line_color=COLORS["chosen"],
                  line_dash="dash")
    legend_entry(fig, f"inspected size {int(study.sizes[inspected])}", "chosen", dash="dash")
    fig.update_yaxes(rangemode="tozero")
    return _legend_below(_layout(fig, "released public points (subset size)",
                                 "mean distance of a private point to E′", height=460))


def points_map(public_xy: np.ndarray, weights: np.ndarray, in_subset: np.ndarray,
               private_xy: np.ndarray, labels: tuple[str, str]) -> go.Figure:
    """Rescaled public points coloured by DP weight, the subset highlighted, next to the
    rescaled private points (non-private) (Figs 2-3)."""
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


class _RunStudy:
    """The parts of a :class:`dpcore.subset.SubsetStudy` the figures read, rebuilt from a run's
    tables (see :func:`dpcore.studies.subset.compute`)."""

    def __init__(self, numbers: dict[str, pd.DataFrame]) -> None:
        m = numbers["metrics"].iloc[0]
        self.public_only = float(m["public_only_error_nonprivate"])
        lei = m.get("lei_error_mean_nonprivate")
        self.lei = None if lei is None or pd.isna(lei) else np.array([float(lei)])
        if "error_by_repeat" in numbers:
            by = numbers["error_by_repeat"]
            self.repeats = int(by["repeat"].max())
            self.sizes = by.loc[by["repeat"] == 1, "size"].to_numpy()
            shape = (self.repeats, self.sizes.size)
            self.dp_curves = by["dp_error_nonprivate"].to_numpy().reshape(shape)
            self.hybrid_curves = by["hybrid_error_nonprivate"].to_numpy().reshape(shape)
            curve = numbers["error_curve"]
            self.noisy_curves = (curve["noisy_criterion_repeat1"].to_numpy()[None, :]
                                 if "noisy_criterion_repeat1" in curve else None)
            chosen = numbers["selected"]["selected_size"].to_numpy()
            self.selected = np.searchsorted(self.sizes, chosen)
            self.dp_curve = self.dp_curves.mean(axis=0)
            self.hybrid_curve = self.hybrid_curves.mean(axis=0)
        if "distance_curve_nonprivate" in numbers:
            dist = numbers["distance_curve_nonprivate"]
            self.sizes = dist["size"].to_numpy()
            self.distance = dist["distance_nonprivate"].to_numpy()[None, :]


def run_figures(numbers: dict[str, pd.DataFrame], controls) -> dict[str, go.Figure]:
    """The figure of a run's view (:mod:`dpcore.studies.subset`), built as the page builds it."""
    size = int(numbers["metrics"]["inspected_size"].iloc[0])
    if "error_curve" in numbers:
        study = _RunStudy(numbers)
        inspected = int(np.flatnonzero(study.sizes == size)[0])
        return {"error_vs_size": error_curve(study, inspected)}
    if "distance_curve_nonprivate" in numbers:
        study = _RunStudy(numbers)
        inspected = int(np.flatnonzero(study.sizes == size)[0])
        return {"distance_vs_size": distance_curve(study, inspected)}
    if "public_points" in numbers:
        pub, priv = numbers["public_points"], numbers["private_points_nonprivate"]
        labels = tuple(numbers["axes"]["label"])
        return {"points_and_weights": points_map(
            pub[["x", "y"]].to_numpy(), pub["dp_weight"].to_numpy(),
            pub["in_subset"].to_numpy(dtype=bool), priv[["x", "y"]].to_numpy(), labels)}
    return {}
