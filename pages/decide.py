"""Decide: one release at its page's settings, with what it buys and what it risks, on one screen.

The user picks which page's release to weigh; the page's own settings (as last set in this
session, else its defaults) give the study, whose numbers come from the same cache as on that
page. Beside the utility: the risk at a prior the user sets, the audit's lower bound for the
same mechanism (built-in pairs: shared by every session), the session's budget, the published
deployments and, for a masked release, the synthetic-data utility report. "Export report"
writes it all as one self-contained HTML file (:mod:`dpcore.decision.report`). Nothing here is
a release and nothing spends budget.
"""

from collections.abc import Callable

import pandas as pd
import streamlit as st

from dpcore.decision import (
    AUDIT_CONFIDENCE,
    AUDIT_RUNS,
    RELEASES,
    Decision,
    audit_numbers,
    decide,
    decision_params,
    report_html,
)
from dpcore.figures.decision import decision_figures
from dpcore.studies.choose_epsilon import PRIORS
from dpcore.text import md
from ui.budget import budget_sidebar
from ui.cache import SHARED, shared_key
from ui.errors import show_errors
from ui.navigation import require_router
from ui.registry import page as registry_page
from ui.runconfig import run_config
from ui.sidebar import ask_for_scenario, scenario_sidebar
from ui.state import keep_widget_state
from ui.study import numbers as study_numbers
from ui.study import prepared as study_prepared
from ui.tuning import tuning_panel
from ui.widgets import log_slider

require_router()

CHOICE, PRIOR = "dc_release", "dc_prior"
FIGURE_KEYS = {name: f"fig_dc_{name}" for name in ("utility", "audit", "tradeoff",
                                                   "deployments", "marginals", "correlation")}

scenario = scenario_sidebar()
keep_widget_state({CHOICE: next(iter(RELEASES))})
accountant = budget_sidebar()

st.title("Decide and report")
st.markdown(
    "Weigh **one release at its page's settings**: what it buys (the utility its study "
    "measured), what it risks (how far it can raise a belief about one person), what an "
    "attacker could show (the audit), what is left of the budget, and where its ε sits among "
    "published deployments. **Export report** hands it all over as one file. Nothing here is "
    "a release, and nothing spends budget.")


def _audit(case: str, epsilon: float, seed: int) -> dict[str, pd.DataFrame]:
    """The audit of ``case`` at ``epsilon``: its metrics, (FPR, TPR) points and claimed curve
    (built-in pairs: one result for every session)."""
    key = shared_key("dc_audit_tables", case, epsilon, AUDIT_RUNS, AUDIT_CONFIDENCE, seed)
    with st.spinner(f"Auditing the release's mechanism at ε = {epsilon:.3g} "
                    f"({AUDIT_RUNS:,} runs per dataset)…"):
        return SHARED.get(key, lambda: audit_numbers(case, epsilon, seed=seed))


def current_decision(page: str, prior: float) -> Decision:
    """The decision on ``page``'s release at its settings in this session, its study from the
    page's own cache."""
    config = run_config(page, st.session_state)
    data_id = st.session_state.get("scenario_id")
    text = f"Computing the {registry_page(page).title.lower()} study…"
    if scenario is None and RELEASES[page].reads_scenario(
            decision_params(page, config["controls"], config["seed"])):
        ask_for_scenario("Choose a scenario in the sidebar: this release reads it.")
        st.stop()

    def study(module, data, params):
        key = data_id if data is not None else None
        return (study_prepared(module, data, key, params, text=text),
                study_numbers(module, data, key, params, text=text))

    return decide(config, scenario=scenario, prior=prior, accountant=accountant, study=study,
                  audit=_audit)


def headline(dec: Decision) -> None:
    """The five numbers of the decision, one metric each."""
    top = dec.utility.iloc[0]
    r, a, b = dec.risk.iloc[0], dec.audit.iloc[0], dec.budget.iloc[0]
    cols = st.columns(4)
    label = top["quantity"][0].upper() + top["quantity"][1:]
    cols[0].metric(label + (" (non-private)" if top["non_private"] else ""),
                   f"{top['value']:.3g}", help=f"{top['spread']}. {top['meaning']}")
    cols[1].metric(f"Belief after it, from {100 * r['prior']:g} %",
                   f"{100 * r['posterior_at_most']:.1f} %", help=dec.sentences()["risk"])
    part = "" if dec.audit_scope.whole else " by the audited step"
    cols[2].metric("Audited ε ≥", f"{a['audited_lower_bound']:.2f}",
                   delta=f"claimed {a['claimed_epsilon']:.3g}, gap {a['gap']:.2f}{part}",
                   delta_color="off",
                   help=dec.sentences()["audit"])
    cols[3].metric("Budget left after it", f"{max(b['left'] - b['charge'], 0.0):.3g}",
                   delta=f"this release: ε = {b['charge']:g}",
                   delta_color="normal" if b["fits"] else "inverse",
                   help=dec.sentences()["budget"])


def risk_metrics(dec: Decision) -> None:
    """What a membership attacker can do at 1 % and 10 % false alarms, and ε as an interval
    beside the claim."""
    r = dec.risk.iloc[0]
    cols = st.columns(3)
    for col, rate, column in ((cols[0], 1, "tpr_at_1pct"), (cols[1], 10, "tpr_at_10pct")):
        col.metric(f"Caught at {rate} % false alarms", f"at most {100 * r[column]:.1f} %",
                   help="Of the people in the data, the share a membership test that wrongly "
                        f"flags {rate} % of the others can find, at best: the trade-off curve "
                        "of the release's steps, each counted as the worst ε-DP mechanism "
                        "(randomised response).")
    cols[2].metric(f"ε by privacy loss distribution (δ = {r['epsilon_delta']:g})",
                   f"{r['epsilon_point']:.4g}",
                   delta=f"between {r['epsilon_optimistic']:.4g} and "
                         f"{r['epsilon_pessimistic']:.4g}; claimed {r['epsilon']:g}",
                   delta_color="off",
                   help="The point value (connect-the-dots) with the optimistic and "
                        "pessimistic discretisations around it, beside the claimed ε at δ = 0.")


def audit_panel(dec: Decision, draw: Callable[[str], None]) -> None:
    """The audited step's claim, the audited bound and the gap side by side, and the trade-off
    curve with the audit's points (a point above the claim's curve is an error on screen)."""
    a = dec.audit.iloc[0]
    cols = st.columns(3)
    cols[0].metric("Claimed ε", f"{a['claimed_epsilon']:.3g}",
                   help="The ε the audited step of the release claims.")
    cols[1].metric("Audited bound", f"{a['audited_lower_bound']:.2f}",
                   help=f"The audit's lower bound on ε at confidence {a['confidence']:g}: the "
                        "noise is at least this strong.")
    cols[2].metric("Gap", f"{a['gap']:.2f}",
                   help="Claimed − audited: what the audit leaves unverified; negative: the "
                        "audit refutes the claim.")
    draw("tradeoff")
    sentence = dec.tradeoff_sentence()
    if dec.audit_points["above"].any():
        st.error(sentence, icon="🐞")
    else:
        st.caption(sentence)


def synthetic_panel(dec: Decision, draw: Callable[[str], None]) -> None:
    """The masked release's utility report (non-private: it reads the private records)."""
    st.subheader("Masked data: utility report")
    s = dec.synthetic["synthetic_summary"].iloc[0]
    cols = st.columns(4)
    cols[0].metric("pMSE, main-effects logistic (non-private)", f"{s['pmse_nonprivate']:.3g}",
                   delta=f"{s['pmse_ratio_nonprivate']:.3g} × the null", delta_color="off",
                   help="A logistic regression on the features (main effects, no squares) "
                        "trying to tell masked from real records: 0 when it cannot; 'the null' "
                        "is what two samples of one law give.")
    cols[1].metric("Largest correlation difference",
                   f"{s['max_correlation_difference_nonprivate']:.3g}")
    cols[2].metric("Train masked → test real", f"{s['tstr_accuracy_nonprivate']:.3f}",
                   delta=f"train real: {s['trtr_accuracy_nonprivate']:.3f}", delta_color="off")
    cols[3].metric("Majority class", f"{s['majority_accuracy_nonprivate']:.3f}")
    more = st.columns(4)
    more[0].metric("2-way k-marginal (non-private)", f"{s['k_marginal_nonprivate']:.0f}",
                   help="SDNist's score, 0 to 1000: 1000 when every pair of binned columns "
                        "(the label included) has the real distribution.")
    more[1].metric("Records matching a real one (non-private)",
                   f"{s['exact_match_share_nonprivate']:.1%}",
                   help="Masked records equal to a real record in every binned column.")
    left, right = st.columns(2)
    with left:
        draw("marginals")
    with right:
        draw("correlation")
    st.caption("Every number here reads the private records without noise (non-private): a "
               "check for the data owner before publishing, not something to publish.")


def decision_view(dec: Decision) -> None:
    sentences = dec.sentences()
    headline(dec)
    figs = decision_figures(dec.numbers(), release=dec.release.name, epsilon=dec.epsilon)

    def draw(name: str) -> None:
        st.plotly_chart(figs[name], key=FIGURE_KEYS[name])

    left, right = st.columns(2)
    with left:
        st.subheader("What it buys")
        st.markdown(sentences["utility"])
        draw("utility")
    with right:
        st.subheader("What an attacker could show")
        st.markdown(sentences["audit"])
        st.markdown("**Steps of the release that spend ε**\n" + "\n".join(
            f"- {md(row.step)}: ε = {row.epsilon:.3g}, "
            + ("**audited**" if row.audited else "not audited")
            for row in dec.audit_scope.table().itertuples(index=False)))
        draw("audit")
        audit_panel(dec, draw)
    st.dataframe(dec.utility.drop(columns="sd").rename(columns={"non_private": "non-private"}),
                 hide_index=True)
    if dec.synthetic:
        synthetic_panel(dec, draw)
    st.subheader("What it risks, and the budget")
    risk_metrics(dec)
    st.markdown(f"{sentences['risk']} {sentences['budget']}")
    st.subheader("Among published deployments")
    st.markdown(sentences["deployments"])
    draw("deployments")


with show_errors():
    left, right = st.columns(2)
    page = left.selectbox(
        "Which release?", list(RELEASES), key=CHOICE,
        format_func=lambda name: f"{registry_page(name).title}: {RELEASES[name].name}",
        help="The release of that page, at that page's settings as last set in this session "
             "(its defaults if you have not opened it).")
    with right:
        prior = log_slider("Prior belief that a given person is in the data", PRIORS, PRIOR,
                           0.01, help="What an attacker believes before the release.")
    dec = current_decision(page, prior)
    st.caption(f"**{registry_page(page).title}** at ε = {dec.epsilon:g} on "
               f"*{dec.data_title}*: a seeded study, not a release. Change the settings on "
               "that page; they carry over here.")
    decision_view(dec)
    st.subheader("Which data each setting was tuned on")
    tuning_panel(dec.tuning)
    st.download_button(
        "Export report (HTML)", lambda: report_html(dec).encode("utf-8"),
        file_name=f"decision-{page}.html", mime="text/html", key="dc_report",
        on_click="ignore", icon=":material/description:", type="primary",
        help="One self-contained file: figures inline, opens offline, prints cleanly. It holds "
             "the settings, every number with its meaning and the run config, never a "
             "private record.")
