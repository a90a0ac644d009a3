"""Entry point: page set-up and navigation only; the pages live in ``pages/`` and are listed in
:func:`ui.navigation.pages`."""

from ui.navigation import route

route()
