"""Figures of the privacy-audit page: the two output distributions, the claim's trade-off curve
with the audit's (FPR, TPR) points, claimed vs audited ε, and the floating-point attacks' two
bounds per release mechanism."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.common import COLORS, SEQUENCE, layout, legend_at_foot, legend_entry, titled
from dpcore.studies.audit import Params

__all__ = ["TITLES", "context", "distributions_figure", "figures", "float_figure",
           "summary_figure", "tradeoff_figure"]

D_COLOR, DPRIME_COLOR = SEQUENCE[4], SEQUENCE[2]

#: Each figure's title, by name (the page shows it with the same title).
TITLES = {"distributions": "Outputs on D and D′, reduced to one score each, and the threshold "
                           "test",
          "tradeoff": "What an attacker can do: the claimed trade-off curve and the audited "
                      "(FPR, TPR) points"}


def distributions_figure(scores: pd.DataFrame, threshold: float, statistic: str) -> go.Figure:
    """Overlaid histograms of the held-out scores on D and on D′ (the study's ``scores``
    table), with the chosen threshold."""
    fig = go.Figure()
    s0 = scores.loc[scores["dataset"] == "D", "score"].to_numpy()
    s1 = scores.loc[scores["dataset"] == "D′", "score"].to_numpy()
    both = np.concatenate([s0, s1])
    lo, hi = np.quantile(both, [0.002, 0.998])
    if not hi > lo:
        lo, hi = float(both.min()) - 0.5, float(both.max()) + 0.5
    bins = {"start": float(lo), "end": float(hi), "size": float(hi - lo) / 60}
    for values, name, color in ((s0, "runs on D", D_COLOR), (s1, "runs on D′", DPRIME_COLOR)):
        fig.add_trace(go.Histogram(x=np.clip(values, lo, hi), name=name, xbins=bins,
                                   histnorm="probability", marker_color=color, opacity=0.55))
    fig.update_layout(barmode="overlay")
    fig.add_vline(x=float(np.clip(threshold, lo, hi)), line_dash="dash",
                  line_color=COLORS["chosen"])
    legend_entry(fig, "threshold (chosen on the other half)", "chosen", dash="dash")
    # At the foot: above the plot the legend would run into the title's settings line.
    return legend_at_foot(layout(fig, f"score: {statistic}", "share of runs", height=380))


def tradeoff_figure(curve: pd.DataFrame, points: pd.DataFrame, curve_name: str) -> go.Figure:
    """The claim's trade-off curve (the study's ``curve`` table: the largest TPR it allows at
    each FPR) and the audit's (FPR, TPR) points (``points``) with their Clopper-Pearson boxes; a
    point above the curve (``above``) is drawn as a red cross, named as a bug in the legend."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=[0.0, 1.0], y=[0.0, 1.0], mode="lines", name="guessing",
                             line={"color": COLORS["nonprivate"], "dash": "dot", "width": 1}))
    fig.add_trace(go.Scatter(x=curve["fpr"].tolist(), y=curve["tpr"].tolist(), mode="lines",
                             name=f"claim's curve: {curve_name}",
                             line={"color": COLORS["theory"], "width": 2}))
    for above, name, color, symbol in (
            (False, "audit's point (Clopper-Pearson box): within the claim", COLORS["dp"],
             "circle"),
            (True, "audit's point significantly above the curve: a bug", COLORS["output"],
             "x")):
        rows = points[points["above"] == above]
        for row in rows.itertuples():
            fig.add_shape(type="rect", x0=row.fpr_low, x1=row.fpr_high, y0=row.tpr_low,
                          y1=row.tpr_high, line={"color": color, "width": 1},
                          fillcolor=color, opacity=0.25)
        if len(rows):
            fig.add_trace(go.Scatter(x=rows["fpr"].tolist(), y=rows["tpr"].tolist(),
                                     mode="markers", name=name, text=rows["test"].tolist(),
                                     marker={"color": color, "symbol": symbol, "size": 11,
                                             "line": {"width": 1, "color": color}}))
    fig.update_layout(xaxis={"range": [0.0, 1.0]}, yaxis={"range": [0.0, 1.02]})
    return legend_at_foot(layout(fig, "false-positive rate (says D′ on D)",
                                 "true-positive rate (says D′ on D′)", height=460))


def summary_figure(table: pd.DataFrame) -> go.Figure:
    """Claimed ε and audited lower bound for every mechanism, one row each (the table of
    :func:`dpcore.studies.audit.summary_table`)."""
    names = [("⚠ " if broken else "") + name
             for name, broken in zip(table["mechanism"], table["broken on purpose"], strict=True)]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=names, x=table["claimed epsilon"].tolist(), orientation="h",
                         name="claimed ε", marker_color=COLORS["theory"]))
    fig.add_trace(go.Bar(y=names, x=table["audited lower bound"].tolist(), orientation="h",
                         name="audited lower bound (the noise is at least this strong)",
                         marker_color=[COLORS["output"] if flagged else COLORS["dp"]
                                       for flagged in table["flagged"]]))
    legend_entry(fig, "above the claim, or above f × ε where the loss is linear in the "
                      "distance (Laplace, L2- or discrete Laplace noise): a fault", "output",
                 kind="marker")
    fig.update_layout(barmode="group", yaxis={"autorange": "reversed"})
    return legend_at_foot(layout(fig, "ε", "", height=200 + 34 * len(table)))


def float_figure(rows: list[dict]) -> go.Figure:
    """Claimed ε and the two floating-point attacks' bounds (reachability, granularity) for every
    mechanism that outputs numbers (rows of :meth:`dpcore.audit_float.FloatAuditResult.row`);
    a bound above its claim is red, and every bound is written beside its bar (most are 0)."""
    rows = [r for r in rows if r["runs per dataset"] > 0]  # an index has no low-order bits
    names = [("⚠ " if r["broken on purpose"] else "") + r["mechanism"] for r in rows]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=names, x=[r["claimed epsilon"] for r in rows], orientation="h",
                         name="claimed ε", marker_color=COLORS["theory"]))
    for column, name, color, pattern in (
            ("reachability bound", "reachability: could D have produced it?", COLORS["dp"], ""),
            ("granularity bound", "granularity: trailing zero bits", COLORS["objective"], "/")):
        values = [r[column] for r in rows]
        fig.add_trace(go.Bar(y=names, x=values, orientation="h", name=name,
                             text=[f"{v:.2f}" for v in values], textposition="outside",
                             marker_color=[COLORS["output"] if v > r["claimed epsilon"] else color
                                           for v, r in zip(values, rows, strict=True)],
                             marker_pattern_shape=pattern))
    legend_entry(fig, "above the claim: the attack tells D from D′ (a fault)", "output",
                 kind="marker")
    fig.update_layout(barmode="group", yaxis={"autorange": "reversed"})
    return legend_at_foot(layout(fig, "ε (claimed, and the audited lower bounds)", "",
                                 height=220 + 44 * len(rows)))


def context(numbers: Mapping[str, pd.DataFrame]) -> str:
    """The settings behind the histogram (mechanism, ε, runs), for its title."""
    m = numbers["metrics"].iloc[0]
    return (f"{m['mechanism']}; ε = {m['claimed_epsilon']:g}; {int(m['runs_per_dataset']):,} "
            "runs per dataset (half shown after choosing the threshold on the other half)")


def figures(numbers: Mapping[str, pd.DataFrame], params: Params) -> dict[str, go.Figure]:
    """The page's figures for its study's numbers (:func:`dpcore.studies.audit.compute`),
    titled: ``"distributions"``, the held-out scores on D and D′ and the threshold test, and
    ``"tradeoff"``, the claim's trade-off curve with the test's (FPR, TPR) points."""
    del params
    m = numbers["metrics"].iloc[0]
    fig = distributions_figure(numbers["scores"], float(m["threshold"]), m["statistic"])
    titled(fig, TITLES["distributions"], context(numbers))
    curve = tradeoff_figure(numbers["curve"], numbers["points"], m["curve"])
    titled(curve, TITLES["tradeoff"], context(numbers))
    return {"distributions": fig, "tradeoff": curve}
