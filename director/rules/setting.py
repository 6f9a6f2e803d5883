"""Setting consistency (seed 004 §3 設定整合性): the sisters are said not to live together → RETRY.

The seed names 「別居している」「一人暮らし」 "and the like": expressions **as if the sisters did not
live together**. ``phrases`` are the stems of those expressions (別居, 一人暮らし, 一人で暮らし,
別々に住ん, 別の家に住ん …), matched anywhere in the text (quotes included: a quoted wish to live
alone is still about the sisters' home); they are stems, so that every inflection counts (住ん, 住み,
住む; 暮らし, 暮らす). A phrase does not count when the sentence is plainly about
something else:

- **someone else**: the sentence marks a subject with が or は before the phrase (a particle after a
  word that is neither a particle nor a time word such as 今, by the analysis) and that subject is
  not one of ``sister_subjects`` (私, 姉, あゆ …):
  「友達が一人暮らし始めたんだって」 is about a friend, 「姉は別の家に住んでいます」 is not;
- **a kind of thing**: the phrase is followed at once by one of ``attributive_endings`` (向け, 用):
  「一人暮らし向けの部屋」;
- **someone else, after it**: the phrase's clause ends in a verb or auxiliary right before one of
  ``other_people`` (人, 友人 …), which it describes: 「一人暮らしを始めた友人から」, 「一人暮らしを
  する人も多い」 (but 「別居している状態です」 is the sisters' state);
- **not what is so**: one of ``hypothetical_endings`` (たら, なんて, なら …, and denials: してない,
  じゃない …) follows within ``HYPOTHETICAL_REACH`` characters: 「別々に住んでたら寂しい」,
  「離れて暮らしてるなんて想像できない」, 「別居してないよ」.

Evidence: each phrase that counts, to the end of the word its stem ends in (別の家に住ん, 一人で暮らし).
"""

from __future__ import annotations

import re

from director.rules.analyser import BINDING_PARTICLE, CASE_PARTICLE, NOUN_ADVERBIAL, Tokens
from director.rules.patterns import alternation
from director.rules.sentences import sentence_of

HYPOTHETICAL_REACH = 6  # characters after a phrase searched for a hypothetical ending (住ん|でたら, 暮らし|てるなんて)
_SUBJECT_MARKERS = frozenset({"が", "は"})
_PARTICLES = frozenset({BINDING_PARTICLE, CASE_PARTICLE})
# Before が/は, these are no subject: another particle (姉とは) or a time word (今は, 去年は).
_NOT_SUBJECTS = _PARTICLES | {NOUN_ADVERBIAL}


class Setting:
    """The compiled ``setting`` section of a rule set."""

    def __init__(self, section: dict) -> None:
        self.phrases = alternation(section["phrases"])
        self.attributive = alternation(section["attributive_endings"])
        self.hypothetical = alternation(section["hypothetical_endings"])
        self.sisters = frozenset(section["sister_subjects"])
        # The phrase's clause ends in a verb or auxiliary (…する, …始めた) right before one of the people.
        people = alternation(section["other_people"]).pattern if section["other_people"] else "(?!)"
        self.describes = re.compile(f"[^。！？、\\n]{{0,10}}?[るたいだ](?:{people})(?:から|[がはもをにのとへ])")

    def find(self, text: str, sentences: list[tuple[int, int]], tokens: Tokens) -> list[tuple[int, int]]:
        """The spans of the phrases of ``text`` that say the sisters live apart (module docstring)."""
        if self.phrases.search(text) is None:
            return []
        spans = []
        for match in self.phrases.finditer(text):
            start, end = match.span()
            if self.attributive.match(text, end) is not None:
                continue
            if self.hypothetical.search(text, end, end + HYPOTHETICAL_REACH) is not None:
                continue
            if self.describes.match(text, end) is not None:
                continue
            if self._someone_else(text, tokens, sentence_of(sentences, start)[0], start):
                continue
            spans.append((start, _word_end(tokens, end)))
        return spans

    def _someone_else(self, text: str, tokens: Tokens, sentence_start: int, phrase_start: int) -> bool:
        """Whether a subject other than the sisters is marked (が, は) in the sentence before the phrase."""
        for index in range(1, len(tokens.codes)):
            position = tokens.start(index)
            if position >= phrase_start:
                break
            if position <= sentence_start or tokens.codes[index] not in _PARTICLES:
                continue
            if tokens.surface(index) not in _SUBJECT_MARKERS or tokens.codes[index - 1] in _NOT_SUBJECTS:
                continue
            if tokens.surface(index - 1) not in self.sisters:
                return True
        return False


def _word_end(tokens: Tokens, end: int) -> int:
    """``end`` moved to the end of the word it falls inside (a stem: 住 → 住ん, 暮ら → 暮らし), for the evidence."""
    for index in range(len(tokens.codes)):
        if tokens.end(index) >= end:
            return max(end, tokens.end(index)) if tokens.start(index) < end else end
    return end
