"""Entry point: page set-up and navigation only; the pages live in ``pages/`` and are listed in
:func:`ui.navigation.pages`.

``ui.preload`` comes first: it imports every module of the app in one order before any page
runs, so that sessions starting together on a fresh server cannot deadlock on imports.
"""

import ui.preload  # noqa: F401  (imported for its effect: every module, in one order)
from ui.navigation import route

route()
