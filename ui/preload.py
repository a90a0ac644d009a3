"""Import every module of the app once, in one order, before any page runs.

Streamlit runs each session's script in its own thread. When a fresh server gets several
sessions at once on different pages, their threads import the package's modules in different
orders, and Python's per-module import locks can then deadlock; Python breaks the deadlock by
handing one thread a partially initialised module (``ImportError: cannot import name 'Scenario'
from partially initialized module 'dpcore.datasets'``), and that page shows an exception (seen
under the load test, ``benchmarks/bench_load.py``, with 4 users on 4 pages). ``app.py`` imports
this module first: the first session imports everything in this fixed order while the others
wait on this one module's lock, holding no other, so they cannot deadlock.
"""

from __future__ import annotations

import importlib
import pkgutil

import dpcore
import ui

__all__ = ["MODULES"]


def _walk(package) -> list[str]:
    return [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
            if m.name != __name__ and not m.name.endswith("__main__")]


#: Every module of ``dpcore`` and ``ui``, imported (in this order) when this module is.
MODULES: tuple[str, ...] = tuple(_walk(dpcore) + _walk(ui))
for _name in MODULES:
    importlib.import_module(_name)
