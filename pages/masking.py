"""Data masking (Pham, Ghosh & Yegneswaran): publish a masked dataset instead of the data.

Every view except "Publish" is a seeded simulation of the mechanism (no budget is spent); the
"Publish" view makes the one release a data owner would make.
"""

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.figures.masking import (
    Panel,
    accuracy_figure,
    axis_ranges,
    growth_animation,
    image_grid,
    panel_figures,
    scatter_panels,
)
from dpcore.masking import (
    FIG5_EPSILONS,
    MaskedDataGenerator,
    accuracy_vs_epsilon,
    decision_regions,
)
from dpcore.studies.masking import (
    FIG5_N,
    INITIAL,
    TASKS,
    VIEWS,
    accuracy_label,
    domain_ranges,
    fig5_sizes,
    load_task,
    masked_size,
    masking_study,
    validation_accuracy,
)
from dpcore.text import csv_bytes
from ui.budget import budget_sidebar
from ui.cache import is_cached, load_builtin, memo
from ui.errors import show_errors
from ui.export import export_panel, refresh_export
from ui.navigation import require_router
from ui.release import publish_panel
from ui.show import show, show_panels
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.widgets import epsilon_slider, lambda_slider, replicates_slider, seed_input

require_router()

# TASKS (experiment -> task key, built-in scenario that routes its cache and release; None:
# the sidebar's), INITIAL, FIG5_N and VIEWS live in dpcore.studies.masking (the CLI's run).
N_OPTIONS = (50, 100, 150, 200, 300, 400, 500)
PUBLISH = VIEWS[-1]

scenario = scenario_sidebar()
keep_widget_state({"mk_view": VIEWS[0], "mk_task": next(iter(TASKS)), "mk_initial": INITIAL[0],
                   "mk_n": 300, "mk_alone": False, "mk_input": False, "mk_bounded": True})
with st.sidebar:
    st.header("Data masking")
    task_label = st.selectbox("Experiment", list(TASKS), key="mk_task",
                              help="The paper's toy and digit experiments, or the scenario "
                                   "chosen above (one class against the rest).")
    epsilon_slot = st.container()  # the ε slider, drawn by live() below
    lam = lambda_slider("mk_lambda", 0.5, help="Regularisation of the logistic model (the paper "
                        "uses 0.5). Larger λ: less noise on the classifier, a weaker fit.")
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
    with epsilon_slot:
        epsilon = epsilon_slider("mk_epsilon", 5.0, options=FIG5_EPSILONS)
    if view != PUBLISH:
        refresh_export("masking")  # a fragment rerun: the config and the URL follow the slider
    with show_errors():
        settings = f"ε = {epsilon:g}, λ = {lam:g}, N = {n}" + ("" if bounded else ", unbounded")
        context = f"{task.title}; {settings}"
        parts = ("masking study", task_key, epsilon, lam, n, initial_choice, bounded, seed)
        bar = None
        if not is_cached(route, route_id, parts):  # a bar only when there is work
            bar = st.progress(0.0, text="Growing the masked set…")
        gen, perturbed, initial_coef = memo(route, route_id, parts, lambda: masking_study(
            task, epsilon, lam, n, initial, bounded, seed,
            progress=None if bar is None else bar.progress))
        if bar is not None:
            bar.empty()
        accuracy = validation_accuracy(gen, task)
        metrics = st.container(horizontal=True)
        metrics.metric("Gradient norm at w′", f"{gen.gradient_norm_:.2g}",
                       help="‖∇J_S(w′)‖, the gradient of the masked set's regularised objective at "
                            "the noisy classifier w′: how far the masked set is from having w′ as "
                            "its own optimum (0 = exactly).")
        metrics.metric("‖refit − w′‖", f"{gen.refit_distance_:.2g}",
                       help=f"Distance between the model a recipient trains on the masked set and "
                            f"w′. Strong convexity bounds it by {gen.distance_bound_:.2g} (the "
                            f"gradient norm / λ).")
        held_out = ("held-out private records: a non-private number, never published"
                    if task.valid_private else "a validation set that is not private data")
        metrics.metric(f"Masked-set model accuracy{accuracy_label(task.valid_private)}",
                       f"{accuracy['refit']:.3f}",
                       help="Accuracy of the model a recipient trains on the masked set, "
                            f"measured on {held_out} (a study number).")
        metrics.metric("Non-private model accuracy", f"{accuracy['private']:.3f}",
                       help="The model fitted on the private data without noise: a non-private "
                            "reference, never released.")
        if gen.distance_bound_ > 0.05:
            st.warning(f"The masked set could not reach w′ (gradient norm "
                       f"{gen.gradient_norm_:.2g}): "
                       "the noise is large and N is small for records kept in the domain. Raise N "
                       "or ε, or let the search leave the domain.", icon="⚠️")

        def regions(coef, x_range, y_range):
            if not identity:
                return None
            return decision_regions(coef, task.data_norm, x_range, y_range, resolution=60)

        if view == "Masked vs original":
            alone = st.toggle("Masked set alone, as a recipient sees it", key="mk_alone")
            # Axes from the data domain (public, the same for every slider value): a panel that
            # ε does not change keeps its figure, and the browser does not redraw it.
            x_range, y_range = domain_ranges(task)
            masked2 = task.project(gen.masked_X_)
            final = Panel(f"Final masked set (DP, ε = {epsilon:g})", masked2, gen.masked_y_,
                          regions(gen.refit_coef_, x_range, y_range), faint=gen.n_initial_)
            off_axes = outside(masked2, x_range, y_range)
            if alone:
                fig = scatter_panels([final], names, xtitle=xtitle, ytitle=ytitle, x_range=x_range,
                                     y_range=y_range, height=520)
                show(fig, "fig_recipient", title="The published masked set, as a recipient sees it",
                     context=context)
                st.caption("Only what is published: the masked records, their labels, and the "
                           "regions of the model trained on them. Pale points are the initial set."
                           + (f" {off_axes} masked records lie outside the data domain's axes "
                              "(the unbounded search)." if off_axes else ""))
            else:
                with_input = st.toggle("Show input-perturbed records for contrast", key="mk_input")
                perturbed2 = task.project(perturbed)
                extra = (f"input perturbation, ε = {epsilon:g}", perturbed2,
                         task.y_private) if with_input else None
                panels = {"original": Panel("Original private records (non-private)",
                                            task.project(task.X_private), task.y_private,
                                            regions(gen.coef_, x_range, y_range), extra=extra)}
                if initial is not None:
                    panels["initial"] = Panel("Initial masked set (public / fake)",
                                              task.project(task.X_initial), task.y_initial,
                                              regions(initial_coef, x_range, y_range))
                panels["final"] = final
                axes = {"xtitle": xtitle, "ytitle": ytitle, "x_range": x_range,
                        "y_range": y_range}
                figures = panel_figures(list(panels.values()), names, **axes)
                show_panels(list(zip(panels, figures, strict=True)),
                            lambda: scatter_panels(list(panels.values()), names, **axes),
                            "fig_scatter", title="Original vs masked records (Pham et al. Fig. 2)",
                            context=context)
                hidden = outside(perturbed2, x_range, y_range) if with_input else 0
                st.caption(
                    "Shaded: the decision regions of the model trained on each set. The masked "
                    "records need not resemble the sensitive ones, yet their model is the noisy "
                    "model w′: where its regions differ from the original's, that is the privacy "
                    "noise, which shrinks as ε or the private N grows. The axes span the data "
                    "domain (every record's norm is at most "
                    f"{task.data_norm:.3g})"
                    + (f"; {off_axes} masked records lie outside it (the unbounded search)"
                       if off_axes else "")
                    + ". Switch on the input-perturbed records to see Algorithm 2 at the same ε "
                    "as hollow markers"
                    + (f" ({hidden} of {len(perturbed)} fall outside the axes)" if hidden else "")
                    + "; its labels are published unperturbed, so it protects features only."
                    + ("" if identity else " The 2-D view is a projection fitted on public data "
                       "only; regions are not drawn for d > 2.")
                )
        elif view == "Greedy animation":
            new = slice(gen.n_initial_, None)
            init2 = task.project(gen.masked_X_[:gen.n_initial_])
            new2 = task.project(gen.masked_X_[new])
            x_range, y_range = axis_ranges(init2, new2)
            fig = growth_animation(init2, gen.masked_y_[:gen.n_initial_], new2, gen.masked_y_[new],
                                   gen.gradient_trace_, names, x_range=x_range, y_range=y_range,
                                   xtitle=xtitle, ytitle=ytitle)
            show(fig, "fig_animation",
                 title="Greedy growth of the masked set (Algorithm 1, step 3)", context=context)
            st.caption("Press ▶ or drag the slider: records appear one at a time, each the one "
                       "that cancels the most of the remaining gradient (eq. 4), so the gradient "
                       "norm falls as they appear (pale: the initial set). Once it is zero, "
                       "further records sit at the origin, where a record adds nothing to the "
                       "gradient.")
        elif view == "Accuracy vs ε":
            n_draws = replicates_slider("mk_draws", 20, options=(10, 20, 50),
                                        label="Draws per ε (the paper: 50)")
            sizes = fig5_sizes(task)
            if sizes != list(FIG5_N):
                missing = " and ".join(str(n_fig) for n_fig in FIG5_N if n_fig not in sizes)
                st.info(f"The paper's N = {missing} needs more than the {len(task.y_pool)} "
                        "private records of this task"
                        + ("; the curves use all of them." if sizes[0] not in FIG5_N else "."))
            columns = st.columns(len(sizes))
            for col, n_fig in zip(columns, sizes, strict=True):
                with col:
                    key = ("fig5", task_key, lam, n_fig, n_draws, seed)
                    bar = (None if is_cached(route, route_id, key)  # a bar only when there is work
                           else st.progress(0.0, text=f"Simulating N = {n_fig}…"))
                    frame = memo(route, route_id, key,
                                 lambda n_fig=n_fig, bar=bar: accuracy_vs_epsilon(
                                     task, lam=lam, n_samples=n_fig, n_draws=n_draws, seed=seed,
                                     progress=lambda f, text, b=bar: b.progress(f, text=text)))
                    if bar is not None:
                        bar.empty()
                    show(accuracy_figure(frame, epsilon=epsilon, ytitle=accuracy_label(
                        task.valid_private, axis=True)), f"fig_accuracy_{n_fig}",
                         title=f"Accuracy vs ε, N = {n_fig} (Pham et al. Fig. 5)",
                         context=f"{task.title}; λ = {lam:g}; {n_draws} draws")
            st.caption("Mean validation accuracy over draws, ±1 SD shaded. Masked generation: the "
                       "model trained on the masked set; output perturbation: the noisy model w′ "
                       "itself; input perturbation: a model trained on noisy records (labels "
                       "unprotected); non-private: the model on the private draw (a reference). "
                       "Where the masked set reaches w′, its curve lies on output perturbation's. "
                       "Seeded simulations, not releases."
                       + (" Accuracy is measured on records held out of the private data: "
                          "non-private numbers, shown to judge the mechanism, never published."
                          if task.valid_private else ""))
        elif view == "Digit images":
            if task.components is None:
                st.info("Images exist for the digit experiments only: pick one in the sidebar.")
            else:
                per_class = 6

                def some(y):
                    return np.concatenate([np.flatnonzero(y == c)[:per_class]
                                           for c in range(task.n_classes)])

                rows = some(task.y_private)
                show(image_grid(task.to_images(task.X_private[rows]),
                                [names[c] for c in task.y_private[rows]], cols=per_class * 3),
                     "fig_private_images", title="Private images (non-private; PCA-25 view)",
                     context=task.title)
                if initial is not None:
                    rows0 = some(task.y_initial)
                    show(image_grid(task.to_images(task.X_initial[rows0]),
                                    [f"as {names[c]}" for c in task.y_initial[rows0]],
                                    cols=per_class * 3),
                         "fig_initial_images", title="Initial masked set (public images)",
                         context=task.title)
                new_y = gen.masked_y_[gen.n_initial_:]
                new_X = gen.masked_X_[gen.n_initial_:]
                rows1 = some(new_y)
                show(image_grid(task.to_images(new_X[rows1]), [names[c] for c in new_y[rows1]],
                                cols=per_class * 3),
                     "fig_masked_images", title="Generated masked samples as images (DP)",
                     context=context)
                coefs = [("non-private", gen.coef_), ("masked set", gen.refit_coef_)]
                if initial_coef is not None:
                    coefs.insert(1, ("initial set", initial_coef))
                weights = np.concatenate([task.weights_to_images(c) for _, c in coefs])
                titles = [f"{label}: {name}" for label, _ in coefs for name in names]
                show(image_grid(weights, titles, cols=task.n_classes, diverging=True),
                     "fig_weights", title="Classifier weights as images (Pham et al. Fig. 3 d-f)",
                     context=context)
                st.caption("Images are PCA-25 reconstructions clipped to the pixel range. Weights: "
                           "red pixels raise a class's score, blue lower it; the masked set's "
                           "weights should look like the non-private ones, not like the initial "
                           "set's.")
        else:
            st.markdown(
                f"**One release** at {settings}: the masked dataset, the only output on this page "
                "that leaves the data owner. It spends ε once (for the noisy classifier); the "
                "records are then post-processing.")

            def release(accountant):
                return MaskedDataGenerator(epsilon, lam, n, accountant=accountant,
                                           n_classes=task.n_classes, data_norm=task.data_norm,
                                           bounded=bounded, dataset=task.title).fit(
                    task.X_private, task.y_private, initial=initial)

            published = publish_panel("masking", scenario=route, scenario_id=route_id,
                                      epsilon=epsilon, settings=settings, release=release,
                                      label="Publish the masked dataset",
                                      noise="coordinate-wise Laplace on W′ at √(Kd) × the L2 "
                                            "sensitivity (the studies draw the paper's "
                                            "L2-Laplace)")
            if published is not None:
                released = published.value
                st.success(f"Published at {published.settings} ({published.time:%H:%M:%S} UTC).",
                           icon="✅")
                cols = st.columns(3)
                cols[0].metric("Gradient norm at w′ (release)", f"{released.gradient_norm_:.2g}")
                cols[1].metric("‖refit − w′‖ (release)", f"{released.refit_distance_:.2g}")
                cols[2].metric("Records", f"{len(released.masked_y_)}",
                               help=f"{released.n_initial_} from the initial set, the rest "
                                    "invented.")
                masked2 = task.project(released.masked_X_)
                x_range, y_range = axis_ranges(masked2)
                fig = scatter_panels(
                    [Panel("Released masked set", masked2, released.masked_y_,
                           regions(released.refit_coef_, x_range, y_range),
                           faint=released.n_initial_)],
                    names, xtitle=xtitle, ytitle=ytitle, x_range=x_range, y_range=y_range,
                    height=480)
                show(fig, "fig_released", title="The released masked set",
                     context=f"{task.title}; {published.settings}")
                table = pd.DataFrame(task.to_records(released.masked_X_),
                                     columns=list(task.feature_names))
                table.insert(0, "label", [names[c] for c in released.masked_y_])
                st.dataframe(table.head(20), hide_index=True)
                st.download_button("Download the masked dataset (CSV)",
                                   csv_bytes(table), "masked_dataset.csv",
                                   "text/csv", key="mk_download")


def outside(points: np.ndarray, x_range, y_range) -> int:
    """How many 2-D points fall outside the axes."""
    return int(np.sum((points[:, 0] < x_range[0]) | (points[:, 0] > x_range[1])
                      | (points[:, 1] < y_range[0]) | (points[:, 1] > y_range[1])))


view = st.segmented_control("View", VIEWS, key="mk_view", label_visibility="collapsed") or VIEWS[0]
with show_errors():
    task_key, route_name = TASKS[task_label]
    if route_name is None:
        if scenario is None:
            with epsilon_slot:
                epsilon_slider("mk_epsilon", 5.0, options=FIG5_EPSILONS)
            st.info("Choose a scenario in the sidebar to begin.")
            st.stop()
        route, route_id = scenario, st.session_state["scenario_id"]
        task = memo(route, route_id, ("masking task",), lambda: load_task(task_key, scenario))
    else:
        route, route_id = load_builtin(route_name, seed=None), f"masking:{task_key}"
        task = memo(route, route_id, ("masking task", task_key), lambda: load_task(task_key))
    initial = (task.X_initial, task.y_initial) if initial_choice == INITIAL[0] else None
    m = len(task.y_initial) if initial is not None else 0
    n = masked_size(n_chosen, m)
    _, _, identity = task.projection()
    names = task.class_names
    xtitle, ytitle = task.feature_names[:2] if identity else ("public PC 1", "public PC 2")
    st.caption(
        f"{task.description} N = {n} masked records"
        + (f" (the initial set has {m}; N was raised to {n})" if n != n_chosen else "")
        + ". A seeded simulation of the mechanism, not a release: it spends no budget."
    )
    # A study view is a fragment: an ε move reruns live() alone. The Publish view reruns the
    # whole page, so that a release and the budget panel on screen always come from the same run.
    (live if view == PUBLISH else st.fragment(live))(view)
