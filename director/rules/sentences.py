"""Sentences and lines of a normalised utterance (seed 004 §6.1, §3 出力形式).

A sentence ends after a run of ``。``, ``！`` and ``？`` (``本当！？`` ends once), and at a line break
that no terminator precedes. Terminators inside a quoted region (``「すごい！」と言った。``) do not end
the enclosing sentence: the quote is part of it. Line breaks always end a sentence, quoted or not.
The text after the last end counts as a sentence when it is not empty. A stretch holding nothing but
whitespace and terminators is no sentence.

The sentences are read from the quote view of the text (``Quotes.view``: quoted characters hidden,
line breaks kept), where quoted terminators are no terminators; a span runs from the sentence's first
character (spaces before it included) to its last terminator, never over a line break.

Lines are the lines of the text that hold something other than whitespace; after normalisation there
are no blank lines left, but the count does not rely on it.
"""

from __future__ import annotations

import re

# Spaces, something that is neither space nor terminator, the rest of the line up to the terminators.
_SENTENCE = re.compile(r"[^\S\n]*[^。！？\s][^。！？\n]*[。！？]*")


def sentence_spans(view: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of the text whose quote view is ``view``, terminators included."""
    return [match.span() for match in _SENTENCE.finditer(view)]


def line_spans(text: str, at_least: int = 0) -> list[tuple[int, int]]:
    """``(start, end)`` of each line of ``text`` that is not blank, without its line break.

    With ``at_least``, a text of fewer lines (blank or not) returns ``[]`` at once: the caller only
    needs the lines of a long text.
    """
    if text.count("\n") + 1 < at_least:
        return []
    spans = []
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        if line.strip():
            spans.append((start, end))
        start = end + 1
    return spans


def sentence_of(spans: list[tuple[int, int]], position: int) -> tuple[int, int]:
    """The sentence span holding ``position``; a position between sentences belongs to none: (p, p)."""
    for start, end in spans:
        if start <= position < end:
            return start, end
    return position, position
