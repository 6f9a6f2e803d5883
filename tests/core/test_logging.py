import logging

from core.logging import RedactSecretsFilter
from core.redaction import REDACTED


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


def test_every_configured_url_with_credentials_is_redacted(settings):
    """LLM_BASE_URL (and any other URL setting) too, as written and as an HTTP client's Basic header."""
    import base64

    settings.LLM_BASE_URL = "https://llmuser:s3cret-llm-pass@llm.internal/v1"
    settings.CELERY_BROKER_URL = "redis://:broker-pass-99@redis.internal:6379/0"
    settings.CACHES = {"default": {"BACKEND": "x", "LOCATION": "redis://cacheuser:cache-pass-77@cache/1"}}
    basic = base64.b64encode(b"llmuser:s3cret-llm-pass").decode()
    record = _record(
        "HTTP Request: POST https://llmuser:s3cret-llm-pass@llm.internal/v1/chat headers={'authorization': 'Basic %s'} "
        "broker-pass-99 cache-pass-77",
        basic,
    )
    RedactSecretsFilter().filter(record)
    message = record.getMessage()
    for secret in ("s3cret-llm-pass", basic, "broker-pass-99", "cache-pass-77"):
        assert secret not in message
    assert "https://llmuser:[redacted]@llm.internal/v1/chat" in message


def test_urls_with_credentials_are_masked_by_their_shape():
    record = _record("retrying amqp://guest:guestpw@mq.example:5672// after error")
    RedactSecretsFilter().filter(record)
    assert record.getMessage() == "retrying amqp://guest:[redacted]@mq.example:5672// after error"


def test_openai_and_httpx_debug_lines_pass_the_filter(settings):
    """At LOG_LEVEL=DEBUG the SDK's and httpx's loggers propagate to the console handler, which redacts."""
    settings.LLM_BASE_URL = "https://llmuser:s3cret-llm-pass@llm.internal/v1"
    handlers = [
        handler
        for handler in logging.getLogger().handlers
        if any(isinstance(f, RedactSecretsFilter) for f in handler.filters)
    ]
    assert handlers, "the console handler lost its redaction filter"
    for name in ("openai._base_client", "httpx"):
        assert logging.getLogger(name).propagate
        record = logging.LogRecord(
            name, logging.DEBUG, __file__, 1, "Request options: %s", ({"url": settings.LLM_BASE_URL},), None
        )
        assert handlers[0].filter(record)
        assert "s3cret-llm-pass" not in record.getMessage()


def test_the_routine_lines_of_the_job_sweep_are_left_out_but_not_its_warnings():
    import logging

    from core.logging import RoutineSweepFilter

    def record(name, level, message, *args):
        return logging.LogRecord(name, level, __file__, 1, message, args, None)

    routine = RoutineSweepFilter()
    assert not routine.filter(record("celery.beat", logging.INFO, "Scheduler: Sending due task %s (%s)", "jobs-sweep",
                                     "core.jobs_sweep"))  # fmt: skip
    assert not routine.filter(record("celery.app.trace", logging.INFO, "Task core.jobs_sweep[1] succeeded in 0.01s"))
    assert routine.filter(record("celery.app.trace", logging.INFO, "Task core.run_job[1] succeeded in 0.01s"))
    assert routine.filter(record("celery.app.trace", logging.ERROR, "Task core.jobs_sweep[1] raised"))
    assert routine.filter(record("core.job_sweep", logging.WARNING, "job sweep: %s", {"failed": ["x"]}))
