"""What the tests that start a server share: its output read line by line (stopping it is
:func:`benchmarks.timing.stop`, the benchmarks' own)."""

from __future__ import annotations

import queue
import subprocess
import threading

__all__ = ["output_lines"]


def output_lines(process: subprocess.Popen) -> tuple[queue.Queue, threading.Thread]:
    """``process``'s output (text mode), line by line, read by a daemon thread into a queue that
    ends with None once the output closes; the thread, to join after the process stops."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return lines, reader

