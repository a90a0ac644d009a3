"""What every page's study shares: typed parameters keyed like the page's controls.

A study is one module of :mod:`dpcore.studies` per page of the dashboard. It computes the page's
numbers in two stages, so that a slider that changes only the cheap stage redraws fast:

``prepare(scenario, params, *, progress=None, parallel=None)``
    The expensive part (fits, Monte-Carlo grids), which reads every parameter except the
    study's :attr:`StudyParams.CHEAP` ones. A page caches it under
    :meth:`StudyParams.prepare_key`.

    A ``prepare`` may also take ``keep``, a function ``keep(parts, compute)`` that returns
    ``compute()`` kept under ``parts`` (the study names in ``parts`` everything ``compute``
    reads): a page passes one (:func:`ui.study.prepared`) so that work which several prepare
    keys share (the perturbation page's data, splits and non-private reference, which no λ
    changes) is computed once; without it (:func:`computed`) everything is computed.
``at(prepared, params)``
    The cheap part: the tables the page shows at the cheap parameters (usually ε), by name.
``compute(scenario, params, *, progress=None, parallel=None)``
    Both, in one call: what ``python -m dpcore run``, an exported script and presentation mode
    call (:func:`dpcore.runs.run`).
``takeaway(numbers, params)``
    Two sentences on what the numbers show.

Each module defines ``Params`` (a subclass of :class:`StudyParams`, one field per control of its
page, with the page's defaults), ``CONTROLS`` (the same defaults by widget key: the contract of
links and run configs), ``DOMAINS`` (what each control may hold), ``SEED_KEY`` and
``VIEW_LABELS``: the page's views by key, with the label the page shows for each (empty for a
page of one view). Code names a view by its key; a ``view`` field holds a key, and reads a label
(of a link or a run config written before views had keys) as its key
(:meth:`StudyParams.view_key`). :class:`Study` is this contract, typed: what the page, the
command line, exported scripts, presentation mode and the decision report call. A study is a
seeded simulation that spends no budget; releases are made elsewhere (a page's Publish view).

Examples
--------
>>> from dataclasses import dataclass
>>> @dataclass(frozen=True, kw_only=True)
... class Params(StudyParams):
...     PREFIX = "ex_"
...     epsilon: float = 1.0
...     lambda_: float = 0.1
>>> params = Params.from_controls({"ex_epsilon": "0.5", "other_key": 3}, seed=7)
>>> params
Params(seed=7, epsilon=0.5, lambda_=0.1)
>>> params.controls()
{'ex_epsilon': 0.5, 'ex_lambda': 0.1}
>>> params.prepare_key() == params.replace(epsilon=2.0).prepare_key()
True
>>> Params.seed_key()
'ex_seed'

A page with views declares them by key, with their labels:

>>> @dataclass(frozen=True, kw_only=True)
... class Viewed(StudyParams):
...     PREFIX = "vw_"
...     VIEW_LABELS = {"by_size": "Error vs size", "publish": "Publish"}
...     view: str = "by_size"
>>> Viewed(view="Publish").view  # a label, as an old link holds it, is read as its key
'publish'
>>> Viewed(view=None).view  # a view chooser with nothing chosen shows the first view
'by_size'
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self, TypeVar

from dpcore.queries import INDICATOR

if TYPE_CHECKING:
    import pandas as pd

    from dpcore.domains import Domain
    from dpcore.simulation import Progress

__all__ = ["Keep", "QueryParams", "Study", "StudyParams", "check_prepared", "computed"]

T = TypeVar("T")
#: ``keep(parts, compute)``: ``compute()``, kept under ``parts`` (a ``prepare``'s shared stages).
Keep = Callable[[tuple, Callable[[], T]], T]

_COERCE = {"float": float, "int": int, "str": str, "bool": bool}


@dataclasses.dataclass(frozen=True, kw_only=True)
class StudyParams:
    """Base of a study's parameters: one field per control of its page, and the study seed.

    Subclasses are frozen, keyword-only dataclasses whose field ``name`` is the page's control
    ``PREFIX + name``, with the page's default; a trailing underscore is dropped (field
    ``lambda_`` is control ``PREFIX + "lambda"``, as ``lambda`` is a Python keyword), and
    :attr:`KEYS` names the controls of other widgets (the sidebar's budget). A field declared
    with ``metadata={"control": False}`` is an input that is not a control (the session's ledger
    records): it is neither read from nor written to the controls.

    Parameters
    ----------
    seed : int
        The page's simulation seed (every random stream of the study derives from it).
    """

    #: The page's widget-key prefix (``"lr_"``); empty for a page without controls.
    PREFIX: ClassVar[str] = ""
    #: Fields that only ``at`` reads (``prepare`` ignores them).
    CHEAP: ClassVar[tuple[str, ...]] = ("epsilon",)
    #: Fields whose widget key is not ``PREFIX + name``, with their key.
    KEYS: ClassVar[dict[str, str]] = {}
    #: The page's views, key → the label the page shows, in the page's order (the module's
    #: ``VIEW_LABELS``); empty for a page of one view. A page with views has a ``view`` field.
    VIEW_LABELS: ClassVar[Mapping[str, str]] = {}

    seed: int = 0

    def __post_init__(self) -> None:
        if self.VIEW_LABELS:
            object.__setattr__(self, "view", self.view_key(self.view))  # type: ignore[attr-defined]

    @classmethod
    def view_key(cls, value: str | None) -> str:
        """The key of the view ``value`` names: its key, or its label (what a link or a run
        config written before views had keys holds); None (a view chooser with nothing chosen)
        is the first view.

        Raises
        ------
        ValueError
            When ``value`` names none of the page's views.
        """
        if value is None:
            return next(iter(cls.VIEW_LABELS))
        if value in cls.VIEW_LABELS:
            return value
        for key, label in cls.VIEW_LABELS.items():
            if value == label:
                return key
        raise ValueError(f"{cls.key('view')} == {value!r}; choose one of "
                         f"{list(cls.VIEW_LABELS)}.")

    @classmethod
    def _fields(cls) -> list[dataclasses.Field]:
        """The fields that are controls (all but the seed and inputs marked as no control)."""
        return [f for f in dataclasses.fields(cls)
                if f.name != "seed" and f.metadata.get("control", True)]

    @classmethod
    def key(cls, name: str) -> str:
        """The widget key of field ``name`` (``"lambda_"`` → ``"<prefix>lambda"``)."""
        return cls.KEYS.get(name, cls.PREFIX + name.removesuffix("_"))

    @classmethod
    def from_controls(cls, controls: Mapping[str, Any], seed: int = 0) -> Self:
        """The parameters of a page's control values (missing keys take the defaults).

        Numbers are converted to the field's type (``"0.5"`` or ``numpy.float64(0.5)`` become
        ``0.5``); keys of other pages are ignored.
        """
        hints = typing.get_type_hints(cls)
        values: dict[str, Any] = {}
        for f in cls._fields():
            key = cls.key(f.name)
            if key not in controls:
                continue
            value = controls[key]
            kind = _COERCE.get(getattr(hints[f.name], "__name__", ""))
            if value is not None and kind is not None and not isinstance(value, kind):
                value = kind(value)
            values[f.name] = value
        return cls(seed=int(seed), **values)

    @classmethod
    def seed_key(cls) -> str | None:
        """The widget key of the page's seed, or None for a page without one."""
        return f"{cls.PREFIX}seed" if cls.PREFIX else None

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every control's default by widget key (a module's ``CONTROLS``)."""
        return cls().controls()

    def controls(self) -> dict[str, Any]:
        """The parameters as the page's control values, by widget key."""
        return {self.key(f.name): getattr(self, f.name) for f in self._fields()}

    def prepare_key(self) -> tuple:
        """What ``prepare`` reads: every field but :attr:`CHEAP`, with the seed."""
        return (type(self).__qualname__, self.seed,
                *((f.name, getattr(self, f.name)) for f in dataclasses.fields(self)
                  if f.name != "seed" and f.name not in self.CHEAP))

    def replace(self, **changes: Any) -> Self:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass(frozen=True, kw_only=True)
class QueryParams:
    """The query builder's controls (``<prefix>q_*``), for a study whose page asks a query of
    the data (:func:`dpcore.queries.query_from_controls`): the kind, a mean's column, and up to
    three conditions combined by "and" or "or"."""

    q_kind: str = INDICATOR
    q_mean_column: str | None = None
    q_n: int = 1
    q_combine: str = "and"
    q_col_0: str | None = None
    q_op_0: str | None = None
    q_value_0: float | str | None = None
    q_col_1: str | None = None
    q_op_1: str | None = None
    q_value_1: float | str | None = None
    q_col_2: str | None = None
    q_op_2: str | None = None
    q_value_2: float | str | None = None


def check_prepared(key: tuple, params: StudyParams) -> None:
    """Refuse a prepared part made for other parameters than ``params``.

    Raises
    ------
    ValueError
        When ``key`` (the prepared part's :meth:`StudyParams.prepare_key`) is not ``params``'.
    """
    if key != params.prepare_key():
        raise ValueError("prepared was computed for other parameters; call "
                         "prepare(scenario, params) with these params (only the cheap ones, "
                         "such as epsilon, may differ).")


def computed(parts: tuple, compute: Callable[[], T]) -> T:
    """``compute()``, kept nowhere: the :data:`Keep` of a ``prepare`` called without one."""
    del parts
    return compute()


class Study(Protocol):
    """What every study module (``dpcore.studies.<page>``) provides: the contract that the page
    (:mod:`ui.study`), ``python -m dpcore run`` and exported scripts (:func:`dpcore.runs.run`),
    presentation mode and the decision report (:mod:`dpcore.decision`) call.

    A module satisfies it structurally (``tests/test_study_contract.py`` checks every study):
    its functions take at least these parameters, of the same kinds, and require no other.
    ``prepare`` may take more keyword arguments with defaults (``keep``: a :data:`Keep`).
    """

    __name__: str
    #: The page's parameters (a :class:`StudyParams`: its controls' keys, prefix and defaults).
    Params: type[StudyParams]
    #: Every control's default by widget key (``Params.defaults()``).
    CONTROLS: Mapping[str, Any]
    #: The values each control may hold, by widget key (:mod:`dpcore.domains`).
    DOMAINS: Mapping[str, Domain]
    #: The widget key of the page's seed (``Params.seed_key()``), None for a page without one.
    SEED_KEY: str | None
    #: The page's views, key → label, in order (``Params.VIEW_LABELS``); empty for one view.
    VIEW_LABELS: Mapping[str, str]

    def prepare(self, scenario: Any, params: Any, *, progress: Progress = None,
                parallel: Any = None) -> Any:
        """The expensive stage: everything ``at`` reads but the cheap parameters."""

    def at(self, prepared: Any, params: Any) -> dict[str, pd.DataFrame]:
        """The cheap stage: the page's tables at ``params``, by name."""

    def compute(self, scenario: Any, params: Any, *, progress: Progress = None,
                parallel: Any = None) -> dict[str, pd.DataFrame]:
        """Both stages: ``at(prepare(scenario, params), params)``."""

    def takeaway(self, numbers: Mapping[str, pd.DataFrame], params: Any) -> str:
        """Two sentences on what ``numbers`` show."""
