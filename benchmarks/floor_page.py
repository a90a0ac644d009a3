"""The floor: the fastest redraw a one-figure Streamlit page gets on this machine.

One select slider in the sidebar and one Plotly box plot of 8 boxes x 100 points that depends on
the slider's value (seeded), nothing else. ``benchmarks/bench_browser.py`` runs it with
``streamlit run benchmarks/floor_page.py`` and measures a slider move on it side by side with the
app's pages: the ratio of a page's redraw time to this page's is the number the issue's goal is
stated in (an epsilon move within 1.5x of the floor, a lambda move within 3x).

The page sets the app's wide layout so that both draw a figure of the same width.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

VALUES = (0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
BOXES, POINTS = 8, 100
LABEL = "Floor value"

st.set_page_config(page_title="Floor", layout="wide")
# ``?floor_value=0.01`` starts the slider at another value (the fresh benchmark starts at the
# first one, as it does the app's pages).
start = float(st.query_params.get("floor_value", 0.1))
value = st.sidebar.select_slider(LABEL, VALUES, value=start if start in VALUES else 0.1,
                                 key="floor_value")
# One seed per slider position: the same value always draws the same figure.
rng = np.random.default_rng(VALUES.index(value))
samples = rng.normal(loc=value, scale=1.0, size=(BOXES, POINTS))
fig = go.Figure([go.Box(y=row, name=f"box {i + 1}", boxpoints="outliers", showlegend=False)
                 for i, row in enumerate(samples)])
fig.update_layout(title=f"{BOXES} x {POINTS} points at value {value:g}", height=450)
st.plotly_chart(fig, key="floor_figure")
