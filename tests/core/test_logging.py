import logging

from core.logging import REDACTED, RedactSecretsFilter


def _record(msg, *args, exc_info=None):
    return logging.LogRecord("t", logging.ERROR, __file__, 1, msg, args, exc_info)


def test_configured_secrets_never_reach_a_log_line(settings):
    settings.LLM_API_KEY = "sk-test-abcdefghijklmnop"
    record = _record("calling endpoint with key %s", settings.LLM_API_KEY)
    RedactSecretsFilter().filter(record)
    assert record.getMessage() == f"calling endpoint with key {REDACTED}"


def test_secrets_are_redacted_from_tracebacks(settings):
    settings.LLM_API_KEY = "sk-test-abcdefghijklmnop"
    try:
        raise RuntimeError(f"auth failed for {settings.LLM_API_KEY}")
    except RuntimeError:
        import sys

        record = _record("failed", exc_info=sys.exc_info())
    RedactSecretsFilter().filter(record)
    text = logging.Formatter().format(record)
    assert "sk-test-abcdefghijklmnop" not in text and REDACTED in text


def test_database_password_is_redacted(settings):
    settings.DATABASE_URL = "postgres://app:hunter2hunter2@db/research"
    record = _record("connect failed: password hunter2hunter2 rejected")
    RedactSecretsFilter().filter(record)
    assert "hunter2hunter2" not in record.getMessage()
