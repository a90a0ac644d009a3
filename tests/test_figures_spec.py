"""Figures built without plotly's validation (``dpcore.figures.common.spec_figure``) are valid.

The figures that every slider move redraws skip plotly's property-by-property validation (it cost
most of a rerun). Each is built here once more *with* validation: a mistyped property raises, and
a property that validation would change (a coerced value, a dropped key) shows as a difference in
the figure's JSON.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import pytest

from dpcore.figures.choose_epsilon import composition_bars, stats_split_figure
from dpcore.figures.common import COLORS, spec_figure, titled
from dpcore.figures.importance import (
    BOX_LEGEND,
    DISTANCE_ROLES,
    box_legend,
    distance_boxes,
    distance_legend,
    estimate_boxes,
)
from dpcore.figures.masking import Panel, panel_figures, scatter_panels
from dpcore.studies import choose_epsilon

NAMES = ("class 1", "class 2", "class 3")
AXES = {"xtitle": "x1", "ytitle": "x2", "x_range": [-2.0, 2.0], "y_range": [-2.0, 2.0]}


def _panels() -> list[Panel]:
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), rng.integers(0, 3, 40)
    grid = np.linspace(-2, 2, 7)
    regions = (grid, grid, rng.integers(0, 3, (7, 7)))
    return [Panel("original", X, y, regions, extra=("input perturbation, ε = 1", X + 0.3, y)),
            Panel("initial", X[:20], y[:20], regions),
            Panel("final", X, y, regions, faint=10)]


def _figures() -> dict[str, go.Figure]:
    rng = np.random.default_rng(1)
    estimates = pd.DataFrame({"epsilon": np.repeat([0.1, 0.2, 0.5], 30),
                              "estimate": rng.random(90)})
    figures = {"estimate_boxes": estimate_boxes(estimates, "epsilon", 0.2, 0.3, 0.15, "ε"),
               "estimate_boxes(legend=False)": estimate_boxes(estimates, "epsilon", 0.2, 0.3,
                                                              0.15, "ε", legend=False),
               "scatter_panels": scatter_panels(_panels(), NAMES, **AXES)}
    for i, fig in enumerate(panel_figures(_panels(), NAMES, **AXES)):
        figures[f"panel_figures[{i}]"] = fig
    titled(figures["estimate_boxes"], "DP estimates vs ε", "Adult; ε = 0.2, λ = 0.1")
    plan = stats_numbers()
    figures["composition_bars"] = composition_bars(plan["stats_totals"])
    figures["stats_split_figure"] = stats_split_figure(plan["stats_plan"])
    return figures


def stats_numbers() -> dict[str, pd.DataFrame]:
    """The planner's numbers at its defaults (every mechanism: Laplace, Gaussian, fixed)."""
    return choose_epsilon.compute(None, choose_epsilon.Params(view="stats"))


@pytest.mark.parametrize("name", list(_figures()))
def test_unvalidated_figure_is_what_validation_builds(name):
    fig = _figures()[name]
    as_built = json.loads(pio.to_json(fig, validate=False))
    validated = json.loads(pio.to_json(go.Figure(fig.to_dict())))  # raises on a bad property
    assert as_built == validated


def test_spec_figure_builds_the_specification_and_validation_catches_a_typo():
    spec = {"data": [{"type": "bar", "x": ["a", "b"], "y": [1, 2]}],
            "layout": {"height": 300, "title": {"text": "t"}}}
    fig = spec_figure(spec)
    assert fig.layout.height == 300 and fig.data[0].type == "bar"
    with pytest.raises(ValueError, match="Invalid property"):
        go.Figure({"data": [{"type": "bar", "colour": "red"}]})  # what the test above relies on


def test_the_page_legend_names_what_the_figure_legend_names():
    """The importance page draws its box figures without a legend and shows it as a line of
    text; the exported figure keeps plotly's. Both name the same four things, in the same
    colours."""
    figures = _figures()
    with_legend = figures["estimate_boxes"]
    names = [t.name for t in with_legend.data if t.type == "scatter"]
    assert names == [name for name, *_ in BOX_LEGEND] and with_legend.layout.showlegend
    without = figures["estimate_boxes(legend=False)"]
    assert not without.layout.showlegend and {t.type for t in without.data} == {"box"}
    text = box_legend("at the chosen ε")
    assert "truth (non-private)" in text and "at the chosen ε" in text
    colours = {t.marker.color or t.line.color for t in with_legend.data if t.type == "scatter"}
    assert all(colour in text for colour in colours)


def test_the_model_comparison_legend_names_each_method_in_its_colour():
    frame = pd.DataFrame({"model": "linear SVM", "epsilon": [np.nan, 0.1, 0.1],
                          "method": ["no noise (non-private)", "importance weights",
                                     "output perturbation"], "distance": [1.0, 2.0, 3.0]})
    exported = distance_boxes(frame, "linear SVM")
    legend = {t.name: t.marker.color for t in exported.data if t.type == "scatter"}
    assert legend == {method: COLORS[role] for method, role in DISTANCE_ROLES.items()}
    shown = distance_boxes(frame, "linear SVM", legend=False)
    assert not shown.layout.showlegend and {t.type for t in shown.data} == {"box"}
    assert all(method in distance_legend() for method in DISTANCE_ROLES)


def test_one_palette_a_colour_means_one_thing():
    """Every role has its own colour; the colours for methods without a role and the masking
    page's class colours are none of them (so nothing looks like the truth, the chosen value or
    a mechanism by accident)."""
    from dpcore.figures.common import SEQUENCE
    from dpcore.figures.masking import CLASS_COLORS

    roles = {colour.lower() for colour in COLORS.values()}
    assert len(roles) == len(COLORS)
    assert not roles & {c.lower() for c in SEQUENCE}
    assert not roles & {c.lower() for c in CLASS_COLORS}
    assert len(set(SEQUENCE)) == len(SEQUENCE) and len(set(CLASS_COLORS)) == len(CLASS_COLORS)


def test_download_names_read_as_the_title_does():
    """No HTML escapes (``Ji__amp__Elkan``), one underscore between words, cut at a word."""
    import plotly.graph_objects as go

    from dpcore.figures.common import titled
    from dpcore.figures.files import STEM_LENGTH, file_stem

    name = titled(go.Figure(), "Estimates vs ε (Ji & Elkan Fig. 1)",
                  'adult; query "income == >50K"; λ = 0.1')
    assert name == "Estimates_vs_ε_Ji_Elkan_Fig_1_adult_query_income_50K_λ_0_1"
    long = file_stem(" ".join(["settings"] * 40))
    assert len(long) <= STEM_LENGTH and long.endswith("settings")
    assert file_stem("&<>") == "figure"
