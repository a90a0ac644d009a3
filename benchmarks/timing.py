"""What every benchmark shares: the best of several runs of a callable, stopping a server it
started, and a table as markdown.

Every benchmark imports this module first, so that ``python benchmarks/<name>.py`` runs from a
checkout as the README writes it: the repository root (``dpcore``, ``ui``) goes on the import
path, as an installed ``dpcore`` would be.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

T = TypeVar("T")


def best_of(fn: Callable[[], T], repeat: int = 3) -> tuple[float, T]:
    """``(fastest wall time in seconds, result of the last run)`` over ``repeat`` runs."""
    best, out = float("inf"), None
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def stop(process: subprocess.Popen, timeout: float = 10.0) -> None:
    """Terminate a server the benchmark started, and kill it if it has not stopped after
    ``timeout`` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def markdown(frame: Any) -> str:
    """A DataFrame as a GitHub markdown table (no optional dependency such as tabulate)."""
    cells = [[str(c) for c in frame.columns]] + [[str(v) for v in row]
                                                  for row in frame.itertuples(index=False)]
    lines = ["| " + " | ".join(row) + " |" for row in cells]
    lines.insert(1, "|" + "|".join("---" for _ in frame.columns) + "|")
    return "\n".join(lines)
