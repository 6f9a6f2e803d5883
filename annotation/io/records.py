"""Reading and validating the seed A.3 JSONL formats (pure Python, no Django).

Every problem names the file, the line and the JSON path of the field, and what is accepted.
Readers stream line by line; callers collect all problems before storing anything.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from annotation.axes import AXES, MAX_CONTEXT_OFFSET, SCORES
from core.jsonl import (  # noqa: F401  (re-exported: the readers' public names)
    MAX_PROBLEMS,
    InputError,
    Problem,
    ProblemLog,
    describe_value,
    gc_paused,
    gettext_noop,
    got,
    json_type,
    load_records_with_unique_ids,
    read_jsonl,
    readable_paths,
)
from core.names import id_problem

MAX_ID_LENGTH = 200
ANNOTATOR_ID = re.compile(r"^[\w.@+-]+\Z")  # what a Django user name accepts
SPEAKERS = ("user", "ai")
# The top-level fields of each format (seed A.3; ratings may add seconds_spent). The seed's formats name
# no other key; inside a context turn (``Dict[str, str]`` in seed A.8) more keys are accepted and not stored.
DIALOGUE_FIELDS = ("id", "user", "response", "context")
RATING_FIELDS = ("id", "annotator_id", "timestamp", "annotations", "confidence", "seconds_spent")
# What may make an id unsafe (core.names.id_problem says what exactly): the readers' fast paths look for
# this first and leave a match to the detailed checks.
_RISKY_ID = re.compile(r"[\x00-\x1f\x7f-\x9f]|^\s*[=+\-@\uff1d\uff0b\uff0d\uff20]")


@dataclass(frozen=True, slots=True)
class DialogueRecord:
    id: str
    user: str
    response: str
    context: list[dict] = field(default_factory=list)
    file: str = ""
    line: int = 0

    def as_json(self) -> dict:
        return {"id": self.id, "user": self.user, "response": self.response, "context": self.context}


@dataclass(frozen=True, slots=True)
class AnnotationRecord:
    id: str
    annotator_id: str
    timestamp: datetime
    scores: dict[str, int]
    confidence: dict[str, float]
    seconds_spent: float | None = None
    file: str = ""
    line: int = 0

    def as_json(self) -> dict:
        data = {
            "id": self.id,
            "annotator_id": self.annotator_id,
            "timestamp": format_timestamp(self.timestamp),
            "annotations": dict(self.scores),
            "confidence": dict(self.confidence),
        }
        if self.seconds_spent is not None:
            data["seconds_spent"] = self.seconds_spent
        return data


def format_timestamp(value: datetime) -> str:
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


MISSING = object()


class _Checker:
    """Field checks that record a Problem and return None on a bad value."""

    def __init__(self, file: str, line: int, log: list[Problem]) -> None:
        self.file, self.line, self.log = file, line, log

    def fail(self, path: str, template: str, kind: str = "format", **params) -> None:
        self.log.append(Problem.of(self.file, self.line, path, template, kind, **params))

    def get(self, obj: dict, key: str, path: str):
        """The value, or MISSING after recording a problem when the field is absent."""
        if key not in obj:
            self.fail(f"{path}.{key}", gettext_noop("missing required field"))
            return MISSING
        return obj[key]

    def string(self, value, path: str, *, max_length: int | None = None, allow_empty: bool = False) -> str | None:
        if not isinstance(value, str):
            self.fail(path, gettext_noop("must be a string, got %(type_text)s"), type_text=json_type(value))
            return None
        if not allow_empty and not value.strip():
            self.fail(path, gettext_noop("must not be empty"))
            return None
        if max_length is not None and len(value) > max_length:
            template = gettext_noop("must be at most %(limit)s characters, got %(length)s")
            self.fail(path, template, limit=max_length, length=len(value))
            return None
        return value

    def safe_id(self, value: str | None, path: str) -> str | None:
        """``value`` (an id, or None) unless ``core.names.id_problem`` refuses it: a formula-like start or a
        control character."""
        if value is None:
            return None
        found = id_problem(value)
        if found is not None:
            template, params = found
            self.fail(path, template, **params)
            return None
        return value

    def integer(self, value, path: str, *, allowed: Iterable[int], what: str, **what_params) -> int | None:
        """``what`` is a template (filled with ``what_params``) saying which integers are accepted."""
        if isinstance(value, bool) or not isinstance(value, int):
            template = gettext_noop("must be an integer %(what_text)s, got %(type_text)s%(shown)s")
            self.fail(path, template, what_text=what, **what_params, **got(value))
            return None
        if value not in allowed:
            template = gettext_noop("must be %(what_text)s, got %(value)s")
            self.fail(path, template, "range", what_text=what, value=value, **what_params)
            return None
        return value

    def number(self, value, path: str, *, low: float, high: float) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            template = gettext_noop("must be a number from %(low)s to %(high)s, got %(type_text)s%(shown)s")
            self.fail(path, template, low=low, high=high, **got(value))
            return None
        if not low <= value <= high:
            template = gettext_noop("must be from %(low)s to %(high)s, got %(value)s")
            self.fail(path, template, "range", low=low, high=high, value=value)
            return None
        return float(value)


_CONTEXT_OFFSETS = frozenset(o for o in range(-MAX_CONTEXT_OFFSET, MAX_CONTEXT_OFFSET + 1) if o != 0)


def _fast_context(raw) -> list[dict] | None:
    """The context as stored, if it is well-formed (the common case); None sends it to the detailed checks."""
    if type(raw) is not list:
        return None
    seen = set()
    previous = -100
    ordered = True
    for turn in raw:
        if type(turn) is not dict or len(turn) != 3:
            return None
        offset, speaker, text = turn.get("turn"), turn.get("speaker"), turn.get("text")
        if type(offset) is not int or offset not in _CONTEXT_OFFSETS or offset in seen:
            return None
        if speaker not in SPEAKERS or type(text) is not str:
            return None
        seen.add(offset)
        ordered = ordered and offset > previous
        previous = offset
    return raw if ordered else sorted(raw, key=lambda t: t["turn"])


def parse_dialogue(obj: dict, *, file: str, line: int) -> tuple[DialogueRecord | None, list[Problem]]:
    dialogue_id, user, response = obj.get("id"), obj.get("user"), obj.get("response")
    if (
        type(dialogue_id) is str
        and type(user) is str
        and type(response) is str
        and 0 < len(dialogue_id) <= MAX_ID_LENGTH
        and dialogue_id.strip()
        and user.strip()
        and response.strip()
        and not _RISKY_ID.search(dialogue_id)
    ):
        context = _fast_context(obj.get("context", []))
        if context is not None:
            return DialogueRecord(dialogue_id, user, response, context, file, line), []
    return _parse_dialogue_checked(obj, file=file, line=line)


def _parse_dialogue_checked(obj: dict, *, file: str, line: int) -> tuple[DialogueRecord | None, list[Problem]]:
    problems: list[Problem] = []
    check = _Checker(file, line, problems)
    raw_id = check.get(obj, "id", "$")
    dialogue_id = check.string(raw_id, "$.id", max_length=MAX_ID_LENGTH) if raw_id is not MISSING else None
    dialogue_id = check.safe_id(dialogue_id, "$.id")
    user = check.get(obj, "user", "$")
    user = check.string(user, "$.user") if user is not MISSING else None
    response = check.get(obj, "response", "$")
    response = check.string(response, "$.response") if response is not MISSING else None
    context = _parse_context(check, obj.get("context", []))
    if problems:
        return None, problems
    return DialogueRecord(dialogue_id, user, response, context, file, line), []


def _parse_context(check: _Checker, raw) -> list[dict]:
    if not isinstance(raw, list):
        check.fail("$.context", gettext_noop("must be an array of turns, got %(type_text)s"), type_text=json_type(raw))
        return []
    turns: list[dict] = []
    seen: set[int] = set()
    allowed = [o for o in range(-MAX_CONTEXT_OFFSET, MAX_CONTEXT_OFFSET + 1) if o != 0]
    what = gettext_noop("a turn offset from -%(max_offset)s to %(max_offset)s except 0 (context_window 7)")
    for index, turn in enumerate(raw):
        path = f"$.context[{index}]"
        if not isinstance(turn, dict):
            template = gettext_noop("must be an object with turn, speaker and text, got %(type_text)s")
            check.fail(path, template, type_text=json_type(turn))
            continue
        offset = check.get(turn, "turn", path)
        if offset is not MISSING:
            offset = check.integer(offset, f"{path}.turn", allowed=allowed, what=what, max_offset=MAX_CONTEXT_OFFSET)
        else:
            offset = None
        speaker = check.get(turn, "speaker", path)
        if speaker is MISSING:
            speaker = None
        elif speaker not in SPEAKERS:
            template = gettext_noop('must be "user" or "ai", got %(value)s')
            check.fail(f"{path}.speaker", template, value=json.dumps(speaker, ensure_ascii=False))
            speaker = None
        text = check.get(turn, "text", path)
        text = check.string(text, f"{path}.text", allow_empty=True) if text is not MISSING else None
        if offset is not None and offset in seen:
            check.fail(f"{path}.turn", gettext_noop("turn %(turn)s appears twice"), turn=offset)
            continue
        if offset is not None and speaker is not None and text is not None:
            seen.add(offset)
            turns.append({"turn": offset, "speaker": speaker, "text": text})
    turns.sort(key=lambda t: t["turn"])
    return turns


def parse_annotation(obj: dict, *, file: str, line: int) -> tuple[AnnotationRecord | None, list[Problem]]:
    record = _fast_annotation(obj, file, line)
    if record is not None:
        return record, []
    return _parse_annotation_checked(obj, file=file, line=line)


if AXES != ("social", "avoidant", "mechanical", "self"):  # _fast_annotation spells the axes out
    raise ImportError("records._fast_annotation must be updated for the new axes")

_GOOD_ANNOTATOR_IDS: set[str] = set()  # annotator ids already checked against ANNOTATOR_ID


def _fast_annotation(obj: dict, file: str, line: int) -> AnnotationRecord | None:
    """The record if every field is plainly valid (the common case); None sends it to the detailed checks.

    Unrolled over the four axes on purpose: this runs once per rating, 300k times for a 100k-item batch.
    """
    dialogue_id, annotator, stamp = obj.get("id"), obj.get("annotator_id"), obj.get("timestamp")
    raw_scores, raw_confidence = obj.get("annotations"), obj.get("confidence")
    if (
        type(dialogue_id) is not str
        or type(annotator) is not str
        or type(stamp) is not str
        or type(raw_scores) is not dict
        or type(raw_confidence) is not dict
        or len(raw_scores) != 4
        or len(raw_confidence) != 4
        or not 0 < len(dialogue_id) <= MAX_ID_LENGTH
        or not dialogue_id.strip()
        or _RISKY_ID.search(dialogue_id)
    ):
        return None
    if annotator not in _GOOD_ANNOTATOR_IDS:
        if len(annotator) > 150 or not ANNOTATOR_ID.match(annotator) or _RISKY_ID.search(annotator):
            return None
        if len(_GOOD_ANNOTATOR_IDS) < 100_000:
            _GOOD_ANNOTATOR_IDS.add(annotator)
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    social, avoidant = raw_scores.get("social"), raw_scores.get("avoidant")
    mechanical, self_ = raw_scores.get("mechanical"), raw_scores.get("self")
    if not (
        type(social) is int
        and type(avoidant) is int
        and type(mechanical) is int
        and type(self_) is int
        and 1 <= social <= 5
        and 1 <= avoidant <= 5
        and 1 <= mechanical <= 5
        and 1 <= self_ <= 5
    ):
        return None
    c_social, c_avoidant = raw_confidence.get("social"), raw_confidence.get("avoidant")
    c_mechanical, c_self = raw_confidence.get("mechanical"), raw_confidence.get("self")
    numbers = (float, int)
    if not (
        type(c_social) in numbers
        and type(c_avoidant) in numbers
        and type(c_mechanical) in numbers
        and type(c_self) in numbers
        and 0 <= c_social <= 1
        and 0 <= c_avoidant <= 1
        and 0 <= c_mechanical <= 1
        and 0 <= c_self <= 1
    ):
        return None
    seconds = obj.get("seconds_spent")
    if seconds is not None:
        if type(seconds) not in numbers or not 0 <= seconds <= 86_400:
            return None
        seconds = float(seconds)
    return _new_record(
        dialogue_id,
        annotator,
        when,
        {"social": social, "avoidant": avoidant, "mechanical": mechanical, "self": self_},
        {
            "social": float(c_social),
            "avoidant": float(c_avoidant),
            "mechanical": float(c_mechanical),
            "self": float(c_self),
        },
        seconds,
        file,
        line,
    )


# A frozen dataclass's __init__ sets each field through object.__setattr__: 40% of _fast_annotation's
# time. The fields' slot descriptors set them directly; the record is the same (tested), and frozen after.
_FIELDS = ("id", "annotator_id", "timestamp", "scores", "confidence", "seconds_spent", "file", "line")
if tuple(f.name for f in dataclasses.fields(AnnotationRecord)) != _FIELDS:
    raise ImportError("records._new_record must be updated for AnnotationRecord's fields")
_SET_FIELDS = tuple(AnnotationRecord.__dict__[name].__set__ for name in _FIELDS)
_set_id, _set_annotator, _set_timestamp, _set_scores, _set_confidence, _set_seconds, _set_file, _set_line = _SET_FIELDS


def _new_record(dialogue_id, annotator, timestamp, scores, confidence, seconds, file, line) -> AnnotationRecord:
    """``AnnotationRecord(...)`` with these fields, made without the frozen __init__ (no checks, no defaults)."""
    record = object.__new__(AnnotationRecord)
    _set_id(record, dialogue_id)
    _set_annotator(record, annotator)
    _set_timestamp(record, timestamp)
    _set_scores(record, scores)
    _set_confidence(record, confidence)
    _set_seconds(record, seconds)
    _set_file(record, file)
    _set_line(record, line)
    return record


def _parse_annotation_checked(obj: dict, *, file: str, line: int) -> tuple[AnnotationRecord | None, list[Problem]]:
    problems: list[Problem] = []
    check = _Checker(file, line, problems)
    raw_id = check.get(obj, "id", "$")
    dialogue_id = check.string(raw_id, "$.id", max_length=MAX_ID_LENGTH) if raw_id is not MISSING else None
    dialogue_id = check.safe_id(dialogue_id, "$.id")
    raw_annotator = check.get(obj, "annotator_id", "$")
    annotator = check.string(raw_annotator, "$.annotator_id", max_length=150) if raw_annotator is not MISSING else None
    annotator = check.safe_id(annotator, "$.annotator_id")
    if annotator is not None and not ANNOTATOR_ID.match(annotator):
        template = gettext_noop("%(value)s may contain only letters, digits and @ . + - _")
        check.fail("$.annotator_id", template, value=repr(annotator))
        annotator = None
    timestamp = _parse_timestamp(check, check.get(obj, "timestamp", "$"))
    scores = _parse_axes(
        check, obj, "annotations", lambda v, p: check.integer(v, p, allowed=SCORES, what=gettext_noop("from 1 to 5"))
    )
    confidence = _parse_axes(check, obj, "confidence", lambda v, p: check.number(v, p, low=0.0, high=1.0))
    seconds = obj.get("seconds_spent")
    if seconds is not None:
        seconds = check.number(seconds, "$.seconds_spent", low=0.0, high=86_400.0)
    if problems:
        return None, problems
    return AnnotationRecord(dialogue_id, annotator, timestamp, scores, confidence, seconds, file, line), []


def _parse_timestamp(check: _Checker, raw) -> datetime | None:
    if raw is MISSING:
        return None
    accepted = gettext_noop('an ISO 8601 time with a time zone, e.g. "2025-01-01T10:00:00Z"')
    if not isinstance(raw, str):
        template = gettext_noop("must be %(accepted_text)s, got %(type_text)s")
        check.fail("$.timestamp", template, accepted_text=accepted, type_text=json_type(raw))
        return None
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        template = gettext_noop("must be %(accepted_text)s, got %(value)s")
        check.fail("$.timestamp", template, accepted_text=accepted, value=json.dumps(raw, ensure_ascii=False))
        return None
    if value.tzinfo is None:
        check.fail("$.timestamp", gettext_noop("has no time zone; must be %(accepted_text)s"), accepted_text=accepted)
        return None
    return value


def _parse_axes(check: _Checker, obj: dict, key: str, parse_value) -> dict | None:
    raw = check.get(obj, key, "$")
    if raw is MISSING:
        return None
    if not isinstance(raw, dict):
        template = gettext_noop("must be an object with the axes %(axes)s, got %(type_text)s")
        check.fail(f"$.{key}", template, axes=", ".join(AXES), type_text=json_type(raw))
        return None
    values = {}
    for axis in AXES:
        if axis not in raw:
            check.fail(f"$.{key}.{axis}", gettext_noop("missing required field"))
            continue
        values[axis] = parse_value(raw[axis], f"$.{key}.{axis}")
    unknown = sorted(set(raw) - set(AXES))
    if unknown:
        template = gettext_noop("unknown axis %(unknown)s; the axes are %(axes)s")
        check.fail(f"$.{key}", template, unknown=", ".join(unknown), axes=", ".join(AXES))
    return values if None not in values.values() and len(values) == len(AXES) else None


UNKNOWN_FIELD = gettext_noop("unknown field; the fields are %(fields)s (%(option_text)s ignores unknown fields)")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,59}\Z")
MAX_COUNTED_KEY = 100  # characters of an ignored key kept in the counts


def key_path(key: str) -> str:
    """The JSON path of a top-level key: ``$.note``, or ``$["a b"]`` for a key that is not a plain name (shown
    as JSON, cut to 60 characters)."""
    if _PLAIN_KEY.match(key):
        return f"$.{key}"
    shown = key if len(key) <= 60 else key[:60] + "…"
    return "$[" + json.dumps(shown) + "]"


@dataclass
class UnknownKeys:
    """What an import does with top-level keys beyond its format's fields (``DIALOGUE_FIELDS``, ``RATING_FIELDS``).

    Each is a problem of its line (``$.note: unknown field; the fields are ...``), so a key with a typo or data
    that would be lost is never dropped silently; with ``ignore`` (an explicit option, named ``option_text`` in
    the hints) they are left out and counted: ``counts`` maps each key (cut to ``MAX_COUNTED_KEY`` characters)
    to the number of lines that had it.
    """

    ignore: bool = False
    option_text: str = "--ignore-unknown-keys"
    counts: Counter = field(default_factory=Counter)

    def problems(self, obj: dict, fields: tuple[str, ...], file: str, line: int) -> list[Problem]:
        unknown = [key for key in obj if key not in fields]
        if not unknown:
            return []
        if self.ignore:
            self.counts.update(key[:MAX_COUNTED_KEY] for key in unknown)
            return []
        accepted = ", ".join(fields)
        return [
            Problem.of(file, line, key_path(key), UNKNOWN_FIELD, fields=accepted, option_text=self.option_text)
            for key in unknown
        ]

    def parser(self, parse: Callable, fields: tuple[str, ...]) -> Callable:
        """``parse(obj, file=, line=)`` that also checks ``obj``'s top-level keys."""

        def checked(obj: dict, *, file: str, line: int):
            unknown = self.problems(obj, fields, file, line)
            record, problems = parse(obj, file=file, line=line)
            if unknown:
                return None, [*problems, *unknown]
            return record, problems

        return checked


def load_dialogues(
    paths: Iterable[str | Path], *, log: ProblemLog | None = None, unknown_keys: UnknownKeys | None = None
) -> list[DialogueRecord]:
    """Parse and validate dialogue files; duplicate ids across all files are problems. Top-level keys beyond
    ``DIALOGUE_FIELDS`` are checked by ``unknown_keys`` (the imports), else left alone (the file checks)."""
    parse = parse_dialogue if unknown_keys is None else unknown_keys.parser(parse_dialogue, DIALOGUE_FIELDS)
    return load_records_with_unique_ids(paths, parse, log=log)


@gc_paused()
def load_annotations(
    paths: Iterable[str | Path], *, log: ProblemLog | None = None, unknown_keys: UnknownKeys | None = None
) -> list[AnnotationRecord]:
    """Parse and validate annotation files; a repeated (id, annotator_id) anywhere is a problem. Top-level keys
    beyond ``RATING_FIELDS`` are checked by ``unknown_keys`` (the imports), else left alone (the file checks)."""
    log = log if log is not None else ProblemLog()
    records: list[AnnotationRecord] = []
    first_seen: dict[tuple[str, str], tuple[str, int]] = {}
    for path in paths:
        name = str(path)
        for number, value in read_jsonl(path):
            if type(value) is not dict:
                log.add(value)
                continue
            record = _fast_annotation(value, name, number)  # parse_annotation, one call less per line
            # A record of the fast path has the five required fields: only more than those can be unknown.
            if unknown_keys is not None and (record is None or len(value) > 5 + ("seconds_spent" in value)):
                unknown = unknown_keys.problems(value, RATING_FIELDS, name, number)
                if unknown:
                    if record is None:
                        _record, problems = _parse_annotation_checked(value, file=name, line=number)
                        log.extend(problems)
                    log.extend(unknown)
                    continue
            if record is None:
                record, problems = _parse_annotation_checked(value, file=name, line=number)
                if problems:
                    log.extend(problems)
                    continue
            key = (record.id, record.annotator_id)
            seen = first_seen.setdefault(key, (name, number))
            if seen[1] != number or seen[0] != name:
                first = "{}:{}".format(*seen)
                template = gettext_noop("duplicate rating of %(id)s by %(annotator)s (first at %(first)s)")
                ids = {"id": repr(record.id), "annotator": repr(record.annotator_id)}
                log.add(Problem.of(name, number, "$", template, **ids, first=first))
                continue
            records.append(record)
    return records
