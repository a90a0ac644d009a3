"""Show which data each choice of a page was tuned on (:mod:`dpcore.decision.tuning`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dpcore.text import md

__all__ = ["tuning_panel"]


def tuning_panel(table: pd.DataFrame) -> None:
    """One line naming each choice with the data it was tuned on and, below it, the table with
    how each was made (a table of :func:`dpcore.decision.tuning.choose_epsilon_tuning` or
    :func:`~dpcore.decision.tuning.release_tuning`)."""
    parts = [f"{md(row.choice)}: **{row.tuned_on}**"
             + ("" if row.status == "free" else f" ({row.status})")
             for row in table.itertuples(index=False)]
    st.caption("**Tuned on** — " + " · ".join(parts))
    with st.expander("Which data each choice was tuned on, and what it costs"):
        shown = table[["choice", "tuned_on", "status", "value", "how"]]
        st.dataframe(shown.rename(columns={"tuned_on": "tuned on", "status": "cost"}),
                     hide_index=True, width="stretch")
        st.caption("A choice tuned on the private data D without noise leaks D through the "
                   "release it shapes, outside the ledger: it is refused. A DP selection on D "
                   "(the subset's size) is charged to the ledger with its release. Choices on "
                   "your inputs, the public set or built-in simulations cost nothing. "
                   "docs/privacy.md, \"Choosing on private data\".")
