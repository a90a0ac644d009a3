"""Every study module satisfies the study contract (:class:`dpcore.studies.base.Study`), and a
page's views are named by key in code, links and configs, a label read as its key (issue 36)."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from dpcore import studies
from dpcore.domains import Domain, ViewOf, check
from dpcore.runs import RunConfig
from dpcore.studies.base import Study, StudyParams
from ui.links import known_domains

ROOT = Path(__file__).resolve().parents[1]
NAMES = studies.names()
VIEWED = [name for name in NAMES if studies.study(name).VIEW_LABELS]
FUNCTIONS = ("prepare", "at", "compute", "takeaway")
ATTRIBUTES = ("Params", "CONTROLS", "DOMAINS", "SEED_KEY", "VIEW_LABELS")
POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _signature_problems(name: str, function: object) -> list[str]:
    """How ``function`` fails to take the parameters of the contract's ``name``: each of them,
    of the same kind, positional ones in the same order, optional ones optional; and no other
    parameter that a caller must pass."""
    wanted = [p for p in inspect.signature(getattr(Study, name)).parameters.values()
              if p.name != "self"]
    given = inspect.signature(function).parameters
    problems = []
    first = [p.name for p in wanted if p.kind in POSITIONAL]
    positional = [p.name for p in given.values() if p.kind in POSITIONAL]
    if positional[:len(first)] != first:
        problems.append(f"{name} takes {positional} first")
    for p in wanted:
        if p.name not in given or given[p.name].kind != p.kind:
            problems.append(f"{name} lacks {p.name} ({p.kind.description})")
        elif p.default is not p.empty and given[p.name].default is p.empty:
            problems.append(f"{name} requires {p.name}")
    names = {p.name for p in wanted}
    problems += [f"{name} requires {p.name}, which the contract does not pass"
                 for p in given.values() if p.name not in names and p.default is p.empty
                 and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return problems


def contract_problems(module: object) -> list[str]:
    """Everything in which ``module`` fails :class:`~dpcore.studies.base.Study`."""
    missing = [a for a in (*ATTRIBUTES, *FUNCTIONS) if not hasattr(module, a)]
    if missing:
        return [f"no {a}" for a in missing]
    params = module.Params
    problems = []
    if not (isinstance(params, type) and issubclass(params, StudyParams)):
        return ["Params is not a StudyParams"]
    if module.CONTROLS != params.defaults():
        problems.append("CONTROLS is not Params.defaults()")
    if module.SEED_KEY != params.seed_key():
        problems.append("SEED_KEY is not Params.seed_key()")
    if dict(module.VIEW_LABELS) != dict(params.VIEW_LABELS):
        problems.append("VIEW_LABELS is not Params.VIEW_LABELS")
    problems += [f"DOMAINS[{k!r}] is not a Domain" for k, d in module.DOMAINS.items()
                 if not isinstance(d, Domain)]
    for name in FUNCTIONS:
        problems += _signature_problems(name, getattr(module, name))
    return problems


@pytest.mark.parametrize("name", NAMES)
def test_every_study_satisfies_the_contract(name):
    assert contract_problems(studies.study(name)) == []


def test_the_check_finds_what_a_module_lacks_or_requires():
    study = studies.study("home")

    def prepare(scenario, params, extra, *, progress=None):  # requires one more, lacks one
        return None

    def at(params, prepared):  # its positional parameters in the other order
        return {}

    broken = SimpleNamespace(**{a: getattr(study, a) for a in ATTRIBUTES},
                             prepare=prepare, at=at, compute=study.compute,
                             takeaway=study.takeaway)
    assert contract_problems(broken) == [
        "prepare lacks parallel (keyword-only)",
        "prepare requires extra, which the contract does not pass",
        "at takes ['params', 'prepared'] first"]
    assert contract_problems(SimpleNamespace()) == [f"no {a}" for a in (*ATTRIBUTES, *FUNCTIONS)]


@pytest.mark.parametrize("name", VIEWED)
def test_views_have_keys_and_labels(name):
    study = studies.study(name)
    labels, key = study.VIEW_LABELS, study.Params.key("view")
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", k) for k in labels)
    assert len(set(labels.values())) == len(labels) and not set(labels) & set(labels.values())
    assert study.VIEWS == tuple(labels) and study.CONTROLS[key] == study.VIEWS[0]
    assert isinstance(study.DOMAINS[key], ViewOf) and study.DOMAINS[key].labels == labels


@pytest.mark.parametrize("name", VIEWED)
def test_a_label_from_an_old_link_or_config_reads_as_its_key(name):
    study = studies.study(name)
    key = study.Params.key("view")
    links = known_domains()  # what a link's values are checked against
    for view, label in study.VIEW_LABELS.items():
        assert check(links, key, label) == view == check(links, key, view)
        assert study.Params.from_controls({key: label}).view == view
        assert study.Params(view=label) == study.Params(view=view)
    assert study.Params(view=None).view == study.VIEWS[0]  # a chooser with nothing chosen
    with pytest.raises(ValueError, match=f"{key} == 'Fig. 9'; choose one of"):
        study.Params(view="Fig. 9")
    with pytest.raises(ValueError, match=f"{key} == 'Fig. 9', must be one of"):
        check(study.DOMAINS, key, "Fig. 9")


#: The example configs of the pages with views.
EXAMPLES = [path for path in sorted((ROOT / "dpcore" / "examples").glob("*.json"))
            if json.loads(path.read_text(encoding="utf-8"))["page"] in VIEWED]


def test_every_page_with_views_has_an_example():
    assert {json.loads(p.read_text(encoding="utf-8"))["page"] for p in EXAMPLES} == set(VIEWED)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_an_example_config_written_with_labels_runs_the_same_parameters(path):
    """A config exported before views had keys (its view as the label) passes the checks and
    gives the study the parameters of the same config written with the key."""
    data = json.loads(path.read_text(encoding="utf-8"))
    study = studies.study(data["page"])
    key = study.Params.key("view")
    view = data["controls"][key]
    old = RunConfig.from_dict({**data, "controls": {**data["controls"],
                                                    key: study.VIEW_LABELS[view]}})
    new = RunConfig.from_dict(data)

    def params(config: RunConfig) -> StudyParams:
        return study.Params.from_controls({**study.CONTROLS, **config.controls}, config.seed)

    assert params(old) == params(new) and params(new).view == view
