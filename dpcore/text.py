"""Escaping of user-supplied strings inside Markdown (scenario descriptions, page text).

Column names, file names and category values come from uploads; rendered raw, ``**bold**`` would
restyle the page and ``$x$`` would turn into LaTeX. :func:`md` backslash-escapes every Markdown
and LaTeX control character and HTML-escapes angle brackets and ampersands.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$:>])")


def md(text: object) -> str:
    """``text`` as a literal inside Markdown.

    >>> md("**bold** _x_ <b>")
    '\\\\*\\\\*bold\\\\*\\\\* \\\\_x\\\\_ &lt;b&gt;'
    """
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;")
    escaped = _SPECIAL.sub(r"\\\1", escaped)
    return escaped.replace("\\>", "&gt;")
