"""Double negations (seed 004 §3 論理矛盾): the ones that reverse the intent, and the litotes that do not.

The seed asks for RETRY on "a double negation whose intent is reversed", its example being 「まだ未成年
じゃない」, and for RETRY and WARN kept clearly apart so that the check is not over-sensitive. The
principle: **a RETRY only where a reading of the line says the opposite of another reading.** Both kinds
are read on Sudachi's morphemes (``director.rules.negation``), so spelling does not matter: 未成年,
みせいねん and ミセイネン, ない and 無い, こと, 事 and コト, わけ and 訳 are one.

1. **A negative-prefix word** (the first kind) followed by the negation of a noun (じゃない, ではない,
   でもない, ではありません, じゃなかった, じゃん …). The word is recognised by its morphemes, not by a
   list: a noun or adjectival noun (with any noun suffixes after it: 未開店) that is

   - one of ``negative_prefixes`` (未, 不, 非, 無) as its own 接頭辞 morpheme and a noun after it
     (非 + 現実的), or
   - one morpheme starting with such a prefix that the dictionary analyses as the prefix + a noun,
     adjectival noun or noun suffix (``Analyser.starts_with_prefix``: 未成年, 不可能, 無料, 不便, 無休),
     or is listed in ``negative_prefix_words``; or
   - written in kana and read as such a word (みせいねん, ミセイネン: ``Analyser.kana_prefixed_word``);

   and not one of ``not_negative_prefix_words`` (by normalized form): the words where the prefix is no
   longer felt (未来, 不思議, 不安, 無駄, 非常 …). So 「不思議じゃない」 is nothing.

   - **Tag reading → RETRY** (``contradiction``). The colloquial じゃない (じゃ無い, じゃねえ), じゃん and
     じゃね double as the confirmation tag "…, isn't it?": 「まだ未成年じゃない」 reads both "she is not
     a minor" and "she is a minor, isn't she?". They are read so when they end the sentence, alone or
     followed only by ``tag_endings`` (か, かな, の, ね, よね, でしょ, ですか …): 未成年じゃない,
     未成年じゃない？, 未成年じゃないよね, 未成年じゃないの？, 未成年じゃん！ are all RETRY. Any negation
     (ではない, ではありません …) followed by ``question_endings`` (か, ですか, ？ …) that end the sentence
     is a confirmation question too: 「不可能ではないですか？」 asks "isn't it impossible?".
   - **Plain reading → WARN** (``litotes``). The same word followed by a negation nobody reads as a
     tag: a negation not ending the sentence as above (無理じゃないよ！, 無理じゃないし, 未成年じゃないかも,
     未成年じゃないのに) or plain by its form (無関係ではありません。, 不可能ではないですね。). "Not
     impossible" means "possible, with reserve": nothing is reversed, but the line says it the long way.

   A sentence ends at 。, ！, ？, a line break or the end of the text; ``…``, ``〜`` and ``ー`` before it
   are skipped (未成年じゃない…). Evidence: the word and its negation (未成年じゃない).
2. **A negated negation** (なくもない, ないことはない, ないでもない, ないわけではない, ないものでもない,
   ないとは限らない, ないとは言い切れない …: the grammar in ``director.rules.negation``, with
   ``formal_nouns`` and ``hedge_verbs`` from the rule set). 「少なくもない」 (少ない is not a negation) and
   「ないです」 are not. It is a hedged "yes" (I might go), never a reversal: a ``litotes`` WARN.

``Contradictions.find`` returns ``(reversals, litotes)``: two lists of ``(start, end)`` spans of the text.
"""

from __future__ import annotations

import re

from director.rules.analyser import ADJECTIVAL_NOUN, NOUN, NOUN_ADVERBIAL, NOUN_SUFFIX, OTHER, PREFIX, Analyser, Tokens
from director.rules.negation import copula_negation, negated_negations
from director.rules.patterns import NEVER, alternation

_WORD_CODES = frozenset({NOUN, NOUN_ADVERBIAL, ADJECTIVAL_NOUN})
# Where a sentence ends: trailing ellipses, waves and long marks, then a terminator or the end of the text.
_SENTENCE_END = r"[…‥〜～ー]*(?:[。！？\n]|\Z)"
_END = f"(?:(?<=[。！？])|{_SENTENCE_END})"  # after an ending that is itself a terminator (？), or an end
# Cheap first looks, in any spelling of the negation: a copula and a negation (じゃない, では無い,
# じゃねえ, でもありません, じゃん); two negations (a negated negation).
_COPULA_NEGATION = re.compile(r"じゃ[なねん無あ]|で[はも]?[な無あ]")
_NEGATION = re.compile(r"[な無ナ][いくかイク]|ね[えぇ]|ませ[んぬ]")
_KANA_RUN = 6  # morphemes of a kana spelling read together at most (み + て + い + しゅ + つ)
_KANA = re.compile(r"[ぁ-ゖァ-ヺー]+\Z")


class Contradictions:
    """The compiled ``contradiction`` section of a rule set."""

    def __init__(self, section: dict) -> None:
        self.prefixes = frozenset(section["negative_prefixes"])
        self.words = frozenset(section["negative_prefix_words"])
        self.not_words = frozenset(section["not_negative_prefix_words"])
        tag_endings, question_endings = section["tag_endings"], section["question_endings"]
        tag = f"(?:{alternation(tag_endings).pattern})*" if tag_endings else ""
        self.tag = re.compile(tag + _END)
        question = alternation(question_endings).pattern if question_endings else None
        self.question = re.compile(f"(?:{question})+{_END}") if question else NEVER
        self.formal_readings = frozenset(section["formal_nouns"])
        self.hedge_verbs = frozenset(section["hedge_verbs"])

    def find(self, text: str, tokens: Tokens, analyser: Analyser) -> tuple[list, list]:
        """``(reversals, litotes)``: the spans of ``text`` holding each kind (module docstring), in order."""
        reversals, litotes = [], []
        if self.prefixes:
            for match in _COPULA_NEGATION.finditer(text):
                found = self._prefixed_negation(text, match.start(), tokens, analyser)
                if found is not None:
                    (reversals if found[0] else litotes).append(found[1])
        negations = _NEGATION.findall(text)
        if len(negations) >= 2:
            for first, last in negated_negations(tokens, self.formal_readings, self.hedge_verbs, analyser.readings):
                litotes.append((tokens.start(first), tokens.end(last)))
        return sorted(set(reversals)), sorted(set(litotes))

    def _prefixed_negation(
        self, text: str, position: int, tokens: Tokens, analyser: Analyser
    ) -> tuple[bool, tuple[int, int]] | None:
        """``(reads as a tag, span)`` of a negative-prefix word and the negation at ``position``, or None."""
        negation = tokens.index_at(position)
        if negation is None or negation == 0:
            return None
        found = copula_negation(tokens, negation)
        if found is None:
            return None
        start = self._word_start(tokens, negation, analyser)
        if start is None:
            return None
        last, tag = found
        end = tokens.end(last)
        if (tag and self.tag.match(text, end)) or self.question.match(text, end):
            return True, (start, end)
        return False, (start, end)

    def _word_start(self, tokens: Tokens, negation: int, analyser: Analyser) -> int | None:
        """The text offset where the negative-prefix word before morpheme ``negation`` starts, or None."""
        codes = tokens.codes
        word = negation - 1
        while word > 0 and negation - word <= 2 and _is_suffix(tokens, word):
            word -= 1  # 未開店: 未開 + 店; 非現実的: 非 + 現実的
        if _KANA.match(tokens.surface(word)):  # Sudachi may cut a kana spelling anyhow (み + て + い + しゅ + つ)
            return self._kana_start(tokens, word, analyser)
        if codes[word] not in _WORD_CODES:
            return None
        if word > 0 and codes[word - 1] == PREFIX and tokens.normalized(word - 1) in self.prefixes:
            return tokens.start(word - 1)
        surface = tokens.surface(word)
        if surface in self.not_words or tokens.normalized(word) in self.not_words:
            return None
        prefixed = surface[:1] in self.prefixes and 2 <= len(surface) <= 13
        if prefixed and (surface in self.words or analyser.starts_with_prefix(tokens, word)):
            return tokens.start(word)
        return None

    def _kana_start(self, tokens: Tokens, word: int, analyser: Analyser) -> int | None:
        """Where a kana spelling of a negative-prefix word ending with morpheme ``word`` starts, or None."""
        spelling = ""
        for first in range(word, max(word - _KANA_RUN, -1), -1):
            spelling = tokens.surface(first) + spelling
            if len(spelling) > 13 or not _KANA.match(spelling):
                return None
            found = analyser.kana_prefixed_word(spelling, self.prefixes)
            if found is not None and found not in self.not_words:
                return tokens.start(first)
        return None


def _is_suffix(tokens: Tokens, index: int) -> bool:
    """Whether morpheme ``index`` is a 接尾辞 of any kind (店: a noun suffix; 的: an adjectival-noun one)."""
    code = tokens.codes[index]
    return code == NOUN_SUFFIX or (code == OTHER and tokens.morphemes[index].part_of_speech()[0] == "接尾辞")
