"""The values each control of a page can take, so that a value from outside the app is checked.

A page draws each control as a widget with fixed options or a fixed range. A shareable link sets
controls from its query parameters before any widget is drawn, and a page may read a control
before drawing it, so a link's value is checked against the control's domain first: a value
outside it is replaced by the control's default, with a note (``ui/links.py``). Each study
lists its controls' domains in ``DOMAINS``, next to ``CONTROLS``; the sidebar's are
:data:`dpcore.runs.scenarios.DOMAINS`.

A domain is one of

:class:`OneOf`
    A fixed list of options (a select slider, a radio, a select box, a segmented control).
:class:`Between`
    A number within bounds (a number input or a slider), whole where ``integer``.
:class:`FromData`
    A name or a value read off the scenario's data (a column, a category, a threshold): only
    its type is checked here; the widget checks it against the data when it is drawn.
:class:`NamesFromData`
    A list of such names (the columns of a multiselect).
:class:`NotFromLink`
    A control that a link cannot set (a table editor, whose state Streamlit keeps read-only).

A switch (``True``/``False``) needs no domain: the type check of its default is all there is.

Examples
--------
>>> OneOf(EPSILONS).problem(0.15)
'must be one of 0.01, 0.02, 0.03, …, 10'
>>> SEED.problem(-1)
'must be >= 0'
>>> check({"iw_epsilon": OneOf(EPSILONS)}, "iw_epsilon", 0.1)
0.1
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dpcore.queries import INDICATOR, MAX_CONDITIONS, MEAN, OPERATORS

__all__ = ["EPSILONS", "LAMBDAS", "SEED", "Between", "Domain", "FromData", "NamesFromData",
           "NotFromLink",
           "OneOf", "check", "query_domains"]

#: Epsilons offered on every page's ε slider, log-spaced.
EPSILONS = (0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
#: Regularisation strengths offered on every page's λ slider, log-spaced.
LAMBDAS = (0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0,
           3.0, 5.0, 10.0)
_SHOWN = 3  # options named before an ellipsis in a message
_LONGEST = 40  # characters of a value quoted in a message


def _show(value: Any) -> str:
    """A value as a message quotes it: numbers short, words quoted and cut at 40 characters."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return repr(value if len(value) <= _LONGEST else value[:_LONGEST - 1] + "…")
    text = str(value)
    return text if len(text) <= _LONGEST else text[:_LONGEST - 1] + "…"


class Domain:
    """The values a control can take; :meth:`problem` says what is wrong with a value."""

    def problem(self, value: Any) -> str | None:  # pragma: no cover - overridden
        """None when ``value`` is in the domain, else what it must be (``"must be ..."``)."""
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        """``value`` (in the domain) as the control holds it."""
        return value


@dataclass(frozen=True)
class OneOf(Domain):
    """One of fixed ``options`` (None among them where the control may be unset)."""

    options: tuple

    def problem(self, value: Any) -> str | None:
        for option in self.options:
            if value == option and isinstance(value, bool) == isinstance(option, bool):
                return None
        shown = [_show(o) for o in self.options if o is not None]
        if len(shown) > 2 * _SHOWN:
            shown = [*shown[:_SHOWN], "…", shown[-1]]
        return f"must be one of {', '.join(shown)}"


@dataclass(frozen=True)
class Between(Domain):
    """A finite number in ``[low, high]`` (either end may be open: None), whole where
    ``integer``; None too where ``optional``."""

    low: float | None = None
    high: float | None = None
    integer: bool = False
    optional: bool = False

    def problem(self, value: Any) -> str | None:
        if value is None:
            return None if self.optional else "must be a number"
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number"
        if not math.isfinite(value):
            return "must be a finite number"
        if self.integer and value != int(value):
            return "must be a whole number"
        if self.low is not None and value < self.low:
            return f"must be >= {_show(self.low)}"
        if self.high is not None and value > self.high:
            return f"must be <= {_show(self.high)}"
        return None

    def convert(self, value: Any) -> Any:
        return int(value) if self.integer and value is not None else value


@dataclass(frozen=True)
class FromData(Domain):
    """A name or a value read off the data: a word, a finite number, or None."""

    def problem(self, value: Any) -> str | None:
        if value is None or isinstance(value, str | bool):
            return None
        if isinstance(value, int | float):
            return None if math.isfinite(value) else "must be a finite number"
        return "must be a name or a number"


class NamesFromData(Domain):
    """A list of names read off the data (columns chosen in a multiselect): only the type of
    each is checked here."""

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, list | tuple):
            return "must be a list of names"
        for item in value:
            if FromData().problem(item) is not None or item is None:
                return "must be a list of names"
        return None


@dataclass(frozen=True)
class NotFromLink(Domain):
    """A control that a link cannot set: its widget's state is read-only."""

    why: str = "its widget cannot be set from outside"

    def problem(self, value: Any) -> str | None:
        return f"a link cannot set it ({self.why})"


#: A page's simulation seed (``ui.widgets.seed_input``).
SEED = Between(0, 2**31 - 1, integer=True)


def query_domains(prefix: str) -> dict[str, Domain]:
    """The domains of the query builder's controls (``ui/query.py``) under ``prefix``."""
    domains: dict[str, Domain] = {
        f"{prefix}_kind": OneOf((INDICATOR, MEAN)),
        f"{prefix}_n": Between(1, MAX_CONDITIONS, integer=True),
        f"{prefix}_combine": OneOf(("and", "or")),
        f"{prefix}_mean_column": FromData(),
    }
    for i in range(MAX_CONDITIONS):
        domains[f"{prefix}_col_{i}"] = FromData()
        domains[f"{prefix}_op_{i}"] = OneOf((None, *OPERATORS))
        domains[f"{prefix}_value_{i}"] = FromData()
    return domains


def check(domains: Mapping[str, Domain], key: str, value: Any) -> Any:
    """``value`` checked against the domain of the control ``key`` and converted to it (a whole
    number as an int); a key without a domain takes any value.

    Raises
    ------
    ValueError
        When the value is outside the domain, saying what it must be, in scikit-learn's voice.

    Examples
    --------
    >>> check({"au_runs": Between(1, 10, integer=True)}, "au_runs", 3.0)
    3
    >>> check({"au_runs": Between(1, 10, integer=True)}, "au_runs", 0)
    Traceback (most recent call last):
    ...
    ValueError: au_runs == 0, must be >= 1
    """
    domain = domains.get(key)
    if domain is None:
        return value
    found = domain.problem(value)
    if found is not None:
        raise ValueError(f"{key} == {_show(value)}, {found}")
    return domain.convert(value)
