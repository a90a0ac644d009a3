"""Figures of the data-masking page (Pham et al.): scatter panels with decision regions, the greedy
growth as a plotly animation, accuracy vs epsilon, and digit image grids.

Classes are told apart by colour *and* marker symbol (a class palette of its own, not the method
roles of :data:`dpcore.figures.common.COLORS`); which set a panel shows (non-private original,
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

from dpcore.figures.common import (
    COLORS,
    band,
    layout,
    layout_spec,
    reference_line,
    rgba,
    spec_figure,
    titled,
)
from dpcore.figures.masking_card import card_figure
from dpcore.masking import MaskedDataGenerator, MaskingTask, decision_regions
from dpcore.studies.masking import (
    IMAGES_PER_CLASS,
    MAJORITY,
    REGION_RESOLUTION,
    Params,
    accuracy_label,
    axis_ranges,
    axis_titles,
)

#: One colour and one marker per class (Dark2 hues), none of them a role's colour of
#: :data:`dpcore.figures.common.COLORS` (no class looks like the chosen value's orange or output
#: perturbation's red).
CLASS_COLORS = ("#1b9e77", "#7570b3", "#e6ab02", "#e7298a", "#66a61e", "#a6761d")
CLASS_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "x")
#: Method of Fig. 5 -> palette role.
METHOD_ROLES = {"masked generation": "dp", "input perturbation": "input",
                "output perturbation": "output", "non-private": "nonprivate"}


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


def _region_trace(regions, n_classes: int) -> dict:
    """The decision regions as a heatmap specification (one pale colour per class)."""
    xs, ys, labels = regions
    scale = []
    for c in range(n_classes):
        color = rgba(CLASS_COLORS[c % len(CLASS_COLORS)], 0.16)
        scale += [[c / n_classes, color], [(c + 1) / n_classes, color]]
    return {"type": "heatmap", "x": xs, "y": ys, "z": labels, "zmin": -0.5,
            "zmax": n_classes - 0.5, "colorscale": scale, "showscale": False,
            "hoverinfo": "skip"}


def _class_traces(X, y, class_names, *, showlegend: bool, hollow: bool = False,
                  name_suffix: str = "", opacity: float = 0.85,
                  group_suffix: str = "") -> list[dict]:
    """One scatter specification per class (colour and marker symbol of the class)."""
    traces = []
    for c, name in enumerate(class_names):
        rows = y == c
        color = CLASS_COLORS[c % len(CLASS_COLORS)]
        marker = {"color": "rgba(0,0,0,0)" if hollow else color, "size": 7,
                  "symbol": CLASS_SYMBOLS[c % len(CLASS_SYMBOLS)],
                  "line": {"color": color if hollow else "white", "width": 1.2 if hollow else 0.5}}
        traces.append({
            "type": "scatter", "x": X[rows, 0], "y": X[rows, 1], "mode": "markers",
            "name": f"{name}{name_suffix}", "legendgroup": f"{name}{group_suffix}",
            "showlegend": showlegend, "marker": marker, "opacity": opacity,
            "hovertemplate": f"{name}{name_suffix}<br>(%{{x:.2f}}, %{{y:.2f}})<extra></extra>"})
    return traces


def scatter_panels(panels: Sequence[Panel], class_names: Sequence[str], *, xtitle: str,
                   ytitle: str, x_range, y_range, height: int = 440,
                   legend: bool = True, pale: bool | None = None) -> go.Figure:
    """Panels side by side on shared axes (Pham et al. Fig. 2 (a)-(c)), each with the decision
    regions of the classifier fitted on its own set. Points outside the ranges are not drawn
    (input-perturbed records at small ε lie far outside).

    ``pale``: whether the legend says what pale markers are (the initial set within a masked
    set); by default, whether a panel has any.

    Built as one figure specification (axes domains and panel titles laid out here rather than
    by ``make_subplots``, traces as dictionaries) without validation
    (:func:`dpcore.figures.common.spec_figure`): the figure is redrawn on every slider move, and
    plotly's incremental helpers cost most of that rerun.
    """
    n, C, gap = len(panels), len(class_names), 0.03
    width = (1.0 - gap * (n - 1)) / n
    data: list[dict] = []
    axes: dict[str, dict] = {}
    titles = []
    for i, panel in enumerate(panels):
        suffix = "" if i == 0 else str(i + 1)
        left = i * (width + gap)
        axes[f"xaxis{suffix}"] = {"domain": [left, left + width], "anchor": f"y{suffix}",
                                  "range": list(x_range), "title": {"text": xtitle},
                                  "constrain": "domain"}
        axes[f"yaxis{suffix}"] = {"domain": [0.0, 1.0], "anchor": f"x{suffix}",
                                  "range": list(y_range)}
        if i:
            axes[f"yaxis{suffix}"] |= {"matches": "y", "showticklabels": False}
        titles.append({"text": panel.title, "x": left + width / 2, "xref": "paper", "y": 1.0,
                       "yref": "paper", "xanchor": "center", "yanchor": "bottom",
                       "showarrow": False, "font": {"size": 16}})
        traces = []
        if panel.regions is not None:
            traces.append(_region_trace(panel.regions, C))
        if panel.faint:
            traces += _class_traces(panel.X[:panel.faint], panel.y[:panel.faint], class_names,
                                    showlegend=False, opacity=0.3)
        traces += _class_traces(panel.X[panel.faint:], panel.y[panel.faint:], class_names,
                                showlegend=i == 0)
        if panel.extra is not None:
            label, Xe, ye = panel.extra
            traces += _class_traces(Xe, ye, class_names, showlegend=False, hollow=True,
                                    name_suffix=f" ({label})", group_suffix="extra")
            for trace in traces[-len(class_names):]:
                trace["legendgroup"] = "extra"
            traces.append({"type": "scatter", "x": [None], "y": [None], "mode": "markers",
                           "name": f"hollow: {label}", "legendgroup": "extra",
                           "hoverinfo": "skip", "marker": {
                               "color": "rgba(0,0,0,0)", "size": 7, "symbol": "circle",
                               "line": {"color": "#555555", "width": 1.2}}})
        data += [trace | {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"} for trace in traces]
    if any(panel.faint for panel in panels) if pale is None else pale:
        data.append({"type": "scatter", "x": [None], "y": [None], "mode": "markers",
                     "name": "pale: initial set", "hoverinfo": "skip", "opacity": 0.3,
                     "marker": {"color": "#555555", "size": 7, "symbol": "circle"}})
    axes["yaxis"]["title"] = {"text": ytitle}
    spec = layout_spec(xtitle, ytitle, height=height)
    spec["legend"] = {"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0}
    spec["margin"]["b"] = 90
    if not legend:
        spec["showlegend"] = False
        for trace in data:
            trace["showlegend"] = False
    return spec_figure({"data": data, "layout": spec | axes | {"annotations": titles}})


def panel_figures(panels: Sequence[Panel], class_names: Sequence[str], *, xtitle: str,
                  ytitle: str, x_range, y_range, height: int = 440,
                  which: Sequence[int] | None = None) -> list[go.Figure]:
    """The panels of :func:`scatter_panels` as one figure each, with the same traces and axes,
    for a page that draws them side by side (:func:`dpcore.figures.common.show_panels`): the
    browser then redraws only a panel whose figure changed. The legend sits under the first
    panel, one more row for each of its notes (hollow markers, pale markers); every panel keeps
    the same margins (no automatic growth), so the plot areas line up.

    ``which``: the positions of the panels to build (all by default); each is the figure it is
    among all of them (the legend's notes read every panel)."""
    figures = []
    pale = any(panel.faint for panel in panels)
    notes = pale + any(panel.extra is not None for panel in panels)
    for i, panel in enumerate(panels):
        if which is not None and i not in which:
            continue
        fig = scatter_panels([panel], class_names, xtitle=xtitle, ytitle=ytitle if i == 0 else "",
                             x_range=x_range, y_range=y_range, height=height + 24 * notes,
                             legend=i == 0, pale=pale and i == 0)
        fig.layout.margin = {"l": 50, "r": 10, "t": 40, "b": 105 + 24 * notes,
                             "autoexpand": False}
        figures.append(fig)
    return figures


def growth_animation(X0, y0, X_new, y_new, trace, class_names: Sequence[str], *, x_range,
                     y_range, xtitle: str, ytitle: str, n_frames: int = 200,
                     height: int = 460) -> go.Figure:
    """The greedy growth of the masked set as plotly frames: generated samples appear one by
    one (left; the initial set stays, pale) while the gradient norm at w' falls (right).

    One frame per generated sample up to ``n_frames``; a longer growth advances several samples
    per frame. A frame carries only the generated samples so far (not the initial set), which
    keeps the figure about half as large (some 0.7 MB for 200 samples).
    """
    n_new = len(y_new)
    steps = np.unique(np.linspace(0, n_new, min(n_frames, n_new) + 1).round().astype(int))
    C = len(class_names)
    fig = make_subplots(rows=1, cols=2, column_widths=[0.6, 0.4], horizontal_spacing=0.1,
                        subplot_titles=["Masked set", "Gradient norm at w′"])

    def generated(k) -> list[dict]:
        last = X_new[k - 1:k] if k else np.empty((0, 2))
        return [*_class_traces(X_new[:k], y_new[:k], class_names, showlegend=True),
                {"type": "scatter", "x": last[:, 0], "y": last[:, 1], "mode": "markers",
                 "name": "newest sample",
                 "marker": {"size": 15, "color": "rgba(0,0,0,0)",
                            "line": {"color": COLORS["chosen"], "width": 2.5}}}]

    ks = np.arange(n_new + 1)
    for t in generated(0):
        fig.add_trace(t, row=1, col=1)
    fig.add_trace(go.Scatter(x=ks, y=trace, mode="lines", name="‖∇J_S(w′)‖",
                             line={"color": COLORS["dp"]}), row=1, col=2)
    fig.add_trace(go.Scatter(x=[0], y=[trace[0]], mode="markers", name="now",
                             marker={"color": COLORS["chosen"], "size": 11}), row=1, col=2)
    for t in _class_traces(X0, y0, class_names, showlegend=False, opacity=0.3,
                           name_suffix=" (initial set)", group_suffix=" initial"):
        fig.add_trace(t, row=1, col=1)
    moving = list(range(C + 1)) + [C + 2]  # generated classes, newest, the marker on the curve
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
    # The frames as one unvalidated specification (plotly validates a frame's traces one
    # property at a time: 200 frames took 0.5 s that way).
    spec = fig.to_dict()
    spec["frames"] = [{"name": str(k), "traces": moving,
                       "data": [*generated(k), {"type": "scatter", "x": [k], "y": [trace[k]]}]}
                      for k in steps]
    return spec_figure(spec)


def accuracy_figure(frame: pd.DataFrame, *, epsilon: float, majority: float,
                    height: int = 400, ytitle: str = "validation accuracy") -> go.Figure:
    """Mean validation accuracy with a ±1 SD band per method vs epsilon (Pham et al. Fig. 5),
    and the accuracy of always guessing the majority class (a dashed line named
    :data:`~dpcore.studies.masking.MAJORITY`): a curve on or under it has learned nothing.

    ``ytitle`` names the yardstick: :func:`dpcore.studies.masking.accuracy_label` says when it is
    held-out private data (a non-private number)."""
    fig = go.Figure()
    # Where the masked set reaches w' (Pham et al.'s construction) masked generation coincides
    # with output perturbation: masked thick, then output perturbation dashed on top, so both
    # stay visible where they are equal.
    order = ("non-private", "input perturbation", "masked generation", "output perturbation")
    for method in order:
        rows = frame[frame["method"] == method].sort_values("epsilon")
        if rows.empty:
            continue
        band(fig, rows["epsilon"], rows["mean"], rows["sd"], method, METHOD_ROLES[method])
    fig.update_traces(selector={"fill": "toself"}, mode="lines")  # the bands' outlines only
    fig.update_traces(selector={"name": "output perturbation"}, line={"dash": "dash"})
    fig.update_traces(selector={"name": "masked generation"}, line={"width": 3.5})
    fig.add_vline(x=epsilon, line_dash="dot", line_color=COLORS["chosen"])
    reference_line(fig, majority, f"{MAJORITY}: {majority:.3f}", "baseline")
    layout(fig, "ε (log scale)", ytitle, height=height)
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


#: The "Masked vs original" view's panels are also figures of their own, ``PANEL + name``
#: (``original``, ``initial``, ``final``), for a page that draws them side by side.
PANEL = "panel_"
#: The title of each figure of :func:`figures` (an accuracy curve's: :func:`figure_title`).
TITLES = {
    "masked_vs_original": "Original vs masked records (Pham et al. Fig. 2)",
    "recipient_view": "The published masked set, as a recipient sees it",
    "greedy_animation": "Greedy growth of the masked set (Algorithm 1, step 3)",
    "private_images": "Private images (non-private; PCA-25 view)",
    "initial_images": "Initial masked set (public images)",
    "masked_images": "Generated masked samples as images (DP)",
    "weight_images": "Classifier weights as images (Pham et al. Fig. 3 d-f)",
    "report_card": "Report card: the published table against the private one, across ε "
                   "(non-private)",
}
_ACCURACY = "accuracy_vs_epsilon_N"


def figure_title(name: str) -> str:
    """The title of figure ``name`` of :func:`figures`."""
    if name.startswith(_ACCURACY):
        return (f"Accuracy vs ε, masked set size N = {name.removeprefix(_ACCURACY)} "
                "(Pham et al. Fig. 5)")
    return TITLES[name]


def settings(numbers: dict[str, pd.DataFrame], params: Params) -> str:
    """The masked set's settings in words: ε, λ, N, and "unbounded" for a search that may
    leave the data domain."""
    m = numbers["metrics"].iloc[0]
    return (f"ε = {m['epsilon']:g}, λ = {m['lambda']:g}, N = {int(m['masked_set_size'])}"
            + ("" if params.bounded else ", unbounded"))


def figure_context(name: str, numbers: dict[str, pd.DataFrame], params: Params,
                   dataset: str | None = None) -> str:
    """The settings under figure ``name``'s title: the experiment (``dataset``; by default its
    label in :data:`~dpcore.studies.masking.TASKS`) and what the figure depends on."""
    dataset = dataset or params.task
    if name.startswith(_ACCURACY):
        return f"{dataset}; λ = {params.lambda_:g}; {params.draws} draws"
    if name in ("private_images", "initial_images"):
        return dataset
    if name == "report_card":
        m = numbers["metrics"].iloc[0]
        reps = int(numbers["report_card_nonprivate"]["repetitions"].iloc[0])
        return (f"{dataset}; λ = {params.lambda_:g}, N = {int(m['masked_set_size'])}; "
                f"{reps} repetitions per ε")
    return f"{dataset}; {settings(numbers, params)}"


def _run_regions(numbers: dict[str, pd.DataFrame], panel: str):
    """``(xs, ys, labels)`` of one panel's decision regions from a run's long table."""
    table = numbers.get("regions")
    if table is None:
        return None
    part = table[table["panel"] == panel]
    if part.empty:
        return None
    res = int(round(np.sqrt(len(part))))
    x, y = part["x"].to_numpy(), part["y"].to_numpy()
    return x[:res], y[::res], part["label"].to_numpy().reshape(res, res)


def _run_images(table: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    h, w = int(table["row"].max()) + 1, int(table["col"].max()) + 1
    titles = table.drop_duplicates("image")["title"].tolist()
    return table["value"].to_numpy().reshape(-1, h, w), titles


def _xy(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    return frame[["x", "y"]].to_numpy(), frame["code"].to_numpy()


def _scatter_figures(numbers: dict[str, pd.DataFrame], epsilon: float,
                     only: Sequence[str] | None = None) -> dict[str, go.Figure]:
    """The "Masked vs original" view: the recipient's view alone, or the original, initial
    and final panels as one figure and as one figure each (:data:`PANEL`); with ``only``, the
    figures of these panels alone."""
    axes = numbers["axes"]
    names = tuple(numbers["classes"]["name"])
    xtitle, ytitle = axes["title"]
    frame = {"xtitle": xtitle, "ytitle": ytitle,
             "x_range": [float(axes["low"].iloc[0]), float(axes["high"].iloc[0])],
             "y_range": [float(axes["low"].iloc[1]), float(axes["high"].iloc[1])]}
    masked = numbers["masked_points"]
    final = Panel(f"Final masked set (DP, ε = {epsilon:g})", *_xy(masked),
                  _run_regions(numbers, "masked set (DP)"),
                  faint=int(masked["from_initial_set"].sum()))
    if "private_points_nonprivate" not in numbers:
        return {"recipient_view": scatter_panels([final], names, height=520, **frame)}
    extra = None
    if "input_perturbed_points" in numbers:
        extra = (f"input perturbation, ε = {epsilon:g}", *_xy(numbers["input_perturbed_points"]))
    panels = {"original": Panel("Original private records (non-private)",
                                *_xy(numbers["private_points_nonprivate"]),
                                _run_regions(numbers, "original (non-private)"), extra=extra)}
    if "initial_points" in numbers:
        panels["initial"] = Panel("Initial masked set (public / fake)",
                                  *_xy(numbers["initial_points"]),
                                  _run_regions(numbers, "initial set"))
    panels["final"] = final
    figs = {}
    if only is None:
        figs["masked_vs_original"] = scatter_panels(list(panels.values()), names, **frame)
    chosen = [i for i, name in enumerate(panels) if only is None or name in only]
    parts = panel_figures(list(panels.values()), names, which=chosen, **frame)
    return figs | {PANEL + list(panels)[i]: fig for i, fig in zip(chosen, parts, strict=True)}


def figures(numbers: dict[str, pd.DataFrame], params: Params, *,
            dataset: str | None = None, panels: Sequence[str] | None = None
            ) -> dict[str, go.Figure]:
    """The figures of the view :mod:`dpcore.studies.masking` computed, titled, by name.

    "Masked vs original": ``masked_vs_original`` ([PGY]_ Fig. 2) and its panels
    (:data:`PANEL`), or ``recipient_view``; "Greedy animation": ``greedy_animation``;
    "Accuracy vs ε": ``accuracy_vs_epsilon_N<size>`` (Fig. 5); "Digit images":
    ``private_images``, ``initial_images``, ``masked_images``, ``weight_images`` (Fig. 3);
    "Report card": ``report_card`` (:func:`dpcore.figures.masking_card.card_figure`).
    A panel's figure is left untitled (the page titles the row of panels once).

    Parameters
    ----------
    numbers : dict of str to DataFrame
        :func:`dpcore.studies.masking.at`'s tables.
    params : Params
    dataset : str, optional
        The experiment's name in the titles' settings (the page gives the task's title); by
        default its label in :data:`~dpcore.studies.masking.TASKS`.
    panels : sequence of str, optional
        "Masked vs original" with its panels: the figures of these panels alone (names after
        :data:`PANEL`: ``"original"``, ``"initial"``, ``"final"``), each the figure it is among
        all of them, and no ``masked_vs_original``. A page that draws the panels side by side
        builds only what it draws, and the whole figure for a download.

    References
    ----------
    .. [PGY] Pham, Ghosh & Yegneswaran, *Data masking with privacy guarantees*, Figs 2-5.
    """
    epsilon = float(numbers["metrics"]["epsilon"].iloc[0])
    figs: dict[str, go.Figure] = {}
    if "gradient_trace" in numbers:
        axes = numbers["axes"]
        masked = numbers["masked_points"]
        first = masked["from_initial_set"].to_numpy(dtype=bool)
        X, y = _xy(masked)
        figs["greedy_animation"] = growth_animation(
            X[first], y[first], X[~first], y[~first],
            numbers["gradient_trace"]["gradient_norm"].to_numpy(),
            tuple(numbers["classes"]["name"]),
            x_range=[float(axes["low"].iloc[0]), float(axes["high"].iloc[0])],
            y_range=[float(axes["low"].iloc[1]), float(axes["high"].iloc[1])],
            xtitle=axes["title"].iloc[0], ytitle=axes["title"].iloc[1])
    elif "masked_points" in numbers:
        figs |= _scatter_figures(numbers, epsilon, panels)
    metrics = numbers["metrics"].iloc[0]
    ytitle = accuracy_label(bool(metrics["validation_private"]), axis=True)
    for name in sorted(numbers):
        if name.startswith("accuracy_N"):
            figs[name.replace("accuracy_N", _ACCURACY)] = accuracy_figure(
                numbers[name], epsilon=epsilon, majority=float(metrics["majority_accuracy"]),
                ytitle=ytitle)
    for table, name in (("private_images_nonprivate", "private_images"),
                        ("initial_images", "initial_images"), ("masked_images", "masked_images")):
        if table in numbers:
            figs[name] = image_grid(*_run_images(numbers[table]), cols=IMAGES_PER_CLASS * 3)
    if "report_card_nonprivate" in numbers:
        figs["report_card"] = card_figure(numbers["report_card_nonprivate"], epsilon=epsilon,
                                          majority=float(metrics["majority_accuracy"]))
    if "weight_images" in numbers:
        images, titles = _run_images(numbers["weight_images"])
        n_classes = len({t.split(": ", 1)[1] for t in titles})
        figs["weight_images"] = image_grid(images, titles, cols=n_classes, diverging=True)
    for name, fig in figs.items():
        if not name.startswith(PANEL):
            titled(fig, figure_title(name), figure_context(name, numbers, params, dataset))
    return figs


def released_figure(task: MaskingTask, gen: MaskedDataGenerator) -> go.Figure:
    """A released masked set alone, on axes that hold it, with the decision regions of the
    model trained on it (2-D tasks; pale points: the initial set)."""
    masked2 = task.project(gen.masked_X_)
    x_range, y_range = axis_ranges(masked2)
    regions = None
    if task.projection()[2]:
        regions = decision_regions(gen.refit_coef_, task.data_norm, x_range, y_range,
                                   resolution=REGION_RESOLUTION, intercept=task.intercept)
    xtitle, ytitle = axis_titles(task)
    return scatter_panels([Panel("Released masked set", masked2, gen.masked_y_, regions,
                                 faint=gen.n_initial_)], task.class_names, xtitle=xtitle,
                          ytitle=ytitle, x_range=x_range, y_range=y_range, height=480)
