"""Where a cold move's time goes: the studies behind the pages under cProfile (issue 35).

Run: ``python benchmarks/profile_cold.py [--target NAME] [--top 12]`` (``--target`` may repeat;
without it, every target). For each target, on the built-in scenario the pages open on (the
sidebar's default, Adult; masking's own toy task), the state a page has before the move is
computed first and not timed; then the move is timed once
without the profiler (wall time) and once more, at another value no cache has seen, under
cProfile. Prints the top functions by cumulative and by own time, with their share of the
profiled move.

Targets: ``subset-epsilon`` (``at`` at a new ε after the page's first view), ``subset-seed``
(``at`` at a new simulation seed; ``prepare`` is kept, its key is λ alone),
``importance-lambda`` (the "Estimates vs λ" view opened after the first view: ``prepare`` and
``at``), ``importance-lambda-move`` (λ moved on that view: ``prepare`` and ``at``),
``masking-accuracy`` (the "Accuracy vs ε" view opened: ``prepare`` and ``at``, the part
every view shares kept from the first view) and
``perturbation-lambda`` (a λ typed by hand: ``prepare`` on the kept part no λ changes, and
``at``), ``perturbation-first-view`` (the logistic-regression page's first view, nothing
kept: ``prepare``, ``at`` and the planner's reach note), ``perturbation-epsilon`` (an ε move
on its study view: the planner's point at a new ε, its plan kept) and
``perturbation-publish-epsilon`` (an ε move on its Publish view: the release's λ simulated on
all of E at a new ε, E's roles kept, and the planner's point at that λ).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections.abc import Callable

from timing import ROOT

from dpcore.perturbation.experiments import (
    is_centred,
    release_simulation,
    scenario_arrays,
    simulated_release,
)
from dpcore.planning import release
from dpcore.runs import build_scenario
from dpcore.runs.scenarios import DEFAULT_SCENARIO
from dpcore.studies import importance, masking, perturbation, subset

Move = Callable[[], object]


def _subset_epsilon(scenario) -> Callable[[int], Move]:
    """The page's first view at ε = 3 (untimed), then ``at`` at a new ε (2, then 1)."""
    params = subset.Params()
    ready = subset.prepare(scenario, params)
    subset.at(ready, params)
    return lambda i: lambda: subset.at(ready, params.replace(epsilon=(2.0, 1.0)[i]))


def _subset_seed(scenario) -> Callable[[int], Move]:
    """The page's first view (untimed), then ``at`` at a new simulation seed (1, then 2): the
    page reuses ``prepare``, whose key (``subset.Params.prepare_key``) is λ alone."""
    params = subset.Params()
    ready = subset.prepare(scenario, params)
    subset.at(ready, params)
    return lambda i: lambda: subset.at(ready, params.replace(seed=1 + i))


def _importance_lambda(scenario) -> Callable[[int], Move]:
    """The page's first view ("Estimates vs ε", untimed), then the "Estimates vs λ" view opened:
    ``prepare`` and ``at``, with the λ cells the page shares (seed 0, then 1)."""
    def stage(i: int) -> Move:
        first = importance.Params(seed=i, lam=0.5)
        cells = importance.share(scenario, first)
        importance.at(importance.prepare(scenario, first, shared=cells), first)
        moved = first.replace(view="Estimates vs λ")
        return lambda: importance.at(importance.prepare(scenario, moved, shared=cells), moved)
    return stage


def _importance_lambda_move(scenario) -> Callable[[int], Move]:
    """The "Estimates vs λ" view at λ = 0.5 (untimed), then λ moved (to 0.2, then 0.05):
    ``prepare`` and ``at``, with the λ cells the page shares."""
    params = importance.Params(lam=0.5, view="Estimates vs λ")
    cells = importance.share(scenario, params)
    importance.at(importance.prepare(scenario, params, shared=cells), params)

    def stage(i: int) -> Move:
        moved = params.replace(lam=(0.2, 0.05)[i])
        return lambda: importance.at(importance.prepare(scenario, moved, shared=cells), moved)
    return stage


def _keeper() -> Callable[[tuple, Callable[[], object]], object]:
    """A ``keep`` for ``prepare`` (:data:`dpcore.studies.base.Keep`) that keeps in a dict, as
    a page keeps in its store."""
    kept: dict[tuple, object] = {}

    def keep(parts: tuple, compute: Callable[[], object]) -> object:
        if parts not in kept:
            kept[parts] = compute()
        return kept[parts]
    return keep


def _masking_accuracy(scenario) -> Callable[[int], Move]:
    """The page's first view (untimed), then the "Accuracy vs ε" view: ``prepare`` (its view is
    a prepare key: the curves) and ``at`` (seed 0, then 1), with the part every view shares
    kept from the first view as the page keeps it (``prepare``'s ``keep``: the task and the
    masked set at ε)."""
    def stage(i: int) -> Move:
        params, keep = masking.Params(seed=i), _keeper()
        masking.at(masking.prepare(scenario, params, keep=keep), params)
        moved = params.replace(view=masking.ACCURACY)
        return lambda: masking.at(masking.prepare(scenario, moved, keep=keep), moved)
    return stage


def _perturbation_lambda(scenario) -> Callable[[int], Move]:
    """The page's first view (untimed), then λ typed by hand (0.05, then 0.02): ``prepare``
    and ``at``, with the part no λ changes kept from the first view as the page keeps it
    (``prepare``'s ``keep``)."""
    params, keep = perturbation.Params(), _keeper()
    perturbation.at(perturbation.prepare(scenario, params, keep=keep), params)

    def stage(i: int) -> Move:
        moved = params.replace(lambda_mode=perturbation.LAMBDA_MODES[1], lam=(0.05, 0.02)[i])
        return lambda: perturbation.at(perturbation.prepare(scenario, moved, keep=keep), moved)
    return stage


def _perturbation_first_view(scenario) -> Callable[[int], Move]:
    """The logistic-regression page's first view on a fresh server, nothing kept (seed 0, then
    1): the study's ``prepare`` and ``at`` at the page's defaults, and the planner's reach note
    the "Error vs ε" view draws under them (the model without noise on E, E's roles in the
    release's simulation, the release simulated at ε)."""
    def stage(i: int) -> Move:
        params = perturbation.Params(seed=i)

        def move() -> None:
            numbers = perturbation.at(perturbation.prepare(scenario, params), params)
            m = numbers["metrics"].iloc[0]
            public = scenario_arrays(scenario, part="public")
            scaling = dict(data_norm=float(m["data_norm"]), fit_intercept=bool(m["intercept"]))
            reference = release.public_reference(public.X, public.y, seed=i, **scaling)
            plan = release.release_plan(public.X, public.y, classes=public.classes, seed=i,
                                        **scaling)
            release.reach_note(lambda e: release.release_point(
                public.X, public.y, e, n_private=int(m["n"]), classes=public.classes, seed=i,
                plan=plan, **scaling), epsilon=params.epsilon, n=int(m["n"]), d=int(m["d"]),
                reference=reference)
        return move
    return stage


def _perturbation_epsilon(scenario, publish: bool = False) -> Callable[[int], Move]:
    """An ε move on the logistic-regression page (to 0.5, then 2), what the page keeps held
    (untimed: E's roles in the planner's simulations, and on the Publish view in the release's
    λ simulation on all of E): the planner's point at the new ε (the study view's reach note),
    or on the Publish view the release's λ there and the planner's point at that λ."""
    private, public = scenario_arrays(scenario), scenario_arrays(scenario, part="public")
    scaling = dict(data_norm=private.data_norm, fit_intercept=True)
    n = private.X.shape[0]
    plan = release.release_plan(public.X, public.y, classes=public.classes, **scaling)
    simulation = release_simulation(public.X, public.y, classes=private.classes,
                                    centred=is_centred(public.X.shape[0]), **scaling)

    def stage(i: int) -> Move:
        epsilon = (0.5, 2.0)[i]

        def move() -> None:
            lam = simulated_release(simulation, n_private=n, epsilon=epsilon)[0] \
                if publish else None
            release.release_point(public.X, public.y, epsilon, n_private=n,
                                  classes=public.classes, plan=plan, lam=lam, **scaling)
        return move
    return stage


TARGETS: dict[str, Callable[..., Callable[[int], Move]]] = {
    "subset-epsilon": _subset_epsilon, "subset-seed": _subset_seed,
    "importance-lambda": _importance_lambda, "importance-lambda-move": _importance_lambda_move,
    "masking-accuracy": _masking_accuracy,
    "perturbation-lambda": _perturbation_lambda,
    "perturbation-first-view": _perturbation_first_view,
    "perturbation-epsilon": _perturbation_epsilon,
    "perturbation-publish-epsilon": lambda scenario: _perturbation_epsilon(scenario, True),
}


def _name(key: tuple[str, int, str]) -> str:
    """``module.py:function`` of a pstats key, relative to the checkout when inside it."""
    path, _, func = key
    path = path.removeprefix(str(ROOT) + "/")
    if "site-packages/" in path:
        path = path.split("site-packages/", 1)[1]
    return f"{path}:{func}"


def _table(stats: pstats.Stats, total: float, column: int, top: int) -> str:
    """The ``top`` rows of ``stats`` by cumulative (``column=3``) or own (``2``) time."""
    rows = sorted(((k, v) for k, v in stats.stats.items() if k[0] != __file__),
                  key=lambda kv: kv[1][column], reverse=True)
    lines = ["| function | calls | own (s) | cumulative (s) | share |", "|---|---:|---:|---:|---:|"]
    for key, (_, calls, own, cum, _) in rows[:top]:
        lines.append(f"| `{_name(key)}` | {calls} | {own:.2f} | {cum:.2f} | "
                     f"{(cum if column == 3 else own) / total:.0%} |")
    return "\n".join(lines)


def profile(name: str, top: int) -> None:
    """Print the wall time and the cProfile tables of target ``name``."""
    stage = TARGETS[name](build_scenario(DEFAULT_SCENARIO))
    move = stage(0)
    t0 = time.perf_counter()
    move()
    wall = time.perf_counter() - t0
    move, profiler = stage(1), cProfile.Profile()
    t0 = time.perf_counter()
    profiler.runcall(move)
    total = time.perf_counter() - t0
    print(f"\n## {name}: wall {wall:.2f} s (profiled, another value: {total:.2f} s)\n")
    stats = pstats.Stats(profiler)
    print("By cumulative time:\n\n" + _table(stats, total, 3, top))
    print("\nBy own time:\n\n" + _table(stats, total, 2, top))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=tuple(TARGETS), action="append")
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    for name in args.target or TARGETS:
        profile(name, args.top)


if __name__ == "__main__":
    main()
