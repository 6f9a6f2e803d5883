"""Word lists compiled to one regular expression each."""

from __future__ import annotations

import re
from collections.abc import Iterable

NEVER = re.compile(r"(?!)")


def alternation(words: Iterable[str]) -> re.Pattern:
    """A pattern matching any of ``words``, the longest first (じゃありません before じゃ); ``NEVER`` for none."""
    words = sorted(set(words), key=len, reverse=True)
    if not words:
        return NEVER
    # The lookahead on the first characters lets the engine skip most positions at once.
    firsts = "".join(sorted({re.escape(word[0]) for word in words}))
    return re.compile(f"(?=[{firsts}])(?:" + "|".join(re.escape(word) for word in words) + ")")
