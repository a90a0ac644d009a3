"""One study per page of the dashboard: its numbers, computed once for the page, the command
line, exported scripts and presentation mode (:mod:`dpcore.studies.base` says what a study
module holds)."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from dpcore.studies.base import Study

__all__ = ["names", "study"]


@functools.cache
def names() -> tuple[str, ...]:
    """The pages that have a study, in alphabetical order (read from the package once: every
    page's rerun looks its study up)."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules(__path__)
                        if m.name != "base" and not m.name.startswith("_")))


def study(name: str) -> Study:
    """The study module of page ``name`` (``dpcore.studies.<name>``): a
    :class:`~dpcore.studies.base.Study`.

    Raises
    ------
    KeyError
        When no page of that name has a study.
    """
    if name not in names():
        raise KeyError(f"No study for page {name!r}; expected one of {names()}.")
    return cast("Study", importlib.import_module(f"{__name__}.{name}"))
