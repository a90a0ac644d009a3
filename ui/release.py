"""The Publish button that every page uses for its one real release.

A release is what a data owner would publish. Here it happens only when the user presses
Publish; its noise comes from OpenDP's float-safe samplers and fresh OS entropy (the page passes
no seed); it spends through the session's accountant, charged under the ledger's neighbouring
relation, which refuses it when over budget or when it cannot be charged under that relation;
it is refused when the public set was derived from the private one; and it is kept in this
session's state only, never in a cache shared across sessions, so that a rerun or a slider move
does not release again.

Every press is a release in the ledger or a message (issue 33, section 5). Streamlit gives a
button's ``True`` to one script run only, and a run can be cut short by the next rerun request
(another press, a slider move, a page switch) before it reaches the line that reads the button:
the press is then gone. So a press is not read from the button's value. Its ``on_click``
callback, which Streamlit runs first thing in the run that carries the press, whatever cuts that
run short afterwards, records a :class:`Press` (the release as the page drew it beside the
button: its scenario, ε, settings and release function) in this session's queue;
:func:`serve_presses`, called at the start of every page's run before it draws
(:func:`ui.navigation.require_router`), takes each press off the queue exactly once, releases it
(or records why not) and stores the outcome before it calls Streamlit again, so that no rerun
request can cut in between. The page then draws with the release already in the ledger and the
budget bar (no second run), and :func:`publish_panel` shows what became of the latest presses,
refusals named; every press of the session is listed under the button. A press that Streamlit
itself merges with another (two presses that reach the server before the script reads the first:
its buttons carry no count) is one press; so is a press that the browser drops (a click on a
button while it redraws).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
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


@dataclass(frozen=True)
class Press:
    """One press of a Publish button, as its ``on_click`` callback records it: the release the
    page drew beside the button when it was pressed."""

    key: str
    scenario: Scenario
    scenario_id: str
    epsilon: float
    settings: str
    relation: str
    release: Callable[[BudgetAccountant], Any]
    time: dt.datetime


@dataclass(frozen=True)
class Outcome:
    """What became of one press: released (``entries``: its first and last lines in the
    ledger, a release may spend in several) or not (``reason``)."""

    pressed: dt.datetime
    settings: str
    scenario_id: str
    entries: tuple[int, int] | None = None
    reason: str = ""

    @property
    def released(self) -> bool:
        """Whether the press made a release."""
        return self.entries is not None

    def text(self) -> str:
        """The outcome in one line, as the page lists it (Markdown, the reason escaped)."""
        when = (f"Press at {self.pressed:%H:%M:%S}.{self.pressed.microsecond // 10_000:02d} UTC "
                f"({md(self.settings)})")
        if self.entries is None:
            return f"{when}: **not released**. {md(self.reason)}"
        first, last = self.entries
        lines = f"entry {last}" if first == last else f"entries {first}–{last}"
        return f"{when}: released, {lines} of the ledger."


#: This session's presses not yet served, in order (:func:`serve_presses`).
PRESSES_KEY = "_publish_presses"
#: Releases computing at once on this server, every session's together. A release is a real
#: computation (a subset's runs Algorithm 2 on all of D, about 0.9 s of CPU on Adult); several
#: at once take the interpreter from every other session, whose slider moves then wait seconds
#: (``docs/class.md``). One at a time, a class's slider moves stay under a second.
RELEASES_AT_ONCE = 1
_RELEASE_SLOTS = threading.BoundedSemaphore(RELEASES_AT_ONCE)


@contextmanager
def _release_slot() -> Iterator[None]:
    """Hold one of :data:`RELEASES_AT_ONCE` slots while a release computes; while another
    session's releases hold them all, say so under a spinner and wait. A rerun request that
    cuts the run short as the spinner closes (a Streamlit call) leaves no slot held."""
    held = _RELEASE_SLOTS.acquire(blocking=False)
    try:
        if not held:
            with st.spinner("Another session's release is computing on this server; yours "
                            "starts as soon as it is done…"):
                held = _RELEASE_SLOTS.acquire()
        yield
    finally:
        if held:
            _RELEASE_SLOTS.release()


def _store(key: str) -> str:
    return f"_release_{key}"


def _log(key: str) -> str:
    return f"_publish_log_{key}"


def last_release(key: str, scenario_id: str) -> Release | None:
    """The session's last release under ``key`` for this scenario, if any."""
    release = st.session_state.get(_store(key))
    return release if release is not None and release.scenario_id == scenario_id else None


def _record_press(key: str, scenario: Scenario, scenario_id: str, epsilon: float,
                  settings: str, relation: str,
                  release: Callable[[BudgetAccountant], Any]) -> None:
    """The Publish button's ``on_click``: queue the press (no other Streamlit call, so that no
    rerun request can cut in before it is recorded)."""
    st.session_state.setdefault(PRESSES_KEY, []).append(Press(
        key, scenario, scenario_id, float(epsilon), settings, relation, release,
        dt.datetime.now(dt.UTC)))


def serve_presses() -> None:
    """Release every queued press, oldest first, each exactly once.

    Called first thing by every page (:func:`ui.navigation.require_router`), so that the page,
    its budget bar and its ledger show the releases. Waiting for a release slot and the spinner
    come first, while the presses are still queued: a rerun request that cuts in there leaves
    them for the next run. From taking a press off the queue to storing its outcome, nothing
    calls Streamlit (the page's ``release`` function must not either), so no rerun request can
    cut in and the press is served once.
    """
    if not st.session_state.get(PRESSES_KEY):
        return
    with _release_slot(), st.spinner("Publishing, with fresh noise from the operating system…"):
        queue = st.session_state[PRESSES_KEY]
        while queue:
            _serve(queue.pop(0))


def _serve(press: Press) -> None:
    """Make one press's release, or say why not; store the outcome in the page's log."""
    accountant = session_accountant()
    log = st.session_state.setdefault(_log(press.key), [])
    outcome = Outcome(press.time, press.settings, press.scenario_id)
    before = len(accountant)
    try:
        press.scenario.check_publishable()
        accountant.charge(press.epsilon, relation=press.relation)  # refused before the release
        value = press.release(accountant)
    except DataError as exc:
        log.append(replace(outcome, reason=str(exc)))
        return
    except Exception:  # a bug: said under the button too, then shown as an error
        log.append(replace(outcome, reason="An internal error stopped this release; the "
                                           "ledger lists it if its ε was spent."))
        raise
    st.session_state[_store(press.key)] = Release(
        value, press.epsilon, press.settings, press.scenario_id, dt.datetime.now(dt.UTC))
    log.append(replace(outcome, entries=(before + 1, len(accountant))))


def publish_panel(key: str, *, scenario: Scenario, scenario_id: str, epsilon: float,
                  settings: str, release: Callable[[BudgetAccountant], Any],
                  label: str = "Publish", relation: str = "replace",
                  noise: str = "") -> Release | None:
    """Draw the Publish button and what became of its presses; return the last release of this
    page on this scenario (None while the latest press was refused, so that only the latest
    outcome is on screen).

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
        the budget would be passed. It runs when a press is served (:func:`serve_presses`,
        in the next run), with what it holds now, and must not call Streamlit.
    label : str, default="Publish"
    relation : {"replace", "add_remove"}, default="replace"
        The neighbouring relation the release is calibrated under.
    noise : str, default=""
        How the release draws its noise, in words (e.g. "L2-Laplace on β ..."); shown
        with the sampler.
    """
    log = st.session_state.get(_log(key), [])
    refused = bool(log) and not log[-1].released and log[-1].scenario_id == scenario_id
    # The latest press on this scenario was refused: its reason, not an older release.
    latest = None if refused else last_release(key, scenario_id)
    try:
        scenario.check_publishable()
    except DataError as exc:
        st.warning(md(exc), icon=":material/lock:")
        _show_log(log, refused)
        return latest
    accountant = session_accountant()
    try:
        charged, _ = accountant.charge(epsilon, relation=relation)
    except DataError as exc:
        st.warning(md(exc), icon=":material/lock:")
        _show_log(log, refused)
        return latest
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
    st.button(label, key=f"publish_{key}", type="primary", disabled=not affordable,
              on_click=_record_press,
              args=(key, scenario, scenario_id, epsilon, settings, relation, release))
    _show_log(log, refused)
    return latest


def _show_log(log: list[Outcome], refused: bool) -> None:
    """Under the button: the latest press's refusal (``refused``: on this scenario), where the
    eye is, and every press of the session on this page with what became of it."""
    if refused:
        st.error(log[-1].text(), icon=":material/block:")
    if log:
        with st.expander(f"Your presses of this button ({len(log)})"):
            st.markdown("\n".join(f"{i}. {outcome.text()}"
                                   for i, outcome in enumerate(log, start=1)))
            st.caption("Every press this page received, and what became of it. Two presses "
                       "that reach a busy server within a moment of each other arrive as one: "
                       "Streamlit's buttons send no count.")
