"""Caching of scenarios, keyed on content with the seed as an explicit argument.

Two stores, on purpose:

* Built-in scenarios go through ``st.cache_data``, which is shared by every session of the
  server process. That is fine for data that ships with the project.
* Uploads are private data. They never go into ``st.cache_data`` (another session could be served
  them), onto disk or into a log: :func:`session_memo` keeps results in this session's
  ``st.session_state`` only, keyed by a SHA-256 of the bytes and options, and drops them with
  the session.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TypeVar, cast

import streamlit as st

from dpcore.datasets import Scenario, load_scenario

T = TypeVar("T")

_MEMO_KEY = "_upload_memo"
_MEMO_SIZE = 32  # files, scenarios and study results of one session; oldest dropped first


@st.cache_data(show_spinner="Loading the scenario…", max_entries=16)
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

    ``encoding``, ``p`` and ``shift`` are passed on only when given (only some scenarios take them).
    """
    given = {"encoding": encoding, "p": p, "shift": shift}
    options = {key: value for key, value in given.items() if value is not None}
    return load_scenario(name, rng=seed, public=public, **options)


def content_key(*parts: object) -> str:
    """SHA-256 over ``parts`` (bytes as they are, anything else by ``repr``), length-prefixed."""
    digest = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode()
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


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
