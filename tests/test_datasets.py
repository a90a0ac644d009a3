"""Built-in scenarios: the shipped Adult copy, its encodings and split, and the other datasets."""

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dpcore.datasets as ds
from dpcore import DataError
from dpcore.datasets import Scenario, TabularEncoder, biased_split, builtin

ADULT_DIR = Path(ds.__file__).parents[1] / "data" / "adult"
# The digests published with the data (../shared/data/adult/SHA256SUMS at the time of copying).
ADULT_SHA256 = {
    "adult.data.gz": "c7a2b4716a97f930123e0baf879188d701e798172631a654fc703d4b082907f3",
    "adult.names": "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
    "adult.test.gz": "8a2c1bffa6e7ce5abfa43881ae5e87c4311ebc2b3cd526c9c40a43f19f06f799",
}
# Items per original feature of the arules encoding once sex is removed (4+8+16+7+14+6+5+3+3+4+41+2)
ADULT_GROUP_SIZES = {
    "age": 4, "workclass": 8, "education": 16, "marital-status": 7, "occupation": 14,
    "relationship": 6, "race": 5, "capital-gain": 3, "capital-loss": 3, "hours-per-week": 4,
    "native-country": 41, "income": 2,
}  # fmt: skip


@pytest.fixture(scope="module")
def adult():
    return ds.load_scenario("adult")


def _rows(frame):
    return pd.util.hash_pandas_object(frame, index=False)


# ------------------------------------------------------------------ shipped data and registry


def test_shipped_adult_copy_is_intact():
    listed = dict(
        reversed(line.split()) for line in (ADULT_DIR / "SHA256SUMS").read_text().splitlines()
    )
    assert listed == ADULT_SHA256
    for file, digest in ADULT_SHA256.items():
        assert hashlib.sha256((ADULT_DIR / file).read_bytes()).hexdigest() == digest
    readme = (ADULT_DIR / "README.md").read_text()
    assert "CC BY 4.0" in readme and "10.24432/C5XW20" in readme


def test_registry():
    names = ds.list_scenarios()
    assert names[0] == "adult"
    assert {"mvn-shift", "three-gaussians", "digits", "breast-cancer", "wine"} <= set(names)
    assert all(ds.scenario_title(name) for name in names)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ds.load_scenario("census"), r"Unknown scenario 'census'; valid choices .*adult"),
        (lambda: ds.scenario_title("census"), "valid choices"),
        (lambda: ds.load_scenario("adult", public="synthetic"), r"public == .*of .*'bootstrap'"),
        (lambda: ds.load_scenario("adult", encoding="arules"), r"encoding == .*of .*'compact'"),
        (lambda: ds.load_scenario("digits", encoding="compact"), r"encodings of scenario 'digits'"),
        (lambda: ds.load_scenario("mvn-shift", p=0), "between 1 and 100"),
        (lambda: ds.load_scenario("mvn-shift", p=101), "between 1 and 100"),
        (lambda: ds.load_scenario("mvn-shift", shift="some"), r"shift == .*one of .*'first'"),
    ],
)
def test_invalid_options_say_the_valid_choices(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_dimension_must_be_an_int():
    with pytest.raises(TypeError, match="p must be an int"):
        ds.load_scenario("mvn-shift", p=2.5)


@pytest.mark.parametrize("name", ds.list_scenarios())
def test_every_scenario_is_encoded_in_the_unit_box(name):
    s = ds.load_scenario(name)
    assert isinstance(s, Scenario) and s.name == name and s.title == ds.scenario_title(name)
    assert list(s.private.columns) == list(s.public.columns) == s.features
    target_group = next(cols for cols in s.groups.values() if s.target in cols)
    assert s.d == len(s.predictors) == len(s.features) - len(target_group)  # one d
    assert s.dimension.columns == sum(len(cols) for cols in s.groups.values())
    for frame in (s.public, s.private):
        assert (frame.dtypes == "float64").all()
        values = frame.to_numpy()
        assert values.min() >= 0.0 and values.max() <= 1.0
    assert len(s.raw_public) == len(s.public) and len(s.raw_private) == len(s.private)
    assert s.target in s.features and set(np.unique(s.private[s.target])) == {0.0, 1.0}
    assert s.target not in s.predictors
    assert set(s.kinds) == set(s.groups)
    assert "licen" in s.description.lower() and "Source" in s.description
    assert "**Split" in s.description or name == "mvn-shift"  # simulated D and E: no split


@pytest.mark.parametrize("name", ds.list_scenarios())
def test_same_seed_same_split_other_seed_other_split(name):
    default, again, other = (
        ds.load_scenario(name),
        ds.load_scenario(name),
        ds.load_scenario(name, 1),
    )
    pd.testing.assert_frame_equal(default.private, again.private)
    pd.testing.assert_frame_equal(default.public, again.public)
    pd.testing.assert_frame_equal(other.private, ds.load_scenario(name, rng=1).private)
    assert not default.private.equals(other.private)


# ------------------------------------------------------------------ adult


def test_adult_split_reproduces_the_paper(adult):
    n_private, n_public = len(adult.private), len(adult.public)
    assert n_private + n_public == 32_561
    # 90 % of 21,790 men and 10 % of 10,771 women, exactly (README: about 20,800 and 11,800)
    assert n_private == round(0.9 * 21_790) + round(0.1 * 10_771) == 20_688
    assert abs(n_public - 11_800) < 300
    # Ji & Elkan Sect. 6: >50K about 0.3 in D and 0.15 in E (the data note checked 0.14)
    assert adult.private["income=>50K"].mean() == pytest.approx(0.30, abs=0.02)
    assert adult.public["income=>50K"].mean() == pytest.approx(0.145, abs=0.02)


def test_adult_removes_sex_and_lines_up_raw_and_encoded_rows(adult):
    assert not [c for c in adult.features if c.startswith("sex")]
    assert "sex" not in adult.raw_private.columns and "sex" not in adult.raw_public.columns
    for raw, encoded in ((adult.raw_private, adult.private), (adult.raw_public, adult.public)):
        np.testing.assert_array_equal(raw["income"] == ">50K", encoded["income=>50K"] == 1.0)
        np.testing.assert_array_equal(raw["age"] <= 25, encoded["age=Young"] == 1.0)


def test_adult_onehot_items(adult):
    assert adult.d == 111 and adult.dimension.columns == 113  # d: the target's 2 items aside
    assert adult.encoding == "onehot" and adult.target == "income=>50K"
    assert {group: len(cols) for group, cols in adult.groups.items()} == ADULT_GROUP_SIZES
    assert adult.features[:4] == ["age=Young", "age=Middle-aged", "age=Senior", "age=Old"]
    assert "workclass=Private" in adult.features and "income=<=50K" in adult.features
    raw = pd.concat([adult.raw_private, adult.raw_public], ignore_index=True)
    enc = pd.concat([adult.private, adult.public], ignore_index=True)
    for group, cols in adult.groups.items():
        sums = enc[cols].sum(axis=1)
        assert set(sums) <= {0.0, 1.0}
        # a missing value ('?') is an absent item: all-zero group, and only then
        missing = raw[group].isna() if group in raw else np.zeros(len(raw), dtype=bool)
        np.testing.assert_array_equal(sums == 0.0, missing)
    assert raw["workclass"].isna().sum() == 1836
    # capital-gain: None at 0, Low up to the median of the positive gains (7298), High above
    gain = raw["capital-gain"]
    np.testing.assert_array_equal(enc["capital-gain=None"] == 1, gain == 0)
    np.testing.assert_array_equal(enc["capital-gain=Low"] == 1, (gain > 0) & (gain <= 7298))
    hours = raw["hours-per-week"]
    np.testing.assert_array_equal(
        enc["hours-per-week=Full-time"] == 1, (hours > 25) & (hours <= 40)
    )


def test_adult_test_part(adult):
    assert adult.test.shape == (16_281, 113)
    assert list(adult.test.columns) == adult.features
    assert adult.test["income=>50K"].mean() == pytest.approx(0.236, abs=0.005)  # 3,846 / 16,281
    assert adult.test.to_numpy().min() >= 0.0 and adult.test.to_numpy().max() <= 1.0


def test_adult_compact_encoding_is_close_to_the_paper():
    s = ds.load_scenario("adult", encoding="compact")
    # k - 1 items per feature: 3+7+15+6+13+5+4+2+2+3+1+1 = 62, i.e. 63 with an intercept
    assert s.d == 61 and s.dimension.columns == 62  # d: the target's 1 item aside
    assert s.encoding == "compact" and s.target == "income=>50K"
    assert s.groups["native-country"] == ["native-country=Other"]
    assert s.groups["income"] == ["income=>50K"]
    assert "age=Young" not in s.features and "workclass=Private" not in s.features
    assert list(s.test.columns) == s.features
    assert s.kinds["age"] == "dummy"
    for cols in s.groups.values():
        assert (s.private[cols].sum(axis=1) <= 1.0).all()
    full = ds.load_scenario("adult")
    pd.testing.assert_series_equal(s.private["income=>50K"], full.private["income=>50K"])
    other = (full.raw_private["native-country"] != "United-States") & full.raw_private[
        "native-country"
    ].notna()
    np.testing.assert_array_equal(s.private["native-country=Other"] == 1, other)


def test_adult_reuses_its_parsed_and_encoded_files(adult):
    # What makes a reload fast (a new seed or a page switch): the raw files and the encoding
    # are computed once per process and reused, only the split is redrawn.
    before = builtin._adult_encoded.cache_info().hits, builtin._adult_raw.cache_info().hits
    again = ds.load_scenario("adult", rng=5)
    after = builtin._adult_encoded.cache_info().hits, builtin._adult_raw.cache_info().hits
    assert after[0] == before[0] + 1 and after[1] > before[1]
    assert not again.private.equals(adult.private)  # another seed, another split


# ------------------------------------------------------------------ public-set options


def test_identical_public(adult):
    s = ds.load_scenario("adult", public="identical")
    pd.testing.assert_frame_equal(s.public, s.private)
    pd.testing.assert_frame_equal(s.private, adult.private)
    assert "(E = D)" in s.description


def test_bootstrap_public_resamples_the_private_set(adult):
    s = ds.load_scenario("adult", public="bootstrap")
    assert len(s.public) == len(s.private) == len(adult.private)
    assert _rows(s.public).isin(_rows(s.private)).all()
    assert s.public.duplicated().sum() > 0.3 * len(s.public)
    np.testing.assert_array_equal(
        s.raw_public["income"] == ">50K", s.public["income=>50K"].to_numpy() == 1
    )


@pytest.mark.parametrize("encoding", ["onehot", "compact"])
def test_uniform_public_adult(adult, encoding):
    s = ds.load_scenario("adult", public="uniform", encoding=encoding)
    assert len(s.public) == len(adult.public) and s.raw_public is None
    for cols in s.groups.values():
        sums = s.public[cols].sum(axis=1)
        if encoding == "onehot":
            assert (sums == 1.0).all()
        else:  # dummy: the reference level is the all-zero row, one in k + 1
            assert set(sums) == {0.0, 1.0}
            assert (sums == 0).mean() == pytest.approx(1 / (len(cols) + 1), abs=0.03)
    # a random one of the 41 countries, about as often as each other
    counts = s.public[s.groups["native-country"]].mean() if encoding == "onehot" else None
    if counts is not None:
        assert counts.min() > 0.5 / 41 and counts.max() < 1.5 / 41


def test_uniform_public_scaled_and_binary_columns():
    s = ds.load_scenario("mvn-shift", public="uniform")
    assert set(s.public["y"]) == {0.0, 1.0}
    assert s.public["x1"].mean() == pytest.approx(0.5, abs=0.02)
    assert s.public["x1"].std() == pytest.approx(np.sqrt(1 / 12), abs=0.01)


def test_replace_public_needs_kinds_for_uniform(adult):
    bare = Scenario("t", "t", adult.public, adult.private, None, "", adult.groups)
    with pytest.raises(ValueError, match="needs kinds"):
        ds.replace_public(bare, "uniform", rng=0)
    assert ds.replace_public(bare, "default") is bare


# ------------------------------------------------------------------ simulations and scikit-learn


def test_mvn_shift_follows_wang_et_al():
    s = ds.load_scenario("mvn-shift")
    assert len(s.private) == len(s.public) == 10_000 and s.features == ["x1", "x2", "y"]
    assert s.target == "y" and s.kinds == {"x1": "scaled", "x2": "scaled", "y": "binary"}
    # D ~ N(0, diag(1, 1)), E ~ N(0, diag(0.5, 1)); sd of a sample variance of 10^4 is ~0.014
    np.testing.assert_allclose(s.raw_private[["x1", "x2"]].var(), [1.0, 1.0], atol=0.06)
    np.testing.assert_allclose(s.raw_public[["x1", "x2"]].var(), [0.5, 1.0], atol=0.06)
    # domain bound fixed in advance: clip to [-4, 4], scale to [0, 1]
    expected = np.clip((s.raw_private["x1"] + 4) / 8, 0, 1)
    np.testing.assert_allclose(s.private["x1"], expected)
    np.testing.assert_array_equal(s.private["y"], s.raw_private["y"])
    assert "beta_D" in s.description


def test_mvn_shift_dimension_and_shift():
    high = ds.load_scenario("mvn-shift", p=100)
    assert high.d == 100 and high.features[-2:] == ["x100", "y"]
    variances = high.raw_public.drop(columns="y").var()
    assert variances.between(0.44, 0.56).all()  # the paper's p = 100 case: 0.5 I
    first = ds.load_scenario("mvn-shift", p=5, shift="first").raw_public.drop(columns="y").var()
    assert first.iloc[0] == pytest.approx(0.5, abs=0.06)
    np.testing.assert_allclose(first.iloc[1:], 1.0, atol=0.06)


def test_labels_follow_the_logistic_model():
    s = ds.load_scenario("mvn-shift", rng=3)
    from sklearn.linear_model import LogisticRegression

    X, y = s.raw_private[["x1", "x2"]], s.raw_private["y"]
    fit = LogisticRegression(C=1e6, fit_intercept=False).fit(X, y)
    beta = [float(v) for v in s.description.split("beta_D = (")[1].split(")")[0].split(", ")]
    np.testing.assert_allclose(fit.coef_[0], beta, atol=0.1)


def test_three_gaussians_follow_pham_et_al():
    s = ds.load_scenario("three-gaussians")
    raw = pd.concat([s.raw_private, s.raw_public])
    assert len(raw) == 300 and (raw["class"].value_counts() == 100).all()
    means = raw.groupby("class")[["x1", "x2"]].mean()
    np.testing.assert_allclose(means.to_numpy(), [[0, 1.5], [1, 1], [1, -1]], atol=0.15)
    np.testing.assert_allclose(raw.groupby("class")[["x1", "x2"]].var(), 0.25, atol=0.1)
    assert (s.raw_private["class"] == 3).sum() == 90 and (s.raw_public["class"] == 3).sum() == 10
    assert s.groups["class"] == ["class=1", "class=2", "class=3"] and s.target == "class=3"


def test_digits():
    s = ds.load_scenario("digits")
    assert len(s.private) + len(s.public) == 1797 and s.d == 64 and s.dimension.columns == 64 + 10
    np.testing.assert_allclose(s.private["pixel_3_3"], s.raw_private["pixel_3_3"] / 16)
    assert s.groups["digit"] == [f"digit={k}" for k in range(10)]
    ink = s.raw_private.drop(columns="digit").sum(axis=1).mean()
    assert ink > s.raw_public.drop(columns="digit").sum(axis=1).mean() + 20  # biased split


def test_breast_cancer_scales_by_the_public_range():
    s = ds.load_scenario("breast-cancer")
    assert len(s.private) + len(s.public) == 569 and s.d == 30 and s.target == "malignant"
    raw = pd.concat([s.raw_private, s.raw_public])
    assert raw["malignant"].sum() == 212
    assert (s.public.min() == 0.0).all() and (s.public.max() == 1.0).all()
    low, high = s.raw_public["mean area"].min(), s.raw_public["mean area"].max()
    expected = np.clip((s.raw_private["mean area"] - low) / (high - low), 0, 1)
    np.testing.assert_allclose(s.private["mean area"], expected)
    assert s.private["malignant"].mean() > s.public["malignant"].mean() + 0.3


def test_wine():
    s = ds.load_scenario("wine")
    assert len(s.private) + len(s.public) == 178 and s.d == 13 and s.dimension.columns == 13 + 3
    assert s.groups["cultivar"] == ["cultivar=1", "cultivar=2", "cultivar=3"]
    assert s.raw_private["alcohol"].mean() > s.raw_public["alcohol"].mean()


# ------------------------------------------------------------------ building blocks


def test_biased_split_takes_exact_fractions():
    in_group = np.arange(1000) < 300
    private = biased_split(in_group, 0.9, 0.1, np.random.default_rng(0))
    assert private[in_group].sum() == 270 and private[~in_group].sum() == 70


def test_encoder_fits_on_public_and_truncates_private():
    public = pd.DataFrame({"x": [0.0, 10.0, 5.0], "c": ["a", "b", "a"]})
    private = pd.DataFrame({"x": [-5.0, 20.0], "c": ["b", "z"]})
    encoder = TabularEncoder().fit(public)
    assert encoder.bounds_ == {"x": (0.0, 10.0)} and encoder.categories_ == {"c": ["a", "b"]}
    out = encoder.transform(private)
    np.testing.assert_array_equal(out.to_numpy(), [[0, 0, 1], [1, 0, 0]])
    dummy = TabularEncoder(drop_first=True).fit(public)
    assert dummy.feature_names_out_ == ["x", "c=b"] and dummy.kinds_["c"] == "dummy"


def test_encoder_errors():
    with pytest.raises(DataError, match="single value 1 in") as single:  # never np.float64(1.0)
        TabularEncoder().fit(pd.DataFrame({"x": [1.0, 1.0]}))
    assert "np." not in str(single.value)
    with pytest.raises(DataError, match="clash"):
        TabularEncoder().fit(pd.DataFrame({"c": ["b", "d"], "c=b": [0.0, 1.0]}))
    encoder = TabularEncoder(binary=["y"]).fit(pd.DataFrame({"x": [0.0, 1.0], "y": [0, 1]}))
    with pytest.raises(DataError, match="missing values"):
        encoder.transform(pd.DataFrame({"x": [np.nan], "y": [1]}))
    with pytest.raises(DataError, match="only 0 and 1"):
        encoder.transform(pd.DataFrame({"x": [0.5], "y": [2]}))


def test_scenario_checks_its_frames():
    frame = pd.DataFrame({"a": [0.0, 1.0], "b": [0.5, 0.5]})
    groups = {"a": ["a"], "b": ["b"]}
    Scenario("s", "S", frame, frame, "a", "", groups)
    with pytest.raises(DataError, match="same columns"):
        Scenario("s", "S", frame, frame[["b", "a"]], None, "", groups)
    with pytest.raises(DataError, match=r"\[0, 1\]"):
        Scenario("s", "S", frame * 2, frame, None, "", groups)
    with pytest.raises(DataError, match="only 0 and 1"):
        Scenario("s", "S", frame, frame, "b", "", groups)
    with pytest.raises(DataError, match="groups"):
        Scenario("s", "S", frame, frame, None, "", {"a": ["a"]})
