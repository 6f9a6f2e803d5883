"""A rule set compiled for checking: patterns, thresholds and messages, built once per ``RuleSet``."""

from __future__ import annotations

from dataclasses import dataclass, field
from string import Formatter

from director.rules.characters import Character
from director.rules.contradiction import Contradictions
from director.rules.praise import Praise
from director.rules.setting import Setting
from director.rules.tone import ToneProfile

LANGUAGES = ("ja", "en")
_JOINERS = {"ja": "、", "en": ", "}


@dataclass(frozen=True)
class MessageSpec:
    """The message templates of one rule in the rule set's ``messages`` section.

    ``messages`` maps each message kind to the key of its suggestion; a kind's status is its first word
    (``retry_listener`` is a RETRY). ``fields`` are the placeholders its messages and suggestions may
    use, each with a sample value (to check a template when the rule set is loaded); ``parts`` are
    further templates the rule fills in to build a field (the tone's description of what is missing),
    each with its own placeholders.
    """

    messages: dict[str, str]
    fields: dict[str, object]
    parts: dict[str, dict[str, object]] = field(default_factory=dict)

    @property
    def keys(self) -> tuple[str, ...]:
        suggestions = tuple(dict.fromkeys(self.messages.values()))
        return (*self.messages, *suggestions, *self.parts)

    def placeholders(self, key: str) -> dict[str, object]:
        return self.parts.get(key, self.fields)


_WARN = {"warn": "suggestion"}
_LINES = {"lines": 8, "warn_lines": 6, "retry_lines": 8}
_SCATTER = {"sentences": 4, "topics": 3, "heads": "天気、猫", "warn_sentences": 3, "warn_topics": 2}
_TONE = {
    "score": 0,
    "needed": 2,
    "lacking": "語尾",
    "missing": "語尾（よね）",
    "endings": "よね",
    "vocabulary": "ほんと",
}
MESSAGE_FIELDS: dict[str, MessageSpec] = {
    "bracket": MessageSpec(_WARN, {"brackets": "「"}),
    "script_format": MessageSpec(_WARN, {}),
    "format": MessageSpec({"retry": "suggestion", "warn": "suggestion"}, _LINES),
    "setting": MessageSpec({"retry": "suggestion"}, {"phrases": "一人暮らし"}),
    "praise": MessageSpec(
        {"retry": "suggestion", "retry_listener": "suggestion", "warn": "suggestion"},
        {"words": "すごい", "affirmation": "あなた、正しい"},
    ),
    "scatter": MessageSpec(
        {
            "retry": "suggestion",
            "warn_both": "suggestion",
            "warn_sentences": "suggestion_sentences",
            "warn_topics": "suggestion_topics",
        },
        _SCATTER,
    ),
    "contradiction": MessageSpec({"retry": "suggestion"}, {"expressions": "未成年じゃない"}),
    "litotes": MessageSpec(_WARN, {"expressions": "無理じゃない"}),
    "tone": MessageSpec(
        {"retry": "suggestion", "warn": "suggestion"},
        _TONE,
        {
            "name_ending": {},
            "name_vocabulary": {},
            "name_style": {},
            "missing_ending": {"endings": "わ！・よね"},
            "missing_vocabulary": {"vocabulary": "やだ・ほんと"},
            "missing_style": {"style": "2文以内"},
            "style_short_exclaiming": {"max_sentences": 2, "marks": "！・？"},
            "style_polite_endings": {"endings": "です・ます", "min_count": 2},
        },
    ),
    "topic_loop": MessageSpec(_WARN, {"words": "天気×3", "repeat_count": 3}),
}


def message_status(kind: str) -> str:
    """The status of a message kind: ``RETRY`` for ``retry`` and ``retry_listener``, ``WARN`` for ``warn_*``."""
    return kind.split("_", 1)[0].upper()


def template_problem(template: str, rule: str, key: str = "retry") -> str | None:
    """What is wrong with template ``key`` of ``rule``, or None when it formats with its placeholders."""
    fields = MESSAGE_FIELDS[rule].placeholders(key)
    try:
        names = [name for _, name, _, _ in Formatter().parse(template) if name is not None]
    except ValueError as error:
        return f"invalid template ({error}); write a literal brace as {{{{ or }}}}"
    for name in names:
        if name not in fields:
            accepted = ", ".join("{" + field + "}" for field in fields) or "none"
            return f"unknown placeholder {{{name}}}; accepted: {accepted}"
    try:
        template.format(**fields)
    except (ValueError, IndexError, KeyError) as error:
        return f"invalid template ({error})"
    return None


class Prepared:
    """Everything ``check_utterance`` needs from a rule set, compiled."""

    def __init__(self, config: dict, cast: dict[str, Character]) -> None:
        thresholds = config["thresholds"]
        self.warn_lines = thresholds["format"]["warn_lines"]
        self.retry_lines = thresholds["format"]["retry_lines"]
        scatter = thresholds["scatter"]
        self.warn_sentences = scatter["warn_sentences"]
        self.warn_topics = scatter["warn_topics"]
        self.retry_sentences = scatter["retry_sentences"]
        self.retry_topics = scatter["retry_topics"]
        self.pass_score = thresholds["tone"]["pass_score"]
        self.warn_score = thresholds["tone"]["warn_score"]
        self.repeat_count = thresholds["topic_loop"]["repeat_count"]
        self.setting = Setting(config["setting"])
        self.praise = Praise(config["praise"], cast)
        self.contradictions = Contradictions(config["contradiction"])
        self.stop_heads = frozenset(config["topics"]["stop_heads"])
        self.shift_words = tuple(config["topics"]["shift_words"])
        self.stop_words = frozenset(config["topic_loop"]["stop_words"])
        self.tone = {key: ToneProfile(character) for key, character in cast.items()}
        # (rule, message kind, language) -> (message template, suggestion template, list separator)
        self.templates = {
            (rule, kind, language): (
                texts[kind][language],
                texts[suggestion][language],
                _JOINERS[language],
            )
            for rule, texts in config["messages"].items()
            for kind, suggestion in MESSAGE_FIELDS[rule].messages.items()
            for language in LANGUAGES
        }
        # (rule, part, language) -> template, for the fields a rule builds from parts (the tone's)
        self.parts = {
            (rule, part, language): texts[part][language]
            for rule, texts in config["messages"].items()
            for part in MESSAGE_FIELDS[rule].parts
            for language in LANGUAGES
        }
