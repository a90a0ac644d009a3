"""Entry point: page set-up and navigation only; every page lives in ``pages/``.

Only pages that work are listed. To add one, add a single ``st.Page`` line to its section.
"""

import streamlit as st

from ui.state import hold_widget_state

st.set_page_config(
    page_title="Privacy/utility explorer", page_icon=":material/lock:", layout="wide"
)
hold_widget_state()

PAGES = {
    "Start": [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    ],
    "Publishing with a public set": [
        st.Page("pages/importance.py", title="Importance weighting", icon=":material/balance:"),
        st.Page("pages/subset.py", title="Optimal public subset", icon=":material/filter_list:"),
    ],
    "Private models": [
        st.Page("pages/perturbation.py", title="Private logistic regression",
                icon=":material/tune:"),
        st.Page("pages/masking.py", title="Data masking", icon=":material/masks:"),
    ],
    "Trust": [st.Page("pages/audit.py", title="Privacy audit", icon=":material/fact_check:")],
    "Deciding": [st.Page("pages/choose_epsilon.py", title="Choose epsilon", icon=":material/key:")],
}

st.navigation(PAGES).run()
