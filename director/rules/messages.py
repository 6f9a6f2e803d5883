"""The fields of the scatter and tone messages that say what fired and what is missing (seed 004 §4, §6).

``scatter_kind`` names the condition of a scatter finding: ``retry`` (``retry_sentences`` sentences and
``retry_topics`` topics), ``warn_both``, ``warn_sentences`` or ``warn_topics`` (only that threshold
reached), or None; each kind has its own message and suggestion in the rule set, so a message never
mentions a count that did not fire (three sentences on no topic do not say "0 topics").

``missing_markers`` describes the tone markers an utterance lacks, one part per missing hit, from the
character file: its endings (§4.2), its words (§4.3) and its style (§4.4), in the rule set's templates
``messages.tone.missing_*`` and ``style_*``, in the verdict's language; ``lacking_kinds`` names those
kinds only (``messages.tone.name_*``). The message says which kinds are missing, the suggestion (also
the next turn's intervention on a WARN) which markers to use.
"""

from __future__ import annotations

from director.rules.characters import Character
from director.rules.tone import Tone

_ITEM_JOINERS = {"ja": "・", "en": ", "}
_PART_JOINERS = {"ja": "、", "en": "; "}
EXAMPLES = 5  # markers shown per kind; more are summarised by "…"


def scatter_kind(prepared, sentences: int, topics: int) -> str | None:
    """The scatter message kind for ``sentences`` sentences and ``topics`` topics (module docstring)."""
    if sentences >= prepared.retry_sentences and topics >= prepared.retry_topics:
        return "retry"
    many_sentences = sentences >= prepared.warn_sentences
    many_topics = topics >= prepared.warn_topics
    if many_sentences and many_topics:
        return "warn_both"
    if many_sentences:
        return "warn_sentences"
    if many_topics:
        return "warn_topics"
    return None


def missing_markers(prepared, character: Character, tone: Tone, language: str) -> str:
    """What ``character``'s utterance of ``tone`` lacks: ``語尾（わ！・へ？…）、文体（…）`` or the English."""
    items = _ITEM_JOINERS[language]
    parts = []
    for kind in _missing(character, tone):
        template = prepared.parts["tone", f"missing_{kind}", language]
        if kind == "ending":
            parts.append(template.format(endings=_examples(character.endings, items)))
        elif kind == "vocabulary":
            parts.append(template.format(vocabulary=_examples(character.vocabulary, items)))
        else:
            parts.append(template.format(style=_style(prepared, character, language)))
    return _PART_JOINERS[language].join(parts)


def lacking_kinds(prepared, character: Character, tone: Tone, language: str) -> str:
    """The names of the kinds of marker missing: ``語尾・語彙・文体`` or ``ending, vocabulary or style``."""
    names = [prepared.parts["tone", f"name_{kind}", language] for kind in _missing(character, tone)]
    if language == "ja" or len(names) < 2:
        return "・".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def _missing(character: Character, tone: Tone) -> list[str]:
    """The kinds of marker the utterance lacks, of those the character has (§4.2–§4.4 order)."""
    kinds = []
    if not tone.marker and character.endings:
        kinds.append("ending")
    if not tone.vocab and character.vocabulary:
        kinds.append("vocabulary")
    if not tone.style:
        kinds.append("style")
    return kinds


def _style(prepared, character: Character, language: str) -> str:
    style = character.style
    template = prepared.parts["tone", f"style_{style.kind}", language]
    items = _ITEM_JOINERS[language]
    if style.kind == "short_exclaiming":
        return template.format(max_sentences=style.max_sentences, marks=items.join(style.marks))
    return template.format(endings=items.join(style.endings), min_count=style.min_count)


def _examples(words: tuple[str, ...], joiner: str) -> str:
    shown = joiner.join(words[:EXAMPLES])
    return shown + ("…" if len(words) > EXAMPLES else "")
