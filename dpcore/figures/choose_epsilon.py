"""Plotly figures of the "Choose epsilon" page: target curves, posterior risk, composition.

:func:`figures` builds every figure of a view from the study's numbers
(:mod:`dpcore.studies.choose_epsilon`), titled by :func:`figure_titles`: the page, the command
line and presentation mode draw these.

Colours follow :mod:`dpcore.figures.common`: a Monte-Carlo curve measured against the private truth
is "nonprivate"-labelled where it reads D without noise, closed forms are "theory", the slider's
value is "chosen".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from types import SimpleNamespace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from dpcore.figures.common import (
    COLORS,
    fmt,
    layout,
    layout_spec,
    legend_at_foot,
    legend_entry,
    reference_line,
    spec_figure,
    titled,
)
from dpcore.planning import COMPOSITION_NAMES
from dpcore.studies.choose_epsilon import ROUTE_LABELS, Params

METHOD_COLORS = {"sequential": COLORS["baseline"], "advanced": COLORS["theory"],
                 "zcdp": COLORS["dp"], "rdp": COLORS["objective"], "pld": COLORS["chosen"]}


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
    log_axes(fig)
    # At the foot: above the plot the legend would run into the title's settings line.
    return legend_at_foot(layout(fig, "ε (log scale)", f"{ytitle} (log scale)"))


def log_axes(fig: go.Figure) -> None:
    """Both axes logarithmic, labelled at 1, 2 and 5 of each decade only ("0.05  0.1  0.2", not
    every digit of a decade run together as "0.060.070.080.090.1"), written as a person writes
    them (0.5, not a bare "5" under a decade)."""
    fig.update_xaxes(type="log", dtick="D2", tickformat="~g")
    fig.update_yaxes(type="log", dtick="D2", tickformat="~g")


def posterior_figure(curves: pd.DataFrame, prior: float, chosen: float,
                     delta_curve: pd.DataFrame | None = None) -> go.Figure:
    """Worst-case posterior against the prior, one line per ε (log-log), the prior marked.

    The lines' colours follow ε's order (dark for small ε, light for large: one ramp), and the
    chosen ε is the thick line."""
    fig = go.Figure()
    epsilons = sorted(curves["epsilon"].unique())
    ramp = sample_colorscale("Viridis", list(np.linspace(0.0, 0.85, len(epsilons))))
    for eps, color in zip(epsilons, ramp, strict=True):
        part = curves[curves["epsilon"] == eps]
        is_chosen = math.isclose(eps, chosen)
        fig.add_trace(go.Scatter(
            x=part["prior"], y=part["posterior"], mode="lines",
            name=f"ε = {fmt(eps)}" + (" (chosen)" if is_chosen else ""),
            line={"color": color, "width": 5 if is_chosen else 2},
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
    # At the foot: above the plot the legend would run into the title's settings line.
    return legend_at_foot(layout(fig, "prior belief that the person is in the data (log scale)",
                                 "worst-case belief after one release", height=460))


#: The size (px) of every label written on a bar: never shrunk to fit (plotly's default shrinks
#: a label wider than its bar, to 9 px and less).
BAR_LABEL_SIZE = 12


def method_label(method: str) -> str:
    """A composition method's name (:data:`dpcore.planning.COMPOSITION_NAMES`) as a bar's axis
    label: on two lines when it is longer than a narrow bar ("privacy loss<br>distribution")."""
    name = COMPOSITION_NAMES[method]
    if len(name) <= 12 or " " not in name:
        return name
    cut = name.rfind(" ", 0, 13)
    cut = cut if cut > 0 else name.find(" ")
    return f"{name[:cut]}<br>{name[cut + 1:]}"


def composition_bars(table: pd.DataFrame) -> go.Figure:
    """Total ε of the planned releases under each composition method, each bar labelled with
    its ε and δ on two lines at :data:`BAR_LABEL_SIZE` (built from a specification without
    validation: the planner's option moves redraw it, ``tests/test_figures_spec.py``
    validates it)."""
    data, tallest = [], 0.0
    for row in table.itertuples(index=False):
        value = float(row.epsilon)
        missing = math.isnan(value)
        tallest = tallest if missing else max(tallest, value)
        data.append({
            "type": "bar", "x": [method_label(row.method)], "y": [0.0 if missing else value],
            "name": COMPOSITION_NAMES[row.method],
            "marker": {"color": METHOD_COLORS[row.method]},
            "text": ["cannot<br>account" if missing else
                     f"ε = {value:.3g}<br>δ = {float(row.delta):.2g}"],
            "textposition": "outside", "cliponaxis": False, "constraintext": "none",
            "textfont": {"size": BAR_LABEL_SIZE},
            "hovertemplate": f"{COMPOSITION_NAMES[row.method]}: total ε %{{y:.4g}}"
                             "<extra></extra>"})
    spec = layout_spec("composition method", "total ε of the plan", height=400)
    spec["showlegend"] = False
    # Room above the tallest bar for its two-line label, inside the plot.
    spec["yaxis"]["range"] = [0.0, 1.3 * tallest if tallest > 0 else 1.0]
    return spec_figure({"data": data, "layout": spec})


def stats_split_figure(plan: pd.DataFrame) -> go.Figure:
    """Each target's ε in the plan (one bar per statistic, labelled with the error it reaches
    against its bar), the split of the total between them (a specification, validated by
    ``tests/test_figures_spec.py``)."""
    data = []
    for row in plan.itertuples(index=False):
        reached = ("ε from its study" if row.mechanism == "fixed" else
                   f"± {row.error_reached:.3g} of ± {row.error:g}")
        role = {"fixed": "public", "laplace": "dp"}.get(row.mechanism, "theory")
        data.append({
            "type": "bar", "x": [float(row.epsilon)], "y": [row.statistic], "orientation": "h",
            "name": row.statistic, "marker": {"color": COLORS[role]},
            "text": [f"ε = {row.epsilon:.3g} ({reached})"], "textposition": "auto",
            "constraintext": "none", "textfont": {"size": BAR_LABEL_SIZE},
            "hovertemplate": "%{y}: ε %{x:.4g}<extra></extra>"})
    spec = layout_spec("ε of each statistic", "", height=160 + 45 * len(plan))
    spec["showlegend"] = False
    spec["yaxis"].update({"automargin": True, "autorange": "reversed"})
    return spec_figure({"data": data, "layout": spec})


def growth_figure(frame: pd.DataFrame, budget: float | None = None) -> go.Figure:
    """Total ε against the number of identical releases, one line per method."""
    fig = go.Figure()
    for method, part in frame.groupby("method", sort=False):
        name = COMPOSITION_NAMES[method]
        fig.add_trace(go.Scatter(x=part["count"], y=part["epsilon"], mode="lines", name=name,
                                 line={"color": METHOD_COLORS[method],
                                       "dash": "dash" if method == "advanced" else None,
                                       "width": 3 if method == "advanced" else 2},
                                 hovertemplate=f"{name}<br>%{{x}} releases: total ε "
                                               "%{y:.3g}<extra></extra>"))
    if budget is not None and math.isfinite(budget):
        reference_line(fig, budget, f"session budget ε = {fmt(budget)}", "chosen", dash="dot")
    log_axes(fig)
    # Below the plot: above it the legend would run into the two-line title.
    return legend_at_foot(layout(fig, "number of identical releases (log scale)",
                                 "total ε (log scale)", height=400))


def _run_answer(m: pd.Series, curve: pd.DataFrame) -> SimpleNamespace:
    """The parts of a :class:`dpcore.planning.EpsilonAnswer` :func:`target_curve` reads."""
    return SimpleNamespace(curve=curve, n_runs=int(m["runs_per_epsilon"]),
                           target=float(m["target_value"]), met=bool(m["met"]),
                           epsilon=float(m["smallest_epsilon"]), achieved=float(m["achieved"]),
                           best_epsilon=float(m["best_epsilon"]), low=float(m["interval_low"]),
                           high=float(m["interval_high"]))


def answer_curve(numbers: Mapping[str, pd.DataFrame]) -> pd.DataFrame | None:
    """The curve behind a target's answer (None while a study is switched off)."""
    return numbers.get("curve_nonprivate", numbers.get("curve"))


def released_value(params: Params) -> str:
    """What a noise target releases, in words (a count, or a mean of n values in bounds)."""
    if params.query == "count":
        return "a count (add or remove one record)"
    return (f"a mean of {params.n:,} values in [{params.low:g}, {params.high:g}] "
            "(replace one record)")


def _target_labels(m: pd.Series) -> tuple[str, str, str]:
    """The y axis, the measured points' and the fitted curve's names of a target's figure."""
    target = m["target"]
    if target in ("laplace", "gaussian"):
        mechanism = "Laplace" if target == "laplace" else "Gaussian"
        return (f"{m['level']:.0%} radius of the noise", "",
                f"{mechanism} noise radius (closed form)")
    if target == "iw_theory":
        return (f"{m['level']:.0%} error radius of the estimate", "",
                str(m["source"]).split(": ")[1])
    if target == "iw_mc":
        return (f"{m['level']:.0%} quantile of |estimate − truth|",
                "measured (non-private truth)" if m["route"] == "private"
                else "measured (stand-in)", "monotone fit")
    if target == "lr":
        return "mean test error", "measured", "monotone fit"
    return "mean prediction error t of the selected subset", "measured", "monotone fit"


def _target_context(m: pd.Series, params: Params, data: str) -> str:
    """The settings behind a target's figure (a data target's start with ``data``)."""
    target = m["target"]
    if target in ("laplace", "gaussian"):
        mechanism = "Laplace" if target == "laplace" else "Gaussian"
        delta = f", δ = {m['delta']:g}" if mechanism == "Gaussian" else ""
        return f"{released_value(params)}; {mechanism}{delta}"
    route = ROUTE_LABELS[m["route"]]
    if target in ("iw_theory", "iw_mc"):
        settings = f"{m['query']}; λ = {m['lambda']:g}; {route}"
    elif target == "lr":
        settings = f"objective perturbation, λ by rule; {route}"
    else:
        settings = f"Algorithm 2, split 0.8 : 0.2 : 1; {route}"
    return f"{data}; {settings}" if data else settings


_ASIDE = re.compile(r"\s*\([^)]*\)")  # a parenthesis in a unit: left out of a short label


def deployments_figure(table: pd.DataFrame, epsilon: float) -> go.Figure:
    """Published deployments' ε on a log axis, one row each (labelled with its organisation,
    a short name and its unit), and the chosen ε as a vertical line. Rows that publish only a
    zCDP ρ have no ε to place and are left out (the page lists them)."""
    shown = table[table["epsilon"].notna()].sort_values("epsilon")

    def short(text: str, size: int) -> str:
        return text if len(text) <= size else text[:size - 1] + "…"

    labels = [f"{row.organisation}: {short(row.name.split(' - ')[-1], 34)} "
              f"({short(_ASIDE.sub('', row.unit), 32)})"
              for row in shown.itertuples()]
    fig = go.Figure(go.Scatter(
        x=shown["epsilon"], y=labels, mode="markers+text", name="published ε",
        text=[f"{e:g}" for e in shown["epsilon"]], textposition="middle right",
        marker={"size": 10, "color": COLORS["public"]},
        customdata=np.c_[shown["delta"].fillna(0.0), shown["source"]],
        hovertemplate="%{y}<br>ε = %{x:g}, δ = %{customdata[0]:g}<br>"
                      "source: %{customdata[1]}<extra></extra>"))
    fig.add_vline(x=epsilon, line_color=COLORS["chosen"], line_width=3)
    # on a log axis an annotation's x is log10 of the value (a plotly convention)
    fig.add_annotation(x=math.log10(epsilon), y=1.0, yref="paper", yanchor="bottom",
                       text=f"chosen ε = {epsilon:g}", showarrow=False,
                       font={"color": COLORS["chosen"]})
    layout(fig, "published ε (log scale)", "", height=140 + 30 * len(shown))
    lows = min(float(shown["epsilon"].min()), epsilon) if len(shown) else epsilon
    highs = max(float(shown["epsilon"].max()), epsilon) if len(shown) else epsilon
    ticks = [t for t in (0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300)
             if lows / 3 <= t <= highs * 3]
    fig.update_xaxes(type="log", tickvals=ticks, ticktext=[f"{t:g}" for t in ticks],
                     range=[math.log10(lows) - 0.3, math.log10(highs) + 0.4])
    fig.update_yaxes(automargin=True)
    fig.update_layout(showlegend=False, margin={"t": 60})
    return fig


def figure_titles(numbers: Mapping[str, pd.DataFrame], params: Params, *,
                  data: str = "") -> dict[str, tuple[str, str]]:
    """Each figure's title and context (its settings), by the names of :func:`figures`.

    ``data`` (the scenario's title) starts the context of a data target's figure.
    """
    m = numbers["metrics"].iloc[0]
    if "posterior_curves" in numbers:
        return {"risk": ("Worst-case belief after one release vs the prior belief",
                         f"ε-DP: posterior odds ≤ e^ε × prior odds; chosen ε = "
                         f"{m['epsilon']:g}"),
                "deployments": ("The chosen ε among published deployments",
                                f"chosen ε = {m['epsilon']:g}; each point's unit (per person, "
                                "per user per day, ...) is in its label: units differ")}
    if "stats_plan" in numbers:
        how = (f"a total of ε = {m['total_epsilon']:.3g} split to minimise the worst shortfall"
               if m["split_total"] else "every target met at its smallest ε")
        return {"stats_totals": ("Total ε that meets every target, by method",
                                 f"{int(m['targets'])} statistics; δ = {m['total_delta']:.2g}"),
                "stats_split": ("The split of ε between the statistics "
                                f"({COMPOSITION_NAMES[m['method']]})", how)}
    if "composition" in numbers:
        slack = f"δ′ = {m['delta_slack']:g}"
        source = "the plan's first row" if m["growth_from"] == "plan" else "the sidebar's slider"
        return {"composition": ("Total ε of the plan, by method",
                                f"{int(m['releases'])} releases; {slack}"),
                "growth": (f"Total ε of k pure releases at ε = {m['growth_epsilon_each']:g}",
                           f"{slack}; ε of {source}")}
    if answer_curve(numbers) is None:
        return {}
    return {"target": (f"{m['statistic'].capitalize()} vs ε ({m['source']})",
                       _target_context(m, params, data))}


def figures(numbers: Mapping[str, pd.DataFrame], params: Params) -> dict[str, go.Figure]:
    """Every figure of the study's view (:mod:`dpcore.studies.choose_epsilon`), titled
    (:func:`figure_titles`): ``risk`` and ``deployments``; ``composition`` and ``growth``;
    ``stats_totals`` and ``stats_split``; or ``target`` (none while a study is switched
    off)."""
    m = numbers["metrics"].iloc[0]
    if "posterior_curves" in numbers:
        built = {"risk": posterior_figure(numbers["posterior_curves"], float(m["prior"]),
                                          float(m["epsilon"]),
                                          numbers.get("posterior_curve_delta")),
                 "deployments": deployments_figure(numbers["deployments"], float(m["epsilon"]))}
    elif "stats_plan" in numbers:
        built = {"stats_totals": composition_bars(numbers["stats_totals"]),
                 "stats_split": stats_split_figure(numbers["stats_plan"])}
    elif "composition" in numbers:
        built = {"composition": composition_bars(numbers["composition"]),
                 "growth": growth_figure(numbers["growth"], float(m["budget"]))}
    elif (curve := answer_curve(numbers)) is not None:
        ytitle, measured, fitted = _target_labels(m)
        built = {"target": target_curve(_run_answer(m, curve), ytitle=ytitle,
                                        measured_name=measured, fitted_name=fitted,
                                        chosen=params.epsilon)}
    else:
        built = {}
    for name, (title, context) in figure_titles(numbers, params).items():
        titled(built[name], title, context)
    return built
