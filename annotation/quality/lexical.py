"""Lexical measures of a response for the consistency rules (pure Python): its content characters,
the moving-average type-token ratio of their bigrams, and the text left without mechanical markers."""

from __future__ import annotations

import unicodedata
from collections import Counter

from annotation.guidelines import loader as gd

MATTR_WINDOW = 50  # bigrams per window of the moving average


def content_characters(text: str) -> str:
    """The characters that carry content: no whitespace, punctuation or symbols (Unicode P*, S*, Z*, C*)."""
    return "".join(ch for ch in text if unicodedata.category(ch)[0] in "LN")


def bigram_mattr(text: str, window: int = MATTR_WINDOW) -> float:
    """Moving-average type-token ratio of the character bigrams of ``text`` (plain TTR when shorter)."""
    bigrams = [text[i : i + 2] for i in range(len(text) - 1)]
    if not bigrams:
        return 0.0
    if len(bigrams) <= window:
        return len(set(bigrams)) / len(bigrams)
    counts = Counter(bigrams[:window])
    distinct = len(counts)  # summed over all windows
    for i in range(window, len(bigrams)):
        counts[bigrams[i]] += 1
        old = bigrams[i - window]
        counts[old] -= 1
        if counts[old] == 0:
            del counts[old]
        distinct += len(counts)
    return distinct / window / (len(bigrams) - window + 1)


def non_formulaic_text(response: str) -> str:
    """The response without its mechanical (formula/meta) marker occurrences, as content characters."""
    norm = gd.normalize(response)
    spans = gd.find_marker_spans(norm, "mechanical")
    pieces, pos = [], 0
    for span in spans:
        pieces.append(norm[pos : span.start])
        pos = span.end
    pieces.append(norm[pos:])
    return content_characters(" ".join(pieces))
