"""A bigger room (issue 35): ``scripts/serve_class.py`` starts two ``streamlit run`` processes
behind HAProxy, sessions stick to their process by the proxy's cookie, and the processes share
built-in results on disk, never an upload.

Two users (``ui.protocol``, Streamlit's WebSocket protocol without a browser) come
through the proxy: they are sent to different processes (round robin, then the cookie), one
uploads a CSV whose column name carries a marker (the upload's HTTP request and its WebSocket
must reach the same process, or the upload is refused or never seen), the other opens a page
on a built-in scenario. The upload's user sees its file; the other never sees the marker; the
shared store on disk holds the built-in page's results and nothing with the marker. Skipped
when HAProxy is not installed (``bash scripts/install-test-deps.sh`` installs it).
"""

from __future__ import annotations

import queue
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest
from processes import output_lines

from dpcore.runs.scenarios import AT_RANDOM, ONE_FILE, UPLOAD
from ui import protocol

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 180  # seconds for both processes and the proxy to answer (a failure, not a wait)
HAPROXY = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def clients(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # as `python benchmarks/...` has it
    import bench_upload

    return protocol, bench_upload


@pytest.fixture
def proxy(tmp_path):
    """``serve_class.py --processes 2`` on a free port: (its URL, its store on disk)."""
    if HAPROXY is None:
        pytest.skip("haproxy is not installed (bash scripts/install-test-deps.sh installs it)")
    port, store = _free_port(), tmp_path / "store"
    launcher = subprocess.Popen(
        [sys.executable, "scripts/serve_class.py", "--processes", "2", "--port", str(port),
         "--store", str(store), "--no-install"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, reader = output_lines(launcher)
    output: list[str] = []
    try:
        while True:
            try:
                line = lines.get(timeout=START_TIMEOUT)
            except queue.Empty:
                pytest.fail(f"serve_class.py did not serve within {START_TIMEOUT} s:\n"
                            + "".join(output))
            if line is None:
                pytest.fail("serve_class.py exited:\n" + "".join(output))
            output.append(line)
            if line.startswith("serving "):
                break
        yield f"http://127.0.0.1:{port}", store
    finally:
        launcher.send_signal(signal.SIGTERM)
        try:
            assert launcher.wait(60) == 0, "".join(output)
        except subprocess.TimeoutExpired:
            launcher.kill()
            launcher.wait()
            raise
        finally:
            reader.join(10)  # it reads to the end of the output, then the pipe is closed
            launcher.stdout.close()


def test_two_processes_behind_haproxy_keep_sessions_apart_and_share_built_in_results(
        proxy, clients):
    url, store = proxy
    client, bench_upload = clients
    board = client.MarkerBoard()
    marker = board.new()
    uploader = client.StreamlitClient(url, board, marker=marker, timeout=120)
    other = client.StreamlitClient(url, board, timeout=120)
    try:
        uploader.connect()
        other.connect()
        servers = {dict(part.split("=", 1) for part in c.cookie_header().split("; "))
                   .get("explorer_server") for c in (uploader, other)}
        assert len(servers) == 2 and None not in servers  # one session on each process

        uploader.open_page("importance", urlencode(
            {"source": UPLOAD, "upload_mode": ONE_FILE, "split_rule": AT_RANDOM}))
        data = bench_upload.make_upload_csv(2000, seed=0)
        header, _, rows = data.partition(b"\n")
        data = header.replace(b"region", f"region{marker}".encode()) + b"\n" + rows
        uploader.upload(uploader.find("file_uploader", "CSV to split"), "mine.csv", data)
        assert uploader.own_marker_seen  # the upload and the session met in one process

        other.open_page("masking")
        assert not other.crossed and not uploader.crossed
    finally:
        uploader.close()
        other.close()

    files = [path for path in store.rglob("*") if path.is_file()]
    assert any(path.suffix == ".pkl" for path in files)  # the built-in page's results
    assert not any(marker in path.name or marker.encode() in path.read_bytes()
                   for path in files)
