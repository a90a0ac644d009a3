"""Presentation mode: one paper's headline figure at a time, full width, with its takeaway.

Each slide is a preset of :mod:`ui.presentation` (a run config on built-in data): its numbers are
recomputed through the page's run, exactly as the page computes them, and the takeaway is
computed from those numbers. Seeded studies, not releases. Once a slide is shown, the next ones
are computed in the background while a core is idle, so Next opens them at once. Keys: → / Page
Down next, ← / Page Up previous, Escape leaves presentation mode.
"""

import streamlit as st

from dpcore.figures import figures
from dpcore.text import md
from ui.errors import show_errors
from ui.navigation import require_router
from ui.presentation import (
    available,
    compute_ahead,
    enlarge,
    figure_title,
    is_computed,
    pick_figure,
    result,
    return_page,
)
from ui.show import show
from ui.state import keep_widget_state

require_router()

CHOICE = "present_choice"
# The sidebar, the header's bar and its menus go, but not Streamlit's "Running..." sign (the
# status widget, top right): a slide that computes says so. The type grows for a projector.
STYLE = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stToolbarActions"],
[data-testid="stMainMenu"], [data-testid="stAppDeployButton"],
[data-testid="stDecoration"] {display: none !important;}
[data-testid="stHeader"] {background: transparent; pointer-events: none;}
[data-testid="stStatusWidget"] {pointer-events: auto;}
[data-testid="stMainBlockContainer"] {max-width: 100%; padding: 1.2rem 2.5rem 2rem 2.5rem;}
[data-testid="stMain"] h1 {font-size: 2.5rem;}
[data-testid="stMain"] [data-testid="stCaptionContainer"] {font-size: 1.1rem;}
.st-key-present_paper p {font-size: 1.45rem; font-weight: 600;}
.st-key-present_takeaway p {font-size: 1.75rem; line-height: 1.4;}
.st-key-present_position p {font-size: 1.45rem; text-align: center; margin-top: 0.3rem;}
.st-key-present_choice [data-baseweb="select"] {font-size: 1.05rem;}
.st-key-present_keys {display: none;}
</style>
"""
# Page Up / Page Down click the Previous / Next buttons (the arrow keys and Escape are the
# buttons' own shortcuts). Installed once per browser tab; it acts only where the buttons exist.
KEYS = """
<script>
(function () {
  if (window.__presentKeys) { return; }
  window.__presentKeys = true;
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) { return; }
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      return;
    }
    var key = {PageDown: "present_next", PageUp: "present_previous"}[event.key];
    var button = key && document.querySelector(".st-key-" + key + " button");
    if (button && !button.disabled) { event.preventDefault(); button.click(); }
  });
})();
</script>
"""

st.markdown(STYLE, unsafe_allow_html=True)
offered, missing = available()

if not offered:
    st.title("Presentation mode")
    st.info("No page has a run yet, so there is nothing to present.")
    if st.button("Leave presentation mode", key="present_leave", shortcut="Esc"):
        st.switch_page(return_page())
    st.stop()

keys = [preset.key for preset in offered]
by_key = {preset.key: preset for preset in offered}
keep_widget_state({CHOICE: keys[0]})
if st.session_state[CHOICE] not in keys:
    st.session_state[CHOICE] = st.session_state[f"_kept_{CHOICE}"] = keys[0]


def step(delta: int) -> None:
    """Button callback: move ``delta`` slides, staying within the first and the last."""
    i = keys.index(st.session_state[CHOICE])
    st.session_state[CHOICE] = st.session_state[f"_kept_{CHOICE}"] = keys[
        min(max(i + delta, 0), len(keys) - 1)]


position = keys.index(st.session_state[CHOICE])
bar_cols = st.columns([1.1, 5, 0.9, 1.1, 1.6], vertical_alignment="center")
bar_cols[0].button("Previous", key="present_previous", icon=":material/arrow_back:",
                   on_click=step, args=(-1,), shortcut="Left", disabled=position == 0,
                   width="stretch", help="Previous slide (← or Page Up)")
bar_cols[1].selectbox(
    "Preset", keys, key=CHOICE, label_visibility="collapsed",
    format_func=lambda k: f"{keys.index(k) + 1}. {by_key[k].paper}: {by_key[k].title}")
with bar_cols[2].container(key="present_position"):
    st.markdown(f"{position + 1} / {len(keys)}")
bar_cols[3].button("Next", key="present_next", icon=":material/arrow_forward:",
                   icon_position="right", on_click=step, args=(1,), shortcut="Right",
                   disabled=position == len(keys) - 1, width="stretch",
                   help="Next slide (→ or Page Down)")
if bar_cols[4].button("Leave presentation", key="present_leave", icon=":material/close:",
                      shortcut="Esc", width="stretch",
                      help="Back to the page you came from (Escape)"):
    st.switch_page(return_page())

preset = by_key[keys[position]]
# The slide has a heading slot (title and paper), a note slot (what is computing, and its
# progress bar) and a body slot (takeaway, figures, caption). In the browser, a block that
# arrives at a path holding a block of the same type keeps that block's children, and a keyed
# chart it then replaces stays on screen until the run ends; and Streamlit's queue merges deltas
# of one path not yet sent into the last one (under load the browser may get a run's deltas all
# at once). So the body's slot first gets an empty block of another type (a grid: nothing shows,
# the previous slide's figures go), which is never merged away (an add_block), and only then
# does the heading get this slide's title (the previous title above the bar for a moment). The
# grid has no children, so no delta inside the slot can be merged into one of the figures' block
# (which would reach the browser before that block exists). A slide still to compute says so
# and moves its bar as the study advances; a computed one (a visit before, or computed ahead)
# shows a full bar while its figures are drawn.
heading = st.empty()
note = st.empty()
body = st.empty()
with show_errors():
    computed = is_computed(preset)
    with note.container():
        if not computed:
            st.info(f"Computing this slide's study: its figure, {md(preset.title)}, appears "
                    "below when done (a first view takes a while; later visits open at once).",
                    icon=":material/hourglass_top:")
        bar = st.progress(1.0 if computed else 0.0,
                          text=f"{'Drawing' if computed else 'Computing'} {md(preset.paper)}…")
    body.grid(1, key="present_cleared")
    with heading.container():
        st.title(preset.title)
        with st.container(key="present_paper"):
            st.markdown(f"Paper: {md(preset.paper)}")
    if not computed:
        run_result = result(preset, progress=lambda f, *_: bar.progress(
            min(max(float(f), 0.0), 1.0), text=f"Computing {md(preset.paper)}…"))
    else:
        run_result = result(preset)
    picked = pick_figure(figures(run_result), preset)
    height = 640 if len(picked) == 1 else 560
    shown = {name: enlarge(fig, height=height) for name, fig in picked.items()}
    note.empty()
    with body.container(key="present_body"):
        with st.container(key="present_takeaway"):
            st.markdown(md(run_result.takeaway()))
        columns = st.columns(len(shown)) if len(shown) > 1 else [st.container()]
        for column, (name, fig) in zip(columns, shown.items(), strict=True):
            with column:
                show(fig, f"present_{preset.key}_{name}",
                     title=f"{figure_title(preset, name)} ({preset.paper})",
                     context=preset.note if len(shown) == 1 else "")
        st.caption(" ".join(part for part in (preset.note, preset.remark) if part)
                   + " A seeded study of the mechanism (reproducible, run through the "
                   f"{preset.page.replace('_', ' ')} page's computation), not a release: it "
                   "spends no budget.")
# While the presenter talks, the next slides compute (only on a machine with a core idle).
compute_ahead(offered, position)

if missing:
    st.caption("Not offered yet, because their page has no study and figures: "
               + "; ".join(f"{md(p.paper)} ({p.page})" for p in missing) + ".")

with st.container(key="present_keys"):
    st.html(KEYS, unsafe_allow_javascript=True)
