"""Project layout rules: ``dpcore`` is pure Python and never imports Streamlit; ruff is clean."""

import ast
import functools
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_dpcore_source_never_imports_streamlit():
    offenders = []
    for path in sorted((ROOT / "dpcore").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            if any(name.split(".")[0] == "streamlit" for name in names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, f"dpcore must not import streamlit: {offenders}"


def test_importing_every_dpcore_module_leaves_streamlit_unloaded():
    script = (
        "import importlib, pkgutil, sys, dpcore\n"
        "for m in pkgutil.walk_packages(dpcore.__path__, 'dpcore.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] == 'streamlit'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_ruff_finds_nothing():
    """The lint configured in pyproject.toml is part of the test run."""
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


# ------------------------------------------------------------------ the import graph --
# Layers, lowest first: dpcore (the library) < ui (Streamlit helpers) < pages and app.py. A
# module imports only from its own layer or below; within a layer, the graph has no circle.
LAYERS = {"dpcore": 0, "ui": 1, "pages": 2, "app": 2}
# Imports that are deliberately deferred into a function: an optional dependency, or a heavy
# one that a cold start must not pay for (each module says why where it defers).
DEFERRED = {"dask", "dp_accounting", "kaleido", "opendp", "sklearn", "threadpoolctl", "tqdm",
            "fractions"}


def _modules() -> dict[str, Path]:
    found = {"app": ROOT / "app.py"}
    for top in ("dpcore", "ui", "pages"):
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]):
    """(line, imported module of the project or None, imported name, inside a function) of
    every import in ``path``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    functions = (f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef))
    local = {id(node) for f in functions for node in ast.walk(f)
             if isinstance(node, ast.Import | ast.ImportFrom)}

    def owner(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, owner(alias.name), alias.name, id(node) in local
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = owner(full) if full in modules else owner(base)
                if target is None:  # a third-party or standard module: named by its path
                    yield node.lineno, None, base, id(node) in local
                else:  # a module of the project, or a name of one
                    yield (node.lineno, target, alias.name if target != full else "",
                           id(node) in local)


@functools.cache
def _graph():
    modules = _modules()
    return modules, {name: list(_imports(name, path, modules)) for name, path in modules.items()}


def test_no_import_circle_and_no_import_from_a_higher_layer():
    modules, imports = _graph()
    edges = {m: {t for _, t, _, _ in found if t and t != m} for m, found in imports.items()}
    upward = [f"{m} imports {t}" for m, targets in edges.items() for t in targets
              if LAYERS[t.split(".")[0]] > LAYERS[m.split(".")[0]]]
    assert not upward
    # Tarjan's strongly connected components: any component of two or more is a circle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in modules:
        if module not in index:
            visit(module)
    assert not circles


def test_no_private_name_is_imported_from_another_module():
    _, imports = _graph()
    private = [f"{m}:{line} imports {t}.{n}" for m, found in imports.items()
               for line, t, n, _ in found
               if t and t != m and n.startswith("_") and not n.startswith("__")]
    assert not private


def test_imports_inside_functions_only_defer_optional_or_heavy_dependencies():
    _, imports = _graph()
    hidden = [f"{m}:{line} imports {t or n}" for m, found in imports.items()
              for line, t, n, inside in found
              if inside and (t is not None or n.split(".")[0] not in DEFERRED)]
    assert not hidden
