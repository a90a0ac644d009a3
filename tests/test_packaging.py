"""``pip install .`` gives a working dpcore, Adult data and example configs included, outside the
checkout."""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from dpcore.runs import PAGES

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_dpcore_with_adult_outside_the_checkout(tmp_path):
    # Built from a copy of what the wheel is made of: setuptools writes build/ and *.egg-info
    # beside the sources, and a test writes only to its temporary folder.
    source = tmp_path / "source"
    shutil.copytree(ROOT / "dpcore", source / "dpcore",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
         "--quiet", "--wheel-dir", str(wheels)],
        check=True, capture_output=True, cwd=tmp_path,
    )
    (wheel,) = wheels.glob("privacy_utility_explorer-*.whl")
    env_dir = tmp_path / "venv"
    # The running environment's packages (numpy, pandas, ...) are visible through a .pth file
    # naming its site-packages (system_site_packages would show the *base* interpreter's when
    # the tests run inside a virtual environment); dpcore is not, until the wheel is installed:
    # the checkout is not on the path of a process started elsewhere.
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    inner = subprocess.run([str(python), "-c", "import site; print(site.getsitepackages()[0])"],
                           capture_output=True, text=True, check=True).stdout.strip()
    outer = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(inner) / "outer-environment.pth").write_text("\n".join(outer) + "\n")
    probe = [str(python), "-c", "import dpcore"]
    assert subprocess.run(probe, cwd=tmp_path, capture_output=True).returncode != 0
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--no-deps", "--quiet", str(wheel)], check=True, capture_output=True)
    script = (
        "import dpcore, pathlib; from dpcore.datasets import load_scenario\n"
        "s = load_scenario('adult')\n"
        "print(pathlib.Path(dpcore.__file__).parent.parent.name, s.d, len(s.private))\n"
    )
    out = subprocess.run([str(python), "-c", script], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["site-packages", "111", "20688"]  # d: features after encoding
    # Every page's example config ships in the package: `dpcore pages` lists each, from the
    # installed files (the checkout's copy is not on the path).
    listed = subprocess.run([str(python), "-m", "dpcore", "pages"], cwd=tmp_path,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    assert [line.split()[0] for line in listed] == list(PAGES)
    shipped = sorted(p.name for p in (ROOT / "dpcore" / "examples").glob("*.json"))
    installed = [tmp_path / word.rstrip(",") for line in listed for word in line.split()
                 if word.rstrip(",").endswith(".json")]  # shown relative to the working folder
    assert sorted(p.name for p in installed) == shipped and len(shipped) == len(PAGES)
    assert all(p.is_file() and "site-packages" in p.parts for p in installed)
    assert "no example config" not in "\n".join(listed)
    # The command line writes a run's numbers and figures from the installed package alone (no
    # checkout on the path, so no `ui`), on an installed example config.
    (config,) = [p for p in installed if p.name == "importance-adult.json"]
    done = subprocess.run([str(python), "-m", "dpcore", "run", str(config), "--out", "out", "-q",
                           "--no-png"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "numbers.json").exists()
    assert sorted(p.name for p in (tmp_path / "out" / "figures").glob("*.html"))
