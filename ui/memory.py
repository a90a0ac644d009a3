"""The server's memory: refuse a new upload politely when the machine is short of it.

A class shares one server, and each upload lives in its session's memory (parsed, encoded and
studied: about ten times the file's size) until the session ends, when Streamlit drops the
session's state (``server.disconnectedSessionTTL`` after the tab closes, 120 s by default).
Rather than let the operating system kill the server, with every student's session in it, a new
upload is refused with a message while the server's resident memory plus that estimate would
pass a limit: ``EXPLORER_MEMORY_LIMIT_MB`` if set, else 80 % of the machine's memory.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["LIMIT_ENV", "UPLOAD_FACTOR", "limit_mb", "refusal", "resident_mb"]

LIMIT_ENV = "EXPLORER_MEMORY_LIMIT_MB"
#: Memory an upload takes in its session, per byte of the file (parsed table, encoded copies
#: and the studies' arrays; measured on the load test's 20,000-row file: about 10).
UPLOAD_FACTOR = 10
_SHARE_OF_MACHINE = 0.8


def resident_mb() -> float:
    """This process's resident memory in MB (Linux ``/proc``; 0 where it cannot be read)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def limit_mb() -> float:
    """The limit: ``$EXPLORER_MEMORY_LIMIT_MB``, else 80 % of the machine's memory (infinite
    where neither can be read)."""
    given = os.environ.get(LIMIT_ENV)
    if given:
        try:
            return float(given)
        except ValueError:
            pass
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return _SHARE_OF_MACHINE * int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return float("inf")


def refusal(size_bytes: int) -> str | None:
    """Why an upload of ``size_bytes`` is refused now, or None when there is room for it."""
    need = UPLOAD_FACTOR * size_bytes / 2**20
    used, limit = resident_mb(), limit_mb()
    if used + need <= limit:
        return None
    return (f"The server is short of memory ({used:,.0f} MB in use, limit {limit:,.0f} MB), so "
            f"this upload (about {need:.2g} MB once read) is refused to keep every other "
            "session running. Try again in a few minutes, when other sessions have ended, use "
            "a smaller file, or ask whoever runs the server to raise "
            f"{LIMIT_ENV}.")
