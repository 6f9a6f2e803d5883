"""A logging filter that keeps configured secrets out of every log line."""

from __future__ import annotations

import logging

from core.redaction import configured_secrets, redact

_cache: dict[str, list[str]] = {}


def _configured_secrets() -> list[str]:
    from django.conf import settings

    if not settings.configured:
        return []
    names = ("SECRET_KEY", "LLM_API_KEY", "LLM_BASE_URL", "DATABASE_URL", "CELERY_BROKER_URL")
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
