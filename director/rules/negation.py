"""The grammar of negation on Sudachi's morphemes (normalized forms), for the double-negation check.

Spelling does not matter: ない, 無い, ねえ and なかっ are one negation (normalized 無い / ない), こと, 事 and
コト one formal noun (read コト), 言い切れ and 言い切る one verb.

- ``negative_predicate(tokens, k)``: a negation starting at morpheme ``k``: ない or 無い (and a following
  た: なかった), or ありません / 限りません (an optional 有る, ます, then ず). Returns the index of its
  last morpheme.
- ``copula_negation(tokens, j)``: the negation of a noun starting at ``j``: じゃ or で, an optional は or
  も, then a negative predicate (じゃない, ではない, でもない, でない, ではありません, じゃなかった);
  or じゃん / じゃね alone. Returns ``(last index, tag)``: ``tag`` when it is one of the colloquial
  forms that double as the confirmation tag "…, isn't it?" (じゃない, じゃ無い, じゃねえ, じゃん, じゃね).
- ``negated_negations(tokens, ...)``: the double-negation grammar (a hedged "yes"), each a span from the
  first negation to the end of the second:

  - a negation in its く form, は or も, a negation: なくはない, なくもない, 無くはなかった;
  - a negation, で, は or も, a negation: ないではない, ないでもない, ないでもありません;
  - a negation, a formal noun (``formal_nouns``, by reading: コト, ワケ, モノ), は or も, or じゃ / で and
    an optional は or も, a negation: ないことはない, ない事もない, ないわけではない, ない訳じゃない,
    ないものでもない, ないものではなかった;
  - a negation, と, an optional は or も, a verb of ``hedge_verbs`` (by normalized form), a negation:
    ないとは限らない, ないとも限らない, ないとは言い切れない, ないと言い切れない.
"""

from __future__ import annotations

from director.rules.analyser import ADJECTIVE, AUXILIARY, BINDING_PARTICLE, NOUN, NOUN_ADVERBIAL, Tokens

NEGATIVES = frozenset({"ない", "無い"})  # normalized forms of the auxiliary ない and the adjective 無い
_TAG_SURFACES = frozenset({"ない", "無い", "ねえ", "ねぇ", "ねー", "ナイ"})  # the plain present, as a tag
_COPULAS = frozenset({"だ", "で"})  # normalized forms of じゃ and で (auxiliary or particle)


def negative_predicate(tokens: Tokens, k: int) -> int | None:
    """The index of the last morpheme of a negation starting at ``k`` (module docstring), or None."""
    count = len(tokens.codes)
    if k < count and tokens.normalized(k) == "有る":
        k += 1
    if k < count and tokens.normalized(k) == "ます":
        k += 1
        return k if k < count and tokens.normalized(k) == "ず" else None
    if k >= count or tokens.normalized(k) not in NEGATIVES:
        return None
    if k + 1 < count and tokens.normalized(k + 1) == "た":
        return k + 1
    return k


def copula_negation(tokens: Tokens, j: int) -> tuple[int, bool] | None:
    """``(last index, reads as a tag)`` of the negation of a noun starting at ``j`` (module docstring)."""
    count = len(tokens.codes)
    surface = tokens.surface(j)
    if surface == "じゃん":
        return j, True
    if tokens.normalized(j) not in _COPULAS:
        return None
    k = j + 1
    if surface == "じゃ" and k < count and tokens.surface(k) == "ね":
        return k, True
    particle = k < count and tokens.codes[k] == BINDING_PARTICLE
    if particle:
        k += 1
    last = negative_predicate(tokens, k)
    if last is None:
        return None
    return last, surface == "じゃ" and not particle and last == k and tokens.surface(k) in _TAG_SURFACES


def negated_negations(tokens: Tokens, formal_readings, hedge_verbs: frozenset[str], readings) -> list[tuple[int, int]]:
    """``(first, last)`` morpheme indices of each negated negation (module docstring), in order.

    ``readings(word)`` gives the readings of a word (the analyser's), matched with ``formal_readings``.
    """
    codes = tokens.codes
    count = len(codes)
    found = []
    for first in range(count - 2):
        if codes[first] not in (AUXILIARY, ADJECTIVE) or tokens.normalized(first) not in NEGATIVES:
            continue
        k = first + 1
        if tokens.normalized(k) == "た":
            k += 1
        last = _second_negation(tokens, first, k, formal_readings, hedge_verbs, readings) if k < count else None
        if last is not None:
            found.append((first, last))
    return found


def _second_negation(tokens: Tokens, first: int, k: int, formal_readings, hedge_verbs, readings) -> int | None:
    codes, count = tokens.codes, len(tokens.codes)
    if codes[k] == BINDING_PARTICLE:  # なくはない, 無くもない
        return negative_predicate(tokens, k + 1) if k == first + 1 and tokens.surface(first).endswith("く") else None
    normalized = tokens.normalized(k)
    if normalized in _COPULAS and tokens.surface(k) == "で":  # ないではない, ないでもない
        return negative_predicate(tokens, k + 2) if k + 1 < count and codes[k + 1] == BINDING_PARTICLE else None
    if normalized == "と":  # ないとは限らない, ないと言い切れない
        k += 1
        if k < count and codes[k] == BINDING_PARTICLE:
            k += 1
        if k < count and tokens.normalized(k) in hedge_verbs:
            return negative_predicate(tokens, k + 1)
        return None
    # ないことはない, ないわけではない, ないものでもない
    if codes[k] not in (NOUN, NOUN_ADVERBIAL) or not readings(tokens.surface(k)) & formal_readings:
        return None
    k += 1
    if k < count and codes[k] == BINDING_PARTICLE:
        return negative_predicate(tokens, k + 1)
    if k < count and tokens.normalized(k) in _COPULAS:
        k += 1
        if k < count and codes[k] == BINDING_PARTICLE:
            k += 1
        return negative_predicate(tokens, k)
    return None
