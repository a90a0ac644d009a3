"""Sessions of a fresh server import the app's modules at once, and none of them fails.

Streamlit runs each session's script in a thread of its own, so the visitors who open pages
together on a fresh server import the app's modules together, each page in its own order.
Python's per-module import locks deadlock on an import circle, including one through a
package's face (``from dpcore import x`` inside dpcore while an eager ``dpcore/__init__.py``
imports its modules); Python breaks the deadlock by handing one thread a partially initialised
module, and that page shows an ``ImportError``. A third-party library can fail the same way when
first imported by several threads (pandas did), which is why the server imports those by name
before it serves anyone (:func:`ui.warm.import_libraries`).

One fresh interpreter does what ``streamlit run app.py`` does before it serves anyone (it
imports ``ui.warm`` and the third-party libraries), then forks 20 times: each child is a server
as it starts, none of the pages' modules imported, and runs the import statements of every page
(``pages/*.py``: the app's own modules, as the page imports them) in a thread of its own, the
threads released at once and switching as often as the interpreter allows.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import dpcore

ROOT = Path(__file__).resolve().parents[1]
#: Servers as they start (forks of one fresh interpreter), each with a thread per page.
RUNS = 20

#: In a fresh interpreter whose working directory is the project: prints, for each of ``RUNS``
#: (its argument) forked children, the errors that its threads met, as a JSON list on a line.
SCRIPT = r"""
import ast, json, os, sys, threading
from pathlib import Path

import streamlit  # noqa: F401  (the server)
from ui.warm import import_libraries

import_libraries()


def page_imports(path):
    tree = ast.parse(path.read_text())
    body = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)
            and (node.module if isinstance(node, ast.ImportFrom) else node.names[0].name)
            .split(".")[0] in {"dpcore", "ui"}]
    return compile(ast.Module(body=body, type_ignores=[]), str(path), "exec")


def open_pages(pages):
    start = threading.Barrier(len(pages))
    errors = []

    def open_page(name, code):
        start.wait()
        try:
            exec(code, {"__name__": f"pages.{name}"})
        except BaseException as exc:
            errors.append(f"{name}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=open_page, args=item) for item in pages.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


pages = {path.stem: page_imports(path) for path in sorted(Path("pages").glob("*.py"))}
for _ in range(int(sys.argv[1])):
    child = os.fork()
    if child == 0:
        sys.setswitchinterval(1e-6)
        print(json.dumps(open_pages(pages)), flush=True)
        os._exit(0)
    os.waitpid(child, 0)
"""


@pytest.mark.slow
def test_pages_opened_at_once_on_a_fresh_server_import_without_error():
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(RUNS)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    runs = [json.loads(line) for line in out.stdout.splitlines()]
    failed = [errors for errors in runs if errors]
    assert len(runs) == RUNS and not failed, f"{len(failed)} of {len(runs)} runs failed: {failed}"


@pytest.mark.slow
def test_importing_dpcore_imports_nothing_else():
    code = "import sys, dpcore; print(sorted(m for m in sys.modules if 'dpcore' in m))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["['dpcore',", "'dpcore._version']"]


def test_the_public_names_come_from_their_modules_on_first_use():
    from dpcore import Laplace, load_scenario
    from dpcore.datasets import load_scenario as defined
    from dpcore.mechanisms import Laplace as mechanism

    assert (Laplace, load_scenario) == (mechanism, defined)
    assert set(dpcore.__all__) <= set(dir(dpcore))
    assert all(getattr(dpcore, name) is not None for name in dpcore.__all__)
    assert dpcore.runs is sys.modules["dpcore.runs"]  # a module, imported on first use
    with pytest.raises(AttributeError, match="no attribute 'Laplacian'"):
        dpcore.Laplacian  # noqa: B018
