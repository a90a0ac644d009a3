"""A class in miniature: three simulated users on one ``streamlit run app.py``, without browsers.

The load benchmark (``benchmarks/bench_load.py``, its users in ``ui/protocol.py``)
runs in a subprocess: Locust runs on gevent, which patches the standard library, so it gets a
process of its own rather than pytest's. Three users arrive within three seconds at a server
that has served one visit (``--warm``: the app's modules imported), one of them uploads a
20,000-row CSV (made in memory) with a random marker in a column name, and for 20 s they move
ε, switch views and publish over Streamlit's WebSocket protocol.

The test fails on an error (an exception on a page, a refused upload, an action with no
answer, a server that exits) or a crossed session (a user that receives another user's
marker); the uploading user must receive its own marker (the check reads what it should). It
never fails on a time: the benchmark's table is printed, not tested.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks" / "bench_load.py"
#: Seconds the whole run may take (20 s of load, the server's start, the last actions) before
#: it is stopped: a hung run fails instead of holding the suite.
RUN_TIMEOUT = 240


def _run_bench(*args: str) -> subprocess.CompletedProcess:
    """``python benchmarks/bench_load.py *args``; on timeout the benchmark and its server (one
    process group) are killed."""
    command = [sys.executable, str(BENCH), *args]
    env = {**os.environ, "EXPLORER_PREPARE": "0"}  # the users alone (tests/test_warm.py: with it)
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, start_new_session=True) as process:
        try:
            out, err = process.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            pytest.fail(f"the load run did not end within {RUN_TIMEOUT} s:\n{out}\n{err}")
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def test_three_users_act_without_errors_or_crossed_sessions(tmp_path):
    report_file = tmp_path / "load.json"
    result = _run_bench("--users", "3", "--seconds", "20", "--uploads", "0.34", "--warm",
                        "--timeout", "120", "--json", str(report_file))
    print(result.stdout)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr[-5000:]}"
    report = json.loads(report_file.read_text())
    assert report["users"] == 3 and report["uploaders"] == 1
    assert report["errors"] == 0 and report["crossed_sessions"] == 0
    assert report["uploads_seen_by_their_user"] == 1
    assert report["by_action"]["first_render"]["count"] == 3
