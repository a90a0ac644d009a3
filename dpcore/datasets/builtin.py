"""Built-in scenarios and uploads: a public set E and a private set D, encoded into [0, 1]^d.

Every scenario is split into E and D by a documented, biased rule (the public set is *not* a
random sample of the population of D, as in the papers' experiments) and encoded the way every
mechanism expects: one-hot items for categorical columns, and scaling of continuous columns by a
domain bound fixed in advance or by the *public* range, with truncation. Nothing runs a download:
Adult ships in ``dpcore/data/adult/`` and the other real datasets ship with scikit-learn.

Built-in scenarios
------------------
``list_scenarios()``
    Registry keys, ``"adult"`` first.
``scenario_title(name)``
    Human title for a select box.
``load_scenario(name, rng=None, *, public="default", encoding="onehot", p=2, shift="paper")``
    A :class:`Scenario`; ``rng=None`` uses the scenario's own fixed seed.
``replace_public(scenario, public, rng=None)``
    The same scenario with E replaced as the papers do (identical, uniform or bootstrap).

References
----------
.. [JE13] Z. Ji and C. Elkan, "Differential privacy based on importance weighting", Machine
   Learning 93, 2013, Sect. 5 (the Adult split) and Sect. 6 (identical and uniform public sets).
.. [WJ18] S. Wang, Z. Ji et al., "Selecting optimal subset to release under differentially
   private M-estimators from hybrid datasets", IEEE TKDE 30(3), 2018, Sect. 5.1.
.. [PG] T. Pham, J. Ghosh and V. Yegneswaran, "Data masking with privacy guarantees",
   Sect. "Results on toy data".
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from dpcore.datasets.dimension import dimension
from dpcore.datasets.encoding import TabularEncoder, biased_split
from dpcore.datasets.scenario import Scenario
from dpcore.validation import check_choice, check_random_state

__all__ = ["PUBLIC_OPTIONS", "list_scenarios", "load_scenario", "replace_public", "scenario_title"]

#: Public sets a scenario can use: its own biased split, E = D, E uniform on the encoding's
#: domain, or E a bootstrap resample of D ([JE13]_ Sect. 6; bootstrap as in Sect. 5).
PUBLIC_OPTIONS = ("default", "identical", "uniform", "bootstrap")

_SKLEARN_LICENCE = (
    "Bundled with scikit-learn (BSD-3-Clause package; the data itself is from the UCI Machine "
    "Learning Repository, CC BY 4.0)."
)


@dataclasses.dataclass(frozen=True)
class _Entry:
    title: str
    seed: int
    build: Callable[..., Scenario]
    encodings: tuple[str, ...] = ("onehot",)
    options: tuple[str, ...] = ()  # keyword options of load_scenario that ``build`` takes


def list_scenarios() -> list[str]:
    """Names of the built-in scenarios, ``"adult"`` first."""
    return list(_REGISTRY)


def scenario_title(name: str) -> str:
    """Human title of a built-in scenario, for a select box."""
    return _entry(name).title


def load_scenario(
    name: str,
    rng: Any = None,
    *,
    public: str = "default",
    encoding: str = "onehot",
    p: int = 2,
    shift: str = "paper",
) -> Scenario:
    """Load a built-in scenario: its public set E and private set D, encoded into [0, 1]^d.

    Parameters
    ----------
    name : str
        One of :func:`list_scenarios`.
    rng : None, int or numpy.random.Generator, default=None
        Randomness of the split and of simulated data. None uses the scenario's own fixed seed,
        so the default split is always the same; the same seed gives the same split.
    public : {"default", "identical", "uniform", "bootstrap"}, default="default"
        The public set: the scenario's biased split, E = D, E drawn uniformly from the
        encoding's domain (same size as the default E), or a bootstrap resample of D.
    encoding : {"onehot", "compact"}, default="onehot"
        ``"compact"`` (Adult only) is the dummy coding closest to the paper's 63 variables.
    p : int, default=2
        Dimension of ``"mvn-shift"`` (1 to 100); ignored by the other scenarios.
    shift : {"paper", "first", "all"}, default="paper"
        Which variances of E are 0.5 in ``"mvn-shift"``: the first only, all of them, or as in
        [WJ18]_ Sect. 5.1 (the first for p <= 2, all for larger p). Ignored elsewhere.

    Returns
    -------
    Scenario

    Examples
    --------
    >>> s = load_scenario("adult")
    >>> s.target, s.d, s.private.shape[0] > s.public.shape[0]
    ('income=>50K', 111, True)
    """
    entry = _entry(name)
    check_choice(public, "public", PUBLIC_OPTIONS)
    check_choice(encoding, "encoding", entry.encodings,
                 advice=f"These are the encodings of scenario {name!r}.")
    generator = check_random_state(entry.seed if rng is None else rng)
    options = {"encoding": encoding, "p": p, "shift": shift}
    scenario = entry.build(generator, **{key: options[key] for key in entry.options})
    return replace_public(scenario, public, generator)


def replace_public(scenario: Scenario, public: str, rng: Any = None) -> Scenario:
    """Replace the public set E of a scenario, as in the papers' extreme cases.

    Parameters
    ----------
    scenario : Scenario
    public : {"default", "identical", "uniform", "bootstrap"}
        ``"default"`` keeps E; ``"identical"`` sets E = D; ``"uniform"`` draws as many records as
        E has from the encoding's domain (a random item of each categorical group, uniform [0, 1]
        for scaled columns, a fair coin for 0/1 columns; no raw form); ``"bootstrap"`` resamples
        D with replacement (n_D records). The identical and bootstrap sets are derived from D,
        so the result has ``public_independent=False`` and refuses releases.
    rng : None, int or numpy.random.Generator, default=None

    Returns
    -------
    Scenario
    """
    check_choice(public, "public", PUBLIC_OPTIONS)
    if public == "default":
        return scenario
    rng = check_random_state(rng)
    D, raw_D = scenario.private, scenario.raw_private
    if public == "identical":
        new, raw = D.copy(), None if raw_D is None else raw_D.copy()
        note = "a copy of D (E = D), the best case of Ji & Elkan (2013) Sect. 6"
    elif public == "bootstrap":
        rows = rng.integers(len(D), size=len(D))
        new = D.iloc[rows].reset_index(drop=True)
        raw = None if raw_D is None else raw_D.iloc[rows].reset_index(drop=True)
        note = f"a bootstrap resample of D ({len(D):,} records drawn with replacement)"
    else:
        new, raw = _uniform_records(scenario, len(scenario.public), rng), None
        note = (
            f"{len(new):,} records drawn uniformly from the encoding's domain, the synthetic "
            "case of Ji & Elkan (2013) Sect. 6"
        )
    description = f"{scenario.description}\n\n**Public set replaced:** E is {note}."
    derived = public in ("identical", "bootstrap")  # E built from D's own records
    return dataclasses.replace(
        scenario,
        public=new,
        raw_public=raw,
        description=description,
        public_independent=not derived,
        public_origin=note if derived else "",
    )


def _uniform_records(scenario: Scenario, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Records drawn uniformly from the domain of each encoded group."""
    blocks = []
    for group, columns in scenario.groups.items():
        kind = scenario.kinds.get(group)
        k = len(columns)
        if kind == "scaled":
            blocks.append(rng.random((n, 1)))
        elif kind == "binary":
            blocks.append(rng.integers(2, size=(n, 1)))
        elif kind in ("onehot", "dummy"):
            levels = k if kind == "onehot" else k + 1  # dummy: level 0 is the all-zero reference
            level = rng.integers(levels, size=n) - (kind == "dummy")
            blocks.append(level[:, None] == np.arange(k))
        else:
            raise ValueError(
                f"Scenario {scenario.name!r} gives no kind for group {group!r}; a uniform public "
                "set needs kinds (onehot, dummy, binary or scaled) for every group."
            )
    data = np.hstack(blocks).astype(float)
    return pd.DataFrame(data, columns=scenario.features)


def _entry(name: str) -> _Entry:
    if name not in _REGISTRY:
        raise ValueError(f"Unknown scenario {name!r}; valid choices are {list_scenarios()}.")
    return _REGISTRY[name]


def _assemble(
    name: str,
    encoder: TabularEncoder,
    raw_public: pd.DataFrame,
    raw_private: pd.DataFrame,
    target: str | None,
    text: str,
) -> Scenario:
    """Fit ``encoder`` on E (or on its fixed domain), encode E and D, and wrap them."""
    raw_public = raw_public.reset_index(drop=True)
    raw_private = raw_private.reset_index(drop=True)
    encoder.fit(raw_public)
    public, private = encoder.transform(raw_public), encoder.transform(raw_private)
    fields = encoder.scenario_fields()
    return Scenario(
        name=name,
        title=_REGISTRY[name].title,
        public=public,
        private=private,
        target=target,
        description=_with_sizes(text, len(private), len(public), fields["groups"], target),
        **fields,
        raw_public=raw_public,
        raw_private=raw_private,
    )


def _with_sizes(text: str, n_private: int, n_public: int, groups: dict[str, list[str]],
                target: str | None) -> str:
    return (
        f"{text}\n\n**Sizes:** {n_private:,} private records (D), {n_public:,} public records "
        f"(E); {dimension(groups, target).text()}."
    )


# --------------------------------------------------------------------------------------------
# adult: UCI Adult, arules items, split as Ji & Elkan Sect. 5
# --------------------------------------------------------------------------------------------

_ADULT_DIR = resources.files("dpcore").joinpath("data", "adult")
ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
    "native-country", "income",
)  # fmt: skip
#: The 12 original features of the arules encoding, in column order (sex is removed after the
#: split; fnlwgt and education-num are dropped, as in arules).
ADULT_FEATURES = (
    "age", "workclass", "education", "marital-status", "occupation", "relationship", "race",
    "capital-gain", "capital-loss", "hours-per-week", "native-country", "income",
)  # fmt: skip
# arules' cut points (right-closed intervals, as R's cut) and labels.
_ADULT_BINS = {
    "age": ((15, 25, 45, 65, 100), ("Young", "Middle-aged", "Senior", "Old")),
    "hours-per-week": ((0, 25, 40, 60, 168), ("Part-time", "Full-time", "Over-time", "Workaholic")),
}
_CAPITAL_LEVELS = ("None", "Low", "High")
_INCOME_LEVELS = ("<=50K", ">50K")


@functools.lru_cache(maxsize=1)
def _adult_raw() -> tuple[pd.DataFrame, pd.DataFrame, dict[str, list[str]]]:
    """The shipped training and test parts ('?' -> missing) and the levels in adult.names."""
    frames = []
    for file, skip in (("adult.data.gz", 0), ("adult.test.gz", 1)):
        with _ADULT_DIR.joinpath(file).open("rb") as fh:
            frame = pd.read_csv(
                fh,
                compression="gzip",
                header=None,
                names=list(ADULT_COLUMNS),
                skiprows=skip,
                skipinitialspace=True,
                na_values="?",
            )
        frame["income"] = frame["income"].str.rstrip(".")  # test labels end with "."
        frames.append(frame)
    levels = {}
    for line in _ADULT_DIR.joinpath("adult.names").read_text().splitlines():
        match = re.fullmatch(r"([a-z-]+): (.+)\.", line.strip())
        if match and match[2] != "continuous":
            levels[match[1]] = [value.strip() for value in match[2].split(",")]
    return frames[0], frames[1], levels


@functools.lru_cache(maxsize=2)
def _adult_encoded(encoding: str) -> tuple[pd.DataFrame, pd.DataFrame, TabularEncoder]:
    """Training and test parts encoded as arules items (sex kept, for the split)."""
    train, test, levels = _adult_raw()
    cuts = {  # None / Low / High: zero and the median of the positive values (training part)
        col: (-np.inf, 0.0, float(train.loc[train[col] > 0, col].median()), np.inf)
        for col in ("capital-gain", "capital-loss")
    }
    categories = {col: levels.get(col) for col in ADULT_FEATURES}
    categories.update({col: list(labels) for col, (_, labels) in _ADULT_BINS.items()})
    categories.update({col: list(_CAPITAL_LEVELS) for col in cuts})
    categories["income"] = list(_INCOME_LEVELS)
    if encoding == "compact":
        categories["native-country"] = ["United-States", "Other"]

    def items(raw: pd.DataFrame) -> pd.DataFrame:
        out = raw.loc[:, list(ADULT_FEATURES)]
        for col, (bins, labels) in _ADULT_BINS.items():
            out[col] = pd.cut(raw[col], bins, labels=list(labels))
        for col, bins in cuts.items():
            out[col] = pd.cut(raw[col], bins, labels=list(_CAPITAL_LEVELS))
        if encoding == "compact":
            country = raw["native-country"]
            out["native-country"] = country.where(
                country.isna() | (country == "United-States"), "Other"
            )
        return out

    encoder = TabularEncoder(categories=categories, drop_first=encoding == "compact")
    encoder.fit(items(train))
    return encoder.transform(items(train)), encoder.transform(items(test)), encoder


def _adult(rng: np.random.Generator, encoding: str) -> Scenario:
    train, _, _ = _adult_raw()
    encoded, test, encoder = _adult_encoded(encoding)
    private = biased_split(train["sex"].eq("Male").to_numpy(), 0.9, 0.1, rng)
    raw = train.drop(columns="sex")
    part = {  # row selections, index reset so that raw and encoded rows line up
        key: frame.loc[rows].reset_index(drop=True)
        for key, frame, rows in (
            ("public", encoded, ~private),
            ("private", encoded, private),
            ("raw_public", raw, ~private),
            ("raw_private", raw, private),
        )
    }
    coding = {
        "onehot": "full one-hot: one binary item per level of each of the 12 features (arules)",
        "compact": (
            "compact: native-country collapsed to United-States / Other and dummy coding that "
            "drops each feature's first level (k - 1 items per feature), the encoding closest "
            "to the paper's 63 binary variables"
        ),
    }[encoding]
    text = (
        "**UCI Adult** (Census Income, 1994 US census extract), training part: 32,561 people "
        "described by age, work, education, family, capital gains and losses, hours per week "
        "and country, with income above or below $50K.\n\n"
        "**Split** as Ji & Elkan (2013) Sect. 5: 90 % of men and 10 % of women go to the "
        "private set D (exact fractions, drawn by a permutation with the scenario's seed), the "
        "rest to the public set E; then the column *sex* is removed. D is mostly male and "
        "earns more than E. The test part (16,281 rows) is encoded the same way for test error."
        "\n\n**Encoding** (rebuilt from the raw columns as in the R package arules): fnlwgt "
        "and education-num dropped; age cut at 15/25/45/65/100 into Young, Middle-aged, "
        "Senior, Old; hours-per-week cut at 0/25/40/60/168 into Part-time, Full-time, "
        "Over-time, Workaholic; capital-gain and capital-loss into None / Low / High at zero "
        "and at the median of the positive values of the training part (part of the public "
        f"definition of the encoding). Items: {coding}. A missing value ('?' in workclass, "
        "occupation and native-country) is an absent item: its group is all zero. "
        "Target: *income=>50K*.\n\n"
        "**Source and licence:** Becker, B. & Kohavi, R. (1996). Adult. UCI Machine Learning "
        "Repository, https://doi.org/10.24432/C5XW20, CC BY 4.0; shipped unchanged in "
        "`dpcore/data/adult/`."
    )
    target, fields = "income=>50K", encoder.scenario_fields()
    return Scenario(
        name="adult",
        title=_REGISTRY["adult"].title,
        public=part["public"],
        private=part["private"],
        target=target,
        description=_with_sizes(text, len(part["private"]), len(part["public"]),
                                fields["groups"], target),
        **fields,
        raw_public=part["raw_public"],
        raw_private=part["raw_private"],
        test=test.copy(),
        encoding=encoding,
    )


# --------------------------------------------------------------------------------------------
# mvn-shift: Wang et al. Sect. 5.1
# --------------------------------------------------------------------------------------------

MVN_SIZE = 10_000
#: Domain bound of every covariate of mvn-shift, fixed in advance: values are truncated to
#: [-4, 4] and scaled to [0, 1]. Under N(0, 1) a coordinate leaves it with probability 6e-5.
MVN_BOUND = 4.0
MVN_MAX_DIMENSION = 100


def _mvn_shift(rng: np.random.Generator, p: int, shift: str) -> Scenario:
    if isinstance(p, bool) or not isinstance(p, int | np.integer):
        raise TypeError(f"p must be an int, got {type(p).__name__} ({p!r}).")
    if not 1 <= p <= MVN_MAX_DIMENSION:
        raise ValueError(f"p == {p}, must be between 1 and {MVN_MAX_DIMENSION}.")
    check_choice(shift, "shift", ("paper", "first", "all"))
    if shift == "paper":
        shift = "first" if p <= 2 else "all"
    var_E = np.ones(p)
    var_E[: 1 if shift == "first" else p] = 0.5
    beta_D = rng.uniform(-1.0, 1.0, size=p)
    beta_E = rng.uniform(0.0, 0.5, size=p)
    columns = [f"x{j + 1}" for j in range(p)]
    raw = {}
    for part, var, beta in (("private", np.ones(p), beta_D), ("public", var_E, beta_E)):
        X = rng.standard_normal((MVN_SIZE, p)) * np.sqrt(var)
        y = (rng.random(MVN_SIZE) < 0.5 * (1.0 + np.tanh(X @ beta / 2.0))).astype(int)  # expit
        raw[part] = pd.DataFrame(X, columns=columns).assign(y=y)
    covariance = (
        "0.5 in the first coordinate and 1 in the others"
        if shift == "first"
        else ("0.5 in every coordinate")
    )
    text = (
        f"**Simulated shift** (Wang et al. 2018, Sect. 5.1), p = {p}: the private set D has "
        f"{MVN_SIZE:,} records x ~ N(0, I_p); the public set E has {MVN_SIZE:,} records "
        f"x ~ N(0, diag(v)) with variance {covariance}. "
        "Labels follow logistic models without intercept, logit P(y = 1 | x) = beta^T x, with "
        "beta_D ~ Unif(-1, 1)^p for D and beta_E ~ Unif(0, 1/2)^p for E, drawn with the "
        "scenario's seed: here beta_D = "
        f"{_fmt_vector(beta_D)} and beta_E = {_fmt_vector(beta_E)}.\n\n"
        f"**Encoding:** each covariate truncated to the fixed domain [-{MVN_BOUND:g}, "
        f"{MVN_BOUND:g}] and scaled to [0, 1] (a bound fixed in advance, not read off the data); "
        "target *y* (0/1). The raw frames keep the unscaled covariates.\n\n"
        "**Source and licence:** simulated here (no licence needed), following Wang, Ji, Kim, "
        "Wang, Xiong & Jiang (2018), IEEE TKDE 30(3)."
    )
    encoder = TabularEncoder(bounds=dict.fromkeys(columns, (-MVN_BOUND, MVN_BOUND)), binary=["y"])
    return _assemble("mvn-shift", encoder, raw["public"], raw["private"], "y", text)


def _fmt_vector(values: np.ndarray, shown: int = 5) -> str:
    head = ", ".join(f"{v:.3f}" for v in values[:shown])
    return f"({head}{', ...' if len(values) > shown else ''})"


# --------------------------------------------------------------------------------------------
# three-gaussians: Pham et al.'s toy data
# --------------------------------------------------------------------------------------------

#: Class means of Pham et al.'s toy data; every class has covariance 0.25 I.
TOY_MEANS = {1: (0.0, 1.5), 2: (1.0, 1.0), 3: (1.0, -1.0)}
TOY_PER_CLASS = 100
#: Fixed domain of both coordinates (the class means +- 3 standard deviations and more).
TOY_BOUNDS = (-2.5, 3.0)


def _three_gaussians(rng: np.random.Generator) -> Scenario:
    labels = np.repeat(list(TOY_MEANS), TOY_PER_CLASS)
    means = np.array([TOY_MEANS[c] for c in labels])
    X = means + 0.5 * rng.standard_normal(means.shape)
    raw = pd.DataFrame(X, columns=["x1", "x2"]).assign(**{"class": labels})
    private = biased_split(labels == 3, 0.9, 0.1, rng)
    text = (
        "**Three Gaussian classes** (Pham, Ghosh & Yegneswaran, toy data): "
        f"{TOY_PER_CLASS} points per class in 2-D, class 1 ~ N((0, 1.5), 0.25 I), "
        "class 2 ~ N((1, 1), 0.25 I), class 3 ~ N((1, -1), 0.25 I). The paper treats class 3 "
        "as sensitive.\n\n"
        "**Split:** 90 % of class 3 and 10 % of classes 1 and 2 go to the private set D "
        "(exact fractions, seeded permutation), the rest to the public set E, so E sees few "
        "sensitive points.\n\n"
        f"**Encoding:** x1 and x2 truncated to the fixed domain [{TOY_BOUNDS[0]:g}, "
        f"{TOY_BOUNDS[1]:g}] and scaled to [0, 1]; the class as one-hot items class=1, "
        "class=2, class=3 (group *class* for multi-class pages). Target: *class=3* (the "
        "sensitive class against the rest).\n\n"
        "**Source and licence:** simulated here (no licence needed)."
    )
    encoder = TabularEncoder(
        categories={"class": list(TOY_MEANS)}, bounds=dict.fromkeys(["x1", "x2"], TOY_BOUNDS)
    )
    return _assemble("three-gaussians", encoder, raw[~private], raw[private], "class=3", text)


# --------------------------------------------------------------------------------------------
# scikit-learn's bundled real datasets
# --------------------------------------------------------------------------------------------


def _sklearn_data(loader: str) -> Any:
    """A dataset bundled with scikit-learn (offline), e.g. ``"load_digits"``."""
    # Imported here: scikit-learn takes about a second to import and only these scenarios need it.
    from sklearn import datasets

    return getattr(datasets, loader)()


def _digits(rng: np.random.Generator) -> Scenario:
    bunch = _sklearn_data("load_digits")
    pixels = pd.DataFrame(bunch.data, columns=bunch.feature_names)
    raw = pixels.assign(digit=bunch.target)
    ink = bunch.data.sum(axis=1)
    threshold = float(np.median(ink))
    private = biased_split(ink > threshold, 0.9, 0.1, rng)
    text = (
        "**Handwritten digits** (8x8 images, 1,797 digits 0-9 from 43 writers; the UCI "
        "optical recognition data bundled with scikit-learn). Pham et al. use digits for "
        "their masking experiments.\n\n"
        f"**Split:** 90 % of the images with more ink than the median (total intensity > "
        f"{threshold:g}, thick strokes) and 10 % of the others go to the private set D "
        "(exact fractions, seeded permutation), the rest to the public set E.\n\n"
        "**Encoding:** each pixel intensity 0-16 divided by 16 (the fixed domain of the "
        "data); the digit as one-hot items digit=0 ... digit=9 (group *digit*). Target: "
        "*digit=3* (Pham et al.'s sensitive digit) against the rest.\n\n"
        "**Source and licence:** Alpaydin, E. & Kaynak, C. (1998). Optical Recognition of "
        "Handwritten Digits. UCI Machine Learning Repository, https://doi.org/10.24432/C50P49. "
        f"{_SKLEARN_LICENCE}"
    )
    encoder = TabularEncoder(
        categories={"digit": list(range(10))}, bounds=dict.fromkeys(pixels.columns, (0.0, 16.0))
    )
    return _assemble("digits", encoder, raw[~private], raw[private], "digit=3", text)


def _breast_cancer(rng: np.random.Generator) -> Scenario:
    bunch = _sklearn_data("load_breast_cancer")
    raw = pd.DataFrame(bunch.data, columns=bunch.feature_names)
    raw["malignant"] = (bunch.target == 0).astype(int)  # scikit-learn codes malignant as 0
    threshold = float(raw["mean radius"].median())
    private = biased_split((raw["mean radius"] > threshold).to_numpy(), 0.9, 0.1, rng)
    text = (
        "**Breast cancer Wisconsin (diagnostic)**: 569 tumours described by 30 features of "
        "their cell nuclei (radius, texture, ... as mean, standard error and worst value), "
        "212 malignant.\n\n"
        f"**Split:** 90 % of the tumours with mean radius above the median ({threshold:g}) "
        "and 10 % of the others go to the private set D (exact fractions, seeded "
        "permutation), the rest to the public set E, so D holds larger, mostly malignant "
        "tumours.\n\n"
        "**Encoding:** min-max scaling of each feature by its range in the *public* set, with "
        "private values truncated to that range; target *malignant* (1 = malignant).\n\n"
        "**Source and licence:** Wolberg, W., Mangasarian, O., Street, N. & Street, W. "
        "(1995). Breast Cancer Wisconsin (Diagnostic). UCI Machine Learning Repository, "
        f"https://doi.org/10.24432/C5DW2B. {_SKLEARN_LICENCE}"
    )
    encoder = TabularEncoder(binary=["malignant"])
    return _assemble("breast-cancer", encoder, raw[~private], raw[private], "malignant", text)


def _wine(rng: np.random.Generator) -> Scenario:
    bunch = _sklearn_data("load_wine")
    raw = pd.DataFrame(bunch.data, columns=bunch.feature_names)
    raw["cultivar"] = bunch.target + 1  # UCI numbers the cultivars 1, 2, 3
    threshold = float(raw["alcohol"].median())
    private = biased_split((raw["alcohol"] > threshold).to_numpy(), 0.9, 0.1, rng)
    text = (
        "**Wine**: chemical analysis (13 measurements) of 178 wines from three cultivars "
        "grown in the same region of Italy.\n\n"
        f"**Split:** 90 % of the wines with more alcohol than the median ({threshold:g} %) and "
        "10 % of the others go to the private set D (exact fractions, seeded permutation), "
        "the rest to the public set E.\n\n"
        "**Encoding:** min-max scaling of each measurement by its range in the *public* set, "
        "with private values truncated to that range; the cultivar as one-hot items "
        "cultivar=1, cultivar=2, cultivar=3 (group *cultivar*). Target: *cultivar=1* against "
        "the rest.\n\n"
        "**Source and licence:** Aeberhard, S. & Forina, M. (1991). Wine. UCI Machine "
        f"Learning Repository, https://doi.org/10.24432/C5PC7J. {_SKLEARN_LICENCE}"
    )
    encoder = TabularEncoder(categories={"cultivar": [1, 2, 3]})
    return _assemble("wine", encoder, raw[~private], raw[private], "cultivar=1", text)


_REGISTRY: dict[str, _Entry] = {
    "adult": _Entry(
        "UCI Adult: 90 % of men private (Ji & Elkan)",
        seed=2013,
        build=_adult,
        encodings=("onehot", "compact"),
        options=("encoding",),
    ),
    "mvn-shift": _Entry(
        "Shifted Gaussians (Wang et al. simulation)",
        seed=2018,
        build=_mvn_shift,
        options=("p", "shift"),
    ),
    "three-gaussians": _Entry("Three Gaussian classes (Pham et al. toy)", 2016, _three_gaussians),
    "digits": _Entry("Handwritten digits 8x8 (scikit-learn)", 1998, _digits),
    "breast-cancer": _Entry("Breast cancer Wisconsin (scikit-learn)", 1995, _breast_cancer),
    "wine": _Entry("Wine cultivars (scikit-learn)", 1991, _wine),
}
