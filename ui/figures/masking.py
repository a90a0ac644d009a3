"""Figures of the data-masking page (Pham et al.): scatter panels with decision regions, the greedy
growth as a plotly animation, accuracy vs epsilon, and digit image grids.

Classes are told apart by colour *and* marker symbol (a class palette of its own, not the method
roles of :data:`ui.figures.common.COLORS`); which set a panel shows (non-private original,
public/fake initial set, DP masked set) is in the panel's title.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.figures.common import COLORS, band, layout

#: One colour and one marker per class (colour-blind-safe Dark2 hues).
CLASS_COLORS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02")
CLASS_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x")
#: Method of Fig. 5 -> palette role.
METHOD_ROLES = {"masked generation": "dp", "input perturbation": "input",
                "output perturbation": "output", "non-private": "nonprivate"}


def _rgba(color: str, alpha: float) -> str:
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


@dataclass(frozen=True)
class Panel:
    """One scatter panel: a title, 2-D points with labels, optional decision regions and
    optional extra points (drawn hollow, e.g. input-perturbed records)."""

    title: str
    X: np.ndarray
    y: np.ndarray
    regions: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    extra: tuple[str, np.ndarray, np.ndarray] | None = None
    faint: int = 0  # the first ``faint`` points are drawn pale (e.g. the initial set)


def _region_trace(regions, n_classes: int) -> go.Heatmap:
    xs, ys, labels = regions
    scale = []
    for c in range(n_classes):
        color = _rgba(CLASS_COLORS[c % len(CLASS_COLORS)], 0.16)
        scale += [[c / n_classes, color], [(c + 1) / n_classes, color]]
    return go.Heatmap(x=xs, y=ys, z=labels, zmin=-0.5, zmax=n_classes - 0.5, colorscale=scale,
                      showscale=False, hoverinfo="skip")


def _class_traces(X, y, class_names, *, showlegend: bool, hollow: bool = False,
                  name_suffix: str = "", opacity: float = 0.85, group_suffix: str = ""):
    traces = []
    for c, name in enumerate(class_names):
        rows = y == c
        color = CLASS_COLORS[c % len(CLASS_COLORS)]
        marker = {"color": "rgba(0,0,0,0)" if hollow else color, "size": 7,
                  "symbol": CLASS_SYMBOLS[c % len(CLASS_SYMBOLS)],
                  "line": {"color": color if hollow else "white", "width": 1.2 if hollow else 0.5}}
        traces.append(go.Scatter(
            x=X[rows, 0], y=X[rows, 1], mode="markers", name=f"{name}{name_suffix}",
            legendgroup=f"{name}{group_suffix}", showlegend=showlegend, marker=marker,
            opacity=opacity, hovertemplate=f"{name}{name_suffix}<br>(%{{x:.2f}}, %{{y:.2f}})"
                                           "<extra></extra>"))
    return traces


def axis_ranges(*point_sets: np.ndarray, pad: float = 0.08) -> tuple[list[float], list[float]]:
    """Ranges that hold every given 2-D point, padded by ``pad`` of the span."""
    points = np.concatenate([np.asarray(p, dtype=float).reshape(-1, 2) for p in point_sets])
    lo, hi = points.min(axis=0), points.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    lo, hi = lo - pad * span, hi + pad * span
    return [float(lo[0]), float(hi[0])], [float(lo[1]), float(hi[1])]


def scatter_panels(panels: Sequence[Panel], class_names: Sequence[str], *, xtitle: str,
                   ytitle: str, x_range, y_range, height: int = 440) -> go.Figure:
    """Panels side by side on shared axes (Pham et al. Fig. 2 (a)-(c)), each with the decision
    regions of the classifier fitted on its own set. Points outside the ranges are not drawn
    (input-perturbed records at small ε lie far outside)."""
    fig = make_subplots(rows=1, cols=len(panels), shared_xaxes=True, shared_yaxes=True,
                        subplot_titles=[p.title for p in panels], horizontal_spacing=0.03)
    C = len(class_names)
    for i, panel in enumerate(panels, start=1):
        if panel.regions is not None:
            fig.add_trace(_region_trace(panel.regions, C), row=1, col=i)
        if panel.faint:
            for trace in _class_traces(panel.X[:panel.faint], panel.y[:panel.faint], class_names,
                                       showlegend=False, opacity=0.3):
                fig.add_trace(trace, row=1, col=i)
        for trace in _class_traces(panel.X[panel.faint:], panel.y[panel.faint:], class_names,
                                   showlegend=i == 1):
            fig.add_trace(trace, row=1, col=i)
        if panel.extra is not None:
            label, Xe, ye = panel.extra
            for trace in _class_traces(Xe, ye, class_names, showlegend=True, hollow=True,
                                       name_suffix=f" ({label})", group_suffix="extra"):
                fig.add_trace(trace, row=1, col=i)
    layout(fig, "", "", height=height)
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0},
                      margin={"b": 90})
    fig.update_xaxes(range=list(x_range), title_text=xtitle, constrain="domain")
    fig.update_yaxes(range=list(y_range))
    fig.update_yaxes(title_text=ytitle, row=1, col=1)
    return fig


def growth_animation(X0, y0, X_new, y_new, trace, class_names: Sequence[str], *, x_range,
                     y_range, xtitle: str, ytitle: str, n_frames: int = 40,
                     height: int = 460) -> go.Figure:
    """The greedy growth of the masked set as plotly frames: samples appear one by one (left)
    while the gradient norm at w' falls (right)."""
    n_new = len(y_new)
    steps = np.unique(np.linspace(0, n_new, min(n_frames, n_new) + 1).round().astype(int))
    C = len(class_names)
    fig = make_subplots(rows=1, cols=2, column_widths=[0.6, 0.4], horizontal_spacing=0.1,
                        subplot_titles=["Masked set", "Gradient norm at w′"])

    def scatter_data(k):
        X = np.concatenate([X0, X_new[:k]])
        y = np.concatenate([y0, y_new[:k]])
        traces = _class_traces(X, y, class_names, showlegend=True)
        last = X_new[k - 1:k] if k else np.empty((0, 2))
        traces.append(go.Scatter(x=last[:, 0], y=last[:, 1], mode="markers", name="newest sample",
                                 marker={"size": 15, "color": "rgba(0,0,0,0)",
                                         "line": {"color": COLORS["chosen"], "width": 2.5}}))
        return traces

    ks = np.arange(n_new + 1)
    for t in scatter_data(0):
        fig.add_trace(t, row=1, col=1)
    fig.add_trace(go.Scatter(x=ks, y=trace, mode="lines", name="‖∇J_S(w′)‖",
                             line={"color": COLORS["dp"]}), row=1, col=2)
    fig.add_trace(go.Scatter(x=[0], y=[trace[0]], mode="markers", name="now",
                             marker={"color": COLORS["chosen"], "size": 11}), row=1, col=2)
    moving = list(range(C + 1)) + [C + 2]  # class traces, newest, the marker on the curve
    fig.frames = [go.Frame(name=str(k), traces=moving,
                           data=[*scatter_data(k), go.Scatter(x=[k], y=[trace[k]])])
                  for k in steps]
    positive = trace[trace > 0]
    fig.update_yaxes(type="log", title_text="gradient norm (log)", row=1, col=2,
                     exponentformat="e", dtick=2,
                     range=[np.log10(max(positive.min(), trace[0] * 1e-16)) - 0.3,
                            np.log10(trace[0]) + 0.3] if positive.size else None)
    fig.update_xaxes(title_text="samples added", row=1, col=2)
    layout(fig, "", "", height=height)
    fig.update_xaxes(range=list(x_range), title_text=xtitle, row=1, col=1)
    fig.update_yaxes(range=list(y_range), title_text=ytitle, row=1, col=1)
    fig.update_layout(
        legend={"orientation": "v", "yanchor": "top", "y": 1.0, "x": 1.02},
        updatemenus=[{"type": "buttons", "showactive": False, "x": 0, "y": -0.12,
                      "xanchor": "left", "yanchor": "top",
                      "buttons": [
                          {"label": "▶ Play", "method": "animate",
                           "args": [None, {"frame": {"duration": 120, "redraw": True},
                                           "fromcurrent": True, "transition": {"duration": 0}}]},
                          {"label": "❚❚ Pause", "method": "animate",
                           "args": [[None], {"frame": {"duration": 0}, "mode": "immediate"}]}]}],
        sliders=[{"active": 0, "x": 0.12, "len": 0.88, "y": -0.12, "yanchor": "top",
                  "currentvalue": {"prefix": "samples added: "},
                  "steps": [{"label": str(k), "method": "animate",
                             "args": [[str(k)], {"frame": {"duration": 0, "redraw": True},
                                                 "mode": "immediate"}]} for k in steps]}],
        margin={"b": 150},
    )
    return fig


def accuracy_figure(frame: pd.DataFrame, *, epsilon: float, height: int = 400) -> go.Figure:
    """Mean validation accuracy with a ±1 SD band per method vs epsilon (Pham et al. Fig. 5)."""
    fig = go.Figure()
    # Masked generation last and thickest: where the masked set reaches w' it coincides with
    # output perturbation (drawn dashed underneath).
    order = ("non-private", "input perturbation", "output perturbation", "masked generation")
    for method in order:
        rows = frame[frame["method"] == method].sort_values("epsilon")
        if rows.empty:
            continue
        band(fig, rows["epsilon"], rows["mean"], rows["sd"], method, METHOD_ROLES[method])
    fig.update_traces(selector={"fill": "toself"}, mode="lines")  # the bands' outlines only
    fig.update_traces(selector={"name": "output perturbation"}, line={"dash": "dash"})
    fig.update_traces(selector={"name": "masked generation"}, line={"width": 3.5})
    fig.add_vline(x=epsilon, line_dash="dot", line_color=COLORS["chosen"])
    layout(fig, "ε (log scale)", "validation accuracy", height=height)
    ticks = sorted(frame["epsilon"].unique())
    fig.update_xaxes(type="log", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    fig.update_yaxes(range=[0.0, 1.02])  # the same scale in every panel
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.22, "x": 0},
                      margin={"b": 90})
    return fig


def image_grid(images: np.ndarray, titles: Sequence[str], *, cols: int = 8, zmin: float = 0.0,
               zmax: float = 1.0, diverging: bool = False, height: int | None = None
               ) -> go.Figure:
    """Small images in a grid (digits, or classifier weights with a diverging scale)."""
    images = np.asarray(images, dtype=float)
    n = len(images)
    cols = max(1, min(cols, n))
    if diverging:
        bound = float(np.abs(images).max()) or 1.0
        fig = px.imshow(images, facet_col=0, facet_col_wrap=cols, zmin=-bound, zmax=bound,
                        color_continuous_scale="RdBu_r", facet_col_spacing=0.01,
                        facet_row_spacing=0.06)
    else:
        fig = px.imshow(images, facet_col=0, facet_col_wrap=cols, zmin=zmin, zmax=zmax,
                        color_continuous_scale="gray_r", facet_col_spacing=0.01,
                        facet_row_spacing=0.06)
    for annotation in fig.layout.annotations:
        index = int(annotation.text.split("=")[-1])
        annotation.text = titles[index] if index < len(titles) else ""
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False)
    rows = int(np.ceil(n / cols))
    fig.update_layout(height=height or 90 + 110 * rows, margin={"l": 10, "r": 10, "t": 60,
                                                                 "b": 10},
                      coloraxis_showscale=diverging)
    return fig
