"""The bodies and filters of the Director's API, checked strictly (pure): unknown fields and wrong types are refused.

``RequestError`` names the field (a JSON path such as ``history[2].speaker``) and what is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from core.query_params import parse_id

STATUSES = ("PASS", "WARN", "RETRY", "MODIFY")
LANGUAGES = ("ja", "en")
MAX_TEXT = 2000
MAX_HISTORY = 50


class RequestError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}")


def _object(body: object, fields: tuple[str, ...]) -> dict:
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise RequestError("$", "expected a JSON object")
    for key in body:
        if key not in fields:
            raise RequestError(key, f"unknown field; accepted: {', '.join(fields)}")
    return body


def _text(body: dict, key: str, *, required: bool = False, default: str = "", limit: int = MAX_TEXT) -> str:
    if key not in body:
        if required:
            raise RequestError(key, "required: a string")
        return default
    value = body[key]
    if not isinstance(value, str):
        raise RequestError(key, "expected a string")
    if required and not value.strip():
        raise RequestError(key, "must not be empty")
    if len(value) > limit:
        raise RequestError(key, f"at most {limit} characters")
    return value


def _flag(body: dict, key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise RequestError(key, "expected true or false")
    return value


def _choice(body: dict, key: str, choices: tuple[str, ...], default: str) -> str:
    value = body.get(key, default)
    if value not in choices:
        raise RequestError(key, f"expected one of {', '.join(choices)}")
    return value


def parse_check(body: object) -> dict:
    """``{text, speaker, history: [(speaker, text)], scene, llm, language}`` of ``POST /api/director/check``."""
    body = _object(body, ("text", "speaker", "history", "scene", "llm", "language"))
    history = body.get("history", [])
    if not isinstance(history, list):
        raise RequestError("history", 'expected a list of {"speaker", "text"}')
    if len(history) > MAX_HISTORY:
        raise RequestError("history", f"at most {MAX_HISTORY} lines")
    lines = []
    for index, line in enumerate(history):
        where = f"history[{index}]"
        if not isinstance(line, dict) or set(line) - {"speaker", "text"}:
            raise RequestError(where, 'expected {"speaker", "text"}')
        try:
            lines.append((_text(line, "speaker", required=True, limit=50), _text(line, "text", required=True)))
        except RequestError as exc:
            raise RequestError(f"{where}.{exc.field}", exc.message) from None
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
        raise RequestError("speakers", 'expected two character names, e.g. ["yana", "ayu"]')
    retries = body.get("maxRetries", 3)
    if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 10:
        raise RequestError("maxRetries", "expected a whole number from 0 to 10")
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
        raise RequestError("expectedTurn", "expected the session's turn as a whole number ≥ 0")
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
            raise RequestError("status", f"expected one of {', '.join(STATUSES)}")
        filters["status"] = status
    for key in ("rule", "speaker"):
        if query.get(key):
            filters[key] = query[key]
    if query.get("session"):
        session = parse_id(query["session"])
        if session is None:
            raise RequestError("session", "expected a session id (a whole number of at most 18 digits)")
        filters["session"] = session
    if query.get("since"):
        try:
            filters["since"] = datetime.fromisoformat(query["since"].replace("Z", "+00:00"))
        except ValueError:
            raise RequestError("since", "expected an ISO 8601 time such as 2026-11-26T09:00:00Z") from None
    return filters
