"""A figure drawn from built-in data is built once for every session (:func:`ui.study.figures`):
a rerun and a second session draw it from the shared store, and draw the same chart.

For a class this is what keeps a slider move cheap: building the masking page's greedy animation
took 0.5 s a move, per student (``docs/class.md``). Each page's figure function is wrapped to
count its calls; pages import it afresh on every run, so the wrapper is what they call.
"""

from __future__ import annotations

import json
from collections import Counter

import app_support
import pytest

TIMEOUT = 240
#: Page, its figure module, a view to show (not the first: its own figures) and the state the
#: page opens with (masking on the small experiment its own tests use).
PAGES = [
    ("pages/perturbation.py", "dpcore.figures.perturbation",
     {"lr_view": "bounds"}),
    ("pages/masking.py", "dpcore.figures.masking",
     {"mk_view": "animation", "builtin_name": "three-gaussians"}),
    ("pages/importance.py", "dpcore.figures.importance", {"iw_view": "bias_sd"}),
    ("pages/subset.py", "dpcore.figures.subset", {"sub_view": "distance_vs_size"}),
]


def _specs(at) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


@pytest.mark.parametrize(("page", "module", "state"), PAGES,
                         ids=[p[0].split("/")[1] for p in PAGES])
def test_figures_built_once_for_every_session(monkeypatch, page, module, state):
    figures_module = __import__(module, fromlist=["figures"])
    built: Counter[str] = Counter()
    original = figures_module.figures

    def counted(*args, **kwargs):
        built["figures"] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(figures_module, "figures", counted)
    first = app_support.open_page(page, timeout=TIMEOUT, **state)
    drawn = _specs(first)
    assert drawn, f"{page} drew no figure with {state}"
    before = built["figures"]  # 0 if another test of this process built them already

    app_support.rerun(first)
    second = app_support.open_page(page, timeout=TIMEOUT, **state)
    assert built["figures"] == before, "a rerun or a second session built the figures again"
    assert _specs(first) == drawn and _specs(second) == drawn
