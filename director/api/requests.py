"""The bodies of the Director's API, checked strictly (pure): unknown fields, wrong types and null are refused.

``RequestError`` names the field (a JSON path such as ``history[2].speaker``) and what is accepted: its
``message`` in English, ``translated(gettext)`` in the reader's language (the view's). Its templates are
msgids marked with ``gettext_noop`` so that ``makemessages`` finds them, without importing Django here;
their parameters (field names, accepted values, limits) are never translated.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping

from core.query_params import RANGE

STATUSES = ("PASS", "WARN", "RETRY", "MODIFY")
LANGUAGES = ("ja", "en")
MAX_TEXT = 2000
MAX_HISTORY = 50


def gettext_noop(message: str) -> str:
    """``message`` unchanged: marks a template for the translation catalogue (translated where shown)."""
    return message


NOT_AN_OBJECT = gettext_noop("expected a JSON object")
UNKNOWN_FIELD = gettext_noop("unknown field; accepted: %(accepted)s")
REQUIRED_STRING = gettext_noop("required: a string")
STRING = gettext_noop("expected a string")
NOT_EMPTY = gettext_noop("must not be empty")
TOO_LONG = gettext_noop("at most %(limit)s characters")
BOOLEAN = gettext_noop("expected true or false")
ONE_OF = gettext_noop("expected one of %(choices)s")
HISTORY = gettext_noop('expected a list of {"speaker", "text"}')
HISTORY_LINES = gettext_noop("at most %(limit)s lines")
HISTORY_LINE = gettext_noop('expected {"speaker", "text"}')
SPEAKERS = gettext_noop('expected two character names, e.g. ["yana", "ayu"]')
EXPECTED_TURN = gettext_noop("expected the session's turn as a whole number ≥ 0")
CHARACTER_IDS = gettext_noop("expected two different character ids from %(choices)s")
UNKNOWN_SPEAKER = gettext_noop("unknown speaker %(speaker)s; known: %(known)s")
MAX_TURN = 2**63 - 1  # the largest integer a JSON body may hold (core.json_strict)


class RequestError(ValueError):
    """A refusal: the ``field`` refused (``$`` the whole body, None the request), an English ``template``
    and its ``params``."""

    def __init__(self, field: str | None, template: str, **params) -> None:
        self.field = field
        self.template = template
        self.params = params
        self.message = template % params if params else template
        super().__init__(f"{field}: {self.message}" if field else self.message)

    def translated(self, gettext) -> str:
        text = gettext(self.template)
        return text % self.params if self.params else text

    def within(self, prefix: str) -> RequestError:
        """The same refusal of a field inside ``prefix`` (``history[2]`` + ``speaker``)."""
        return RequestError(f"{prefix}.{self.field}", self.template, **self.params)


def shown_value(value: object, limit: int = 40) -> str:
    """A refused JSON value as a message shows it (``99``, ``"3"``, ``true``), cut at ``limit`` characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text[:limit] + ("…" if len(text) > limit else "")


def _object(body: object, fields: tuple[str, ...]) -> dict:
    if not isinstance(body, dict):  # a JSON null too (no body at all reads as {})
        raise RequestError("$", NOT_AN_OBJECT)
    for key in body:
        if key not in fields:
            raise RequestError(key, UNKNOWN_FIELD, accepted=", ".join(fields))
    return body


def _text(body: dict, key: str, *, required: bool = False, default: str = "", limit: int = MAX_TEXT) -> str:
    if key not in body:
        if required:
            raise RequestError(key, REQUIRED_STRING)
        return default
    value = body[key]
    if not isinstance(value, str):
        raise RequestError(key, STRING)
    if required and not value.strip():
        raise RequestError(key, NOT_EMPTY)
    if len(value) > limit:
        raise RequestError(key, TOO_LONG, limit=limit)
    return value


def _whole(value: object) -> int | None:
    """``value`` as a whole number (``3`` or ``3.0``, as JSON Schema reads an integer), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def _speaker(body: dict, key: str, characters: Mapping[str, Collection[str]], *, required: bool) -> str | None:
    """A character's id or one of its names, exactly as the character files spell them (``characters``: the names
    of each id)."""
    if key not in body and not required:
        return None
    value = _text(body, key, required=True, limit=50)
    if value not in characters and not any(value in names for names in characters.values()):
        known = ", ".join(f"{key} ({', '.join(names)})" if names else key for key, names in characters.items())
        raise RequestError(key, UNKNOWN_SPEAKER, speaker=repr(value), known=known)
    return value


def _flag(body: dict, key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise RequestError(key, BOOLEAN)
    return value


def _choice(body: dict, key: str, choices: tuple[str, ...], default: str) -> str:
    value = body.get(key, default)
    if value not in choices:
        raise RequestError(key, ONE_OF, choices=", ".join(choices))
    return value


def parse_check(body: object, *, characters: Mapping[str, Collection[str]]) -> dict:
    """``{text, speaker, history: [(speaker, text)], scene, llm, language}`` of ``POST /api/director/check``;
    ``characters``: the names of each character id (a speaker is one of them, or an id)."""
    body = _object(body, ("text", "speaker", "history", "scene", "llm", "language"))
    history = body.get("history", [])
    if not isinstance(history, list):
        raise RequestError("history", HISTORY)
    if len(history) > MAX_HISTORY:
        raise RequestError("history", HISTORY_LINES, limit=MAX_HISTORY)
    lines = []
    for index, line in enumerate(history):
        where = f"history[{index}]"
        if not isinstance(line, dict) or set(line) - {"speaker", "text"}:
            raise RequestError(where, HISTORY_LINE)
        try:
            lines.append((_speaker(line, "speaker", characters, required=True), _text(line, "text", required=True)))
        except RequestError as exc:
            raise exc.within(where) from None
    return {
        "text": _text(body, "text", required=True),
        "speaker": _speaker(body, "speaker", characters, required=True),
        "history": lines,
        "scene": _text(body, "scene"),
        "llm": _flag(body, "llm", False),
        "language": _choice(body, "language", LANGUAGES, "ja"),
    }


def parse_session(body: object, *, characters: Collection[str]) -> dict:
    """The body of ``POST /api/director/sessions``; ``characters``: the characters' ids (``speakers`` names two)."""
    body = _object(body, ("scene", "speakers", "title", "maxRetries", "llmReview", "model"))
    speakers = body.get("speakers", ["yana", "ayu"])
    if not (isinstance(speakers, list) and len(speakers) == 2 and all(isinstance(s, str) for s in speakers)):
        raise RequestError("speakers", SPEAKERS)
    if not set(speakers) <= set(characters) or speakers[0] == speakers[1]:
        raise RequestError("speakers", CHARACTER_IDS, choices=", ".join(characters))
    retries = _whole(body.get("maxRetries", 3))
    if retries is None or not 0 <= retries <= 10:
        raise RequestError("maxRetries", RANGE, minimum=0, maximum=10, value=shown_value(body.get("maxRetries")))
    return {
        "scene": _text(body, "scene", required=True),
        "speakers": speakers,
        "title": _text(body, "title", limit=200),
        "max_retries": retries,
        "llm_review": _flag(body, "llmReview", True),
        "model": _text(body, "model", limit=200),
    }


def parse_turn(body: object, *, characters: Mapping[str, Collection[str]]) -> dict:
    """The body of ``POST /api/director/sessions/<id>/turns``: every field optional, none of them null."""
    body = _object(body, ("speaker", "text", "expectedTurn", "language"))
    expected = _whole(body["expectedTurn"]) if "expectedTurn" in body else None
    if "expectedTurn" in body and (expected is None or not 0 <= expected <= MAX_TURN):
        raise RequestError("expectedTurn", EXPECTED_TURN)
    return {
        "speaker": _speaker(body, "speaker", characters, required=False),
        "text": _text(body, "text", required=True) if "text" in body else None,
        "expected_turn": expected,
        "language": _choice(body, "language", LANGUAGES, "ja"),
    }
