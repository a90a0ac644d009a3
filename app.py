"""Entry point: page set-up and navigation only; the pages live in ``pages/`` and are listed in
:func:`ui.navigation.pages`.

This file is read twice, on purpose:

* **Each session runs it as its script** (``__name__ == "__main__"``, as in AppTest):
  ``ui.preload`` comes first (every module of the app, in one order, so that sessions starting
  together cannot deadlock on imports; a no-op once the server has imported them), then the
  router.
* **``streamlit run app.py`` imports it once to serve it**: Streamlit finds ``app`` below, a
  :class:`streamlit.App` whose script is this file, and runs its ``lifespan`` when the server
  starts (:func:`ui.warm.lifespan`): the app's modules are imported before the first visitor,
  and the class pages are prepared in the background while a core is idle
  (``EXPLORER_PREPARE=0`` turns that off; ``docs/class.md``).
"""

import streamlit as st

if __name__ == "__main__":
    import ui.preload  # noqa: F401  (imported for its effect: every module, in one order)
    from ui.navigation import route

    route()
else:
    from ui.warm import lifespan

    app = st.App(__file__, lifespan=lifespan)
