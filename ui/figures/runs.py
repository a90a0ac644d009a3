"""The figures of a run (``python -m dpcore run``, exported scripts, presentation mode).

Each page's figure module builds its run's figures from the run's numbers with the same builders
the page uses (``run_figures(numbers, controls)``), so a figure written by the CLI looks like the
one on the page. Plotly only: no Streamlit is imported here.
"""

from __future__ import annotations

import importlib

import plotly.graph_objects as go

from dpcore.runs import RunResult

#: The figure module of each page (pages without figures of their own are absent).
MODULES = {
    "home": "ui.figures.home",
    "primer": "ui.figures.primer",
    "importance": "ui.figures.importance",
    "subset": "ui.figures.subset",
    "perturbation": "ui.figures.perturbation",
    "masking": "ui.figures.masking",
    "audit": "ui.figures.audit",
    "choose_epsilon": "ui.figures.planning",
}


def figures(result: RunResult) -> dict[str, go.Figure]:
    """The figures of ``result``'s page for its numbers, by name (empty if it has none)."""
    name = MODULES.get(result.config.page)
    if name is None:
        return {}
    module = importlib.import_module(name)
    return module.run_figures(result.numbers, result.controls)
