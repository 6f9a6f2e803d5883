"""Topic heads (seed 004 §6.2) and repeated content words (§8 話題ループ), from one analysis.

A head is a compound noun: the longest run of tokens coded ``NOUN``, ``NOUN_ADVERBIAL``, ``NUMERAL``,
``PREFIX`` or ``NOUN_SUFFIX`` (see ``analyser``) that ends right before the pattern's particle, whose
last token is a noun or a noun suffix (東京タワー, お姉ちゃん, 山田さん). Pronouns (それ, あなた) are
not nouns in Sudachi and never head a topic: they point at a topic already named. The patterns:

1. ``H + について``: the text ``について`` starting at a case particle に (天気について, 明日の天気についてです);
2. ``H + の話``: the text ``の話`` where の is a case particle and 話 a word of its own (猫の話; not 話題);
3. ``H + は + 活用語``: a binding particle は, and later in the same sentence a verb, adjective,
   adjectival noun or auxiliary (京都は寺が多いです, 紅葉は見頃ですね), the head's last token ``NOUN``
   or ``NOUN_SUFFIX``. A time word (``NOUN_ADVERBIAL``: 今日, 明日, 午後, 月曜) heads a topic only in
   the pattern's literal form, the conjugating word right after は and said of it: a verb, adjective
   or adjectival noun, or a noun with する, not modifying a noun after it (今日は暑い, 明日は休みたい,
   午後は空いています, 今日はびっくりした). With anything between (今日は少し混んでいる, 朝は道路が
   混みます), or attributive or adverbial (今日はいい天気, 朝はあんなに晴れてた), the time word sets
   the scene for another statement. A clock time or quantity after a numeral (3時は混む) never heads
   a topic.

Heads listed in the rule set's ``topics.stop_heads`` never count (formal nouns, forms of address).
Topics are the distinct head texts; the evidence is each head's first occurrence.

The topic loop counts content words (see ``analyser``: nouns, verbs, adjectives and adjectival nouns,
by lemma) whose lemma is not in ``topic_loop.stop_words``.
"""

from __future__ import annotations

from director.rules.analyser import (
    ADJECTIVAL_NOUN,
    ADJECTIVE,
    AUXILIARY,
    BINDING_PARTICLE,
    CASE_PARTICLE,
    NOUN,
    NOUN_ADVERBIAL,
    NOUN_SUFFIX,
    NUMERAL,
    PREFIX,
    VERB,
    Tokens,
)
from director.rules.sentences import sentence_of

_IN_HEAD = frozenset({NOUN, NOUN_ADVERBIAL, NUMERAL, PREFIX, NOUN_SUFFIX})
_ENDS_HEAD = frozenset({NOUN, NOUN_ADVERBIAL, NOUN_SUFFIX})
_ENDS_WA_HEAD = frozenset({NOUN, NOUN_SUFFIX})
_CONJUGATING = frozenset({VERB, ADJECTIVE, ADJECTIVAL_NOUN})
_PREDICATE = frozenset({VERB, ADJECTIVE, ADJECTIVAL_NOUN, AUXILIARY})
_BINDING_PARTICLE = bytes([BINDING_PARTICLE])
_NUMERAL = bytes([NUMERAL])


def topic_heads(
    text: str, tokens: Tokens, sentences: list[tuple[int, int]], stop_heads: frozenset[str]
) -> dict[str, tuple[int, int]]:
    """Each distinct topic head of ``text`` with the span of its first occurrence, in text order."""
    found: list[tuple[int, int]] = []
    codes = tokens.codes
    if "について" in text:
        for position in _occurrences(text, "について"):
            index = tokens.index_at(position)
            if index is not None and codes[index] == CASE_PARTICLE:
                found.append(_head(tokens, index, position, _ENDS_HEAD))
    if "の話" in text:
        for position in _occurrences(text, "の話"):
            index = tokens.index_at(position)
            if (
                index is not None
                and codes[index] == CASE_PARTICLE
                and index + 1 < len(codes)
                and tokens.end(index + 1) == position + 2
            ):
                found.append(_head(tokens, index, position, _ENDS_HEAD))
    index = codes.find(_BINDING_PARTICLE, 1)
    while index > 0:
        before = codes[index - 1]
        if before in _ENDS_WA_HEAD:
            position = tokens.start(index)
            if text[position] == "は" and _predicate_follows(tokens, index, position, sentences):
                found.append(_head(tokens, index, position, _ENDS_WA_HEAD))
        elif before == NOUN_ADVERBIAL and codes[index - 2 : index - 1] != _NUMERAL and _conjugating_next(tokens, index):
            position = tokens.start(index)
            if text[position] == "は":
                found.append(_head(tokens, index, position, _ENDS_HEAD))
        index = codes.find(_BINDING_PARTICLE, index + 1)
    heads: dict[str, tuple[int, int]] = {}
    for span in sorted(span for span in found if span is not None):
        head = text[span[0] : span[1]]
        if head not in stop_heads and head not in heads:
            heads[head] = span
    return heads


def _occurrences(text: str, needle: str):
    position = text.find(needle)
    while position >= 0:
        yield position
        position = text.find(needle, position + 1)


def _head(tokens: Tokens, particle: int, position: int, ends: frozenset[int]) -> tuple[int, int] | None:
    """The compound noun ending right before the particle at ``position`` (tokens are contiguous)."""
    codes = tokens.codes
    last = particle - 1
    if last < 0 or codes[last] not in ends:
        return None
    first = last
    while first > 0 and codes[first - 1] in _IN_HEAD:
        first -= 1
    return tokens.start(first), position


def _conjugating_next(tokens: Tokens, particle: int) -> bool:
    """Whether the word right after the particle is a conjugating word said of what precedes は: a verb,
    adjective or adjectival noun, or a noun with する (びっくりした: a サ変 verb that Sudachi splits), and
    not one modifying a noun after it (今日はいい天気, 明日は寒い日: auxiliaries in between skipped) nor
    an adverbial adjectival noun (朝はあんなに晴れてた)."""
    codes = tokens.codes
    count = len(codes)
    word = particle + 1
    if word >= count:
        return False
    if codes[word] == NOUN:
        word += 1
        if not (word < count and codes[word] == VERB and tokens.morphemes[word].dictionary_form() == "する"):
            return False
    elif codes[word] not in _CONJUGATING:
        return False
    elif codes[word] == ADJECTIVAL_NOUN and word + 1 < count and tokens.surface(word + 1) == "に":
        return False  # adverbial (あんなに晴れてた, 静かに過ごす): it modifies the verb after it
    after = word + 1
    while after < count and codes[after] == AUXILIARY:
        after += 1
    return after >= count or codes[after] not in _IN_HEAD


def _predicate_follows(tokens: Tokens, particle: int, position: int, sentences: list[tuple[int, int]]) -> bool:
    """Whether a predicate follows the particle (at ``position``) in its sentence: the first one after it."""
    codes = tokens.codes
    for index in range(particle + 1, len(codes)):
        if codes[index] in _PREDICATE:
            _, sentence_end = sentence_of(sentences, position)
            return tokens.start(index) < sentence_end
    return False


def topic_shift(view: str, sentences: list[tuple[int, int]], shift_words: tuple[str, ...]) -> str:
    """The first of ``shift_words`` (§8: words starting another topic) used as one in ``view`` (the quote
    view: quoted text hidden), or "": at a sentence's start or after 、 or a space, and not followed by a
    hiragana (そういえばそうだね and あ、そうだね agree with what was said; 静かなところで is a place)."""
    for word in shift_words:
        position = view.find(word)
        while position >= 0:
            end = position + len(word)
            follows = view[end] if end < len(view) else ""
            if not "ぁ" <= follows <= "ゖ" and (
                view[position - 1 : position] in ("、", " ", "　") or _starts_sentence(view, sentences, position)
            ):
                return word
            position = view.find(word, position + 1)
    return ""


def _starts_sentence(view: str, sentences: list[tuple[int, int]], position: int) -> bool:
    """Whether only spaces stand between the start of the sentence holding ``position`` and it."""
    for start, end in sentences:
        if start <= position < end:
            return not view[start:position].strip()
    return False


def repeated_words(tokens: Tokens, stop_words: frozenset[str], repeat_count: int) -> dict[str, list[int]]:
    """Each content word occurring at least ``repeat_count`` times, with the indexes of its tokens, in order."""
    lemmas = tokens.lemmas
    # A word repeat_count times leaves at most len - (repeat_count - 1) distinct lemmas.
    if len(set(lemmas)) > len(lemmas) - repeat_count + 1:
        return {}
    counts: dict[str, int] = {}
    for lemma in lemmas:
        counts[lemma] = counts.get(lemma, 0) + 1
    words = [word for word, count in counts.items() if count >= repeat_count and word not in stop_words]
    if not words:
        return {}
    found: dict[str, list[int]] = {word: [] for word in words}
    for index, lemma in zip(tokens.content, lemmas):  # noqa: B905 - built together
        if lemma in found:
            found[lemma].append(index)
    return found
