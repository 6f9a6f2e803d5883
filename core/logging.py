"""Logging filters: configured secrets kept out of every log line; a 403 on one line."""

from __future__ import annotations

import json
import logging
import re
import sys

from django.utils.log import log_response

from core.redaction import configured_secrets, redact

_cache: dict[str, list[str]] = {}


def _configured_secrets() -> list[str]:
    from django.conf import settings

    if not settings.configured:
        return []
    names = ("SECRET_KEY", "LLM_API_KEY", "LLM_BASE_URL", "DATABASE_URL", "CELERY_BROKER_URL", "LLM_LIMITS_REDIS_URL")
    key = repr([id(settings._wrapped), *(getattr(settings, name, "") for name in names)])
    cached = _cache.get(key)
    if cached is None:
        _cache.clear()
        cached = _cache[key] = configured_secrets(settings)
    return cached


class RedactSecretsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        secrets = _configured_secrets()
        message = record.getMessage()
        redacted = redact(message, secrets)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            cleaned = redact(text, secrets)
            if cleaned != text:
                record.exc_text, record.exc_info = cleaned, None
        return True


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _one_line(text: str) -> str:
    """``text`` with its control characters escaped (``\\n``): a reason or a path cannot forge a log line."""
    return _CONTROL.sub(lambda match: match[0].encode("unicode_escape").decode("ascii"), text)


def _response_reason(response) -> str:
    """What a refusal says: the API's ``error``/``detail`` (a DRF response's data or a JSON body)."""
    data = getattr(response, "data", None)
    is_json = response is not None and response.get("Content-Type", "").startswith("application/json")
    if data is None and is_json and not response.streaming and len(response.content) < 65536:
        try:
            data = json.loads(response.content)
        except ValueError:
            return ""
    if isinstance(data, dict):
        for key in ("error", "detail"):
            if isinstance(data.get(key), str):
                return data[key]
    return ""


def _logged_response():
    """The response ``django.utils.log.log_response`` is logging: it names its status on the record, not
    the response itself. ``None`` when the record comes from elsewhere."""
    frame = sys._getframe(1)
    for _depth in range(16):
        if frame is None:
            return None
        if frame.f_code is log_response.__code__:
            return frame.f_locals.get("response")
        frame = frame.f_back
    return None


_DONE = "forbidden_one_line"


class ForbiddenOneLineFilter(logging.Filter):
    """``django.request``'s record of a 403 as one WARNING line: ``Forbidden: <method> <path> (user <id>):
    <reason>``, without a traceback.

    Django logs a ``PermissionDenied`` (a page for another role) with its traceback, and an API's 403 as
    ``Forbidden: <path>`` with neither the user nor the reason; a refusal is expected, a traceback says
    nothing about it and buries the real errors, which keep theirs (only status 403 is rewritten).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        request = getattr(record, "request", None)
        if getattr(record, "status_code", None) != 403 or request is None or getattr(record, _DONE, False):
            return True  # a second configuration of logging (Celery's worker sets Django up again) adds us twice
        exception = record.exc_info[1] if record.exc_info else None
        reason = str(exception) if exception is not None else _response_reason(_logged_response())
        path = request.path.encode("unicode_escape").decode("ascii")  # as Django writes it
        record.msg = "Forbidden: %s %s (user %s)" + (": %s" if reason else "")
        method = _one_line(str(request.method))
        record.args = (method, path, _user_id(request)) + ((_one_line(reason),) if reason else ())
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        record.levelno, record.levelname = logging.WARNING, logging.getLevelName(logging.WARNING)
        setattr(record, _DONE, True)
        return True


def _user_id(request) -> str:
    try:
        user = request.user
        return str(user.pk) if user.is_authenticated else "anonymous"
    except Exception:  # no user on the request (a middleware refused before authentication), or no database
        return "unknown"


class RoutineSweepFilter(logging.Filter):
    """Beat sends the job sweep every ``JOB_SWEEP_SECONDS``: Celery's INFO lines about it (sent, received,
    succeeded) are left out of the console. What a sweep does is logged at WARNING by ``core.job_sweep``."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO or not record.name.startswith("celery"):
            return True
        message = record.getMessage()
        return "core.jobs_sweep" not in message and "jobs-sweep" not in message
