"""The README's two set-up commands: each one line, each installing into the clone's virtual
environment, the second the very command CI runs; and the install script's answers where no
environment can be made."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    """The README's fenced ``bash`` blocks."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_the_readme_has_two_one_line_set_up_commands_in_the_virtual_environment():
    dashboard, tests = readme_commands()
    for command in (dashboard, tests):
        assert "\n" not in command
        install, run = command.split(" && ")
        assert (ROOT / install.removeprefix("bash ")).is_file()
        assert run.startswith(".venv/bin/")  # never the system's python or pip
    assert "pip install" not in dashboard + tests


def test_ci_runs_the_readme_test_command():
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert lines[-1] == readme_commands()[1]


def _install_copy(tmp_path: Path, fake_python: str, uid: str) -> subprocess.CompletedProcess:
    """``bash scripts/install.sh`` in a bare copy of the script, with ``PYTHON`` a stand-in
    interpreter and ``id -u`` answering ``uid``: nothing is created or installed."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "install.sh", tmp_path / "scripts")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in (("fakepython", fake_python), ("id", f'echo {uid}\n')):
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}", encoding="utf-8")
        (bin_dir / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHON": "fakepython"}
    return subprocess.run(["bash", "scripts/install.sh"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


def test_an_old_python_is_refused_with_what_to_do(tmp_path):
    fake = ('case "$2" in *platform*) echo 3.9.2;; *version_info*) exit 1;; esac\n'
            "exit 0\n")
    done = _install_copy(tmp_path, fake, "1000")
    assert done.returncode == 1
    assert "fakepython is Python 3.9.2" in done.stderr and "3.11 or later" in done.stderr
    assert "PYTHON" in done.stderr and not (tmp_path / ".venv").exists()


def test_without_the_venv_module_a_user_is_told_the_package(tmp_path):
    """Debian's python3 without python3-venv: as a user (not root) the script installs nothing
    and names the package in one line."""
    fake = 'case "$2" in *ensurepip*) exit 1;; esac\nexit 0\n'
    done = _install_copy(tmp_path, fake, "1000")
    assert done.returncode == 1
    assert "sudo apt-get install python3-venv" in done.stderr
    assert done.stderr.count("\n") == 1 and not (tmp_path / ".venv").exists()
