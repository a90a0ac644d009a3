"""Plotly figures of the importance-weighting page ([JE13] Figs 1-4 and the variance bound).

Reference numbers computed from the private data without noise (the truth, beta_0's bound and
prediction) are labelled "non-private" in every legend.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.figures.common import (
    COLORS,
    SEQUENCE,
    layout_spec,
    legend_entry,
    legend_html,
    reference_line,
    spec_figure,
    titled,
)
from dpcore.figures.common import fmt as _fmt
from dpcore.figures.common import layout as _layout

if TYPE_CHECKING:
    from dpcore.studies.importance import Params

TRUTH = "truth (non-private)"
PUBLIC_MEAN = "unweighted public mean"
ESTIMATE_COLOR, CHOSEN_COLOR = COLORS["dp"], COLORS["chosen"]


def _reference_lines(fig: go.Figure, truth: float, public_mean: float) -> None:
    """Dashed lines at the truth (non-private) and the public mean, named in the legend."""
    reference_line(fig, truth, TRUTH, "nonprivate")
    reference_line(fig, public_mean, PUBLIC_MEAN, "public")


#: The legend of :func:`estimate_boxes`: (name, role, mark, dash).
BOX_LEGEND = (("DP estimates", "dp", "markers", None),
              ("at the chosen value", "chosen", "markers", None),
              (TRUTH, "nonprivate", "lines", "dash"), (PUBLIC_MEAN, "public", "lines", "dash"))


def estimate_boxes(results: pd.DataFrame, by: str, chosen: float, truth: float,
                   public_mean: float, label: str, *, legend: bool = True) -> go.Figure:
    """Box plots of the DP estimates over replicates, one box per value of ``by`` (Figs 1-2).

    The boxes are two traces over a categorical axis, overlaid: every value of ``by`` but the
    chosen one (blue) and the chosen one (orange). The browser redraws a figure of two traces
    faster than one of a trace per box, and this figure is redrawn on every slider move. It is
    built as one figure specification (the traces, the two reference lines as layout shapes
    and the shared layout) without validation (:func:`dpcore.figures.common.spec_figure`):
    plotly's one-property-at-a-time helpers (``add_box``, ``add_hline``) cost several times the
    rest of the rerun.

    ``legend=False`` leaves the legend out (the page shows :data:`BOX_LEGEND` once, as a line
    of text above the figure, rather than have the browser lay it out again on every move).
    """
    values = results[by].to_numpy(dtype=float)
    order = np.unique(values)
    is_chosen = np.isclose(values, chosen)
    data: list[dict] = []
    for mask, role in ((~is_chosen, "dp"), (is_chosen, "chosen")):
        if mask.any():
            data.append({"type": "box", "x": [_fmt(v) for v in values[mask]],
                         "y": results["estimate"].to_numpy()[mask], "boxpoints": "outliers",
                         "marker": {"color": COLORS[role]}, "legendgroup": "dp",
                         "showlegend": False,
                         "hovertemplate": f"{label} = %{{x}}<br>estimate %{{y:.4f}}"
                                          "<extra></extra>"})
    for name, role, mode, dash in BOX_LEGEND if legend else ():  # items without data
        style = ({"marker": {"color": COLORS[role], "symbol": "square"}} if mode == "markers"
                 else {"line": {"color": COLORS[role], "dash": dash}})
        data.append({"type": "scatter", "x": [None], "y": [None], "mode": mode, "name": name,
                     "hoverinfo": "skip", **style})
    shapes = [{"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y,
               "y1": y, "line": {"dash": "dash", "color": COLORS[role]}}
              for y, role in ((truth, "nonprivate"), (public_mean, "public"))]
    spec = layout_spec(label, "estimate of the query")
    spec["xaxis"] |= {"type": "category", "categoryorder": "array",
                      "categoryarray": [_fmt(v) for v in order]}
    spec["showlegend"] = legend
    spec["boxmode"] = "overlay"  # the chosen box sits at its value, not beside the others
    return spec_figure({"data": data, "layout": spec | {"shapes": shapes}})


def box_legend(chosen: str = "at the chosen value") -> str:
    """:data:`BOX_LEGEND` as one line of HTML, in the figure's colours (constant text only)."""
    items = [(chosen if role == "chosen" else name, role, mode)
             for name, role, mode, _ in BOX_LEGEND]
    return legend_html(items)


def bias_sd_figure(summary: pd.DataFrame, theory: pd.DataFrame, chosen_lam: float) -> go.Figure:
    """Bias against standard deviation across lambda (Fig. 4), measured and predicted.

    The prediction pairs Theorem 3's asymptotic bias with the plug-in SD at each lambda.
    """
    colors = [CHOSEN_COLOR if np.isclose(v, chosen_lam) else ESTIMATE_COLOR
              for v in summary["lam"]]
    fig = go.Figure(go.Scatter(
        x=summary["bias"].abs(), y=summary["sd"], mode="lines+markers+text",
        text=[f"λ={_fmt(v)}" for v in summary["lam"]], textposition="top right",
        marker={"color": colors, "size": 10}, line={"color": "#c7c7c7"}, name="DP estimates",
        hovertemplate="|bias| %{x:.4f}<br>SD %{y:.4f}<extra></extra>",
    ))
    th = theory.sort_values("lam")
    fig.add_trace(go.Scatter(
        x=th["bias"].abs(), y=np.sqrt(th["plugin"]), mode="lines+markers",
        marker={"symbol": "x", "color": COLORS["prediction"]},
        line={"dash": "dash", "color": COLORS["prediction"]},
        name="predicted: Theorem 3 bias, plug-in SD (non-private)",
        hovertemplate="|bias| %{x:.4f}<br>SD %{y:.4f}<extra></extra>",
    ))
    # At small lambda the plug-in SD can be 10x the measured one (a weighted mean stays within
    # the query's range; the delta method does not know that): let that curve leave the top
    # rather than squash the measured curve onto the x axis.
    top = 1.3 * float(summary["sd"].max())
    if top > 0 and float(np.sqrt(th["plugin"]).max()) > top:
        fig.update_yaxes(range=[-0.04 * top, top])
    return _layout(fig, "|bias| = |mean estimate − truth (non-private)|",
                   "standard deviation over replicates", height=380)


def variance_figure(measured: pd.DataFrame, theory: pd.DataFrame, by: str,
                    label: str) -> go.Figure:
    """Measured variance next to Theorem 2's bound (both forms) and the plug-in, log axes."""
    fig = go.Figure()
    th = theory.sort_values(by)
    fig.add_trace(go.Scatter(x=th[by], y=th["bound_printed"], mode="lines",
                             name="Theorem 2 bound, as printed (non-private β₀)",
                             line={"dash": "dot", "color": COLORS["theory"]}))
    fig.add_trace(go.Scatter(x=th[by], y=th["bound_delta"], mode="lines",
                             name="Theorem 2 bound, delta method (non-private β₀)",
                             line={"color": COLORS["theory"]}))
    fig.add_trace(go.Scatter(x=th[by], y=th["plugin"], mode="lines",
                             name="plug-in prediction (non-private)",
                             line={"dash": "dash", "color": COLORS["prediction"]}))
    ms = measured.sort_values(by)
    fig.add_trace(go.Scatter(x=ms[by], y=ms["variance"], mode="markers",
                             name="measured variance of DP estimates",
                             marker={"color": ESTIMATE_COLOR, "size": 10}))
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log", exponentformat="power")
    return _layout(fig, label, "variance of the estimate")


def weights_histogram(weights: np.ndarray) -> go.Figure:
    """Histogram of one release's weights (log10), with the unweighted value 1 marked."""
    fig = go.Figure(go.Histogram(x=np.log10(np.maximum(weights, 1e-300)), nbinsx=60,
                                 marker_color=ESTIMATE_COLOR, name="public records"))
    fig.add_vline(x=0.0, line_dash="dash", line_color=COLORS["public"],
                  annotation_text="weight 1 (unweighted)")
    return _layout(fig, "log10 of the weight", "number of public records", height=340)


def baselines_figure(frame: pd.DataFrame, truth: float, public_mean: float) -> go.Figure:
    """Box plots of each method's estimates over the same replicates, at one epsilon."""
    fig = go.Figure()
    roles = {"importance weights (this page)": COLORS["dp"], "public mean": COLORS["public"],
             "truth (non-private)": COLORS["nonprivate"]}
    others = iter(SEQUENCE)
    for method, group in frame.groupby("method", sort=False):
        color = roles.get(method) or next(others)
        fig.add_box(y=group["estimate"], name=method, boxpoints=False, showlegend=False,
                    marker_color=color)
    _reference_lines(fig, truth, public_mean)
    lo, hi = min(truth, public_mean), max(truth, public_mean)
    pad = max(0.25, hi - lo)
    fig.update_yaxes(range=[lo - pad, hi + pad])
    return _layout(fig, "", "estimate of the query", height=440)


#: The methods of :func:`distance_boxes` and their palette roles (the legend names them).
DISTANCE_ROLES = {"no noise (non-private)": "nonprivate", "importance weights": "dp",
                  "output perturbation": "output"}


def distance_legend() -> str:
    """The methods of :func:`distance_boxes` in their colours, as one line of HTML (the page shows
    it once above its two panels; the downloaded figures carry plotly's legend)."""
    return legend_html([(method, role, "markers") for method, role in DISTANCE_ROLES.items()])


def distance_boxes(frame: pd.DataFrame, model: str, *, legend: bool = True) -> go.Figure:
    """Distance of a model trained on weighted E from the one trained on D (Fig. 3), one box per
    method and epsilon, coloured by method (named in the legend; ``legend=False`` leaves it to
    :func:`distance_legend`)."""
    fig = go.Figure()
    sub = frame[frame["model"] == model]
    roles = {method: COLORS[role] for method, role in DISTANCE_ROLES.items()}
    for (method, eps), group in sub.groupby(["method", "epsilon"], dropna=False, sort=False):
        name = method if pd.isna(eps) else f"{method}, ε={_fmt(eps)}"
        fig.add_box(y=group["distance"], name=name, boxpoints=False, showlegend=False,
                    marker_color=roles.get(method, COLORS["baseline"]))
    for method, role in DISTANCE_ROLES.items() if legend else ():
        if (sub["method"] == method).any():
            legend_entry(fig, method, role, kind="markers")
    fig.update_yaxes(type="log", tickformat="~g")  # 0.5, not a bare "5" between decades
    fig = _layout(fig, "", "‖β(weighted E) − β(D, non-private)‖", height=420)
    fig.update_layout(title={"text": model, "x": 0, "xanchor": "left"}, showlegend=legend,
                      margin={"t": 60})  # the title, then the legend's row
    return fig


#: Every figure :func:`figures` may return, by name: its title.
TITLES = {
    "estimates_by_epsilon": "DP estimates vs ε (Ji & Elkan Fig. 2)",
    "estimates_by_lambda": "DP estimates vs λ (Ji & Elkan Fig. 1)",
    "bias_sd": "Bias vs standard deviation across λ (Ji & Elkan Fig. 4)",
    "variance_by_epsilon": "Variance vs ε (Theorem 2)",
    "variance_by_lambda": "Variance vs λ (Theorem 2)",
    "baselines": "Every method on the same resamples (Ji & Elkan Sect. 5.1)",
    "model_distances_svm": "Linear SVM (Ji & Elkan Fig. 3)",
    "model_distances_lr": "Logistic regression",
}


def figures(numbers: Mapping[str, pd.DataFrame], params: Params, *,
            legend: bool = True) -> dict[str, go.Figure]:
    """The figures of the view that :func:`dpcore.studies.importance.compute` computed
    ``numbers`` for, by name (see :data:`TITLES`), each titled.

    ``legend=False`` leaves the box figures' legends out (the page names them once, in a line of
    text: :func:`box_legend`, :func:`distance_legend`); the other figures keep theirs.
    """
    m = numbers["metrics"].iloc[0]
    truth, public_mean = float(m["truth_nonprivate"]), float(m["public_mean"])
    figs: dict[str, go.Figure] = {}
    if "estimates_by_epsilon" in numbers:
        figs["estimates_by_epsilon"] = estimate_boxes(
            numbers["estimates_by_epsilon"], "epsilon", params.epsilon, truth, public_mean, "ε",
            legend=legend)
    if "estimates_by_lambda" in numbers:
        figs["estimates_by_lambda"] = estimate_boxes(
            numbers["estimates_by_lambda"], "lam", params.lam, truth, public_mean, "λ",
            legend=legend)
    if "summary_by_epsilon" in numbers:
        figs["variance_by_epsilon"] = variance_figure(
            numbers["summary_by_epsilon"], numbers["theory_by_epsilon_nonprivate"], "epsilon", "ε")
        figs["variance_by_lambda"] = variance_figure(
            numbers["summary_by_lambda"], numbers["theory_by_lambda_nonprivate"], "lam", "λ")
    elif "summary_by_lambda" in numbers:
        figs["bias_sd"] = bias_sd_figure(numbers["summary_by_lambda"],
                                         numbers["theory_by_lambda_nonprivate"], params.lam)
    if "baselines" in numbers:
        figs["baselines"] = baselines_figure(numbers["baselines"], truth, public_mean)
    if "model_distances" in numbers:
        for model, name in (("linear SVM", "svm"), ("logistic regression", "lr")):
            figs[f"model_distances_{name}"] = distance_boxes(numbers["model_distances"], model,
                                                             legend=legend)
    for name, fig in figs.items():
        titled(fig, TITLES[name])
    return figs
