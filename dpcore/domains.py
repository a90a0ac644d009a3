"""The values each control of a page can take, so that a value from outside the app is checked.

A page draws each control as a widget with fixed options or a fixed range. A shareable link sets
controls from its query parameters before any widget is drawn, and a page may read a control
before drawing it, so a link's value is checked against the control's domain first: a value
outside it is replaced by the control's default, with a note (``ui/links.py``). Each study
lists its controls' domains in ``DOMAINS``, next to ``CONTROLS``; the sidebar's are
:data:`dpcore.runs.scenarios.DOMAINS`.

A run config (``python -m dpcore run``, :class:`dpcore.runs.RunConfig`) is checked against the
same declarations before anything runs (:func:`check_config`): every key must be a control of
the page, every value in its domain as a run may hold it (:meth:`Domain.in_run`: a number
between the options of a slider, where the page offers a few), a switch ``true`` or ``false``.

A domain is one of

:class:`OneOf`
    A fixed list of options (a select slider, a radio, a select box, a segmented control).
:class:`ViewOf`
    One of a page's views, by key (a segmented control that shows each key's label); a view's
    label, which links and configs held before views had keys, is read as its key.
:class:`Between`
    A number within bounds (a number input or a slider), whole where ``integer``.
:class:`FromData`
    A name or a value read off the scenario's data (a column, a category, a threshold): only
    its type is checked here; the widget checks it against the data when it is drawn.
:class:`NamesFromData`
    A list of such names (the columns of a multiselect).
:class:`NotFromLink`
    A control that a link cannot set (a table editor, whose state Streamlit keeps read-only);
    a run config may hold its edits (:class:`TableEdits`).

A switch (``True``/``False``) needs no domain: the type check of its default is all there is.

Examples
--------
>>> OneOf(EPSILONS).problem(0.15)
'must be one of 0.01, 0.02, 0.03, …, 10'
>>> SEED.problem(-1)
'must be >= 0'
>>> check({"iw_epsilon": OneOf(EPSILONS)}, "iw_epsilon", 0.1)
0.1
>>> OneOf(EPSILONS).in_run().describe()
'a number from 0.01 to 10'
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dpcore.queries import INDICATOR, MAX_CONDITIONS, MEAN, OPERATORS
from dpcore.validation import DataError

__all__ = ["EPSILONS", "LAMBDAS", "SEED", "Between", "Domain", "FromData", "NamesFromData",
           "NotFromLink", "OneOf", "TableEdits", "ViewOf", "check", "check_config",
           "query_domains"]

#: Epsilons offered on every page's ε slider, log-spaced.
EPSILONS = (0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
#: Regularisation strengths offered on every page's λ slider, log-spaced.
LAMBDAS = (0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0,
           3.0, 5.0, 10.0)
_SHOWN = 3  # options named before an ellipsis in a message
_LONGEST = 40  # characters of a value quoted in a message


def _show(value: Any) -> str:
    """A value as a message quotes it: numbers short, words quoted and cut at 40 characters."""
    if isinstance(value, bool):
        return "true" if value else "false"  # as JSON, a config and a link write it
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

    def describe(self) -> str:  # pragma: no cover - overridden
        """What a value must be, in words (``"a whole number from 20 to 200"``)."""
        raise NotImplementedError

    def in_run(self) -> Domain:
        """The values a run config may hold for the control: the same as a link may set,
        unless the domain says otherwise (:meth:`OneOf.in_run`, :meth:`NotFromLink.in_run`)."""
        return self


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True)
class OneOf(Domain):
    """One of fixed ``options`` (None among them where the control may be unset)."""

    options: tuple

    def problem(self, value: Any) -> str | None:
        for option in self.options:
            if value == option and isinstance(value, bool) == isinstance(option, bool):
                return None
        return f"must be {self.describe()}"

    def describe(self) -> str:
        shown = [_show(o) for o in self.options if o is not None]
        if len(shown) > 2 * _SHOWN:
            shown = [*shown[:_SHOWN], "…", shown[-1]]
        return f"one of {', '.join(shown)}"

    def in_run(self) -> Domain:
        """Numbers: any number from the smallest option to the largest (a whole one where
        every option is), since a study computes between a slider's steps (an ε between two
        of the page's); other options: one of them.

        >>> OneOf((20, 50, 100, 200)).in_run()
        Between(low=20, high=200, integer=True, optional=False)
        """
        numbers = [o for o in self.options if o is not None]
        if not numbers or not all(_number(o) for o in numbers):
            return self
        return Between(min(numbers), max(numbers), integer=all(isinstance(o, int) for o in numbers),
                       optional=None in self.options)


@dataclass(frozen=True)
class ViewOf(Domain):
    """One of a page's views: a key of ``labels`` (key → the label the page shows), or a label,
    converted to its key (links and run configs written before views had keys hold labels).

    >>> views = ViewOf({"by_size": "Error vs size", "publish": "Publish"})
    >>> views.problem("Publish") is None, views.convert("Publish")
    (True, 'publish')
    >>> views.problem("Fig. 9")
    "must be one of 'by_size', 'publish'"
    """

    labels: Mapping[str, str]

    def problem(self, value: Any) -> str | None:
        if isinstance(value, str) and (value in self.labels or value in self.labels.values()):
            return None
        return f"must be {self.describe()}"

    def convert(self, value: Any) -> Any:
        return value if value in self.labels else {v: k for k, v in self.labels.items()}[value]

    def describe(self) -> str:
        return OneOf(tuple(self.labels)).describe()


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

    def describe(self) -> str:
        kind = "a whole number" if self.integer else "a number"
        if self.low is not None and self.high is not None:
            text = f"{kind} from {_show(self.low)} to {_show(self.high)}"
        elif self.low is not None:
            text = f"{kind} >= {_show(self.low)}"
        elif self.high is not None:
            text = f"{kind} <= {_show(self.high)}"
        else:
            text = f"a finite {kind.removeprefix('a ')}"
        return f"{text} or null" if self.optional else text


@dataclass(frozen=True)
class FromData(Domain):
    """A name or a value read off the data: a word, a finite number, or None."""

    def problem(self, value: Any) -> str | None:
        if value is None or isinstance(value, str | bool):
            return None
        if isinstance(value, int | float):
            return None if math.isfinite(value) else "must be a finite number"
        return "must be a name or a number"

    def describe(self) -> str:
        return "a name or a number (of the data)"


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

    def describe(self) -> str:
        return "a list of names (of the data)"


@dataclass(frozen=True)
class NotFromLink(Domain):
    """A control that a link cannot set: its widget's state is read-only. Where it is a table
    editor (``columns``, starting from ``rows`` rows), a run config may hold its edits."""

    why: str = "its widget cannot be set from outside"
    columns: tuple[str, ...] = ()
    rows: int = 0

    def problem(self, value: Any) -> str | None:
        return f"a link cannot set it ({self.why})"

    def describe(self) -> str:
        return f"set by its widget only ({self.why})"

    def in_run(self) -> Domain:
        return TableEdits(self.columns, self.rows) if self.columns else self


def _cell(value: Any) -> bool:
    return value is None or isinstance(value, str | bool | int | float)


def _row_number(value: Any, rows: int) -> bool:
    """A row of the starting table, as the editor names it: an index or its digits."""
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < rows


@dataclass(frozen=True)
class TableEdits(Domain):
    """A table editor's state in a run config: its edits of a starting table of ``rows`` rows
    (``edited_rows``: row number -> changed cells, ``added_rows``, ``deleted_rows``), or the
    rows themselves (a list of objects); every cell under one of ``columns``, a plain value.
    What the cells mean is checked where the table is read (the study).

    >>> TableEdits(("epsilon",), 2).problem({"edited_rows": {"0": {"epsilon": 0.2}}}) is None
    True
    >>> print(TableEdits(("epsilon",), 2).problem({"deleted_rows": [5]}))
    must be the table's edits (edited_rows, added_rows, deleted_rows; rows 0 to 1) or a list of \
rows (columns: epsilon)
    """

    columns: tuple[str, ...]
    rows: int

    def _row(self, row: Any) -> bool:
        return (isinstance(row, Mapping) and set(row) <= set(self.columns)
                and all(_cell(v) for v in row.values()))

    def problem(self, value: Any) -> str | None:
        if value is None:
            return None
        if isinstance(value, list | tuple):
            ok = all(self._row(row) for row in value)
        elif isinstance(value, Mapping) and set(value) <= {"edited_rows", "added_rows",
                                                          "deleted_rows"}:
            edited = value.get("edited_rows") or {}
            added = value.get("added_rows") or []
            deleted = value.get("deleted_rows") or []
            ok = (isinstance(edited, Mapping) and isinstance(added, list | tuple)
                  and isinstance(deleted, list | tuple)
                  and all(_row_number(k, self.rows) and self._row(v) for k, v in edited.items())
                  and all(self._row(row) for row in added)
                  and all(_row_number(r, self.rows) for r in deleted))
        else:
            ok = False
        return None if ok else f"must be {self.describe()}"

    def describe(self) -> str:
        return (f"the table's edits (edited_rows, added_rows, deleted_rows; rows 0 to "
                f"{self.rows - 1}) or a list of rows (columns: {', '.join(self.columns)})")


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


def _by_default(default: Any) -> Domain | None:
    """The domain of a control declared without one: a switch's (its default ``True`` or
    ``False``), or a number's type; None where the default says nothing (None, a word)."""
    if isinstance(default, bool):
        return OneOf((True, False))
    if _number(default):
        return Between(integer=isinstance(default, int))
    return None


def check_config(values: Mapping[str, Any], domains: Mapping[str, Domain],
                 defaults: Mapping[str, Any], *, what: str) -> None:
    """Refuse a run config's ``values`` unless every key is a control (a key of ``defaults``)
    and every value lies in that control's domain as a run may hold it (:meth:`Domain.in_run`;
    a control without a domain: its default's type). Every problem is named at once, with the
    key and what it must be, before anything runs.

    Parameters
    ----------
    values : mapping
        The config's values by widget key.
    domains, defaults : mapping
        The controls' domains and defaults (a study's ``DOMAINS`` and ``CONTROLS``).
    what : str
        What the values are, for the message (``"controls of the importance page"``).

    Raises
    ------
    DataError
        Naming every refused key, its value and what it must be.

    Examples
    --------
    >>> check_config({"iw_reps": "abc", "iw_epsilom": 1}, {"iw_reps": OneOf((20, 50, 100))},
    ...              {"iw_reps": 100, "iw_epsilon": 0.1}, what="controls of the importance page")
    Traceback (most recent call last):
    ...
    dpcore.validation.DataError: The config's controls of the importance page cannot run: \
iw_reps == 'abc', must be a whole number from 20 to 100; iw_epsilom is unknown (did you mean \
iw_epsilon?). Fix or drop each (a key left out takes its default).
    """
    problems = []
    for key, value in values.items():
        if key not in defaults:
            near = difflib.get_close_matches(str(key), list(defaults), n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            problems.append(f"{key} is unknown{hint}")
            continue
        domain = domains.get(key) or _by_default(defaults[key])
        if domain is None:
            continue
        domain = domain.in_run()
        if domain.problem(value) is not None:
            problems.append(f"{key} == {_show(value)}, must be {domain.describe()}")
    if problems:
        raise DataError(f"The config's {what} cannot run: {'; '.join(problems)}. Fix or drop "
                        "each (a key left out takes its default).")
