"""How the LLM gateway's limits are kept: the LLM_LIMITS setting, the System status page and /healthz."""

import pytest

from tests.core.test_settings import _settings_in_subprocess
from tests.llm.limits_support import redis_or_skip

DEAD_REDIS = "redis://:limits-secret@127.0.0.1:9/7"  # nothing listens on port 9
SHOW = "print(settings.LLM_LIMITS, settings.LLM_LIMITS_REDIS_URL or '-', settings.LLM_LIMITS_KEY_PREFIX)"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"CELERY_BROKER_URL": "redis://127.0.0.1:6379/3"}, ["redis", "redis://127.0.0.1:6379/3", "jaiml:llm-limits:"]),
        ({"CELERY_BROKER_URL": "", "LLM_LIMITS_KEY_PREFIX": "site-b:"}, ["process", "-", "site-b:"]),
        (
            {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/3", "LLM_LIMITS": "process"},
            ["process", "redis://127.0.0.1:6379/3", "jaiml:llm-limits:"],
        ),
        (
            {"CELERY_BROKER_URL": "", "LLM_LIMITS": "redis", "LLM_LIMITS_REDIS_URL": "redis://cache:6379/2"},
            ["redis", "redis://cache:6379/2", "jaiml:llm-limits:"],
        ),
    ],
)
def test_llm_limits_auto_follows_the_broker(tmp_path, env, expected):
    env = {
        "DEBUG": "1",
        "VAR_DIR": str(tmp_path),
        "LLM_LIMITS": "auto",
        "LLM_LIMITS_KEY_PREFIX": "",
        "LLM_LIMITS_REDIS_URL": "",
        **env,
    }
    done = _settings_in_subprocess(SHOW, **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == expected


def test_shared_limits_without_a_redis_url_stop_start_up(tmp_path):
    done = _settings_in_subprocess(SHOW, DEBUG="1", VAR_DIR=str(tmp_path), CELERY_BROKER_URL="", LLM_LIMITS="redis")
    assert done.returncode != 0
    assert "LLM_LIMITS=redis needs LLM_LIMITS_REDIS_URL" in done.stderr


def _system_page(client, researcher) -> str:
    client.force_login(researcher)
    response = client.get("/system/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_system_page_shows_per_process_limits(client, researcher, settings):
    settings.LLM_LIMITS, settings.LLM_REQUESTS_PER_MINUTE, settings.LLM_MAX_CONCURRENCY = "process", 0, 7
    page = _system_page(client, researcher)
    assert 'data-limits-mode="process"' in page and "<dd>7</dd>" in page


def test_the_system_page_shows_shared_limits_and_an_unreachable_redis(client, researcher, settings):
    settings.LLM_LIMITS, settings.LLM_LIMITS_REDIS_URL = "redis", DEAD_REDIS
    settings.LLM_REQUESTS_PER_MINUTE, settings.LLM_MAX_CONCURRENCY = 90, 4
    page = _system_page(client, researcher)
    assert 'data-limits-mode="redis"' in page and "<dd>90</dd>" in page and "<dd>4</dd>" in page
    assert "<code>redis://127.0.0.1:9/7</code>" in page and "badge-failed" in page
    assert "limits-secret" not in page


def test_healthz_reports_the_limits_without_failing_on_their_redis(client, db, settings):
    settings.LLM_LIMITS, settings.LLM_LIMITS_REDIS_URL = "redis", DEAD_REDIS
    settings.LLM_REQUESTS_PER_MINUTE, settings.LLM_MAX_CONCURRENCY = 90, 4
    response = client.get("/healthz")
    assert response.status_code == 200  # per-process limits still hold: not a reason to take the site out
    limits = response.json()["llm_limits"]
    assert limits == {
        "mode": "redis",
        "requests_per_minute": 90,
        "max_concurrency": 4,
        "redis": {"ok": False, "error": "ConnectionError"},
    }
    assert "limits-secret" not in response.content.decode()


def test_healthz_says_the_limits_redis_is_up(client, db, settings):
    settings.LLM_LIMITS, settings.LLM_LIMITS_REDIS_URL = "redis", redis_or_skip()
    limits = client.get("/healthz").json()["llm_limits"]
    assert limits["mode"] == "redis" and limits["redis"]["ok"] is True and limits["redis"]["latency_ms"] >= 0


def test_healthz_without_shared_limits_checks_no_redis(client, db, settings):
    settings.LLM_LIMITS = "process"
    assert "redis" not in client.get("/healthz").json()["llm_limits"]
