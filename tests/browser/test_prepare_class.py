"""``benchmarks/prepare_class.py`` against a real ``streamlit run app.py`` (no browser needed: it
speaks Streamlit's protocol): it walks every view of a page at every ε without an error on any
of them, and says where it could not connect."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dpcore.studies.masking import VIEW_LABELS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "prepare_class.py"
VIEWS = tuple(VIEW_LABELS.values())  # every view of the masking page, in the page's order


def _prepare(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)


def test_prepares_every_view_of_a_page(app_url):
    result = _prepare(app_url, "--pages", "masking")
    assert result.returncode == 0, result.stdout + result.stderr
    shown = [line.split("|")[1].strip().rsplit(" ", 2)[0].strip()
             for line in result.stdout.splitlines() if "|" in line]
    assert shown == list(VIEWS), result.stdout
    assert "Prepared 1 page(s)" in result.stdout


def test_says_what_to_do_without_a_server():
    result = _prepare("http://127.0.0.1:9", "--pages", "masking", "--timeout", "5")
    assert result.returncode == 1
    assert "Is the explorer running there" in result.stderr
