"""Keeping secrets out of what people see: debug pages and log lines.

A secret is the signing key, the LLM API key, or the password of any URL with credentials among
the settings (``DATABASE_URL``, ``CELERY_BROKER_URL``, ``LLM_BASE_URL``, cache or other URLs) and,
on a debug page, among the request's environment, or the value of a query parameter whose name
looks like a secret's (``?api-key=``, ``&token=``, ``&sig=``...) in any of those URLs. Any
``scheme://user:password@host`` and any such ``?name=value`` written out is also masked by its
shape, configured or not.
"""

from __future__ import annotations

import base64
import re
from urllib.parse import unquote, unquote_plus, urlsplit

from django.views.debug import ExceptionReporter, SafeExceptionReporterFilter

REDACTED = "[redacted]"
# scheme://user:password@  (the password may be empty; user names are kept, they help debugging)
_USERINFO = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:)(?P<password>[^@\s/]*)(?P<tail>@)")


# ?name=value, &name=value or ;name=value; the value ends where a URL, a quoted string or a tag would
_QUERY_PARAM = re.compile(r"(?P<head>[?&;](?P<name>[^=&;#?\s'\"<>]+)=)(?P<value>[^&;#\s'\"<>]*)")
# words of a parameter name (api-key, access_token, accessToken, X-Amz-Signature) that make it a secret
_SECRET_WORDS = frozenset(
    {"key", "apikey", "token", "secret", "password", "passwd", "pwd", "pass", "passphrase", "sig", "signature",
     "auth", "authorization", "credential", "credentials", "sessionid", "jwt"}
)  # fmt: skip
_SECRET_ENDINGS = ("key", "token", "secret", "password", "signature", "credential", "credentials")
_NAME_WORDS = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def is_secret_name(name: str) -> bool:
    """Whether a query parameter called ``name`` holds a secret (case-insensitive: ``API_KEY``, ``Sig``...)."""
    words = [word.lower() for word in _NAME_WORDS.split(unquote_plus(name)) if word]
    return any(word in _SECRET_WORDS for word in words) or "".join(words).endswith(_SECRET_ENDINGS)


def mask_url_passwords(text: str) -> str:
    """``text`` with the password of every URL with credentials replaced by ``[redacted]``."""
    if "://" not in text:
        return text
    return _USERINFO.sub(lambda m: m["head"] + (REDACTED if m["password"] else "") + m["tail"], text)


def mask_query_secrets(text: str) -> str:
    """``text`` with the value of every secret-looking query parameter (``?api-key=...``) replaced by
    ``[redacted]``; the other parameters are kept, they help debugging."""
    if "=" not in text:
        return text

    def masked(match: re.Match) -> str:
        if match["value"] and is_secret_name(match["name"]):
            return match["head"] + REDACTED
        return match[0]

    return _QUERY_PARAM.sub(masked, text)


def mask_query_string(query: str) -> str:
    """A query string without its leading ``?`` (``QUERY_STRING``), masked as above."""
    return mask_query_secrets("?" + query)[1:] if query else query


def mask_urls(text: str) -> str:
    """``text`` with the passwords and the query-string secrets of every URL masked."""
    return mask_query_secrets(mask_url_passwords(text))


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
    """The secrets among ``settings``: keys, and the passwords and query-string secrets of every URL."""
    values = [getattr(settings, "SECRET_KEY", ""), getattr(settings, "LLM_API_KEY", "")]
    for name in dir(settings):
        if not name.isupper():
            continue
        for text in _strings(getattr(settings, name, None)):
            if "://" in text and ("@" in text or "=" in text):
                try:
                    parts = urlsplit(text)
                    user, password = parts.username, parts.password
                except ValueError:
                    continue
                for param in re.split(r"[&;]", parts.query):
                    key, _eq, value = param.partition("=")
                    if value and is_secret_name(key):
                        values += [value, unquote_plus(value)]  # as written, and as a client may send it
                if password:
                    values.append(password)
                    # as an HTTP client sends it: Authorization: Basic base64(user:password)
                    values.append(base64.b64encode(f"{unquote(user or '')}:{unquote(password)}".encode()).decode())
                    values.append(unquote(password))
    # Short values would redact ordinary words; real secrets are long.
    return sorted({value for value in values if value and len(value) >= 6}, key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    """``text`` without any of ``secrets``, the password of any URL with credentials, or the value of any
    secret-looking query parameter."""
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return mask_urls(text)


class SecretsExceptionReporterFilter(SafeExceptionReporterFilter):
    """Django's filter (names with KEY, SECRET, PASS... masked) plus, everywhere on the page (settings,
    request environment, the traceback's local variables), the configured secrets, the password of
    any URL with credentials (a database outage shows the connection parameters in the traceback) and
    the value of any secret-looking query parameter (``?api-key=``), the request's own included."""

    def cleanse_setting(self, key, value):
        cleansed = super().cleanse_setting(key, value)
        if isinstance(cleansed, str):
            return mask_urls(cleansed)
        return cleansed

    def get_safe_request_meta(self, request):
        meta = super().get_safe_request_meta(request)
        if isinstance(meta.get("QUERY_STRING"), str):
            meta["QUERY_STRING"] = mask_query_string(meta["QUERY_STRING"])
        return meta

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


class SecretsExceptionReporter(ExceptionReporter):
    """Django's debug page, where it shows what it reads from the request or the exception itself (not
    through the filter above) masked the same way: the request's URL and ``GET`` parameters, and the
    exception's message and notes (an HTTP client's error names the URL it called)."""

    def get_traceback_data(self):
        from django.conf import settings

        data = super().get_traceback_data()
        secrets = configured_secrets(settings)
        if self.request is not None:
            data["request_insecure_uri"] = redact(data["request_insecure_uri"], secrets)
            data["request_GET_items"] = [
                (name, REDACTED if is_secret_name(name) and value else redact(value, secrets))
                for name, value in self.request.GET.items()
            ]
        for key in ("exception_value", "exception_notes"):
            if isinstance(data.get(key), str):
                data[key] = redact(data[key], secrets)
        for frame in data.get("frames", ()):
            cause = frame.get("exc_cause")
            if cause is not None and (masked := redact(str(cause), secrets)) != str(cause):
                frame["exc_cause"] = masked  # else the exception itself: one without a message is still shown
        return data
