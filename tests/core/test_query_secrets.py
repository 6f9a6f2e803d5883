"""A key in a URL's query string (``LLM_BASE_URL=https://host/v1?api-key=...``) never shows on a debug page
or in a log line (issue 27)."""

import logging
import sys

import pytest
from django.test import RequestFactory
from django.views.debug import technical_500_response

from core.logging import RedactSecretsFilter
from core.redaction import REDACTED, SecretsExceptionReporterFilter, mask_query_secrets

LLM_KEY = "llm-query-key-0123456789"
BROKER_TOKEN = "broker-token-abcdefgh"


@pytest.fixture
def configured(settings):
    settings.DEBUG = True
    settings.LLM_BASE_URL = f"https://llm.internal/v1?api-version=2024-06-01&api-key={LLM_KEY}"
    settings.CELERY_BROKER_URL = f"redis://redis.internal:6379/0?Token={BROKER_TOKEN}"
    settings.CACHES = {"default": {"BACKEND": "x", "LOCATION": f"redis://cache/1?password={BROKER_TOKEN}x"}}
    return settings


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("https://h/v1?api-key=abc", f"https://h/v1?api-key={REDACTED}"),
        ("https://h/v1?API_KEY=abc&page=2", f"https://h/v1?API_KEY={REDACTED}&page=2"),
        ("https://h/?apikey=a&key=b&token=c", f"https://h/?apikey={REDACTED}&key={REDACTED}&token={REDACTED}"),
        ("https://h/?access_token=a;secret=b", f"https://h/?access_token={REDACTED};secret={REDACTED}"),
        ("https://h/?Password=a#frag", f"https://h/?Password={REDACTED}#frag"),
        ("https://blob/x?sv=1&sig=abc%2Bdef", f"https://blob/x?sv=1&sig={REDACTED}"),
        (
            "https://s3/x?X-Amz-Signature=ab&X-Amz-Credential=cd",
            f"https://s3/x?X-Amz-Signature={REDACTED}&X-Amz-Credential={REDACTED}",
        ),
        ("https://h/?auth=a&client_secret=b", f"https://h/?auth={REDACTED}&client_secret={REDACTED}"),
        ("GET /api/x?page=2&sort=name", "GET /api/x?page=2&sort=name"),  # nothing secret: unchanged
        ("https://h/?key=", "https://h/?key="),  # no value, nothing to hide
        ("'https://h/?token=abc' failed", f"'https://h/?token={REDACTED}' failed"),
    ],
)
def test_secret_looking_query_parameters_are_masked(url, masked):
    assert mask_query_secrets(url) == masked


def _page(request, error: str = "model unavailable") -> str:
    try:
        raise RuntimeError(error)
    except RuntimeError:
        return technical_500_response(request, *sys.exc_info()).content.decode()


def test_the_debug_page_masks_keys_in_configured_urls(configured):
    page = _page(RequestFactory().get("/"), error=f"cannot reach {configured.LLM_BASE_URL}")
    assert "llm.internal/v1?api-version=2024-06-01&amp;api-key=" in page  # the page is the real one
    for secret in (LLM_KEY, BROKER_TOKEN):
        assert secret not in page
    safe = SecretsExceptionReporterFilter().get_safe_settings()
    assert safe["LLM_BASE_URL"] == f"https://llm.internal/v1?api-version=2024-06-01&api-key={REDACTED}"
    assert BROKER_TOKEN not in repr(safe)


def test_the_debug_page_masks_keys_in_the_requests_query_and_environment(configured):
    token = "request-token-9876543210"
    request = RequestFactory().get(
        "/layer3/", {"page": "2", "access_token": token},
        HTTP_REFERER=f"https://app.example/layer3/?Token={token}",
        LLM_BASE_URL=configured.LLM_BASE_URL,  # under runserver the environment is part of the request's META
    )  # fmt: skip
    page = _page(request)
    assert "access_token" in page and "QUERY_STRING" in page and "HTTP_REFERER" in page
    assert token not in page and LLM_KEY not in page


def test_log_lines_and_tracebacks_never_show_a_query_key(configured):
    url = configured.LLM_BASE_URL.replace("/v1?", "/v1/chat/completions?")
    try:
        raise ConnectionError(f"Client error '401 Unauthorized' for url '{url}'")
    except ConnectionError:
        record = logging.LogRecord("llm", logging.ERROR, __file__, 1, "POST %s, key %s", (url, LLM_KEY), sys.exc_info())
    assert RedactSecretsFilter().filter(record)
    text = logging.Formatter().format(record)
    assert LLM_KEY not in text and "api-key=[redacted]" in text and "api-version=2024-06-01" in text


def test_the_console_handler_masks_query_keys_of_urls_nobody_configured():
    """By their shape, like URLs with a password: a key of some other service in an httpx line."""
    handler = next(
        handler
        for handler in logging.getLogger().handlers
        if any(isinstance(f, RedactSecretsFilter) for f in handler.filters)
    )
    message = 'HTTP Request: GET https://maps.example/api?Key=%s&q=tokyo "HTTP/1.1 403 Forbidden"'
    record = logging.LogRecord("httpx", logging.INFO, __file__, 1, message, ("AIzaSy-abcdef",), None)
    assert handler.filter(record)
    assert (
        record.getMessage()
        == f'HTTP Request: GET https://maps.example/api?Key={REDACTED}&q=tokyo "HTTP/1.1 403 Forbidden"'
    )
