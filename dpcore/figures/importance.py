"""Plotly figures of the importance-weighting page ([JE13] Figs 1-4 and the variance bound).

Reference numbers computed from the private data without noise (the truth, beta_0's bound and
prediction) are labelled "non-private" in every legend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

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
from dpcore.studies.importance import WHISKER_QUANTILES, WHISKERS

if TYPE_CHECKING:
    from dpcore.studies.importance import Params

TRUTH = "truth (non-private)"
PUBLIC_MEAN = "unweighted public mean"
ESTIMATE_COLOR, CHOSEN_COLOR = COLORS["dp"], COLORS["chosen"]


def _reference_lines(fig: go.Figure, truth: float, public_mean: float) -> None:
    """Dashed lines at the truth (non-private) and the public mean, named in the legend."""
    reference_line(fig, truth, TRUTH, "nonprivate")
    reference_line(fig, public_mean, PUBLIC_MEAN, "public")


def box_stats(samples: Sequence[np.ndarray]) -> dict[str, Any]:
    """The fields of a box trace with one box per sample, whiskers at the 2.5 % and 97.5 %
    quantiles (:data:`~dpcore.studies.importance.WHISKER_QUANTILES`).

    Plotly's q1/median/q3 signature: the quartiles and the fences are computed here (numpy's
    linear quantiles) and passed as arrays, so plotly draws the whiskers where the paper does.
    ``y`` holds, per box, only the replicates beyond the whiskers (drawn as dots), which keeps
    the figure that every slider move redraws as small as before.

    Parameters
    ----------
    samples : sequence of ndarray
        The replicates of each box, in the order of the trace's ``x``.

    Returns
    -------
    dict
        ``q1``, ``median``, ``q3``, ``lowerfence``, ``upperfence`` (lists, one entry per box),
        ``y`` (one list per box) and ``boxpoints="outliers"``.

    >>> stats = box_stats([np.arange(201.0)])
    >>> [stats[k][0] for k in ("lowerfence", "q1", "median", "q3", "upperfence")]
    [5.0, 50.0, 100.0, 150.0, 195.0]
    >>> stats["y"][0][:3], len(stats["y"][0])
    ([0.0, 1.0, 2.0], 10)
    """
    q = np.array([np.quantile(v, (0.25, 0.5, 0.75, *WHISKER_QUANTILES)) for v in samples])
    beyond = [v[(v < lo) | (v > hi)].tolist() for v, lo, hi in zip(samples, q[:, 3], q[:, 4],
                                                                     strict=True)]
    return {"q1": q[:, 0].tolist(), "median": q[:, 1].tolist(), "q3": q[:, 2].tolist(),
            "lowerfence": q[:, 3].tolist(), "upperfence": q[:, 4].tolist(), "y": beyond,
            "boxpoints": "outliers"}


def whisker_note(fig: go.Figure, *, below: int = 48) -> go.Figure:
    """:data:`~dpcore.studies.importance.WHISKERS` written ``below`` pixels under ``fig``'s plot
    area (for exports: the page says it in a caption), with the bottom margin it needs.
    Figures whose long category names slant under the axis pass a larger ``below``."""
    fig.add_annotation(text=WHISKERS.replace("; whiskers", ";<br>whiskers"), xref="paper",
                       yref="paper", x=0, y=0, xanchor="left", yanchor="top", yshift=-below,
                       showarrow=False, align="left", font={"size": 11})
    fig.update_layout(margin={"b": below + 42})
    return fig


#: Slant of the long method names under the baselines' and the model comparison's boxes, and
#: how far under the plot the whisker note goes to clear them.
SLANT, SLANTED_NOTE = 30, 135


#: The legend of :func:`estimate_boxes`: (name, role, mark, dash).
BOX_LEGEND = (("DP estimates", "dp", "markers", None),
              ("at the chosen value", "chosen", "markers", None),
              (TRUTH, "nonprivate", "lines", "dash"), (PUBLIC_MEAN, "public", "lines", "dash"))


def estimate_boxes(results: pd.DataFrame, by: str, chosen: float, truth: float,
                   public_mean: float, label: str, *, legend: bool = True,
                   note: bool = True) -> go.Figure:
    """Box plots of the DP estimates over replicates, one box per value of ``by`` (Figs 1-2).

    Whiskers at the 2.5 % and 97.5 % quantiles, as in the paper (:func:`box_stats`). The boxes
    are two traces over a categorical axis, overlaid: every value of ``by`` but the chosen one
    (blue) and the chosen one (orange). The browser redraws a figure of two traces faster than
    one of a trace per box, and this figure is redrawn on every slider move. It is built as one
    figure specification (the traces, the two reference lines as layout shapes and the shared
    layout) without validation (:func:`dpcore.figures.common.spec_figure`): plotly's
    one-property-at-a-time helpers (``add_box``, ``add_hline``) cost several times the rest of
    the rerun.

    ``legend=False`` leaves the legend out (the page shows :data:`BOX_LEGEND` once, as a line
    of text above the figure, rather than have the browser lay it out again on every move);
    ``note=False`` leaves out the whisker definition written under the plot (the page states
    :data:`~dpcore.studies.importance.WHISKERS` in its caption).
    """
    values = results[by].to_numpy(dtype=float)
    estimates = results["estimate"].to_numpy(dtype=float)
    order = np.unique(values)
    data: list[dict] = []
    for role, where in (("dp", ~np.isclose(order, chosen)), ("chosen", np.isclose(order, chosen))):
        if where.any():
            data.append({"type": "box", "x": [_fmt(v) for v in order[where]],
                         **box_stats([estimates[values == v] for v in order[where]]),
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
    fig = spec_figure({"data": data, "layout": spec | {"shapes": shapes}})
    return whisker_note(fig) if note else fig


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


#: The variance figure's bound lines: (column, name, dash). Each differs from the one before
#: in one thing: the solver term in the noise scale, then the delta-method alpha.
BOUND_LINES = (
    ("bound_printed", "Theorem 2 bound as printed (non-private β₀)", "dot"),
    ("bound_printed_solver", "Theorem 2 bound as printed, with the solver term "
                             "(non-private β₀)", "dashdot"),
    ("bound_delta", "Theorem 2 bound, delta method, with the solver term (non-private β₀)",
     None),
)


def variance_figure(measured: pd.DataFrame, theory: pd.DataFrame, by: str,
                    label: str) -> go.Figure:
    """Measured variance next to Theorem 2's bounds (:data:`BOUND_LINES`) and the plug-in,
    log axes.

    The paper's bound as printed uses its noise scale ``sqrt(d)/(N_D lam epsilon)``; the noise the
    mechanism draws adds the solver term (:func:`dpcore.importance.release_sensitivity`), drawn
    as a line of its own; the delta-method line (alpha the derivative, a quarter of the printed
    alpha's bound) is what the measured variance is held to.
    """
    fig = go.Figure()
    th = theory.sort_values(by)
    for column, name, dash in BOUND_LINES:
        fig.add_trace(go.Scatter(x=th[by], y=th[column], mode="lines", name=name,
                                 line={"dash": dash, "color": COLORS["theory"]}))
    fig.add_trace(go.Scatter(x=th[by], y=th["plugin"], mode="lines",
                             name="plug-in prediction (non-private)",
                             line={"dash": "dash", "color": COLORS["prediction"]}))
    ms = measured.sort_values(by)
    fig.add_trace(go.Scatter(x=ms[by], y=ms["variance"], mode="markers",
                             name="measured variance of DP estimates",
                             marker={"color": ESTIMATE_COLOR, "size": 10}))
    fig.update_xaxes(type="log", tickformat="~g")  # 0.5, not a bare "5" under a decade
    fig.update_yaxes(type="log", exponentformat="power")
    fig = _layout(fig, label, "variance of the estimate", height=520)
    # Five long names: below the plot, one per row, rather than over the title.
    fig.update_layout(legend={"orientation": "v", "yanchor": "top", "y": -0.18, "x": 0})
    return fig


def weights_histogram(weights: np.ndarray) -> go.Figure:
    """Histogram of one release's weights (log10), with the unweighted value 1 marked."""
    fig = go.Figure(go.Histogram(x=np.log10(np.maximum(weights, 1e-300)), nbinsx=60,
                                 marker_color=ESTIMATE_COLOR, name="public records"))
    fig.add_vline(x=0.0, line_dash="dash", line_color=COLORS["public"],
                  annotation_text="weight 1 (unweighted)")
    return _layout(fig, "log10 of the weight", "number of public records", height=340)


def baselines_figure(frame: pd.DataFrame, truth: float, public_mean: float, *,
                     note: bool = True) -> go.Figure:
    """Box plots of each method's estimates over the same replicates, at one epsilon.

    Whiskers at the 2.5 % and 97.5 % quantiles (:func:`box_stats`); ``note=False`` leaves their
    definition to the page's caption.
    """
    fig = go.Figure()
    roles = {"importance weights (this page)": COLORS["dp"], "public mean": COLORS["public"],
             "truth (non-private)": COLORS["nonprivate"]}
    others = iter(SEQUENCE)
    for method, group in frame.groupby("method", sort=False):
        color = roles.get(method) or next(others)
        fig.add_box(x=[method], **box_stats([group["estimate"].to_numpy(dtype=float)]),
                    name=method, showlegend=False, marker_color=color)
    _reference_lines(fig, truth, public_mean)
    lo, hi = min(truth, public_mean), max(truth, public_mean)
    pad = max(0.25, hi - lo)
    fig.update_yaxes(range=[lo - pad, hi + pad])
    fig = _layout(fig, "", "estimate of the query", height=440)
    fig.update_xaxes(tickangle=SLANT)
    return whisker_note(fig, below=SLANTED_NOTE) if note else fig


#: The methods of :func:`distance_boxes` and their palette roles (the legend names them).
DISTANCE_ROLES = {"no noise (non-private)": "nonprivate", "importance weights": "dp",
                  "output perturbation": "output"}


def distance_legend() -> str:
    """The methods of :func:`distance_boxes` in their colours, as one line of HTML (the page shows
    it once above its two panels; the downloaded figures carry plotly's legend)."""
    return legend_html([(method, role, "markers") for method, role in DISTANCE_ROLES.items()])


def distance_boxes(frame: pd.DataFrame, model: str, *, legend: bool = True,
                   note: bool = True) -> go.Figure:
    """Distance of a model trained on weighted E from the one trained on D (Fig. 3), one box per
    method and epsilon, coloured by method (named in the legend; ``legend=False`` leaves it to
    :func:`distance_legend`). Whiskers at the 2.5 % and 97.5 % quantiles (:func:`box_stats`);
    ``note=False`` leaves their definition to the page's caption."""
    fig = go.Figure()
    sub = frame[frame["model"] == model]
    roles = {method: COLORS[role] for method, role in DISTANCE_ROLES.items()}
    for (method, eps), group in sub.groupby(["method", "epsilon"], dropna=False, sort=False):
        name = method if pd.isna(eps) else f"{method}, ε={_fmt(eps)}"
        fig.add_box(x=[name], **box_stats([group["distance"].to_numpy(dtype=float)]), name=name,
                    showlegend=False, marker_color=roles.get(method, COLORS["baseline"]))
    for method, role in DISTANCE_ROLES.items() if legend else ():
        if (sub["method"] == method).any():
            legend_entry(fig, method, role, kind="markers")
    fig.update_yaxes(type="log", tickformat="~g")  # 0.5, not a bare "5" between decades
    fig = _layout(fig, "", "‖β(weighted E) − β(D, non-private)‖", height=420)
    fig.update_layout(title={"text": model, "x": 0, "xanchor": "left"}, showlegend=legend,
                      margin={"t": 60})  # the title, then the legend's row
    fig.update_xaxes(tickangle=SLANT)
    return whisker_note(fig, below=SLANTED_NOTE) if note else fig


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

    ``legend=False`` leaves the box figures' legends and whisker notes out (the page names them
    once, in a line of text: :func:`box_legend`, :func:`distance_legend`, and states
    :data:`~dpcore.studies.importance.WHISKERS` in its caption); the other figures keep their
    legends. The exported figures (``legend=True``) carry both.
    """
    m = numbers["metrics"].iloc[0]
    truth, public_mean = float(m["truth_nonprivate"]), float(m["public_mean"])
    figs: dict[str, go.Figure] = {}
    if "estimates_by_epsilon" in numbers:
        figs["estimates_by_epsilon"] = estimate_boxes(
            numbers["estimates_by_epsilon"], "epsilon", params.epsilon, truth, public_mean, "ε",
            legend=legend, note=legend)
    if "estimates_by_lambda" in numbers:
        figs["estimates_by_lambda"] = estimate_boxes(
            numbers["estimates_by_lambda"], "lam", params.lam, truth, public_mean, "λ",
            legend=legend, note=legend)
    if "summary_by_epsilon" in numbers:
        figs["variance_by_epsilon"] = variance_figure(
            numbers["summary_by_epsilon"], numbers["theory_by_epsilon_nonprivate"], "epsilon", "ε")
        figs["variance_by_lambda"] = variance_figure(
            numbers["summary_by_lambda"], numbers["theory_by_lambda_nonprivate"], "lam", "λ")
    elif "summary_by_lambda" in numbers:
        figs["bias_sd"] = bias_sd_figure(numbers["summary_by_lambda"],
                                         numbers["theory_by_lambda_nonprivate"], params.lam)
    if "baselines" in numbers:
        figs["baselines"] = baselines_figure(numbers["baselines"], truth, public_mean,
                                             note=legend)
    if "model_distances" in numbers:
        for model, name in (("linear SVM", "svm"), ("logistic regression", "lr")):
            figs[f"model_distances_{name}"] = distance_boxes(numbers["model_distances"], model,
                                                             legend=legend, note=legend)
    for name, fig in figs.items():
        titled(fig, TITLES[name])
    return figs
