"""Latency against users, from the load test's JSON reports (``benchmarks/bench_load.py``).

Run: ``python benchmarks/plot_load.py benchmarks/results/load_*u_walk_up0.json --out
docs/screenshots/load.png`` (add ``--html`` for an interactive copy beside it).

One panel per action kind (ε move, view switch, first render, Publish): its p50 and p95 against
the number of simulated users, log scale in time, with the issue's targets at 30 users (1 s for
an ε move, 5 s for a first render) as dotted lines. The PNG goes through kaleido and Chromium
(:func:`dpcore.figures.files.figure_png`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dpcore.figures.common import COLORS
from dpcore.figures.files import figure_html, figure_png

KINDS = {"epsilon_move": "ε move", "view_switch": "view switch",
         "first_render": "first render", "publish": "Publish"}
TARGETS = {"epsilon_move": 1.0, "first_render": 5.0}


def load(paths: list[Path]) -> list[dict]:
    """The reports, by number of users."""
    return sorted((json.loads(p.read_text()) for p in paths), key=lambda r: r["users"])


def figure(reports: list[dict]) -> go.Figure:
    """p50 and p95 of each action kind against users (one panel each)."""
    fig = make_subplots(rows=1, cols=len(KINDS), subplot_titles=list(KINDS.values()),
                        shared_yaxes=True)
    users = [r["users"] for r in reports]
    for col, kind in enumerate(KINDS, start=1):
        for stat, dash in (("p50", "solid"), ("p95", "dash")):
            values = [r[f"{stat}_{kind}_s"] for r in reports]
            fig.add_trace(go.Scatter(x=users, y=values, mode="lines+markers", name=stat,
                                     line={"color": COLORS["dp"], "dash": dash},
                                     showlegend=False), row=1, col=col)
        if kind in TARGETS:
            fig.add_hline(y=TARGETS[kind], line_dash="dot", line_color=COLORS["chosen"],
                          row=1, col=col)
    fig.update_xaxes(title_text="users", type="log", tickvals=users)
    fig.update_yaxes(type="log", tickvals=[0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100],
                     ticktext=["0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "50",
                               "100"])
    fig.update_yaxes(title_text="seconds (log)", row=1, col=1)
    fig.update_layout(height=400, margin={"t": 100}, title={
        "text": "Load test on one 2-core server: latency against users<br><span style="
                "'font-size:12px'>p50 (solid) and p95 (dashed); dotted: the targets at 30 users"
                "</span>", "x": 0, "xanchor": "left"})
    return fig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--html", action="store_true", help="also write the figure as HTML")
    args = parser.parse_args(argv)
    fig = figure(load(args.reports))
    args.out.write_bytes(figure_png(fig))
    if args.html:
        args.out.with_suffix(".html").write_bytes(figure_html(fig))
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
