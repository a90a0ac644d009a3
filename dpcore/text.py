"""Text shown to people: escaping of user-supplied strings inside Markdown (scenario
descriptions, page text), spreadsheet-safe CSV, and cell values written as a person writes them.

Column names, file names and category values come from uploads; rendered raw, ``**bold**`` would
restyle the page and ``$x$`` would turn into LaTeX. :func:`md` backslash-escapes every Markdown
and LaTeX control character and HTML-escapes angle brackets and ampersands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
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


def plain_value(value: Any, fraction: Callable[[float], str] = repr) -> str:
    """A cell value as a person writes it: a bool as ``True``, an integer or a whole float as
    ``5``, any other float by ``fraction``, anything else by ``str``.

    ``repr`` (the default) keeps every digit of a fraction, as a label must; ``"{:g}".format`` is
    short, for a message.

    >>> [plain_value(v) for v in (np.float64(5.0), np.int64(2), 0.1, np.bool_(True), "x")]
    ['5', '2', '0.1', 'True', 'x']
    >>> plain_value(2 / 3, "{:g}".format)
    '0.666667'
    """
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        number = float(value)
        return str(int(number)) if number.is_integer() else fraction(number)
    return str(value)
