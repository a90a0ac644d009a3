"""Figures built once and drawn again and again: by every rerun and every session that asks.

A page that redraws on every slider move pays three times for a figure it has drawn before:
plotly builds it (validating every property), Streamlit copies it into a dictionary
(``Figure.to_dict``, a deep copy) and encodes it. For the greedy animation of the masking page
that was 0.5 s to build and 0.17 s to copy, per ε move and per student. A :class:`Snapshot`
keeps the figure as the dictionary Streamlit sends, made once; it is cached beside the numbers
it draws (:func:`ui.study.figures`: shared by every session for built-in data, this session's
memory for an upload), so a move to a value someone has seen only encodes it.

A snapshot is read-only: it is titled in a copy (:meth:`Snapshot.titled`), never in place, and
its downloads build a new figure from a copy of its dictionary.
"""

from __future__ import annotations

import copy

import plotly.graph_objects as go

from dpcore.figures.common import title_update

__all__ = ["Snapshot"]


class _Spec(go.Figure):
    """A figure that hands Streamlit a dictionary made in advance.

    ``st.plotly_chart`` reads a figure through ``to_dict`` (then encodes it); this one returns
    ``spec`` itself, shared, without the deep copy. Nothing else may read or change it (its
    plotly properties are empty): it exists only to be passed to ``st.plotly_chart``.
    ``tests/test_snapshot.py`` checks that Streamlit sends the same chart for it as for the
    figure it was made from.
    """

    def __init__(self, spec: dict) -> None:
        super().__init__()
        self._spec = spec

    def to_dict(self) -> dict:
        """The dictionary made in advance (not a copy: read-only)."""
        return self._spec

    def to_plotly_json(self) -> dict:
        """As :meth:`to_dict`."""
        return self._spec


class Snapshot:
    """A figure frozen as the dictionary that Streamlit draws.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure, copied once (``to_dict``); later changes to it do not reach the snapshot.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> shot = Snapshot(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])))
    >>> drawn = shot.titled("Error", "ε = 1")
    >>> drawn.to_dict()["layout"]["title"]["text"].startswith("Error<br>")
    True
    >>> "title" in shot.spec["layout"], shot.titled("Error", "ε = 1") is drawn
    (False, True)
    """

    def __init__(self, fig: go.Figure) -> None:
        self.spec = fig.to_dict()
        self._drawn: dict[tuple[str, str] | None, _Spec] = {}

    def __getstate__(self) -> dict:
        return {"spec": self.spec}  # what is drawn is made again from it

    def __setstate__(self, state: dict) -> None:
        self.spec, self._drawn = state["spec"], {}

    def titled(self, title: str, context: str = "") -> go.Figure:
        """The figure with ``title`` and ``context`` in its title (as
        :func:`dpcore.figures.common.titled`), for ``st.plotly_chart`` only. The layout is
        copied, the traces and frames shared; each title is made once per snapshot (two
        sessions that make it at once make the same, and one is kept)."""
        drawn = self._drawn.get((title, context))
        if drawn is None:
            layout = self.spec.get("layout", {})
            margin = layout.get("margin") or {}
            update = title_update(layout.get("title") or {}, margin.get("t"), title, context)
            spec = self.spec | {"layout": layout | {"title": update["title"],
                                                    "margin": margin | update["margin"]}}
            drawn = self._drawn.setdefault((title, context), _Spec(spec))
        return drawn

    def untitled(self) -> go.Figure:
        """The figure as frozen, for ``st.plotly_chart`` only (a panel titled by its row)."""
        drawn = self._drawn.get(None)
        return drawn if drawn is not None else self._drawn.setdefault(None, _Spec(self.spec))

    def figure(self) -> go.Figure:
        """A new, independent figure of the snapshot (for a download: built when clicked)."""
        return go.Figure(copy.deepcopy(self.spec))
