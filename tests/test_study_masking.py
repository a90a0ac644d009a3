"""The data-masking page's study (dpcore.studies.masking) and its figures (dpcore.figures.masking):
parameters keyed like the page's controls, the prepare/at staging, every view's tables, the
takeaway, and the figures drawn from the tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.figures.masking import (
    PANEL,
    figure_context,
    figure_title,
    figures,
    released_figure,
    settings,
)
from dpcore.masking import FIG5_EPSILONS
from dpcore.releases.masking import masked_table
from dpcore.runs import build_scenario, numbers_json
from dpcore.studies import masking as study
from dpcore.studies.masking import (
    ACCURACY,
    CARD,
    CONTROLS,
    DOMAINS,
    SEED_KEY,
    VIEWS,
    Params,
    at,
    compute,
    points_outside,
    prepare,
    takeaway,
)
from dpcore.validation import DataError

DIGITS = "Digits 0, 1, 3: 3 masked by 6 (Fig. 3)"
SCENARIO = "Sidebar scenario (its binary target)"


@pytest.fixture(scope="module")
def toy():
    """The default controls (the toy, "Masked vs original") and their prepared part."""
    params = Params()
    return params, prepare(None, params)


@pytest.fixture(scope="module")
def wine():
    """The sidebar-scenario experiment on Wine (its private pool is smaller than the paper's
    N = 100, so the accuracy curves use all of it)."""
    return build_scenario({"builtin_name": "wine"})


def test_params_are_the_page_controls_with_their_defaults():
    assert CONTROLS == {
        "mk_task": "Toy: three Gaussians (Fig. 2)", "mk_epsilon": 5.0, "mk_lambda": 0.5,
        "mk_initial": "Public / fake initial set", "mk_n": 300, "mk_bounded": True,
        "mk_view": "scatter", "mk_alone": False, "mk_input": False, "mk_draws": 20}
    assert list(CONTROLS) == ["mk_task", "mk_epsilon", "mk_lambda", "mk_initial", "mk_n",
                              "mk_bounded", "mk_view", "mk_alone", "mk_input", "mk_draws"]
    assert SEED_KEY == "mk_seed" and set(DOMAINS) <= set(CONTROLS) | {SEED_KEY}


def test_params_round_trip_through_controls():
    params = Params(task=DIGITS, epsilon=0.5, lambda_=0.2, initial="Empty", n=150,
                    bounded=False, view=VIEWS[1], alone=True, input=True, draws=10, seed=9)
    controls = params.controls()
    assert controls["mk_lambda"] == 0.2 and "mk_lambda_" not in controls
    assert Params.from_controls(controls, seed=9) == params
    # As a run config or a link gives them: strings and numpy numbers are converted.
    assert Params.from_controls({"mk_lambda": "0.2", "mk_n": np.int64(150),
                                 "mk_epsilon": np.float64(0.5)}, seed=1) == Params(
        lambda_=0.2, n=150, epsilon=0.5, seed=1)


def test_prepare_key_leaves_out_what_only_at_reads():
    params = Params()
    same = [params.replace(epsilon=e) for e in FIG5_EPSILONS]
    same += [params.replace(alone=True), params.replace(input=True), params.replace(draws=50),
             params.replace(view=VIEWS[1]), params.replace(view=VIEWS[3]),
             params.replace(view="publish")]
    assert {p.prepare_key() for p in same} == {params.prepare_key()}
    # The report card is prepared, whatever ε the page shows.
    card = params.replace(view=CARD)
    assert card.prepare_key() != params.prepare_key()
    assert card.prepare_key() == card.replace(epsilon=0.1, draws=50).prepare_key()
    # The accuracy view's curves are prepared, and depend on the draws.
    curves = params.replace(view=ACCURACY)
    assert curves.prepare_key() != params.prepare_key()
    assert curves.prepare_key() != curves.replace(draws=10).prepare_key()
    assert curves.prepare_key() == curves.replace(epsilon=0.1).prepare_key()
    for field in ("task", "lambda_", "initial", "n", "bounded", "seed"):
        value = {"task": DIGITS, "lambda_": 0.2, "initial": "Empty", "n": 100,
                 "bounded": False, "seed": 1}[field]
        assert params.replace(**{field: value}).prepare_key() != params.prepare_key(), field


def test_compute_is_at_of_prepare(toy):
    params, ready = toy
    assert numbers_json(compute(None, params)) == numbers_json(at(ready, params))


@pytest.mark.slow  # several masked sets
def test_an_epsilon_move_reuses_the_prepared_part(toy):
    params, ready = toy
    moved = params.replace(epsilon=0.5)
    numbers = at(ready, moved)
    assert numbers_json(numbers) == numbers_json(compute(None, moved))
    assert numbers["metrics"]["epsilon"].iloc[0] == 0.5
    # The masked set at an ε is computed once: the toggles and a return to it reuse it.
    assert ready.at_epsilon(0.5) is ready.at_epsilon(0.5)
    again = at(ready, moved.replace(input=True))
    assert numbers_json({k: again[k] for k in numbers}) == numbers_json(numbers)


def test_a_view_opened_after_another_reuses_its_masked_set_at_epsilon(monkeypatch):
    # issue 35: the views share what no view changes (prepare's keep), the masked sets by ε
    # included: the "Accuracy vs ε" view opened after the first one computes no masked set.
    kept = {}

    def keep(parts, compute):
        if parts not in kept:
            kept[parts] = compute()
        return kept[parts]

    made = []
    masked_sets = study._masked_sets
    monkeypatch.setattr(study, "_masked_sets", lambda prepared, epsilons: made.extend(
        epsilons) or masked_sets(prepared, epsilons))
    first = Params()
    shown = at(prepare(None, first, keep=keep), first)
    accuracy = first.replace(view=ACCURACY, draws=10, input=True)
    ready = prepare(None, accuracy, keep=keep)
    assert ready.params == accuracy and set(ready.curves) == {100, 200}
    numbers = at(ready, accuracy)
    assert made == [first.epsilon] and list(kept) == [("views", first.shared_key())]
    assert numbers_json({"metrics": numbers["metrics"]}) == numbers_json(
        {"metrics": shown["metrics"]})
    # without a keep, the same numbers
    alone = prepare(None, first)
    assert numbers_json(at(alone, first)) == numbers_json(shown) and made == [first.epsilon] * 2


def test_an_epsilon_move_computes_the_sliders_other_values_in_one_search(monkeypatch):
    # issue 35: the first ε is computed alone; the first move computes its ε with every slider
    # value not kept yet, in one greedy search; the next moves compute nothing. Every ε's
    # numbers are those it gets alone, to the bit.
    made, searches = [], []
    masked_sets, batches = study._masked_sets, study.fit_generators
    monkeypatch.setattr(study, "_masked_sets", lambda prepared, epsilons: made.append(
        list(epsilons)) or masked_sets(prepared, epsilons))
    monkeypatch.setattr(study, "fit_generators", lambda gens, *args, **kw: searches.append(
        len(gens)) or batches(gens, *args, **kw))
    params = Params(epsilon=0.1, seed=4, initial="Empty", n=60)
    ready = prepare(None, params)
    assert study.batch_rows(ready.task) >= len(study.EPSILONS)  # the toy's rows are small
    walk = {e: at(ready, params.replace(epsilon=e)) for e in (0.1, 0.2, 0.5, 50.0, 0.2)}
    # the nearest values first (the slider's neighbours), the new ε's masked set among them
    rest = [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
    assert made == [[0.1], [0.2, *rest]] and searches == [1, len(study.EPSILONS) - 1]
    assert study.EPSILONS == DOMAINS["mk_epsilon"].options
    assert at(ready, params.replace(input=True))["input_perturbed_points"] is not None
    assert len(made) == 2  # input perturbation is drawn when shown, not with the masked set
    for e in (0.2, 50.0):
        alone = prepare(None, params)
        numbers = at(alone, params.replace(epsilon=e))
        assert made[-1] == [e]  # a part with nothing kept computes its ε alone
        assert numbers.keys() == walk[e].keys()
        for name in numbers:
            pd.testing.assert_frame_equal(walk[e][name], numbers[name], check_exact=True)


def test_a_large_tasks_move_takes_only_its_nearest_values_along(monkeypatch):
    # issue 35: where a step's arrays are large (many features), one more ε costs as much as
    # the first; the search then takes the nearest slider values within BATCH_NUMBERS.
    made = []
    masked_sets = study._masked_sets
    monkeypatch.setattr(study, "_masked_sets", lambda prepared, epsilons: made.append(
        list(epsilons)) or masked_sets(prepared, epsilons))
    monkeypatch.setattr(study, "BATCH_NUMBERS", 3 * 3 * 8 * 2)  # the toy: 3 classes, d = 2
    params = Params(epsilon=5.0, seed=5, initial="Empty", n=40)
    ready = prepare(None, params)
    assert study.batch_rows(ready.task) == 3
    for e in (5.0, 2.0, 1.0, 0.5, 10.0):
        at(ready, params.replace(epsilon=e))
    assert made == [[5.0], [2.0, 1.0, 0.5], [10.0, 20.0, 50.0]]  # nearest by ratio
    monkeypatch.setattr(study, "BATCH_NUMBERS", 1)
    assert study.batch_rows(ready.task) == 1


def test_at_refuses_a_part_prepared_for_other_parameters(toy):
    params, ready = toy
    with pytest.raises(ValueError, match="other parameters"):
        at(ready, params.replace(lambda_=0.2))


def test_unknown_experiment_and_missing_scenario_are_data_errors():
    with pytest.raises(DataError, match="Unknown experiment 'nonsense'"):
        prepare(None, Params(task="nonsense"))
    with pytest.raises(DataError, match="needs a scenario"):
        prepare(None, Params(task=SCENARIO))


def test_masked_vs_original_tables(toy):
    params, ready = toy
    numbers = at(ready, params.replace(input=True))
    assert list(numbers) == ["metrics", "masked_points", "private_points_nonprivate",
                             "initial_points", "input_perturbed_points", "regions", "classes",
                             "axes"]
    m = numbers["metrics"].iloc[0]
    assert (m["masked_set_size"], m["initial_set_size"], m["private_records"]) == (300, 100, 100)
    assert len(numbers["masked_points"]) == 300
    assert numbers["masked_points"]["from_initial_set"].sum() == 100
    assert set(numbers["regions"]["panel"]) == {"original (non-private)", "initial set",
                                               "masked set (DP)"}
    assert len(numbers["regions"]) == 3 * study.REGION_RESOLUTION ** 2
    assert numbers["axes"]["title"].tolist() == ["x1", "x2"]
    # At ε = 5 and N = 300 the masked set reaches w′ (the gradient vanishes numerically).
    assert m["gradient_norm"] < 1e-6 and m["refit_distance"] <= m["distance_bound"]
    alone = at(ready, params.replace(alone=True, input=True))
    assert list(alone) == ["metrics", "masked_points", "regions", "classes", "axes"]
    assert set(alone["regions"]["panel"]) == {"masked set (DP)"}  # nothing private


def test_empty_initial_set_and_the_size_it_raises():
    params = Params(initial="Empty", n=50)
    numbers = compute(None, params)
    assert "initial_points" not in numbers
    assert numbers["metrics"]["masked_set_size"].iloc[0] == 50
    raised = prepare(None, Params(n=100))  # the toy's initial set has 100 records
    assert raised.n == 150 and raised.initial_coef is not None


def test_animation_tables(toy):
    params, ready = toy
    numbers = at(ready, params.replace(view=VIEWS[1]))
    assert list(numbers) == ["metrics", "masked_points", "gradient_trace", "classes", "axes"]
    trace = numbers["gradient_trace"]
    assert len(trace) == 201 and trace["samples_added"].tolist() == list(range(201))
    assert trace["gradient_norm"].iloc[-1] < trace["gradient_norm"].iloc[0]
    points = numbers["masked_points"]
    assert points_outside(points, numbers["axes"]) == 0  # the view's axes hold every point


def test_digit_images_tables_only_for_the_digit_experiments(toy):
    params, ready = toy
    assert list(at(ready, params.replace(view=VIEWS[3]))) == ["metrics"]
    numbers = compute(None, Params(task=DIGITS, view=VIEWS[3], n=150))
    assert list(numbers) == ["metrics", "private_images_nonprivate", "initial_images",
                             "masked_images", "weight_images"]
    weights = numbers["weight_images"].drop_duplicates("image")["title"]
    assert weights.str.startswith("initial set:").sum() == 3  # three rows of three digits


@pytest.mark.slow  # several masked sets
def test_accuracy_tables_and_takeaway_on_a_small_scenario(wine):
    params = Params(task=SCENARIO, view=ACCURACY, draws=10)
    ready = prepare(wine, params)
    pool = len(ready.task.y_pool)
    assert pool < 100 and list(ready.curves) == [pool]  # the whole pool: the paper's default
    numbers = at(ready, params)
    assert list(numbers) == ["metrics", f"accuracy_N{pool}"]
    curve = numbers[f"accuracy_N{pool}"]
    assert (curve["n_draws"] == 10).all() and sorted(set(curve["epsilon"])) == list(FIG5_EPSILONS)
    assert bool(numbers["metrics"]["validation_private"].iloc[0])
    text = takeaway(numbers, params)
    top = curve[curve["epsilon"] == 50.0].set_index("method")["mean"]
    assert f"With N = {pool} records" in text
    assert f"{top['masked generation']:.3f} at ε = 50" in text
    assert f"{top['input perturbation']:.3f}" in text and f"{top['non-private']:.3f}" in text
    # a like-for-like reading: input perturbation's ε does not cover the labels
    assert "protects the features only (its labels go out unperturbed)" in text
    # Another ε moves the line on the curves only: the curves are the prepared ones.
    moved = at(ready, params.replace(epsilon=1.0))
    assert moved[f"accuracy_N{pool}"] is numbers[f"accuracy_N{pool}"]


def test_sidebar_scenario_holds_out_its_validation_records():
    scenario = build_scenario({"builtin_name": "three-gaussians"})
    numbers = compute(scenario, Params(task=SCENARIO, epsilon=2.0, lambda_=0.2, n=200, seed=4))
    assert numbers["metrics"]["private_records"].iloc[0] == 77  # 70 % of D's 110


def test_takeaway_quotes_the_metrics(toy):
    params, ready = toy
    numbers = at(ready, params)
    m = numbers["metrics"].iloc[0]
    text = takeaway(numbers, params)
    assert text.startswith("At ε = 5, the 300 masked records")
    for value in (f"{m['gradient_norm']:.2g}", f"{m['refit_distance']:.2g}",
                  f"{m['masked_model_accuracy']:.3f}", f"{m['nonprivate_model_accuracy']:.3f}"):
        assert value in text


def test_points_outside_counts_points_off_the_axes():
    axes = pd.DataFrame({"axis": ["x", "y"], "low": [0.0, 0.0], "high": [1.0, 1.0]})
    points = pd.DataFrame({"x": [0.5, 2.0, 0.5, -1.0], "y": [0.5, 0.5, 3.0, -1.0]})
    assert points_outside(points, axes) == 3


def test_figures_of_the_scatter_view_and_its_panels(toy):
    params, ready = toy
    numbers = at(ready, params)
    figs = figures(numbers, params, dataset="Toy")
    assert list(figs) == ["masked_vs_original", f"{PANEL}original", f"{PANEL}initial",
                          f"{PANEL}final"]
    whole = figs["masked_vs_original"]
    assert whole.layout.title.text.startswith(figure_title("masked_vs_original"))
    assert "Toy; ε = 5, λ = 0.5, N = 300" in whole.layout.title.text
    assert all(figs[name].layout.title.text is None for name in figs if name.startswith(PANEL))
    # The panels hold the whole figure's traces (the legend's note on pale markers, last in the
    # whole figure, is under the first panel).
    names = [t.name for t in whole.data]
    assert names[-1] == "pale: initial set"
    panels = [t.name for name in figs if name.startswith(PANEL) for t in figs[name].data]
    assert sorted(names, key=str) == sorted(panels, key=str)
    assert figs[f"{PANEL}original"].data[-1].name == "pale: initial set"
    alone = figures(at(ready, params.replace(alone=True)), params.replace(alone=True))
    assert list(alone) == ["recipient_view"]
    assert "non-private" not in alone["recipient_view"].to_json()


def test_the_scatter_panels_built_alone_are_those_built_together(toy):
    # issue 35: the page builds each panel's figure alone (the ones ε does not change once), and
    # the figure of all panels only for a download.
    params, ready = toy
    for shown in (params, params.replace(input=True)):
        numbers = at(ready, shown)
        together = figures(numbers, shown, dataset="Toy")
        for panels in (("final",), ("original", "initial"), ("initial",)):
            alone = figures(numbers, shown, dataset="Toy", panels=panels)
            assert list(alone) == [PANEL + name for name in ("original", "initial", "final")
                                   if name in panels]
            assert all(alone[name].to_json() == together[name].to_json() for name in alone)


@pytest.mark.slow  # every view's masked set
def test_figures_of_every_other_view(toy, wine):
    params, ready = toy
    animation = params.replace(view=VIEWS[1])
    assert list(figures(at(ready, animation), animation)) == ["greedy_animation"]
    curves = Params(task=SCENARIO, view=ACCURACY, draws=10)
    numbers = compute(wine, curves)
    (name,) = figures(numbers, curves)
    assert figure_title(name).startswith("Accuracy vs ε, masked set size N = ")
    assert figure_context(name, numbers, curves, "Wine") == "Wine; λ = 0.5; 10 draws"
    images = Params(task=DIGITS, view=VIEWS[3], initial="Empty", n=100)
    figs = figures(compute(None, images), images)
    assert list(figs) == ["private_images", "masked_images", "weight_images"]
    assert figs["private_images"].layout.title.text == (
        f"{figure_title('private_images')}<br><span style='font-size:12px'>{DIGITS}</span>")


def test_settings_and_the_released_set(toy):
    params, ready = toy
    numbers = at(ready, params)
    assert settings(numbers, params) == "ε = 5, λ = 0.5, N = 300"
    assert settings(numbers, params.replace(bounded=False)).endswith(", unbounded")
    gen = ready.at_epsilon(5.0).gen
    table = masked_table(ready.task, gen)
    assert list(table.columns) == ["label", "x1", "x2"] and len(table) == 300
    fig = released_figure(ready.task, gen)
    assert fig.data[0].type == "heatmap"  # the 2-D toy: the released model's regions


# ------------------------------------------------------------------------------------------
# The majority-class line and the warning (issue 23, item 5)
# ------------------------------------------------------------------------------------------


def _with_accuracies(numbers, masked, nonprivate, curve_mean=None):
    """``numbers`` with the metrics' accuracies (and every curve's means) set by hand."""
    out = dict(numbers)
    out["metrics"] = numbers["metrics"].assign(masked_model_accuracy=masked,
                                               nonprivate_model_accuracy=nonprivate)
    for key in [k for k in numbers if k.startswith("accuracy_N")]:
        out[key] = numbers[key].assign(mean=curve_mean)
    return out


def test_majority_accuracy_is_the_most_frequent_labels_share(toy):
    from dpcore.studies.masking import majority_accuracy

    params, ready = toy
    y = ready.task.y_valid
    m = at(ready, params)["metrics"].iloc[0]
    assert m["majority_accuracy"] == np.bincount(y).max() / len(y) == majority_accuracy(y)
    assert not m["intercept"] and m["data_norm"] == ready.task.data_norm
    with pytest.raises(DataError, match="at least one label"):
        majority_accuracy([])


def test_warning_appears_exactly_when_a_model_is_no_better_than_the_majority(toy):
    from dpcore.studies.masking import below_majority, majority_warning

    params, ready = toy
    numbers = at(ready, params)
    rate = float(numbers["metrics"]["majority_accuracy"].iloc[0])
    above = _with_accuracies(numbers, rate + 0.01, rate + 0.02)
    assert below_majority(above) == {} and majority_warning(above) is None
    assert "majority class" not in takeaway(above, params)
    below = _with_accuracies(numbers, rate + 0.01, rate - 0.01)
    text = majority_warning(below)
    assert below_majority(below) == {"non-private model": []}
    assert text.startswith("No better than always guessing the majority class "
                           f"(accuracy {rate:.3f}; non-private")
    assert "the non-private model" in text and "masked-set model" not in text
    assert text in takeaway(below, params)


@pytest.mark.slow  # the accuracy curves
def test_every_accuracy_figure_has_the_majority_line_and_the_curves_are_checked(wine):
    from dpcore.studies.masking import MAJORITY, below_majority, majority_warning

    params = Params(task=SCENARIO, view=ACCURACY, draws=10)
    numbers = compute(wine, params)
    rate = float(numbers["metrics"]["majority_accuracy"].iloc[0])
    figs = figures(numbers, params)
    assert figs and all(name.startswith("accuracy_vs_epsilon_N") for name in figs)
    for fig in figs.values():
        names = [trace.name for trace in fig.data]
        assert f"{MAJORITY}: {rate:.3f}" in names
        assert any(shape.y0 == rate == shape.y1 for shape in fig.layout.shapes)
    # Curves: a method is named at the ε where its mean is at most the rate, and only there.
    (key,) = [k for k in numbers if k.startswith("accuracy_N")]
    curve = numbers[key].copy()
    size = int(curve["n_samples"].iloc[0])
    fake = _with_accuracies(numbers, rate + 0.1, rate + 0.1, curve_mean=rate + 0.1)
    low = (curve["method"] == "input perturbation") & (curve["epsilon"] <= 0.2)
    fake[key] = fake[key].assign(mean=np.where(low, rate - 0.05, rate + 0.1))
    assert below_majority(fake) == {f"input perturbation, N = {size}": [0.1, 0.2]}
    assert f"input perturbation, N = {size} at ε = 0.1, 0.2" in majority_warning(fake)
    every = fake.copy()
    every[key] = fake[key].assign(mean=np.where(curve["method"] == "non-private", rate,
                                                rate + 0.1))
    assert f"non-private, N = {size} at every ε" in majority_warning(every)


def test_model_note_reads_the_studys_settings(toy):
    from dpcore.studies.masking import model_note

    params, ready = toy
    numbers = at(ready, params)
    note = model_note(numbers)
    assert f"λ = {params.lambda_:g}" in note and "no intercept" in note
    assert f"norm bound of {ready.task.data_norm:.3g}" in note
    other = dict(numbers, metrics=numbers["metrics"].assign(**{"lambda": 0.01}))
    assert "λ = 0.01 " in model_note(other)


def test_sidebar_scenario_has_an_intercept_and_a_prior_fitted_on_public_data_only():
    import dataclasses

    from dpcore.datasets import load_scenario
    from dpcore.masking import scenario_task

    scenario = load_scenario("breast-cancer")
    task = scenario_task(scenario)
    assert task.intercept and task.prior.shape == (1, task.d + 1)
    flipped = scenario.private.copy()
    flipped[scenario.target] = 1.0 - flipped[scenario.target]
    other = scenario_task(dataclasses.replace(scenario, private=flipped))
    np.testing.assert_array_equal(other.prior, task.prior)  # W_E reads E only
    # The study and the Publish view build one mechanism: the task's intercept and prior.
    gen = study.generator(task, 1.0, 0.1, 150, rng=0)
    assert gen.fit_intercept and gen.coef_prior is task.prior
    toy_gen = study.generator(study.load_task("toy"), 1.0, 0.5, 150, rng=0)
    assert not toy_gen.fit_intercept and toy_gen.coef_prior is None  # the paper's model


def test_model_note_names_the_intercept_and_the_public_model(toy):
    from dpcore.studies.masking import model_note

    params, ready = toy
    numbers = at(ready, params)
    scenario_like = dict(numbers, metrics=numbers["metrics"].assign(intercept=True,
                                                                     prior_lambda=0.03))
    note = model_note(scenario_like)
    assert "with an intercept" in note and "w_E" in note and "λ = 0.03" in note
