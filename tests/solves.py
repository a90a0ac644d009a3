"""Test helper: count the linear terms each batched solve of a module receives."""

from __future__ import annotations

from types import ModuleType

import pytest


def count_solves(monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str) -> list[int]:
    """Wrap ``module.name`` (a solver called with ``linear=``, one column per problem) so that
    each call appends its number of problems to the list returned."""
    solves: list[int] = []
    original = getattr(module, name)

    def counted(problem, *, linear, **kwargs):
        solves.append(linear.shape[1])
        return original(problem, linear=linear, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return solves
