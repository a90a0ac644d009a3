"""The figures of every page: one plotly module per page (no Streamlit), and a palette.

Each page's module ``dpcore.figures.<page>`` defines ``figures(numbers, params) -> dict[str,
go.Figure]``: the figures of the view its study computed, built from the study's numbers
(:mod:`dpcore.studies`) and titled. The page draws them, ``python -m dpcore run`` writes them
and presentation mode shows one, so they look the same everywhere.
:mod:`dpcore.figures.common` holds the palette and layout every page shares.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

import plotly.graph_objects as go

if TYPE_CHECKING:
    from dpcore.runs import RunResult

__all__ = ["figures", "page_figures"]


def page_figures(page: str, numbers: dict, params) -> dict[str, go.Figure]:
    """The figures of ``page`` for its study's ``numbers`` at ``params``, by name (empty when
    the page has no figures module)."""
    name = f"{__name__}.{page}"
    if importlib.util.find_spec(name) is None:
        return {}
    return importlib.import_module(name).figures(numbers, params)


def figures(result: RunResult) -> dict[str, go.Figure]:
    """The figures of a run (:func:`dpcore.runs.run`), by name."""
    return page_figures(result.config.page, result.numbers, result.params)
