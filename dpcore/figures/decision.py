"""Plotly figures of a decision (:mod:`dpcore.decision`): the utility with its spread, the audit
against the claim, the trade-off curve of the release with the audit's (FPR, TPR) points (drawn
by :func:`dpcore.figures.audit.tradeoff_figure`), the synthetic-data report's marginals and
correlations, and the published deployments (drawn by
:func:`dpcore.figures.choose_epsilon.deployments_figure`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.audit import tradeoff_figure
from dpcore.figures.choose_epsilon import deployments_figure
from dpcore.figures.common import COLORS, layout, titled

__all__ = ["decision_figures", "decision_tradeoff_figure"]

def utility_figure(utility: pd.DataFrame) -> go.Figure:
    """Each utility quantity as a point with its spread (one SD or SE either side); a
    non-private one is drawn in the non-private colour and says so."""
    fig = go.Figure()
    for row in utility.itertuples(index=False):
        label = row.quantity + (" (non-private)" if row.non_private else "")
        fig.add_trace(go.Scatter(
            x=[row.value], y=[label], mode="markers", name=label,
            marker={"size": 12, "color": COLORS["nonprivate" if row.non_private else "dp"]},
            error_x={"type": "data", "array": [0.0 if math.isnan(row.sd) else row.sd],
                     "visible": True},
            hovertemplate=f"{label}: %{{x:.4g}} ({row.spread})<extra></extra>"))
    fig = layout(fig, "value (± one SD or SE)", "",
                 height=140 + 45 * len(utility))
    fig.update_yaxes(automargin=True, autorange="reversed")
    fig.update_layout(showlegend=False)
    return fig


def audit_figure(audit: pd.DataFrame) -> go.Figure:
    """The claimed ε, what correct noise allows on the audit's pair, and the audited bound."""
    m = audit.iloc[0]
    names = ["claimed ε", "correct noise allows on this pair", "audited lower bound"]
    values = [m["claimed_epsilon"], m["limit_on_this_pair"], m["audited_lower_bound"]]
    colors = [COLORS["public"], COLORS["theory"],
              COLORS["output"] if m["flagged"] else COLORS["dp"]]
    fig = go.Figure(go.Bar(x=values, y=names, orientation="h", marker_color=colors,
                           text=[f"{v:.3g}" for v in values], textposition="auto",
                           hovertemplate="%{y}: %{x:.4g}<extra></extra>"))
    fig = layout(fig, "ε", "", height=260)
    fig.update_yaxes(automargin=True, autorange="reversed")
    fig.update_layout(showlegend=False)
    return fig


def decision_tradeoff_figure(curves: pd.DataFrame, points: pd.DataFrame,
                             audit: pd.Series) -> go.Figure:
    """The audited step's claimed trade-off curve with the audit's (FPR, TPR) points and their
    Clopper-Pearson boxes (:func:`dpcore.figures.audit.tradeoff_figure`: a point significantly
    above the curve is drawn as a bug), and the curve of the release's steps composed where it
    differs from the step's (``curves`` of :func:`dpcore.decision.decide.tradeoff_table`)."""
    claim = pd.DataFrame({"fpr": curves["fpr"], "tpr": curves["claim_tpr"]})
    fig = tradeoff_figure(claim, points, audit["curve"])
    if not np.allclose(curves["plan_tpr"], curves["claim_tpr"], rtol=0.0, atol=1e-9):
        fig.add_trace(go.Scatter(
            x=curves["fpr"].tolist(), y=curves["plan_tpr"].tolist(), mode="lines",
            name="the release's steps composed (each as randomised response)",
            line={"color": COLORS["baseline"], "width": 2, "dash": "dash"}))
    return fig


def marginals_figure(marginals: pd.DataFrame) -> go.Figure:
    """Per-feature Kolmogorov-Smirnov distance between masked and real values (non-private)."""
    fig = go.Figure(go.Bar(
        x=marginals["ks_distance_nonprivate"], y=marginals["feature"], orientation="h",
        marker_color=COLORS["nonprivate"], name="KS distance (non-private)",
        hovertemplate="%{y}: KS %{x:.3f}<extra></extra>"))
    fig = layout(fig, "Kolmogorov-Smirnov distance, masked vs real (non-private)", "",
                 height=160 + 26 * len(marginals))
    fig.update_xaxes(range=[0, 1])
    fig.update_yaxes(automargin=True, autorange="reversed")
    fig.update_layout(showlegend=False)
    return fig


def correlation_figure(difference: pd.DataFrame) -> go.Figure:
    """The difference of correlation matrices, masked minus real (non-private)."""
    values = difference.to_numpy(dtype=float)
    fig = go.Figure(go.Heatmap(
        z=values, x=list(difference.columns), y=list(difference.index), zmin=-1, zmax=1,
        colorscale="RdBu", reversescale=True, colorbar={"title": "masked − real"},
        hovertemplate="%{y} × %{x}: %{z:.3f}<extra></extra>"))
    size = max(320, min(700, 120 + 22 * values.shape[0]))
    fig = layout(fig, "", "", height=size)
    fig.update_yaxes(automargin=True, autorange="reversed")
    fig.update_xaxes(automargin=True)
    return fig


def _audit_context(numbers: dict[str, pd.DataFrame], audit: pd.Series, epsilon: float) -> str:
    """The audit figure's settings line: its runs and confidence and, for a release of several
    steps (the decision's ``audit_scope`` table), which share of the release's ``epsilon`` the
    audited step claims."""
    context = (f"{int(audit['runs_per_dataset']):,} runs per dataset, confidence "
               f"{audit['confidence']:g}")
    scope = numbers.get("audit_scope")
    if scope is not None and not scope["audited"].all():
        context += f"; one step: ε = {audit['claimed_epsilon']:.3g} of {epsilon:.3g}"
    return context


def decision_figures(numbers: dict[str, pd.DataFrame], *, release: str,
                     epsilon: float) -> dict[str, go.Figure]:
    """Every figure of a decision's tables (:meth:`dpcore.decision.Decision.numbers`), titled:
    ``utility``, ``audit``, ``tradeoff`` (:func:`decision_tradeoff_figure`), ``deployments``
    and, for a masked release, ``marginals`` and ``correlation``."""
    audit = numbers["audit"].iloc[0]
    built = {
        "utility": (utility_figure(numbers["utility"]),
                    "What the release buys", f"{release}; ε = {epsilon:g}; seeded study"),
        "audit": (audit_figure(numbers["audit"]), "What an attacker could show",
                  _audit_context(numbers, audit, epsilon)),
        "tradeoff": (decision_tradeoff_figure(numbers["tradeoff"], numbers["audit_points"],
                                              audit),
                     "What an attacker can do: the trade-off curve and the audit's points",
                     _audit_context(numbers, audit, epsilon)),
        "deployments": (deployments_figure(numbers["deployments"], epsilon),
                        "This ε among published deployments", "units differ: landmarks, not a "
                                                               "ranking"),
    }
    if "synthetic_marginals" in numbers:
        built["marginals"] = (marginals_figure(numbers["synthetic_marginals"]),
                              "Masked vs real records, feature by feature",
                              "non-private: reads the private records")
        built["correlation"] = (correlation_figure(numbers["synthetic_correlation_difference"]),
                                "Correlations, masked minus real",
                                "non-private: reads the private records")
    out = {}
    for name, (fig, title, context) in built.items():
        titled(fig, title, context)
        out[name] = fig
    return out

