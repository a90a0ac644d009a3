"""Entry point: page set-up and navigation only; the pages live in ``pages/`` and are listed in
:func:`ui.navigation.pages`.

This file is read twice, on purpose:

* **Each session runs it as its script** (``__name__ == "__main__"``, as in AppTest): the
  router. Sessions that start together import the app's modules at once, in any order: the
  import graph has no circle (``tests/test_layout.py``, ``tests/test_import_threads.py``).
* **``streamlit run app.py`` imports it once to serve it**: Streamlit finds ``app`` below, a
  :class:`streamlit.App` whose script is this file, and runs its ``lifespan`` when the server
  starts (:func:`ui.warm.lifespan`): the third-party libraries and the router are imported
  before the first visitor, and the class pages are prepared in the background while a core is
  idle (``EXPLORER_PREPARE=0`` turns that off; ``docs/class.md``).
"""

import streamlit as st

if __name__ == "__main__":
    from ui.navigation import route

    route()
else:
    from ui.warm import lifespan

    app = st.App(__file__, lifespan=lifespan)
