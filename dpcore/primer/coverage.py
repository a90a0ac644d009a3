"""Measured coverage of the derived statistics' intervals, by simulation (a study).

:func:`coverage_table` simulates every derived statistic (:data:`dpcore.primer.derived.STATISTICS`)
under both relations and both noise laws on synthetic data of several sizes, ``runs`` seeded
releases each (one vectorised call per cell), and measures how often the interval holds the
true statistic. Beside it, for the ratios (mean and rate under "add or remove one record"), the
naive delta-method interval ``r~ +- z sqrt(v_N + r~^2 v_D) / D~`` (:func:`delta_method_interval`)
that the intervals here replace: it fails at small counts. ``python
benchmarks/bench_intervals.py`` writes the tables of ``docs/intervals.md``.

The data: ``n`` values drawn uniformly on ``[0, 100]`` (stream ``(seed, "intervals data", n)``),
clipped to the public bounds ``[0, 100]``; group A is the first 30 % of the records.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from dpcore.primer.derived import STATISTICS, coverage, derived
from dpcore.primer.intervals import LAWS, noise_half_width
from dpcore.primer.queries import RELATIONS
from dpcore.random import stream
from dpcore.validation import check_level

__all__ = ["SIZES", "BOUNDS", "SHARE_A", "LAW_NAMES", "delta_method_interval", "derived_study",
           "coverage_table", "coverage_markdown"]

#: The noise laws as the page names them.
LAW_NAMES = {"laplace": "Laplace", "gaussian": "Gaussian (analytic)"}

#: Records per simulated dataset: two small-count sizes, then the issue's three.
SIZES = (10, 30, 100, 1_000, 10_000)
#: Public clipping bounds of the synthetic values.
BOUNDS = (0.0, 100.0)
#: Share of the records in group A (rate, difference).
SHARE_A = 0.3


def delta_method_interval(numerator: np.ndarray, denominator: np.ndarray, *,
                          numerator_sd: float, denominator_sd: float,
                          level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The naive delta-method interval of a ratio of noisy answers (for comparison only).

    ``r~ +- z sqrt(sd_N^2 + r~^2 sd_D^2) / D~`` with ``r~ = N~ / D~`` and ``z`` the normal
    quantile: the first-order expansion of ``N / D`` around the noisy answers. A denominator at
    or below zero gives no interval (NaN ends: counted as a miss).

    >>> low, high = delta_method_interval(np.array([50.0]), np.array([100.0]),
    ...                                   numerator_sd=1.0, denominator_sd=1.0)
    >>> bool(low[0] < 0.5 < high[0])
    True
    """
    level = check_level(level)
    z = float(special.ndtri((1.0 + level) / 2.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(denominator > 0, numerator / denominator, np.nan)
        half = z * np.sqrt(numerator_sd**2 + r**2 * denominator_sd**2) / denominator
    return r - half, r + half


def derived_study(statistic: str, values: Any, *, epsilon: float, delta: float,
                  bounds: tuple[float, float], relation: str, mask: Any = None,
                  factor: float = 1.0, runs: int = 10_000, seed: int = 0,
                  level: float = 0.95) -> pd.DataFrame:
    """A derived statistic of the page's data, simulated ``runs`` times per noise law: one
    simulated answer with its interval, and the measured coverage (a study: seeded, spends
    nothing, not a release).

    Parameters
    ----------
    statistic : {"mean", "rate", "difference", "scaled_sum"}
    values : array-like
        The private values (the true statistic is **non-private**).
    epsilon, delta : float
        Of the whole statistic (δ: the Gaussian only).
    bounds : (float, float)
        Public clipping bounds.
    relation : {"replace", "add_remove"}
    mask : array-like of bool, optional
        Group A's records (rate, difference).
    factor : float, default=1.0
        The scaled sum's factor.
    runs : int, default=10_000
    seed : int, default=0
        Law ``law`` draws from ``stream(seed, "primer derived", statistic, law)``.
    level : float, default=0.95

    Returns
    -------
    DataFrame
        One row per law of :data:`LAW_NAMES`: law, name, parts, simulated_answer, low, high
        (the first simulated release), coverage, median_width, sampling_half_width,
        truth_nonprivate.
    """
    rows = []
    for law, name in LAW_NAMES.items():
        out = derived(statistic, values, epsilon=epsilon, bounds=bounds, relation=relation,
                      law=law, delta=delta, mask=mask, factor=factor, level=level, runs=runs,
                      rng=stream(seed, "primer derived", statistic, law))
        rows.append({"law": law, "name": name, "parts": ", ".join(out["parts"]),
                     "simulated_answer": float(out["estimate"][0]), "low": float(out["low"][0]),
                     "high": float(out["high"][0]), "coverage": coverage(out),
                     "median_width": float(np.median(out["high"] - out["low"])),
                     "sampling_half_width": out["sampling_half_width"],
                     "truth_nonprivate": out["truth_nonprivate"]})
    return pd.DataFrame(rows)


def _signal(result: dict[str, Any], law: str, level: float) -> float:
    """The smallest exact count over its noise's half-width: how far the counts stand above
    their noise (``inf`` when every count is public)."""
    ratios = [exact / float(noise_half_width([scale], level, law=law))
              for name, exact, scale in zip(result["parts"], result["exact_parts_nonprivate"],
                                            result["scales"], strict=True)
              if name.startswith("count")]
    return min(ratios) if ratios else float("inf")


def coverage_table(*, runs: int = 10_000, seed: int = 0, sizes: tuple[int, ...] = SIZES,
                   epsilon: float = 1.0, delta: float = 1e-6,
                   level: float = 0.95) -> pd.DataFrame:
    """Measured coverage of every derived statistic's interval (a seeded study).

    Parameters
    ----------
    runs : int, default=10_000
        Simulated releases per cell.
    seed : int, default=0
        Cell ``(statistic, relation, law, n)`` draws from ``stream(seed, "intervals", ...)``.
    sizes : tuple of int, default=SIZES
    epsilon, delta : float, default=1.0, 1e-6
        Of the whole statistic (δ: the Gaussian only).
    level : float, default=0.95

    Returns
    -------
    DataFrame
        One row per cell: statistic, relation, law, n, runs, coverage, se (binomial standard
        error at ``level``), count_signal (smallest exact count over its noise's half-width;
        inf when no count is noisy), median_width, delta_method (coverage of the naive
        interval; NaN where there is no noisy ratio), truth_nonprivate.
    """
    rows = []
    for n in sizes:
        values = stream(seed, "intervals data", int(n)).uniform(*BOUNDS, size=int(n))
        mask = np.arange(int(n)) < SHARE_A * int(n)
        for statistic in STATISTICS:
            for relation in RELATIONS:
                for law in LAWS:
                    out = derived(statistic, values, epsilon=epsilon, bounds=BOUNDS,
                                  relation=relation, law=law, delta=delta, mask=mask,
                                  level=level, runs=runs,
                                  rng=stream(seed, "intervals", statistic, relation, law,
                                             int(n)))
                    rows.append({
                        "statistic": statistic, "relation": relation, "law": law, "n": int(n),
                        "runs": runs, "coverage": coverage(out),
                        "se": float(np.sqrt(level * (1.0 - level) / runs)),
                        "count_signal": _signal(out, law, level),
                        "median_width": float(np.median(out["high"] - out["low"])),
                        "delta_method": _delta_coverage(statistic, relation, out, law, level),
                        "truth_nonprivate": out["truth_nonprivate"],
                    })
    return pd.DataFrame(rows)


def _delta_coverage(statistic: str, relation: str, out: dict[str, Any], law: str,
                    level: float) -> float:
    if statistic not in ("mean", "rate") or relation != "add_remove":
        return float("nan")
    sd = [s * (np.sqrt(2.0) if law == "laplace" else 1.0) for s in out["scales"]]
    low, high = delta_method_interval(out["noisy_parts"][:, 0], out["noisy_parts"][:, 1],
                                      numerator_sd=sd[0], denominator_sd=sd[1], level=level)
    return coverage({"low": low, "high": high, "truth_nonprivate": out["truth_nonprivate"]})


def coverage_markdown(table: pd.DataFrame) -> str:
    """The coverage table as markdown: one row per statistic, relation and law, one column per
    size (coverage in %, the naive delta method's in brackets where it applies; a star where
    the smallest count is below 3 half-widths of its noise, the small-count regime)."""
    sizes = sorted(table["n"].unique())
    head = ("| statistic | relation | noise | " + " | ".join(f"n = {n:,}" for n in sizes)
            + " |\n|---|---|---|" + "---:|" * len(sizes))
    lines = [head]
    for (statistic, relation, law), cells in table.groupby(["statistic", "relation", "law"],
                                                          sort=False):
        shown = []
        for n in sizes:
            row = cells[cells["n"] == n].iloc[0]
            text = f"{100 * row['coverage']:.1f}"
            if not np.isnan(row["delta_method"]):
                text += f" ({100 * row['delta_method']:.1f})"
            if row["count_signal"] < 3.0:
                text += "*"
            shown.append(text)
        lines.append(f"| {STATISTICS[statistic]} | {RELATIONS[relation]} | {law} | "
                     + " | ".join(shown) + " |")
    return "\n".join(lines) + "\n"
