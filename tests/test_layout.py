"""Project layout rules: ``dpcore`` is pure Python and never imports Streamlit; ruff is clean."""

import ast
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
