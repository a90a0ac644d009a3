"""The registry of releases: every release module is in it, and the decision page's releases
and the audit catalogue's release cases are gathered from the modules."""

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import dpcore.releases
from dpcore.decision import RELEASES
from dpcore.releases.catalogue import BROKEN_KEYS, CASE_KEYS
from dpcore.releases.registry import AUDIT_CASES, AUDIT_FAULTS, MODULES

ROOT = Path(__file__).resolve().parents[1]
PAGES = [m.__name__.rpartition(".")[2] for m in MODULES]


def test_every_release_module_is_registered_once():
    found = {m.name for m in pkgutil.iter_modules(dpcore.releases.__path__)} - {
        "base", "registry", "catalogue", "sensitivity"}
    assert sorted(PAGES) == sorted(found)
    assert all((ROOT / "pages" / f"{page}.py").exists() for page in PAGES)


@pytest.mark.parametrize("module", MODULES, ids=PAGES)
def test_a_release_module_holds_its_builder_decision_and_cases(module):
    assert callable(module.publish)
    assert set(module.AUDIT_FAULTS) <= set(module.AUDIT_CASES)
    if module.DECISION is not None:
        assert RELEASES[module.DECISION.page] is module.DECISION
        assert module.DECISION.page == module.__name__.rpartition(".")[2]


def test_the_decision_page_reads_the_modules_in_the_registry_order():
    assert list(RELEASES) == [m.DECISION.page for m in MODULES if m.DECISION is not None]


def test_the_audit_catalogue_holds_every_release_case():
    assert set(AUDIT_CASES) <= set(CASE_KEYS)
    assert set(AUDIT_FAULTS) <= set(BROKEN_KEYS)
    assert not set(AUDIT_CASES) - set(AUDIT_FAULTS) & set(BROKEN_KEYS)
    for key, build in AUDIT_CASES.items():
        case = build(1.0)
        assert case.key == key and case.broken == (key in AUDIT_FAULTS)


@pytest.mark.parametrize("first", ["dpcore.releases.importance", "dpcore.audit",
                                   "dpcore.decision", "dpcore.releases.registry",
                                   "dpcore.releases.catalogue", "dpcore.audit.cases"])
def test_any_entry_module_imports_first(first):
    """The catalogue reads the releases and the releases read :mod:`dpcore.audit.case`: no
    order of first imports meets a module half imported."""
    script = (f"import {first}\n"
              "import dpcore.decision as D, dpcore.releases.catalogue as C\n"
              "assert 'importance_release' in C.CASE_KEYS and 'importance' in D.RELEASES\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
