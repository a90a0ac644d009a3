"""Releases compute one at a time on a server (:func:`ui.release._release_slot`), so that a class's
Publishes do not hold every other session's slider moves; a release waits for the slot, it is
never dropped or run twice."""

from __future__ import annotations

import contextlib
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


def test_a_run_cut_short_while_the_wait_message_closes_gives_its_slot_back(monkeypatch):
    """The wait's spinner closes with a Streamlit call, where a rerun request can cut the run
    short: the slot just taken is given back."""

    class Cut(Exception):
        pass

    @contextlib.contextmanager
    def spinner(text):
        yield
        raise Cut  # as Streamlit's RerunException at the spinner's last call

    monkeypatch.setattr(release.st, "spinner", spinner)
    assert release._RELEASE_SLOTS.acquire(blocking=False)  # another session's release
    threading.Timer(0.2, release._RELEASE_SLOTS.release).start()  # ends soon
    with pytest.raises(Cut), release._release_slot():
        pass
    assert release._RELEASE_SLOTS.acquire(blocking=False)  # free again
    release._RELEASE_SLOTS.release()
