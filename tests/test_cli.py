"""The command line, ``python -m dpcore``: help, runs that reproduce, and one-line errors.

The main runs go through a subprocess (what a user types); the error cases and the cases that
need a patched environment call :func:`dpcore.cli.main` in this process, which is the same code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import dpcore
from dpcore import cli
from dpcore.figures import files
from dpcore.parallel import current_blas_threads
from dpcore.runs import PAGES, STUDY_LABEL, RunConfig, run, sha256

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "dpcore" / "examples" / "importance-adult.json"
SMALL = {  # the importance page on the small built-in scenario: a run of a few seconds
    "format": "privacy-utility-explorer/run", "version": 1, "page": "importance",
    "scenario": {"source": "Built-in", "builtin_name": "three-gaussians"},
    "controls": {"iw_epsilon": 1.0, "iw_lambda": 0.1, "iw_reps": 40,
                 "iw_view": "by_lambda"},
    "seed": 3,
}
PREFIX = "python -m dpcore: error: "


def dpcore_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    # The subprocess's BLAS uses as many threads as this process's (the thread count moves the
    # fits' last bits). Set it explicitly: a Dask nanny started by another test leaves
    # OPENBLAS_NUM_THREADS=1 in this process's environment, which children would inherit.
    threads = str(current_blas_threads())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": threads,
           "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}
    return subprocess.run([sys.executable, "-m", "dpcore", *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


def tables(folder: Path) -> dict[str, pd.DataFrame]:
    return {name: pd.DataFrame(rows)
            for name, rows in json.loads((folder / "numbers.json").read_text()).items()}


@pytest.fixture(scope="module")
def small_config(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("config") / "small.json"
    path.write_text(json.dumps(SMALL, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def small_run(small_config, tmp_path_factory) -> Path:
    """One sequential run of the small config through the command line, HTML figures only."""
    out = tmp_path_factory.mktemp("run") / "out"
    done = dpcore_cli("run", str(small_config), "--out", str(out), "--no-png")
    assert done.returncode == 0, done.stderr
    return out


# ----------------------------------------------------------------------------------- help --

def test_help_lists_the_commands():
    done = dpcore_cli("--help")
    assert done.returncode == 0
    for command in ("run", "pages"):
        assert f"    {command} " in done.stdout
    assert "usage: python -m dpcore" in done.stdout


def test_pages_lists_every_page_and_its_example(capsys):
    assert cli.main(["pages"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(PAGES)
    assert any("dpcore/examples/importance-adult.json" in line for line in lines)


# ------------------------------------------------------------------------------------ run --

def test_run_writes_numbers_config_and_figures(small_run):
    expected = run(SMALL)  # the same config in this process
    got = tables(small_run)
    assert set(got) == set(expected.numbers)
    for name, table in expected.numbers.items():
        # Each table's first line labels it a study (its noise comes from the config's seed).
        with (small_run / f"{name}.csv").open(encoding="utf-8") as file:
            assert file.readline() == f"# {STUDY_LABEL}\n"
        csv = pd.read_csv(small_run / f"{name}.csv", skiprows=1)
        assert list(csv.columns) == list(table.columns)
        # CSV keeps 17 significant digits (round trip), so the numbers are equal, not close.
        pd.testing.assert_frame_equal(csv, table.reset_index(drop=True), check_dtype=False,
                                      rtol=0, atol=0)
    assert RunConfig.load(small_run / "config.json") == RunConfig(
        "importance", SMALL["scenario"], expected.controls, SMALL["seed"])
    assert (small_run / "takeaway.txt").read_text().strip() == expected.takeaway()
    html = small_run / "figures" / "estimates_by_lambda.html"
    assert html.read_text(encoding="utf-8").lstrip().lower().startswith(("<html", "<!doctype"))


def test_the_written_config_reruns_to_the_same_numbers_on_two_workers(small_run, tmp_path,
                                                                      capsys):
    out = tmp_path / "again"
    status = cli.main(["run", str(small_run / "config.json"), "--out", str(out), "--backend",
                       "loky", "--workers", "2", "--no-figures", "-q"])
    assert status == 0, capsys.readouterr().err
    assert (out / "numbers.json").read_bytes() == (small_run / "numbers.json").read_bytes()


# The "Choose epsilon" page's logistic-regression study: a grid with one cell per epsilon when
# a backend is given (dpcore/studies/choose_epsilon.py), on Adult.
GRID_ARGS = [str(ROOT / "dpcore" / "examples" / "choose_epsilon-adult.json"),
             "--set", 'ce_target="lr"', "--set", "ce_run_lr=true", "--set", "ce_restarts=3",
             "--no-figures", "-q"]


@pytest.fixture(scope="module")
def grid_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("grid") / "sequential"
    assert cli.main(["run", *GRID_ARGS, "--out", str(out)]) == 0
    return out


def test_grid_page_same_numbers_on_two_loky_workers(grid_run, tmp_path):
    assert cli.main(["run", *GRID_ARGS, "--out", str(tmp_path), "--backend", "loky",
                     "--workers", "2"]) == 0
    assert (tmp_path / "numbers.json").read_bytes() == (grid_run / "numbers.json").read_bytes()
    assert "runs_nonprivate" in tables(tmp_path)  # the grid ran (one column per run)


def test_dask_scheduler_gives_the_same_numbers(small_run, small_config, grid_run, tmp_path,
                                               capsys):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        status = cli.main(["run", str(small_config), "--out", str(tmp_path / "small"),
                           "--scheduler", cluster.scheduler_address, "--no-figures", "-q"])
        assert status == 0, capsys.readouterr().err
        status = cli.main(["run", *GRID_ARGS, "--out", str(tmp_path / "grid"), "--scheduler",
                           cluster.scheduler_address])
        assert status == 0, capsys.readouterr().err
    for name, reference in (("small", small_run), ("grid", grid_run)):
        assert ((tmp_path / name / "numbers.json").read_bytes()
                == (reference / "numbers.json").read_bytes())


def test_example_config_runs_and_is_reproducible(tmp_path):
    """dpcore/examples/importance-adult.json (fewer replicates) gives the numbers of
    dpcore.runs.run."""
    out = tmp_path / "example"
    done = dpcore_cli("run", str(EXAMPLE), "--out", str(out), "--set", "iw_reps=20",
                      "--no-figures", "--quiet")
    assert done.returncode == 0, done.stderr
    config = RunConfig.load(EXAMPLE).with_controls(iw_reps=20)
    expected = run(config)
    got = tables(out)
    for name, table in expected.numbers.items():
        pd.testing.assert_frame_equal(got[name], table.reset_index(drop=True),
                                      check_dtype=False, rtol=0, atol=0)
    assert "takeaway:" in done.stdout and done.stderr == ""  # --quiet: no bar


def test_progress_bar_goes_to_stderr(small_config, tmp_path):
    done = dpcore_cli("run", str(small_config), "--out", str(tmp_path), "--no-figures")
    assert done.returncode == 0
    assert "100%" in done.stderr and "importance (sequential)" in done.stderr
    assert "100%" not in done.stdout


@pytest.mark.skipif(files.chromium_path() is None, reason="no Chromium to render PNGs")
def test_png_figures_through_chromium(small_config, tmp_path, capsys):
    assert cli.main(["run", str(small_config), "--out", str(tmp_path), "-q"]) == 0
    png = tmp_path / "figures" / "estimates_by_lambda.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "1 figure as PNG" in capsys.readouterr().out


def test_without_chromium_the_png_step_says_why(small_config, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli.figure_files, "chromium_path", lambda: None)
    assert cli.main(["run", str(small_config), "--out", str(tmp_path), "-q"]) == 0
    out = capsys.readouterr().out
    assert "PNG skipped: no Chromium found" in out
    assert (tmp_path / "figures" / "estimates_by_lambda.html").exists()
    assert not list(tmp_path.glob("figures/*.png"))


def test_without_kaleido_the_png_step_says_how_to_install_it(small_config, tmp_path, capsys,
                                                             monkeypatch):
    """``pip install .`` without the ``png`` extra: the run names the fix, not just kaleido."""
    monkeypatch.setitem(sys.modules, "kaleido", None)  # importing it now fails
    monkeypatch.setattr(cli.figure_files, "kaleido_installed", lambda: False)
    assert cli.main(["run", str(small_config), "--out", str(tmp_path), "-q"]) == 0
    captured = capsys.readouterr()
    assert "PNG skipped: PNG export needs the kaleido package" in captured.out
    assert "pip install '.[png]'" in captured.out and captured.err == ""
    assert (tmp_path / "figures" / "estimates_by_lambda.html").exists()
    with pytest.raises(RuntimeError, match=r"pip install '\.\[png\]'"):
        files.figure_png(None)


def test_figures_need_neither_the_dashboard_nor_streamlit(small_config, tmp_path, monkeypatch):
    """The figures come from the installed library (dpcore.figures), as outside the checkout."""
    for name in ("ui", "streamlit"):
        monkeypatch.setitem(sys.modules, name, None)  # importing either now fails
    assert cli.main(["run", str(small_config), "--out", str(tmp_path), "-q", "--no-png"]) == 0
    assert (tmp_path / "figures" / "estimates_by_lambda.html").exists()


def test_upload_config_runs_with_its_file(tmp_path, capsys):
    """A single file (split into public and private rows) is named only: the config holds no
    digest of it, and one that an older config holds is dropped, never written again."""
    s = dpcore.load_scenario("three-gaussians")
    data = pd.concat([s.raw_private, s.raw_public]).to_csv(index=False).encode()
    (tmp_path / "data.csv").write_bytes(data)
    config = {**SMALL, "scenario": {
        "source": "Upload", "upload_mode": "One file, split by a rule", "upload_target": None,
        "split_rule": "At random", "split_fraction": 0.5, "seed": 1,
        "files": [{"role": "single", "name": "data.csv", "sha256": sha256(data)}]}}
    path = tmp_path / "upload.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    args = ["run", str(path), "--out", str(tmp_path / "out"), "--no-figures", "-q"]
    assert cli.main([*args, "--file", f"single={tmp_path / 'data.csv'}"]) == 0
    expected = run(config, files={"single": data})
    assert tables(tmp_path / "out")["metrics"].equals(
        expected.numbers["metrics"].reset_index(drop=True))
    written = (tmp_path / "out" / "config.json").read_text(encoding="utf-8")
    assert sha256(data)[:8] not in written and '"name": "data.csv"' in written
    capsys.readouterr()
    # Without the file it says which one to give, by name only.
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert "--file single=PATH" in err and "data.csv" in err and "SHA-256" not in err


def test_two_file_config_checks_the_public_file_only(tmp_path, capsys):
    """The public file is checked against its SHA-256; the private file, named only, is not
    (the config holds nothing computed from it)."""
    s = dpcore.load_scenario("three-gaussians")
    public = s.raw_public.to_csv(index=False).encode()
    private = s.raw_private.to_csv(index=False).encode()
    for name, data in (("e.csv", public), ("d.csv", private),
                       ("other.csv", public + b"0,0,1\n")):
        (tmp_path / name).write_bytes(data)
    config = {**SMALL, "scenario": {
        "source": "Upload", "upload_mode": "Public and private files", "upload_target": None,
        "files": [{"role": "public", "name": "e.csv", "sha256": sha256(public)},
                  {"role": "private", "name": "d.csv"}]}}
    path = tmp_path / "upload.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    args = ["run", str(path), "--out", str(tmp_path / "out"), "--no-figures", "-q"]
    good = ["--file", f"public={tmp_path / 'e.csv'}", "--file", f"private={tmp_path / 'd.csv'}"]
    assert cli.main([*args, *good]) == 0
    assert RunConfig.load(tmp_path / "out" / "config.json").scenario["files"] == \
        config["scenario"]["files"]
    capsys.readouterr()
    # Other public bytes are refused, naming the file and the mismatch.
    assert cli.main([*args, "--file", f"public={tmp_path / 'other.csv'}",
                     "--file", f"private={tmp_path / 'd.csv'}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(PREFIX) and "SHA-256" in err and "e.csv" in err
    # A missing private file is asked for by name, with no digest.
    assert cli.main([*args, "--file", f"public={tmp_path / 'e.csv'}"]) == 2
    err = capsys.readouterr().err
    assert "--file private=PATH" in err and "d.csv" in err and "SHA-256" not in err


# --------------------------------------------------------------------------------- errors --

def _bad_configs(tmp: Path) -> dict[str, Path]:
    bad_json = tmp / "bad.json"
    bad_json.write_text("{not json", encoding="utf-8")
    unknown_page = tmp / "page.json"
    unknown_page.write_text(json.dumps({**SMALL, "page": "nowhere"}), encoding="utf-8")
    bad_seed = tmp / "seed.json"
    bad_seed.write_text(json.dumps({**SMALL, "seed": -1}), encoding="utf-8")
    return {"missing": tmp / "missing.json", "bad_json": bad_json, "page": unknown_page,
            "seed": bad_seed}


@pytest.mark.parametrize(("case", "extra", "message"), [
    ("missing", [], "Cannot read the config"),
    ("bad_json", [], "is not valid JSON"),
    ("page", [], "Unknown page 'nowhere'"),
    ("seed", [], "seed must be a whole number"),
    ("small", ["--file", "private=x.csv"], "cannot read the private file"),
    ("small", ["--file", "nonsense"], "--file expects ROLE=PATH"),
    ("small", ["--file", f"private={__file__}"], "built-in scenario"),
    ("small", ["--workers", "2"], "--workers needs --backend loky or dask"),
    ("small", ["--backend", "loky", "--scheduler", "tcp://h:1"], "--scheduler needs --backend"),
    ("small", ["--backend", "loky", "--workers", "0"], "n_jobs == 0"),
    ("small", ["--blas-threads", "0"], "blas_threads == 0"),
    ("small", ["--set", "iw_epsilon=-1"], "epsilon == -1"),
    ("small", ["--set", "iw_view=nonsense"], "iw_view == 'nonsense'"),
    ("small", ["--seed", "-2"], "--seed must be >= 0"),
])
def test_errors_print_one_line_and_exit_2(case, extra, message, small_config, tmp_path, capsys):
    path = small_config if case == "small" else _bad_configs(tmp_path)[case]
    status = cli.main(["run", str(path), "--out", str(tmp_path / "out"), "-q", *extra])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.startswith(PREFIX) and message in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err


def test_error_exit_from_the_command_line(tmp_path):
    done = dpcore_cli("run", str(tmp_path / "nowhere.json"), "--out", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.startswith(PREFIX) and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_usage_errors_exit_2():
    done = dpcore_cli("run")
    assert done.returncode == 2 and "--out" in done.stderr and "Traceback" not in done.stderr
