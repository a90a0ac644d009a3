"""The importance-weighting page's study (:mod:`dpcore.studies.importance`) and figures
(:mod:`dpcore.figures.importance`): parameters keyed like the page's widgets, a prepared part
that every ε move reuses, each view's tables, and a takeaway that quotes them."""

from __future__ import annotations

import dataclasses
import uuid

import numpy as np
import pandas as pd
import pytest

from dpcore.datasets import load_scenario
from dpcore.domains import query_domains
from dpcore.figures import figures
from dpcore.figures.importance import TITLES
from dpcore.figures.importance import figures as importance_figures
from dpcore.importance import BootstrapStudy, bootstrap_estimates, expected_noise_norm
from dpcore.importance import experiments as iw_experiments
from dpcore.runs import RunConfig, run
from dpcore.studies import importance as study
from dpcore.studies.importance import (
    EPSILON_GRID,
    LAMBDA_GRID,
    MODEL_EPSILONS,
    VIEWS,
    Params,
    epsilon_axis,
    lambda_axis,
)

REPS = 20  # replicates: enough for every table's shape, a fraction of a second on Wine
#: The tables of each view, after the metrics row (on Wine, which has a target).
TABLES = {
    "by_epsilon": ["estimates_by_epsilon"],
    "by_lambda": ["estimates_by_lambda"],
    "bias_sd": ["summary_by_lambda", "theory_by_lambda_nonprivate"],
    "variance": ["summary_by_lambda", "theory_by_lambda_nonprivate",
                         "summary_by_epsilon", "theory_by_epsilon_nonprivate"],
    "baselines": ["baselines", "baselines_summary"],
    "models": ["model_distances", "model_reference_norms_nonprivate",
                       "model_accuracy_nonprivate"],
    "publish": [],
}
#: The figures each view draws, by name.
FIGURES = {
    "by_epsilon": ["estimates_by_epsilon"],
    "by_lambda": ["estimates_by_lambda"],
    "bias_sd": ["bias_sd"],
    "variance": ["variance_by_epsilon", "variance_by_lambda"],
    "baselines": ["baselines"],
    "models": ["model_distances_svm", "model_distances_lr"],
    "publish": [],
}


def params_of(view: str, **fields) -> Params:
    """Wine-sized parameters of ``view``: 20 replicates, seed 7 (models trained on 5)."""
    return Params(**{"view": view, "reps": REPS, "models": True, "model_reps": 5, "seed": 7,
                     **fields})


@pytest.fixture(scope="module")
def wine():
    return load_scenario("wine")


@pytest.fixture(scope="module")
def prepared(wine):
    """Each view's prepared part at ε = 0.1, λ = 0.1."""
    return {view: study.prepare(wine, params_of(view)) for view in VIEWS}


@pytest.fixture(scope="module")
def numbers(prepared):
    return {view: study.at(ready, params_of(view)) for view, ready in prepared.items()}


# --- parameters ---------------------------------------------------------------------------------

def test_controls_are_the_pages_widget_keys_and_defaults():
    assert study.SEED_KEY == "iw_seed"
    assert {"iw_epsilon", "iw_lambda", "iw_reps", "iw_view", "iw_models",
            "iw_model_reps"} <= set(study.CONTROLS)
    assert study.CONTROLS["iw_lambda"] == 0.1 and study.CONTROLS["iw_view"] == VIEWS[0]
    # The query builder's controls, every one with a field (None: the widget's default).
    assert set(query_domains(study.QUERY_KEY)) <= set(study.CONTROLS)
    assert set(study.DOMAINS) <= set(study.CONTROLS) | {study.SEED_KEY}


def test_params_round_trip_through_the_controls():
    params = Params(epsilon=0.5, lam=0.03, reps=50, view="baselines", q_n=2, q_combine="or",
                    q_col_1="alcohol", q_op_1=">", q_value_1=13.5, seed=4)
    controls = params.controls()
    assert controls["iw_lambda"] == 0.03 and "iw_lam" not in controls  # λ keeps its widget key
    assert Params.from_controls(controls, seed=4) == params
    assert Params.from_controls({**study.CONTROLS, "iw_lambda": "0.3", "iw_reps": 20.0},
                                seed=1) == Params(lam=0.3, reps=20, seed=1)
    assert Params.from_controls({"iw_view": None}).view == VIEWS[0]  # nothing chosen: the first
    with pytest.raises(ValueError, match="iw_view == 'Fig. 9'; choose one of"):
        Params(view="Fig. 9")


def test_prepare_key_ignores_epsilon_and_shares_what_views_prepare_alike():
    base = params_of("by_epsilon")
    keys = {view: params_of(view, models=False).prepare_key() for view in VIEWS}
    assert base.prepare_key() == base.replace(epsilon=3.0).prepare_key()
    # One λ: the ε boxes, the baselines, publishing and untrained models share their fits.
    assert (keys["by_epsilon"] == keys["baselines"] == keys["publish"]
            == keys["models"])
    assert keys["by_lambda"] == keys["bias_sd"] == keys["variance"]
    assert keys["by_lambda"] != keys["by_epsilon"]
    trained = params_of("models")
    assert trained.prepare_key() != keys["models"]
    assert trained.prepare_key() != trained.replace(model_reps=10).prepare_key()
    for change in ({"lam": 0.3}, {"reps": 50}, {"seed": 8}, {"q_kind": "Mean of a column"}):
        assert base.replace(**change).prepare_key() != base.prepare_key(), change


# --- the two stages ----------------------------------------------------------------------------

@pytest.mark.parametrize("view", VIEWS)
def test_compute_is_at_of_prepare(wine, numbers, view):
    again = study.compute(wine, params_of(view))
    assert list(again) == list(numbers[view]) == ["metrics", *TABLES[view]]
    for name, table in numbers[view].items():
        pd.testing.assert_frame_equal(again[name], table, check_exact=True)


@pytest.mark.parametrize("view", VIEWS)
def test_at_another_epsilon_reuses_the_prepared_part(wine, prepared, monkeypatch, view):
    fresh = study.compute(wine, params_of(view, epsilon=0.5))  # 0.5: not on the ε grid

    def no_fit(*args, **kwargs):
        raise AssertionError("an ε move fitted")

    monkeypatch.setattr(iw_experiments.BootstrapStudy, "fit", no_fit)
    monkeypatch.setattr(iw_experiments.BootstrapStudy, "fit_many", no_fit)
    moved = study.at(prepared[view], params_of(view, epsilon=0.5))
    assert list(moved) == list(fresh)
    for name, table in fresh.items():
        pd.testing.assert_frame_equal(moved[name], table, check_exact=True)


def test_at_refuses_a_part_prepared_for_other_parameters(prepared):
    with pytest.raises(ValueError, match="computed for other parameters"):
        study.at(prepared["by_epsilon"], params_of("by_epsilon", lam=0.3))
    with pytest.raises(ValueError, match="other parameters"):
        study.at(prepared["by_epsilon"], params_of("bias_sd"))


def test_each_cell_draws_its_own_stream(wine, prepared, numbers):
    """A cell's noise depends on (seed, λ, ε) only: the prepared cells at the grid's budgets and
    a cell drawn alone, from a study of its own, agree to the bit."""
    ready = prepared["by_epsilon"]
    fits = BootstrapStudy(wine.private, wine.public, REPS, rng=7).fit(0.1)
    b_E = ready.query.evaluate(wine.public)
    for eps in (*EPSILON_GRID, 0.5):
        np.testing.assert_array_equal(ready.estimates(0.1, eps),
                                      bootstrap_estimates(fits, b_E, eps))
    assert set(ready.by_epsilon) == set(EPSILON_GRID)
    # The metrics summarise the cell at the slider's ε (0.1, a prepared one).
    here = ready.by_epsilon[0.1]
    metrics = numbers["by_epsilon"]["metrics"].iloc[0]
    assert metrics["median_estimate"] == float(np.median(here))
    assert metrics["sd_estimate"] == pytest.approx(np.std(here, ddof=1), rel=1e-12)


def test_lambda_cells_are_computed_once_across_lambda_moves_and_views(wine, monkeypatch):
    """The prepared parts of every λ and view share their λ cells (:func:`study.share`): the λ
    view opened after the ε view fits only the grid's other λ and computes no variance terms
    (it shows none), a λ move on it fits the new λ alone (a move to a grid λ computes nothing),
    the bias view then computes the terms it shows, and every table equals a fresh
    computation's, to the bit."""
    eps_view, lam_view = params_of("by_epsilon", lam=0.5), params_of("by_lambda", lam=0.5)
    moves = [lam_view, lam_view.replace(lam=0.2), lam_view.replace(lam=0.3),
             params_of("bias_sd", lam=0.2)]
    fresh = [study.compute(wine, p) for p in moves]  # each with cells of its own
    fitted, termed = [], []
    real_fit, real_terms = BootstrapStudy.fit, study.dp_variance_terms

    def counted_fit(self, lam):
        fitted.append(lam)
        return real_fit(self, lam)

    def counted_terms(private, public, query, lam, **kwargs):
        termed.append(lam)
        return real_terms(private, public, query, lam, **kwargs)

    monkeypatch.setattr(iw_experiments.BootstrapStudy, "fit", counted_fit)
    monkeypatch.setattr(study, "dp_variance_terms", counted_terms)
    cells = study.share(wine, eps_view)
    study.at(study.prepare(wine, eps_view, shared=cells), eps_view)
    assert (fitted, termed) == ([0.5], [])
    new_cells = [([lv for lv in lambda_axis(0.5) if lv != 0.5], []), ([0.2], []), ([], []),
                 ([], list(lambda_axis(0.2)))]
    for params, expected, again in zip(moves, new_cells, fresh, strict=True):
        fitted.clear()
        termed.clear()
        tables = study.at(study.prepare(wine, params, shared=cells), params)
        assert (fitted, termed) == expected, params
        assert list(tables) == list(again)
        for name, table in again.items():
            pd.testing.assert_frame_equal(tables[name], table, check_exact=True)
    assert cells.fitted == 1 + len(LAMBDA_GRID) + 1
    with pytest.raises(ValueError, match="same seed and replicates"):
        study.prepare(wine, lam_view.replace(seed=8), shared=cells)


def test_the_page_shares_the_lambda_cells_across_its_prepared_parts(wine, monkeypatch):
    """:func:`ui.study.prepared` gives every prepared part of the page the one
    :func:`study.share` of its seed and replicates: the λ view after the ε view, then a λ move,
    fit the grid's other λ and then the new λ alone."""
    from ui import study as page_study

    fitted = []
    real_fit = BootstrapStudy.fit

    def counted_fit(self, lam):
        fitted.append(lam)
        return real_fit(self, lam)

    monkeypatch.setattr(iw_experiments.BootstrapStudy, "fit", counted_fit)
    scenario_id = f"wine {uuid.uuid4()}"  # a store of this test's own
    for params in (params_of("by_epsilon", lam=0.5), params_of("by_lambda", lam=0.5),
                   params_of("by_lambda", lam=0.2)):
        page_study.numbers(study, wine, scenario_id, params, bar=False)
    assert fitted == [0.5, *LAMBDA_GRID, 0.2]


# --- each view's tables ------------------------------------------------------------------------

def test_metrics_hold_the_headline_numbers(wine, numbers):
    m = numbers["publish"]["metrics"].iloc[0]
    assert m["query"] == "I(cultivar == 1)"
    raw = wine.raw_private
    assert m["truth_nonprivate"] == pytest.approx((raw["cultivar"] == 1).mean(), abs=1e-12)
    assert (m["epsilon"], m["lam"], m["replicates"]) == (0.1, 0.1, REPS)
    k = wine.dimension.coefficients(intercept=True, target=True)  # β: whole records, intercept
    assert (m["n_private"], m["n_public"], m["d"]) == (len(wine.private), len(wine.public), k)
    assert m["noise_norm"] == expected_noise_norm(k, len(wine.private), 0.1, 0.1)
    assert m["log_weight_noise"] > 0


def test_estimates_by_epsilon_box_every_grid_budget_and_the_sliders(numbers):
    table = numbers["by_epsilon"]["estimates_by_epsilon"]
    assert list(table.columns) == ["lam", "epsilon", "rep", "estimate", "truth_nonprivate"]
    assert tuple(table["epsilon"].unique()) == epsilon_axis(0.1) == EPSILON_GRID  # 0.1 is in it
    assert (table.groupby("epsilon").size() == REPS).all() and set(table["lam"]) == {0.1}


def test_estimates_by_lambda_box_every_grid_lambda_at_the_sliders_epsilon(numbers):
    table = numbers["by_lambda"]["estimates_by_lambda"]
    assert tuple(table["lam"].unique()) == lambda_axis(0.1) and set(table["epsilon"]) == {0.1}
    assert (table.groupby("lam").size() == REPS).all()


def test_bias_and_variance_views_pair_measurements_with_theory(numbers):
    bias = numbers["bias_sd"]
    summary, theory = bias["summary_by_lambda"], bias["theory_by_lambda_nonprivate"]
    assert list(summary["lam"]) == list(theory["lam"]) == list(lambda_axis(0.1))
    assert {"median", "sd", "variance", "bias", "mse"} <= set(summary.columns)
    variance = numbers["variance"]
    theory_eps = variance["theory_by_epsilon_nonprivate"]
    assert list(theory_eps["epsilon"]) == list(epsilon_axis(0.1))
    # The printed alpha is twice the derivative: with the same noise, 4x the delta-method form;
    # the paper's formula leaves out the solver term of the noise scale.
    np.testing.assert_allclose(theory_eps["bound_printed_solver"], 4 * theory_eps["bound_delta"])
    assert (theory_eps["bound_printed"] < theory_eps["bound_printed_solver"]).all()
    pd.testing.assert_frame_equal(variance["summary_by_lambda"], summary)


def test_baselines_run_every_method_on_the_same_resamples(numbers):
    tables = numbers["baselines"]
    frame, summary = tables["baselines"], tables["baselines_summary"]
    ours = frame[frame["method"] == "importance weights (this page)"]["estimate"].to_numpy()
    m = tables["metrics"].iloc[0]
    assert len(ours) == REPS and float(np.median(ours)) == m["median_estimate"]
    assert list(summary["method"]) == list(frame["method"].unique())
    assert {"public mean", "truth (non-private)", "Laplace mechanism (this query)"} <= set(
        summary["method"])


def test_model_training_uses_its_own_budgets(numbers):
    dist = numbers["models"]["model_distances"]
    assert set(dist["epsilon"].dropna()) == set(MODEL_EPSILONS)
    assert set(dist["model"]) == {"linear SVM", "logistic regression"}
    norms = numbers["models"]["model_reference_norms_nonprivate"]
    assert list(norms["model"]) == ["linear SVM", "logistic regression"]
    assert (norms["reference_norm"] > 0).all()


def test_model_training_without_training_or_target_gives_the_headline_only(wine):
    assert list(study.compute(wine, params_of("models", models=False))) == ["metrics"]
    untargeted = dataclasses.replace(wine, target=None)  # an upload without a target
    assert list(study.compute(untargeted, params_of("models"))) == ["metrics"]


def test_a_mean_query_and_a_two_condition_query(wine):
    mean = study.compute(wine, Params(q_kind="Mean of a column", q_mean_column="alcohol",
                                      reps=REPS, view="publish"))
    assert mean["metrics"].iloc[0]["query"].startswith("mean of alcohol")
    either = study.compute(wine, Params(q_n=2, q_combine="or", q_col_1="alcohol", q_op_1=">",
                                        q_value_1=13.5, reps=REPS, view="publish"))
    m = either["metrics"].iloc[0]
    raw = wine.raw_private
    assert m["query"] == "I(cultivar == 1 OR alcohol > 13.5)"
    assert m["truth_nonprivate"] == pytest.approx(
        ((raw["cultivar"] == 1) | (raw["alcohol"] > 13.5)).mean(), abs=1e-12)


# --- takeaway, runs and figures ----------------------------------------------------------------

@pytest.mark.parametrize("view", VIEWS)
def test_takeaway_quotes_the_numbers(numbers, view):
    tables = numbers[view]
    m = tables["metrics"].iloc[0]
    text = study.takeaway(tables, params_of(view))
    assert f"median {m['median_estimate']:.3f}" in text
    assert f"truth {m['truth_nonprivate']:.3f}" in text
    if view == "by_epsilon":
        sd = tables["estimates_by_epsilon"].groupby("epsilon")["estimate"].std()
        assert f"from {sd.iloc[0]:.3f} to {sd.iloc[-1]:.3f}" in text
    elif view == "bias_sd":
        summary = tables["summary_by_lambda"]
        assert f"smallest at λ = {summary.loc[summary['mse'].idxmin(), 'lam']:g}" in text
    elif view == "variance":
        row = tables["theory_by_epsilon_nonprivate"].iloc[2]  # ε = 0.1
        assert f"bound {row['bound_delta']:.3g}" in text
    elif view == "baselines":
        assert "lands closest" in text
    elif view == "publish":
        assert f"noise norm E‖δ‖ of {m['noise_norm']:.3g}" in text


def test_a_different_epsilon_says_different_things(prepared):
    params = params_of("by_lambda")
    one = study.takeaway(study.at(prepared["by_lambda"], params), params)
    moved = params.replace(epsilon=5.0)
    other = study.takeaway(study.at(prepared["by_lambda"], moved), moved)
    assert one != other and "ε = 5" in other


def test_a_run_of_a_config_is_the_study():
    config = RunConfig("importance", {"builtin_name": "wine"},
                       {"iw_epsilon": 0.3, "iw_lambda": 0.03, "iw_reps": REPS,
                        "iw_view": "bias_sd"}, 7)
    result = run(config)
    assert result.params == Params(epsilon=0.3, lam=0.03, reps=REPS, view="bias_sd", seed=7)
    expected = study.compute(load_scenario("wine"), result.params)
    for name, table in expected.items():
        pd.testing.assert_frame_equal(result.numbers[name], table, check_exact=True)
    assert list(figures(result)) == ["bias_sd"]


@pytest.mark.parametrize("view", VIEWS)
def test_figures_are_the_views_and_titled(numbers, view):
    figs = importance_figures(numbers[view], params_of(view))
    assert list(figs) == FIGURES[view]
    for name, fig in figs.items():
        assert fig.layout.title.text.startswith(TITLES[name].replace("&", "&amp;"))
        assert fig.data


def test_the_page_draws_the_boxes_without_their_legend(numbers):
    shown = importance_figures(numbers["by_epsilon"], params_of("by_epsilon"),
                               legend=False)["estimates_by_epsilon"]
    exported = importance_figures(numbers["by_epsilon"],
                                  params_of("by_epsilon"))["estimates_by_epsilon"]
    assert {t.type for t in shown.data} == {"box"} and not shown.layout.showlegend
    assert exported.layout.showlegend
    boxes = [t for t in shown.data if t.type == "box"]
    chosen = boxes[-1]  # the slider's ε is drawn apart, in its own colour
    assert set(chosen.x) == {"0.1"}
    at_chosen = numbers["by_epsilon"]["estimates_by_epsilon"].query("epsilon == 0.1")[
        "estimate"].to_numpy()
    assert list(chosen.median) == [np.median(at_chosen)]


# --- issue 23: whiskers, Theorem 2's lines, captions computed from the numbers ------------------

BOX_FIGURES = {"by_epsilon": "estimates_by_epsilon", "by_lambda": "estimates_by_lambda",
               "baselines": "baselines", "models": "model_distances_svm"}


def _box_samples(numbers, view):
    """The replicates behind each box of the view's figure, by the box's label on the x axis."""
    if view.startswith("by_"):
        by = "epsilon" if view == "by_epsilon" else "lam"
        table = numbers[view][BOX_FIGURES[view]]
        return {f"{v:g}": g.to_numpy() for v, g in table.groupby(by)["estimate"]}
    if view == "baselines":
        table = numbers[view]["baselines"]
        return {m: g.to_numpy() for m, g in table.groupby("method")["estimate"]}
    table = numbers[view]["model_distances"].query("model == 'linear SVM'")
    return {(m if pd.isna(e) else f"{m}, ε={e:g}"): g.to_numpy()
            for (m, e), g in table.groupby(["method", "epsilon"], dropna=False)["distance"]}


@pytest.mark.parametrize("view", list(BOX_FIGURES))
def test_box_whiskers_are_the_papers_95_percent_interval(numbers, view):
    """Ji & Elkan's figures draw the 95 % interval and the quartiles (Sect. 5.2): every box's
    whiskers are the 2.5 % and 97.5 % quantiles of its replicates, not 1.5 IQR, and the dots
    are the replicates beyond them; the exported figure says so under the plot, the page's
    caption says so, and the page's figure (whose caption says it) carries no note."""
    exported = importance_figures(numbers[view], params_of(view))[BOX_FIGURES[view]]
    shown = importance_figures(numbers[view], params_of(view), legend=False)[BOX_FIGURES[view]]
    by_label = _box_samples(numbers, view)
    boxes = [t for t in exported.data if t.type == "box"]
    drawn = [(x, i, t) for t in boxes for i, x in enumerate(t.x)]
    assert sorted(x for x, _, _ in drawn) == sorted(by_label)  # one box per group
    for x, i, t in drawn:
        v = by_label[x]
        lo, hi = np.quantile(v, [0.025, 0.975])
        assert (t.lowerfence[i], t.upperfence[i]) == pytest.approx((lo, hi), rel=1e-12)
        assert (t.q1[i], t.median[i], t.q3[i]) == pytest.approx(
            tuple(np.quantile(v, [0.25, 0.5, 0.75])), rel=1e-12)
        np.testing.assert_array_equal(np.sort(t.y[i]), np.sort(v[(v < lo) | (v > hi)]))
    notes = [a.text for a in exported.layout.annotations]
    assert any("2.5 % and 97.5 %" in text for text in notes), notes
    assert not shown.layout.annotations
    assert study.WHISKERS in study.caption(numbers[view], params_of(view))


def test_both_theorem2_lines_are_drawn_and_labelled(numbers):
    """Issue 23: the paper's bound as printed and, apart, the bound with the solver term."""
    tables = numbers["variance"]
    figs = importance_figures(tables, params_of("variance"))
    for name, by, theory in (("variance_by_epsilon", "epsilon", "theory_by_epsilon_nonprivate"),
                             ("variance_by_lambda", "lam", "theory_by_lambda_nonprivate")):
        traces = {t.name: t for t in figs[name].data}
        th = tables[theory].sort_values(by)
        printed = traces["Theorem 2 bound as printed (non-private β₀)"]
        solver = traces["Theorem 2 bound as printed, with the solver term (non-private β₀)"]
        np.testing.assert_allclose(printed.y, th["bound_printed"])
        np.testing.assert_allclose(solver.y, th["bound_printed_solver"])
        assert (np.asarray(solver.y) > np.asarray(printed.y)).all()
        assert printed.line.dash != solver.line.dash  # told apart by more than the legend
        assert "Theorem 2 bound, delta method, with the solver term (non-private β₀)" in traces


def test_variance_caption_counts_what_the_figure_shows(numbers):
    tables = numbers["variance"]
    text = study.caption(tables, params_of("variance"))
    merged = pd.concat([tables[f"summary_by_{b}"].merge(tables[f"theory_by_{b}_nonprivate"],
                                                        on=["lam", "epsilon"])
                        for b in ("epsilon", "lambda")]).drop_duplicates(["lam", "epsilon"])
    below = int((merged["variance"] < merged["bound_delta"]).sum())
    assert f"{below} of {len(merged)} lie below" in text
    extra = (merged["bound_printed_solver"] / merged["bound_printed"]).max() - 1
    assert f"up to {100 * extra:.1f} %" in text


def _boxes_table(medians, sd=0.01, reps=5):
    """A box view's table whose epsilons have the given medians (symmetric replicates)."""
    offsets = np.linspace(-sd, sd, reps)
    rows = [{"epsilon": eps, "estimate": med + off}
            for eps, med in zip((0.01, 0.1, 1.0), medians, strict=True) for off in offsets]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("medians", "words"), [
    ((0.0, 0.2, 0.27), "the median rises from 0.000 to 0.270; at ε = 1 it sits near the truth"),
    ((0.96, 0.5, 0.18), "the median falls from 0.960 to 0.180; at ε = 1 it sits near the "
                        "unweighted public mean"),
    ((0.30, 0.295, 0.292), "the median barely moves (from 0.300 to 0.292); at ε = 1 it sits "
                           "near the truth"),
    ((0.2, 0.6, 0.21), "the median moves between 0.200 and 0.600 and ends near where it starts"),
])
def test_the_epsilon_caption_follows_the_medians(medians, words):
    """The sentence under "Estimates vs ε" says what the medians do, never a fixed trend (the
    truth 0.3 and public mean 0.15 of Adult's query, roughly; a tenth of their gap is 0.015)."""
    metrics = pd.DataFrame([{"truth_nonprivate": 0.3, "public_mean": 0.15}])
    numbers = {"metrics": metrics, "estimates_by_epsilon": _boxes_table(medians)}
    text = study.caption(numbers, params_of("by_epsilon"))
    assert words in text, text
    assert "the SD over replicates stays about the same (0.00791 to 0.00791)" in text


def test_the_lambda_and_bias_captions_follow_the_numbers(numbers):
    tables = numbers["by_lambda"]
    text = study.caption(tables, params_of("by_lambda"))
    g = tables["estimates_by_lambda"].groupby("lam")["estimate"]
    med, sd = g.median(), g.std()
    assert (f"At the smallest λ ({med.index[0]:g}) the median is {med.iloc[0]:.3f}" in text
            and f"with SD {sd.iloc[-1]:.3g}" in text), text
    m = tables["metrics"].iloc[0]
    best = (med - m["truth_nonprivate"]).abs().idxmin()
    assert f"closest to the truth at λ = {best:g} ({med[best]:.3f})" in text
    summary = numbers["bias_sd"]["summary_by_lambda"]
    words = study.caption(numbers["bias_sd"], params_of("bias_sd"))
    first, last = summary.iloc[0], summary.iloc[-1]
    verb = "falls" if last["sd"] * study.SD_FACTOR < first["sd"] else "rises"
    assert f"the SD over replicates {verb} from {first['sd']:.3g}" in words, words
    assert f"smallest at λ = {summary.loc[summary['mse'].idxmin(), 'lam']:g}" in words


@pytest.mark.parametrize(("median", "place"), [
    (0.29, "near the truth"), (0.16, "near the unweighted public mean"),
    (0.22, "between the truth and the public mean"),
    (0.0, "away from both the truth and the public mean"),
    (0.6, "away from both the truth and the public mean"),
])
def test_a_median_is_placed_against_the_two_reference_lines(median, place):
    # A quarter of the 0.15 gap from either line (PULL_SHARE) counts as near it.
    assert study._place(median, 0.3, 0.15) == place


def test_a_prepared_part_computes_what_a_view_reads_only_when_read_and_pickles(wine):
    # issue 35: the λ view's part draws the ε grid's estimates and computes variance terms only
    # when read (it reads neither, but one ε); stored parts pickle, lazy values included.
    import pickle

    params = params_of("by_lambda", lam=0.5)
    ready = study.prepare(wine, params, shared=study.share(wine, params))
    assert not ready.terms._values and not ready.by_epsilon._values
    study.at(ready, params)
    assert not ready.terms._values and set(ready.by_epsilon._values) <= {params.epsilon}
    assert list(ready.terms) == list(lambda_axis(0.5)) and list(ready.by_epsilon) == list(
        EPSILON_GRID)
    with pytest.raises(KeyError):
        ready.by_epsilon[0.123]
    again = pickle.loads(pickle.dumps(ready))
    for eps in EPSILON_GRID:
        np.testing.assert_array_equal(again.by_epsilon[eps], ready.by_epsilon[eps])
    assert again.terms[0.5].at(0.1) == ready.terms[0.5].at(0.1)
