"""Quotes and brackets (seed 004 §2.1, §8): what the tone and praise checks leave out.

Bracket pairs: 「」, 『』 and round brackets, where full-width （） and ASCII () are one kind, so
``（笑)`` closes. Scanning left to right, an opening bracket is pushed; a closing bracket closes the
nearest open bracket of its kind, and any brackets opened after that one are left unclosed. A closing
bracket with no open bracket of its kind is unmatched.

- Every closed pair is a quoted region, from its opening to its closing bracket inclusive; nested
  pairs fall inside their outer region (``「彼が『すごい』と」`` is one region).
- An unclosed or unmatched bracket excludes nothing and is reported (the ``bracket`` WARN): the text
  after a stray 「 is judged like any other text.
- Script format (§8): when the whole utterance is one closed 「…」 pair, it is a line written as a
  script, not a quote; ``is_script`` says so and the checks judge its inside.
"""

from __future__ import annotations

import re

_OPENING = {"「": "「", "『": "『", "（": "(", "(": "("}
_CLOSING = {"」": "「", "』": "『", "）": "(", ")": "("}
_BRACKETS = re.compile(r"[「」『』（）()]")
_HIDDEN = "\x00"  # stands in for a quoted character in the view; no marker or word contains it


class Quotes:
    """The quoted regions of a text (merged, in order) and the offsets of its unbalanced brackets."""

    __slots__ = ("regions", "unbalanced")

    def __init__(self, regions: list[tuple[int, int]], unbalanced: list[int]) -> None:
        self.regions = regions
        self.unbalanced = unbalanced

    def view(self, text: str) -> str:
        """``text`` with every quoted character but line breaks replaced by NUL: same length, same offsets."""
        if not self.regions:
            return text
        pieces = []
        position = 0
        for start, end in self.regions:
            pieces.append(text[position:start])
            pieces.append("\n".join(_HIDDEN * len(part) for part in text[start:end].split("\n")))
            position = end
        pieces.append(text[position:])
        return "".join(pieces)


_NO_QUOTES = Quotes([], [])


def find_quotes(text: str) -> Quotes:
    """The quoted regions and unbalanced brackets of ``text`` (see the module docstring)."""
    if _BRACKETS.search(text) is None:
        return _NO_QUOTES
    stack: list[tuple[str, int]] = []
    pairs: list[tuple[int, int]] = []
    unbalanced: list[int] = []
    for match in _BRACKETS.finditer(text):
        bracket = match.group()
        position = match.start()
        kind = _OPENING.get(bracket)
        if kind is not None:
            stack.append((kind, position))
            continue
        kind = _CLOSING[bracket]
        depth = len(stack) - 1
        while depth >= 0 and stack[depth][0] != kind:
            depth -= 1
        if depth < 0:
            unbalanced.append(position)
            continue
        unbalanced.extend(opened for _, opened in stack[depth + 1 :])
        pairs.append((stack[depth][1], position + 1))
        del stack[depth:]
    unbalanced.extend(opened for _, opened in stack)
    unbalanced.sort()
    return Quotes(_merge(pairs), unbalanced)


def _merge(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    regions: list[tuple[int, int]] = []
    for start, end in sorted(pairs):
        if regions and start < regions[-1][1]:
            if end > regions[-1][1]:
                regions[-1] = (regions[-1][0], end)
        else:
            regions.append((start, end))
    return regions


def is_script(text: str, quotes: Quotes) -> bool:
    """Whether ``text`` is one 「…」 from its first to its last character (§8 台本形式)."""
    return (
        len(quotes.regions) == 1
        and quotes.regions[0] == (0, len(text))
        and text[0] == "「"
        and text[-1] == "」"
        and 0 not in quotes.unbalanced
    )
