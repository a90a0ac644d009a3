"""Computing ahead (:mod:`ui.prefetch`): the neighbouring ε values land in the shared store
under the page's own keys, the work is bounded, and values the person has left are dropped."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from ui import prefetch
from ui.cache import SHARED

OPTIONS = (0.5, 1.0, 2.0, 3.0, 5.0)


@pytest.fixture(autouse=True)
def idle_machine(monkeypatch):
    """The tests run on a busy machine (the suite on every core): say it has a core free, as
    an idle server would; :func:`test_nothing_is_computed_ahead_on_a_busy_machine` says not."""
    monkeypatch.setattr(prefetch, "idle_core", lambda: True)


@pytest.fixture
def key_of():
    """Keys unique to the test (the shared store outlives it)."""
    run = uuid.uuid4().hex
    return lambda option: f"{run}:{option}"


def settle(timeout: float = 20.0) -> None:
    """Wait until nothing is computed ahead or waiting (without taking anything off)."""
    deadline = time.monotonic() + timeout
    while prefetch.pending():
        assert time.monotonic() < deadline, "computing ahead did not finish"
        time.sleep(0.01)


def test_the_neighbours_are_computed_into_the_shared_store(key_of):
    calls: list[float] = []

    def compute_at(option):
        calls.append(option)
        return {"value": option * 10}

    assert prefetch.ahead(2.0, OPTIONS, key_of, compute_at) == [3.0, 1.0]  # larger first
    settle()
    assert calls == [3.0, 1.0]
    for option in (3.0, 1.0):
        assert SHARED.get(key_of(option), lambda: pytest.fail("not computed")) == {
            "value": option * 10}
    # computed once: a second call finds both in the store
    assert prefetch.ahead(2.0, OPTIONS, key_of, compute_at) == []


def test_the_ends_of_the_slider_and_values_off_it(key_of):
    assert prefetch.ahead(5.0, OPTIONS, key_of, lambda o: o) == [3.0]
    assert prefetch.ahead(0.7, OPTIONS, key_of, lambda o: o) == []
    settle()


def test_a_failing_computation_is_left_to_the_page(key_of):
    def fail(option):
        raise ValueError("bad")

    prefetch.ahead(1.0, OPTIONS, key_of, fail)
    settle()
    assert key_of(2.0) not in SHARED.values and prefetch.pending() == []


def test_waiting_values_are_bounded_and_dropped_when_the_person_moves_on(key_of):
    started, release = threading.Event(), threading.Event()

    def slow(option):
        started.set()
        release.wait(10)
        return option

    try:
        assert prefetch.ahead(1.0, OPTIONS, key_of, slow) == [2.0, 0.5]
        assert started.wait(10)  # 2.0 runs, 0.5 waits
        assert prefetch.ahead(3.0, OPTIONS, key_of, slow) == [5.0]  # 2.0 is already running
        waiting = prefetch.pending()
        assert key_of(0.5) not in waiting  # left behind: dropped before it started
        assert waiting == [key_of(2.0), key_of(5.0)]
        assert len(waiting) <= prefetch.MAX_PENDING
        prefetch.wait_for(key_of(5.0))  # only waiting: taken off the queue, no wait
        assert key_of(5.0) not in prefetch.pending()
    finally:
        release.set()
    prefetch.wait_for(key_of(2.0))
    assert SHARED.get(key_of(2.0), lambda: pytest.fail("not computed")) == 2.0
    assert key_of(0.5) not in SHARED.values and key_of(5.0) not in SHARED.values


def test_at_most_max_pending_values(key_of):
    release = threading.Event()
    try:
        keys = [f"{key_of(0)}:{i}" for i in range(10)]
        queued = []
        for i in range(0, 10, 2):  # a slider of 10 values, moved two steps each time
            options = list(range(10))
            queued += prefetch.ahead(i, options, lambda o: keys[o],
                                     lambda o: release.wait(10))
            assert len(prefetch.pending()) <= prefetch.MAX_PENDING
        assert queued
    finally:
        release.set()
    settle()


def fake_study(name: str, options: tuple[float, ...], result):
    """A study whose ``at`` is slow and returns ``result(params)``, its ε slider offering
    ``options``."""
    from dpcore.domains import OneOf

    class Study:
        __name__ = name
        DOMAINS = {"ex_epsilon": OneOf(options)}  # the slider's values

        @staticmethod
        def prepare(scenario, params, progress=None):
            return "prepared"

        @staticmethod
        def at(prepared, params):
            time.sleep(prefetch.SLOW_SECONDS + 0.05)
            return result(params)

    return Study


def fake_page(options: tuple[float, ...]):
    """A study whose ``at`` is slow and whose ε ``prepare`` does not read, on a slider of
    ``options``, its parameters, and a check of what was computed ahead."""
    from ui.cache import memo_key

    run = uuid.uuid4().hex

    class Params:
        PREFIX = "ex_"

        def __init__(self, epsilon):
            self.epsilon = epsilon

        def replace(self, epsilon):
            return Params(epsilon)

        def prepare_key(self):
            return ("fake", run)

        def __repr__(self):
            return f"Params({run}, {self.epsilon})"

    Study = fake_study(f"fake study {run}", options, lambda p: {"epsilon": p.epsilon})

    def computed_ahead(e):
        key = memo_key("no scenario", ("at", Study.__name__, Params(e)))
        return SHARED.values.get(key) == {"epsilon": e}

    return Study, Params, computed_ahead


def test_a_slow_epsilon_move_of_a_page_computes_its_neighbours_ahead():
    """:func:`ui.study.numbers` after a slow move: the slider's neighbouring ε are then in the
    shared store under the page's keys, with the numbers the page would compute."""
    from dpcore.domains import EPSILONS
    from ui import study as page_study

    Study, Params, computed_ahead = fake_page(EPSILONS)
    here = EPSILONS.index(1.0)
    assert page_study.numbers(Study, None, None, Params(1.0), bar=False) == {"epsilon": 1.0}
    settle()
    assert computed_ahead(EPSILONS[here - 1]) and computed_ahead(EPSILONS[here + 1])
    assert not computed_ahead(EPSILONS[here + 2])
    # the next move is a hit (computed ahead), and keeps the next value coming
    start = time.perf_counter()
    assert page_study.numbers(Study, None, None, Params(EPSILONS[here + 1]), bar=False) == {
        "epsilon": EPSILONS[here + 1]}
    assert time.perf_counter() - start < prefetch.SLOW_SECONDS
    settle()
    assert computed_ahead(EPSILONS[here + 2])


def test_the_neighbours_are_the_pages_own_slider_values():
    """A page whose slider offers other values (the masking page's 0.1, 0.2, 0.5, …) gets its
    own neighbours computed, not those of the common ε list."""
    from ui import study as page_study

    Study, Params, computed_ahead = fake_page((0.1, 0.2, 0.5, 20.0))
    page_study.numbers(Study, None, None, Params(0.2), bar=False)
    settle()
    assert computed_ahead(0.1) and computed_ahead(0.5)
    assert not computed_ahead(0.3) and not computed_ahead(0.03)


def test_nothing_is_computed_ahead_on_a_busy_machine(key_of, monkeypatch):
    # issue 26: under a class's load every cycle goes to what people asked for
    monkeypatch.setattr(prefetch, "idle_core", lambda: False)
    assert prefetch.ahead(1.0, OPTIONS, key_of, lambda option: option) == []
    assert not prefetch.pending()


def write_stat(path, idle: int, busy: int) -> None:
    """A ``/proc/stat`` whose first line has ``busy`` user ticks and ``idle`` idle ticks."""
    path.write_text(f"cpu  {busy} 0 0 {idle} 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n")


def test_the_idle_meter_reads_the_idle_cores_of_the_last_window(tmp_path, monkeypatch):
    stat = tmp_path / "stat"
    clock = [100.0]
    monkeypatch.setattr(prefetch.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(prefetch.os, "cpu_count", lambda: 2)
    meter = prefetch.IdleMeter(str(stat))
    write_stat(stat, idle=1000, busy=1000)
    assert meter.cores() is None  # no window yet
    write_stat(stat, idle=1030, busy=1170)  # 30 of 200 ticks idle: 0.3 of 2 cores
    clock[0] += prefetch.IDLE_WINDOW / 2
    assert meter.cores() is None  # the window has not passed: not read again
    clock[0] += prefetch.IDLE_WINDOW
    assert meter.cores() == pytest.approx(0.3)
    write_stat(stat, idle=1180, busy=1220)  # then 150 of 200 ticks idle: 1.5 cores
    clock[0] += prefetch.IDLE_WINDOW / 2
    assert meter.cores() == pytest.approx(0.3)  # the last window's, until a new one has passed
    clock[0] += prefetch.IDLE_WINDOW
    assert meter.cores() == pytest.approx(1.5)


def test_the_idle_meter_without_proc_stat_falls_back_to_the_load_average(tmp_path,
                                                                         monkeypatch):
    monkeypatch.undo()  # the real idle_core()
    monkeypatch.setattr(prefetch, "_IDLE", prefetch.IdleMeter(str(tmp_path / "missing")))
    monkeypatch.setattr(prefetch.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(prefetch.os, "getloadavg", lambda: (8.0, 0.0, 0.0))
    assert not prefetch.idle_core()
    monkeypatch.setattr(prefetch.os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    assert prefetch.idle_core()


def test_busy_reads_the_load_average_against_the_cores(monkeypatch):
    monkeypatch.undo()  # the real busy()
    monkeypatch.setattr(prefetch.os, "getloadavg", lambda: (8.0, 0.0, 0.0))
    monkeypatch.setattr(prefetch.os, "cpu_count", lambda: 2)
    assert prefetch.busy()
    monkeypatch.setattr(prefetch.os, "getloadavg", lambda: (0.5, 0.0, 0.0))
    assert not prefetch.busy()


def test_a_slow_seed_move_computes_the_next_seeds_ahead():
    """A simulation seed moved alone (its "+" button) computes the next seed ahead; a move of
    ε then returns to the ε slider's next value in the direction of the move."""
    from dataclasses import dataclass, replace

    from dpcore.domains import EPSILONS
    from ui import study as page_study
    from ui.cache import memo_key

    run = uuid.uuid4().hex

    @dataclass(frozen=True)
    class Params:
        PREFIX = "ex_"
        epsilon: float = 1.0
        seed: int = 5

        def replace(self, **changes):
            return replace(self, **changes)

        def prepare_key(self):
            return ("fake seeded", run)

    Study = fake_study(f"fake seeded study {run}", EPSILONS,
                       lambda p: {"epsilon": p.epsilon, "seed": p.seed})

    def computed_ahead(params):
        key = memo_key("no scenario", ("at", Study.__name__, params))
        return SHARED.values.get(key) == {"epsilon": params.epsilon, "seed": params.seed}

    page_study.numbers(Study, None, None, Params(), bar=False)
    settle()
    page_study.numbers(Study, None, None, Params(seed=6), bar=False)  # the seed moved up alone
    settle()
    assert computed_ahead(Params(seed=7))  # the next one up, not the one just left (5 was shown)
    assert not computed_ahead(Params(seed=4)) and not computed_ahead(Params(seed=8))
    assert not computed_ahead(Params(seed=6, epsilon=EPSILONS[EPSILONS.index(1.0) + 1]))
    start = time.perf_counter()  # the next "+" is a hit
    assert page_study.numbers(Study, None, None, Params(seed=7), bar=False)["seed"] == 7
    assert time.perf_counter() - start < prefetch.SLOW_SECONDS
    settle()
    assert computed_ahead(Params(seed=8))  # and keeps the next seed coming
    page_study.numbers(Study, None, None, Params(seed=7, epsilon=2.0), bar=False)  # ε moved up
    settle()
    assert computed_ahead(Params(seed=7, epsilon=3.0)) and not computed_ahead(Params(seed=9))


def test_a_known_direction_computes_only_the_next_value_that_way(key_of):
    assert prefetch.ahead(2.0, OPTIONS, key_of, lambda o: o, direction=1) == [3.0]
    settle()
    assert prefetch.ahead(2.0, OPTIONS, lambda o: key_of(f"down {o}"), lambda o: o,
                          direction=-1) == [1.0]
    settle()
    assert prefetch.ahead(0.5, OPTIONS, lambda o: key_of(f"end {o}"), lambda o: o,
                          direction=-1) == []


def test_nothing_is_computed_ahead_while_someone_waits_for_a_computation(key_of):
    # a class on the server: every cycle goes to the people waiting
    with prefetch.serving():
        assert prefetch.serving_now() == 1
        assert prefetch.ahead(1.0, OPTIONS, key_of, lambda option: option) == []
    assert prefetch.serving_now() == 0
    assert prefetch.ahead(1.0, OPTIONS, key_of, lambda option: option) == [2.0, 0.5]
    settle()
