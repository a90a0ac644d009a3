"""Presentation mode: the papers' headline figures as presets, one at a time, full screen.

A preset is a run config (:class:`dpcore.runs.RunConfig`) on a built-in scenario plus the figure of
its run to show: the page's numbers are recomputed by :func:`dpcore.runs.run` exactly as the page
computes them, so a preset shows what the page would show for the same controls and seed, and its
takeaway (:meth:`dpcore.runs.RunResult.takeaway`) is computed from those numbers. Presets use
fewer replicates than the papers so that each opens in seconds; the paper's number is given in
:attr:`Preset.note`.

Every preset is a seeded study (a Monte-Carlo simulation of the mechanism), never a release: no
budget is spent. Results go to the store shared by all sessions (:data:`ui.cache.SHARED`), which is
right because presets use built-in data only.

:func:`presentation_toggle` is the sidebar switch that every page shows (``ui.navigation.route``
calls it): turning it on opens ``pages/present.py``; turning it off, or Leave (Escape) there,
returns to the page the presenter came from.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from dpcore.runs import RunConfig, RunResult, run
from ui.cache import SHARED, content_key

__all__ = ["PRESENT_PAGE", "PRESETS", "Preset", "available", "enlarge", "figure_title",
           "pick_figure", "presentation_toggle", "result", "return_page"]

#: The presentation page (its ``st.Page`` in :func:`ui.navigation.pages`).
PRESENT_PAGE = "pages/present.py"
PRESENT_URL = "present"
TOGGLE_KEY = "presentation"
_TARGET = "_presentation_target"  # "on" / "off": set by the toggle's callback
_RETURN = "_presentation_return"  # url path of the page the presenter came from

# Adult as Ji & Elkan encode it (k - 1 items per attribute): their d, hence their noise.
_ADULT = {"source": "Built-in", "builtin_name": "adult", "builtin_public": "default",
          "builtin_encoding": "compact", "seed": None}
# Masking and the perturbation page's synthetic data build their own data: the sidebar scenario
# is not read, so the smallest built-in keeps a preset from loading Adult for nothing.
_UNUSED = {"source": "Built-in", "builtin_name": "three-gaussians", "builtin_public": "default",
           "seed": None}


def _mvn(p: int) -> dict[str, Any]:
    return {"source": "Built-in", "builtin_name": "mvn-shift", "builtin_public": "default",
            "builtin_p": p, "builtin_shift": "paper", "seed": None}


@dataclass(frozen=True)
class Preset:
    """One slide: a paper's headline figure, reproduced by a page's run.

    Attributes
    ----------
    title : str
        What the slide shows.
    paper : str
        The paper and figure it reproduces ("Ji & Elkan Fig. 1").
    page : str
        The page whose run computes it (a name of :data:`dpcore.runs.PAGES`).
    scenario : dict
        The sidebar's choices (built-in scenarios only: results are shared across sessions).
    controls : dict
        The page's controls (missing keys take the page's defaults); the view control selects
        which figure's numbers are computed.
    seed : int
        The page's study seed.
    figure : tuple of str
        Names of the run's figures (:func:`dpcore.figures.figures`) to show, in order; empty:
        every figure of the run.
    labels : tuple of str
        A title for each figure when the slide shows several side by side (else the title).
    note : str
        How the preset differs from the paper's settings (fewer replicates, one ε of several).
    """

    title: str
    paper: str
    page: str
    scenario: dict
    controls: dict
    seed: int = 0
    figure: tuple[str, ...] = ()
    note: str = ""
    labels: tuple[str, ...] = ()
    key: str = field(default="", compare=False)

    def config(self) -> RunConfig:
        """The run config of this preset."""
        return RunConfig(self.page, dict(self.scenario), dict(self.controls), self.seed)


#: The headline figures of the papers, in the order of a talk.
PRESETS: tuple[Preset, ...] = (
    Preset("DP estimates vs the regularisation λ", "Ji & Elkan (2013) Fig. 1", "importance",
           _ADULT, {"iw_view": "Estimates vs λ", "iw_epsilon": 0.1, "iw_lambda": 0.1,
                    "iw_reps": 20},
           figure=("estimates_by_lambda",),
           note="Adult (compact encoding, as the paper), I(income > 50K), ε = 0.1; 20 bootstrap "
                "resamples of D (the paper: 100).",
           key="ji-elkan-1"),
    Preset("DP estimates vs the privacy budget ε", "Ji & Elkan (2013) Fig. 2", "importance",
           _ADULT, {"iw_view": "Estimates vs ε", "iw_epsilon": 0.1, "iw_lambda": 0.1,
                    "iw_reps": 20},
           figure=("estimates_by_epsilon",),
           note="Adult (compact encoding, as the paper), I(income > 50K), λ = 0.1; 20 bootstrap "
                "resamples of D (the paper: 100).",
           key="ji-elkan-2"),
    Preset("Test error vs ε: output vs objective perturbation",
           "Chaudhuri & Monteleoni (2008) Fig. 2c", "perturbation", _UNUSED,
           {"lr_view": "Error vs ε", "lr_source": "Paper: separable sphere",
            "lr_lambda_mode": "rule of (ε, n, d)", "lr_epsilon": 1.0, "lr_n": 17_500,
            "lr_restarts": 5},
           figure=("error_vs_epsilon",),
           note="Uniform points on the sphere in 10 dimensions, margin 0.03, n = 17,500; 5 noise "
                "draws per ε on 10,000 fresh test points (the paper: 5-fold cross-validation).",
           key="chaudhuri-2"),
    Preset("Original vs masked records", "Pham, Ghosh & Yegneswaran Fig. 2", "masking", _UNUSED,
           {"mk_view": "Masked vs original", "mk_task": "Toy: three Gaussians (Fig. 2)",
            "mk_epsilon": 5.0, "mk_lambda": 0.5, "mk_initial": "Public / fake initial set",
            "mk_n": 300, "mk_bounded": True, "mk_alone": False, "mk_input": True},
           figure=("masked_vs_original",),
           note="The toy three-Gaussian task, ε = 5, λ = 0.5, N = 300 masked records.",
           key="pham-2"),
    Preset("Accuracy vs ε: masked data against input and output perturbation",
           "Pham, Ghosh & Yegneswaran Fig. 5", "masking", _UNUSED,
           {"mk_view": "Accuracy vs ε", "mk_task": "Toy: three Gaussians (Fig. 2)",
            "mk_epsilon": 5.0, "mk_lambda": 0.5, "mk_initial": "Public / fake initial set",
            "mk_n": 300, "mk_bounded": True, "mk_draws": 10},
           figure=("accuracy_vs_epsilon_N100", "accuracy_vs_epsilon_N200"),
           labels=("Accuracy vs ε, N = 100", "Accuracy vs ε, N = 200"),
           note="The toy task with N = 100 and 200 private records; 10 draws per ε (the paper: "
                "50, on UCI benchmarks).",
           key="pham-5"),
    Preset("Prediction error vs released public points, p = 2", "Wang et al. (2018) Fig. 5",
           "subset", _mvn(2),
           {"sub_view": "Error vs size", "sub_epsilon": 1.0,
            "sub_split": "0.8 : 0.2 : 1 (Sect. 5.1)", "sub_accounting": "calibrated",
            "sub_selection": "exponential",
            "sub_grid": "Paper, low dimension: 10, 60, … (60 sizes)", "sub_lambda": 0.01,
            "sub_reps": 3},
           figure=("error_vs_size",),
           note="MVN with a shifted mean, p = 2, ε = 1 split 0.8 : 0.2 : 1; 3 repeats (the paper: "
                "10, at ε = 0.5, 1 and 3).",
           key="wang-5"),
    Preset("Prediction error vs released public points, p = 100", "Wang et al. (2018) Fig. 6",
           "subset", _mvn(100),
           {"sub_view": "Error vs size", "sub_epsilon": 3.0,
            "sub_split": "0.8 : 0.2 : 1 (Sect. 5.1)", "sub_accounting": "calibrated",
            "sub_selection": "exponential",
            "sub_grid": "Paper, high dimension: 100, 300, … (50 sizes)", "sub_lambda": 0.01,
            "sub_reps": 1},
           figure=("error_vs_size",),
           note="MVN with a shifted mean, p = 100, ε = 3 split 0.8 : 0.2 : 1; 1 repeat (the "
                "paper: 10, at ε = 0.5, 1 and 3).",
           key="wang-6"),
)


def _has_run(page: str) -> bool:
    """Whether ``page`` has a run module and a figure module with ``run_figures``."""
    if importlib.util.find_spec(f"dpcore.runs.{page}") is None:
        return False
    from dpcore.figures import MODULES

    name = MODULES.get(page)
    if name is None or importlib.util.find_spec(name) is None:
        return False
    return hasattr(importlib.import_module(name), "run_figures")


def available(presets: Sequence[Preset] = PRESETS) -> tuple[list[Preset], list[Preset]]:
    """The presets whose page has a run (offered), and those whose page has none yet."""
    offered = [p for p in presets if _has_run(p.page)]
    return offered, [p for p in presets if p not in offered]


def result(preset: Preset, progress: Callable[[float], None] | None = None) -> RunResult:
    """The run of ``preset``, shared by every session (built-in data, a seeded study).

    The result is shared: callers must not mutate it.
    """
    config = preset.config()
    key = content_key("presentation preset", config.to_json())
    return SHARED.get(key, lambda: run(config, progress=progress))


def pick_figure(figures: dict[str, go.Figure], preset: Preset) -> dict[str, go.Figure]:
    """The figures of the run that the preset shows: its named ones found in ``figures``, or every
    figure when none of the names matches (a figure module that names them differently)."""
    chosen = {name: figures[name] for name in preset.figure if name in figures}
    return chosen or dict(figures)


def figure_title(preset: Preset, name: str) -> str:
    """The title of the run's figure ``name`` on the slide of ``preset``."""
    if name in preset.figure and len(preset.labels) == len(preset.figure):
        return preset.labels[preset.figure.index(name)]
    return preset.title


def enlarge(fig: go.Figure, *, height: int = 640, font: int = 17) -> go.Figure:
    """``fig`` taller and in larger type, for a projector (changes ``fig`` and returns it)."""
    fig.update_layout(height=height, font={"size": font}, legend={"font": {"size": font - 1}})
    fig.update_xaxes(title_font={"size": font + 1}, tickfont={"size": font - 2})
    fig.update_yaxes(title_font={"size": font + 1}, tickfont={"size": font - 2})
    return fig


def _page_by_url(url_path: str | None) -> Any:
    """The ``st.Page`` of the app whose url path is ``url_path`` (the home page if none)."""
    from ui.navigation import pages

    every = [page for section in pages().values() for page in section]
    for page in every:
        if page.url_path == url_path:
            return page
    return next(page for page in every if page.default)


def _toggled() -> None:
    st.session_state[_TARGET] = "on" if st.session_state.get(TOGGLE_KEY) else "off"


def return_page() -> Any:
    """The page the presenter came from (the home page when the presentation was opened by a
    link): where leaving presentation mode goes."""
    return _page_by_url(st.session_state.get(_RETURN))


def presentation_toggle(current: Any) -> None:
    """The sidebar's "Presentation mode" switch; ``current`` is the page ``st.navigation`` chose.

    The switch mirrors the page (on exactly on the presentation page, also when it was opened by a
    link). Turning it on opens the presentation page; turning it off, or :func:`leave`, returns to
    the page the presenter came from; the presentation page's "Leave" button (Escape) goes there
    with :func:`return_page`.
    """
    here = current.url_path == PRESENT_URL
    target = st.session_state.pop(_TARGET, None)
    if target is None:
        st.session_state[TOGGLE_KEY] = here
    with st.sidebar:
        st.toggle("Presentation mode", key=TOGGLE_KEY, on_change=_toggled,
                  help="Full-screen slides of the papers' headline figures, recomputed live, "
                       "with a takeaway each. Arrow keys or Page Up/Down step through them; "
                       "Escape leaves.")
    if target == "on" and not here:
        st.session_state[_RETURN] = current.url_path
        st.switch_page(PRESENT_PAGE)
    elif target == "off" and here:
        st.switch_page(return_page())
