"""Where results are cached: the one rule that keeps uploaded data out of shared caches.

Two stores, on purpose:

* Built-in scenarios and what is computed from them go to :data:`SHARED`, a store that every
  session of the server process shares. That is fine for data
  that ships with the project.
* With ``EXPLORER_SHARED_DIR`` set (several server processes, ``scripts/serve_class.py``),
  :data:`SHARED` has a second tier on disk that every process reads (:mod:`ui.diskstore`):
  only what enters :data:`SHARED` goes there, so built-in results only.
* Uploads are private data. Nothing computed from them goes into a shared cache, onto disk or
  into a log: :func:`session_memo` keeps it in this session's ``st.session_state`` only, keyed
  by a SHA-256 of the bytes and options, and it goes with the session.

Every key of a shared result, and of a study's result in a session, names the code that computed
it (:func:`shared_key`, :data:`CODE_VERSION`), as Streamlit's own caches hash a function's code:
a result of other code (a study edited since) is never served.

:func:`memo` routes a result to one or the other by the scenario's origin; every page caches its
studies through it. Releases are never cached at all (see :mod:`ui.release`).
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar, cast

import streamlit as st

from dpcore.datasets import Scenario, list_scenarios, load_scenario
from ui.diskstore import DiskTier, code_version

T = TypeVar("T")

_MEMO_KEY = "_upload_memo"
_MEMO_SIZE = 48  # files, scenarios and study results of one session; oldest dropped first
#: The version of the code that computes the results kept here: a digest of the app's sources
#: (``dpcore``, ``ui``, ``pages``, ``app.py``) and of the Python, NumPy and pandas releases
#: (:func:`ui.diskstore.code_version`), computed once, when this module is imported (an edit
#: of any module makes Streamlit import the app's modules again, this one included).
CODE_VERSION = code_version()


def content_key(*parts: object) -> str:
    """SHA-256 over ``parts`` (bytes as they are, anything else by ``repr``), length-prefixed."""
    digest = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode()
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def shared_key(*parts: object) -> str:
    """The key of a result that this code computes from ``parts``: :func:`content_key` of
    :data:`CODE_VERSION` and ``parts``. Every key of :data:`SHARED` is one, so a result that
    other code computed (kept in memory or on disk) is never served."""
    return content_key(CODE_VERSION, *parts)


def session_memo_has(key: str) -> bool:
    """Whether this session's memory holds a result under ``key``."""
    return key in st.session_state.get(_MEMO_KEY, {})


def session_memo(key: str, compute: Callable[[], T]) -> T:
    """``compute()``, remembered under ``key`` in this session only (for private uploads).

    Errors are not remembered. The value is shared between reruns: callers must not mutate it.
    """
    memo: dict[str, object] = st.session_state.setdefault(_MEMO_KEY, {})
    if key not in memo:
        memo[key] = compute()
        while len(memo) > _MEMO_SIZE:
            del memo[next(iter(memo))]
    return cast("T", memo[key])


class SharedStore:
    """A bounded, thread-safe store shared by every session of the server process.

    Used instead of ``st.cache_resource`` because a study may draw a progress bar while it
    computes, which Streamlit's caches would try to replay on every hit. Only results of
    built-in scenarios may enter (see :func:`memo`). With a ``disk`` tier, a result missing
    from memory is read from disk before it is computed, and a computed one is written there,
    under a lock that the other processes wait for (:mod:`ui.diskstore`).
    """

    def __init__(self, size: int, disk: DiskTier | None = None) -> None:
        self.size = size
        self.disk = disk
        self.values: OrderedDict[str, object] = OrderedDict()
        self.lock = threading.Lock()
        self.pending: dict[str, threading.Event] = {}

    def in_memory(self, key: str) -> bool:
        """Whether the value under ``key`` is in this process's memory (read under the lock)."""
        with self.lock:
            return key in self.values

    def has(self, key: str) -> bool:
        """Whether the value under ``key`` is stored (a :meth:`get` returns it at once)."""
        return self.in_memory(key) or (self.disk is not None and self.disk.has(key))

    def get(self, key: str, compute: Callable[[], T]) -> T:
        """The value under ``key``, computed once: a session that asks while another computes
        it waits for that result instead of computing it again (a class opening the same
        page at once computes each study once)."""
        while True:
            with self.lock:
                if key in self.values:
                    self.values.move_to_end(key)
                    return cast("T", self.values[key])
                pending = self.pending.get(key)
                owner = pending is None
                if owner:
                    pending = self.pending[key] = threading.Event()
            if owner:
                break
            pending.wait()  # then look again: the owner stored it, or failed and it is ours
        try:
            value = self._fetch(key, compute)  # outside the lock: other keys keep going
            with self.lock:
                self.values[key] = value
                while len(self.values) > self.size:
                    self.values.popitem(last=False)
        finally:
            with self.lock:
                del self.pending[key]
            pending.set()
        return value

    def _fetch(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, or the disk tier's value when a process has computed it (waiting
        for one that computes it now)."""
        disk = self.disk
        if disk is None or not disk.accepts(key):
            return compute()
        found, value = disk.load(key)
        if not found:
            with disk.flight(key):
                found, value = disk.load(key)  # computed by the process we waited for
                if not found:
                    value = compute()
                    disk.save(key, value)
        return cast("T", value)


#: The built-in scenarios that :func:`load_builtin` loaded, by their key in :data:`SHARED` (so the
#: disk tier writes a result that holds one as a reference to it: :mod:`ui.diskstore`).
_SCENARIOS: weakref.WeakValueDictionary[str, Scenario] = weakref.WeakValueDictionary()
_SCENARIO_KEYS: dict[int, str] = {}
_SCENARIOS_LOCK = threading.Lock()


def _scenario_key(obj: object) -> str | None:
    """The key under which ``obj`` was loaded, when it is a built-in scenario still held."""
    if not isinstance(obj, Scenario):
        return None
    with _SCENARIOS_LOCK:
        key = _SCENARIO_KEYS.get(id(obj))
        return key if key is not None and _SCENARIOS.get(key) is obj else None


def _remember(key: str, scenario: Scenario) -> Scenario:
    with _SCENARIOS_LOCK:
        _SCENARIOS[key] = scenario
        _SCENARIO_KEYS[id(scenario)] = key
    return scenario


def _shared_value(key: str) -> object:
    """A value that a result on disk refers to (a built-in scenario), from the store."""
    def missing() -> object:
        raise LookupError("a shared value that a result on disk refers to is gone")
    return SHARED.get(key, missing)


#: Results of built-in scenarios, shared across sessions (read-only objects). Preparing a class
#: (four pages, every view at every ε: ``docs/class.md``) stores some 520 (the numbers and the
#: figures of 257 views; 160 MB beyond the pages' first views); with room for 96, the walk
#: evicted what it had computed first.
SHARED = SharedStore(1024, DiskTier.from_env(version=CODE_VERSION,
                                             references=(_scenario_key, _shared_value)))


def load_builtin(
    name: str,
    *,
    seed: int | None,
    public: str = "default",
    encoding: str | None = None,
    p: int | None = None,
    shift: str | None = None,
) -> Scenario:
    """Load built-in scenario ``name``; ``seed=None`` means the scenario's own fixed seed.

    Shared across sessions without a copy (st.cache_data would unpickle Adult on every rerun):
    callers must not mutate it. ``encoding``, ``p`` and ``shift`` are passed on only when given
    (only some scenarios take them).
    """
    given = {"encoding": encoding, "p": p, "shift": shift}
    options = {key: value for key, value in given.items() if value is not None}
    key = shared_key("builtin scenario", name, seed, public, sorted(options.items()))
    return _remember(key, SHARED.get(
        key, lambda: load_scenario(name, rng=seed, public=public, **options)))


def memo_key(scenario_id: str, parts: tuple) -> str:
    """The key under which :func:`memo` keeps a result of ``parts`` for the scenario (a
    :func:`shared_key`: it names the code that computes the result)."""
    return shared_key(scenario_id, *map(repr, parts))


def is_builtin(scenario: Scenario | None) -> bool:
    """Whether the scenario ships with the project (so its results may be shared); None stands
    for data a study builds itself from built-in definitions (synthetic data)."""
    return scenario is None or (scenario.name in list_scenarios() and scenario.name != "upload")


def is_cached(scenario: Scenario | None, scenario_id: str, parts: tuple) -> bool:
    """Whether :func:`memo` holds a result for ``parts`` (so a page can skip its progress bar)."""
    key = memo_key(scenario_id, parts)
    if is_builtin(scenario):
        return SHARED.has(key)
    return session_memo_has(key)


def memo(scenario: Scenario | None, scenario_id: str, parts: tuple, compute: Callable[[], T]) -> T:
    """``compute()`` cached under the scenario's id and ``parts``, in the right store.

    Results of a built-in scenario go to a cache shared by every session (read-only objects:
    callers must not mutate them); results of uploaded data stay in this session's memory.
    """
    key = memo_key(scenario_id, parts)
    if is_builtin(scenario):
        return SHARED.get(key, compute)
    return session_memo(key, compute)
