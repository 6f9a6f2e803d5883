"""``check_utterance``: the Director's hard rules on one utterance (seed 004 §1–§6, §8).

The steps, each documented in its module:

1. ``normalise``: trim, fold symbol runs, unify punctuation and whitespace (§2.2, §2.3);
2. ``quotes``: quoted regions and unbalanced brackets (§2.1); when the whole utterance is one 「…」
   (§8 台本形式) its inside is judged instead, as the utterance and not as a quote;
3. ``sentences``: sentences and lines (§6.1); ``analyser``: one Sudachi analysis shared by the topic,
   topic-loop and contradiction checks;
4. the rules, in ``RULE_ORDER``: ``bracket`` WARN, ``script_format`` WARN, ``format`` (lines),
   ``setting``, ``praise`` (§5), ``scatter`` (§6), ``contradiction`` RETRY and ``litotes`` WARN (§3,
   one check: ``contradiction``), ``tone`` (§4), ``topic_loop`` WARN (§8). A character's ``rules``
   switch off the ones that do not apply to it (``contradiction`` covers ``litotes``).
   A rule with several messages picks the one of the condition that fired (``messages``).

``history`` (the dialogue so far) is accepted and not used: the checks that need it (a loop across
turns, a topic changed too early, §8) are not hard rules of one utterance and are not made here; the
verdict says nothing about them. ``director.sessions.state`` makes them from the verdict's
``topic_heads`` and the session state.
"""

from __future__ import annotations

from director.rules.analyser import get_analyser
from director.rules.messages import lacking_kinds, missing_markers, scatter_kind
from director.rules.normalise import normalise
from director.rules.prepared import LANGUAGES, message_status
from director.rules.quotes import find_quotes, is_script
from director.rules.ruleset import RuleSet, default_rule_set
from director.rules.sentences import line_spans, sentence_spans
from director.rules.topics import repeated_words, topic_heads, topic_shift
from director.rules.verdict import MODIFY, PASS, RETRY, WARN, Finding, Verdict


def check_utterance(
    text: str,
    speaker: str = "やな",
    rules: RuleSet | None = None,
    history: object = None,
    language: str = "ja",
) -> Verdict:
    """The verdict on ``text`` spoken by ``speaker`` (an id or name of a character of ``rules``).

    ``rules`` defaults to the default rule set, loaded once per process; ``language`` ("ja" or "en") is
    the language of the findings' messages and suggestions. Raises ``UnknownCharacter`` for an unknown
    speaker, ``TypeError`` when ``text`` is not a string, ``ValueError`` for another language.
    """
    if rules is None:
        rules = default_rule_set()
    if not isinstance(text, str):
        raise TypeError(f"text: expected a string, got {type(text).__name__}")
    if language not in LANGUAGES:
        raise ValueError(f"language: expected one of {', '.join(LANGUAGES)}, got {language!r}")
    character = rules.character(speaker)
    prepared = rules.prepared
    analyser = get_analyser()

    normalised = normalise(text)
    display = normalised.text
    quotes = find_quotes(display)
    script = bool(quotes.regions) and is_script(display, quotes)
    body, shift = (display[1:-1], 1) if script else (display, 0)
    if script:
        quotes = find_quotes(body)
    view = quotes.view(body)
    sentences = sentence_spans(view)
    tokens = analyser.tokenize(body)
    heads = topic_heads(body, tokens, sentences, prepared.stop_heads)
    profile = prepared.tone[character.id]
    tone = profile.score(view, len(sentences))

    findings: list[Finding] = []
    locate = normalised.evidence if not shift else lambda start, end: normalised.evidence(start + 1, end + 1)

    def add(rule: str, kind: str, spans, **fields) -> None:
        templates = prepared.templates[rule, kind, language]
        findings.append(Finding(rule, message_status(kind), spans, locate, templates, fields))

    if quotes.unbalanced:
        spans = [(at, at + 1) for at in quotes.unbalanced]
        add("bracket", "warn", spans, brackets=[body[at] for at in quotes.unbalanced])
    if script:  # the brackets themselves, outside the judged text
        spans = [(0, 1), (len(display) - 1, len(display))]
        templates = prepared.templates["script_format", "warn", language]
        findings.append(Finding("script_format", WARN, spans, normalised.evidence, templates, {}))

    applies = character.rules
    if "format" in applies:
        lines = line_spans(body, prepared.warn_lines)
        if len(lines) >= prepared.warn_lines:
            kind = "retry" if len(lines) >= prepared.retry_lines else "warn"
            over = [(lines[prepared.warn_lines - 1][0], lines[-1][1])]
            add(
                "format",
                kind,
                over,
                lines=len(lines),
                warn_lines=prepared.warn_lines,
                retry_lines=prepared.retry_lines,
            )
    if "setting" in applies:
        spans = prepared.setting.find(body, sentences, tokens)
        if spans:
            add("setting", "retry", spans, phrases=_distinct(body, spans))
    if "praise" in applies:
        praise = prepared.praise.find(view, sentences, tokens, character.id)
        if praise is not None:
            kind, words, affirmation = praise
            spans = sorted(words + affirmation)
            if kind == "retry_listener":  # the evaluation word with its ending: 天才ですね
                affirmation_texts = [body[words[0][0] : (affirmation or words)[-1][1]]]
            else:
                affirmation_texts = _distinct(body, affirmation)
            add("praise", kind, spans, words=_distinct(body, words), affirmation=affirmation_texts)
    if "scatter" in applies:
        kind = scatter_kind(prepared, len(sentences), len(heads))
        if kind is not None:
            add(
                "scatter", kind, list(heads.values()), sentences=len(sentences), topics=len(heads), heads=list(heads),
                warn_sentences=prepared.warn_sentences, warn_topics=prepared.warn_topics,
            )  # fmt: skip
    if "contradiction" in applies:
        reversals, litotes = prepared.contradictions.find(body, tokens, analyser)
        if reversals:
            add("contradiction", "retry", reversals, expressions=_distinct(body, reversals))
        if litotes:
            add("litotes", "warn", litotes, expressions=_distinct(body, litotes))
    if "tone" in applies and tone.score < prepared.pass_score:
        kind = "warn" if tone.score >= prepared.warn_score else "retry"
        add(
            "tone", kind, profile.evidence(view, tone), score=tone.score, needed=prepared.pass_score - tone.score,
            missing=lambda: missing_markers(prepared, character, tone, language),
            lacking=lambda: lacking_kinds(prepared, character, tone, language),
            endings=list(character.endings), vocabulary=list(character.vocabulary),
        )  # fmt: skip
    if "topic_loop" in applies:
        repeated = repeated_words(tokens, prepared.stop_words, prepared.repeat_count)
        if repeated:
            spans = sorted(
                (tokens.start(index), tokens.end(index)) for indexes in repeated.values() for index in indexes
            )
            words = [f"{word}×{len(indexes)}" for word, indexes in repeated.items()]
            add("topic_loop", "warn", spans, words=words, repeat_count=prepared.repeat_count)

    statuses = [finding.status for finding in findings]
    modified = None
    if RETRY in statuses:
        status = RETRY
    elif statuses:
        status = WARN
    elif normalised.changed:
        status, modified = MODIFY, display
    else:
        status = PASS
    return Verdict(
        status=status,
        findings=tuple(findings),
        tone=tone,
        sentences=len(sentences),
        topics=len(heads),
        rules_version=rules.version,
        rules_hash=rules.content_hash,
        speaker=character.id,
        modified_text=modified,
        topic_heads=tuple(heads),
        topic_shift=topic_shift(view, sentences, prepared.shift_words),
    )


def _distinct(text: str, spans) -> list[str]:
    """The distinct texts of ``spans`` in ``text``, in order."""
    return list(dict.fromkeys(text[start:end] for start, end in spans))
