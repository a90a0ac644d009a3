"""The cache every session shares computes each result once, also when sessions ask at once
(issue 26: a class opening the same page together); sessions starting together import the app's
modules without deadlock (``tests/test_import_threads.py``)."""

from __future__ import annotations

import threading
import time

import pytest

from ui.cache import SHARED

Store = type(SHARED)


def test_sessions_asking_at_once_compute_once_and_get_the_same_object():
    store, calls, results = Store(8), [], []
    start = threading.Barrier(6)

    def compute() -> object:
        calls.append(1)
        time.sleep(0.2)  # long enough for the other five to arrive while it runs
        return object()

    def session() -> None:
        start.wait()
        results.append(store.get("study", compute))

    threads = [threading.Thread(target=session) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(calls) == 1 and len(results) == 6
    assert all(r is results[0] for r in results)
    assert not store.pending  # nothing left waiting


def test_a_failed_computation_is_not_kept_and_the_next_caller_computes_again():
    store = Store(8)

    def fail() -> object:
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        store.get("k", fail)
    assert store.get("k", lambda: 42) == 42 and not store.pending
