"""Controls that every page shares: the privacy budget ε, the seed, the number of replicates.

Each widget keeps its value across page switches (:func:`ui.state.keep_widget_state`) and says in
plain words what its ends mean, so a first-time viewer can read any page's sidebar. A value it
cannot take (a link's value that is not among its options or beyond its range) is replaced by its
default before it is drawn, with a note (:func:`ui.links.settle`).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

import ui.links as links
from dpcore.domains import EPSILONS, LAMBDAS, SEED
from dpcore.planning import posterior_bound
from ui.state import keep_widget_state

__all__ = ["EPSILONS", "LAMBDAS", "epsilon_slider", "lambda_slider", "log_slider",
           "replicates_slider", "seed_input"]
EPSILON_HELP = (
    "The privacy budget of one release: smaller ε means stronger privacy and more noise. "
    "At ε the output's probability changes by at most a factor e^ε when one person's record "
    "changes."
)
PRIVACY_DIRECTION = "more privacy ← → more accuracy"


def _number(value: float) -> str:
    return f"{value:g}"


def _keep_option(key: str, options: Sequence, default: object) -> None:
    """Keep the widget's value, or its default where the value is not among ``options``."""
    keep_widget_state({key: default})
    links.settle(key, lambda value: value in options,
                 default if default in options else options[0])


def log_slider(label: str, options: Sequence[float], key: str, default: float, *,
               help: str | None = None) -> float:
    """A select slider over log-spaced ``options`` that keeps its value across pages."""
    _keep_option(key, options, default)
    return float(st.select_slider(label, list(options), key=key, help=help,
                                  format_func=_number))


def epsilon_slider(key: str, default: float = 0.1, *, options: Sequence[float] = EPSILONS,
                   label: str = "Privacy budget ε") -> float:
    """The ε slider: log-spaced, with "more privacy ← → more accuracy" under it, and a line on
    what ε means as risk (how far one release can raise an attacker's 1 % belief that a person
    is in the data; the "Choose epsilon" page shows it in full)."""
    epsilon = log_slider(label, options, key, default, help=EPSILON_HELP)
    st.caption(  # one element: a slider move redraws it with the slider
        f"{PRIVACY_DIRECTION}  \nat ε = {epsilon:g}, a 1 % prior can rise to at most "
        f"{100 * posterior_bound(0.01, epsilon):.1f} %",
        help="Epsilon as risk: if someone believed with 1 % probability that a given person's "
             "record is in the data, one ε-DP release can raise that belief to at most this "
             "(posterior odds at most e^ε times the prior odds), whatever else they know. The "
             "page 'Choose epsilon' plots it for any prior.")
    return epsilon


def lambda_slider(key: str, default: float = 0.1, *, options: Sequence[float] = LAMBDAS,
                  label: str = "Regularisation λ", help: str | None = None) -> float:
    """The λ slider, log-spaced."""
    return log_slider(label, options, key, default, help=help)


def seed_input(key: str, default: int = 0, *, label: str = "Simulation seed") -> int:
    """The seed of a study: the same seed gives the same figures. Never used for a release."""
    keep_widget_state({key: default})
    links.settle(key, lambda value: SEED.problem(value) is None, default)
    value = st.number_input(
        label, min_value=SEED.low, max_value=SEED.high, step=1, key=key,
        help="Seeds the simulations on this page, so a figure can be reproduced. Releases never "
             "use it: they draw fresh randomness from the operating system.",
    )
    return int(default if value is None else value)


def replicates_slider(key: str, default: int = 100, *,
                      options: Sequence[int] = (20, 50, 100, 200),
                      label: str = "Replicates", help: str | None = None) -> int:
    """How many times a study repeats the mechanism (more: smoother figures, slower)."""
    _keep_option(key, options, default)
    return int(st.select_slider(label, list(options), key=key, help=help))
