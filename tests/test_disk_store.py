"""The shared store's tier on disk (``ui/diskstore.py``, issue 35): several server processes
read the built-in results one of them computed; writes are atomic, the size is bounded, a key
is computed once across processes, and nothing computed from an upload is ever written."""

from __future__ import annotations

import dataclasses
import os
import pickle
import threading
import time
from types import SimpleNamespace

import pytest

from dpcore.datasets import load_scenario
from ui import cache, diskstore
from ui.cache import SHARED, content_key
from ui.diskstore import DiskTier

Store = type(SHARED)
KEY = content_key("a study", 1)


def _files(tier: DiskTier, suffix: str = ".pkl") -> list[str]:
    return sorted(name for name in os.listdir(tier.directory) if name.endswith(suffix))


def _never() -> object:
    raise AssertionError("computed again: the value on disk was not read")


def test_a_second_process_reads_what_the_first_computed(tmp_path):
    first, second = (Store(8, DiskTier(tmp_path, version="v")) for _ in range(2))
    value = first.get(KEY, lambda: {"rows": [1, 2, 3]})
    assert second.has(KEY)
    assert second.get(KEY, _never) == value
    assert _files(first.disk) == [KEY + ".pkl"]


def test_results_of_other_code_are_not_read(tmp_path):
    Store(8, DiskTier(tmp_path, version="old")).get(KEY, lambda: "old result")
    assert Store(8, DiskTier(tmp_path, version="new")).get(KEY, lambda: "new") == "new"
    assert diskstore.code_version() == diskstore.code_version()  # the same code: one name


def test_a_write_is_a_rename_of_a_whole_file(tmp_path, monkeypatch):
    tier = DiskTier(tmp_path, version="v")

    def fail(source, target):
        raise OSError("disk full")

    monkeypatch.setattr(diskstore.os, "replace", fail)
    assert tier.save(KEY, list(range(1000))) is False
    assert os.listdir(tier.directory) == []  # no partial file, no temporary left behind
    monkeypatch.undo()
    assert tier.save(KEY, list(range(1000)))
    assert [n for n in os.listdir(tier.directory)] == [KEY + ".pkl"]
    assert tier.load(KEY) == (True, list(range(1000)))


def test_unpicklable_values_and_other_keys_stay_in_memory(tmp_path):
    store = Store(8, DiskTier(tmp_path, version="v"))
    lock = store.get(KEY, threading.Lock)  # pickle cannot write a lock
    assert store.get(KEY, _never) is lock
    assert store.get("not a digest", lambda: 1) == 1
    assert _files(store.disk) == []


def test_an_unreadable_file_counts_as_missing_and_is_removed(tmp_path):
    tier = DiskTier(tmp_path, version="v")
    (tier.directory / (KEY + ".pkl")).write_bytes(b"not a pickle")
    assert tier.load(KEY) == (False, None)
    assert _files(tier) == []


def test_the_least_recently_read_files_go_first_past_the_limit(tmp_path):
    tier = DiskTier(tmp_path, limit_mb=3.5, version="v")
    keys = [content_key("result", i) for i in range(3)]
    for i, key in enumerate(keys):
        assert tier.save(key, bytes(2**20))  # 1 MB each
        path = tier.directory / (key + ".pkl")
        os.utime(path, (1000 + i, 1000 + i))  # written in this order, a second apart
    assert tier.load(keys[0])[0]  # read: now the most recent
    tier.save(content_key("result", 3), bytes(2**20))
    left = set(_files(tier))
    assert keys[0] + ".pkl" in left and keys[1] + ".pkl" not in left
    assert sum((tier.directory / name).stat().st_size for name in left) <= 3.5 * 2**20


def test_a_key_is_computed_once_while_another_process_computes_it(tmp_path, monkeypatch):
    """Two stores on one directory stand for two processes: each opens the lock file itself,
    and ``flock`` locks conflict between two opens of a file as between two processes."""
    waiting = threading.Event()

    def sleep(seconds: float) -> None:  # only a flight that finds the lock held sleeps
        waiting.set()
        time.sleep(seconds)

    monkeypatch.setattr(diskstore, "time", SimpleNamespace(monotonic=time.monotonic,
                                                           sleep=sleep))
    first, second = (Store(8, DiskTier(tmp_path, version="v")) for _ in range(2))
    calls, results = [], []

    def compute() -> str:
        calls.append("first")
        assert waiting.wait(30), "the second process never waited for the lock"
        return "the result"

    threads = [threading.Thread(target=lambda: results.append(first.get(KEY, compute)))]
    threads[0].start()
    while not calls:  # the first process holds the lock
        time.sleep(0.01)
    threads.append(threading.Thread(target=lambda: results.append(second.get(KEY, _never))))
    threads[1].start()
    for thread in threads:
        thread.join(60)
    assert calls == ["first"] and results == ["the result", "the result"]


def test_a_shared_scenario_is_written_once_and_read_back_as_the_same_object(tmp_path):
    held = {"5" * 64: load_scenario("three-gaussians", rng=0)}
    key_of = {id(v): k for k, v in held.items()}
    tier = DiskTier(tmp_path, version="v",
                    references=(lambda obj: key_of.get(id(obj)), held.__getitem__))
    scenario = held["5" * 64]
    assert tier.save("a" * 64, scenario)  # a scenario itself is written out
    assert tier.save(KEY, {"prepared": scenario, "n": 3})
    found, value = tier.load(KEY)
    assert found and value["prepared"] is scenario and value["n"] == 3
    size = (tier.directory / (KEY + ".pkl")).stat().st_size
    assert size < len(pickle.dumps(scenario)) / 10  # a reference, not the tables


def test_uploads_never_reach_the_disk(tmp_path, monkeypatch):
    store = Store(8, DiskTier(tmp_path, version="v"))
    monkeypatch.setattr(cache, "SHARED", store)
    builtin = load_scenario("three-gaussians", rng=0)
    upload = dataclasses.replace(builtin, name="upload")
    marker = "LOAD0123456789AB"
    result = cache.memo(upload, content_key("upload", marker), ("study", marker),
                        lambda: {"column": marker})
    assert result == {"column": marker}
    assert os.listdir(store.disk.directory) == []  # neither a file nor a lock file
    cache.memo(builtin, "builtin id", ("study", 1), lambda: {"column": "x"})
    files = os.listdir(store.disk.directory)
    assert files and all(name.split(".")[0] != marker for name in files)
    assert not any(marker.encode() in (store.disk.directory / n).read_bytes() for n in files)


def test_the_tier_is_off_unless_a_directory_is_set(tmp_path, monkeypatch):
    monkeypatch.delenv(diskstore.DIR_ENV, raising=False)
    assert DiskTier.from_env() is None
    monkeypatch.setenv(diskstore.DIR_ENV, str(tmp_path / "store"))
    monkeypatch.setenv(diskstore.MB_ENV, "10")
    tier = DiskTier.from_env()
    assert tier.limit_bytes == 10 * 2**20 and tier.directory.parent == tmp_path / "store"
    assert (tier.directory.stat().st_mode & 0o777) == 0o700


@pytest.mark.parametrize("key", ["../etc/passwd", "A" * 64, "ab" * 31])
def test_only_digests_name_files(key, tmp_path):
    assert not DiskTier.accepts(key)
    assert DiskTier(tmp_path, version="v").save(key, 1) is False
