"""Setting consistency (seed 004 §3 設定整合性): the sisters are said not to live together → RETRY.

The seed names 「別居している」「一人暮らし」 "and the like": expressions **as if the sisters did not
live together**. What counts is who the arrangement is said of (``living.py`` finds its bearer):

- ``phrases``, living apart (別居, 一人暮らし, 別々に住, 寮で暮ら …), count when said of a sister, of the
  listener or of both (「私、一人暮らしなんだよね」「姉とは別居しています」「別居中の姉様」), or of
  nobody named, which is the speaker or the listener (「別居してから、なかなか会えない」), unless the
  sentence reports hearsay (``reported_endings``: 「一人暮らし始めたんだって」);
- ``moves``, one person moving out (家を出, 引っ越 …), count only when said of the speaker or the
  listener: 「あゆが引っ越してから」, not 「私たち、実家を出て」 nor an unnamed mover;
- ``visits``, coming over to the speaker's home (うちに遊びに来, 実家に帰ってき …), count only when
  said of the listener: 「あゆ、今度うちに遊びにおいでよ」, not 「友達がうちに遊びに来る」;
- a home of the listener, one of ``homes`` after her name and の (「あゆのアパート」「姉様の家」
  「姉様の住むアパート」), or the speaker's own flat, one of ``own_homes`` (「自分のアパート」): their
  homes are apart. Not 「あゆの友達の家」 (the friend's) nor 「私の家」 (the sisters' home).

Phrases, moves and visits said of someone else do not count: a subject that is another person
(「隣のおばあちゃん、一人で住んでる」「お父さんの同僚さん、…」), a person the phrase describes
(「一人暮らししてるあゆの友達」「一人暮らしの方向け」), a kind of thing (「一人暮らし特集」「別居婚」;
``attributive_endings``: 「一人暮らし向けの部屋」), the word as a topic (``topic_endings``: 「別居婚って
言葉」). Nor what is not so: one of ``hypothetical_endings`` (たら, なんて, なら; denials: してない,
じゃない) within ``HYPOTHETICAL_REACH`` characters after it, or one of ``mistaken_endings`` (って勘違い,
と思われ) within ``MISTAKEN_REACH``: someone's mistaken belief.

Matching is on the whole text (quotes included: a quoted wish to live alone is still about the sisters'
home). Evidence: each span that counts, to the end of the word its stem ends in (別の家に住ん).
"""

from __future__ import annotations

import re

from director.rules.analyser import AUXILIARY, NOUN, NOUN_SUFFIX, VERB, Tokens
from director.rules.living import BOTH, LISTENER, OTHER_PERSON, SPEAKER, Person, bearers, described, head_before
from director.rules.patterns import alternation
from director.rules.sentences import sentence_of

HYPOTHETICAL_REACH = 6  # characters after a phrase searched for a hypothetical ending (住ん|でたら, 暮らし|てるなんて)
MISTAKEN_REACH = 10  # characters after a phrase searched for a mistaken belief (暮らし|てるって勘違い)
_PHRASE, _MOVE, _VISIT = "phrase", "move", "visit"
# Who each kind counts for (module docstring).
_COUNTS = {_PHRASE: {SPEAKER, LISTENER, BOTH}, _MOVE: {SPEAKER, LISTENER}, _VISIT: {LISTENER}}
_RELATIVE = frozenset({VERB, AUXILIARY})  # 姉様の住むアパート: a short clause between の and the home
_RELATIVE_REACH = 3  # tokens
_RELATIVE_CHARACTERS = 8  # the most characters of those tokens the quick test allows


class Setting:
    """The compiled ``setting`` section of a rule set."""

    def __init__(self, section: dict) -> None:
        self.kinds = (
            (_PHRASE, alternation(section["phrases"])),
            (_MOVE, alternation(section["moves"])),
            (_VISIT, alternation(section["visits"])),
        )
        self.homes = frozenset(section["homes"])
        self.own_homes = frozenset(section["own_homes"])
        self.home_words = alternation(self.homes | self.own_homes)
        # A quick test that the text may hold a home after の (most texts hold none): 「…の住むアパート」.
        self.possessed_home = re.compile(f"の[^、。！？\\n]{{0,{_RELATIVE_CHARACTERS}}}(?:{self.home_words.pattern})")
        self.anything = alternation([*section["phrases"], *section["moves"], *section["visits"]])
        self.attributive = alternation(section["attributive_endings"])
        self.hypothetical = alternation(section["hypothetical_endings"])
        self.mistaken = alternation(section["mistaken_endings"])
        self.reported = alternation(section["reported_endings"])
        self.topic = alternation(section["topic_endings"])
        self.states = frozenset(section["state_nouns"])
        self.person = Person(section)

    def find(self, text: str, sentences: list[tuple[int, int]], tokens: Tokens) -> list[tuple[int, int]]:
        """The spans of ``text`` that say the sisters live apart (module docstring)."""
        spans = []
        if self.anything.search(text) is not None:
            for kind, pattern in self.kinds:
                for match in pattern.finditer(text):
                    start, end = match.span()
                    if self._counts(kind, text, sentences, tokens, start, end):
                        spans.append((start, _word_end(tokens, end)))
        if self.possessed_home.search(text) is None:
            return spans
        for match in self.home_words.finditer(text):
            span = self._home(text, tokens, match.start(), match.end())
            if span is not None:
                spans.append(span)
        return _merged(spans)

    def _counts(self, kind: str, text: str, sentences, tokens: Tokens, start: int, end: int) -> bool:
        """Whether the phrase at ``start:end`` is said of the sisters, as what is so."""
        if self.attributive.match(text, end) is not None or self.topic.match(text, end) is not None:
            return False
        if self._not_so(text, end):
            return False
        sentence_start, sentence_end = sentence_of(sentences, start)
        if kind != _PHRASE and self.person.words.search(text, sentence_start, max(sentence_end, end)) is None:
            return False  # a move or a visit counts only said of someone named: 「十時に家を出れば」
        first, last = _token_at(tokens, start), _token_at(tokens, end - 1)
        if first is None or last is None:
            return False
        counts = _COUNTS[kind]
        noun = tokens.codes[last] in (NOUN, NOUN_SUFFIX)
        if noun and tokens.end(last) > end and text[end : tokens.end(last)] not in self.states:
            head = text[start : tokens.end(last)]  # a compound word: 別居婚
        else:
            head = described(tokens, last, noun, self.person)
        if head is not None and head not in self.states:
            described_kind = self.person.kind(head)
            if described_kind != OTHER_PERSON:
                return described_kind in counts
            # A person or thing the phrase describes: only its possessor may be a sister (私の一人暮らしの部屋).
            found = bearers(tokens, text, sentence_start, first, self.person)
            return bool(found) and found[0].role == "possessor" and self.person.kind(found[0].head) in counts
        for bearer in bearers(tokens, text, sentence_start, first, self.person):
            bearer_kind = self.person.kind(bearer.head)
            if bearer.role == "partner":
                if bearer_kind == OTHER_PERSON:
                    continue
                return kind == _PHRASE  # apart from a sister
            return bearer_kind in counts
        if kind != _PHRASE:
            return False
        return self.reported.search(text, end, max(sentence_end, end)) is None

    def _not_so(self, text: str, end: int) -> bool:
        """A supposition, a denial or a mistaken belief follows the phrase ending at ``end``."""
        return (
            self.hypothetical.search(text, end, end + HYPOTHETICAL_REACH) is not None
            or self.mistaken.search(text, end, end + MISTAKEN_REACH) is not None
        )

    def _home(self, text: str, tokens: Tokens, start: int, end: int) -> tuple[int, int] | None:
        """The span of 「<listener>の<home>」 or 「<speaker>の<own home>」 at the home word ``start:end``."""
        index = tokens.index_at(start)
        if index is None or tokens.end(index) != end:
            return None  # part of another word: 家族, 家事
        before = index - 1
        while before >= 0 and index - before <= _RELATIVE_REACH and tokens.codes[before] in _RELATIVE:
            before -= 1
        if before < 1 or tokens.surface(before) != "の":
            return None
        head = head_before(tokens, before - 1, 0, self.person)
        if head is None:
            return None
        kind, word = self.person.kind(head), text[start:end]
        if not ((kind == LISTENER and word in self.homes) or (kind == SPEAKER and word in self.own_homes)):
            return None
        if self._not_so(text, end):
            return None
        return tokens.start(before) - len(head), end


def _token_at(tokens: Tokens, position: int) -> int | None:
    """The index of the morpheme holding text offset ``position``."""
    low, high = 0, len(tokens.codes)
    while low < high:
        middle = (low + high) // 2
        if tokens.end(middle) <= position:
            low = middle + 1
        else:
            high = middle
    return low if low < len(tokens.codes) and tokens.start(low) <= position else None


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, overlapping ones joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _word_end(tokens: Tokens, end: int) -> int:
    """``end`` moved to the end of the word it falls inside (a stem: 住 → 住ん, 暮ら → 暮らし), for the evidence."""
    index = _token_at(tokens, end - 1)
    return end if index is None else max(end, tokens.end(index))
