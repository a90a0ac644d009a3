"""A page's run as a config: what "Export this run", the script, the CLI line and links hold.

A config (the ``privacy-utility-explorer/run`` format of :class:`dpcore.runs.RunConfig`) is the
sidebar's scenario keys, the page's controls (``CONTROLS`` of its study, see
:mod:`ui.registry`) and its seed, read from the session's state. It never holds data, nor anything
computed from a private file: an upload is named by its files' names, and the public file also by
its SHA-256 (:func:`dpcore.runs.shareable_files`). Controls that a page fills in from a study of
the private data (``SET_FROM_DATA`` of a study, such as the subset size that Algorithm 2 selected)
are left unset in the config of an upload.

One file split by a column value: the columns offered to split by and their values are read off
every row of the file, private rows included, so the value the user picks (a rare value tells
that a record holding it is in the file) is left out of the config, and so of the script and the
link, unless the user ticks the box that puts it there (:data:`SHARE_SPLIT_VALUE`, drawn beside
the value in the sidebar). A config without it names the split but cannot rerun it.

A file name can itself be sensitive ("layoffs_2027.csv"): a file with private rows (the private
file, or the one file split into E and D) is called "the private file" ("the uploaded file") in
configs and links, unless the owner ticks the box that puts its name there
(:data:`SHARE_PRIVATE_NAME`, drawn under the uploaders). The public file keeps its name.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import ui.registry as registry
from dpcore.runs import RunConfig, script, shareable_files
from dpcore.runs.scenarios import BY_VALUE, ONE_FILE, unused_keys

__all__ = ["HIDDEN_NAMES", "PREFIXES", "SHARE_PRIVATE_NAME", "SHARE_SPLIT_VALUE", "SOURCE_KEYS",
           "STUDY", "UPLOAD_FILES_KEY",
           "cli_command", "config_json", "config_script", "control_defaults", "plain",
           "run_config", "scenario_spec", "seed_key"]

#: The widget-key prefix of each page that has a study (empty for a study without controls).
PREFIXES: dict[str, str] = {entry.name: entry.prefix for entry in registry.PAGES
                            if entry.study is not None}
CONFIG_FORMAT = "privacy-utility-explorer/run"
CONFIG_VERSION = 1
#: The sidebar's scenario keys that belong to each data source (the rest are not exported).
SOURCE_KEYS = {
    "Built-in": ("source", "builtin_name", "builtin_public", "builtin_encoding", "builtin_p",
                 "builtin_shift", "seed"),
    "Upload": ("source", "upload_mode", "upload_target", "upload_positive", "upload_exclude",
               "upload_categorical", "upload_as_missing", "upload_drop_missing", "split_rule",
               "split_column", "split_value", "split_p", "split_fraction", "seed"),
}
UPLOAD_FILES_KEY = "upload_files"
#: The sidebar's checkbox (a session key, never a link's or a config's) that puts the split value
#: of one file split by a column value into the config and the link (module notes).
SHARE_SPLIT_VALUE = "split_value_shared"
#: The sidebar's checkbox (a session key, never a link's or a config's) that puts the names of
#: the files with private rows into the config and the link (module notes).
SHARE_PRIVATE_NAME = "private_name_shared"
#: What a config and a link call a file with private rows whose name is not shared.
HIDDEN_NAMES = {"private": "the private file", "single": "the uploaded file"}
#: What an exported run's numbers are (:data:`dpcore.runs.STUDY_LABEL` in short).
STUDY = "study (seeded, reproducible), not a release"


def plain(value: Any) -> Any:
    """A widget value as JSON: numpy scalars as Python numbers, tuples as lists."""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    return value


def seed_key(page: str) -> str | None:
    """The page's seed widget key (None for a page without a seed)."""
    study = registry.page(page).study
    return study.SEED_KEY if study is not None else None


def control_defaults(page: str) -> dict[str, Any]:
    """The page's control keys with their defaults (``CONTROLS`` of its study)."""
    study = registry.page(page).study
    return dict(study.CONTROLS) if study is not None else {}


def scenario_spec(state: Mapping[str, Any]) -> dict[str, Any]:
    """The sidebar's scenario keys as set (those of the chosen source that its scenario reads:
    :func:`dpcore.runs.scenarios.unused_keys`), and for an upload the
    files' roles and names, with the public file's SHA-256 (never their bytes, nor anything
    computed from a private file; the name of a file with private rows only where the user
    ticked :data:`SHARE_PRIVATE_NAME`); the split value of one file split by a column value only
    where the user ticked :data:`SHARE_SPLIT_VALUE`."""
    source = state.get("source", "Built-in")
    spec = {key: plain(state[key]) for key in SOURCE_KEYS.get(source, ()) if key in state}
    for key in unused_keys(spec):  # kept by the sidebar for another choice: not this one's
        spec.pop(key, None)
    if source == "Upload":
        files = shareable_files(list(state.get(UPLOAD_FILES_KEY, [])))
        if not state.get(SHARE_PRIVATE_NAME):
            files = [{**f, "name": HIDDEN_NAMES[f["role"]]} if f["role"] in HIDDEN_NAMES else f
                     for f in files]
        spec["files"] = files
        by_value = (state.get("upload_mode") == ONE_FILE and state.get("split_rule") == BY_VALUE)
        if not (by_value and state.get(SHARE_SPLIT_VALUE)):  # read off private rows too
            spec.pop("split_value", None)
    return spec


def run_config(page: str, state: Mapping[str, Any]) -> dict[str, Any]:
    """The run on screen as a config dict (the issue-12 contract's format).

    ``controls`` holds the values the page's controls have (their defaults where a control was
    not drawn yet, and for an upload where the page set it from a study of the private data:
    ``SET_FROM_DATA``); ``seed`` is the page's study seed (0 for a page without one).
    """
    key = seed_key(page)
    study = registry.page(page).study
    from_data = (getattr(study, "SET_FROM_DATA", ()) if state.get("source") == "Upload"
                 else ())
    controls = {k: plain(state[k] if k in state and k not in from_data else default)
                for k, default in control_defaults(page).items() if k != key}
    seed = state.get(key) if key else None
    return {"format": CONFIG_FORMAT, "version": CONFIG_VERSION, "page": page,
            "scenario": scenario_spec(state), "controls": controls,
            "seed": int(seed) if seed is not None else 0}


def config_json(config: Mapping[str, Any]) -> str:
    """The config as JSON, validated by :meth:`dpcore.runs.RunConfig.from_dict`."""
    return RunConfig.from_dict(dict(config)).to_json()


def config_script(config: Mapping[str, Any]) -> str:
    """The standalone script that reruns the config (:func:`dpcore.runs.script`)."""
    return script(RunConfig.from_dict(dict(config)))


def cli_command(config: Mapping[str, Any], config_file: str) -> str:
    """The command line that reruns the config (uploads: one ``--file ROLE=PATH`` per file)."""
    parts = ["python", "-m", "dpcore", "run", config_file, "--out", Path(config_file).stem]
    for f in config["scenario"].get("files", []):
        parts += ["--file", f"{f['role']}={f['name']}"]
    return shlex.join(parts)
