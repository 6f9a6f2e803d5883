"""Who a living arrangement is said of: the grammar the setting check (``setting.py``) reads.

A phrase such as 一人暮らし or 別居 is said of someone, its *bearer*, found in one of three places:

- **the noun it describes**, after it: a relative clause (「一人暮らししてるあゆの友達」: its verbs end
  right before a noun phrase), an ``の`` phrase (「別居中の姉様」「一人暮らしの方向け」) or a compound
  (「一人暮らし特集」「別居婚」). The head of that noun phrase is its last word after any ``の``
  (あゆの友達 → 友達, 田中さん → 田中 without its honorific). A time word there (一人暮らしのとき) or a
  state noun (別居生活, している状態) keeps the phrase a predicate;
- **its subject, before it** in the sentence: the nearest noun phrase marked with が, は, も, って, with
  a comma (「隣のおばあちゃん、一人で住んでる」「あゆ、来年から…」), or the possessor right before it
  (「私の一人暮らし」); a partner marked with と/とは (「姉とは別居」) is a bearer too, when a sister;
- **nobody said**: the implied speaker or listener, unless the sentence reports it
  (〜んだって, 〜らしい, 〜そうです): hearsay is about someone else.

``Person`` sorts a head: the speaker (私), the listener or the other sister (あゆ, 姉様, あなた), both
sisters together (私たち, 二人) or someone else. The word lists are rule data (``setting`` section).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from director.rules.analyser import (
    AUXILIARY,
    BINDING_PARTICLE,
    CASE_PARTICLE,
    NOUN,
    NOUN_SUFFIX,
    NUMERAL,
    OTHER,
    PREFIX,
    VERB,
    Tokens,
)
from director.rules.patterns import alternation

SPEAKER, LISTENER, BOTH, OTHER_PERSON = "speaker", "listener", "both", "other"
SUBJECT_MARKERS = frozenset({"が", "は", "も"})
_PARTICLES = frozenset({CASE_PARTICLE, BINDING_PARTICLE})
_NOMINAL = frozenset({NOUN, NOUN_SUFFIX, PREFIX, NUMERAL})
_CHAIN = frozenset({VERB, AUXILIARY})
_CHAIN_LINKS = frozenset({"て", "で", "を", "に"})  # inside a relative clause's verbs: 一人暮らしを始めた, 離れて住む
_COMMAS = frozenset({"、", ","})


class Person:
    """Sorts a head noun: ``SPEAKER``, ``LISTENER``, ``BOTH`` or ``OTHER_PERSON`` (module docstring)."""

    def __init__(self, section: dict) -> None:
        self.kinds = {}
        for kind, key in ((SPEAKER, "speaker"), (LISTENER, "listener"), (BOTH, "both")):
            for word in section[key]:
                self.kinds.setdefault(word, kind)
        self.honorifics = tuple(sorted(section["honorifics"], key=len, reverse=True))
        self.words = alternation(self.kinds)
        # Written forms the analysis splits badly (あゆって → あ|ゆっ|て): found in the text instead.
        self.named = re.compile(f"({self.words.pattern})(?:って|、)")

    def kind(self, head: str) -> str:
        known = self.kinds.get(head)
        if known is not None:
            return known
        for honorific in self.honorifics:
            if head.endswith(honorific) and head[: -len(honorific)] in self.kinds:
                return self.kinds[head[: -len(honorific)]]
        return OTHER_PERSON


@dataclass(frozen=True)
class Bearer:
    """A noun phrase a phrase is said of: ``head`` (its last word), ``role`` (subject, partner, possessor)."""

    head: str
    role: str


def is_nominal(tokens: Tokens, index: int, person: Person) -> bool:
    """A noun, suffix, prefix or numeral, a pronoun (私, あなた) or a listed person word (うち)."""
    code = tokens.codes[index]
    if code in _NOMINAL:
        return True
    if tokens.surface(index) in person.kinds:
        return True
    return code == OTHER and tokens.morphemes[index].part_of_speech()[0] == "代名詞"


def head_before(tokens: Tokens, last: int, first: int, person: Person) -> str | None:
    """The head of the noun phrase ending at token ``last`` (not before ``first``): its words after the last の."""
    index = last
    while index >= first and is_nominal(tokens, index, person):
        index -= 1
    if index == last:
        return None
    return "".join(tokens.surface(i) for i in range(index + 1, last + 1))


def head_after(tokens: Tokens, first: int, person: Person) -> str | None:
    """The head of the noun phrase starting at token ``first`` (through の links), if one starts there.

    A time word (一人暮らしのとき) starts none: the phrase stays a predicate.
    """
    if first >= len(tokens.codes) or not is_nominal(tokens, first, person):
        return None
    index, start = first, first
    while index < len(tokens.codes):
        if is_nominal(tokens, index, person):
            index += 1
        elif tokens.surface(index) == "の" and index + 1 < len(tokens.codes) and is_nominal(tokens, index + 1, person):
            index += 1
            start = index
        else:
            break
    return "".join(tokens.surface(i) for i in range(start, index))


def described(tokens: Tokens, end_index: int, compound: bool, person: Person) -> str | None:
    """The noun phrase the phrase ending in token ``end_index`` describes (module docstring), if any.

    ``compound``: the phrase is a noun, so a noun right after it makes a compound (一人暮らし特集).
    """
    after = end_index + 1
    if after >= len(tokens.codes):
        return None
    code = tokens.codes[after]
    if compound and code in (NOUN, NOUN_SUFFIX):
        return head_after(tokens, after, person)
    if compound and tokens.surface(after) == "の":
        return head_after(tokens, after + 1, person)
    index = end_index
    while index + 1 < len(tokens.codes) and (
        tokens.codes[index + 1] in _CHAIN or tokens.surface(index + 1) in _CHAIN_LINKS
    ):
        index += 1
    if tokens.codes[index] in _CHAIN:  # the clause's verbs end right before a noun: it describes that noun
        return head_after(tokens, index + 1, person)
    return None


def bearers(tokens: Tokens, text: str, sentence_start: int, phrase_index: int, person: Person):
    """The noun phrases marked before token ``phrase_index`` in its sentence, the nearest first (``Bearer``)."""
    found = []
    first = phrase_index
    while first > 0 and tokens.start(first - 1) >= sentence_start:
        first -= 1
    for index in range(phrase_index - 1, first - 1, -1):
        surface = tokens.surface(index)
        role = None
        last = index - 1
        if surface == "の" and index == phrase_index - 1:
            role = "possessor"
        elif surface in SUBJECT_MARKERS and tokens.codes[index] in _PARTICLES:
            role = "subject"
            if surface != "が" and last >= first and tokens.surface(last) == "と":
                role, last = "partner", last - 1
        elif surface == "と" and tokens.codes[index] == CASE_PARTICLE:
            role = "partner"
        elif surface in _COMMAS:
            role = "subject"
        if role is None or last < first:
            continue
        head = head_before(tokens, last, first, person)
        if head is not None:
            found.append((tokens.start(index), Bearer(head, role)))
    phrase_start = tokens.start(phrase_index)
    for match in person.named.finditer(text, sentence_start, phrase_start):
        index = tokens.index_at(match.start())
        if index is None or (index > first and is_nominal(tokens, index - 1, person)):
            continue  # the end of another word or noun phrase: 田中君、
        found.append((match.end(1), Bearer(match.group(1), "subject")))
    found.sort(key=lambda pair: -pair[0])
    return [bearer for _, bearer in found]
