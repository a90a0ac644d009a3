"""Reading a page's numbers in AppTest and rerunning them through ``dpcore.runs`` (issue 12):
the helpers of ``test_runs_pages_a.py`` and ``test_runs_pages_b.py``."""

from __future__ import annotations

import base64
import json

import numpy as np

from dpcore.figures import figures
from dpcore.runs import RunConfig, page_module
from dpcore.runs.scenarios import DEFAULT_SCENARIO


def _array(value: object) -> object:
    """A trace's data as plotly wrote it: a list, or a typed array {"dtype", "bdata"[, "shape"]}."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        if "shape" in value:
            shape = value["shape"]
            out = out.reshape([int(s) for s in str(shape).split(",")] if isinstance(shape, str)
                              else shape)
        return out
    return value


def _legend_only(trace: dict) -> bool:
    """A legend entry without data (``x = y = [None]``): a page may show it as text instead."""
    return trace.get("x") == [None] and trace.get("y") == [None]


def _traces(spec: dict) -> list[dict]:
    """Every trace's type, name and data arrays (x, y, z), decoded; legend-only entries left
    out."""
    return [{"type": t.get("type"), "name": t.get("name"),
             **{axis: _array(t[axis]) for axis in ("x", "y", "z") if axis in t}}
            for t in spec["data"] if not _legend_only(t)]


def page_figures(at) -> list[list[dict]]:
    """The page's figures in page order, decoded from the chart JSON (plotly escapes non-ASCII
    unless orjson is installed, so json.loads reads either form)."""
    return [_traces(json.loads(chart.proto.spec)) for chart in at.get("plotly_chart")]


def run_figures_of(result) -> list[list[dict]]:
    return [_traces(json.loads(fig.to_json())) for fig in figures(result).values()]


def _same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray | list) or isinstance(b, np.ndarray | list):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype.kind in "fiub" and b.dtype.kind in "fiub":
            return a.shape == b.shape and np.array_equal(a.astype(float), b.astype(float),
                                                         equal_nan=True)
        return a.tolist() == b.tolist()
    return a == b


def assert_same_figures(page: list[list[dict]], ran: list[list[dict]]) -> None:
    """Figure for figure and trace for trace: the same names and bit-identical x, y and z."""
    assert len(page) == len(ran) >= 1
    for fig_page, fig_run in zip(page, ran, strict=True):
        assert len(fig_page) == len(fig_run)
        for t_page, t_run in zip(fig_page, fig_run, strict=True):
            assert t_page["type"] == t_run["type"] and t_page["name"] == t_run["name"]
            for axis in ("x", "y", "z"):
                assert (axis in t_page) == (axis in t_run), (t_page["name"], axis)
                if axis in t_page:
                    assert _same(t_page[axis], t_run[axis]), (t_page["name"], axis)


def config_of(at, page: str) -> RunConfig:
    """The run config of the page on screen, as "Export this run" builds it, through JSON."""
    state = at.session_state
    module = page_module(page)
    scenario = {key: state[key] for key in DEFAULT_SCENARIO if key in state}
    controls = {key: state[key] for key in module.CONTROLS if key in state}
    seed = int(state[module.SEED_KEY]) if module.SEED_KEY else 0
    config = RunConfig(page, scenario, controls, seed)
    return RunConfig.from_dict(json.loads(config.to_json()))


def numbers_in(text: str) -> set[str]:
    return {word.strip("(),.;%") for word in text.split()}
