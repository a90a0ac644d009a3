"""No link, config, script or download holds anything computed from a private file (issue 21,
section 3).

A private file's SHA-256 in a link let an attacker who knew all of its rows but one find the last
by hashing candidates (14,012 hashes). So a public and a private file are uploaded (every private
row carries markers found nowhere in the public file, :func:`app_support.marked_files`), every
page of the router is visited, one release is published, and every link (the query parameters),
every download (the run's config and script, every figure as HTML, the release and the ledger,
with their file names) and the command line shown beside them is searched for

* the private file's SHA-256, and any prefix of it of 8 hex digits or more;
* the scenario's cache id (a hash over the uploaded bytes), and its prefixes;
* every private row's markers.

None may appear. The public file's digest may, and does (the positive control that the search
finds digests). A single file split into public and private rows is named only, too.
"""

from __future__ import annotations

import gc
import hashlib
import json

import app_support
import pytest
from app_support import marked_files, no_cyclic_gc  # noqa: F401 (pytestmark)
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

import ui.export
import ui.registry
import ui.runconfig
import ui.sidebar
from dpcore import DataError
from dpcore.runs import RunConfig, build_scenario, script, shareable_files

# Downloads are looked up after each run among the objects the garbage collector tracks.
pytestmark = pytest.mark.usefixtures("no_cyclic_gc")
TIMEOUT = 180
PAGES = [page.path for page in ui.registry.PAGES]
PREFIX = 8  # the shortest prefix of a digest searched for


def _downloads(at: AppTest) -> dict[str, bytes]:
    """Every download button's file, by label, file name and id: its content (a deferred one is
    built, as a click does; a PNG is an image with no text to search, its name only)."""
    stores = [s for s in gc.get_objects() if isinstance(s, MemoryMediaFileStorage)]
    managers = [m for m in gc.get_objects() if isinstance(m, MediaFileManager)]
    found = {}
    for button in at.get("download_button"):
        proto = button.proto
        if proto.deferred_file_id:
            entries = [m._deferred_callables[proto.deferred_file_id] for m in managers
                       if proto.deferred_file_id in m._deferred_callables]
            assert entries, f"download {proto.label!r} is not registered"
            name = f"{proto.label} {entries[0]['filename']} {proto.id}"
            if proto.label == "PNG":
                found[name] = b""
                continue
            data = entries[0]["callable"]()
            found[name] = data.encode() if isinstance(data, str) else bytes(data)
            continue
        file_id = proto.url.rsplit("/", 1)[-1].split(".")[0]
        files = [s._files_by_id[file_id] for s in stores if file_id in s._files_by_id]
        assert files, f"download {proto.label!r} not found in the media store"
        found[f"{proto.label} {files[0].filename} {proto.url} {proto.id}"] = files[0].content
    return found


def _shared(at: AppTest) -> dict[str, bytes]:
    """What a page lets a user share: its link, its downloads and the command lines shown."""
    shared = {"link": json.dumps(dict(at.query_params), ensure_ascii=False).encode()}
    shared.update(_downloads(at))
    for i, code in enumerate(at.get("code")):
        shared[f"code {i}"] = code.proto.code_text.encode()
    return shared


def _forbidden(private: bytes, scenario_id: str, markers: list[str]) -> list[str]:
    digest = hashlib.sha256(private).hexdigest()
    return [digest[:PREFIX], digest[-PREFIX:], scenario_id[:PREFIX], scenario_id[-PREFIX:],
            *markers]


def _leaks(shared: dict[str, bytes], forbidden: list[str]) -> list[str]:
    leaks = []
    for name, content in shared.items():
        text = (name.encode() + b" " + content).lower()
        leaks += [f"{name}: {f}" for f in forbidden if f.lower().encode() in text]
    return leaks


def test_no_link_config_script_or_download_holds_anything_of_the_private_file():
    public, private, markers = marked_files()
    at = app_support.upload_marked(public, private, timeout=TIMEOUT)
    forbidden = _forbidden(private, at.session_state["scenario_id"], markers)
    public_digest = hashlib.sha256(public).hexdigest()
    seen: dict[str, bytes] = {}
    for page in PAGES:
        at.switch_page(page)
        app_support.rerun(at, allow_errors=True)
        seen.update({f"{page} {name}": content for name, content in _shared(at).items()})
        if page == "pages/importance.py":  # one release: its CSV and the ledger
            app_support.show_view(at, "Publish", key="iw_view")
            at.button(key="publish_importance").click()
            app_support.rerun(at)
            assert len(at.session_state["_budget_accountant"]) == 1, "nothing was published"
            seen.update({f"{page} published {name}": content
                         for name, content in _shared(at).items()})
            app_support.show_view(at, "Estimates vs ε", key="iw_view")
    leaks = _leaks(seen, forbidden)
    print(f"\nscanned {len(seen)} links, downloads and command lines on {len(PAGES)} pages "
          f"({sum(map(len, seen.values())) / 2**20:.1f} MB) for {len(forbidden)} strings: "
          f"{len(leaks)} found")
    assert not leaks, leaks[:10]
    # Positive controls: the search looks at the real files (every page's config and script,
    # the release), the public digest is found where a link names the files, and the markers
    # are in the private bytes.
    configs = {n: c for n, c in seen.items() if "Config (JSON)" in n}
    scripts = [n for n in seen if "Script (.py)" in n]
    assert len(configs) >= 8 and len(scripts) >= 8, sorted(seen)
    assert any(b"weight" in c and b"alpha" in c for n, c in seen.items() if "published" in n)
    assert all(m.encode() in private for m in markers)
    links = [c for n, c in seen.items() if n.endswith(" link")]
    assert links and all(public_digest.encode() in c for c in links)
    for content in configs.values():
        files = json.loads(content)["scenario"]["files"]
        assert files == [{"role": "public", "name": "public.csv", "sha256": public_digest},
                         {"role": "private", "name": "the private file"}]


def test_a_single_file_split_into_public_and_private_rows_is_named_only():
    """One file split into public and private rows holds private rows: the link and the config
    hold no digest of it, and call it "the uploaded file" unless the owner shares its name."""
    public, private, markers = marked_files()
    data = public + b"\n" + private.split(b"\n", 1)[1]
    at = app_support.start(timeout=TIMEOUT, builtin_name="wine", source="Upload",
                           upload_mode="One file, split by a rule", split_rule="At random")
    at.file_uploader(key="upload_single").set_value(("data.csv", data, "text/csv"))
    app_support.rerun(at)
    at.switch_page("pages/importance.py")
    app_support.rerun(at)
    shared = _shared(at)
    forbidden = _forbidden(data, at.session_state["scenario_id"], markers)
    assert not _leaks(shared, forbidden)
    (config,) = [json.loads(c) for n, c in shared.items() if "Config (JSON)" in n]
    assert config["scenario"]["files"] == [{"role": "single", "name": "the uploaded file"}]
    assert RunConfig.from_dict(config).to_dict() == config
    assert json.loads(at.query_params["files"]) == [{"role": "single",
                                                     "name": "the uploaded file"}]
    assert b"data.csv" not in shared["link"] + json.dumps(config).encode()
    at.checkbox(key=ui.runconfig.SHARE_PRIVATE_NAME).check()
    app_support.rerun(at)
    assert json.loads(at.query_params["files"]) == [{"role": "single", "name": "data.csv"}]


def test_a_split_value_reaches_a_link_or_a_config_only_once_the_user_ticks_the_box():
    """One file split by a column value (issue 33, section 6): the columns and values offered
    are read off every row, private ones included. The sidebar says so where they are picked,
    and the value stays out of the link, the config and the script until the user ticks the
    box; a config without it says how to rerun the split."""
    data = (app_support.DATA / "valid_single.csv").read_bytes()
    at = app_support.start(timeout=TIMEOUT, builtin_name="wine", source="Upload",
                           upload_mode="One file, split by a rule", split_rule="At random")
    at.file_uploader(key="upload_single").set_value(("single.csv", data, "text/csv"))
    app_support.rerun(at)
    at.radio(key="split_rule").set_value("By a column value (biased)").run()
    at.selectbox(key="split_column").set_value("sex").run()
    note = [c.value for c in at.sidebar.caption if c.value.startswith("Non-private choices")]
    assert note == [ui.sidebar._SPLIT_NOTE]  # said where the column is picked
    at.selectbox(key="split_value").set_value("Male")
    app_support.rerun(at)
    assert "private rows included" in ui.sidebar._SPLIT_NOTE
    box = at.checkbox(key=ui.runconfig.SHARE_SPLIT_VALUE)
    assert box.value is False and "exported config" in box.label

    def shared_split() -> list[dict]:
        shared = _shared(at)
        configs = [json.loads(c)["scenario"] for n, c in shared.items() if "Config (JSON)" in n]
        scripts = [c for n, c in shared.items() if "Script (.py)" in n]
        assert len(configs) == len(scripts) == 1
        return [dict(at.query_params), configs[0], scripts[0]]

    link, config, script_text = shared_split()
    assert link["split_column"] == "sex" and "split_value" not in link
    assert config["split_column"] == "sex" and "split_value" not in config
    assert b"Male" not in script_text
    with pytest.raises(DataError, match="holds no value: the values offered are read off every "
                                        "row of the file, private ones included"):
        build_scenario(config, {"single": data})
    at.checkbox(key=ui.runconfig.SHARE_SPLIT_VALUE).check()
    app_support.rerun(at)
    link, config, script_text = shared_split()
    assert link["split_value"] == "Male" and config["split_value"] == "Male"
    assert b"Male" in script_text
    rebuilt = build_scenario(config, {"single": data})
    assert rebuilt.private.equals(at.session_state["scenario"].private)  # the same split
    at.radio(key="split_rule").set_value("At random")  # the value is no longer used: left out
    app_support.rerun(at)
    link, config, _ = shared_split()
    assert "split_value" not in link and "split_value" not in config


def test_shareable_files_keep_the_public_digest_only():
    digest = "ab" * 32
    files = [{"role": "public", "name": "e.csv", "sha256": digest},
             {"role": "private", "name": "d.csv", "sha256": "cd" * 32},
             {"role": "single", "name": "s.csv", "sha256": None}]
    assert shareable_files(files) == [{"role": "public", "name": "e.csv", "sha256": digest},
                                      {"role": "private", "name": "d.csv"},
                                      {"role": "single", "name": "s.csv"}]
    for bad in ([{"role": "owner", "name": "x.csv"}], "e.csv",
                [{"role": "public", "name": "e.csv", "sha256": "not hex"}]):
        with pytest.raises(DataError):
            shareable_files(bad)


def test_an_older_config_loses_its_private_digest():
    """A config exported before this change holds the private file's SHA-256: it is read, and
    the digest is dropped from everything written from it (the config, the script)."""
    secret = "cd" * 32
    config = RunConfig.from_dict({
        "page": "importance", "scenario": {
            "source": "Upload", "files": [
                {"role": "public", "name": "e.csv", "sha256": "ab" * 32},
                {"role": "private", "name": "d.csv", "sha256": secret}]}})
    assert config.scenario["files"][1] == {"role": "private", "name": "d.csv"}
    written = RunConfig("importance", {"source": "Upload", "files": [
        {"role": "private", "name": "d.csv", "sha256": secret}]}).to_json()
    assert secret[:PREFIX] not in written and secret[:PREFIX] not in script(config)


def test_a_control_set_from_a_study_of_the_private_data_is_left_out_for_an_upload():
    """The subset page fills its size slider with the size Algorithm 2 selected in a seeded run
    on D: an upload's config and link leave it unset (the built-in scenarios keep it)."""
    state = {"source": "Upload", "sub_size": 523, "sub_epsilon": 1.0,
             ui.runconfig.UPLOAD_FILES_KEY: [{"role": "private", "name": "d.csv", "sha256": None}]}
    config = ui.runconfig.run_config("subset", state)
    assert config["controls"]["sub_size"] is None and config["controls"]["sub_epsilon"] == 1.0
    built_in = ui.runconfig.run_config("subset", {**state, "source": "Built-in"})
    assert built_in["controls"]["sub_size"] == 523
