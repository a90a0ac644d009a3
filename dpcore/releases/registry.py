"""The registry: one line per page that publishes, and what is gathered from their modules.

:data:`RELEASES` (what the decision page reads) and the release cases of the audit catalogue
(:data:`AUDIT_CASES`, :data:`AUDIT_FAULTS`, read by :mod:`dpcore.releases.catalogue`) and their
one-run audits (:data:`ONE_RUN`) are built here
from the modules of :data:`MODULES`, in its order (the decision page lists the releases in it),
not kept as tables of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import dpcore.releases.importance as importance
import dpcore.releases.masking as masking
import dpcore.releases.perturbation as perturbation
import dpcore.releases.primer as primer
import dpcore.releases.subset as subset
from dpcore.audit.case import AuditCase
from dpcore.audit.onerun import OneRunCase
from dpcore.releases.base import Release

__all__ = ["AUDIT_CASES", "AUDIT_FAULTS", "MODULES", "ONE_RUN", "RELEASES"]

#: The release modules, one per page that publishes.
MODULES: tuple[ModuleType, ...] = (importance, perturbation, masking, subset, primer)

#: The pages whose release a decision can be about, by page name.
RELEASES: dict[str, Release] = {m.DECISION.page: m.DECISION for m in MODULES
                               if m.DECISION is not None}
#: The releases' audit cases: key -> builder of the case at a claimed ε.
AUDIT_CASES: dict[str, Callable[[float], AuditCase]] = {
    key: build for m in MODULES for key, build in m.AUDIT_CASES.items()}
#: The keys of :data:`AUDIT_CASES` that are broken on purpose.
AUDIT_FAULTS: tuple[str, ...] = tuple(key for m in MODULES for key in m.AUDIT_FAULTS)
#: The releases' one-run audits: key -> builder at a claimed ε and a number of canaries.
ONE_RUN: dict[str, Callable[..., OneRunCase]] = {
    key: build for m in MODULES for key, build in m.ONE_RUN.items()}
