"""A figure as a file: standalone HTML (plotly.js inlined) or a PNG drawn through Chromium.

The dashboard's download buttons (:func:`ui.export.figure_downloads`) and the command line
(``python -m dpcore run``) write figures through these functions, so a file looks the same
wherever it was made. PNGs are rendered by kaleido 1.x through a Chromium found by
:func:`chromium_path`.
"""

from __future__ import annotations

import html
import importlib.util
import itertools
import os
import re
import shutil

import plotly.graph_objects as go

__all__ = ["PNG_MISSING", "PNG_NEEDS_KALEIDO", "PNG_WIDTH", "chromium_path", "figure_html",
           "figure_png", "figure_title", "file_stem", "for_export", "kaleido_installed"]

PNG_WIDTH = 1100  # px; the PNG is drawn at twice this (scale 2) for print
PNG_MISSING = ("PNG export needs Chromium, and none was found (looked at $BROWSER_PATH, "
               "/usr/bin/chromium and chromium/google-chrome on PATH). Install Debian's "
               "`chromium` package or set BROWSER_PATH; the HTML export works without it.")
PNG_NEEDS_KALEIDO = ("PNG export needs the kaleido package, which is not installed: run "
                     "`pip install '.[png]'` in the project (or `pip install kaleido`); the HTML "
                     "export works without it.")
_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium_path() -> str | None:
    """The Chromium (or Chrome) that renders PNGs: ``$BROWSER_PATH``, ``/usr/bin/chromium``, or
    the first of chromium/chromium-browser/google-chrome on ``PATH``; None when there is none."""
    fixed = (os.environ.get("BROWSER_PATH"), os.environ.get("CHROME_PATH"), "/usr/bin/chromium")
    on_path = (shutil.which(name) for name in _BROWSERS)  # PATH is searched only when needed
    for candidate in itertools.chain(fixed, on_path):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def kaleido_installed() -> bool:
    """Whether kaleido (the ``png`` extra, which draws PNGs through Chromium) is installed."""
    return importlib.util.find_spec("kaleido") is not None


def figure_title(fig: go.Figure) -> str:
    """The figure's title as plain text (the markup of :func:`~dpcore.figures.common.titled`
    removed)."""
    text = fig.layout.title.text or ""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def for_export(fig: go.Figure) -> go.Figure:
    """A copy whose axes make room for their tick labels and titles: the shared layout's small
    margins rely on Streamlit's theme, which a file does not have."""
    copy = go.Figure(fig)
    copy.update_xaxes(automargin=True)
    copy.update_yaxes(automargin=True)
    copy.update_layout(title_pad_l=16, legend_x=0.01)  # off the file's left edge
    return copy


def figure_html(fig: go.Figure) -> bytes:
    """The figure as a standalone HTML page: plotly.js inlined (opens offline), the figure's
    title and settings drawn above the plot and in the page's ``<title>``."""
    page = for_export(fig).to_html(include_plotlyjs=True, full_html=True)
    title = html.escape(figure_title(fig)) or "Figure"
    charset = '<meta charset="utf-8" />'
    anchor = charset if charset in page else "<head>"
    page = page.replace(anchor, f"{anchor}\n    <title>{title}</title>", 1)
    return page.encode("utf-8")


def figure_png(fig: go.Figure, *, browser: str | None = None) -> bytes:
    """The figure (with its title and settings) as a PNG, rendered by kaleido through Chromium.

    Raises
    ------
    RuntimeError
        When kaleido is not installed, or no Chromium is found (:func:`chromium_path`); the
        message says what to install.
    """
    try:
        import kaleido  # optional (the `png` extra): imported only when a PNG is drawn
    except ImportError:
        raise RuntimeError(PNG_NEEDS_KALEIDO) from None

    browser = browser or chromium_path()
    if browser is None:
        raise RuntimeError(PNG_MISSING)
    height = int(fig.layout.height or 450)
    return kaleido.calc_fig_sync(
        for_export(fig), opts={"format": "png", "width": PNG_WIDTH, "height": height, "scale": 2},
        kopts={"path": browser, "mathjax": False},
    )


#: Characters of a file name made from a figure's title and settings, at most.
STEM_LENGTH = 120


def file_stem(text: str) -> str:
    """A file name from a title as a person reads it: letters and digits kept, every run of
    anything else one underscore, at most :data:`STEM_LENGTH` characters, cut at a word.

    >>> file_stem("Ji & Elkan Fig. 1: estimates vs ε")
    'Ji_Elkan_Fig_1_estimates_vs_ε'
    """
    stem = re.sub(r"[^\w]+|_+", "_", text).strip("_")
    if len(stem) > STEM_LENGTH:
        cut = stem[:STEM_LENGTH]
        stem = cut[:cut.rfind("_")] if "_" in cut else cut
    return stem or "figure"
