"""Runs: a page's numbers recomputed from a JSON config, without the dashboard.

A run config is what a page's "Export this run" gives: the sidebar's choices (the scenario, or the
uploaded files' names, with the SHA-256 of a public file only), every control of the page and its
study seed. :func:`run`
rebuilds the scenario and calls the page's study, ``dpcore.studies.<page>`` (see
:mod:`dpcore.studies.base`), the same study the page calls: the same config gives the same
numbers in the browser, in ``python -m dpcore run`` and in the exported script.

A run is a study: seeded, reproducible, spending no budget. Nothing here releases anything, and
its tables are labelled so where they are written (:data:`STUDY_LABEL`): noise drawn from a
known seed can be drawn again and subtracted, so a study's noisy numbers protect nobody.
"""

from __future__ import annotations

import json
import math
import pprint
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

import dpcore.studies as studies
from dpcore.domains import check_config
from dpcore.runs import scenarios
from dpcore.runs.scenarios import (
    DEFAULT_SCENARIO,
    build_scenario,
    file_roles,
    sha256,
    shareable_files,
)
from dpcore.validation import DataError

if TYPE_CHECKING:
    from dpcore.studies.base import Study

__all__ = ["FORMAT", "PAGES", "STUDY_LABEL", "RunConfig", "RunResult", "build_scenario",
           "file_roles", "numbers_json", "page_module", "run", "script", "sha256",
           "shareable_files"]

FORMAT = "privacy-utility-explorer/run"
VERSION = 1
#: The keys a config object may hold.
_TOP_KEYS = ("format", "version", "page", "scenario", "controls", "seed")
#: What a run's tables are, written where they are saved or printed: their noise comes from a
#: seed that the config holds, so anyone with the config can recompute it and remove it.
STUDY_LABEL = ("study (seeded, reproducible), not a release: its noise is drawn from the "
               "config's seed, so it can be recomputed and removed; publish only a release made "
               "with a page's Publish button")
#: Pages whose numbers a run can recompute (those with a study).
PAGES = studies.names()


def page_module(page: str) -> Study:
    """The study of ``page`` (``dpcore.studies.<page>``)."""
    try:
        return studies.study(page)
    except KeyError:
        raise DataError(f"Unknown page {page!r} in the run config; expected one of "
                        f"{PAGES}.") from None


def _shareable(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario without any digest of a private file (:func:`shareable_files`)."""
    scenario = dict(scenario)
    if "files" in scenario:
        scenario["files"] = shareable_files(scenario["files"])
    return scenario


def _plain(value: Any) -> Any:
    """A JSON-ready copy of a control value (numpy scalars become Python numbers)."""
    if hasattr(value, "item") and callable(value.item):
        return value.item()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class RunConfig:
    """What a page's numbers depend on: its scenario, its controls and its study seed.

    Parameters
    ----------
    page : str
        One of :data:`PAGES`.
    scenario : dict
        The sidebar's choices (see :func:`dpcore.runs.scenarios.build_scenario`). An upload's
        files are written by name, with the SHA-256 of the public file only.
    controls : dict
        The page's widget values by key (missing keys take the page's defaults).
    seed : int
        The page's study seed.

    Examples
    --------
    >>> config = RunConfig("importance", {"builtin_name": "adult"}, {"iw_epsilon": 1.0}, 3)
    >>> RunConfig.from_dict(json.loads(config.to_json())) == config
    True
    """

    page: str
    scenario: dict = field(default_factory=lambda: dict(DEFAULT_SCENARIO))
    controls: dict = field(default_factory=dict)
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The config as the JSON object that exports and the CLI use."""
        return {"format": FORMAT, "version": VERSION, "page": self.page,
                "scenario": _plain(_shareable(self.scenario)), "controls": _plain(self.controls),
                "seed": int(self.seed)}

    def to_json(self) -> str:
        """The config as JSON text (UTF-8, indented, keys in order)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def check(self) -> None:
        """Refuse, before anything runs, a scenario key or a control that the page does not
        have, or a value outside its domain (:func:`dpcore.domains.check_config`, from
        the declarations of :mod:`dpcore.runs.scenarios` and of the page's study).

        Raises
        ------
        DataError
            Naming every refused key, its value and what it must be.
        """
        module = page_module(self.page)
        check_config({k: v for k, v in self.scenario.items() if k != "files"},
                     scenarios.DOMAINS, scenarios.CONTROLS, what="scenario")
        check_config(self.controls, module.DOMAINS, module.CONTROLS,
                     what=f"controls of the {self.page} page")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunConfig:
        """Validate a config object (as read from JSON); raises DataError saying what is wrong
        (:meth:`check`).

        The digest of a private file, which configs exported before the app stopped writing
        it may hold, is dropped (:func:`~dpcore.runs.scenarios.shareable_files`).
        """
        if not isinstance(data, Mapping):
            raise DataError(f"A run config is a JSON object; got {type(data).__name__}.")
        if data.get("format", FORMAT) != FORMAT:
            raise DataError(f"Not a run config of this tool: format {data.get('format')!r}, "
                            f"expected {FORMAT!r}.")
        if data.get("version", VERSION) != VERSION:
            raise DataError(f"Run config version {data.get('version')!r} is not supported; "
                            f"this version reads version {VERSION}.")
        unknown = sorted(set(data) - set(_TOP_KEYS), key=str)
        if unknown:
            raise DataError(f"The run config has unknown key(s) {unknown}: a config holds "
                            f"{list(_TOP_KEYS)}, and a page's controls go inside \"controls\".")
        if "page" not in data:
            raise DataError(f"The run config names no page; add \"page\": one of {PAGES}.")
        page_module(data["page"])  # validates the name
        scenario, controls = data.get("scenario", {}), data.get("controls", {})
        for name, value in (("scenario", scenario), ("controls", controls)):
            if not isinstance(value, Mapping):
                raise DataError(f"The config's {name!r} must be an object; got "
                                f"{type(value).__name__}.")
        seed = data.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise DataError(f"The config's seed must be a whole number >= 0; got {seed!r}.")
        config = cls(data["page"], _shareable(scenario), dict(controls), seed)
        config.check()
        return config

    @classmethod
    def load(cls, path: str | Path) -> RunConfig:
        """Read a config file; raises DataError when it is missing or not valid JSON."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataError(f"Cannot read the config {str(path)!r}: {exc.strerror}.") from exc
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"The config {str(path)!r} is not valid JSON: {exc.msg} at line "
                            f"{exc.lineno}.") from exc
        return cls.from_dict(data)

    def with_controls(self, **controls: Any) -> RunConfig:
        """A copy with some controls changed."""
        return RunConfig(self.page, dict(self.scenario), {**self.controls, **controls}, self.seed)


@dataclass
class RunResult:
    """The numbers of one run, by table name, with the config that produced them."""

    config: RunConfig
    numbers: dict[str, pd.DataFrame]

    def takeaway(self) -> str:
        """Two sentences on what the numbers show, computed from them."""
        return page_module(self.config.page).takeaway(self.numbers, self.params)

    @property
    def params(self) -> Any:
        """The study's parameters for the config (its ``Params``)."""
        return page_module(self.config.page).Params.from_controls(self.controls,
                                                                   self.config.seed)

    @property
    def controls(self) -> dict[str, Any]:
        """The controls the run used: the page's defaults updated with the config's."""
        return {**page_module(self.config.page).CONTROLS, **self.config.controls}

    def to_json(self) -> str:
        """Every table as JSON records, by name (what ``numbers.json`` holds; floats keep all
        17 digits)."""
        return numbers_json(self.numbers)


def _json_value(value: Any) -> Any:
    """A table cell as JSON: numpy scalars as Python numbers (floats keep all 17 digits, so the
    JSON holds the same numbers as the CSV), NaN and missing values as null."""
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def numbers_json(numbers: dict[str, pd.DataFrame]) -> str:
    """Every table as a list of records, by name: the ``numbers.json`` of a run.

    Examples
    --------
    >>> print(numbers_json({"t": pd.DataFrame({"x": [0.1 + 0.2, float("nan")]})}))
    {
      "t": [
        {
          "x": 0.30000000000000004
        },
        {
          "x": null
        }
      ]
    }
    """
    tables = {name: [{str(k): _json_value(v) for k, v in row.items()}
                     for row in table.to_dict(orient="records")]
              for name, table in numbers.items()}
    return json.dumps(tables, indent=2, ensure_ascii=False, allow_nan=False)


def _as_config(config: RunConfig | Mapping[str, Any] | str | Path) -> RunConfig:
    if isinstance(config, RunConfig):
        return config
    if isinstance(config, Mapping):
        return RunConfig.from_dict(config)
    return RunConfig.load(config)


def run(config: RunConfig | Mapping[str, Any] | str | Path, *,
        files: Mapping[str, bytes] | None = None,
        progress: Callable[[float], None] | None = None,
        parallel: Any = None) -> RunResult:
    """Recompute a page's numbers from its run config.

    Parameters
    ----------
    config : RunConfig, mapping, or path of a JSON file
    files : mapping of role to bytes, optional
        The uploaded files of an upload config (``"public"``/``"private"`` or ``"single"``);
        the public file's SHA-256 must match the config's.
    progress : callable, optional
        Called with the fraction done (0 to 1).
    parallel : dpcore.parallel.Parallel, optional
        Where Monte-Carlo grids run (default: in this process). The numbers do not depend on it.

    Returns
    -------
    RunResult

    Raises
    ------
    DataError
        When the config, the files or the choices it holds cannot be used; a key or a value
        that the page cannot take is refused before anything runs (:meth:`RunConfig.check`).
    """
    config = _as_config(config)
    config.check()
    module = page_module(config.page)
    scenario = build_scenario(config.scenario, files)
    params = module.Params.from_controls({**module.CONTROLS, **config.controls}, config.seed)
    numbers = module.compute(scenario, params, progress=progress, parallel=parallel)
    if progress is not None:
        progress(1.0)
    return RunResult(config, numbers)


_SCRIPT = '''"""Recompute the numbers of one run of the privacy/utility explorer ({page} page).

Exported from the dashboard. Run it where dpcore is installed (`pip install .` in the project, or
from the project's root folder):

    python {filename}{file_args}

It prints every table of numbers as CSV: the same numbers as the page showed for this config.
They are a study (seeded, reproducible), not a release: anyone with this script can recompute
their noise and remove it. It also writes the figures as HTML.
"""

import sys
from pathlib import Path

from dpcore.figures import figures
from dpcore.runs import STUDY_LABEL, run

CONFIG = {config}
ROLES = {roles!r}


def main() -> None:
    files = dict(zip(ROLES, (Path(path).read_bytes() for path in sys.argv[1:]), strict=False))
    result = run(CONFIG, files=files)
    print(f"# {{STUDY_LABEL}}")
    for name, table in result.numbers.items():
        print(f"## {{name}}")
        print(table.to_csv(index=False), end="")
    print(f"## takeaway\\n{{result.takeaway()}}")
    for name, fig in figures(result).items():
        fig.write_html(f"{{CONFIG['page']}}-{{name}}.html", include_plotlyjs=True)


if __name__ == "__main__":
    main()
'''


def script(config: RunConfig, filename: str = "rerun.py") -> str:
    """A standalone Python script that recomputes and prints the numbers of ``config``.

    Uploaded files are passed on its command line in the order the config lists them. Its
    output starts with :data:`STUDY_LABEL`.
    """
    roles = file_roles(config.scenario)
    file_args = "".join(f" {role.upper()}_FILE.csv" for role in roles)
    return _SCRIPT.format(page=config.page, filename=filename, file_args=file_args,
                          config=pprint.pformat(config.to_dict(), sort_dicts=False, width=96),
                          roles=roles)
