"""Project layout rules: ``dpcore`` is pure Python and never imports Streamlit; the import graph
(every import counted) has no circle, no arrow back up the layers and no import from the face
of its own package; the server imports the pages' libraries by name; ruff is clean."""

import ast
import functools
import importlib.machinery
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

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
# dpcore's own layers, lowest first, as docs/architecture.md draws them: a module of dpcore
# imports only from its own layer or below. Each entry is a top-level module or package of
# dpcore ("" is the package's face, dpcore/__init__.py, which imports nothing but _version).
DPCORE_LAYERS = (
    {"", "_version", "validation", "random", "text", "rows", "threads"},
    {"datasets", "queries", "domains"},
    {"mechanisms", "release_noise", "noise", "logistic", "model_selection", "simulation",
     "parallel"},
    {"composition", "accountant"},
    {"importance", "perturbation", "masking", "subset"},
    {"planning", "audit", "audit_float", "primer"},
    {"releases"},
    {"studies"},
    {"figures"},
    {"runs"},
    {"decision"},
    {"cli", "__main__"},
)
# Imports that are deliberately deferred into a function: an optional dependency, or a heavy
# one that a cold start must not pay for (each module says why where it defers).
DEFERRED = {"dask", "dp_accounting", "kaleido", "opendp", "sklearn", "threadpoolctl", "tqdm",
            "fractions"}


class Import(NamedTuple):
    """One name (or module) imported by one statement.

    ``module`` is the module of the project that holds the name (None: from outside, then
    ``name`` is the dotted path of what is imported, a module or a name of one); ``name`` the
    name imported from it ("" for ``from P import module``, the dotted name for ``import
    a.b``); ``named`` the module the statement names (``from P import x``: P); ``edges`` every
    module of the project that the statement runs or waits on: the module it names and, for
    ``import a.b``, the package ``a`` it binds (``import a.b.c as x``: ``a`` and ``a.b``, whose
    faces it reads ``c`` through); the module ``x`` of ``from P import x``; and
    the packages above the named module that the importer is not inside (Python runs them
    first). An import under ``if TYPE_CHECKING:`` never runs and is not listed.
    """

    line: int
    module: str | None
    name: str
    inside: bool
    named: str
    edges: frozenset[str]


def _modules() -> dict[str, Path]:
    found = {"app": ROOT / "app.py"}
    for top in ("dpcore", "ui", "pages"):
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _type_checking(tree: ast.Module) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:``."""
    blocks = (node for node in ast.walk(tree) if isinstance(node, ast.If)
              and "TYPE_CHECKING" in ast.unparse(node.test))
    return {id(n) for block in blocks for stmt in block.body for n in ast.walk(stmt)}


def _imports(name: str, path: Path, modules: dict[str, Path]):
    """Every :class:`Import` of ``path``, the module ``name``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    above = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
    functions = (f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef))
    local = {id(node) for f in functions for node in ast.walk(f)
             if isinstance(node, ast.Import | ast.ImportFrom)}
    skipped = _type_checking(tree)

    def owner(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    def runs(named: str) -> set[str]:
        """The named module (its owner) and the packages above it outside the importer's."""
        parts = named.split(".")
        parents = {".".join(parts[:i]) for i in range(1, len(parts))}
        return {m for m in (parents - above) | {owner(named)} if m in modules}

    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        inside = id(node) in local
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                # ``import a.b.c as x`` reads b from a's face and c from b's as it binds x
                bound = parts[:-1] if alias.asname else parts[:1]
                edges = runs(alias.name) | ({".".join(parts[:i]) for i in range(1, len(bound) + 1)}
                                            & set(modules))
                yield Import(node.lineno, owner(alias.name), alias.name, inside, alias.name,
                             frozenset(edges))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                edges = runs(base) | ({full} & set(modules))
                target = owner(full) if full in modules else owner(base)
                if target is None:  # a third-party or standard module: named by its path
                    yield Import(node.lineno, None, full, inside, base, frozenset())
                else:  # a module of the project, or a name of one
                    yield Import(node.lineno, target, alias.name if target != full else "",
                                 inside, base, frozenset(edges))


@functools.cache
def _graph():
    modules = _modules()
    return modules, {name: list(_imports(name, path, modules)) for name, path in modules.items()}


def _layer(module: str) -> tuple[int, int]:
    """The layer of ``module``: its top package's, then, in dpcore, its own."""
    top, _, rest = module.partition(".")
    if top != "dpcore":
        return LAYERS[top], 0
    unit = rest.partition(".")[0]
    for layer, units in enumerate(DPCORE_LAYERS):
        if unit in units:
            return LAYERS[top], layer
    raise AssertionError(f"dpcore.{unit} has no layer: add it to DPCORE_LAYERS, where "
                         "docs/architecture.md draws it")


def test_no_import_circle_and_no_import_from_a_higher_layer():
    modules, imports = _graph()
    edges = {m: {t for i in found for t in i.edges if t != m} for m, found in imports.items()}
    upward = sorted(f"{m} imports {t}" for m, targets in edges.items() for t in targets
                    if _layer(t) > _layer(m))
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
    private = [f"{m}:{i.line} imports {i.module}.{i.name}" for m, found in imports.items()
               for i in found if i.module and i.module != m and i.name.startswith("_")
               and not i.name.startswith("__")]
    assert not private


def test_imports_inside_functions_only_defer_optional_or_heavy_dependencies():
    _, imports = _graph()
    hidden = [f"{m}:{i.line} imports {i.module or i.name}" for m, found in imports.items()
              for i in found
              if i.inside and (i.module is not None or i.name.split(".")[0] not in DEFERRED)]
    assert not hidden


def test_no_module_imports_from_the_face_of_its_own_package():
    """``from dpcore import x`` inside dpcore (or ``from ui import x`` inside ui) waits on the
    package's face, and an eager face waits on its modules: two threads importing at once
    then each hold the lock the other needs. Inside a package, import from the module that
    defines the name."""
    _, imports = _graph()
    offenders = [f"{m}:{i.line} imports from {i.named}" for m, found in imports.items()
                 for i in found if m.startswith(f"{i.named}.")]
    assert not offenders


def test_each_face_imports_only_modules_that_import_nothing_of_the_project():
    """Importing ``dpcore`` (or ``ui``) imports nothing heavy: its names come on first use
    (``dpcore.__getattr__``)."""
    _, imports = _graph()
    faces = {top: {t for i in imports[top] for t in i.edges if t != top}
             for top in ("dpcore", "ui")}
    assert faces["dpcore"] == {"dpcore._version"} and faces["ui"] == set()
    assert all(not any(i.edges for i in imports[t]) for face in faces.values() for t in face)


def _installed_module(dotted: str) -> bool:
    """Whether ``dotted`` names an installed module (looked up on disk: nothing is imported)."""
    parts = dotted.split(".")
    path = None
    for end in range(1, len(parts) + 1):
        if end > 1 and path is None:  # the part before is a module, not a package
            return False
        spec = importlib.machinery.PathFinder.find_spec(".".join(parts[:end]), path)
        if spec is None:
            return False
        path = spec.submodule_search_locations
    return True


def test_the_server_imports_by_name_the_libraries_that_the_pages_import():
    """``ui.warm.LIBRARIES`` (imported when the server starts, before two sessions could import
    one at once) names each third-party module that the pages' modules import, as they are
    imported or in a function, and nothing else: not Streamlit (the server itself), nor the
    optional extras that a server may lack (``pyproject.toml``: kaleido, dask), which are
    imported in a function when first used."""
    from ui.warm import LIBRARIES

    modules, imports = _graph()
    reached, todo = set(), ["app", *(m for m in modules if m.startswith("pages."))]
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo += [t for i in imports[module] for t in i.edges]
    needed = {i.name if _installed_module(i.name) else i.named
              for m in reached for i in imports[m] if i.module is None and i.named.split(".")[0]
              not in {*sys.stdlib_module_names, "streamlit", "kaleido", "dask"}}
    covered = {".".join(lib.split(".")[:end]) for lib in LIBRARIES
               for end in range(1, lib.count(".") + 2)}
    assert needed <= covered, f"not imported at start: {sorted(needed - covered)}"
    assert set(LIBRARIES) <= needed, f"not imported by the pages: {set(LIBRARIES) - needed}"
