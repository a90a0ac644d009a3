"""The audit catalogue: every case the audit page attacks, in its order.

The mechanisms' own cases (:data:`dpcore.audit.cases.MECHANISM_CASES`), each release's
(``AUDIT_CASES`` of its module, gathered by :mod:`dpcore.releases.registry`), then the
deliberate faults ("broken on purpose": the mechanisms', then the releases', e.g. Wang et al.'s
as-printed accounting of the selection step), and every release's one-run audit
(:data:`ONE_RUN_KEYS`, ``ONE_RUN`` of its module). It sits above the releases, which build their
cases from :mod:`dpcore.audit`, and below the studies that read it (the audit page's).
"""

from __future__ import annotations

from collections.abc import Callable

from dpcore.audit.case import AuditCase
from dpcore.audit.cases import MECHANISM_CASES, MECHANISM_FAULTS
from dpcore.audit.onerun import OneRunCase
from dpcore.releases.registry import AUDIT_CASES, AUDIT_FAULTS, ONE_RUN

__all__ = ["BROKEN_KEYS", "CASE_KEYS", "ONE_RUN_KEYS", "audit_case", "audit_cases",
           "one_run_case"]

#: Every case, in the order the audit page lists them: the mechanisms, the releases, then the
#: faults (the mechanisms', then the releases').
_BUILDERS: dict[str, Callable[[float], AuditCase]] = {
    **MECHANISM_CASES,
    **{key: build for key, build in AUDIT_CASES.items() if key not in AUDIT_FAULTS},
    **MECHANISM_FAULTS,
    **{key: AUDIT_CASES[key] for key in AUDIT_FAULTS},
}

CASE_KEYS = tuple(_BUILDERS)
BROKEN_KEYS = (*MECHANISM_FAULTS, *AUDIT_FAULTS)
#: Every release's one-run audit, in the order of the releases' modules.
ONE_RUN_KEYS = tuple(ONE_RUN)


def audit_cases(epsilon: float = 1.0, keys=None) -> list[AuditCase]:
    """The audit cases at claimed ``epsilon`` (all, or those in ``keys``)."""
    keys = CASE_KEYS if keys is None else tuple(keys)
    unknown = [k for k in keys if k not in _BUILDERS]
    if unknown:
        raise ValueError(f"Unknown audit case(s) {unknown}; choose from {list(CASE_KEYS)}.")
    return [_BUILDERS[k](epsilon) for k in keys]


def audit_case(key: str, epsilon: float = 1.0) -> AuditCase:
    """One audit case by key (see :data:`CASE_KEYS`)."""
    return audit_cases(epsilon, [key])[0]


def one_run_case(key: str, epsilon: float = 1.0, canaries: int = 200, *,
                 noise_epsilon: float | None = None) -> OneRunCase:
    """A release's one-run audit by key (see :data:`ONE_RUN_KEYS`) at claimed ``epsilon`` with
    ``canaries`` canaries; ``noise_epsilon`` calibrates its noise to another ε (a fault, broken
    on purpose; default the claimed ε)."""
    if key not in ONE_RUN:
        raise ValueError(f"Unknown one-run audit {key!r}; choose from {list(ONE_RUN_KEYS)}.")
    return ONE_RUN[key](epsilon, canaries, noise_epsilon=noise_epsilon)
