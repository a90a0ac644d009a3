"""Every file a page lets you download holds released (noisy) values, public rows and labelled
non-private references, never the private upload's own rows.

A private file whose every row carries a unique marker (a text value and a number found nowhere
in the public file) is uploaded; each page that publishes is published on it; every download the
page then offers (the release, the ledger) is read back from Streamlit's in-memory media store
and searched for those markers.
"""

from __future__ import annotations

import gc

import app_support
import pytest
from app_support import marked_files, no_cyclic_gc  # noqa: F401 (pytestmark)
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

# Downloads are looked up after each run among the objects the garbage collector tracks.
pytestmark = pytest.mark.usefixtures("no_cyclic_gc")
TIMEOUT = 180
# page, its view chooser's key, the Publish view, the publish button's key, extra state
PUBLISHING = [
    ("pages/importance.py", "iw_view", "publish", "publish_importance", {}),
    ("pages/perturbation.py", "lr_view", "publish", "publish_perturbation", {}),
    ("pages/subset.py", "sub_view", "publish", "publish_subset", {}),
    ("pages/masking.py", "mk_view", "publish", "publish_masking",
     {"mk_task": "Sidebar scenario (its binary target)"}),
]


def _downloads(at: AppTest) -> list[bytes]:
    """The contents of every download button on the page, from the in-memory media store; a
    button whose data is a callable (figure HTML, run config, script: built on click) is
    clicked, i.e. its callable is run. PNG figures are images, with no text to search."""
    stores = [s for s in gc.get_objects() if isinstance(s, MemoryMediaFileStorage)]
    managers = [m for m in gc.get_objects() if isinstance(m, MediaFileManager)]
    contents = []
    for button in at.get("download_button"):
        if button.proto.deferred_file_id:
            if button.proto.label == "PNG":
                continue
            entries = [m._deferred_callables[button.proto.deferred_file_id] for m in managers
                       if button.proto.deferred_file_id in m._deferred_callables]
            assert entries, f"download {button.proto.label!r} is not registered"
            data = entries[0]["callable"]()
            contents.append(data.encode() if isinstance(data, str) else bytes(data))
            continue
        file_id = button.proto.url.rsplit("/", 1)[-1].split(".")[0]
        found = [s._files_by_id[file_id].content for s in stores if file_id in s._files_by_id]
        assert found, f"download {button.proto.label!r} not found in the media store"
        contents.append(found[0])
    return contents


@pytest.mark.parametrize("page, view_key, view, button, state", PUBLISHING,
                         ids=[p[0] for p in PUBLISHING])
def test_every_download_after_a_release_holds_no_private_row(page, view_key, view, button,
                                                             state):
    public, private, markers = marked_files()
    at = app_support.upload_marked(public, private, timeout=TIMEOUT)
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(page)
    app_support.rerun(at)
    app_support.show_view(at, view, key=view_key)
    at.button(key=button).click()
    app_support.rerun(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert len(at.session_state["_budget_accountant"]) >= 1, "nothing was published"
    assert len(labels) >= 2, f"{page}: expected the release and the ledger, got {labels}"
    exports = _downloads(at)
    for content in exports:
        leaked = [m for m in markers if m.encode() in content]
        assert not leaked, f"{page}: a download holds private values {leaked[:3]}"
    # Positive controls: the files read back are the real downloads (the ledger's header is
    # found), and the markers are in the uploaded private bytes the search looks for.
    assert any(content.startswith(b"mechanism,dataset,epsilon") for content in exports)
    assert all(m.encode() in private for m in markers)
    if page == "pages/importance.py":  # its release is the public rows plus their weights
        (release,) = [c for c in exports if b"alpha" in c and b"weight" in c
                      and not c.startswith(b"<!doctype html>")]  # not a figure's HTML
        # A formula-like public cell is exported as text, never as a formula (CSV injection).
        assert b",'=1+2," in release and b",=1+2," not in release
