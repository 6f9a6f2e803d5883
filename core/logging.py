"""A logging filter that keeps configured secrets out of every log line."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

REDACTED = "[redacted]"


def _configured_secrets() -> list[str]:
    from django.conf import settings

    if not settings.configured:
        return []
    values = [settings.SECRET_KEY, getattr(settings, "LLM_API_KEY", "")]
    for url in (getattr(settings, "DATABASE_URL", ""), getattr(settings, "CELERY_BROKER_URL", "")):
        password = urlsplit(url).password if url else None
        if password:
            values.append(password)
    # Short values would redact ordinary words; real secrets are long.
    return [value for value in values if value and len(value) >= 6]


class RedactSecretsFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        secrets = _configured_secrets()
        if not secrets:
            return True
        message = record.getMessage()
        redacted = message
        for secret in secrets:
            redacted = redacted.replace(secret, REDACTED)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            if any(secret in text for secret in secrets):
                for secret in secrets:
                    text = text.replace(secret, REDACTED)
                record.exc_text, record.exc_info = text, None
        return True
