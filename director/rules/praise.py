"""Praise of the listener (seed 004 §3, §5), on the quote-hidden view of the text.

§3: an evaluation word and an affirmation of the other person in one sentence is a RETRY; an
evaluation word alone is a WARN. The affirmation is found in two ways:

- ``retry``: the sentence holds an evaluation word (すごい, 完璧 …), a target (あなた, その答え …) and
  a predicate (正しい, 素敵 …), in any order (「あなたの答えは正しい、完璧です」, §5.2's example).
  The evidence is the evaluation word, target and predicate.
- ``retry_listener``: the evaluation word is itself predicated of the listener. It ends its sentence,
  followed by nothing but ``predicate_endings`` (です, ですね, よ …) and terminators (「天才ですね！」,
  「さすがです！」, 「本当に素晴らしい！」), and the sentence names no other subject before it: no
  ``subject_particles`` (は, が, も as particles) marking a word other than a target. Said to someone
  with no subject, 天才ですね means "you are a genius"; 「あなたは天才です」 names the listener.
  The evidence is the evaluation word and its ending.
- ``warn``: every other evaluation word: about a thing or a third person (「このケーキは素晴らしい
  です」, 「姉はすごいです」), used attributively (「すごい景色ですね」), or with the affirmation in
  another sentence. The evidence is every evaluation word.
- Nothing: no evaluation word. An affirmation alone (「その答えは正しいです」) is information, not praise.

Words are matched as substrings (すごい in ものすごい; not in すっごい or すごく). Quoted text
(「すごいね」と言われた) is hidden from the view and never matches.
"""

from __future__ import annotations

import re

from director.rules.analyser import BINDING_PARTICLE, CASE_PARTICLE, Tokens
from director.rules.patterns import alternation
from director.rules.sentences import sentence_of

_PARTICLES = frozenset({BINDING_PARTICLE, CASE_PARTICLE})


class Praise:
    """The compiled ``praise`` section of a rule set."""

    def __init__(self, section: dict) -> None:
        self.evaluation = alternation(section["evaluation_words"])
        self.target = alternation(section["targets"])
        self.predicate = alternation(section["predicates"])
        self.one_ending = alternation(section["predicate_endings"]) if section["predicate_endings"] else None
        endings = self.one_ending.pattern if self.one_ending is not None else "(?!)"
        self.ending = re.compile(f"(?:{endings})*(?=[…‥〜～ー]*(?:[。！？\\n]|\\Z))")
        self.subject_particles = frozenset(section["subject_particles"])

    def find(self, view: str, sentences: list[tuple[int, int]], tokens: Tokens) -> tuple[str, list, list] | None:
        """``(message kind, evaluation word spans, affirmation spans)`` for praise in ``view``, or None.

        ``tokens`` is the analysis of the text ``view`` hides the quotes of (same offsets).
        """
        if self.evaluation.search(view) is None:
            return None
        words = [match.span() for match in self.evaluation.finditer(view)]
        for start, end in words:
            sentence_start, sentence_end = sentence_of(sentences, start)
            target = self.target.search(view, sentence_start, sentence_end)
            predicate = self.predicate.search(view, sentence_start, sentence_end) if target else None
            if predicate is not None:
                return "retry", [(start, end)], sorted({target.span(), predicate.span()})
            ending = self.ending.match(view, end)
            if ending is not None and self._of_the_listener(view, tokens, sentence_start, start):
                return "retry_listener", [(start, end)], self._endings(view, end, ending.end())
        return "warn", words, []

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

    def _of_the_listener(self, view: str, tokens: Tokens, sentence_start: int, word_start: int) -> bool:
        """Whether the sentence names no subject before ``word_start`` other than a target (あなたは)."""
        for index in range(len(tokens.codes)):
            position = tokens.start(index)
            if position >= word_start:
                break
            if position < sentence_start or tokens.codes[index] not in _PARTICLES:
                continue
            if tokens.surface(index) not in self.subject_particles:
                continue
            target = self.target.search(view, sentence_start, position)
            if target is None or target.end() != position:
                return False
        return True
