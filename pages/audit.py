"""Privacy audit: how do we know the noise is right? An empirical lower bound on ε per mechanism.

Every audit here runs on built-in synthetic pairs of neighbouring datasets (no user data, no
budget), seeded, and is cached in the store every session shares. The floating-point attacks run
the product's release functions, whose OpenDP noise cannot be seeded; their broken-on-purpose rows
and threshold splits use the page's seed.
"""

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from dpcore import audit as A
from dpcore import audit_float as F
from dpcore.figures.audit import TITLES, context, figures, float_figure, summary_figure
from dpcore.releases.catalogue import BROKEN_KEYS, CASE_KEYS, ONE_RUN_KEYS
from dpcore.studies import audit as study
from dpcore.studies.audit import (
    CANARIES,
    CONFIDENCES,
    FLOAT_RUNS,
    REFIT_RUNS,
    RUNS,
    SENSITIVITY_PAIRS,
)
from ui.budget import budget_sidebar
from ui.cache import SHARED, shared_key
from ui.errors import show_errors
from ui.export import export_panel
from ui.navigation import require_router
from ui.show import show
from ui.sidebar import scenario_sidebar
from ui.state import keep_widget_state
from ui.study import numbers, prepared
from ui.widgets import epsilon_slider, log_slider, seed_input

require_router()

FLOAT_COLUMNS = ["mechanism", "broken on purpose", "claimed epsilon", "runs per dataset",
                 "reachability bound", "granularity bound", "P(reachable from D) on D",
                 "P(reachable from D) on D′", "mean trailing zeros on D",
                 "mean trailing zeros on D′", "flagged", "note"]


@st.cache_data(show_spinner=False)
def _labels() -> dict[str, str]:
    return {key: study.case_label(key) for key in CASE_KEYS}


def _numbers(params: study.Params) -> dict[str, pd.DataFrame]:
    """The audit of ``params`` (built-in pairs: no scenario, shared by every session)."""
    return numbers(study, None, None, params, text="Running the mechanism…", bar=False)


def _float_cases(epsilon: float) -> list[F.FloatCase]:
    return SHARED.get(shared_key("au_float_cases", epsilon), lambda: F.float_cases(epsilon))


def _float(case: F.FloatCase, runs: int, confidence: float, seed: int) -> F.FloatAuditResult:
    parts = ("au_float", case.key, case.epsilon, runs, confidence, seed)
    return SHARED.get(shared_key(*parts), lambda: F.float_audit(case, runs, confidence,
                                                                   rng=seed))


def single_audit(params: study.Params) -> None:
    """The chosen mechanism's audit: its metrics, the verdict, the histogram and the test."""
    result = _numbers(params)
    m = result["metrics"].iloc[0]
    case = prepared(study, None, None, params, bar=False).case  # cached: for the caption
    n_runs = int(m["runs_per_dataset"])
    cols = st.columns(5)
    cols[0].metric("Claimed ε", f"{m['claimed_epsilon']:g}")
    cols[1].metric("Audited lower bound", f"{m['audited_lower_bound']:.2f}",
                   delta=("above the claim: a fault" if m["above_claim"] else
                          "above what ε allows on this pair: a fault" if m["flagged"]
                          else None),
                   delta_color="inverse")
    cols[2].metric("Gap (claimed − audited)", f"{m['gap']:.2f}",
                   help="What the audit leaves unverified: the claim may hold with less noise "
                        "than it has, or the audit may not see the whole loss. Negative: the "
                        "audit refutes the claim.")
    cols[3].metric("Pair's share f of the sensitivity", f"{m['f']:.2f}")
    cols[4].metric("Runs per dataset", f"{n_runs:,}")
    if m["limit_on_this_pair"] > m["ceiling"]:
        st.warning(
            f"With {n_runs:,} runs per dataset no audit can show more than ε = "
            f"{m['ceiling']:.2f}, even a test that never errs, so a result below the claim "
            f"({m['claimed_epsilon']:g}) means nothing here. Raise the runs or lower ε to audit "
            "this claim.", icon=":material/blur_on:")
    if m["flagged"]:
        st.error(study.verdict(m), icon="🚨")
    else:
        st.success(study.verdict(m))
    built = figures(result, params)
    show(built["distributions"], "au_distributions", title=TITLES["distributions"],
         context=context(result))
    st.caption(
        f"Neighbouring relation: {case.neighbouring}. Pair: {case.pair}. Runs: {case.covers}. "
        f"On the held-out half, P(score beyond threshold | D) ≤ {m['fpr_upper']:.4f} and "
        f"P(not beyond | D′) ≤ {m['fnr_upper']:.4f} (Clopper-Pearson, both together at "
        f"{m['confidence']:g}); ε ≥ log((1 − δ − one rate) / the other rate)."
    )
    tradeoff_curve(result, built["tradeoff"])


def tradeoff_curve(result: dict[str, pd.DataFrame], figure) -> None:
    """The claim's trade-off curve with the audit's (FPR, TPR) points, and the verdict on them."""
    m = result["metrics"].iloc[0]
    show(figure, "au_tradeoff", title=TITLES["tradeoff"], context=context(result))
    sentence = study.curve_sentence(result)
    if m["bug"]:
        st.error(sentence, icon="🐞")
    st.caption(f"Curve: {m['curve']}. {m['curve_note']}" + ("" if m["bug"] else f" {sentence}"))


def run_behind_button(label: str, key: str, icon: str, done: tuple,
                      steps: Sequence[tuple[str, Callable[[], object]]]) -> bool:
    """A table's computation behind a button: a press runs ``steps`` (each a progress text and
    the work, whose results the page caches) under a progress bar and records ``done``, the
    settings computed; returns whether this session has computed the current settings."""
    if st.button(label, key=key, icon=icon):
        bar = st.progress(0.0, text="Working…")
        for i, (text, step) in enumerate(steps):
            bar.progress(i / len(steps), text=text)
            step()
        bar.empty()
        st.session_state[f"{key}_done"] = done
    return st.session_state.get(f"{key}_done") == done


def every_mechanism(params: study.Params, labels: dict[str, str]) -> None:
    """The table of every mechanism at the sidebar's ε, runs, confidence and seed, behind a
    button (each row is the single audit of that mechanism, cached with it)."""
    st.subheader("Every mechanism: claimed vs audited ε")
    broken = st.toggle("Include the broken-on-purpose examples", value=True, key="au_broken")
    keys = [k for k in CASE_KEYS if broken or k not in BROKEN_KEYS]
    table_key = ("au_table", params.epsilon, params.runs, params.confidence, params.seed,
                 tuple(keys))
    steps = [(f"Auditing {labels[k]}…", lambda k=k: _many_run(k, params)) for k in keys]
    if not run_behind_button("Audit every mechanism", "au_run_all", ":material/fact_check:",
                             table_key, steps):
        st.info("Runs every mechanism on its hard pair (a few seconds at 10⁵ runs).")
        return
    table = study.summary_table(_numbers(params.replace(case=k))["metrics"] for k in keys)
    show(summary_figure(table), "au_summary", title="Claimed ε and audited lower bound",
         context=f"ε = {params.epsilon:g}; confidence {params.confidence:g}; runs per dataset "
                 f"{params.runs:,} ({REFIT_RUNS:,} at most for refits); seed {params.seed}")
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={
                     "audited lower bound": st.column_config.NumberColumn(format="%.3f"),
                     "gap": st.column_config.NumberColumn(format="%.3f"),
                     "f": st.column_config.NumberColumn(format="%.2f")})
    st.caption("Read each row as: the noise is at least this strong. A correct mechanism "
               "stays below its claim, and with Laplace, L2-Laplace or discrete Laplace noise "
               "(a loss linear in the distance) below f × ε, the limit on this pair; Gaussian "
               "noise reaches its ε only in tails that few runs visit, so its row falls short of "
               "the claim even when the noise is right. A bar in red is a fault the audit "
               "caught.")


def float_results(epsilon: float, float_runs: int, confidence: float, seed: int) -> None:
    """The floating-point attacks' figure, table and verdict (computed by the button)."""
    results = [_float(case, float_runs, confidence, seed) for case in _float_cases(epsilon)]
    rows = [r.row() for r in results]
    show(float_figure(rows), "au_float",
         title="Floating-point attacks: claimed ε and the two audited lower bounds",
         context=f"ε = {epsilon:g}; {float_runs:,} runs per dataset; confidence "
                 f"{confidence:g}; seed {seed} (broken rows and threshold splits)")
    st.dataframe(pd.DataFrame(rows)[FLOAT_COLUMNS], hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f") for c in
                                FLOAT_COLUMNS[4:10]})
    leaks = [r.case.name for r in results if r.flagged and not r.case.broken]
    missed = [r.case.name for r in results if r.case.broken and not r.flagged]
    ceiling = A.audit_ceiling(float_runs, confidence)
    if leaks:
        st.error(f"A release leaks through its low-order bits: {', '.join(leaks)}.",
                 icon="🚨")
    elif missed:
        st.warning(f"The attack did not catch {', '.join(missed)} at ε = {epsilon:g}: with "
                   f"{float_runs:,} runs per dataset no test can show more than ε = "
                   f"{ceiling:.2f}, and a row whose outputs are sometimes reachable from D "
                   "shows less, so a result below the claim means nothing here. Raise the "
                   "runs or lower ε.", icon=":material/blur_on:")
    else:
        st.success("Every release stays at or below its claimed ε under both attacks, and "
                   "the reachability attack catches numpy's sampler (broken on purpose).")
    st.caption(
        "Each run is one release through the product's own release function. Reachability "
        "bound: a run scores 1 when every coordinate could have come from D's answer (the "
        "sampler's exact set of outputs), else 0; granularity bound: the run's trailing zero "
        "bits, summed over coordinates. Both are turned into ε ≥ … by the threshold test "
        "above (Clopper-Pearson). Granularity is the simpler and weaker test: on numpy's "
        "sampler it sees the trailing zeros shift but cannot refute ε on its own; "
        "reachability can. Neither sees the noise law's own ε (the audit above measures it: "
        "a threshold on the released count's value reaches about 0.9 at a claim of 1): a 0.00 "
        "means the low-order bits add nothing these tests can see. The release rows draw "
        "fresh OS entropy through OpenDP, "
        "which cannot be seeded (by design): their numbers change a little from one run to "
        "the next; the seed fixes the broken rows and the threshold splits. An index (the "
        "exponential mechanism) has no low-order bits to attack. Table and method: "
        "docs/float-audit.md."
    )


def float_attacks(params: study.Params) -> None:
    """The floating-point attacks on every release mechanism, behind a button (releases
    through OpenDP: fresh OS entropy, so not a seeded study; cached as the page always did)."""
    st.subheader("Floating-point attacks")
    st.markdown(
        "A release is a floating-point number, and its lowest bits can give the data away "
        "whatever ε says (Mironov 2012). numpy draws Laplace noise as a double and the sum "
        "`truth + noise` is rounded to a double: the doubles that can come out of a count of 0 "
        "are not those that can come out of a count of 1, so a single output can name the "
        "dataset with certainty. Two attacks run on every release mechanism, on two datasets "
        "that differ in one record: **reachability** (exact: could this output have come from "
        "D's answer?) and **granularity** (how many trailing zero bits the output has). The "
        "releases draw their noise through OpenDP instead: the answer is rounded to a grid of "
        "2⁻⁶⁰, exact integer noise is added, and the exact sum is rounded to a double once, so "
        "every multiple of 2⁻⁶⁰ can come out of every answer and neither attack has anything "
        "to see; counts get exact integer noise (the discrete Laplace), so an output is an "
        "integer whatever the count. numpy's sampler stays as rows *broken on purpose*, which "
        "the attack must catch."
    )
    float_runs = int(log_slider(
        "Runs per dataset (floating-point attacks)", FLOAT_RUNS, "au_float_runs", 20_000,
        help="Releases of each mechanism on each of the two datasets. OpenDP draws some "
             "60,000 numbers a second: 20,000 runs take 10 to 20 s for the whole table."))
    epsilon, confidence, seed = params.epsilon, params.confidence, params.seed
    float_key = ("au_float", epsilon, float_runs, confidence, seed)
    steps = [(f"Attacking {case.name}…",
              lambda case=case: _float(case, float_runs, confidence, seed))
             for case in _float_cases(epsilon)]
    if run_behind_button("Run the floating-point attacks", "au_float_run", ":material/memory:",
                         float_key, steps):
        float_results(epsilon, float_runs, confidence, seed)
    else:
        st.info("Runs every release mechanism on its pair through its release path, and "
                "numpy's sampler as rows broken on purpose.")


def _sensitivity(name: str, pairs: int, seed: int) -> dict:
    """One release's grey-box check (:func:`dpcore.audit.check_sensitivity`: built-in probes,
    seeded, so shared by every session)."""
    return SHARED.get(shared_key("au_sensitivity", name, pairs, seed),
                      lambda: A.check_sensitivity(name, pairs=pairs, seed=seed))


def sensitivity_checks(params: study.Params) -> None:
    """The grey-box sensitivity check of every release, behind a button."""
    st.subheader("Every release's sensitivity, measured (grey box)")
    st.markdown(
        "The audit above sees only outputs. This check looks inside: each release's own code "
        "runs on many pairs of neighbouring datasets (random pairs and pairs at the data's "
        "bounds: the largest record, a flipped label, a group emptied), with its noise held "
        "identical on both, so the two outputs differ only by what the noise must hide. The "
        "largest distance seen must not exceed the sensitivity the release declares (the "
        "solver's term included), and both runs must take the same path (no refusal or branch "
        "on one side only). The variants *broken on purpose* (sensitivity halved, a "
        "sensitivity of 0, bounds read from the data) must fail.")
    pairs = int(log_slider("Pairs per release", SENSITIVITY_PAIRS, "au_sens_pairs", 100,
                           help="Neighbouring pairs each release runs on: 100 take a few "
                                "seconds for the whole table, 10,000 several minutes."))
    names = A.release_names()
    done = ("au_sensitivity", pairs, params.seed)
    steps = [(f"Checking {name}…", lambda name=name: _sensitivity(name, pairs, params.seed))
             for name in names]
    if not run_behind_button("Run the sensitivity checks", "au_sens_run", ":material/rule:",
                             done, steps):
        st.info(f"Runs the {len(names)} checks (releases and broken variants) at {pairs:,} "
                "pairs each.")
        return
    rows = [_sensitivity(name, pairs, params.seed) for name in names]
    table = pd.DataFrame(rows)[["name", "relation", "norm", "declared", "measured", "pairs",
                                "over", "branches_differ", "batch_differs", "ok"]]
    broken = table["name"].str.endswith("(broken)")
    failed = table[~broken & ~table["ok"]]
    missed = table[broken & table["ok"]]
    if len(failed):
        st.error("A release measured above its declared sensitivity or took another path on a "
                 f"neighbour: {', '.join(failed['name'])}. Its privacy claim does not hold.",
                 icon=":material/error:")
    if len(missed):
        st.warning(f"A variant broken on purpose passed: {', '.join(missed['name'])}. The "
                   "check cannot see that fault at this many pairs.", icon=":material/warning:")
    if not len(failed) and not len(missed):
        st.success(f"Every release within its declared sensitivity on {pairs:,} pairs, and "
                   f"every broken variant caught ({int(broken.sum())}).",
                   icon=":material/check_circle:")
    st.dataframe(table, hide_index=True)
    st.caption("measured: the largest distance between the outputs of a pair (in the release's "
               "norm); over: pairs above the declared sensitivity; branches_differ: pairs whose "
               "two runs took different paths; batch_differs: pairs where the check's batched "
               "computation disagreed with the release's own code (run on every pair at the "
               "bounds and on one random pair in 50). A check shows a sensitivity too small where "
               "its pairs reach the true one; passing is evidence, not a proof.")


def _one_run(key: str, params: study.Params, canaries: int) -> A.OneRunOutcome:
    """One release's one-run audit (:func:`dpcore.studies.audit.one_run`: built-in canaries,
    seeded, so shared by every session)."""
    parts = ("au_one_run", key, params.epsilon, canaries, params.confidence, params.seed)
    return SHARED.get(shared_key(*parts), lambda: study.one_run(key, params, canaries))


def _many_run(key: str, params: study.Params) -> A.AuditResult:
    """The many-run audit of ``key`` at the sidebar's settings, as the page caches it."""
    return prepared(study, None, None, params.replace(case=key), bar=False)


def one_run_audits(params: study.Params) -> None:
    """Every release's one-run audit beside its many-run audit, behind a button."""
    st.subheader("One run (Steinke, Nasr & Jagielski 2023) beside many runs, per release")
    st.markdown(
        "Instead of thousands of runs on two datasets, **one** run on a dataset with many "
        "*canaries*, each included or not by a coin flip. From the one output the auditor "
        "guesses in or out on the fifth of the canaries it is surest of and abstains on the "
        "rest; too many right guesses refute ε. Each release runs once through its own noise "
        "law (the seeded study twin of its sampler) at the sidebar's ε, confidence and seed, "
        "beside its many-run audit at the sidebar's runs.")
    canaries = int(log_slider("Canaries", CANARIES, "au_canaries", 200,
                              help="Canaries in each release's one run; the auditor guesses "
                                   "on a fifth of them."))
    done = ("au_one_run", params.epsilon, params.runs, canaries, params.confidence, params.seed)
    steps = [(f"Auditing release {i} of {len(ONE_RUN_KEYS)}…",
              lambda key=key: _many_run(_one_run(key, params, canaries).audited, params))
             for i, key in enumerate(ONE_RUN_KEYS, start=1)]
    if not run_behind_button("Run the one-run audits", "au_one_run", ":material/casino:", done,
                             steps):
        st.info(f"Runs each of the {len(ONE_RUN_KEYS)} releases once with {canaries:,} "
                "canaries, and its many-run audit if the table above has not.")
        return
    outcomes = [_one_run(key, params, canaries) for key in ONE_RUN_KEYS]
    table = study.one_run_table(outcomes, {o.audited: _many_run(o.audited, params)
                                           for o in outcomes})
    above = table[table["above the claim"]]
    if len(above):
        st.error(f"An audit puts {', '.join(above['release'])} above its claim at confidence "
                 f"{params.confidence:g}: its noise is too weak, or this is the one time in "
                 f"{1.0 / (1.0 - params.confidence):.0f} (at most) that a correct release does "
                 "so; another seed tells which.", icon="🚨")
    config = {c: st.column_config.NumberColumn(format="%.2f") for c in
              ("claimed epsilon", "many-run bound", "many-run gap", "one-run bound",
               "one-run gap", "most one run can show")}
    config |= {c: st.column_config.NumberColumn(format="%.4f") for c in
               ("many-run seconds", "one-run seconds")}
    st.dataframe(table, hide_index=True, width="stretch", column_config=config)
    st.markdown(study.threat_models(table))
    st.caption(
        f"Bounds at confidence {params.confidence:g}: a correct release exceeds its claim "
        f"with probability at most {1.0 - params.confidence:.2g}. A gap is the claim minus "
        "the bound (what the audit leaves unverified). Runs: invocations of the mechanism "
        "(many runs: both datasets). Seconds: this computation's wall time on a shared "
        "machine, a measurement. "
        "Seeded studies on built-in canaries, not releases: nothing is spent. Method per "
        "release: docs/privacy.md (One-run audit of every release).")


scenario_sidebar()  # the audit uses no scenario: the sidebar stays for navigation
defaults = study.Params()
keep_widget_state({"au_case": defaults.case, "au_confidence": defaults.confidence})
with st.sidebar:
    st.header("Privacy audit")
    epsilon = epsilon_slider("au_epsilon", defaults.epsilon)
    runs = int(log_slider("Runs per dataset", RUNS, "au_runs", defaults.runs,
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
    key = st.selectbox("Mechanism", CASE_KEYS, key="au_case", format_func=labels.get)
    params = study.Params(case=key, epsilon=epsilon, runs=runs, confidence=confidence,
                          seed=seed)
    single_audit(params)
    every_mechanism(params, labels)
    float_attacks(params)
    sensitivity_checks(params)
    one_run_audits(params)
