"""Data masking (Pham, Ghosh & Yegneswaran): publish a masked dataset instead of the data.

Every view except "Publish" is a seeded simulation of the mechanism (no budget is spent): the
numbers of :mod:`dpcore.studies.masking` and the figures of :mod:`dpcore.figures.masking`. The
"Publish" view makes the one release a data owner would make.
"""

import streamlit as st

from dpcore.figures.masking import (
    PANEL,
    figure_context,
    figure_title,
    figures,
    released_figure,
    settings,
)
from dpcore.masking import FIG5_EPSILONS
from dpcore.masking.defaults import best_lambda, public_lambda_table, reach_note
from dpcore.releases import masking as release
from dpcore.studies import masking as study
from dpcore.studies.masking import (
    ACCURACY,
    CARD,
    FIG5_N,
    INITIAL,
    MAJORITY,
    N_OPTIONS,
    TASKS,
    VIEW_LABELS,
    VIEWS,
    Params,
    accuracy_label,
    fig5_sizes,
    majority_warning,
    model_note,
    points_outside,
)
from dpcore.text import csv_bytes
from ui.budget import budget_sidebar, fit_publish_epsilon
from ui.cache import load_builtin, memo
from ui.errors import show_errors
from ui.export import export_panel, refresh_export
from ui.links import data_default
from ui.navigation import require_router
from ui.release import publish_panel
from ui.show import show, show_panels
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.study import figures as study_figures
from ui.study import numbers as study_numbers
from ui.study import prepared as study_prepared
from ui.widgets import epsilon_slider, lambda_slider, replicates_slider, seed_input

require_router()

PUBLISH = "publish"
#: The "Masked vs original" view's panels, left to right (those the experiment has).
PANELS = ("original", "initial", "final")

scenario = scenario_sidebar()


def public_table(epsilon: float):
    """:func:`dpcore.masking.defaults.public_lambda_table` of the sidebar's scenario at
    ``epsilon`` (public data only), kept with the scenario."""
    return memo(scenario, st.session_state["scenario_id"], ("masking public λ", float(epsilon)),
                lambda: public_lambda_table(scenario, float(epsilon)))


def public_lambda(epsilon: float) -> float:
    """The λ of :func:`public_table` with the best simulated accuracy (a tie: the larger)."""
    return best_lambda(public_table(epsilon))


# An upload opens the page on the user's data; otherwise on the paper's toy experiment.
UPLOADED = scenario is not None and scenario.name == "upload"
keep_widget_state({"mk_view": VIEWS[0],
                   "mk_task": list(TASKS)[-1] if UPLOADED else next(iter(TASKS)),
                   "mk_initial": INITIAL[0],
                   "mk_n": 300, "mk_alone": False, "mk_input": False, "mk_bounded": True})
with st.sidebar:
    st.header("Data masking")
    task_label = st.selectbox("Experiment", list(TASKS), key="mk_task",
                              help="The paper's toy and digit experiments, or the scenario "
                                   "chosen above (one class against the rest).")
    epsilon_slot = st.container()  # the ε slider, drawn by live() below
    if TASKS[task_label][1] is None and scenario is not None and scenario.target:
        opened_on = (st.session_state.get("scenario_id"), task_label)
        if st.session_state.get("_mk_defaults_for") != opened_on:
            # The sidebar's scenario opens at the λ that did best when the release was
            # simulated on its public set (dpcore.masking.defaults); the paper's experiments
            # keep the paper's 0.5.
            st.session_state["_mk_defaults_for"] = opened_on
            st.session_state["mk_lambda"] = st.session_state["_kept_mk_lambda"] = data_default(
                "mk_lambda", public_lambda(st.session_state.get("mk_epsilon", 5.0)))
    lam = lambda_slider("mk_lambda", 0.5, help="Regularisation of the logistic model (the paper "
                        "uses 0.5; on the sidebar's scenario the page opens at the λ that did "
                        "best when the release was simulated on the public set, and the penalty "
                        "pulls towards the model fitted on the public set). Larger λ: less "
                        "noise on the classifier, a fit closer to the public model.")
    initial_choice = st.radio("Initial masked set", INITIAL, key="mk_initial",
                              help="Start the masked set from public or fake records (the "
                                   "paper's 'initially masked' samples), or from nothing.")
    n_chosen = int(st.select_slider("Masked set size N", N_OPTIONS, key="mk_n",
                                    help="Records in the published masked set, the initial "
                                         "set included."))
    bounded = st.toggle("Keep masked records in the data domain", key="mk_bounded",
                        help="On: every invented record has a norm within the domain bound, "
                             "like a real one. Off: the paper's unconstrained search, which "
                             "tends to invent a few huge outliers.")
    seed = seed_input("mk_seed")
budget_sidebar()
export_panel("masking")

st.title("Data masking: publish look-alike records, not the records")
st.markdown(
    "The data owner fits a logistic model on the private data, adds noise calibrated to ε, and "
    "then **invents records** whose own model is that noisy one: each new record is chosen to "
    "cancel what is left of the model's gradient (Pham, Ghosh & Yegneswaran, Algorithm 1). A "
    "recipient can train on the masked set and get the private model up to the noise, without "
    "seeing a single real sensitive record."
)


def live(view: str) -> None:
    """Everything the ε slider changes: the slider (drawn into its sidebar slot), the masked
    set's numbers and ``view``; in a study view also the export's config and the link.

    A study view runs this as a fragment, so that an ε move reruns this function alone: the
    experiment, the budget and the export panels stay as drawn. The Publish view calls it in the
    page's own run, so that a release and the budget panel on screen always come from the same
    run.
    """
    fitted = (fit_publish_epsilon("mk_epsilon", 5.0, FIG5_EPSILONS) if view == PUBLISH
              else None)
    with epsilon_slot:
        epsilon = epsilon_slider("mk_epsilon", 5.0, options=FIG5_EPSILONS)
    if view != PUBLISH:
        refresh_export("masking")  # a fragment rerun: the config and the URL follow the slider
    if fitted:
        st.info(fitted, icon=":material/tune:")
    with show_errors():
        metrics, notes = st.container(horizontal=True), st.container()  # filled below
        params = base.replace(epsilon=epsilon, **(scatter_toggles() if view == "scatter" else {}))
        with st.spinner("Growing the masked set…"):  # shown only if it takes a while
            numbers = study_numbers(study, source, source_id, params)
        show_metrics(metrics, notes, numbers)
        if view == PUBLISH:
            publish(numbers, params)
        else:
            DRAW[view](numbers, params, view_figures(numbers, params))


def view_figures(numbers, params) -> dict:
    """The figures the view draws, each kept where its numbers are (:func:`ui.study.figures`).

    "Masked vs original" with its three panels builds each panel's figure alone (the figure of
    all three only for a download, :func:`draw_scatter`); the panels that ε does not change
    (the initial set's, and the original records' unless the input-perturbed ones are shown
    on them) are kept under the parameters without ε, so an ε move builds the masked set's
    panel alone.
    """
    def build(panels=None):
        return lambda: figures(numbers, params, dataset=task.title, panels=panels)

    if params.view != "scatter" or params.alone:
        return study_figures(study, source, source_id, params, build(), task.title)
    fixed = ("initial",) if params.input else ("original", "initial")
    moving = tuple(name for name in PANELS if name not in fixed)
    return (study_figures(study, source, source_id, params.replace(epsilon=None), build(fixed),
                          task.title, "panels")
            | study_figures(study, source, source_id, params, build(moving), task.title,
                            "panels"))


def scatter_toggles() -> dict[str, bool]:
    """The "Masked vs original" view's toggles, as fields of :class:`Params`."""
    if st.toggle("Masked set alone, as a recipient sees it", key="mk_alone"):
        return {"alone": True}
    return {"input": st.toggle("Show input-perturbed records for contrast", key="mk_input")}


def show_metrics(row, notes, numbers) -> None:
    """The masked set's headline numbers and the majority class's accuracy into ``row``; into
    ``notes``, a warning when a model or curve does no better than that, the model's settings
    on a sidebar scenario, and a warning when the masked set could not reach w′."""
    m = numbers["metrics"].iloc[0]
    row.metric("Gradient norm at w′", f"{m['gradient_norm']:.2g}",
               help="‖∇J_S(w′)‖, the gradient of the masked set's regularised objective at the "
                    "noisy classifier w′: how far the masked set is from having w′ as its own "
                    "optimum (0 = exactly).")
    row.metric("‖refit − w′‖", f"{m['refit_distance']:.2g}",
               help=f"Distance between the model a recipient trains on the masked set and w′. "
                    f"Strong convexity bounds it by {m['distance_bound']:.2g} (the gradient "
                    f"norm / λ).")
    valid_private = bool(m["validation_private"])
    held_out = ("held-out private records: a non-private number, never published"
                if valid_private else "a validation set that is not private data")
    row.metric(f"Masked-set model accuracy{accuracy_label(valid_private)}",
               f"{m['masked_model_accuracy']:.3f}",
               help="Accuracy of the model a recipient trains on the masked set, measured on "
                    f"{held_out} (a study number).")
    row.metric("Non-private model accuracy", f"{m['nonprivate_model_accuracy']:.3f}",
               help="The model fitted on the private data without noise: a non-private "
                    "reference, never released.")
    row.metric(MAJORITY[0].upper() + MAJORITY[1:], f"{m['majority_accuracy']:.3f}",
               help=f"Always predicting the most frequent label of {held_out}: what any model "
                    "must beat to have learned something.")
    warning = majority_warning(numbers)
    if warning is not None:
        notes.warning(warning, icon="⚠️")
        if valid_private:  # the sidebar's scenario: what would help, simulated on E
            notes.info(reach_note(public_table, float(m["epsilon"]), float(m["lambda"]),
                                  int(m["private_records"]), FIG5_EPSILONS),
                       icon=":material/query_stats:")
    if valid_private:  # the sidebar's scenario: the same data as the logistic regression page
        notes.caption(model_note(numbers))
    if m["distance_bound"] > 0.05:
        notes.warning(f"The masked set could not reach w′ (gradient norm "
                      f"{m['gradient_norm']:.2g}): the noise is large and N is small for records "
                      "kept in the domain. Raise N or ε, or let the search leave the domain.",
                      icon="⚠️")


def draw(figs, name: str, key: str, numbers, params) -> None:
    """Figure ``name`` of :func:`dpcore.figures.masking.figures`, with its title and settings."""
    show(figs[name], key, title=figure_title(name),
         context=figure_context(name, numbers, params, task.title))


def draw_scatter(numbers, params, figs) -> None:
    """The "Masked vs original" view: the recipient's view, or the three panels (Fig. 2)."""
    off_axes = points_outside(numbers["masked_points"], numbers["axes"])
    if params.alone:
        draw(figs, "recipient_view", "fig_recipient", numbers, params)
        st.caption("Only what is published: the masked records, their labels, and the regions "
                   "of the model trained on them. Pale points are the initial set."
                   + (f" {off_axes} masked records lie outside the data domain's axes (the "
                      "unbounded search)." if off_axes else ""))
        return
    panels = [(name, figs[PANEL + name]) for name in PANELS if PANEL + name in figs]
    show_panels(panels, lambda: figures(numbers, params, dataset=task.title)["masked_vs_original"],
                "fig_scatter",
                title=figure_title("masked_vs_original"),
                context=figure_context("masked_vs_original", numbers, params, task.title))
    hidden = (points_outside(numbers["input_perturbed_points"], numbers["axes"])
              if params.input else 0)
    private = int(numbers["metrics"]["private_records"].iloc[0])
    st.caption(
        "Shaded: the decision regions of the model trained on each set."
        + (" In the final set, pale markers are the initial records (public or fake) and solid "
           "ones the records the algorithm invented."
           if numbers["masked_points"]["from_initial_set"].any() else "")
        + " The masked records need "
        "not resemble the sensitive ones, yet their model is the noisy model w′: where its "
        "regions differ from the original's, that is the privacy noise, which shrinks as ε or "
        "the private N grows. The axes span the data domain (every record's norm is at most "
        f"{task.data_norm:.3g})"
        + (f"; {off_axes} masked records lie outside it (the unbounded search)"
           if off_axes else "")
        + ". Switch on the input-perturbed records to see Algorithm 2 at the same ε as hollow "
        "markers"
        + (f" ({hidden} of {private} fall outside the axes)" if hidden else "")
        + "; its labels are published unperturbed, so it protects features only."
        + ("" if task.projection()[2] else " The 2-D view is a projection fitted on public "
           "data only; regions are not drawn for d > 2.")
    )


def draw_animation(numbers, params, figs) -> None:
    """The "Greedy animation" view (Algorithm 1, step 3)."""
    draw(figs, "greedy_animation", "fig_animation", numbers, params)
    st.caption("Press ▶ or drag the slider: records appear one at a time, each the one that "
               "cancels the most of the remaining gradient (eq. 4), so the gradient norm falls "
               "as they appear (pale: the initial set). Once it is zero, further records sit at "
               "the origin, where a record adds nothing to the gradient.")


def draw_accuracy(numbers, params, figs) -> None:
    """The "Accuracy vs ε" view: one panel per masked-set size (Fig. 5)."""
    sizes = fig5_sizes(task)
    if sizes != list(FIG5_N):
        missing = " and ".join(str(n_fig) for n_fig in FIG5_N if n_fig not in sizes)
        st.info(f"The paper's N = {missing} needs more than the {len(task.y_pool)} private "
                "records of this task"
                + ("; the curves use all of them." if sizes[0] not in FIG5_N else "."))
    for col, n_fig in zip(st.columns(len(sizes)), sizes, strict=True):
        with col:
            draw(figs, f"accuracy_vs_epsilon_N{n_fig}", f"fig_accuracy_{n_fig}", numbers, params)
    st.caption("Mean validation accuracy over draws, ±1 SD shaded. Masked generation: the model "
               "trained on the masked set; output perturbation: the noisy model w′ itself; input "
               "perturbation: a model trained on noisy records (labels unprotected); "
               "non-private: the model on the private draw (a reference). Where the masked set "
               "reaches w′, its curve lies on output perturbation's. Seeded simulations, not "
               "releases."
               + (" Accuracy is measured on records held out of the private data: non-private "
                  "numbers, shown to judge the mechanism, never published."
                  if task.valid_private else "")
               + f" Dashed: the {MAJORITY}.")


def draw_images(numbers, params, figs) -> None:
    """The "Digit images" view: images and classifier weights (Figs 3-4)."""
    if task.components is None:
        st.info("Images exist for the digit experiments only: pick one in the sidebar.")
        return
    for name, key in (("private_images", "fig_private_images"),
                      ("initial_images", "fig_initial_images"),
                      ("masked_images", "fig_masked_images"), ("weight_images", "fig_weights")):
        if name in figs:
            draw(figs, name, key, numbers, params)
    st.caption("Images are PCA-25 reconstructions clipped to the pixel range. Weights: red "
               "pixels raise a class's score, blue lower it; the masked set's weights should "
               "look like the non-private ones, not like the initial set's.")


def publish(numbers, params) -> None:
    """The "Publish" view: one release of the masked dataset
    (:func:`dpcore.releases.masking.publish`: fresh OS entropy, spends ε)."""
    released_at = settings(numbers, params)
    st.markdown(f"**One release** at {released_at}: the masked dataset, the only output on this "
                "page that leaves the data owner. It spends ε once (for the noisy classifier); "
                "the records are then post-processing.")
    published = publish_panel("masking", scenario=route, scenario_id=route_id,
                              epsilon=params.epsilon, settings=released_at,
                              release=lambda accountant: release.publish(
                                  route, task, epsilon=params.epsilon, lam=params.lambda_,
                                  n=ready.n, bounded=params.bounded, initial=ready.initial,
                                  accountant=accountant),
                              label="Publish the masked dataset", noise=release.NOISE)
    if published is None:
        return
    released = published.value
    st.success(f"Published at {published.settings} ({published.time:%H:%M:%S} UTC).", icon="✅")
    cols = st.columns(3)
    cols[0].metric("Gradient norm at w′ (release)", f"{released.gradient_norm_:.2g}")
    cols[1].metric("‖refit − w′‖ (release)", f"{released.refit_distance_:.2g}")
    cols[2].metric("Records", f"{len(released.masked_y_)}",
                   help=f"{released.n_initial_} from the initial set, the rest invented.")
    show(released_figure(task, released), "fig_released", title="The released masked set",
         context=f"{task.title}; {published.settings}")
    table = release.masked_table(task, released)
    st.dataframe(table.head(20), hide_index=True)
    st.download_button("Download the masked dataset (CSV)", lambda: csv_bytes(table),
                       "masked_dataset.csv", "text/csv", key="mk_download")


def draw_card(numbers, params, figs) -> None:
    """The "Report card" view: the published table against the private one across ε
    (:func:`dpcore.masking.card.report_card`), both mechanisms side by side."""
    draw(figs, "report_card", "fig_report_card", numbers, params)
    m = numbers["metrics"].iloc[0]
    n, private = int(m["masked_set_size"]), int(m["private_records"])
    drawn = (f"{n} private records drawn at random" if n <= private
             else f"all {private} private records (fewer than N = {n})")
    st.caption(
        f"Masked generation publishes its masked set of {n} records (the initial set "
        f"included); input perturbation {drawn}, each with its own noise (labels "
        "unperturbed). Dashed: these private records without noise, what such a table "
        "reaches with no privacy at all. Lines are "
        "means over the repetitions, shaded bands hold the middle 95 % of them; the dotted "
        "vertical line is the slider's ε. **k-marginal**: SDNist's 2-way score, 1000 when "
        "every pair of columns (the label included, numbers in 10 bins) has the private "
        "table's distribution, 0 when none overlaps. **Correlation difference**: mean "
        "absolute difference of the features' pairwise correlations. **pMSE**: how well a "
        "logistic model on the features and their squares tells published records from "
        "private ones (0: not at all; not the decision report's main-effects pMSE). "
        "**Train on masked, test on real**: accuracy on held-out records of the page's model "
        "trained on the table, against the dotted majority class. **Matching records**: the "
        "share of published records equal to a private one in every binned column. Every "
        "number reads the private data without noise (non-private): a seeded simulation to "
        "judge the mechanisms, not a release; it spends no budget.")


#: What each study view draws from its numbers.
DRAW = {"scatter": draw_scatter, "animation": draw_animation, ACCURACY: draw_accuracy,
        "images": draw_images, CARD: draw_card}

view = st.segmented_control("View", VIEWS, format_func=VIEW_LABELS.get, key="mk_view",
                            label_visibility="collapsed") or VIEWS[0]
with show_errors():
    task_key, route_name = TASKS[task_label]
    if route_name is None and scenario is None:
        with epsilon_slot:
            epsilon_slider("mk_epsilon", 5.0, options=FIG5_EPSILONS)
        st.info("Choose a scenario in the sidebar to begin.")
        st.stop()
    if route_name is None:  # the sidebar's scenario: its cache (session-only for an upload)
        source, source_id = scenario, st.session_state["scenario_id"]
        route, route_id = source, source_id
    else:  # built-in experiments: the study builds the data; a release is routed to a scenario
        source, source_id = None, None
        route, route_id = load_builtin(route_name, seed=None), f"masking:{task_key}"
    draws = (replicates_slider("mk_draws", 20, options=(10, 20, 50),
                               label="Draws per ε (the paper: 50)")
             if view == ACCURACY else Params().draws)
    base = Params(seed=seed, task=task_label, lambda_=lam, initial=initial_choice, n=n_chosen,
                  bounded=bounded, view=view, draws=draws)
    ready = study_prepared(study, source, source_id, base,
                           text={ACCURACY: "Simulating the accuracy curves…",
                                 CARD: "Scoring the published tables across ε…"}.get(
                                     view, "Building the experiment…"))
    task = ready.task
    st.caption(
        f"{task.description} N = {ready.n} masked records"
        + (f" (the initial set has {len(ready.initial[1])}; N was raised to {ready.n})"
           if ready.n != n_chosen else "")
        + ". A seeded simulation of the mechanism, not a release: it spends no budget."
    )
    # A study view is a fragment: an ε move reruns live() alone. The Publish view reruns the
    # whole page, so that a release and the budget panel on screen always come from the same run.
    (live if view == PUBLISH else st.fragment(live))(view)
