"""Every page of the app in one place: its title, section and icon, its study and its slides.

A page named ``name`` is four things: the script ``pages/<name>.py`` (widgets and layout), its
study ``dpcore.studies.<name>`` (the numbers, with its ``Params``: the controls' keys, prefix and
defaults), its figures ``dpcore.figures.<name>`` and one :class:`Page` line in :data:`PAGES`.
Navigation, exports, links and presentation mode read everything else from here. A page without
a study (the presentation page) has no controls of its own.

Examples
--------
>>> page("perturbation").prefix
'lr_'
>>> [p.name for p in PAGES if p.section == "Private models"]
['perturbation', 'masking']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dpcore import studies
from dpcore.runs import RunConfig
from dpcore.studies.base import Study
from dpcore.studies.perturbation import PAPER_GRID, PAPER_LAMBDA
from dpcore.subset.baselines import LEI_MAX_DIM

__all__ = ["PAGES", "PRESENT", "Page", "Preset", "page", "presets"]

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
    """One slide of presentation mode: a paper's headline figure, reproduced by a page's study.

    Attributes
    ----------
    title : str
        What the slide shows.
    paper : str
        The paper and figure it reproduces ("Ji & Elkan Fig. 1").
    page : str
        The page whose study computes it.
    scenario : dict
        The sidebar's choices (built-in scenarios only: results are shared across sessions).
    controls : dict
        The page's controls (missing keys take the page's defaults); the view control selects
        which figure's numbers are computed.
    seed : int
        The page's study seed.
    figure : tuple of str
        Names of the study's figures (``dpcore.figures.<page>.figures``) to show, in order;
        empty: every figure.
    labels : tuple of str
        A title for each figure when the slide shows several side by side (else the title).
    note : str
        How the preset differs from the paper's settings (fewer replicates, one ε of several);
        the figure's one-line settings line shows it, so it stays short.
    remark : str
        More on the settings, for the caption under the slide only (default: none).
    key : str
        The slide's name in a link.
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
    remark: str = ""
    key: str = field(default="", compare=False)

    def config(self) -> RunConfig:
        """The run config of this preset."""
        return RunConfig(self.page, dict(self.scenario), dict(self.controls), self.seed)


@dataclass(frozen=True)
class Page:
    """One page of the app.

    Attributes
    ----------
    name : str
        The script ``pages/<name>.py``, the study ``dpcore.studies.<name>``, the figures
        ``dpcore.figures.<name>`` and the ``page`` of its run configs.
    title, icon, section : str
        How the navigation shows it.
    default : bool
        Whether it opens first (the home page).
    presets : tuple of Preset
        Its slides in presentation mode, in the order of a talk.
    """

    name: str
    title: str
    icon: str
    section: str
    default: bool = False
    presets: tuple[Preset, ...] = ()

    @property
    def path(self) -> str:
        """The page's script, relative to the project's root."""
        return f"pages/{self.name}.py"

    @property
    def url_path(self) -> str:
        """The page's address (empty for the default page), as ``st.Page`` derives it."""
        return "" if self.default else self.name

    @property
    def study(self) -> Study | None:
        """The page's study, or None for a page without one."""
        return studies.study(self.name) if self.name in studies.names() else None

    @property
    def prefix(self) -> str:
        """The widget-key prefix of the page's controls (empty without controls)."""
        study = self.study
        return study.Params.PREFIX if study is not None else ""


def _importance(view: str, figure: str, fig: int, note: str) -> Preset:
    return Preset(f"DP estimates vs {note}", f"Ji & Elkan (2013) Fig. {fig}", "importance",
                  _ADULT, {"iw_view": view, "iw_epsilon": 0.1, "iw_lambda": 0.1, "iw_reps": 20},
                  figure=(figure,), key=f"ji-elkan-{fig}",
                  note=f"Adult (compact encoding, as the paper), I(income > 50K), "
                       f"{'ε = 0.1' if fig == 1 else 'λ = 0.1'}; 20 bootstrap resamples of D "
                       "(the paper: 100).")


def _subset(p: int, paper_epsilon: float, grid: str, reps: int, fig: int) -> Preset:
    epsilon = 2 * paper_epsilon  # the paper's split 0.8 : 0.2 : 1 of its ε costs 2ε in all
    return Preset(
        f"Prediction error vs released public points, p = {p}", f"Wang et al. (2018) Fig. {fig}",
        "subset", _mvn(p),
        {"sub_view": "error_vs_size", "sub_epsilon": epsilon,
         "sub_split": "0.8 : 0.2 : 1 (Sect. 5.1)", "sub_accounting": "calibrated",
         "sub_selection": "exponential", "sub_grid": grid, "sub_lambda": 0.01, "sub_reps": reps,
         "sub_lei_budget": "total"},
        figure=("error_vs_size",), key=f"wang-{fig}",
        note=f"MVN with a shifted mean, p = {p}, the paper's ε = {paper_epsilon:g} (split "
             f"0.8 : 0.2 : 1, a total of {epsilon:g}); {reps} repeat{'s' if reps > 1 else ''} "
             "(the paper: 10, at ε = 0.5, 1 and 3).",
        remark=(f"Lei's perturbed histogram spends Algorithm 2's whole ε = {epsilon:g}, so that "
                f"both spend the same (the paper gave it ε₁ + ε₂ = {paper_epsilon:g})."
                if p <= LEI_MAX_DIM else ""))


_MASKING_TOY = {"mk_task": "Toy: three Gaussians (Fig. 2)", "mk_epsilon": 5.0, "mk_lambda": 0.5,
                "mk_initial": "Public / fake initial set", "mk_n": 300, "mk_bounded": True}

#: Every page, in the navigation's order. To add a page, add one line here.
PAGES: tuple[Page, ...] = (
    Page("home", "Home", ":material/home:", "Start", default=True),
    Page("primer", "Mechanism primer", ":material/school:", "Start"),
    Page("present", "Present", ":material/slideshow:", "Start"),
    Page("importance", "Importance weighting", ":material/balance:",
         "Publishing with a public set",
         presets=(_importance("by_lambda", "estimates_by_lambda", 1,
                              "the regularisation λ"),
                  _importance("by_epsilon", "estimates_by_epsilon", 2,
                              "the privacy budget ε"))),
    Page("subset", "Optimal public subset", ":material/filter_list:",
         "Publishing with a public set",
         presets=(_subset(2, 1.0, "Paper, low dimension: 10, 60, … (60 sizes)", 3, 5),
                  _subset(100, 3.0, "Paper, high dimension: 100, 300, … (50 sizes)", 1, 6))),
    Page("perturbation", "Private logistic regression", ":material/tune:", "Private models",
         presets=(Preset(
             "Test error vs ε: output vs objective perturbation",
             "Chaudhuri & Monteleoni (2008) Fig. 2c", "perturbation", _UNUSED,
             {"lr_view": "error_vs_epsilon", "lr_source": "Paper: separable sphere",
              "lr_lambda_mode": "set by hand", "lr_lambda": PAPER_LAMBDA,
              "lr_grid": PAPER_GRID, "lr_epsilon": 0.02, "lr_n": 17_500, "lr_restarts": 20},
             figure=("error_vs_epsilon",), key="chaudhuri-2",
             note=f"The separable sphere (10-D, margin 0.03), n = 17,500; the paper's "
                  f"λ = {PAPER_LAMBDA:g} at every ε; 20 draws per ε on 10,000 test points (the "
                  "paper: 5 folds, 200 restarts).",
             remark="The small ε are the paper's: its Fig. 1 errors reproduce near ε = 0.02, "
                    "and it reports output perturbation ahead at very small ε, where both are "
                    "near chance; we find that only for the corrected (2011) objective "
                    "perturbation, at ε ≈ 0.003-0.005, by less than the spread of 20 draws "
                    "(docs/paper-notes.md)."),)),
    Page("masking", "Data masking", ":material/masks:", "Private models",
         presets=(Preset("Original vs masked records", "Pham, Ghosh & Yegneswaran Fig. 2",
                         "masking", _UNUSED,
                         {**_MASKING_TOY, "mk_view": "scatter", "mk_alone": False,
                          "mk_input": True},
                         figure=("masked_vs_original",), key="pham-2",
                         note="The toy three-Gaussian task, ε = 5, λ = 0.5, N = 300 masked "
                              "records."),
                  Preset("Accuracy vs ε: masked data against input and output perturbation",
                         "Pham, Ghosh & Yegneswaran Fig. 5", "masking", _UNUSED,
                         {**_MASKING_TOY, "mk_view": "accuracy", "mk_draws": 10},
                         figure=("accuracy_vs_epsilon_N100", "accuracy_vs_epsilon_N200"),
                         labels=("Accuracy vs ε, N = 100", "Accuracy vs ε, N = 200"),
                         key="pham-5",
                         note="The toy task with N = 100 and 200 private records; 10 draws per "
                              "ε (the paper: 50, on UCI benchmarks)."))),
    Page("audit", "Privacy audit", ":material/fact_check:", "Trust"),
    Page("choose_epsilon", "Choose epsilon", ":material/key:", "Deciding"),
    Page("decide", "Decide and report", ":material/gavel:", "Deciding"),
)
#: The presentation page's name.
PRESENT = "present"


def page(name: str) -> Page:
    """The page called ``name``.

    Raises
    ------
    KeyError
        When no page has that name.
    """
    for entry in PAGES:
        if entry.name == name:
            return entry
    raise KeyError(f"No page {name!r}; expected one of {[p.name for p in PAGES]}.")


def presets() -> tuple[Preset, ...]:
    """Every page's slides, in the navigation's order."""
    return tuple(preset for entry in PAGES for preset in entry.presets)
