"""One study per page, three callers: every example config runs with its figures and a takeaway,
and the exported script recomputes the same numbers in a fresh
process (the page itself calls the same study through ``ui.study``)."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dpcore import studies
from dpcore.figures import figures
from dpcore.runs import PAGES, RunConfig, build_scenario, numbers_json, run, script

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "dpcore" / "examples").glob("*.json"))
NUMBER = re.compile(r"-?\d[\d,]*\.?\d*")


def test_every_page_with_a_study_has_an_example_config():
    pages = {json.loads(path.read_text())["page"] for path in EXAMPLES}
    assert pages == set(PAGES) == set(studies.names())


@pytest.mark.slow  # every page's whole study
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_example_config_runs_with_figures_and_a_takeaway_from_its_numbers(path):
    result = run(RunConfig.load(path))
    assert result.numbers and all(isinstance(t, pd.DataFrame) for t in result.numbers.values())
    figs = figures(result)
    assert figs and all(fig.data for fig in figs.values())
    text = result.takeaway()  # each study's own tests check the numbers it quotes
    assert text.endswith(".") and len(text.split(". ")) >= 2 and NUMBER.search(text)


@pytest.mark.slow
def test_the_exported_script_prints_the_runs_numbers_in_a_fresh_process(tmp_path):
    config = RunConfig("importance", {"builtin_name": "wine"},
                       {"iw_epsilon": 0.3, "iw_reps": 20, "iw_q_kind": "Mean of a column"}, 4)
    path = tmp_path / "rerun.py"
    path.write_text(script(config), encoding="utf-8")
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         cwd=tmp_path, check=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
    for name, table in run(config).numbers.items():
        assert f"## {name}\n{table.to_csv(index=False)}" in out
    assert sorted(p.name for p in tmp_path.glob("importance-*.html"))


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_prepared_parts_and_numbers_pickle(path):
    """What the page caches (the prepared part, after an ε has been computed on it, and the
    tables) can be copied as bytes: the shared store holds nothing tied to a thread or a lock."""
    config = RunConfig.load(path)
    study = studies.study(config.page)
    params = study.Params.from_controls({**study.CONTROLS, **config.controls}, config.seed)
    ready = study.prepare(build_scenario(config.scenario), params)
    numbers = study.at(ready, params)
    copy = pickle.loads(pickle.dumps((ready, numbers)))
    assert numbers_json(study.at(copy[0], params)) == numbers_json(numbers)
