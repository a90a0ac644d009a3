"""The protocol client's guard on Streamlit's version (``ui/protocol.py``).

The client speaks Streamlit's private WebSocket protocol, which a release may change: it runs
only on the releases it was checked against, installed here or running the server, and says
which release it found and which it was checked against otherwise. The protocol itself is
exercised against a real server by ``tests/test_load_small.py`` and
``tests/browser/test_prepare_class.py``.
"""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def protocol(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # as `python benchmarks/...` has it
    from ui import protocol

    return protocol


def test_the_installed_streamlit_is_a_checked_release(protocol):
    assert protocol.check_streamlit() == version("streamlit")


def test_requirements_pin_the_checked_range(protocol):
    """The dashboard's environment installs a release the client was checked against."""
    pins = [line.split("#")[0].strip() for line in
            (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
            if re.match(r"streamlit\b", line)]
    assert pins == [f"streamlit{protocol.STREAMLIT_CHECKED}"]


@pytest.mark.parametrize("found", ["1.67.0", "1.67.9"])
def test_checked_releases_pass(protocol, found):
    assert protocol.check_streamlit(found) == found


@pytest.mark.parametrize("found", ["1.66.1", "1.68.0", "1.68.0rc1", "2.0.0", "1.50.0"])
def test_another_release_is_refused_naming_both(protocol, found):
    with pytest.raises(protocol.StreamlitVersionError) as caught:
        protocol.check_streamlit(found)
    message = str(caught.value)
    assert f"Streamlit {found} is installed" in message
    assert f"streamlit{protocol.STREAMLIT_CHECKED}" in message
    assert "scripts/install.sh" in message  # what to do about it


def test_a_server_of_another_release_is_refused_on_its_first_message(protocol):
    """The server names its release in ``new_session``; the client refuses an unchecked one
    before it reads anything else."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    client = protocol.StreamlitClient("http://127.0.0.1:9", protocol.MarkerBoard())
    msg = ForwardMsg()
    msg.new_session.initialize.session_id = "s"
    msg.new_session.initialize.environment_info.streamlit_version = "1.99.0"
    with pytest.raises(protocol.StreamlitVersionError, match="Streamlit 1.99.0 runs the "
                                                                 "server"):
        client._read(msg)
    assert client.session_id == ""
    msg.new_session.initialize.environment_info.streamlit_version = version("streamlit")
    client._read(msg)
    assert client.session_id == "s"


def test_prepare_class_says_so_and_stops(protocol, monkeypatch, capsys):
    """``benchmarks/prepare_class.py`` on another release: one clear message, exit 1, no
    connection tried."""
    import prepare_class

    monkeypatch.setattr(protocol, "version", lambda name: "1.70.0")
    monkeypatch.setattr(prepare_class, "walk", lambda *a, **k: pytest.fail("walked"))
    assert prepare_class.main(["http://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err
    assert "Streamlit 1.70.0 is installed" in err and protocol.STREAMLIT_CHECKED in err
    assert "Is the explorer running" not in err
