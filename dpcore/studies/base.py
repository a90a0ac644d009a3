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
links and run configs), ``DOMAINS`` (what each control may hold) and ``SEED_KEY``. A study is a
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
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Self, TypeVar

from dpcore.queries import INDICATOR

__all__ = ["Keep", "QueryParams", "StudyParams", "check_prepared", "computed"]

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

    seed: int = 0

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
