"""Releases compute one at a time on a server (:func:`ui.release._release_slot`), so that a class's
Publishes do not hold every other session's slider moves; a release waits for the slot, it is
never dropped or run twice."""

from __future__ import annotations

import threading

import pytest

from ui import release


def test_a_release_waits_for_the_slot_then_runs():
    assert release.RELEASES_AT_ONCE == 1
    order: list[str] = []
    entered = threading.Event()

    def publish() -> None:
        with release._release_slot():
            order.append("second release")
            entered.set()

    assert release._RELEASE_SLOTS.acquire(blocking=False)  # another session's release
    try:
        waiting = threading.Thread(target=publish)
        waiting.start()
        assert not entered.wait(0.3)  # held: the second release has not started
        order.append("first release done")
    finally:
        release._RELEASE_SLOTS.release()
    waiting.join(timeout=10)
    assert entered.is_set() and order == ["first release done", "second release"]


def test_a_failed_release_gives_its_slot_back():
    with pytest.raises(RuntimeError), release._release_slot():
        raise RuntimeError("refused")
    assert release._RELEASE_SLOTS.acquire(blocking=False)  # free again
    release._RELEASE_SLOTS.release()
