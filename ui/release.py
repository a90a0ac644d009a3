"""The Publish button that every page uses for its one real release.

A release is what a data owner would publish. Here it happens only when the user presses
Publish; its noise comes from OpenDP's float-safe samplers and fresh OS entropy (the page passes
no seed); it spends through the session's accountant, charged under the ledger's neighbouring
relation, which refuses it when over budget or when it cannot be charged under that relation;
it is refused when the public set was derived from the private one; and it is kept in this
session's state only, never in a cache shared across sessions, so that a rerun or a slider move
does not release again.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import streamlit as st

from dpcore import DataError
from dpcore.accountant import RELATIONS, BudgetAccountant
from dpcore.datasets import Scenario
from dpcore.text import md
from ui.budget import session_accountant


@dataclass(frozen=True)
class Release:
    """One published output with what produced it."""

    value: Any
    epsilon: float
    settings: str
    scenario_id: str
    time: dt.datetime


#: Releases computing at once on this server, every session's together. A release is a real
#: computation (a subset's runs Algorithm 2 on all of D, about 0.9 s of CPU on Adult); several
#: at once take the interpreter from every other session, whose slider moves then wait seconds
#: (``docs/class.md``). One at a time, a class's slider moves stay under a second.
RELEASES_AT_ONCE = 1
_RELEASE_SLOTS = threading.BoundedSemaphore(RELEASES_AT_ONCE)


@contextmanager
def _release_slot() -> Iterator[None]:
    """Hold one of :data:`RELEASES_AT_ONCE` slots while a release computes; while another
    session's releases hold them all, say so under a spinner and wait."""
    if not _RELEASE_SLOTS.acquire(blocking=False):
        with st.spinner("Another session's release is computing on this server; yours starts "
                        "as soon as it is done…"):
            _RELEASE_SLOTS.acquire()
    try:
        yield
    finally:
        _RELEASE_SLOTS.release()


def _store(key: str) -> str:
    return f"_release_{key}"


def last_release(key: str, scenario_id: str) -> Release | None:
    """The session's last release under ``key`` for this scenario, if any."""
    release = st.session_state.get(_store(key))
    return release if release is not None and release.scenario_id == scenario_id else None


def publish_panel(key: str, *, scenario: Scenario, scenario_id: str, epsilon: float,
                  settings: str, release: Callable[[BudgetAccountant], Any],
                  label: str = "Publish", relation: str = "replace",
                  noise: str = "") -> Release | None:
    """Draw the Publish button and return the last release of this page on this scenario
    (None in the run that shows a refused press, so that only the latest outcome is on screen).

    Parameters
    ----------
    key : str
        Names the page's release slot (one per page).
    scenario, scenario_id : Scenario and its cache id
    epsilon : float
        The release's ε under ``relation`` (what it costs in the ledger is shown before the
        press).
    settings : str
        The parameters of the release in words, e.g. ``"ε = 0.1, λ = 0.1"``.
    release : callable
        ``release(accountant)`` makes the release with ``rng=None`` and ``accountant=``; dpcore
        spends before it draws any noise and raises ``BudgetExceeded`` (a ``DataError``) when
        the budget would be passed.
    label : str, default="Publish"
    relation : {"replace", "add_remove"}, default="replace"
        The neighbouring relation the release is calibrated under.
    noise : str, default=""
        How the release draws its noise, in words (e.g. "L2-Laplace on β ..."); shown
        with the sampler.
    """
    try:
        scenario.check_publishable()
    except DataError as exc:
        st.warning(md(exc), icon=":material/lock:")
        return last_release(key, scenario_id)
    accountant = session_accountant()
    try:
        charged, _ = accountant.charge(epsilon, relation=relation)
    except DataError as exc:
        st.warning(md(exc), icon=":material/lock:")
        return last_release(key, scenario_id)
    remaining, _ = accountant.remaining
    cost = (f"spends ε = {charged:g}" if relation == accountant.relation else
            f"is calibrated at ε = {epsilon:g} under '{RELATIONS[relation]}' and spends "
            f"ε = {charged:g} under this session's '{accountant.relation_text}' (group privacy)")
    st.caption(f"One press releases once at {settings} and {cost} of this session's budget "
               f"({remaining:g} left). Noise: {noise + '; ' if noise else ''}drawn by OpenDP's "
               "exact sampler, safe on floating point, with fresh randomness from the operating "
               "system each time: two presses give two different releases.")
    try:  # said before the press, where the button is: ε and the budget are public choices
        accountant.check(epsilon, relation=relation)
    except DataError as exc:
        st.warning(f"{md(exc)} The budget is set in the sidebar (**Privacy budget**), ε on "
                   "this page.", icon=":material/account_balance_wallet:")
        affordable = False
    else:
        affordable = True
    if st.button(label, key=f"publish_{key}", type="primary", disabled=not affordable):
        try:
            with _release_slot():
                value = release(accountant)
        except DataError as exc:
            st.error(md(exc), icon="⚠️")
            return None  # the latest outcome is this refusal: not an older release under it
        else:
            st.session_state[_store(key)] = Release(
                value, float(epsilon), settings, scenario_id, dt.datetime.now(dt.UTC))
            st.rerun()  # redraw the budget bar and ledger with this release in them
    return last_release(key, scenario_id)
