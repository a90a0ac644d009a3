"""Frozen figures (:mod:`ui.snapshot`): Streamlit draws a snapshot exactly as the figure it froze,
and nothing a session does to it reaches another."""

from __future__ import annotations

import json
import pickle

import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.figures.common import titled
from ui.snapshot import Snapshot


def _figure(container_title: bool = False) -> go.Figure:
    fig = go.Figure([go.Scatter(x=[1.0, 2.0, 3.0], y=[0.5, 0.25, 0.125], name="dp"),
                     go.Bar(x=["a", "b"], y=[3, 4])])
    fig.update_layout(height=360, margin={"l": 10, "t": 30})
    if container_title:  # as an enlarged slide's figure
        fig.update_layout(title={"y": 0.97, "yref": "container", "yanchor": "top",
                                 "pad": {"t": 12}, "font": {"size": 22}}, margin={"t": 110})
    fig.frames = [go.Frame(data=[go.Scatter(x=[1.0], y=[2.0])], name="0")]
    return fig


def _drawn_specs() -> None:
    """Draws the same figure twice: as built and titled in place, and from its snapshot."""
    import plotly.graph_objects as go
    import streamlit as st

    from dpcore.figures.common import titled
    from ui.snapshot import Snapshot

    def build() -> go.Figure:
        fig = go.Figure([go.Scatter(x=[1.0, 2.0, 3.0], y=[0.5, 0.25, 0.125], name="dp")])
        fig.update_layout(height=360, margin={"l": 10, "t": 30})
        return fig

    plain = build()
    titled(plain, "Error", "Adult; ε = 1")
    st.plotly_chart(plain, key="plain")
    st.plotly_chart(Snapshot(build()).titled("Error", "Adult; ε = 1"), key="frozen")


def test_streamlit_sends_a_snapshot_as_the_figure_it_froze():
    at = AppTest.from_function(_drawn_specs).run()
    assert not at.exception
    plain, frozen = (json.loads(chart.proto.spec) for chart in at.get("plotly_chart"))
    assert frozen == plain
    assert frozen["layout"]["title"]["text"].startswith("Error<br>")


@pytest.mark.parametrize("container_title", [False, True])
def test_titled_snapshot_equals_the_figure_titled_in_place(container_title):
    fig = _figure(container_title)
    shot = Snapshot(fig)
    titled(fig, "Weights <b>x</b>", "E; ε = 0.1")
    drawn = shot.titled("Weights <b>x</b>", "E; ε = 0.1").to_dict()
    assert drawn == fig.to_dict()
    assert "&lt;b&gt;" in drawn["layout"]["title"]["text"]  # escaped, as in place


def test_a_snapshot_is_never_changed_by_titles_or_downloads():
    shot = Snapshot(_figure())
    before = pickle.dumps(shot.spec)
    shot.titled("One", "ε = 1")
    shot.titled("Two", "ε = 2")
    exported = shot.figure()
    exported.update_layout(title="changed")
    exported.data[0].y = [9.0, 9.0, 9.0]
    assert pickle.dumps(shot.spec) == before
    assert shot.titled("One", "ε = 1") is shot.titled("One", "ε = 1")  # made once
    assert shot.untitled().to_dict() is shot.spec


def test_a_snapshot_pickles_with_its_figure_only():
    shot = Snapshot(_figure())
    shot.titled("One", "ε = 1")
    again = pickle.loads(pickle.dumps(shot))
    assert pickle.dumps(again.spec) == pickle.dumps(shot.spec)
    assert again.titled("One", "ε = 1").to_dict() == shot.titled("One", "ε = 1").to_dict()
