"""The tone score (seed 004 §4): ``marker_hit + vocab_hit + style_hit`` on the normalised text, quotes left out.

Each hit is 0 or 1, judged on the view of the text in which quoted characters are hidden (``quotes``):

- ``marker``: one of the character's §4.2 endings occurs anywhere (わ！, よね, でしょう …);
- ``vocab``: one of its §4.3 words occurs anywhere (ほんと, つまり, ね。 …);
- ``style``, by the character's §4.4 style kind:
  ``short_exclaiming``: the utterance has at most ``max_sentences`` sentences (all sentences, quoted
  text is part of its sentence) and one of ``marks`` occurs outside quotes;
  ``polite_endings``: at least ``min_count`` sentences end in one of ``endings``, optionally followed
  by one of ``followers`` (です。, ましたね。, ますよ followed by a line break or the end of the text).

``Tone.to_dict()`` is ``{"marker": 0|1, "vocab": 0|1, "style": 0|1, "score": 0-3, "matched": {"marker":
[endings found], "vocab": [words found], "style": "..."}}``, the lists in the character file's order and
``style`` the evidence of the style hit: the marks found (``"！？"``) or the polite endings found in order
(``"です/ました"``), ``""`` without a hit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from director.rules.characters import Character
from director.rules.patterns import alternation


@dataclass(slots=True)
class Tone:
    marker: int
    vocab: int
    style: int
    matched_marker: list[str]
    matched_vocab: list[str]
    matched_style: str

    @property
    def score(self) -> int:
        return self.marker + self.vocab + self.style

    def to_dict(self) -> dict:
        return {
            "marker": self.marker,
            "vocab": self.vocab,
            "style": self.style,
            "score": self.marker + self.vocab + self.style,
            "matched": {
                "marker": list(self.matched_marker),
                "vocab": list(self.matched_vocab),
                "style": self.matched_style,
            },
        }


class ToneProfile:
    """A character's markers and compiled style rule."""

    def __init__(self, character: Character) -> None:
        self.endings = character.endings
        self.vocabulary = character.vocabulary
        style = character.style
        self.exclaiming = style.kind == "short_exclaiming"
        self.max_sentences = style.max_sentences
        self.marks = style.marks
        self.min_count = style.min_count
        if not self.exclaiming:
            followers = f"(?:{alternation(style.followers).pattern})?" if style.followers else ""
            self.polite = re.compile(f"({alternation(style.endings).pattern}){followers}(?=[。！？\\s]|\\Z)")

    def score(self, view: str, sentence_count: int) -> Tone:
        """The tone of the quote-hidden ``view`` of an utterance of ``sentence_count`` sentences."""
        markers = [marker for marker in self.endings if marker in view]
        words = [word for word in self.vocabulary if word in view]
        if self.exclaiming:
            short = sentence_count <= self.max_sentences
            matched_style = "".join([mark for mark in self.marks if mark in view]) if short else ""
            style = 1 if matched_style else 0
        else:
            found = self.polite.findall(view)
            style = 1 if len(found) >= self.min_count else 0
            matched_style = "/".join(found) if style else ""
        return Tone(1 if markers else 0, 1 if words else 0, style, markers, words, matched_style)

    def evidence(self, view: str, tone: Tone) -> list[tuple[int, int]]:
        """The first occurrence of each matched ending and word, in text order."""
        spans = []
        for marker in (*tone.matched_marker, *tone.matched_vocab):
            start = view.find(marker)
            spans.append((start, start + len(marker)))
        return sorted(set(spans))
