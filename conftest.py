"""The fast lane: ``python -m pytest -m "not slow and not browser"`` runs the unit and statistical
tests in under a minute. A test that drives the dashboard (``streamlit.testing`` AppTest,
through ``app_support``), starts a process (a server, the CLI, a wheel, loky or Dask workers) or
fuzzes inputs by the hundred is marked ``slow`` here, whatever its module says, so the lane
cannot grow by accident; the README's test command still runs everything.

The suite runs on every core (pytest-xdist, ``-n auto`` in ``pyproject.toml``): the tests of a
real-browser module stay together on one worker (they share the module's server and Chromium),
every other test goes wherever a worker is free. ``-n 0`` runs everything in one
process."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

_APP = ("streamlit.testing", "import app_support")
#: Modules whose every test starts processes: the command line's runs, loky and Dask workers.
_PROCESSES = {"test_cli.py", "test_parallel.py", "test_packaging.py"}
_PROCESS = ("subprocess.", "sys.executable", "loky", "dask")
_BROWSER = "tests/browser/"


def _drives_the_app(path: Path, cache: dict[Path, bool]) -> bool:
    if path not in cache:
        text = path.read_text(encoding="utf-8") if path.suffix == ".py" else ""
        cache[path] = any(marker in text for marker in _APP)
    return cache[path]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's scheduler: a real-browser module is one unit of work (its tests share one
    server and one Chromium, started once per module), every other test a unit of its own."""
    from xdist.scheduler import LoadScopeScheduling

    class BrowserModulesWhole(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid.split("::", 1)[0] if nodeid.startswith(_BROWSER) else nodeid

    return BrowserModulesWhole(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    cache: dict[Path, bool] = {}
    for item in items:
        function = getattr(item, "function", None)
        if function is None:  # a doctest: fast by design
            continue
        source = inspect.getsource(function)
        path = Path(item.path)
        if (_drives_the_app(path, cache) or path.name in _PROCESSES or "fuzz" in item.name
                or any(m in source for m in _PROCESS)):
            item.add_marker(pytest.mark.slow)
