"""Every value of a run config is checked before anything runs (``dpcore.runs.RunConfig.check``).

``python -m dpcore run`` once ran a whole study on ``iw_epsilon = -1`` before refusing it in
words about ``epsilon``, and met ``iw_reps = "abc"`` with ``invalid literal for int()``. Now
every key of every example config, given a value of the wrong type, a negative one or one past
the page's range, is refused at once by the command line: one line that names the key and what
it must be, with no scenario built and no study started (both are replaced here by functions
that fail the test); so is every other control of each page and every key of the sidebar. The
checks come from the declarations (each study's ``DOMAINS`` and ``CONTROLS``, the sidebar's in
``dpcore.runs.scenarios``), so a new control is checked too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import dpcore.runs
from dpcore import cli, studies
from dpcore.domains import Between, NotFromLink, OneOf
from dpcore.runs import RunConfig, scenarios

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "dpcore" / "examples").glob("*.json"))
PREFIX = "python -m dpcore: error: "
#: A value no control takes: an object holding a list.
NOTHING_TAKES = {"bad": [1]}


def bad_values(domain, default) -> list:
    """Values the control must refuse, from its declaration: every control refuses
    :data:`NOTHING_TAKES`; a number (or a switch) a word; a switch a number; a control of
    positive numbers -1; a bounded one a value past its largest."""
    bad = [NOTHING_TAKES]
    numeric = (isinstance(domain, OneOf | Between) and not (
        isinstance(domain, OneOf) and any(isinstance(o, str) for o in domain.options)))
    if isinstance(default, bool):
        bad += ["abc", 2]
    elif numeric:
        bad.append("abc")
    if isinstance(domain, OneOf) and numeric:
        numbers = [o for o in domain.options if o is not None]
        if min(numbers) > 0:
            bad.append(-1)
        bad.append(10 * max(numbers) + 1)
    if isinstance(domain, Between):
        if domain.low is not None and domain.low >= 0:
            bad.append(-1)
        if domain.high is not None:
            bad.append(2 * domain.high + 1)
    return bad


def cases() -> list:
    """Every control of every page, on its example config, and every sidebar key, on one."""
    found = []
    for path in EXAMPLES:
        module = studies.study(json.loads(path.read_text(encoding="utf-8"))["page"])
        for key, default in module.CONTROLS.items():
            for value in bad_values(module.DOMAINS.get(key), default):
                found.append(pytest.param(path, "controls", key, value,
                                          id=f"{path.stem}-{key}={json.dumps(value)}"))
    path = ROOT / "dpcore" / "examples" / "importance-adult.json"
    for key, default in scenarios.CONTROLS.items():
        for value in bad_values(scenarios.DOMAINS.get(key), default):
            found.append(pytest.param(path, "scenario", key, value,
                                      id=f"scenario-{key}={json.dumps(value)}"))
    return found


@pytest.fixture
def no_work(monkeypatch):
    """Building a scenario or starting any study fails the test."""
    def forbidden(*args, **kwargs):
        pytest.fail("work started before the config was checked")

    monkeypatch.setattr(dpcore.runs, "build_scenario", forbidden)
    for name in studies.names():
        for stage in ("prepare", "compute"):
            monkeypatch.setattr(studies.study(name), stage, forbidden)


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    """Where a run would write (it never does: each is refused)."""
    return tmp_path_factory.mktemp("refused") / "out"


@pytest.fixture
def small_config_path(tmp_path) -> Path:
    path = tmp_path / "small.json"
    path.write_text(json.dumps({"page": "importance", "scenario": {
        "builtin_name": "three-gaussians"}, "controls": {"iw_reps": 40}}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("path", "part", "key", "value"), cases())
def test_a_bad_value_is_refused_naming_its_key_before_any_work(path, part, key, value, out,
                                                               no_work, capsys):
    if part == "controls":  # as the command line's --set gives it
        args = [str(path), "--set", f"{key}={json.dumps(value)}"]
    else:
        config = json.loads(path.read_text(encoding="utf-8"))
        config[part][key] = value
        bad = out.parent / "bad.json"
        bad.write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
        args = [str(bad)]
    status = cli.main(["run", *args, "--out", str(out), "-q"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(PREFIX) and err.count("\n") == 1
    assert f"{key} == " in err and "must be" in err
    assert not out.exists()


def test_the_reported_values_name_the_key_and_its_range(small_config_path, no_work, capsys,
                                                        tmp_path):
    """The issue's two: both refused in one message, each with its key and its range."""
    status = cli.main(["run", str(small_config_path), "--out", str(tmp_path), "-q",
                       "--set", "iw_epsilon=-1", "--set", 'iw_reps="abc"'])
    err = capsys.readouterr().err
    assert status == 2
    assert "iw_epsilon == -1, must be a number from 0.01 to 10" in err
    assert "iw_reps == 'abc', must be a whole number from 20 to 200" in err


def test_an_unknown_key_is_refused_with_the_nearest_control(no_work):
    with pytest.raises(ValueError, match=r"iw_epsilom is unknown \(did you mean iw_epsilon\?\)"):
        RunConfig.from_dict({"page": "importance", "controls": {"iw_epsilom": 1.0}})
    with pytest.raises(ValueError, match="scenario cannot run: builtin_nam is unknown"):
        RunConfig.from_dict({"page": "importance", "scenario": {"builtin_nam": "wine"}})


def test_a_control_outside_controls_is_refused(no_work):
    """A control written at the top level would otherwise be ignored and run at its default."""
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['iw_epsilon'\]"):
        RunConfig.from_dict({"page": "importance", "iw_epsilon": -1})


def test_a_config_built_in_code_is_checked_by_run_too(no_work):
    with pytest.raises(ValueError, match="iw_reps == 2.5, must be a whole number"):
        dpcore.runs.run(RunConfig("importance", {"builtin_name": "wine"}, {"iw_reps": 2.5}))


def test_values_between_the_options_of_a_slider_are_accepted():
    """A study computes between a slider's steps: a run may ask for them."""
    config = RunConfig.from_dict({"page": "importance", "controls": {
        "iw_epsilon": 0.15, "iw_reps": 40, "iw_lambda": 0.004, "iw_models": True}})
    assert config.controls["iw_reps"] == 40


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_every_example_config_passes(path):
    RunConfig.load(path).check()


@pytest.mark.parametrize("name", studies.names())
def test_every_control_is_declared_so_that_a_run_checks_it(name):
    """Each control has a domain, or is a switch (its default's type is its domain); a table
    editor's state names its columns, so that a run config's edits are checked."""
    module = studies.study(name)
    for key, default in module.CONTROLS.items():
        domain = module.DOMAINS.get(key)
        assert domain is not None or isinstance(default, bool), key
        if isinstance(domain, NotFromLink):
            assert domain.columns and domain.rows, key
            assert domain.in_run().problem(default) is None, key
