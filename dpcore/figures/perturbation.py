"""Plotly figures of the private logistic regression page ([CM08] Figs. 2a-d, Lemmas 3-4).

Curves from the data without noise are labelled "non-private" in every legend. Colours: the
shared roles "output", "objective", "objective2008", "nonprivate" and "theory".
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.common import COLORS, band, layout, legend_at_foot, reference_line, titled
from dpcore.studies.perturbation import Params

__all__ = ["BEST", "GUESSING",
           "ROLES", "PRIVATE", "TITLES", "WHISKERS", "error_curve", "distance_boxes",
           "bounds_figure", "coefficient_bars", "figures"]

#: Method label of dpcore.perturbation.experiments -> palette role.
ROLES = {
    "non-private": "nonprivate",
    "output perturbation": "output",
    "objective perturbation": "objective",
    "objective (2008 proof)": "objective2008",
}
PRIVATE = ("output perturbation", "objective perturbation", "objective (2008 proof)")
#: The legend name of the error of always guessing the most frequent class.
GUESSING = "always guessing the most frequent class (non-private: it reads the labels)"
#: The legend name of the non-private model at its own best λ (cross-validated on D's training
#: rows).
BEST = "non-private at its own best λ"
#: What the distance boxes show, on the figure itself (so that an export says it too).
WHISKERS = ("Boxes: median and middle half over folds and restarts; whiskers to the furthest "
            "draw within 1.5 box-lengths (Tukey), dots beyond.")


def _name(method: str) -> str:
    return "non-private (no noise)" if method == "non-private" else method


def _chosen_line(fig: go.Figure, x: float) -> None:
    fig.add_vline(x=x, line_dash="dot", line_color=COLORS["chosen"])
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", name="chosen value",
                             line={"dash": "dot", "color": COLORS["chosen"]}, hoverinfo="skip"))


def error_curve(summary: pd.DataFrame, *, by: str, chosen: float, xtitle: str,
                guessing: float, log_x: bool = True, best: float | None = None) -> go.Figure:
    """Mean test error with a ±1 SD band per method against ``by`` (Figs. 2a-d), and the error
    of always guessing the most frequent class (``guessing``, dashed): a curve on or above it
    has learned nothing. ``best``: the non-private model at its own best λ (dotted), what a
    logistic regression can reach on these records."""
    fig = go.Figure()
    for method in ROLES:
        part = summary[summary["method"] == method].sort_values(by)
        if part.empty:
            continue
        band(fig, part[by], part["mean"], part["std"].fillna(0.0), _name(method), ROLES[method])
        fig.data[-2].mode = "lines"  # the band's outline without markers at its corners
    reference_line(fig, guessing, f"{GUESSING}: {guessing:.3f}", "baseline")
    if best is not None:
        reference_line(fig, best, f"{BEST}: {best:.3f}", "nonprivate", dash="dot")
    _chosen_line(fig, chosen)
    ticks = sorted(summary[by].unique())
    fig.update_xaxes(tickvals=ticks, ticktext=[f"{v:g}" for v in ticks])
    if log_x:
        fig.update_xaxes(type="log", tickformat="~g")
    fig.update_yaxes(rangemode="tozero")
    return legend_at_foot(layout(fig, xtitle, "test error (mean ± 1 SD)", height=480))


def distance_boxes(results: pd.DataFrame, chosen: float) -> go.Figure:
    """Box plots of ``||w_private - w_nonprivate||`` per epsilon and method (log y)."""
    fig = go.Figure()
    for method in PRIVATE:
        part = results[results["method"] == method]
        if part.empty:
            continue
        fig.add_trace(go.Box(
            x=part["epsilon"].map(lambda v: f"{v:.3g}"), y=part["distance"], name=method,
            marker_color=COLORS[ROLES[method]], boxpoints="outliers",
            hovertemplate=f"{method}<br>ε = %{{x}}<br>distance %{{y:.3g}}<extra></extra>"))
    fig.update_layout(boxmode="group")
    fig.update_yaxes(type="log", dtick=1, exponentformat="power")
    fig.update_xaxes(type="category")
    fig = layout(fig, "ε", "‖w_private − w_non-private‖ (scaled records)")
    fig.add_annotation(text=WHISKERS, xref="paper", yref="paper", x=0, y=0, xanchor="left",
                       yanchor="top", yshift=-48, showarrow=False, font={"size": 11})
    fig.update_layout(margin={"b": 90})
    fig.add_annotation(text=f"chosen ε = {chosen:g}", xref="paper", yref="paper", x=1, y=1.0,
                       xanchor="right", yanchor="bottom", showarrow=False,
                       font={"color": COLORS["chosen"]})
    return fig


def bounds_figure(results: pd.DataFrame, bounds: pd.DataFrame, chosen: float) -> go.Figure:
    """Measured excess regularised training loss beside the bounds of Lemmas 3 and 4 (log-log).

    Dots: the 95th percentile over folds and restarts (the lemmas hold with probability 0.95
    at delta = 0.05); lines: the bounds, coloured as their method, dashed.
    """
    fig = go.Figure()
    for method, bound_col in (("output perturbation", "output perturbation"),
                              ("objective (2008 proof)", "objective perturbation")):
        part = results[results["method"] == method]
        if part.empty:
            continue
        q = part.groupby("epsilon")["excess"].quantile(0.95).clip(lower=1e-16)
        mean = part.groupby("epsilon")["excess"].mean().clip(lower=1e-16)
        color = COLORS[ROLES[method]]
        lemma = "Lemma 3" if method.startswith("output") else "Lemma 4"
        fig.add_trace(go.Scatter(x=q.index, y=q.values, mode="markers+lines",
                                 name=f"{method}: measured 95th percentile",
                                 line={"color": color}, marker={"color": color, "size": 9}))
        fig.add_trace(go.Scatter(x=mean.index, y=mean.values, mode="markers",
                                 name=f"{method}: measured mean",
                                 marker={"color": color, "symbol": "circle-open", "size": 9}))
        fig.add_trace(go.Scatter(x=bounds["epsilon"], y=bounds[bound_col], mode="lines",
                                 name=f"{lemma} bound (δ = 0.05)",
                                 line={"color": color, "dash": "dash", "width": 3}))
    _chosen_line(fig, chosen)
    ticks = sorted(results["epsilon"].unique())
    fig.update_xaxes(type="log", tickvals=ticks, ticktext=[f"{v:g}" for v in ticks])
    fig.update_yaxes(type="log", exponentformat="power", dtick=1)
    fig = layout(fig, "ε", "excess regularised training loss", height=560)
    # seven legend entries: below the plot, where they cannot cover the title
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0})
    return fig


def coefficient_bars(coef: np.ndarray, features: list[str], top: int = 20) -> go.Figure:
    """The released coefficients with the largest magnitude (horizontal bars)."""
    order = np.argsort(-np.abs(coef))[:top][::-1]
    fig = go.Figure(go.Bar(x=coef[order], y=[features[i] for i in order], orientation="h",
                           marker_color=COLORS["dp"], name="released coefficients",
                           hovertemplate="%{y}: %{x:.3f}<extra></extra>"))
    return layout(fig, "coefficient", "", height=max(300, 22 * len(order) + 80))


#: Every figure :func:`figures` may return, by name: its title.
TITLES = {
    "error_vs_epsilon": "Test error vs ε (Chaudhuri & Monteleoni Fig. 2c-d)",
    "learning_curve": "Learning curves (Chaudhuri & Monteleoni Fig. 2a-b)",
    "distance": "How far the private model lands from the non-private one",
    "bounds": "Excess training loss and the bounds of Lemmas 3 and 4",
}


def figures(numbers: Mapping[str, pd.DataFrame], params: Params) -> dict[str, go.Figure]:
    """The figure of the view that :func:`dpcore.studies.perturbation.compute` computed
    ``numbers`` for, by name (see :data:`TITLES`), titled; none for the Publish view (its model
    is a release, drawn by the page from the release itself: :func:`coefficient_bars`)."""
    view, epsilon = params.view, params.epsilon
    figs: dict[str, go.Figure] = {}
    m = numbers["metrics"].iloc[0]
    if view == "error_vs_epsilon":
        figs["error_vs_epsilon"] = error_curve(numbers["summary"], by="epsilon", chosen=epsilon,
                                               xtitle="ε (log scale)",
                                               guessing=float(m["guessing_error_nonprivate"]),
                                               best=(float(m["best_error_nonprivate"])
                                                     if "best_error_nonprivate" in m else None))
    elif view == "learning_curve":
        figs["learning_curve"] = error_curve(numbers["summary"], by="n",
                                             chosen=float(m["n_fold"]),
                                             xtitle="training size n", log_x=False,
                                             guessing=float(m["guessing_error_nonprivate"]))
    elif view == "distance":
        figs["distance"] = distance_boxes(numbers["results"], epsilon)
    elif view == "bounds":
        figs["bounds"] = bounds_figure(numbers["results"], numbers["bounds"], epsilon)
    for name, fig in figs.items():
        titled(fig, TITLES[name])
    return figs
