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
import os
from pathlib import Path
from typing import Any

import pytest

# One BLAS thread per process, set before anything imports NumPy (worker processes, the servers
# and the command lines that tests start inherit it): two xdist workers on two cores, each with
# OpenBLAS threads of its own, oversubscribe them (the fast lane: 57 s with them, 51 s without).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

_APP = ("streamlit.testing", "import app_support")
#: Modules whose every test starts processes: the command line's runs, loky and Dask workers.
_PROCESSES = {"test_cli.py", "test_parallel.py", "test_packaging.py"}
_PROCESS = ("subprocess.", "sys.executable", "loky", "dask")
_BROWSER = "tests/browser/"
#: A module marked slow as a whole (its imports alone cost the fast lane time).
_SLOW_MODULE = "pytestmark = pytest.mark.slow"


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


def _rejected(config: pytest.Config, *marks: set[str]) -> bool:
    """Whether ``-m`` deselects a test with any of these sets of marks."""
    expression = config.getoption("markexpr")
    if not expression:
        return False
    from _pytest.mark.expression import Expression

    compiled = Expression.compile(expression)
    return not any(compiled.evaluate(lambda name, m=m, **_: name in m) for m in marks)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A module whose every test ``-m`` deselects is not even imported (the fast lane leaves
    out the real-browser modules and the modules that drive the app or start processes)."""
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    if _BROWSER in collection_path.as_posix():
        return _rejected(config, {"browser"}, {"browser", "slow"}) or None
    if (_drives_the_app(collection_path, {}) or collection_path.name in _PROCESSES
            or _SLOW_MODULE in collection_path.read_text(encoding="utf-8")):
        return _rejected(config, {"slow"}) or None
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    cache: dict[Path, bool] = {}
    sources: dict[Any, str] = {}  # one read per function, not per parametrised case
    for item in items:
        function = getattr(item, "function", None)
        if function is None:  # a doctest: fast by design
            continue
        if function not in sources:
            sources[function] = inspect.getsource(function)
        path = Path(item.path)
        if (_drives_the_app(path, cache) or path.name in _PROCESSES or "fuzz" in item.name
                or any(m in sources[function] for m in _PROCESS)):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def numpy_model() -> None:
    """Skip a test that relies on the exact model of numpy's Laplace sampler when the model no
    longer reproduces numpy's draws: ``test_the_model_reproduces_numpy_laplace_bit_for_bit``
    then fails alone, with the reason, instead of every test built on the model."""
    from dpcore.audit_float import model_matches_numpy

    if model_matches_numpy(1.0, 20_000):
        pytest.skip("numpy's Laplace sampler no longer matches dpcore.audit_float's model: see "
                    "test_the_model_reproduces_numpy_laplace_bit_for_bit.")
