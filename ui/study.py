"""A page's numbers: its study (:mod:`dpcore.studies`) run in two cached stages.

``prepare`` (the expensive part) is cached under the parameters it reads
(:meth:`~dpcore.studies.base.StudyParams.prepare_key`), so a slider that changes only the cheap
parameters (ε on most pages) reruns ``at`` alone. Both stages go where :func:`ui.cache.memo`
puts them: shared by every session for built-in data (or data the study builds itself, when
``scenario`` is None), this session's memory for an upload. A progress bar is drawn only when
``prepare`` has work to do, a spinner while a slow ``at`` computes.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pandas as pd
import streamlit as st

from dpcore.datasets import Scenario
from ui.cache import is_cached, memo

__all__ = ["numbers", "prepared"]

_NO_SCENARIO = "no scenario"  # the study builds its own (synthetic) data


def prepared(study: ModuleType, scenario: Scenario | None, scenario_id: str | None, params,
             *, text: str = "Computing the study…", bar: bool = True) -> Any:
    """``study.prepare(scenario, params)``, cached under the parameters it reads.

    Parameters
    ----------
    study : module
        The page's study (``dpcore.studies.<page>``).
    scenario : Scenario or None
        The sidebar's scenario; None when the study builds its own data from built-in
        definitions (shared across sessions).
    scenario_id : str or None
        The scenario's id in this session (``st.session_state["scenario_id"]``).
    params : StudyParams
        The page's parameters.
    text : str
        The progress bar's text, shown only while ``prepare`` computes.
    bar : bool
        Whether ``prepare`` reports its progress; if not, a spinner shows instead of a bar.
    """
    scenario_id = scenario_id if scenario is not None and scenario_id else _NO_SCENARIO
    parts = ("prepare", study.__name__, params.prepare_key())
    if is_cached(scenario, scenario_id, parts):
        return memo(scenario, scenario_id, parts, lambda: study.prepare(scenario, params))
    if not bar:
        with st.spinner(text):
            return memo(scenario, scenario_id, parts, lambda: study.prepare(scenario, params))
    shown = st.progress(0.0, text=text)
    try:
        return memo(scenario, scenario_id, parts, lambda: study.prepare(
            scenario, params, progress=shown.progress))
    finally:
        shown.empty()


def numbers(study: ModuleType, scenario: Scenario | None, scenario_id: str | None, params,
            *, text: str = "Computing the study…", bar: bool = True) -> dict[str, pd.DataFrame]:
    """The page's tables: ``study.at(prepared, params)`` on the cached :func:`prepared`, under a
    spinner (shown by Streamlit only when it takes more than half a second)."""
    ready = prepared(study, scenario, scenario_id, params, text=text, bar=bar)
    scenario_id = scenario_id if scenario is not None and scenario_id else _NO_SCENARIO
    parts = ("at", study.__name__, params)
    if is_cached(scenario, scenario_id, parts):
        return memo(scenario, scenario_id, parts, lambda: study.at(ready, params))
    with st.spinner(text):
        return memo(scenario, scenario_id, parts, lambda: study.at(ready, params))
