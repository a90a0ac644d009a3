"""The scenario of a run config: the sidebar's choices, rebuilt without Streamlit.

A config stores the sidebar's widget values (see ``ui/sidebar.py``), never data. A built-in
scenario is loaded from them; an uploaded one needs the files' bytes. A config names each file;
a public file also by its SHA-256, which the run checks, so that a run never silently uses
another public set than the page did. A private file (and a single file that is split into
public and private rows) is named only: its digest, like any other function of its bytes, would
let anyone who holds the config test guesses about the private rows (knowing all rows but one,
the last is found by hashing candidates), so a config never holds it (:func:`shareable_files`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from dpcore.datasets import (
    PUBLIC_OPTIONS,
    Scenario,
    list_scenarios,
    load_scenario,
    read_csv_upload,
    scenario_from_uploads,
    split_by_value,
    split_random,
    type_columns,
)
from dpcore.domains import Between, FromData, NamesFromData, OneOf
from dpcore.validation import DataError

__all__ = ["AT_RANDOM", "BUILTIN", "BY_VALUE", "CONTROLS", "ONE_FILE", "TWO_FILES", "UPLOAD",
           "UPLOAD_SEED", "DEFAULT_SCENARIO", "DIGEST_ROLES", "DOMAINS", "ROLES",
           "build_scenario", "file_roles", "sha256", "shareable_files", "unused_keys"]

BUILTIN, UPLOAD = "Built-in", "Upload"
TWO_FILES, ONE_FILE = "Public and private files", "One file, split by a rule"
BY_VALUE, AT_RANDOM = "By a column value (biased)", "At random"
UPLOAD_SEED = 0  # the sidebar's seed of a split when its seed box is empty

#: The sidebar's initial choice: the Adult scenario with its own public set and seed.
DEFAULT_SCENARIO: dict[str, Any] = {
    "source": BUILTIN, "builtin_name": "adult", "builtin_public": "default",
    "builtin_encoding": "onehot", "builtin_p": 2, "builtin_shift": "paper", "seed": None,
}
#: Every sidebar control with its initial value (the scenario keys of a link or a run config).
CONTROLS: dict[str, Any] = {
    **DEFAULT_SCENARIO, "upload_mode": TWO_FILES, "upload_target": None,
    "upload_positive": None, "upload_exclude": [], "upload_categorical": [],
    "upload_as_missing": [],
    "upload_drop_missing": False, "split_rule": AT_RANDOM, "split_column": None,
    "split_value": None, "split_p": 0.9, "split_fraction": 0.5,
}
# Options of load_scenario that only some built-in scenarios take (as in the sidebar).
_ENCODING_SCENARIOS = {"adult"}
_DIMENSION_SCENARIOS = {"mvn-shift"}
#: Each such option's sidebar key, and the built-in scenarios that take it.
_OPTION_SCENARIOS = {"builtin_encoding": _ENCODING_SCENARIOS, "builtin_p": _DIMENSION_SCENARIOS,
                     "builtin_shift": _DIMENSION_SCENARIOS}
#: The keys of one file's split, and those each rule reads.
_SPLIT_KEYS = ("split_rule", "split_column", "split_value", "split_p", "split_fraction")
_RULE_KEYS = {BY_VALUE: ("split_rule", "split_column", "split_value", "split_p"),
              AT_RANDOM: ("split_rule", "split_fraction")}
#: The roles of an upload's files, and those whose SHA-256 a config may hold: the public file's
#: only. A private file, or a single file split into public and private rows, is named only.
ROLES = ("public", "private", "single")
DIGEST_ROLES = ("public",)
#: The values each of the sidebar's controls can take (:mod:`dpcore.domains`); a target,
#: a split column and its value are read off the uploaded data.
DOMAINS = {
    "source": OneOf((BUILTIN, UPLOAD)), "builtin_name": OneOf(tuple(list_scenarios())),
    "builtin_public": OneOf(PUBLIC_OPTIONS), "builtin_encoding": OneOf(("onehot", "compact")),
    "builtin_p": Between(1, 100, integer=True), "builtin_shift": OneOf(("paper", "first", "all")),
    "seed": Between(0, 2**53 - 1, integer=True, optional=True),
    "upload_mode": OneOf((TWO_FILES, ONE_FILE)), "upload_target": FromData(),
    "upload_positive": FromData(), "upload_exclude": NamesFromData(),
    "upload_categorical": NamesFromData(), "upload_as_missing": NamesFromData(),
    "split_rule": OneOf((AT_RANDOM, BY_VALUE)), "split_column": FromData(),
    "split_value": FromData(), "split_p": Between(0.5, 1.0), "split_fraction": Between(0.1, 0.9),
}


def sha256(data: bytes) -> str:
    """Hex SHA-256 of a file's bytes (what a config records instead of the data)."""
    return hashlib.sha256(data).hexdigest()


def shareable_files(files: Any) -> list[dict[str, str]]:
    """An upload's files as a config or a link may hold them: each file's role and name, and the
    SHA-256 of a public file; any digest of another file is dropped.

    Raises
    ------
    DataError
        When ``files`` is not a list of ``{"role", "name"}`` objects with known roles.

    Examples
    --------
    >>> shareable_files([{"role": "public", "name": "e.csv", "sha256": "ab" * 32},
    ...                  {"role": "private", "name": "d.csv", "sha256": "cd" * 32}])[1]
    {'role': 'private', 'name': 'd.csv'}
    """
    if not isinstance(files, list | tuple):
        raise DataError(f"The config's upload files must be a list; got {type(files).__name__}.")
    shared = []
    for entry in files:
        if not isinstance(entry, Mapping) or entry.get("role") not in ROLES:
            raise DataError(f"Each upload file is an object with a role (one of {ROLES}) and a "
                            f"name; got {entry!r}.")
        item = {"role": str(entry["role"]), "name": str(entry.get("name", entry["role"]))}
        digest = entry.get("sha256")
        if item["role"] in DIGEST_ROLES and digest is not None:
            if not (isinstance(digest, str) and len(digest) == 64
                    and all(c in "0123456789abcdef" for c in digest)):
                raise DataError(f"The {item['role']} file's SHA-256 must be 64 hex digits; got "
                                f"{digest!r}.")
            item["sha256"] = digest
        shared.append(item)
    return shared


def file_roles(spec: Mapping[str, Any]) -> list[str]:
    """The roles of the files an upload config needs (``"public"``, ``"private"`` or
    ``"single"``); empty for a built-in scenario."""
    if spec.get("source", BUILTIN) != UPLOAD:
        return []
    return [entry["role"] for entry in spec.get("files", [])]


def build_scenario(spec: Mapping[str, Any], files: Mapping[str, bytes] | None = None) -> Scenario:
    """Rebuild the scenario that the sidebar's choices ``spec`` describe.

    Parameters
    ----------
    spec : mapping
        The sidebar's widget values (keys of :data:`DEFAULT_SCENARIO`, or for uploads
        ``upload_mode``, ``upload_target``, ``upload_positive``, ``upload_exclude``,
        ``upload_categorical``, ``upload_as_missing``, ``upload_drop_missing``, ``split_*``
        and ``files``:
        a list of ``{"role", "name"}``, with the ``"sha256"`` of a public file). Missing keys
        take the sidebar's defaults.
    files : mapping of str to bytes, optional
        The uploaded files' bytes by role; required for an upload scenario.

    Returns
    -------
    Scenario

    Raises
    ------
    DataError
        If a file is missing or a public file's SHA-256 differs from the config's, or the
        choices are not valid (unknown scenario, refused split or encoding).

    Examples
    --------
    >>> build_scenario({"builtin_name": "three-gaussians"}).name
    'three-gaussians'
    """
    source = spec.get("source", BUILTIN)
    if source == BUILTIN:
        return _builtin(spec)
    if source != UPLOAD:
        raise DataError(f"The config's scenario source must be {BUILTIN!r} or {UPLOAD!r}, got "
                        f"{source!r}.")
    return _upload(spec, files or {})


def unused_keys(spec: Mapping[str, Any]) -> set[str]:
    """The sidebar keys that the scenario of ``spec`` does not read (left out of its config and
    its link): a built-in's option that only other built-ins take (Adult's encoding, the
    simulation's p and shift), the split keys of an upload of two files, and of one file those
    of the other split rule.

    >>> sorted(unused_keys({"source": BUILTIN, "builtin_name": "adult"}))
    ['builtin_p', 'builtin_shift']
    >>> sorted(unused_keys({"source": UPLOAD, "upload_mode": ONE_FILE, "split_rule": AT_RANDOM}))
    ['split_column', 'split_p', 'split_value']
    """
    values = {**CONTROLS, **spec}
    if values["source"] == BUILTIN:
        return {key for key, names in _OPTION_SCENARIOS.items()
                if values["builtin_name"] not in names}
    if values["upload_mode"] != ONE_FILE:
        return set(_SPLIT_KEYS)
    return set(_SPLIT_KEYS) - set(_RULE_KEYS.get(values["split_rule"], _SPLIT_KEYS))


def _builtin(spec: Mapping[str, Any]) -> Scenario:
    values = {**DEFAULT_SCENARIO, **spec}
    name = values["builtin_name"]
    if name not in list_scenarios():
        raise DataError(f"Unknown built-in scenario {name!r}; choose one of {list_scenarios()}.")
    options: dict[str, Any] = {}
    if name in _ENCODING_SCENARIOS:
        options["encoding"] = values["builtin_encoding"]
    if name in _DIMENSION_SCENARIOS:
        options["p"] = int(values["builtin_p"])
        options["shift"] = values["builtin_shift"]
    try:
        return load_scenario(name, rng=values["seed"], public=values["builtin_public"], **options)
    except ValueError as exc:
        raise DataError(str(exc)) from exc


def _file(entry: Mapping[str, Any], files: Mapping[str, bytes]) -> bytes:
    role, name = entry["role"], entry.get("name", entry["role"])
    digest = entry.get("sha256") if role in DIGEST_ROLES else None  # a private one: never read
    if role not in files:
        known = f" (SHA-256 {digest[:12]}…)" if digest else ""
        raise DataError(f"This config was made on uploaded files: give the {role} file "
                        f"{name!r}{known}, e.g. `--file {role}=PATH` on the command line.")
    data = files[role]
    if digest and sha256(data) != digest:
        raise DataError(f"The {role} file given is not the one this config was made on: its "
                        f"SHA-256 is {sha256(data)[:12]}…, the config expects "
                        f"{entry['sha256'][:12]}… ({name!r}). Give the same file.")
    return data


def _upload(spec: Mapping[str, Any], files: Mapping[str, bytes]) -> Scenario:
    entries = {entry["role"]: entry for entry in shareable_files(spec.get("files", []))}
    mode = spec.get("upload_mode", TWO_FILES)
    names = [entry.get("name", role) for role, entry in entries.items()]
    as_missing = [str(name) for name in spec.get("upload_as_missing") or ()]
    if mode == TWO_FILES:
        if set(entries) != {"public", "private"}:
            raise DataError("An upload config with two files lists a 'public' and a 'private' "
                            f"file; this one lists {sorted(entries)}.")
        public = read_csv_upload(_file(entries["public"], files), entries["public"]["name"],
                                 as_missing=as_missing)
        private = read_csv_upload(_file(entries["private"], files), entries["private"]["name"],
                                  private=True)  # as the app reads it: no cell refuses it
        names = [entries["public"]["name"], entries["private"]["name"]]
    elif mode == ONE_FILE:
        if set(entries) != {"single"}:
            raise DataError("An upload config split by a rule lists one 'single' file; this "
                            f"one lists {sorted(entries)}.")
        frame = read_csv_upload(_file(entries["single"], files), entries["single"]["name"],
                                private=True)
        seed = spec.get("seed")
        rng = UPLOAD_SEED if seed is None else int(seed)
        if spec.get("split_rule", AT_RANDOM) == BY_VALUE and spec.get("split_value") is None:
            raise DataError(
                f"This config splits {entries['single']['name']!r} by the value of "
                f"{spec.get('split_column')!r} but holds no value: the values offered "
                "are read off every row of the file, private ones included, so the app "
                "leaves the chosen one out of configs and links unless its box \"Put "
                "this value in the page's link and exported config\" is ticked. Add "
                "\"split_value\" to the config's scenario, or tick the box and export "
                "again.")
        try:
            if spec.get("split_rule", AT_RANDOM) == BY_VALUE:
                private, public = split_by_value(frame, spec["split_column"], spec["split_value"],
                                                 p=float(spec.get("split_p", 0.9)), rng=rng)
            else:
                private, public = split_random(frame, float(spec.get("split_fraction", 0.5)),
                                               rng=rng)
            public = type_columns(public, f"the public part of {entries['single']['name']!r}",
                                  as_missing=as_missing)
        except (KeyError, ValueError) as exc:
            raise DataError(f"The config's split cannot be applied: {exc}") from exc
    else:
        raise DataError(f"Unknown upload mode {mode!r}; expected {TWO_FILES!r} or {ONE_FILE!r}.")
    missing = "drop" if spec.get("upload_drop_missing", False) else "impute"
    try:
        scenario, _ = scenario_from_uploads(
            private, public, target=spec.get("upload_target"),
            positive=spec.get("upload_positive") if spec.get("upload_target") else None,
            exclude=list(spec.get("upload_exclude") or ()),
            categorical=list(spec.get("upload_categorical") or ()), public_missing=missing,
            title="Uploaded data: " + " + ".join(names))
    except ValueError as exc:
        raise DataError(str(exc)) from exc
    return scenario
