"""Home: what the explorer is for, and a look at the chosen scenario's public and private sets."""

import streamlit as st

from dpcore.figures.home import TITLES, figures
from dpcore.queries import default_condition, raw_indicator
from dpcore.studies import home as study
from dpcore.text import md
from ui.budget import budget_sidebar
from ui.cache import is_builtin
from ui.errors import show_errors
from ui.export import export_panel
from ui.leaks import leak_warnings
from ui.navigation import require_router
from ui.show import show
from ui.sidebar import ask_for_scenario, current_upload_report, scenario_sidebar
from ui.study import numbers

require_router()

PREVIEW_ROWS = 50

scenario = scenario_sidebar()
budget_sidebar()
export_panel("home")

st.title("Privacy/utility explorer")
st.markdown(
    """
Publishing data about people with **differential privacy** means adding random noise, so that no
one can tell whether any single person's record was used. The noise has a price: counts,
averages and models computed from the release are less accurate. This explorer shows that
trade-off on real data, and how much a **public** dataset (people who agreed to share, or an
older survey) can win back.

* **Analysts**: upload your own data in the sidebar and see what privacy costs before you publish.
* **Teachers**: switch scenarios live; every table and chart follows.
* **Stakeholders**: see what a privacy budget buys before you pick one.

In every scenario, **D** is the private set that must be protected and **E** is a public set that
needs no protection but may come from a different population.
"""
)


with show_errors():
    if scenario is None:
        ask_for_scenario("Choose a built-in scenario or upload data in the sidebar to begin.")
        st.stop()

    st.header(scenario.title if is_builtin(scenario) else md(scenario.title))
    lead, _, details = scenario.description.partition("\n\n")
    st.markdown(lead)
    if details:
        with st.expander("How D and E were made: split, encoding, source and licence"):
            st.markdown(details)
    report = current_upload_report()
    if report is not None:
        # What was read from a private file that looks wrong, where the owner sees it: counts
        # of D without noise, for the owner only (they change nothing that is released).
        for note in report.private_reading:
            st.warning(md(note), icon=":material/visibility_lock:")
        with st.expander("How your files were read",
                         expanded=bool(report.notes or report.private_notes)):
            st.markdown("\n".join(f"- {md(note)}" for note in report.notes)
                        or "Nothing was dropped.")
            if report.private_notes:
                st.markdown("**For the data owner only (non-private: counts from the private "
                            "file, without noise; do not publish):**")
                st.markdown("\n".join(f"- {md(note)}" for note in report.private_notes))
            st.dataframe(report.columns, hide_index=True)
        leak_warnings(report, st.session_state.get("upload_target"))

    params = study.Params()
    tables = numbers(study, scenario, st.session_state["scenario_id"], params,
                     text="Summarising the two sets…")
    st.subheader("Summary")
    st.dataframe(
        tables["summary"].set_index("set"),
        width="content",
        column_config={
            "records": st.column_config.NumberColumn(format="localized"),
            "target rate": st.column_config.NumberColumn(format="percent"),
        },
    )
    holds = raw_indicator(scenario, default_condition(scenario)) if scenario.target else None
    target = f" and how often the target holds, {md(holds)}" if holds is not None else ""
    st.caption(
        f"How many records each set has, how many encoded features{target}. D's numbers are "
        "shown for comparison only; they are not a private release."
    )

    st.subheader("How the two sets differ")
    means = tables["feature_means"].set_index("feature")
    shown = min(study.TOP_FEATURES, len(means))
    show(figures(tables, params)["feature_means"], "home_feature_means",
         title=TITLES["feature_means"],
         alt=f"Bar chart of the averages of the {shown} features that differ most between E "
             "and D.")
    aside = " (the target aside)" if scenario.target else ""
    st.caption(
        f"The {shown} of {len(means)} feature{'s' if len(means) != 1 else ''}{aside} whose "
        "averages differ most between E and D. The longer the gap, the worse E stands in for D "
        "without correction."
    )
    with st.expander("All feature averages"):
        st.dataframe(means)

    st.subheader("Preview")
    tab_public, tab_private = st.tabs(["Public E", "Private D (non-private reference)"])
    with tab_public:
        st.dataframe(scenario.public.head(PREVIEW_ROWS))
    with tab_private:
        st.dataframe(scenario.private.head(PREVIEW_ROWS))
    st.caption(
        f"The first {PREVIEW_ROWS} encoded records of each set; every feature is scaled to [0, 1]."
    )
