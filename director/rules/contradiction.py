"""Double negations (seed 004 §3 論理矛盾): the ones that reverse the intent, and the litotes that do not.

The seed asks for RETRY on "a double negation whose intent is reversed", its example being 「まだ未成年
じゃない」, and for RETRY and WARN kept clearly apart so that the check is not over-sensitive. The
principle: **a RETRY only where a reading of the line says the opposite of another reading.**

1. **A negative-prefix word** (the first kind): one token (mode C) coded as a noun or adjectival noun,
   of two to 13 characters, starting with one of ``negative_prefixes`` (未, 不, 非, 無), and

   - listed in ``negative_prefix_words`` (無理: Sudachi keeps it whole, but 無理じゃない negates a
     negation), or
   - not listed in ``not_negative_prefix_words`` and split by Sudachi's finer mode A into a 接頭辞 and
     the rest (未成年 = 未 + 成年, 不可能 = 不 + 可能, 非常識 = 非 + 常識).

   So 未来, 不思議, 不安, 無駄 and 非常 (kept whole by mode A: the prefix is no longer felt) are no
   negative-prefix words, and 「不思議じゃない」 is nothing. A negation must start right after the word.

   - **Tag reading → RETRY** (``contradiction``). The colloquial ``tag_negations`` (じゃない, じゃん)
     double as the confirmation tag "…, isn't it?": 「まだ未成年じゃない」 reads both "she is not a minor"
     and "she is a minor, isn't she?". They are read so when they end the sentence, alone or followed
     only by ``tag_endings`` (か, かな, の, ね, よね, でしょ, ですか …): 未成年じゃない, 未成年じゃない？,
     未成年じゃない。, 未成年じゃないよね, 未成年じゃないの？, 未成年じゃん！ are all RETRY. Any negation
     (ではない, ではありません …) followed by ``question_endings`` (か, ですか, ？ …) that end the sentence
     is a confirmation question too: 「不可能ではないですか？」 asks "isn't it impossible?".
   - **Plain reading → WARN** (``litotes``). The same word followed by a negation nobody reads as a
     tag: ``negations`` that do not end the sentence as above (無理じゃないよ！, 無理じゃないし,
     無理じゃないけど, 未成年じゃないかも, 未成年じゃないのに) or are plain by their form (無関係では
     ありません。, 不可能ではないですね。). "Not impossible" means "possible, with reserve": nothing is
     reversed, but the line says it the long way round.

   A sentence ends at 。, ！, ？, a line break or the end of the text; ``…``, ``〜`` and ``ー`` before it
   are skipped (未成年じゃない…). Evidence: the word and its negation (未成年じゃない).
2. **A negated negation** from ``double_negations`` (なくもない, ないことはない, ないでもない …) that
   starts where a token starts: 「行かなくもない」 counts, 「少なくもない」 (少ない is not a negation)
   and 「ないです」 do not. It is a hedged "yes" (I might go), never a reversal: a ``litotes`` WARN.

``Contradictions.find`` returns ``(reversals, litotes)``: two lists of ``(start, end)`` spans of the text.
"""

from __future__ import annotations

import re

from director.rules.analyser import ADJECTIVAL_NOUN, NOUN, NOUN_ADVERBIAL, Analyser, Tokens
from director.rules.patterns import NEVER, alternation

_WORD_CODES = frozenset({NOUN, NOUN_ADVERBIAL, ADJECTIVAL_NOUN})
# Where a sentence ends: trailing ellipses, waves and long marks, then a terminator or the end of the text.
_SENTENCE_END = r"[…‥〜～ー]*(?:[。！？\n]|\Z)"


class Contradictions:
    """The compiled ``contradiction`` section of a rule set."""

    def __init__(self, section: dict) -> None:
        self.prefixes = alternation(section["negative_prefixes"])
        negations = [*section["tag_negations"], *section["negations"]]
        self.negation = alternation(negations)
        # A cheap first look for kind 1: a prefix, at most 12 more characters of the word, a negation.
        self.candidate = (
            re.compile(f"(?:{self.prefixes.pattern})\\S{{1,12}}?(?:{self.negation.pattern})")
            if section["negative_prefixes"] and negations
            else NEVER
        )
        self.words = frozenset(section["negative_prefix_words"])
        self.not_words = frozenset(section["not_negative_prefix_words"])
        self.tag = _ending(section["tag_negations"], section["tag_endings"], "*")
        self.question = _ending(negations, section["question_endings"], "+")
        self.double_negation = alternation(section["double_negations"])

    def find(self, text: str, tokens: Tokens, analyser: Analyser) -> tuple[list, list]:
        """``(reversals, litotes)``: the spans of ``text`` holding each kind (module docstring), in order."""
        reversals, litotes = [], []
        if self.candidate.search(text) is not None:
            for match in self.prefixes.finditer(text):
                found = self._prefixed_negation(text, match.start(), tokens, analyser)
                if found is not None:
                    (reversals if found[0] else litotes).append(found[1])
        if self.double_negation.search(text) is not None:
            for match in self.double_negation.finditer(text):
                if tokens.index_at(match.start()) is not None:
                    litotes.append(match.span())
        return sorted(reversals), sorted(litotes)

    def _prefixed_negation(
        self, text: str, position: int, tokens: Tokens, analyser: Analyser
    ) -> tuple[bool, tuple[int, int]] | None:
        """``(reads as a tag, span)`` of the negative-prefix word at ``position`` and its negation, or None."""
        index = tokens.index_at(position)
        if index is None or tokens.codes[index] not in _WORD_CODES:
            return None
        word = tokens.surface(index)
        if not 2 <= len(word) <= 13 or word in self.not_words:
            return None
        if word not in self.words and not analyser.starts_with_prefix(tokens, index):
            return None
        end = tokens.end(index)
        tag = self.tag.match(text, end) or self.question.match(text, end)
        if tag is not None:
            return True, (position, end + len(tag.group(1)))
        negation = self.negation.match(text, end)
        if negation is None:
            return None
        return False, (position, negation.end())


def _ending(negations: list[str], endings: list[str], repeat: str) -> re.Pattern:
    """``(negation)`` followed by ``endings`` (``*``: any number, ``+``: at least one) ending the sentence.

    With ``+``, an ending that is itself a terminator (？) ends the sentence whatever follows it.
    """
    if not negations or (repeat == "+" and not endings):
        return NEVER
    endings_pattern = f"(?:{alternation(endings).pattern}){repeat}" if endings else ""
    end = f"(?:(?<=[。！？])|{_SENTENCE_END})"
    return re.compile(f"({alternation(negations).pattern}){endings_pattern}{end}")
