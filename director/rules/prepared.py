"""A rule set compiled for checking: patterns, thresholds and messages, built once per ``RuleSet``."""

from __future__ import annotations

from string import Formatter

from director.rules.characters import Character
from director.rules.contradiction import Contradictions
from director.rules.patterns import alternation
from director.rules.praise import Praise
from director.rules.tone import ToneProfile

LANGUAGES = ("ja", "en")
_JOINERS = {"ja": "、", "en": ", "}

# For each rule: the statuses it has messages for, and the placeholders its messages may use, with a
# sample value each (for checking a template when the rule set is loaded).
MESSAGE_FIELDS: dict[str, tuple[tuple[str, ...], dict[str, object]]] = {
    "bracket": (("warn",), {"brackets": "「"}),
    "script_format": (("warn",), {}),
    "format": (("retry", "warn"), {"lines": 8, "warn_lines": 6, "retry_lines": 8}),
    "setting": (("retry",), {"phrases": "一人暮らし"}),
    "praise": (("retry", "warn"), {"words": "すごい", "affirmation": "あなた、正しい"}),
    "scatter": (("retry", "warn"), {"sentences": 4, "topics": 3, "heads": "天気、猫"}),
    "contradiction": (("retry",), {"expressions": "未成年じゃない"}),
    "tone": (("retry", "warn"), {"score": 0, "endings": "よね", "vocabulary": "ほんと"}),
    "topic_loop": (("warn",), {"words": "天気×3", "repeat_count": 3}),
}


def template_problem(template: str, rule: str) -> str | None:
    """What is wrong with a message template of ``rule``, or None when it formats with the rule's fields."""
    fields = MESSAGE_FIELDS[rule][1]
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
        self.setting = alternation(config["setting"]["phrases"])
        self.praise = Praise(config["praise"])
        self.contradictions = Contradictions(config["contradiction"])
        self.stop_heads = frozenset(config["topics"]["stop_heads"])
        self.stop_words = frozenset(config["topic_loop"]["stop_words"])
        self.tone = {key: ToneProfile(character) for key, character in cast.items()}
        # (rule, "RETRY"/"WARN", language) -> (message template, suggestion template, list separator)
        self.templates = {
            (rule, status.upper(), language): (
                texts[status][language],
                texts["suggestion"][language],
                _JOINERS[language],
            )
            for rule, texts in config["messages"].items()
            for status in MESSAGE_FIELDS[rule][0]
            for language in LANGUAGES
        }
