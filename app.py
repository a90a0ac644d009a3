"""Entry point: page set-up and navigation only; every page lives in ``pages/``.

Only pages that work are listed. To add one, add a single ``st.Page`` line to its section.
"""

import streamlit as st

st.set_page_config(
    page_title="Privacy/utility explorer", page_icon=":material/lock:", layout="wide"
)

PAGES = {
    "Start": [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    ],
    "Publishing with a public set": [
        st.Page("pages/importance.py", title="Importance weighting", icon=":material/balance:"),
    ],
}

st.navigation(PAGES).run()
