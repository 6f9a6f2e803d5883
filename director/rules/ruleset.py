"""Loading a rule set: one versioned YAML file of thresholds, word lists and messages, plus the characters.

``load_rule_set()`` reads ``director/rules/rulesets/default.yaml`` (its comments explain every key) and the
character files ``director/rules/characters/*.yaml`` (see ``characters``). ``load_rule_set(path)`` reads
another rule set file, which must hold every key the default does; its characters are the files of
``characters_dir`` (by default the package's), and the file's optional ``characters:`` mapping
(``id → character``, the keys of a character file) replaces a character of that id or adds one.

Everything is validated when loaded; unknown keys are refused and each error is a ``RuleSetError`` naming
the file and the key path. The cross-checks: ``warn_lines ≤ retry_lines``, ``warn_sentences ≤
retry_sentences``, ``warn_topics ≤ retry_topics``, ``warn_score ≤ pass_score``, ``review.retry_below <
review.pass_from`` (both from 1 to 5); message templates may use only their rule's placeholders; no name
may belong to two characters.

``RuleSet.review`` (``ReviewThresholds``, the LLM review §7.1) and ``RuleSet.session``
(``SessionThresholds``, across turns §8: topic loop, hook depth, the most pending interventions per
speaker, the history lines in the prompts; each an integer within ``SESSION_RANGES``) are the
thresholds of the stages after the hard rules; the review's numbers are stored as floats (``4`` and
``4.0`` hash the same).

``RuleSet.content_hash`` is the sha256 of the canonical JSON (sorted keys, no spaces, UTF-8) of the
validated rule set (its ``characters`` key aside) and of every character as loaded, defaults filled in:
two files with the same content hash the same, whatever their names, comments or layout.
``RuleSet.canonical`` is that document, ``{"ruleset": {...}, "characters": {id: {...}}}`` (what
``director.rules.diff`` compares).
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path
from types import MappingProxyType

from director.rules.characters import Character, read_character
from director.rules.errors import RuleSetError, UnknownCharacter
from director.rules.prepared import LANGUAGES, MESSAGE_FIELDS, Prepared, template_problem
from director.rules.schema import Reader, child, read_yaml
from director.rules.thresholds import SCORE_MAX, SCORE_MIN, SESSION_RANGES, ReviewThresholds, SessionThresholds

PACKAGE = Path(__file__).resolve().parent
DEFAULT_RULE_SET = PACKAGE / "rulesets" / "default.yaml"
CHARACTERS_DIR = PACKAGE / "characters"
_ID = re.compile(r"[a-z][a-z0-9_]*\Z")

_SECTIONS = (
    "version",
    "thresholds",
    "review",
    "session",
    "setting",
    "praise",
    "contradiction",
    "topics",
    "topic_loop",
    "messages",
)
_REVIEW = ("retry_below", "pass_from")
_THRESHOLDS = {
    "format": ("warn_lines", "retry_lines"),
    "scatter": ("warn_sentences", "warn_topics", "retry_sentences", "retry_topics"),
    "tone": ("pass_score", "warn_score"),
    "topic_loop": ("repeat_count",),
}
_WORD_LISTS = {
    "setting": (
        "phrases",
        "moves",
        "visits",
        "homes",
        "own_homes",
        "attributive_endings",
        "topic_endings",
        "hypothetical_endings",
        "mistaken_endings",
        "reported_endings",
        "state_nouns",
        "speaker",
        "listener",
        "both",
        "honorifics",
    ),
    "praise": (
        "evaluation_words",
        "targets",
        "predicates",
        "predicate_negations",
        "predicate_endings",
        "subject_particles",
    ),
    "contradiction": (
        "negative_prefixes",
        "negative_prefix_words",
        "not_negative_prefix_words",
        "tag_endings",
        "question_endings",
        "formal_nouns",
        "hedge_verbs",
    ),
    "topics": ("stop_heads", "shift_words"),
    "topic_loop": ("stop_words",),
}
# Switches of a word-list section, each true or false: the reading of the seed a rule set chooses.
_FLAGS = {"praise": ("implicit_listener",)}


class RuleSet:
    """A loaded, validated rule set with its characters, compiled once for ``check_utterance``.

    ``characters`` maps each canonical id to its names (``{"ayu": ("あゆ",), "yana": ("やな",)}``), ``cast``
    each id to its ``Character``, ``config`` is the validated rule set, ``path`` the file it came from;
    ``review`` and ``session`` are the thresholds of the LLM review and of the session state;
    ``canonical`` is the hashed document (module docstring).
    """

    __slots__ = (
        "_names",
        "canonical",
        "cast",
        "characters",
        "config",
        "content_hash",
        "path",
        "prepared",
        "review",
        "session",
        "version",
    )

    def __init__(
        self, *, path: Path, config: dict, cast: dict[str, Character], content_hash: str, canonical: dict
    ) -> None:
        self.path = path
        self.canonical = canonical
        self.version: str = config["version"]
        self.config = config
        self.cast = MappingProxyType(cast)
        self.characters = MappingProxyType({key: character.names for key, character in cast.items()})
        self.content_hash = content_hash
        self.review = ReviewThresholds(**config["review"])
        self.session = SessionThresholds(**config["session"])
        names = {}
        for key, character in cast.items():
            names[key] = key
            for name in character.names:
                names[name] = key
        self._names = names
        self.prepared = Prepared(config, cast)

    def character(self, speaker: str) -> Character:
        """The character ``speaker`` names: its id (any ASCII case) or one of its names, spaces trimmed."""
        if isinstance(speaker, str):
            key = (
                self._names.get(speaker) or self._names.get(speaker.strip()) or self._names.get(speaker.strip().lower())
            )
            if key is not None:
                return self.cast[key]
        raise UnknownCharacter(speaker, self.characters)

    def __repr__(self) -> str:
        return f"<RuleSet {self.path.name} version {self.version} {self.content_hash[:12]}>"


def load_rule_set(path: str | Path | None = None, *, characters_dir: str | Path | None = None) -> RuleSet:
    """The rule set of ``path`` (default: the package's ``rulesets/default.yaml``); see the module docstring."""
    path = Path(path) if path is not None else DEFAULT_RULE_SET
    reader = Reader(path.name)
    config = _read_config(reader, read_yaml(path))
    cast, canonical = _read_cast(Path(characters_dir) if characters_dir is not None else CHARACTERS_DIR)
    for key, raw in (config.pop("characters", None) or {}).items():
        if not isinstance(key, str) or not _ID.match(key):
            raise reader.error(child("characters", key), "expected an id of lowercase ASCII letters, digits and _")
        cast[key], canonical[key] = read_character(raw, file=path.name, path=child("characters", key), key=key)
    _check_names(reader, cast)
    document = {"ruleset": config, "characters": canonical}
    encoded = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
    content_hash = hashlib.sha256(encoded).hexdigest()
    return RuleSet(path=path, config=config, cast=cast, content_hash=content_hash, canonical=document)


@cache
def default_rule_set() -> RuleSet:
    """The default rule set, loaded once per process (for ``check_utterance(rules=None)``)."""
    return load_rule_set()


def _read_config(reader: Reader, raw: object) -> dict:
    data = reader.fields(raw, "", _SECTIONS, ("characters",))
    config = {"version": reader.text(data["version"], "version", 'a non-empty string (quote it: version: "1.0")')}
    thresholds = reader.fields(data["thresholds"], "thresholds", _THRESHOLDS)
    config["thresholds"] = {}
    for section, keys in _THRESHOLDS.items():
        path = child("thresholds", section)
        values = reader.fields(thresholds[section], path, keys)
        minimum = {"tone": 0, "topic_loop": 2}.get(section, 1)
        maximum = 3 if section == "tone" else None
        config["thresholds"][section] = {
            key: reader.integer(values[key], child(path, key), minimum, maximum) for key in keys
        }
    _check_order(reader, config["thresholds"])
    review = reader.fields(data["review"], "review", _REVIEW)
    config["review"] = {key: reader.number(review[key], child("review", key), SCORE_MIN, SCORE_MAX) for key in _REVIEW}
    if config["review"]["retry_below"] >= config["review"]["pass_from"]:
        raise reader.error(
            "review.retry_below", f"expected a number < pass_from ({review['pass_from']}), got {review['retry_below']}"
        )
    session = reader.fields(data["session"], "session", SESSION_RANGES)
    config["session"] = {
        key: reader.integer(session[key], child("session", key), *SESSION_RANGES[key]) for key in SESSION_RANGES
    }
    for section, keys in _WORD_LISTS.items():
        flags = _FLAGS.get(section, ())
        values = reader.fields(data[section], section, flags + keys)
        config[section] = {key: reader.flag(values[key], child(section, key)) for key in flags}
        config[section].update({key: reader.words(values[key], child(section, key)) for key in keys})
    config["messages"] = _read_messages(reader, data["messages"])
    characters = data.get("characters")
    if characters is not None and not isinstance(characters, dict):
        raise reader.error("characters", f"expected a mapping of character id to character, got {characters!r}")
    config["characters"] = characters
    return config


def _check_order(reader: Reader, thresholds: dict) -> None:
    for section, low, high in (
        ("format", "warn_lines", "retry_lines"),
        ("scatter", "warn_sentences", "retry_sentences"),
        ("scatter", "warn_topics", "retry_topics"),
        ("tone", "warn_score", "pass_score"),
    ):
        values = thresholds[section]
        if values[low] > values[high]:
            raise reader.error(
                f"thresholds.{section}.{low}",
                f"expected an integer ≤ {high} ({values[high]}), got {values[low]}",
            )


def _read_messages(reader: Reader, raw: object) -> dict:
    data = reader.fields(raw, "messages", MESSAGE_FIELDS)
    messages = {}
    for rule, spec in MESSAGE_FIELDS.items():
        path = child("messages", rule)
        entry = reader.fields(data[rule], path, spec.keys)
        messages[rule] = {}
        for key in spec.keys:
            texts = reader.fields(entry[key], child(path, key), LANGUAGES)
            for language in LANGUAGES:
                where = child(child(path, key), language)
                template = reader.text(texts[language], where)
                problem = template_problem(template, rule, key)
                if problem:
                    raise reader.error(where, problem)
            messages[rule][key] = {language: texts[language] for language in LANGUAGES}
    return messages


def _read_cast(folder: Path) -> tuple[dict[str, Character], dict[str, dict]]:
    files = sorted(folder.glob("*.yaml"))
    if not files:
        raise RuleSetError(str(folder), "", "no character files (*.yaml) in this folder")
    cast, canonical = {}, {}
    for file in files:
        if not _ID.match(file.stem):
            raise RuleSetError(file.name, "", "expected a file name of lowercase ASCII letters, digits and _ (the id)")
        cast[file.stem], canonical[file.stem] = read_character(read_yaml(file), file=file.name, path="", key=file.stem)
    return cast, canonical


def _check_names(reader: Reader, cast: dict[str, Character]) -> None:
    owners: dict[str, str] = {}
    for key, character in cast.items():
        for name in {key, *character.names}:
            if owners.setdefault(name, key) != key:
                raise reader.error("characters", f"the name {name!r} belongs to both {owners[name]} and {key}")
