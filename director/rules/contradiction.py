"""Double negations that reverse the intent (seed 004 §3 論理矛盾), from the text and its analysis.

Two kinds, each list in the rule set's ``contradiction`` section:

1. A negative-prefix word directly followed by a negation: 「まだ未成年じゃない」, 「不可能ではない」,
   「非常識じゃありません」. The word is one token (mode C) coded as a noun or adjectival noun, of two
   to 13 characters, starting with one of ``negative_prefixes`` (未, 不, 非, 無), and

   - listed in ``negative_prefix_words`` (無理: Sudachi keeps it whole, but 無理じゃない negates a
     negation), or
   - not listed in ``not_negative_prefix_words`` and split by Sudachi's finer mode A into a 接頭辞 and
     the rest (未成年 = 未 + 成年, 不可能 = 不 + 可能, 非常識 = 非 + 常識).

   So 未来, 不思議, 不安, 無駄 and 非常 (kept whole by mode A: the prefix is no longer felt) are no
   negative-prefix words, and 「不思議じゃない」 passes. The negation must start right after the word
   (``negations``); 「無理しないで」 has none. A negation followed by one of ``question_endings`` that
   ends the sentence (未成年じゃない？, 未成年じゃないか。, 未成年じゃないですか) is a confirmation question
   that affirms: it passes. 「未成年じゃないかも」 is no question.
2. A negated negation from ``double_negations`` (なくもない, ないことはない, ないでもない …) that
   starts where a token starts: 「行かなくもない」 counts, 「少なくもない」 (少ない is not a negation)
   and 「ないです」 do not.

Each expression found is a ``(start, end)`` span of the text: the word and its negation, or the pattern.
"""

from __future__ import annotations

import re

from director.rules.analyser import ADJECTIVAL_NOUN, NOUN, NOUN_ADVERBIAL, Analyser, Tokens
from director.rules.patterns import NEVER, alternation

_WORD_CODES = frozenset({NOUN, NOUN_ADVERBIAL, ADJECTIVAL_NOUN})


class Contradictions:
    """The compiled ``contradiction`` section of a rule set."""

    def __init__(self, section: dict) -> None:
        self.prefixes = alternation(section["negative_prefixes"])
        self.negation = alternation(section["negations"])
        # A cheap first look for kind 1: a prefix, at most 12 more characters of the word, a negation.
        self.candidate = (
            re.compile(f"(?:{self.prefixes.pattern})\\S{{1,12}}?(?:{self.negation.pattern})")
            if section["negative_prefixes"] and section["negations"]
            else NEVER
        )
        self.words = frozenset(section["negative_prefix_words"])
        self.not_words = frozenset(section["not_negative_prefix_words"])
        # A question ending that ends a sentence: itself a terminator (？), or followed by one (か。), or last.
        self.question = (
            re.compile(f"(?:{alternation(section['question_endings']).pattern})(?:(?<=[。！？])|(?=[。！？\\n]|\\Z))")
            if section["question_endings"]
            else NEVER
        )
        self.double_negation = alternation(section["double_negations"])

    def find(self, text: str, tokens: Tokens, analyser: Analyser) -> list[tuple[int, int]]:
        """The spans of ``text`` holding a double negation, in order."""
        spans = []
        if self.candidate.search(text) is not None:
            for match in self.prefixes.finditer(text):
                span = self._prefixed_negation(text, match.start(), tokens, analyser)
                if span is not None:
                    spans.append(span)
        if self.double_negation.search(text) is not None:
            for match in self.double_negation.finditer(text):
                if tokens.index_at(match.start()) is not None:
                    spans.append(match.span())
        return sorted(spans)

    def _prefixed_negation(
        self, text: str, position: int, tokens: Tokens, analyser: Analyser
    ) -> tuple[int, int] | None:
        index = tokens.index_at(position)
        if index is None or tokens.codes[index] not in _WORD_CODES:
            return None
        word = tokens.surface(index)
        if not 2 <= len(word) <= 13 or word in self.not_words:
            return None
        if word not in self.words and not analyser.starts_with_prefix(tokens, index):
            return None
        negation = self.negation.match(text, tokens.end(index))
        if negation is None:
            return None
        if self.question.match(text, negation.end()) is not None:
            return None
        return position, negation.end()
