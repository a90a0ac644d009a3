"""Plotly figures of the "Choose epsilon" page: target curves, posterior risk, composition.

Colours follow :mod:`dpcore.figures.common`: a Monte-Carlo curve measured against the private truth
is "nonprivate"-labelled where it reads D without noise, closed forms are "theory", the slider's
value is "chosen".
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.common import COLORS, SEQUENCE, fmt, layout, legend_entry, reference_line

METHOD_COLORS = {"sequential": COLORS["baseline"], "advanced": COLORS["theory"],
                 "zcdp": COLORS["dp"]}


def target_curve(answer, *, ytitle: str, measured_name: str, fitted_name: str,
                 chosen: float | None = None) -> go.Figure:
    """The statistic against ε (log axis), its monotone fit, the target and the answer.

    ``answer`` is a :class:`dpcore.planning.EpsilonAnswer`; for a closed form the measured and
    fitted columns coincide and only the curve is drawn.
    """
    curve = answer.curve
    fig = go.Figure()
    closed = answer.n_runs == 0
    if not closed:
        fig.add_trace(go.Scatter(x=curve["epsilon"], y=curve["value"], mode="markers",
                                 name=measured_name, marker={"color": COLORS["dp"], "size": 8},
                                 hovertemplate="ε %{x:.3g}<br>%{y:.4g}<extra></extra>"))
    fig.add_trace(go.Scatter(x=curve["epsilon"], y=curve["fitted"], mode="lines",
                             name=fitted_name,
                             line={"color": COLORS["theory" if closed else "prediction"]},
                             hovertemplate="ε %{x:.3g}<br>%{y:.4g}<extra></extra>"))
    reference_line(fig, answer.target, f"target {fmt(answer.target)}", "public", dash="dot")
    if answer.met:
        fig.add_vline(x=answer.epsilon, line_color=COLORS["chosen"], line_dash="dash")
        fig.add_trace(go.Scatter(x=[answer.epsilon], y=[answer.achieved], mode="markers",
                                 name=f"smallest ε = {answer.epsilon:.3g}",
                                 marker={"color": COLORS["chosen"], "size": 13,
                                         "symbol": "diamond"}))
        if math.isfinite(answer.low) and math.isfinite(answer.high):
            fig.add_vrect(x0=answer.low, x1=answer.high, fillcolor=COLORS["chosen"],
                          opacity=0.12, line_width=0)
    else:
        fig.add_trace(go.Scatter(x=[answer.best_epsilon], y=[answer.achieved], mode="markers",
                                 name=f"best reachable (ε = {answer.best_epsilon:.3g})",
                                 marker={"color": COLORS["output"], "size": 13,
                                         "symbol": "x"}))
    if chosen is not None:
        fig.add_vline(x=chosen, line_color=COLORS["chosen"], line_dash="dot", opacity=0.5)
        legend_entry(fig, f"the slider's ε = {fmt(chosen)}", "chosen", dash="dot")
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", dtick="D2")
    return layout(fig, "ε (log scale)", f"{ytitle} (log scale)")


def posterior_figure(curves: pd.DataFrame, prior: float, chosen: float,
                     delta_curve: pd.DataFrame | None = None) -> go.Figure:
    """Worst-case posterior against the prior, one line per ε (log-log), the prior marked."""
    fig = go.Figure()
    epsilons = sorted(curves["epsilon"].unique())
    for i, eps in enumerate(epsilons):
        part = curves[curves["epsilon"] == eps]
        is_chosen = math.isclose(eps, chosen)
        fig.add_trace(go.Scatter(
            x=part["prior"], y=part["posterior"], mode="lines", name=f"ε = {fmt(eps)}",
            line={"color": COLORS["chosen"] if is_chosen else SEQUENCE[i % len(SEQUENCE)],
                  "width": 4 if is_chosen else 2},
            hovertemplate=f"ε = {fmt(eps)}<br>prior %{{x:.3%}}<br>posterior at most "
                          "%{y:.2%}<extra></extra>"))
    if delta_curve is not None and len(delta_curve):
        eps, delta = float(delta_curve["epsilon"].iloc[0]), float(delta_curve["delta"].iloc[0])
        fig.add_trace(go.Scatter(
            x=delta_curve["prior"], y=delta_curve["posterior"], mode="lines",
            name=f"ε = {fmt(eps)}, δ = {fmt(delta)} (expected over releases)",
            line={"color": COLORS["chosen"], "dash": "dash"}))
    grid = curves["prior"].drop_duplicates().sort_values()
    fig.add_trace(go.Scatter(x=grid, y=grid, mode="lines", name="no release (posterior = prior)",
                             line={"color": COLORS["public"], "dash": "dot"}))
    fig.add_vline(x=prior, line_color=COLORS["public"], line_dash="dash")
    ticks = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
    text = [f"{100 * t:g} %" for t in ticks]
    fig.update_xaxes(type="log", tickvals=ticks[:-1], ticktext=text[:-1])
    fig.update_yaxes(type="log", tickvals=ticks, ticktext=text)
    return layout(fig, "prior belief that the person is in the data (log scale)",
                  "worst-case belief after one release", height=460)


def composition_bars(table: pd.DataFrame) -> go.Figure:
    """Total ε of the planned releases under each composition method."""
    fig = go.Figure()
    for _, row in table.iterrows():
        value = row["epsilon"]
        fig.add_trace(go.Bar(
            x=[row["method"]], y=[0.0 if np.isnan(value) else value], name=row["method"],
            marker_color=METHOD_COLORS[row["method"]],
            text=["cannot account" if np.isnan(value) else
                  f"ε = {value:.3g}, δ = {row['delta']:.2g}"],
            textposition="outside", cliponaxis=False,
            hovertemplate="%{x}: total ε %{y:.4g}<extra></extra>"))
    fig.update_layout(showlegend=False)
    fig = layout(fig, "composition method", "total ε of the plan", height=400)
    fig.update_layout(showlegend=False)
    return fig


def growth_figure(frame: pd.DataFrame, budget: float | None = None) -> go.Figure:
    """Total ε against the number of identical releases, one line per method."""
    fig = go.Figure()
    for method, part in frame.groupby("method", sort=False):
        fig.add_trace(go.Scatter(x=part["count"], y=part["epsilon"], mode="lines", name=method,
                                 line={"color": METHOD_COLORS[method],
                                       "dash": "dash" if method == "advanced" else None,
                                       "width": 3 if method == "advanced" else 2},
                                 hovertemplate=f"{method}<br>%{{x}} releases: total ε "
                                               "%{y:.3g}<extra></extra>"))
    if budget is not None and math.isfinite(budget):
        reference_line(fig, budget, f"session budget ε = {fmt(budget)}", "chosen", dash="dot")
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", dtick="D2")
    fig = layout(fig, "number of identical releases (log scale)", "total ε (log scale)",
                 height=400)
    # Below the plot: above it the legend would run into the two-line title.
    fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.25, "x": 0,
                              "xanchor": "left"})
    return fig


def _run_answer(m: pd.Series, curve: pd.DataFrame) -> SimpleNamespace:
    """The parts of a :class:`dpcore.planning.EpsilonAnswer` :func:`target_curve` reads."""
    return SimpleNamespace(curve=curve, n_runs=int(m["runs_per_epsilon"]),
                           target=float(m["target_value"]), met=bool(m["met"]),
                           epsilon=float(m["smallest_epsilon"]), achieved=float(m["achieved"]),
                           best_epsilon=float(m["best_epsilon"]), low=float(m["interval_low"]),
                           high=float(m["interval_high"]))


def run_figures(numbers: dict[str, pd.DataFrame], controls) -> dict[str, go.Figure]:
    """The figures of a run's view (:mod:`dpcore.studies.choose_epsilon`), built as the page
    builds them."""
    m = numbers["metrics"].iloc[0]
    epsilon = float(controls.get("ce_epsilon", 1.0))
    if "posterior_curves" in numbers:
        return {"risk": posterior_figure(numbers["posterior_curves"], float(m["prior"]),
                                         float(m["epsilon"]),
                                         numbers.get("posterior_curve_delta"))}
    if "composition" in numbers:
        return {"composition": composition_bars(numbers["composition"]),
                "growth": growth_figure(numbers["growth"], float(m["budget"]))}
    curve = numbers.get("curve_nonprivate", numbers.get("curve"))
    if curve is None:
        return {}
    answer = _run_answer(m, curve)
    target = m["target"]
    level = float(m["level"]) if "level" in m and pd.notna(m["level"]) else 0.95
    if target in ("laplace", "gaussian"):
        mechanism = "Laplace" if target == "laplace" else "Gaussian"
        labels = (f"{level:.0%} radius of the noise", "",
                  f"{mechanism} noise radius (closed form)")
    elif target == "iw_theory":
        labels = (f"{level:.0%} error radius of the estimate", "",
                  str(m["source"]).split(": ")[1])
    elif target == "iw_mc":
        labels = (f"{level:.0%} quantile of |estimate − truth|",
                  "measured (non-private truth)" if "curve_nonprivate" in numbers
                  else "measured (stand-in)", "monotone fit")
    elif target == "lr":
        labels = ("mean test error", "measured", "monotone fit")
    else:
        labels = ("mean prediction error t of the selected subset", "measured", "monotone fit")
    ytitle, measured, fitted = labels
    return {"target": target_curve(answer, ytitle=ytitle, measured_name=measured,
                                   fitted_name=fitted, chosen=epsilon)}
