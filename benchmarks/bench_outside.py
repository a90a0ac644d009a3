"""Outside data: do the pages' defaults learn on tables nobody tuned them on?

Run: ``python benchmarks/bench_outside.py [--tables NAME ...] [--draws 5] [--csv PATH]``
(``pip install -r requirements-bench.txt`` first: statsmodels, vega_datasets and palmerpenguins
ship the tables that scikit-learn does not; every table is read from the installed packages,
nothing is downloaded). Prints the markdown tables of ``docs/performance.md`` ("Outside data").

Every table (:data:`TABLES`) is split into a public and a private file two ways: at random
(:func:`dpcore.datasets.split_random`, half and half) and by a biased rule on one column (rows
above the column's median go private with probability 0.8, the others with 0.2). Both files go
through the app's upload path: written as CSV bytes in memory and read back by
:func:`dpcore.runs.build_scenario` (``read_csv_upload``, the private file as text, then
``scenario_from_uploads``), exactly what the sidebar does with two uploaded files. A seeded 30 %
of the private rows is then held out as the test part (kept out of every fit and every choice).

For every page that fits a model, at the page's defaults (whatever ``dpcore`` holds when this
runs, so the table follows a change of default on a rerun):

- **logistic regression**: the Publish view's release (the library's
  ``PrivateLogisticRegression`` default method centred on the public model ``public_prior``
  fitted on E, λ by ``release_lambda(centred=True)`` on E), drawn as a seeded study; the
  page's non-private reference (its own best λ, cross-validated on the private training part,
  :func:`dpcore.perturbation.experiments.best_lambda`);
- **masking**: the masked set's model (the page's Algorithm 1,
  :func:`dpcore.studies.masking.generator`: intercept and penalty centred at the public model,
  at the page's default N, initial set and λ for the scenario,
  :func:`dpcore.masking.defaults.default_lambda`); the page's non-private model (the same λ
  on D);
- **subset**: the subset Algorithm 2 selects (the page's split, grid and λ: λ cross-validated
  on E, :func:`dpcore.studies.subset.default_lambda`), its DP estimate; the non-private θ_D at
  the page's λ;
- **importance**: a logistic regression trained on E weighted by the DP importance weights
  (the page's default λ for the weights; the model's penalty cross-validated on E, as in the
  page's "Model training" view); the same model trained on D at its own best penalty
  (cross-validated on the private training part: non-private).

Beside them: the majority class of the test part, and a tuned non-private scikit-learn model
(``LogisticRegression`` on the same encoded columns, C chosen by 3-fold cross-validation on the
private training part; never on the test part). Accuracy is measured on the test part: every
number here is a non-private evaluation of a seeded study, not a release.

Tables used to fix a rule (:data:`TRAINING`) and tables only checked (:data:`HELD_OUT`) are
listed in the doc; no constant in ``dpcore`` was chosen on a test part.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from timing import ROOT  # noqa: F401  (puts the clone's root on the import path)

from dpcore.datasets import Scenario, split_random
from dpcore.domains import LAMBDAS
from dpcore.importance import ImportanceWeights, default_lambda, model_design, model_penalty
from dpcore.importance.mechanism import design_matrices
from dpcore.logistic import fit_logistic
from dpcore.masking import scenario_task
from dpcore.masking.defaults import default_lambda as masking_lambda
from dpcore.model_selection import cv_penalty
from dpcore.perturbation import PrivateLogisticRegression
from dpcore.perturbation.experiments import (
    epsilon_splits,
    fit_best,
    public_prior,
    release_lambda,
    scenario_arrays,
)
from dpcore.random import stream
from dpcore.runs import build_scenario
from dpcore.runs.scenarios import TWO_FILES, UPLOAD
from dpcore.studies import masking as masking_study
from dpcore.studies import perturbation as lr_study
from dpcore.studies import subset as subset_study
from dpcore.subset import rescale, scenario_arguments, select_subset
from dpcore.subset.estimators import predict

EPSILONS = (0.5, 1.0, 2.0, 4.0, 8.0)
PAGES = ("logistic regression", "masking", "subset", "importance")
TEST_FRACTION = 0.3
SEED = 0
#: A tuned model that beats the majority class by this much is a table where a page must learn.
LEARNABLE = 0.05
#: How far below the majority class a DP result may fall (acceptance of issue 34).
SLACK = 0.01
#: Masked sets per ε (each grows a set of N records by a greedy search: the slow part).
MASKING_DRAWS = 2


@dataclass(frozen=True)
class Table:
    """A table from an installed package: how to load it, its 0/1 target, the columns left
    out (the target's source, IDs), the biased split's column, and its role."""

    name: str
    load: Callable[[], pd.DataFrame]
    target: str
    exclude: tuple[str, ...]
    biased: str
    role: str  # "training" (rules fixed on it) or "held-out" (only checked)


def _sklearn(loader: str, target: Callable[[pd.DataFrame, pd.Series], pd.Series],
             name: str) -> Callable[[], pd.DataFrame]:
    def load() -> pd.DataFrame:
        from sklearn import datasets

        bunch = getattr(datasets, loader)(as_frame=True)
        frame = bunch.data.copy()
        frame[name] = target(frame, bunch.target)
        return frame
    return load


def _statsmodels(dataset: str, make: Callable[[pd.DataFrame], pd.DataFrame]
                 ) -> Callable[[], pd.DataFrame]:
    def load() -> pd.DataFrame:
        import importlib

        module = importlib.import_module(f"statsmodels.datasets.{dataset}")
        return make(module.load_pandas().data.copy())
    return load


def _weather() -> pd.DataFrame:
    from vega_datasets import local_data

    frame = local_data.seattle_weather().copy()
    frame["rain"] = np.where(frame["weather"] == "rain", "yes", "no")
    return frame


def _penguins() -> pd.DataFrame:
    import palmerpenguins

    frame = palmerpenguins.load_penguins().copy()
    frame["adelie"] = np.where(frame["species"] == "Adelie", "yes", "no")
    return frame


def _add(frame: pd.DataFrame, column: str, values) -> pd.DataFrame:
    frame[column] = values
    return frame


TABLES = (
    # Training tables: any rule of dpcore's defaults is fixed on these.
    Table("fair (affairs)", _statsmodels("fair", lambda f: _add(
        f, "had_affair", np.where(f["affairs"] > 0, "yes", "no"))), "had_affair", ("affairs",),
        "age", "training"),
    Table("anes96 (vote)", _statsmodels("anes96", lambda f: f), "vote", (), "age", "training"),
    Table("digits (5-9 vs 0-4)", _sklearn("load_digits", lambda f, t: np.where(
        t >= 5, "high", "low"), "digit_high"), "digit_high", (), "pixel_4_4", "training"),
    Table("diabetes (progression)", _sklearn("load_diabetes", lambda f, t: np.where(
        t > t.median(), "high", "low"), "progression"), "progression", (), "age", "training"),
    Table("star98 (above median)", _statsmodels("star98", lambda f: _add(
        f, "above", np.where(f["NABOVE"] / (f["NABOVE"] + f["NBELOW"])
                             > (f["NABOVE"] / (f["NABOVE"] + f["NBELOW"])).median(),
                             "yes", "no"))), "above", ("NABOVE", "NBELOW"), "LOWINC",
        "training"),
    Table("wine (class 0)", _sklearn("load_wine", lambda f, t: np.where(
        t == 0, "yes", "no"), "class_0"), "class_0", (), "alcohol", "training"),
    # Held-out tables: only checked.
    Table("breast cancer (diagnosis)", _sklearn("load_breast_cancer", lambda f, t: np.where(
        t == 0, "M", "B"), "diagnosis"), "diagnosis", (), "mean radius", "held-out"),
    Table("seattle weather (rain)", _weather, "rain", ("date", "weather"), "temp_max",
          "held-out"),
    Table("randhie (any visit)", _statsmodels("randhie", lambda f: _add(
        f, "visited", np.where(f["mdvis"] > 0, "yes", "no"))), "visited", ("mdvis",), "lpi",
        "held-out"),
    Table("modechoice (chosen)", _statsmodels("modechoice", lambda f: f), "choice",
          ("individual",), "hinc", "held-out"),
    Table("penguins (Adelie)", _penguins, "adelie", ("species",), "body_mass_g", "held-out"),
    Table("iris (virginica)", _sklearn("load_iris", lambda f, t: np.where(
        t == 2, "yes", "no"), "virginica"), "virginica", (), "sepal length (cm)", "held-out"),
)
TRAINING = tuple(t.name for t in TABLES if t.role == "training")
HELD_OUT = tuple(t.name for t in TABLES if t.role == "held-out")


def _csv(frame: pd.DataFrame) -> bytes:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue().encode()


def biased_split(frame: pd.DataFrame, column: str, *, rng) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(private, public): rows above ``column``'s median go private with probability 0.8, the
    others with 0.2 (a shift like Ji & Elkan's split by sex, on a column of the table)."""
    high = pd.to_numeric(frame[column], errors="coerce") > pd.to_numeric(
        frame[column], errors="coerce").median()
    private = np.random.default_rng(rng).random(len(frame)) < np.where(high, 0.8, 0.2)
    return frame[private].reset_index(drop=True), frame[~private].reset_index(drop=True)


def upload(table: Table, split: str) -> Scenario:
    """The table's scenario as the app builds it from two uploaded files, with a seeded 30 % of
    the private rows held out as its test part."""
    frame = table.load()
    if split == "random":
        private, public = split_random(frame, 0.5, rng=SEED)
    else:
        private, public = biased_split(frame, table.biased, rng=SEED)
    spec = {"source": UPLOAD, "upload_mode": TWO_FILES, "upload_target": table.target,
            "upload_exclude": [c for c in table.exclude if c in frame.columns],
            "files": [{"role": "public", "name": "public.csv"},
                      {"role": "private", "name": "private.csv"}]}
    scenario = build_scenario(spec, {"public": _csv(public), "private": _csv(private)})
    order = stream(SEED, "bench outside", "test").permutation(len(scenario.private))
    n_test = int(round(TEST_FRACTION * len(order)))
    test, train = np.sort(order[:n_test]), np.sort(order[n_test:])
    raw = scenario.raw_private
    return dataclasses.replace(
        scenario, private=scenario.private.iloc[train].reset_index(drop=True),
        test=scenario.private.iloc[test].reset_index(drop=True),
        raw_private=None if raw is None else raw.iloc[train].reset_index(drop=True),
        title=f"{table.name}, {split} split")


def _accuracy(predicted, truth) -> float:
    return float(np.mean(np.asarray(predicted) == np.asarray(truth)))


def reference_rows(scenario: Scenario) -> dict[str, float]:
    """The majority class of the test part and a tuned scikit-learn logistic regression."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV

    cols, target = scenario.predictors, scenario.target
    X, y = scenario.private[cols].to_numpy(float), scenario.private[target].to_numpy()
    Xt, yt = scenario.test[cols].to_numpy(float), scenario.test[target].to_numpy()
    values, counts = np.unique(yt, return_counts=True)
    search = GridSearchCV(LogisticRegression(max_iter=5000),
                          {"C": list(np.logspace(-3, 3, 7))}, cv=3)
    search.fit(X, y)
    return {"majority": float(counts.max() / counts.sum()),
            "tuned": _accuracy(search.predict(Xt), yt),
            "n_private": len(y), "n_public": len(scenario.public), "d": len(cols)}


def logistic_rows(scenario: Scenario, draws: int) -> dict[str, float]:
    """The logistic regression page: its non-private reference and its default release."""
    params = lr_study.Params()
    data = lr_study.training_data(scenario, params.source, params.n, params.seed)
    public = scenario_arrays(scenario, part="public")
    arrays = scenario_arrays(scenario)
    split = epsilon_splits(data.X, data.y, X_test=data.X_test, y_test=data.y_test,
                           data_norm=data.norm, fit_intercept=data.intercept,
                           classes=arrays.classes)[0]
    best = fit_best(split, seed=params.seed)
    out = {"reference": 1.0 - best.error, "reference_lam": best.lam}
    prior = public_prior(public.X, public.y, data_norm=data.norm, fit_intercept=data.intercept,
                         classes=arrays.classes)
    for eps in EPSILONS:
        lam, _ = release_lambda(public.X, public.y, n_private=len(data.y), epsilon=eps,
                                data_norm=data.norm, fit_intercept=data.intercept,
                                classes=arrays.classes, centred=True)
        scores = []
        for r in range(draws):
            model = PrivateLogisticRegression(epsilon=eps, lam=lam, data_norm=data.norm,
                                              fit_intercept=data.intercept,
                                              classes=arrays.classes, prior=prior,
                                              rng=stream(SEED, "bench outside", "lr", eps, r))
            model.fit(data.X, data.y)
            scores.append(_accuracy(model.predict(data.X_test), data.y_test))
        out[eps] = float(np.mean(scores))
        out[f"lam {eps:g}"] = lam
    return out


def masking_rows(scenario: Scenario, draws: int) -> dict[str, float]:
    """The masking page on the sidebar scenario at its defaults (N, initial set, bounded), its
    λ the default for the scenario at each ε."""
    params = masking_study.Params(task=list(masking_study.TASKS)[-1])
    task = scenario_task(scenario)
    initial = (task.X_initial, task.y_initial)
    n = masking_study.masked_size(params.n, len(task.y_initial))
    cols = scenario.predictors
    Xt = scenario.test[cols].to_numpy(float) - task.offset
    yt = scenario.test[scenario.target].to_numpy().astype(int)
    out: dict[str, float] = {}
    for eps in EPSILONS:
        lam = masking_lambda(scenario, eps)
        scores, reference = [], None
        for r in range(min(draws, MASKING_DRAWS)):
            gen = masking_study.generator(task, eps, lam, n, bounded=params.bounded,
                                          rng=stream(SEED, "bench outside", "mask", eps, r))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gen.fit(task.X_private, task.y_private, initial=initial)
            scores.append(_accuracy(gen.predict(Xt, "refit"), yt))
            reference = _accuracy(gen.predict(Xt, "private"), yt)
        out[eps] = float(np.mean(scores))
        out[f"reference {eps:g}"] = reference
        out[f"lam {eps:g}"] = lam
    out["reference"] = out[f"reference {EPSILONS[-1]:g}"]
    return out


def subset_rows(scenario: Scenario, draws: int) -> dict[str, float]:
    """The optimal-subset page at its defaults: the selected subset's DP estimate."""
    params = subset_study.Params()
    lam = subset_study.default_lambda(scenario)  # the page's λ for a new scenario
    arguments = scenario_arguments(scenario)
    data = rescale(scenario.private, scenario.public, **arguments)
    test = rescale(scenario.test, scenario.public, **arguments).private
    sizes = subset_study.grid_sizes(params.grid, data.n_public, params.start, params.step,
                                    params.count, coefficients=len(data.covariates) + 1)
    truth = test[:, data.target]

    def accuracy(theta) -> float:
        return _accuracy(predict(test, theta, "logistic", data.target)[0] > 0.5, truth > 0.5)

    out: dict[str, float] = {"lam": lam}
    for eps in EPSILONS:
        split = subset_study.split_epsilon(eps, params.split)
        scores = []
        for r in range(draws):
            result = select_subset(data, None, split, sizes, lam=lam, target=data.target,
                                   rng=stream(SEED, "bench outside", "subset", eps, r))
            scores.append(accuracy(result.estimates[result.index]))
            out["reference"] = accuracy(result.reference)
        out[eps] = float(np.mean(scores))
    return out


def importance_rows(scenario: Scenario, draws: int) -> dict[str, float]:
    """The importance page: a logistic regression on E weighted by the DP weights at the page's
    default λ, its penalty cross-validated on E (the "Model training" view's); the page's
    non-private reference, the same model trained on D at its own best penalty."""
    target = scenario.target
    group = next(cols for cols in scenario.groups.values() if target in cols)
    F_D, F_E, y_D, y_E = model_design(scenario.private, scenario.public, target, group)
    features = [c for c in scenario.private.columns if c != target and c not in set(group)]
    F_T, _ = design_matrices(scenario.test[features], scenario.public[features], True)
    yt = scenario.test[target].to_numpy(float)
    penalty = model_penalty(scenario.public, target, group)
    n = len(y_D)

    def accuracy(F, y, weights, lam) -> float:
        coef = fit_logistic(F, y, weights / weights.sum(), lam=lam).coef
        return _accuracy(F_T @ coef > 0, yt > 0.5)

    out = {"reference": accuracy(F_D, y_D, np.ones(n), cv_penalty(F_D, y_D)),
           "penalty": penalty}
    for eps in EPSILONS:
        lam = default_lambda(scenario.public, n, eps, LAMBDAS)
        scores = [accuracy(F_E, y_E, ImportanceWeights(
            eps, lam, rng=stream(SEED, "bench outside", "iw", eps, r)).fit(
            scenario.private, scenario.public).weights_, penalty) for r in range(draws)]
        out[eps] = float(np.mean(scores))
        out[f"lam {eps:g}"] = lam
    return out


RUNS = {"logistic regression": logistic_rows, "masking": masking_rows, "subset": subset_rows,
        "importance": importance_rows}


def run(tables, pages, draws: int) -> pd.DataFrame:
    """One row per (table, split, page): sizes, majority, tuned, the page's reference, DP."""
    rows = []
    for table in tables:
        for split in ("random", "biased"):
            start = time.perf_counter()
            scenario = upload(table, split)
            base = reference_rows(scenario)
            for page in pages:
                numbers = RUNS[page](scenario, draws)
                rows.append({"table": table.name, "role": table.role, "split": split,
                             "page": page, **base, **numbers})
            print(f"{table.name}, {split}: {time.perf_counter() - start:.0f} s", flush=True)
    return pd.DataFrame(rows)


def verdicts(results: pd.DataFrame) -> pd.DataFrame:
    """The acceptance checks per row: where the tuned model beats the majority class by
    :data:`LEARNABLE`, does the page's reference too; is every DP result at least the majority
    class's accuracy minus :data:`SLACK`."""
    out = results.copy()
    out["learnable"] = out["tuned"] >= out["majority"] + LEARNABLE
    out["reference learns"] = (~out["learnable"]) | (out["reference"] > out["majority"])
    worst = out[list(EPSILONS)].min(axis=1)
    out["worst DP"] = worst
    out["DP >= majority - 0.01"] = worst >= out["majority"] - SLACK
    return out


def markdown(results: pd.DataFrame) -> str:
    """The doc's tables: one per page, a row per table and split."""
    checked = verdicts(results)
    parts = []
    for page in PAGES:
        rows = checked[checked["page"] == page]
        if rows.empty:
            continue
        head = ("| table | split | n_D / n_E / d | majority | tuned LR (non-private) | "
                "page's reference (non-private) | " + " | ".join(f"ε = {e:g}" for e in EPSILONS)
                + " | checks |")
        lines = [f"**{page}** (test accuracy)", "", head,
                 "|---|---|---|---:|---:|---:|" + "---:|" * len(EPSILONS) + ":---:|"]
        for _, r in rows.iterrows():
            flags = ("ok" if r["reference learns"] and r["DP >= majority - 0.01"] else
                     ", ".join(f for f, bad in (("reference", not r["reference learns"]),
                                                ("DP", not r["DP >= majority - 0.01"])) if bad))
            lines.append(
                f"| {r['table']}{' *' if r['role'] == 'held-out' else ''} | {r['split']} | "
                f"{int(r['n_private'])} / {int(r['n_public'])} / {int(r['d'])} | "
                f"{r['majority']:.3f} | {r['tuned']:.3f} | {r['reference']:.3f} | "
                + " | ".join(f"{r[e]:.3f}" for e in EPSILONS) + f" | {flags} |")
        failing = rows[~(rows["reference learns"] & rows["DP >= majority - 0.01"])]
        lines += ["", f"{len(rows) - len(failing)} of {len(rows)} rows pass both checks."]
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="*", help="names (a prefix is enough); default all")
    parser.add_argument("--pages", nargs="*", choices=PAGES, default=list(PAGES))
    parser.add_argument("--draws", type=int, default=5, help="noise draws per ε (masking: 2)")
    parser.add_argument("--csv", help="also write every number to this CSV file")
    args = parser.parse_args()
    tables = [t for t in TABLES if not args.tables
              or any(t.name.startswith(prefix) for prefix in args.tables)]
    results = run(tables, args.pages, args.draws)
    if args.csv:
        results.to_csv(args.csv, index=False)
    print(markdown(results))


if __name__ == "__main__":
    main()
