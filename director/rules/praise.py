"""Praise of the listener (seed 004 §3, §5), on the quote-hidden view of the text.

§3 and §5.2: an evaluation word (§5.1: すごい, 素晴らしい, 正解, 完璧, 天才 …) together with an
affirmation of the listener *in the same sentence* is a RETRY; an evaluation word without one
(評価語のみ) is a WARN. An affirmation is a target and an affirming predicate (§5.2: あなた/きみ/
ユーザー/その答え/その考え + 正しい/合っている/素敵 …), in any order, both in the sentence:

- ``retry``: a sentence holds an evaluation word, a target and a predicate that is not that same
  occurrence of the evaluation word (「あなたの答えは正しい、完璧です」). 正解 is in both lists: in
  「その答えで正解です、天才ですね」 it affirms the answer and 天才 evaluates; in 「その答えは正解です」
  the one word cannot be both, so it is an evaluation word alone. A predicate followed at once by one
  of ``predicate_negations`` (正しくない, 素敵じゃない) affirms nothing. The targets are the rule set's
  ``targets`` and the speaker's own names for the listener (a character's ``praise.targets``: あゆ
  calls her sister 姉様, やな calls her あゆ). The evidence is the evaluation word, target and predicate.
- ``retry_listener``, only when the rule set's ``implicit_listener`` is on (an extension of the seed,
  off by default): the evaluation word is predicated of a listener the sentence does not name. It ends
  its sentence, followed by nothing but ``predicate_endings`` (です, ですね, よ …) and terminators, and
  no word but a target is marked as the subject before it by one of ``subject_particles`` (「天才です
  ね！」, 「さすがです！」, 「あなたは天才です」, and 「その答えは正しいです。すごいです。」, where the
  affirmation is in the sentence before). The evidence is the evaluation word and its ending.
- ``warn``: every other evaluation word: about a thing or a third person (「このケーキは素晴らしい
  です」, 「姉はすごいです」), attributive (「すごい景色ですね」), with the affirmation in another
  sentence, or, the option off, said of the listener without an affirmation (「天才ですね！」). The
  evidence is every evaluation word.
- Nothing: no evaluation word. An affirmation alone (「その答えは正しいです」) is information, not praise.

Words are matched as substrings (すごい in ものすごい; not in すっごい or すごく). Quoted text
(「すごいね」と言われた) is hidden from the view and never matches.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from director.rules.analyser import BINDING_PARTICLE, CASE_PARTICLE, Tokens
from director.rules.characters import Character
from director.rules.patterns import alternation
from director.rules.sentences import sentence_of

_PARTICLES = frozenset({BINDING_PARTICLE, CASE_PARTICLE})


class Praise:
    """The compiled ``praise`` section of a rule set, with each character's names for the listener."""

    def __init__(self, section: dict, cast: Mapping[str, Character]) -> None:
        self.evaluation = alternation(section["evaluation_words"])
        self.targets = {
            key: alternation([*section["targets"], *character.praise_targets]) for key, character in cast.items()
        }
        self.predicate = alternation(section["predicates"])
        self.negation = alternation(section["predicate_negations"])
        self.implicit_listener = section["implicit_listener"]
        self.one_ending = alternation(section["predicate_endings"]) if section["predicate_endings"] else None
        endings = self.one_ending.pattern if self.one_ending is not None else "(?!)"
        self.ending = re.compile(f"(?:{endings})*(?=[…‥〜～ー]*(?:[。！？\\n]|\\Z))")
        self.subject_particles = frozenset(section["subject_particles"])

    def find(
        self, view: str, sentences: list[tuple[int, int]], tokens: Tokens, speaker: str
    ) -> tuple[str, list, list] | None:
        """``(message kind, evaluation word spans, affirmation spans)`` for praise in ``view``, or None.

        ``tokens`` is the analysis of the text ``view`` hides the quotes of (same offsets); ``speaker``
        is the id of the character speaking (whose names for the listener are targets).
        """
        if self.evaluation.search(view) is None:
            return None
        target_pattern = self.targets[speaker]
        words = [match.span() for match in self.evaluation.finditer(view)]
        for start, end in words:
            sentence_start, sentence_end = sentence_of(sentences, start)
            target = target_pattern.search(view, sentence_start, sentence_end)
            predicate = self._predicate(view, sentence_start, sentence_end, (start, end)) if target else None
            if predicate is not None:
                return "retry", [(start, end)], sorted({target.span(), predicate})
            if not self.implicit_listener:
                continue
            ending = self.ending.match(view, end)
            if ending is not None and self._of_the_listener(view, tokens, target_pattern, sentence_start, start):
                return "retry_listener", [(start, end)], self._endings(view, end, ending.end())
        return "warn", words, []

    def _predicate(self, view: str, start: int, end: int, word: tuple[int, int]) -> tuple[int, int] | None:
        """The span of the first affirming predicate in ``view[start:end]`` other than the evaluation word
        ``word`` itself and not negated (正しくない), or None."""
        for match in self.predicate.finditer(view, start, end):
            if match.start() < word[1] and word[0] < match.end():
                continue
            if self.negation.match(view, match.end(), end) is not None:
                continue
            return match.span()
        return None

    def _endings(self, view: str, start: int, stop: int) -> list[tuple[int, int]]:
        """The spans of the endings between ``start`` and ``stop``, one per ending (よね, よね: two spans,
        each a word of the list, not one span よねよね)."""
        spans, position = [], start
        while position < stop:
            match = self.one_ending.match(view, position, stop)
            if match is None or match.end() == position:  # cannot happen: the endings matched up to stop
                return [(start, stop)]
            spans.append(match.span())
            position = match.end()
        return spans

    def _of_the_listener(
        self, view: str, tokens: Tokens, target_pattern: re.Pattern, sentence_start: int, word_start: int
    ) -> bool:
        """Whether the sentence names no subject before ``word_start`` other than a target (あなたは)."""
        for index in range(len(tokens.codes)):
            position = tokens.start(index)
            if position >= word_start:
                break
            if position < sentence_start or tokens.codes[index] not in _PARTICLES:
                continue
            if tokens.surface(index) not in self.subject_particles:
                continue
            target = target_pattern.search(view, sentence_start, position)
            if target is None or target.end() != position:
                return False
        return True
