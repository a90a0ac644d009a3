"""Keys of shared results name the code that computed them (issue 36): a result that other code
computed, kept in this process's memory or on the disk that several processes share, is never
served, as Streamlit's own caches hash a function's code."""

from __future__ import annotations

import shutil
from pathlib import Path

from ui import cache, diskstore
from ui.cache import SharedStore
from ui.diskstore import DiskTier

ROOT = Path(__file__).resolve().parents[1]


def _never() -> object:
    raise AssertionError("computed again: the stored value was not served")


def test_the_version_is_the_code_of_this_checkout():
    assert cache.CODE_VERSION == diskstore.code_version()
    assert cache.shared_key("a study", 1) == cache.content_key(cache.CODE_VERSION, "a study", 1)


def test_another_version_makes_other_keys(monkeypatch):
    keys = (cache.shared_key("a study", 1), cache.memo_key("scenario", ("at", "study", 0.5)))
    monkeypatch.setattr(cache, "CODE_VERSION", "edited")
    assert cache.shared_key("a study", 1) not in keys
    assert cache.memo_key("scenario", ("at", "study", 0.5)) not in keys


def test_a_result_of_other_code_is_not_served_from_memory(monkeypatch):
    monkeypatch.setattr(cache, "SHARED", SharedStore(8))
    parts = ("at", "a study", 0.5)
    assert cache.memo(None, "no scenario", parts, lambda: "the old code's") == "the old code's"
    assert cache.memo(None, "no scenario", parts, _never) == "the old code's"
    monkeypatch.setattr(cache, "CODE_VERSION", "edited")
    assert not cache.is_cached(None, "no scenario", parts)
    assert cache.memo(None, "no scenario", parts, lambda: "the new code's") == "the new code's"


def test_a_result_of_other_code_is_not_served_from_disk(tmp_path, monkeypatch):
    """Another process (its own store) computed a result with other code into the shared
    directory: this process computes its own."""
    parts = ("prepare", "a study", ("lam", 0.1))
    monkeypatch.setattr(cache, "CODE_VERSION", "old")
    monkeypatch.setattr(cache, "SHARED", SharedStore(8, DiskTier(tmp_path, version="v")))
    cache.memo(None, "no scenario", parts, lambda: "the old code's")
    monkeypatch.setattr(cache, "SHARED", SharedStore(8, DiskTier(tmp_path, version="v")))
    assert cache.memo(None, "no scenario", parts, _never) == "the old code's"  # the same code
    monkeypatch.setattr(cache, "CODE_VERSION", "new")
    monkeypatch.setattr(cache, "SHARED", SharedStore(8, DiskTier(tmp_path, version="v")))
    assert cache.memo(None, "no scenario", parts, lambda: "the new code's") == "the new code's"


def _all_but_sources(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n == "__pycache__"
            or (not n.endswith(".py") and (Path(folder) / n).is_file())]


def test_editing_a_study_changes_the_version(tmp_path):
    for top in ("app.py", "dpcore", "ui", "pages"):
        source = ROOT / top
        if source.is_dir():
            shutil.copytree(source, tmp_path / top, ignore=_all_but_sources)
        else:
            shutil.copy(source, tmp_path / top)
    before = diskstore.code_version(tmp_path)
    assert before == diskstore.code_version(ROOT)
    study = tmp_path / "dpcore" / "studies" / "home.py"
    study.write_text(study.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert diskstore.code_version(tmp_path) != before
