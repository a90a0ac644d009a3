"""The releases a decision can be about: for each page that publishes, what its study measured.

A page's release (its Publish button) has a study that simulates it. :data:`RELEASES` says, for
each such page, what the release is, which view of its study holds the utility at the page's ε
(:attr:`Release.view`), which audit case attacks which step of it, at what ε, and which of its
steps no audit here attacks (:attr:`Release.audit`, an :class:`AuditScope`), and how to read the
utility with its spread from the study's numbers (:attr:`Release.utility`, rows of
``quantity``, ``value``, ``spread``, ``meaning``, ``non_private``). Each entry is its release
module's ``DECISION`` (:mod:`dpcore.releases`), gathered by :mod:`dpcore.releases.registry`.
"""

from __future__ import annotations

from dpcore.releases.base import AuditScope, Release
from dpcore.releases.registry import RELEASES

__all__ = ["RELEASES", "AuditScope", "Release", "release"]


def release(page: str) -> Release:
    """The release of ``page``; raises ValueError naming the pages that have one."""
    if page not in RELEASES:
        raise ValueError(f"No release to decide on for page {page!r}; choose one of "
                         f"{sorted(RELEASES)}.")
    return RELEASES[page]
