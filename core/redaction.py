"""Keeping secrets out of what people see: debug pages and log lines.

A secret is the signing key, the LLM API key, or the password of any URL with credentials among
the settings (``DATABASE_URL``, ``CELERY_BROKER_URL``, ``LLM_BASE_URL``, cache or other URLs) and,
on a debug page, among the request's environment. Any ``scheme://user:password@host`` written
out is also masked by its shape, configured or not.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import unquote, urlsplit

from django.views.debug import SafeExceptionReporterFilter

REDACTED = "[redacted]"
# scheme://user:password@  (the password may be empty; user names are kept, they help debugging)
_USERINFO = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:)(?P<password>[^@\s/]*)(?P<tail>@)")


def mask_url_passwords(text: str) -> str:
    """``text`` with the password of every URL with credentials replaced by ``[redacted]``."""
    if "://" not in text:
        return text
    return _USERINFO.sub(lambda m: m["head"] + (REDACTED if m["password"] else "") + m["tail"], text)


def _strings(value, depth: int = 0):
    if depth > 4:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, depth + 1)


def configured_secrets(settings) -> list[str]:
    """The secrets among ``settings``: keys, and the passwords of every URL with credentials."""
    values = [getattr(settings, "SECRET_KEY", ""), getattr(settings, "LLM_API_KEY", "")]
    for name in dir(settings):
        if not name.isupper():
            continue
        for text in _strings(getattr(settings, name, None)):
            if "://" in text and "@" in text:
                try:
                    parts = urlsplit(text)
                    user, password = parts.username, parts.password
                except ValueError:
                    continue
                if password:
                    values.append(password)
                    # as an HTTP client sends it: Authorization: Basic base64(user:password)
                    values.append(base64.b64encode(f"{unquote(user or '')}:{unquote(password)}".encode()).decode())
                    values.append(unquote(password))
    # Short values would redact ordinary words; real secrets are long.
    return sorted({value for value in values if value and len(value) >= 6}, key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    """``text`` without any of ``secrets`` and without the password of any URL with credentials."""
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return mask_url_passwords(text)


class SecretsExceptionReporterFilter(SafeExceptionReporterFilter):
    """Django's filter (names with KEY, SECRET, PASS... masked) plus, everywhere on the page (settings,
    request environment, the traceback's local variables), the configured secrets and the password of
    any URL with credentials (a database outage shows the connection parameters in the traceback)."""

    def cleanse_setting(self, key, value):
        cleansed = super().cleanse_setting(key, value)
        if isinstance(cleansed, str):
            return mask_url_passwords(cleansed)
        return cleansed

    def get_traceback_frame_variables(self, request, tb_frame):
        from django.conf import settings
        from django.template.defaultfilters import pprint

        secrets = configured_secrets(settings)
        cleaned = []
        for name, value in super().get_traceback_frame_variables(request, tb_frame):
            text = pprint(value)
            masked = redact(text, secrets)
            cleaned.append((name, masked if masked != text else value))
        return cleaned
