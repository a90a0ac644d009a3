"""Test helper: record, in order, what a release does with the ledger and the noise samplers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import dpcore.release_noise as release_noise
from dpcore.accountant import BudgetAccountant
from dpcore.validation import DataError

#: The float-safe samplers of fresh OS entropy that every release draws its noise through.
SAMPLERS = ("release_laplace", "release_discrete_laplace", "release_gaussian",
            "release_l2_laplace", "release_noisy_max")


def watch_release(monkeypatch: pytest.MonkeyPatch, accountant: BudgetAccountant) -> list[str]:
    """Wrap ``accountant.spend`` and every sampler of :data:`SAMPLERS` so that each call
    appends ``"spend"`` or ``"noise"`` to the list returned (calls still go through)."""
    events: list[str] = []

    def noted(event: str, call: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            events.append(event)
            return call(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(accountant, "spend", noted("spend", accountant.spend))
    for name in SAMPLERS:
        monkeypatch.setattr(release_noise, name, noted("noise", getattr(release_noise, name)))
    return events


def spent_before_noise(events: list[str]) -> bool:
    """Whether the release drew noise and spent before its first draw."""
    return "noise" in events and "spend" in events[:events.index("noise")]


@contextmanager
def refused(monkeypatch: pytest.MonkeyPatch, budget: float, error: type[Exception] = DataError,
            match: str | None = None) -> Iterator[BudgetAccountant]:
    """A ledger of ``budget`` for the block, whose release must raise ``error`` (matching
    ``match``) before it draws any noise and with nothing recorded in the ledger."""
    accountant = BudgetAccountant(epsilon=budget)
    events = watch_release(monkeypatch, accountant)
    with pytest.raises(error, match=match):
        yield accountant
    assert "noise" not in events
    assert len(accountant) == 0
