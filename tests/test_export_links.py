"""Exports and shareable links (issue 12): figure HTML/PNG downloads, "Export this run", the
ledger as JSON, and links that restore every control.

Downloads whose data is a callable (figures, config, script) are not in Streamlit's media store
until clicked; :func:`_download` runs the callable that Streamlit registered for the button, as
a click does.
"""

from __future__ import annotations

import gc
import io
import json
import re
import struct
from functools import partial

import app_support
import pandas as pd
import pytest
from app_support import marked_files, no_cyclic_gc, rerun  # noqa: F401 (pytestmark)
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

import ui.export
import ui.registry
import ui.runconfig
from dpcore import BudgetAccountant
from dpcore.domains import NotFromLink
from dpcore.figures import files
from dpcore.runs import RunConfig
from dpcore.text import md
from ui import links

# Downloads are looked up after each run among the objects the garbage collector tracks.
pytestmark = pytest.mark.usefixtures("no_cyclic_gc")
TIMEOUT = 180
PAGES = {"home": "pages/home.py", "importance": "pages/importance.py",
         "subset": "pages/subset.py", "perturbation": "pages/perturbation.py",
         "masking": "pages/masking.py", "audit": "pages/audit.py",
         "choose_epsilon": "pages/choose_epsilon.py", "primer": "pages/primer.py"}
start = partial(app_support.start, timeout=TIMEOUT, builtin_name="wine")


# ------------------------------------------------------------------------------- helpers --

def _download(at: AppTest, button) -> bytes:
    """The bytes a click on ``button`` downloads (a deferred callable is run, as on a click)."""
    proto = button.proto
    if proto.deferred_file_id:
        for manager in (o for o in gc.get_objects() if isinstance(o, MediaFileManager)):
            entry = manager._deferred_callables.get(proto.deferred_file_id)
            if entry is not None:
                data = entry["callable"]()
                return data.encode() if isinstance(data, str) else bytes(data)
        raise AssertionError(f"deferred download {proto.label!r} is not registered")
    file_id = proto.url.rsplit("/", 1)[-1].split(".")[0]
    for store in (o for o in gc.get_objects() if isinstance(o, MemoryMediaFileStorage)):
        if file_id in store._files_by_id:
            return store._files_by_id[file_id].content
    raise AssertionError(f"download {proto.label!r} not found in the media store")


def _button(at: AppTest, key: str):
    found = [b for b in at.get("download_button") if b.proto.id.endswith(f"-{key}")]
    assert len(found) == 1, [b.proto.id for b in at.get("download_button")]
    return found[0]


def _first_figure_key(at: AppTest) -> str:
    charts = at.get("plotly_chart")
    assert charts, "the page shows no figure"
    return charts[0].proto.id.split("-", 2)[-1]


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:16]
    return struct.unpack(">II", data[16:24])


def _open_link(page: str, params: dict[str, str], **state: object) -> AppTest:
    """A new session that opens ``page`` through a link with ``params``."""
    at = AppTest.from_file(str(app_support.ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(PAGES[page])
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


# ------------------------------------------------------------------------- encode/decode --

@pytest.mark.parametrize("value", [0.1, 1e-05, 3, 0, True, False, None, "Estimates vs ε", "",
                                   "0.5", "null", "true", '"quoted"', "a,b&c=d", [1, 2]])
def test_link_values_round_trip(value):
    assert links.decode(links.encode(value)) == value


def test_link_value_types_are_checked():
    assert links.fit_value(2, 0.1) == 2.0 and isinstance(links.fit_value(2, 0.1), float)
    assert links.fit_value(3.0, 100) == 3 and isinstance(links.fit_value(3.0, 100), int)
    assert links.fit_value(2, "a view", text="2") == "2"  # a word that reads as a number
    for value, default in [("abc", 0.1), (True, 0.1), (0.5, 100), (1, False), ([1], 0.1),
                           ({"a": 1}, None)]:
        with pytest.raises(links.InvalidValue):
            links.fit_value(value, default)
    with pytest.raises(links.InvalidValue):
        links.decode("NaN")


# ------------------------------------------------------------------------------- figures --

def test_figure_html_export_is_standalone_and_carries_the_title_and_settings():
    at = app_support.open_page(PAGES["importance"], timeout=TIMEOUT, builtin_name="wine")
    key = _first_figure_key(at)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    title = spec["layout"]["title"]["text"]  # what show() put in the figure: title<br>settings
    assert "ε" in title or "\\u03b5" in title
    page = _download(at, _button(at, f"{key}_html")).decode()
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    assert "<script src=" not in page  # plotly.js is inlined: opens offline
    head, settings = title.split("<br>")
    header = page.split("</head>", 1)[0]
    assert header.count("<title>") == 1 and f"<title>{head} " in header  # the browser tab
    # The figure's own title and settings, as drawn (plotly writes its JSON with \\u escapes).
    body = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), page)
    assert title in body and "λ = " in settings
    assert settings.startswith("<span style='font-size:12px'>")  # readable, not a 7 px <sup>
    # The page shows this figure's legend as a line of text; the file carries plotly's own.
    assert not spec["layout"]["showlegend"] and '"name":"truth (non-private)"' in body


def test_png_export_renders_the_figure_with_its_title():
    browser = files.chromium_path()
    if browser is None:
        pytest.skip("no Chromium found ($BROWSER_PATH, /usr/bin/chromium, PATH): kaleido "
                    "cannot render PNG here")
    at = app_support.open_page(PAGES["importance"], timeout=TIMEOUT, builtin_name="wine")
    key = _first_figure_key(at)
    data = _download(at, _button(at, f"{key}_png"))  # one figure only: about 3 s
    height = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["height"]
    assert _png_size(data) == (2 * files.PNG_WIDTH, 2 * height)  # scale 2


def test_png_button_says_why_when_no_chromium_is_found(monkeypatch):
    monkeypatch.setattr(ui.export, "chromium_path", lambda: None)
    monkeypatch.setattr(files, "chromium_path", lambda: None)
    at = app_support.open_page(PAGES["importance"], timeout=TIMEOUT, builtin_name="wine")
    key = _first_figure_key(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "PNG" not in labels and "HTML" in labels
    _button(at, f"{key}_html")
    assert files.PNG_MISSING in app_support.captions(at)
    with pytest.raises(RuntimeError, match="needs Chromium"):
        files.figure_png(None)


def test_chromium_lookup_prefers_browser_path(monkeypatch, tmp_path):
    fake = tmp_path / "chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("BROWSER_PATH", str(fake))
    assert files.chromium_path() == str(fake)
    fake.chmod(0o644)  # not executable: skipped
    assert files.chromium_path() != str(fake)


def test_a_rerun_builds_no_export(monkeypatch):
    """Redraw cost does not grow: no HTML, PNG, config JSON or script is built while a page
    redraws; each is built once, when its button is clicked."""
    built: list[str] = []
    for name in ("figure_html", "figure_png", "config_json", "config_script"):
        original = getattr(ui.export, name)
        monkeypatch.setattr(ui.export, name,
                            lambda *a, _f=original, _n=name, **k: built.append(_n) or _f(*a, **k))
    at = app_support.open_page(PAGES["importance"], timeout=TIMEOUT, builtin_name="wine")
    at.select_slider(key="iw_epsilon").set_value(1.0)
    rerun(at)
    rerun(at)
    assert built == []
    key = _first_figure_key(at)
    _download(at, _button(at, f"{key}_html"))
    _download(at, _button(at, "export_config_importance"))
    _download(at, _button(at, "export_script_importance"))
    assert built == ["figure_html", "config_json", "config_script"]


# ---------------------------------------------------------------------------- export run --

def _config(at: AppTest, page: str) -> dict:
    return json.loads(_download(at, _button(at, f"export_config_{page}")))


@pytest.mark.parametrize("page", ["importance", "perturbation"])
def test_export_config_round_trips_and_names_every_control(page):
    at = app_support.open_page(PAGES[page], timeout=TIMEOUT, builtin_name="wine")
    seed_key = ui.runconfig.seed_key(page)
    at.number_input(key=seed_key).set_value(5)
    rerun(at)
    config = _config(at, page)
    assert RunConfig.from_dict(config).to_dict() == config
    module = ui.registry.page(page).study
    assert set(config["controls"]) == set(module.CONTROLS) - {seed_key}
    assert config["seed"] == 5
    assert config["scenario"]["builtin_name"] == "wine"
    assert config["scenario"]["source"] == "Built-in"
    for key, value in config["controls"].items():
        if key in at.session_state:
            assert value == ui.runconfig.plain(at.session_state[key]), key
    script = _download(at, _button(at, f"export_script_{page}")).decode()
    compile(script, "rerun.py", "exec")
    assert "from dpcore.runs import STUDY_LABEL, run" in script
    assert "'builtin_name': 'wine'" in script and 'print(f"# {STUDY_LABEL}")' in script
    command = at.sidebar.get("code")[-1].proto.code_text
    assert command == f"python -m dpcore run {page}-run.json --out {page}-run"


def _upload(at: AppTest, public: bytes, private: bytes) -> None:
    at.file_uploader(key="upload_public").set_value(("public.csv", public, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    rerun(at)
    at.selectbox(key="upload_target").set_value("income")
    rerun(at)


def test_exports_and_links_of_an_upload_hold_no_private_row():
    """Every export a page offers (figures as HTML, config, script, the release and the ledger)
    and the URL name the uploaded files (the public one also by its SHA-256) and hold none of
    the private file's values, nor its digest."""
    import hashlib

    public, private, markers = marked_files()
    at = start(source="Upload", _budget_accountant=BudgetAccountant(epsilon=100.0),
               budget_epsilon=100.0)
    _upload(at, public, private)
    at.switch_page(PAGES["importance"])
    rerun(at)
    app_support.show_view(at, "Publish", key="iw_view")
    at.button(key="publish_importance").click()
    rerun(at)
    app_support.show_view(at, "Estimates vs ε", key="iw_view")
    exports = {b.proto.label + b.proto.id: _download(at, b) for b in at.get("download_button")
               if b.proto.label != "PNG"}  # an image: no text to search
    labels = {b.proto.label for b in at.get("download_button")}
    assert {"HTML", "Config (JSON)", "Script (.py)", "Download the ledger (CSV)",
            "Download the ledger (JSON)"} <= labels, labels
    url = "&".join(f"{k}={v}" for k, v in at.query_params.items())
    for name, content in [*exports.items(), ("URL", url.encode())]:
        leaked = [m for m in markers if m.encode() in content]
        assert not leaked, f"{name}: holds private values {leaked[:3]}"
    # Positive controls: the markers are in the private bytes, and the config names the files.
    assert all(m.encode() in private for m in markers)
    config = _config(at, "importance")
    assert config["scenario"]["files"] == [
        {"role": "public", "name": "public.csv", "sha256": hashlib.sha256(public).hexdigest()},
        {"role": "private", "name": "the private file"}]  # a name can tell: not shared
    assert "private.csv" not in url
    assert hashlib.sha256(public).hexdigest() in url
    assert hashlib.sha256(private).hexdigest()[:8] not in url
    assert RunConfig.from_dict(config).to_dict() == config
    command = at.sidebar.get("code")[-1].proto.code_text
    assert command.endswith("--file public=public.csv --file 'private=the private file'")


def test_ledger_json_matches_the_ledger_csv():
    accountant = BudgetAccountant(epsilon=10.0, delta=1e-5)
    accountant.spend(0.5, mechanism="Laplace", dataset="adult", note="first")
    accountant.spend(1.25, 1e-6, mechanism="Gaussian", dataset="wine", note="second, quoted \"")
    at = start(_budget_accountant=accountant, budget_epsilon=10.0)
    csv = pd.read_csv(io.BytesIO(_download(at, _button(at, "ledger_download"))))
    document = json.loads(_download(at, _button(at, "ledger_download_json")))
    from_json = pd.DataFrame(document["releases"])
    assert list(from_json.columns) == list(csv.columns)
    assert len(csv) == 2
    for column in csv.columns:
        if column == "time":
            assert (pd.to_datetime(csv[column]) == pd.to_datetime(from_json[column])).all()
        else:
            assert csv[column].tolist() == from_json[column].tolist(), column
    assert document["spent"]["epsilon"] == pytest.approx(1.75)
    assert document["budget"]["epsilon"] == 10.0


# --------------------------------------------------------------------------------- links --

_CHANGEABLE = ("select_slider", "number_input")


def _change_controls(at: AppTest, prefix: str) -> dict[str, object]:
    """Move every numeric select slider and number input of the page (its prefix) one step
    (down where it can, so the page gets cheaper); returns the new values."""
    changed = {}
    for kind in _CHANGEABLE:
        for widget in at.get(kind):
            key = widget.key
            if not key or not key.startswith(prefix):
                continue
            if kind == "number_input":
                proto = widget.proto
                value = widget.value
                step = proto.step or 1
                new = value + step if value is not None else 1
                if proto.has_max and new > proto.max:
                    new = value - step
                new = type(value)(new) if value is not None else new
            else:
                options = [links.decode(o) for o in widget.options]
                if not all(isinstance(o, int | float) for o in options):
                    continue
                index = options.index(widget.value)
                new = type(widget.value)(options[index - 1] if index > 0 else options[index + 1])
            widget.set_value(new)
            changed[key] = new
    return changed


@pytest.mark.parametrize("page", list(PAGES))
def test_a_link_restores_every_control(page):
    """A session moves the page's controls off their defaults (and the scenario's seed); a new
    session opened with its URL's query parameters has every control exactly as it was, and the
    same URL."""
    at = app_support.open_page(PAGES[page], timeout=TIMEOUT, builtin_name="wine",
                               allow_errors=True)
    prefix = ui.runconfig.PREFIXES[page]
    at.number_input(key="seed").set_value(3)  # a new scenario first: it resets some defaults
    rerun(at, allow_errors=True)
    changed = _change_controls(at, prefix) if prefix else {}
    rerun(at, allow_errors=True)
    if prefix:
        assert len(changed) >= 2, f"{page}: only {changed} could be changed"
    params = dict(at.query_params)
    assert params["builtin_name"] == "wine" and params["seed"] == "3"
    for key, value in changed.items():
        assert at.session_state[key] == value, (key, value)
        assert links.decode(params[key]) == value, key
    config = _config(at, page)
    assert RunConfig.from_dict(config).to_dict() == config
    expected = {**config["scenario"], **config["controls"]}
    unsettable = {key for key, domain in links.known_domains().items()
                  if isinstance(domain, NotFromLink)}  # the plan table: a link cannot set it
    assert set(expected) - unsettable <= set(params)
    opened = _open_link(page, params)
    app_support.assert_clean(opened, allow_errors=True)
    assert [e.value for e in opened.error] == [e.value for e in at.error]
    assert not opened.warning or all("link" not in w.value for w in opened.warning)
    for key in params:
        if key in at.session_state:
            assert opened.session_state[key] == at.session_state[key], key
    assert dict(opened.query_params) == params
    assert _config(opened, page) == config


def test_a_link_survives_the_pages_own_first_run_defaults():
    """The importance page opens a new scenario at its default λ and replicates; a link's λ and
    replicates win over them."""
    at = _open_link("importance", {"builtin_name": "wine", "iw_lambda": "0.3", "iw_reps": "20",
                                   "iw_epsilon": "2.0"})
    app_support.assert_clean(at)
    assert (at.session_state["iw_lambda"], at.session_state["iw_reps"],
            at.session_state["iw_epsilon"]) == (0.3, 20, 2.0)
    assert at.select_slider(key="iw_lambda").value == 0.3


def test_invalid_link_values_are_ignored_with_a_warning():
    at = _open_link("importance", {"builtin_name": "wine", "iw_epsilon": "abc",
                                   "iw_reps": "true", "iw_lambda": "0.15", "no_such": "1",
                                   "iw_seed": "-4"})
    app_support.assert_clean(at)
    warnings = " ".join(w.value for w in at.warning)
    for key in ("iw\\_epsilon", "iw\\_reps", "iw\\_lambda", "no\\_such", "iw\\_seed"):
        assert key in warnings, (key, warnings)
    assert at.session_state["iw_epsilon"] == 0.1  # the page's default
    assert at.session_state["iw_seed"] == 0
    assert at.session_state["builtin_name"] == "wine"  # the valid ones still apply
    rerun(at)
    assert not [w.value for w in at.warning if "link" in w.value]  # said once


@pytest.mark.parametrize("private_digest", [None, "b" * 64], ids=["new link", "older link"])
def test_a_link_to_an_upload_names_the_files_to_upload(private_digest):
    """The note names both files and gives the public file's SHA-256; a private file is named
    only, even where an older link still holds its digest."""
    files = [{"role": "public", "name": "public.csv", "sha256": "a" * 64},
             {"role": "private", "name": "priv_*x*.csv", "sha256": private_digest}]
    at = _open_link("importance", {"source": "Upload", "upload_target": "income",
                                   "files": json.dumps(files)})
    app_support.assert_clean(at)
    (info,) = [i.value for i in at.info if "upload" in i.value.lower() and "SHA-256" in i.value]
    assert "a" * 64 in info and "b" * 8 not in info
    assert md("priv_*x*.csv") in info  # the name is escaped, never markdown
    assert "named only" in info
    assert at.session_state["source"] == "Upload"
    assert at.session_state["upload_target"] == "income"


def test_the_upload_notice_goes_once_the_named_files_are_uploaded():
    import hashlib

    from dpcore.runs import shareable_files

    public, private, _ = marked_files()
    files = [{"role": "public", "name": "public.csv", "sha256": hashlib.sha256(public).hexdigest()},
             {"role": "private", "name": "private.csv"}]
    at = _open_link("importance", {"source": "Upload", "upload_target": "income",
                                   "files": json.dumps(files)})
    assert any("SHA-256" in i.value for i in at.info)
    at.file_uploader(key="upload_public").set_value(("public.csv", public, "text/csv"))
    at.file_uploader(key="upload_private").set_value(("private.csv", private, "text/csv"))
    rerun(at)
    assert not any("SHA-256" in i.value for i in at.info)
    assert at.session_state["upload_target"] == "income"  # the link's target, kept
    assert shareable_files(at.session_state["upload_files"]) == files


def test_figures_import_without_streamlit():
    import subprocess
    import sys

    code = ("import sys, dpcore.figures, dpcore.figures.common, dpcore.figures.files, "
            "dpcore.figures.importance; "
            "assert 'streamlit' not in sys.modules, 'streamlit was imported'")
    subprocess.run([sys.executable, "-c", code], cwd=app_support.ROOT, check=True)
