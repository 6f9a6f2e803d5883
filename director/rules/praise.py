"""Praise of the listener (seed 004 §5), on the quote-hidden view of the text.

- RETRY: a sentence holds an evaluation word (すごい, 完璧 …) and an affirmation of the listener, i.e.
  a target (あなた, その答え …) and a predicate (正しい, 素敵 …), all three in that one sentence, in any
  order (「あなたの答えは正しい、完璧です」). The evidence is the evaluation word, target and predicate.
- WARN: an evaluation word with no affirmation beside it, also when the affirmation is in another
  sentence. The evidence is every evaluation word.
- Nothing: no evaluation word. An affirmation alone (「その答えは正しいです」) is information, not praise;
  an evaluation word with a target but no predicate (「あなたは天才」) is only a WARN, as §5.2 asks
  for a target *and* a predicate.

Words are matched as substrings (すごい in ものすごい; not in すっごい or すごく). Quoted text
(「すごいね」と言われた) is hidden from the view and never matches.
"""

from __future__ import annotations

from director.rules.patterns import alternation
from director.rules.sentences import sentence_of


class Praise:
    """The compiled ``praise`` section of a rule set."""

    def __init__(self, section: dict) -> None:
        self.evaluation = alternation(section["evaluation_words"])
        self.target = alternation(section["targets"])
        self.predicate = alternation(section["predicates"])

    def find(self, view: str, sentences: list[tuple[int, int]]) -> tuple[str, list, list] | None:
        """``("RETRY" | "WARN", evaluation word spans, affirmation spans)`` for praise in ``view``, or None."""
        if self.evaluation.search(view) is None:
            return None
        words = [match.span() for match in self.evaluation.finditer(view)]
        for start, end in words:
            sentence_start, sentence_end = sentence_of(sentences, start)
            target = self.target.search(view, sentence_start, sentence_end)
            if target is None:
                continue
            predicate = self.predicate.search(view, sentence_start, sentence_end)
            if predicate is not None:
                return "RETRY", [(start, end)], sorted({target.span(), predicate.span()})
        return "WARN", words, []
