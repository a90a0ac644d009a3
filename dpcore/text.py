"""Escaping of user-supplied strings inside Markdown (scenario descriptions, page text).

Column names, file names and category values come from uploads; rendered raw, ``**bold**`` would
restyle the page and ``$x$`` would turn into LaTeX. :func:`md` backslash-escapes every Markdown
and LaTeX control character and HTML-escapes angle brackets and ampersands.
"""

from __future__ import annotations

import re

import pandas as pd

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~$:>])")


def md(text: object) -> str:
    """``text`` as a literal inside Markdown.

    >>> md("**bold** _x_ <b>")
    '\\\\*\\\\*bold\\\\*\\\\* \\\\_x\\\\_ &lt;b&gt;'
    """
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;")
    escaped = _SPECIAL.sub(r"\\\1", escaped)
    return escaped.replace("\\>", "&gt;")


_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as CSV bytes that a spreadsheet opens as data, never as formulas.

    Text cells that start with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (an
    uploaded ``=cmd|' /C calc'!A0``) get a leading apostrophe, the OWASP advice against CSV
    injection; numbers are left as they are.

    >>> csv_bytes(pd.DataFrame({"a": ["=1+1", "x"], "b": [-1.5, 2.0]})).decode().splitlines()
    ['a,b', "'=1+1,-1.5", 'x,2.0']
    """
    safe = frame.copy()
    for column in safe.columns:
        values = safe[column]
        if values.dtype == object or pd.api.types.is_string_dtype(values):
            text = values.astype("string")
            risky = text.str.startswith(_FORMULA, na=False)
            safe[column] = text.where(~risky, "'" + text)
    return safe.to_csv(index=False).encode()
