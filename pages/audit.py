"""Privacy audit: how do we know the noise is right? An empirical lower bound on ε per mechanism.

Every audit here runs on built-in synthetic pairs of neighbouring datasets (no user data, no
budget), seeded, and is cached in the store every session shares.
"""

import pandas as pd
import streamlit as st

from dpcore import audit as A
from dpcore.runs.audit import REFIT_RUNS, audit_one, runs_for
from ui.budget import budget_sidebar
from ui.cache import SHARED, content_key
from ui.errors import show_errors
from ui.export import export_panel
from ui.figures.audit import distributions_figure, summary_figure
from ui.figures.common import show
from ui.navigation import require_router
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.widgets import epsilon_slider, log_slider, seed_input

require_router()

RUNS = (1000, 3000, 10_000, 30_000, 100_000)
CONFIDENCES = (0.9, 0.95, 0.99)
CANARIES = (50, 100, 200, 500)


def _label(key: str) -> str:
    case = A.audit_case(key, 1.0)
    return ("⚠ Broken on purpose: " if case.broken else "") + case.name


@st.cache_data(show_spinner=False)
def _labels() -> dict[str, str]:
    return {key: _label(key) for key in A.CASE_KEYS}


def _one(key: str, epsilon: float, runs: int, confidence: float, seed: int,
         progress=None) -> A.AuditResult:
    case = A.audit_case(key, epsilon)
    parts = ("audit", key, epsilon, runs_for(case, runs), confidence, seed)
    return SHARED.get(content_key(*parts), lambda: audit_one(
        key, epsilon, runs, confidence, seed, progress=progress))


scenario_sidebar()  # the audit uses no scenario: the sidebar stays for navigation
keep_widget_state({"au_case": A.CASE_KEYS[0], "au_confidence": 0.95})
with st.sidebar:
    st.header("Privacy audit")
    epsilon = epsilon_slider("au_epsilon", 1.0)
    runs = int(log_slider("Runs per dataset", RUNS, "au_runs", 10_000,
                          help="How often each mechanism runs on each of the two datasets. "
                               f"Mechanisms that refit a model run at most {REFIT_RUNS:,} "
                               "times."))
    confidence = st.select_slider("Confidence", CONFIDENCES, key="au_confidence",
                                  help="The audited bound is below the true ε with at least "
                                       "this probability.")
    seed = seed_input("au_seed")
budget_sidebar()
export_panel("audit")

st.title("Privacy audit")
st.markdown(
    "**How do we know the noise is right?** Each mechanism runs many times on two datasets that "
    "differ in one person's record. An observer who sees only the output tries to tell which "
    "dataset was used. Differential privacy at ε caps how well anyone can do that, so the "
    "observer's success rate gives a **lower bound on the ε the mechanism really has**. If the "
    "bound is above the claimed ε, the noise is too weak: a bug. If it is below, the noise is "
    "at least this strong on this pair (an audit cannot prove privacy, only find its absence)."
)

st.caption("Seeded simulations on built-in synthetic pairs of datasets, not releases: no data of "
           "yours is used and no budget is spent.")

with show_errors():
    labels = _labels()
    key = st.selectbox("Mechanism", A.CASE_KEYS, key="au_case", format_func=labels.get)
    case = A.audit_case(key, epsilon)
    n_runs = runs_for(case, runs)
    with st.spinner("Running the mechanism…"):
        result = _one(key, epsilon, runs, confidence, seed)
    cols = st.columns(4)
    cols[0].metric("Claimed ε", f"{case.epsilon:g}")
    cols[1].metric("Audited lower bound", f"{result.epsilon_lb:.2f}",
                   delta=("above the claim: a fault" if result.above_claim else
                          "above what ε allows on this pair: a fault" if result.flagged
                          else None),
                   delta_color="inverse")
    cols[2].metric("Pair's share f of the sensitivity", f"{case.fraction:.2f}")
    cols[3].metric("Runs per dataset", f"{n_runs:,}")
    ceiling = A.audit_ceiling(n_runs, confidence, case.delta)
    if case.pair_limit > ceiling:
        st.warning(
            f"With {n_runs:,} runs per dataset no audit can show more than ε = {ceiling:.2f}, "
            f"even a test that never errs, so a result below the claim ({case.epsilon:g}) "
            f"means nothing here. Raise the runs or lower ε to audit this claim.",
            icon=":material/blur_on:")
    if result.flagged:
        limit = ("" if result.above_claim else
                 f" On this pair, a share f = {case.fraction:.2f} of the sensitivity apart, "
                 f"correctly calibrated Laplace-type noise loses at most f × ε = "
                 f"{case.pair_limit:.2f}; the audit shows more.")
        st.error(f"The outputs on the two datasets are easier to tell apart than ε = "
                 f"{case.epsilon:g} allows: the audit shows ε ≥ {result.epsilon_lb:.2f} "
                 f"(confidence {confidence:g}).{limit} The noise is too weak.", icon="🚨")
    else:
        st.success(f"The noise is at least this strong: on this pair no test did better than "
                   f"ε = {result.epsilon_lb:.2f} (claimed {case.epsilon:g}, confidence "
                   f"{confidence:g}). With the pair a share f = {case.fraction:.2f} of the "
                   f"sensitivity apart, even a perfect test shows about "
                   f"{case.fraction * case.epsilon:.2f} at most for Laplace-type noise.")
    show(distributions_figure(result), "au_distributions",
         title="Outputs on D and D′, reduced to one score each, and the threshold test",
         context=f"{case.name}; ε = {case.epsilon:g}; {n_runs:,} runs per dataset (half shown "
                 "after choosing the threshold on the other half)")
    st.caption(
        f"Neighbouring relation: {case.neighbouring}. Pair: {case.pair}. Runs: {case.covers}. "
        f"On the held-out half, P(score beyond threshold | D) ≤ {result.fpr_upper:.4f} and "
        f"P(not beyond | D′) ≤ {result.fnr_upper:.4f} (Clopper-Pearson, both together at "
        f"{confidence:g}); ε ≥ log((1 − δ − one rate) / the other rate)."
    )

    st.subheader("Every mechanism: claimed vs audited ε")
    broken = st.toggle("Include the broken-on-purpose examples", value=True, key="au_broken")
    keys = [k for k in A.CASE_KEYS if broken or k not in A.BROKEN_KEYS]
    table_key = ("au_table", epsilon, runs, confidence, seed, tuple(keys))
    if st.button("Audit every mechanism", key="au_run_all", icon=":material/fact_check:"):
        bar = st.progress(0.0, text="Auditing…")
        for i, k in enumerate(keys):
            bar.progress(i / len(keys), text=f"Auditing {labels[k]}…")
            _one(k, epsilon, runs, confidence, seed)
        bar.empty()
        st.session_state["au_table_done"] = table_key
    if st.session_state.get("au_table_done") == table_key:
        rows = [_one(k, epsilon, runs, confidence, seed).row() for k in keys]
        show(summary_figure(rows), "au_summary", title="Claimed ε and audited lower bound",
             context=f"ε = {epsilon:g}; confidence {confidence:g}; runs per dataset "
                     f"{runs:,} ({REFIT_RUNS:,} at most for refits); seed {seed}")
        table = pd.DataFrame(rows)[["mechanism", "broken on purpose", "claimed epsilon",
                                    "audited lower bound", "confidence", "runs per dataset", "f",
                                    "limit on this pair", "flagged"]]
        st.dataframe(table, hide_index=True, width="stretch",
                     column_config={"audited lower bound": st.column_config.NumberColumn(
                         format="%.3f"), "f": st.column_config.NumberColumn(format="%.2f")})
        st.caption("Read each row as: the noise is at least this strong. A correct mechanism "
                   "stays below its claim, and for Laplace-type noise below f × ε (the limit on "
                   "this pair); a bar in red is a fault the audit caught.")
    else:
        st.info("Runs every mechanism on its hard pair (a few seconds at 10⁵ runs).")

    st.subheader("One training run (Steinke, Nasr & Jagielski 2023)")
    st.markdown(
        "Instead of thousands of runs on two datasets, one run on a dataset with many "
        "*canaries*, each included or not by a coin flip. The auditor guesses, from the one "
        "released model, which canaries were in; too many right guesses refute ε. Cheap, but "
        "weak for noise on a whole model: expect a bound near 0 unless ε is large."
    )
    canaries = int(log_slider("Canaries", CANARIES, "au_canaries", 200))
    if st.button("Run the one-run audit (output perturbation)", key="au_one_run"):
        one = SHARED.get(content_key("au_one_run", epsilon, canaries, confidence, seed),
                         lambda: A.one_run_audit(epsilon, canaries=canaries,
                                                 guesses=max(2, canaries // 5),
                                                 confidence=confidence, rng=seed))
        c1, c2, c3 = st.columns(3)
        c1.metric("Claimed ε", f"{epsilon:g}")
        c2.metric("Correct guesses", f"{one.correct} / {one.guesses}")
        c3.metric("Audited lower bound", f"{one.epsilon_lb:.2f}")
