"""Liveness checks of the database and the task broker, for /healthz and the system page.

Also how the LLM gateway's limits are kept (``LLM_LIMITS``) and, when they are shared in Redis, whether
that Redis answers. That check never makes /healthz fail: without Redis a run falls back to
per-process limits (llm/limits.py).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.db import connections

logger = logging.getLogger(__name__)


def _timed(check) -> dict:
    started = time.perf_counter()
    try:
        details = check() or {}
    except Exception as exc:  # any failure means "down"; the reason goes to the log, not the response
        logger.warning("health check %s failed: %s", check.__name__, exc)
        return {"ok": False, "error": type(exc).__name__}
    return {"ok": True, "latency_ms": round(1000 * (time.perf_counter() - started), 1), **details}


def _database() -> dict:
    connection = connections["default"]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:
        connection.close()  # do not keep a broken connection around for the next request
        raise
    return {"vendor": connection.vendor}


def _broker() -> dict:
    from config.celery import app

    transport = urlsplit(settings.CELERY_BROKER_URL).scheme
    if transport == "filesystem":
        options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
        for key in ("data_folder_in", "data_folder_out", "control_folder"):
            folder = Path(options[key])
            if not folder.is_dir() or not os.access(folder, os.W_OK):
                raise OSError(f"broker folder {key} is missing or not writable")
    with app.connection_for_write() as connection:
        connection.ensure_connection(max_retries=1, interval_start=0, timeout=3)
    return {"transport": transport}


def _limits_redis() -> dict:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    client = redis.Redis.from_url(
        settings.LLM_LIMITS_REDIS_URL, socket_connect_timeout=2, socket_timeout=2, retry=Retry(NoBackoff(), 0)
    )
    try:
        client.ping()
    finally:
        client.close()
    return {}


def llm_limits() -> dict:
    """The LLM limits: ``mode`` (redis: shared by every worker; process), rate, concurrency, Redis state."""
    report = {
        "mode": settings.LLM_LIMITS,
        "requests_per_minute": settings.LLM_REQUESTS_PER_MINUTE,
        "max_concurrency": settings.LLM_MAX_CONCURRENCY,
    }
    if settings.LLM_LIMITS == "redis":
        report["redis"] = _timed(_limits_redis)
    return report


def check_database() -> dict:
    return _timed(_database)


def check_broker() -> dict:
    return _timed(_broker)


def health_report() -> tuple[bool, dict]:
    checks = {"database": check_database(), "broker": check_broker()}
    healthy = all(check["ok"] for check in checks.values())
    return healthy, {"status": "ok" if healthy else "unavailable", "checks": checks, "llm_limits": llm_limits()}
