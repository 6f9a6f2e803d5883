"""Data text as literal Markdown (pure: standard library only), for reports that quote user or LLM text."""

from __future__ import annotations

import re

# Inline Markdown syntax (GitHub flavour, math included) and the escape character itself.
_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~$!#])")
_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def escape_markdown(text: object) -> str:
    """``text`` as literal inline Markdown on one line: it cannot close a table cell, start emphasis,
    code, a link or math, or inject HTML; control characters and line breaks become a space."""
    return _SPECIAL.sub(r"\\\1", _LINE_BREAKS.sub(" ", str(text)))
