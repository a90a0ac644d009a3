"""Figures of the privacy-audit page: the two output distributions, claimed vs audited ε, and
the floating-point attacks' two bounds per release mechanism."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.common import COLORS, SEQUENCE, layout, legend_entry

D_COLOR, DPRIME_COLOR = SEQUENCE[4], SEQUENCE[2]


def distributions_figure(result) -> go.Figure:
    """Overlaid histograms of the held-out scores on D and on D', with the chosen threshold."""
    fig = go.Figure()
    s0, s1 = np.asarray(result.scores_d), np.asarray(result.scores_dprime)
    both = np.concatenate([s0, s1])
    lo, hi = np.quantile(both, [0.002, 0.998])
    if not hi > lo:
        lo, hi = float(both.min()) - 0.5, float(both.max()) + 0.5
    bins = {"start": float(lo), "end": float(hi), "size": float(hi - lo) / 60}
    for scores, name, color in ((s0, "runs on D", D_COLOR), (s1, "runs on D′", DPRIME_COLOR)):
        fig.add_trace(go.Histogram(x=np.clip(scores, lo, hi), name=name, xbins=bins,
                                   histnorm="probability", marker_color=color, opacity=0.55))
    fig.update_layout(barmode="overlay")
    fig.add_vline(x=float(np.clip(result.threshold, lo, hi)), line_dash="dash",
                  line_color=COLORS["chosen"])
    legend_entry(fig, "threshold (chosen on the other half)", "chosen", dash="dash")
    return layout(fig, f"score: {result.case.statistic}", "share of runs", height=380)


def summary_figure(rows: list[dict]) -> go.Figure:
    """Claimed ε and audited lower bound for every mechanism, one row each."""
    names = [("⚠ " if r["broken on purpose"] else "") + r["mechanism"] for r in rows]
    claimed = [r["claimed epsilon"] for r in rows]
    audited = [r["audited lower bound"] for r in rows]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=names, x=claimed, orientation="h", name="claimed ε",
                         marker_color=COLORS["theory"]))
    fig.add_trace(go.Bar(y=names, x=audited, orientation="h",
                         name="audited lower bound (the noise is at least this strong)",
                         marker_color=[COLORS["output"] if r["flagged"] else COLORS["dp"]
                                       for r in rows]))
    legend_entry(fig, "above the claim (or above f × ε for Laplace-type noise): a fault",
                 "output", kind="marker")
    fig.update_layout(barmode="group", yaxis={"autorange": "reversed"})
    return layout(fig, "ε", "", height=140 + 34 * len(rows))


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
    return layout(fig, "ε (claimed, and the audited lower bounds)", "",
                  height=160 + 44 * len(rows))


def run_figures(numbers: dict[str, pd.DataFrame], controls) -> dict[str, go.Figure]:
    """The histogram of a run (:mod:`dpcore.studies.audit`), built as the page builds it."""
    m = numbers["metrics"].iloc[0]
    scores = numbers["scores"]
    result = SimpleNamespace(
        scores_d=scores.loc[scores["dataset"] == "D", "score"].to_numpy(),
        scores_dprime=scores.loc[scores["dataset"] == "D′", "score"].to_numpy(),
        threshold=float(m["threshold"]), case=SimpleNamespace(statistic=m["statistic"]))
    return {"distributions": distributions_figure(result)}
