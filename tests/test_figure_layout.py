"""Layout of the figures issue 34 §7 found hard to read, without a browser: legends clear of
titles, log axes labelled at 1-2-5, the planner's bar labels legible and its methods named; and
the scenario keys a link carries (only those the scenario reads)."""

from __future__ import annotations

import pandas as pd
import pytest

from dpcore.datasets import load_scenario
from dpcore.figures import audit as audit_figures
from dpcore.figures import choose_epsilon as ce_figures
from dpcore.figures import primer as primer_figures
from dpcore.figures.common import titled
from dpcore.planning import COMPOSITION_NAMES, COMPOSITIONS
from dpcore.runs.scenarios import AT_RANDOM, BY_VALUE, ONE_FILE, TWO_FILES, unused_keys
from dpcore.studies import audit, primer
from dpcore.studies import choose_epsilon as ce
from ui.runconfig import scenario_spec

# The sizes (px) of a figure's title and of its settings line (dpcore.figures.common.titled),
# of a panel's title (plotly's make_subplots writes them at 16 px), and a line's height per px.
TITLE, SETTINGS, PANEL_TITLE, LINE = 15, 12, 16, 1.3


def view(name: str) -> dict[str, pd.DataFrame]:
    """The Choose-ε page's figures of a view (closed forms: no data is read)."""
    params = ce.Params.from_controls({**ce.CONTROLS, "ce_view": name}, 0)
    return ce_figures.figures(ce.compute(None, params), params)


def assert_legend_at_foot(fig) -> None:
    """The legend sits at the foot of the figure (under the axis title), so that a legend of
    any number of rows stays clear of the title and its settings line."""
    legend = fig.layout.legend
    assert legend.orientation == "h"
    assert legend.yref == "container" and legend.y == 0 and legend.yanchor == "bottom"


@pytest.fixture(scope="module")
def choose_epsilon_figures():
    return {**view(ce.VIEWS[0]), **view(ce.VIEWS[1]), **view(ce.VIEWS[2]),
            **view(ce.VIEWS[3])}


def test_titled_figures_keep_their_legend_off_the_title(choose_epsilon_figures):
    params = audit.Params(runs=1000)
    assert_legend_at_foot(audit_figures.figures(audit.compute(None, params),
                                                params)["distributions"])
    for name in ("target", "risk", "growth"):
        assert choose_epsilon_figures[name].layout.title.text  # titled, with its settings
        assert_legend_at_foot(choose_epsilon_figures[name])


def test_the_primers_title_clears_its_first_panels_title():
    params = primer.Params.from_controls(primer.CONTROLS, 0).replace(draws=1000)
    built = primer_figures.figures(primer.compute(load_scenario("wine"), params), params)
    assert_legend_at_foot(built["exponential"])
    answers = built["answers"]
    top = answers.layout.margin.t
    # Plotly centres the title's first line in the top margin, its settings line under it;
    # the first panel's title sits on that panel, at the bottom of the margin: the one must
    # end above where the other starts (at the former 80 px they overlapped).
    title_bottom = top / 2 + LINE * (TITLE / 2 + SETTINGS)
    panel_title_top = top - LINE * PANEL_TITLE
    assert title_bottom <= panel_title_top
    first = answers.layout.annotations[0]
    assert first.yref == "paper" and first.y == pytest.approx(1.0)  # on the first panel
    # titled() keeps the room the figure asked for
    titled(answers, "another title", "other settings")
    assert answers.layout.margin.t == top


def test_log_axes_are_labelled_at_one_two_and_five(choose_epsilon_figures):
    for name in ("target", "growth"):
        fig = choose_epsilon_figures[name]
        for axis in (fig.layout.xaxis, fig.layout.yaxis):
            assert axis.type == "log" and axis.dtick == "D2" and axis.tickformat == "~g"


@pytest.mark.parametrize("name", ["composition", "stats_totals"])
def test_planner_bars_are_named_and_labelled_legibly(choose_epsilon_figures, name):
    fig = choose_epsilon_figures[name]
    assert [bar.name for bar in fig.data] == [COMPOSITION_NAMES[m] for m in COMPOSITIONS]
    labels = [x for bar in fig.data for x in bar.x]
    assert not set(labels) & {"zcdp", "rdp", "pld"}  # no lower-case codes
    assert all(len(line) <= 12 for label in labels for line in label.split("<br>"))
    for bar in fig.data:
        # never shrunk to fit the bar (plotly's default shrank them to 8.9 px)
        assert bar.textfont.size >= 11 and bar.constraintext == "none"
    tallest = max(bar.y[0] for bar in fig.data)
    assert fig.layout.yaxis.range[1] >= 1.25 * tallest  # room for the two-line labels


def test_the_split_is_labelled_legibly_and_titled_by_name(choose_epsilon_figures):
    fig = choose_epsilon_figures["stats_split"]
    assert all(bar.textfont.size >= 11 and bar.constraintext == "none" for bar in fig.data)
    assert COMPOSITION_NAMES[ce.CONTROLS["ce_stats_method"]] in fig.layout.title.text


def test_growth_lines_are_named(choose_epsilon_figures):
    names = {trace.name for trace in choose_epsilon_figures["growth"].data}
    assert not names & set(COMPOSITIONS) - {"sequential", "advanced"}
    assert COMPOSITION_NAMES["zcdp"] in names


@pytest.mark.parametrize("state, absent, present", [
    ({"source": "Built-in", "builtin_name": "adult", "builtin_encoding": "compact",
      "builtin_p": 100, "builtin_shift": "paper"},
     {"builtin_p", "builtin_shift"}, {"builtin_encoding"}),
    ({"source": "Built-in", "builtin_name": "wine", "builtin_encoding": "onehot",
      "builtin_p": 100, "builtin_shift": "paper"},
     {"builtin_encoding", "builtin_p", "builtin_shift"}, {"builtin_name"}),
    ({"source": "Built-in", "builtin_name": "mvn-shift", "builtin_encoding": "onehot",
      "builtin_p": 100, "builtin_shift": "first"},
     {"builtin_encoding"}, {"builtin_p", "builtin_shift"}),
    ({"source": "Upload", "upload_mode": TWO_FILES, "split_rule": BY_VALUE,
      "split_column": "sex", "split_fraction": 0.5},
     {"split_rule", "split_column", "split_fraction"}, {"upload_mode"}),
    ({"source": "Upload", "upload_mode": ONE_FILE, "split_rule": AT_RANDOM,
      "split_column": "sex", "split_p": 0.9, "split_fraction": 0.3},
     {"split_column", "split_p"}, {"split_rule", "split_fraction"}),
    ({"source": "Upload", "upload_mode": ONE_FILE, "split_rule": BY_VALUE,
      "split_column": "sex", "split_p": 0.9, "split_fraction": 0.3},
     {"split_fraction"}, {"split_rule", "split_column", "split_p"}),
])
def test_a_link_carries_only_the_scenario_keys_its_scenario_reads(state, absent, present):
    """A choice kept by the sidebar for another scenario (the simulation's p after its slide,
    Adult's encoding) is not this scenario's, so neither its config nor its link names it."""
    spec = scenario_spec(state)
    assert not absent & set(spec) and present <= set(spec)
    assert absent <= unused_keys(state)
