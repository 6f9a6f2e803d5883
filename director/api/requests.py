"""The bodies and filters of the Director's API, checked strictly (pure): unknown fields and wrong types are refused.

``RequestError`` names the field (a JSON path such as ``history[2].speaker``) and what is accepted: its
``message`` in English, ``translated(gettext)`` in the reader's language (the view's). Its templates are
msgids marked with ``gettext_noop`` so that ``makemessages`` finds them, without importing Django here;
their parameters (field names, accepted values, limits) are never translated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime

from core.query_params import RANGE, parse_id

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
SESSION_ID = gettext_noop("expected a session id (a whole number of at most 18 digits)")
SINCE = gettext_noop("expected an ISO 8601 time such as 2026-11-26T09:00:00Z")


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
    if body is None:
        body = {}
    if not isinstance(body, dict):
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


def parse_check(body: object) -> dict:
    """``{text, speaker, history: [(speaker, text)], scene, llm, language}`` of ``POST /api/director/check``."""
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
            lines.append((_text(line, "speaker", required=True, limit=50), _text(line, "text", required=True)))
        except RequestError as exc:
            raise exc.within(where) from None
    return {
        "text": _text(body, "text", required=True),
        "speaker": _text(body, "speaker", required=True, limit=50),
        "history": lines,
        "scene": _text(body, "scene"),
        "llm": _flag(body, "llm", False),
        "language": _choice(body, "language", LANGUAGES, "ja"),
    }


def parse_session(body: object) -> dict:
    body = _object(body, ("scene", "speakers", "title", "maxRetries", "llmReview", "model"))
    speakers = body.get("speakers", ["yana", "ayu"])
    if not (isinstance(speakers, list) and len(speakers) == 2 and all(isinstance(s, str) for s in speakers)):
        raise RequestError("speakers", SPEAKERS)
    retries = body.get("maxRetries", 3)
    if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
        raise RequestError("maxRetries", RANGE, minimum=0, maximum=10, value=shown_value(retries))
    return {
        "scene": _text(body, "scene", required=True),
        "speakers": speakers,
        "title": _text(body, "title", limit=200),
        "max_retries": retries,
        "llm_review": _flag(body, "llmReview", True),
        "model": _text(body, "model", limit=200),
    }


def parse_turn(body: object) -> dict:
    body = _object(body, ("speaker", "text", "expectedTurn", "language"))
    expected = body.get("expectedTurn")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int) or expected < 0):
        raise RequestError("expectedTurn", EXPECTED_TURN)
    text = body.get("text")
    if text is not None:
        text = _text(body, "text", required=True)
    return {
        "speaker": _text(body, "speaker", limit=50) or None,
        "text": text,
        "expected_turn": expected,
        "language": _choice(body, "language", LANGUAGES, "ja"),
    }


def parse_verdict_filters(query: Mapping[str, str]) -> dict:
    """``?status=&rule=&speaker=&session=&since=`` of ``GET /api/director/verdicts``."""
    filters: dict = {}
    status = query.get("status")
    if status:
        if status not in STATUSES:
            raise RequestError("status", ONE_OF, choices=", ".join(STATUSES))
        filters["status"] = status
    for key in ("rule", "speaker"):
        if query.get(key):
            filters[key] = query[key]
    if query.get("session"):
        session = parse_id(query["session"])
        if session is None:
            raise RequestError("session", SESSION_ID)
        filters["session"] = session
    if query.get("since"):
        try:
            filters["since"] = datetime.fromisoformat(query["since"].replace("Z", "+00:00"))
        except ValueError:
            raise RequestError("since", SINCE) from None
    return filters
