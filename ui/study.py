"""A page's numbers: its study (:mod:`dpcore.studies`) run in two cached stages.

``prepare`` (the expensive part) is cached under the parameters it reads
(:meth:`~dpcore.studies.base.StudyParams.prepare_key`), so a slider that changes only the cheap
parameters (ε on most pages) reruns ``at`` alone. Both stages go where :func:`ui.cache.memo`
puts them: shared by every session for built-in data (or data the study builds itself, when
``scenario`` is None), this session's memory for an upload. A progress bar is drawn only when
``prepare`` has work to do, a spinner while a slow ``at`` computes. The figures that draw the
numbers are cached beside them, frozen (:func:`figures`). Where ``at`` itself is slow
(an ε or a seed that feeds every fit), the neighbouring values of built-in data are computed
ahead (:mod:`ui.prefetch`). A ``prepare`` that takes ``keep`` (:mod:`dpcore.studies.base`) keeps
the parts that several of its keys share in the same store, computed once (the perturbation
study's splits and reference fits, the importance study's λ cells).
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import ui.prefetch as prefetch
from dpcore.datasets import Scenario
from dpcore.domains import SEED
from dpcore.studies.base import Study
from ui.cache import is_builtin, is_cached, memo, memo_key
from ui.snapshot import Snapshot

__all__ = ["figures", "numbers", "prepared"]

_NO_SCENARIO = "no scenario"  # the study builds its own (synthetic) data


def prepared(study: Study, scenario: Scenario | None, scenario_id: str | None, params,
             *, text: str = "Computing the study…", bar: bool = True) -> Any:
    """``study.prepare(scenario, params)``, cached under the parameters it reads (while it
    computes, nothing new is computed ahead: :func:`ui.prefetch.serving`).

    Parameters
    ----------
    study : Study
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
    kept = {}
    if "keep" in inspect.signature(study.prepare).parameters:
        kept["keep"] = lambda stage, compute: memo(scenario, scenario_id,
                                                   ("stage", study.__name__, stage), compute)
    if is_cached(scenario, scenario_id, parts):
        return memo(scenario, scenario_id, parts, lambda: study.prepare(scenario, params, **kept))
    if not bar:
        with st.spinner(text), prefetch.serving():
            return memo(scenario, scenario_id, parts,
                        lambda: study.prepare(scenario, params, **kept))
    shown = st.progress(0.0, text=text)
    try:
        with prefetch.serving():
            return memo(scenario, scenario_id, parts, lambda: study.prepare(
                scenario, params, progress=shown.progress, **kept))
    finally:
        shown.empty()


def numbers(study: Study, scenario: Scenario | None, scenario_id: str | None, params,
            *, text: str = "Computing the study…", bar: bool = True) -> dict[str, pd.DataFrame]:
    """The page's tables: ``study.at(prepared, params)`` on the cached :func:`prepared`.

    A slow ``at`` shows a spinner (after Streamlit's half-second delay); on built-in data, every
    run of a study whose moves have been slow starts computing the neighbouring values ahead
    (:mod:`ui.prefetch`), a move to a value computed ahead included: of the simulation seed
    when it was the control just moved, else of the ε slider.
    """
    ready = prepared(study, scenario, scenario_id, params, text=text, bar=bar)
    scenario_id = scenario_id if scenario is not None and scenario_id else _NO_SCENARIO

    def parts(p) -> tuple:
        return ("at", study.__name__, p)

    shared = is_builtin(scenario)
    if shared:
        prefetch.wait_for(memo_key(scenario_id, parts(params)))
    if is_cached(scenario, scenario_id, parts(params)):
        result = memo(scenario, scenario_id, parts(params), lambda: study.at(ready, params))
    else:
        start = time.perf_counter()
        with st.spinner(text), prefetch.serving():
            result = memo(scenario, scenario_id, parts(params), lambda: study.at(ready, params))
        if time.perf_counter() - start > prefetch.SLOW_SECONDS:
            prefetch.note_slow(study.__name__)
    moved, direction = _moved_control(study, params)
    if shared and prefetch.is_slow(study.__name__):
        control = _control_ahead(study, params, moved)
        if control is not None:
            field, options = control
            prefetch.ahead(getattr(params, field), options,
                           lambda v: memo_key(scenario_id, parts(params.replace(**{field: v}))),
                           lambda v: study.at(ready, params.replace(**{field: v})),
                           direction=direction if field == moved else 0)
    return result


def figures(study: Study, scenario: Scenario | None, scenario_id: str | None, params,
            build: Callable[[], Mapping[str, go.Figure]], *extra: object) -> dict[str, Snapshot]:
    """The view's figures, ``build()`` frozen (:class:`~ui.snapshot.Snapshot`) and cached where
    :func:`numbers` keeps the numbers they draw: built once per parameters for every session on
    built-in data, once per session for an upload.

    ``build`` must read only the page's :func:`numbers` at ``params`` and ``extra`` (any other
    argument the figures read, such as a dataset's title), which go into the key.
    """
    scenario_id = scenario_id if scenario is not None and scenario_id else _NO_SCENARIO
    return memo(scenario, scenario_id, ("figures", study.__name__, params, *extra),
                lambda: {name: Snapshot(fig) for name, fig in build().items()})


def _moved_control(study: Study, params) -> tuple[str | None, int]:
    """The field of ``params`` that alone changed since this session's last :func:`numbers` of
    ``study`` (None: the first run, or several or no fields changed) and the way it moved (1
    up, -1 down, 0 not a number); remembers ``params``."""
    key = f"_study_last_params_{study.__name__}"
    last = st.session_state.get(key)
    st.session_state[key] = params
    if last is None or type(last) is not type(params) or not dataclasses.is_dataclass(params):
        return None, 0
    changed = [f.name for f in dataclasses.fields(params)
               if getattr(last, f.name) != getattr(params, f.name)]
    if len(changed) != 1:
        return None, 0
    before, after = getattr(last, changed[0]), getattr(params, changed[0])
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (before, after))
    return changed[0], (1 if after > before else -1) if numeric else 0


def _control_ahead(study: Study, params,
                   moved: str | None) -> tuple[str, tuple[float, ...]] | None:
    """The control whose neighbouring values to compute ahead, and its values in order: the
    simulation seed when it was the control just moved (a "+" or "-" click steps it by one),
    else the ε slider; only a control that ``prepare`` does not read (``at`` alone moves it).
    None if neither applies."""
    if moved == "seed" and isinstance(getattr(params, "seed", None), int):
        seed = params.seed
        options = tuple(s for s in (seed - 1, seed, seed + 1) if SEED.problem(s) is None)
        if _staged(params, "seed", options):
            return "seed", options
    domain = study.DOMAINS.get(f"{getattr(params, 'PREFIX', '')}epsilon")
    options = tuple(getattr(domain, "options", ()))
    if options and _staged(params, "epsilon", options):
        return "epsilon", options
    return None


def _staged(params, field: str, options: tuple[float, ...]) -> bool:
    """Whether ``params``' ``field`` is one of ``options`` and ``prepare`` does not read it
    (``at`` alone moves it)."""
    if getattr(params, field, None) not in options or len(options) < 2:
        return False
    value = getattr(params, field)
    other = options[0] if value != options[0] else options[-1]
    return params.replace(**{field: other}).prepare_key() == params.prepare_key()
