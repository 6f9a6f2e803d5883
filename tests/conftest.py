"""Test-wide set-up. Runs before Django is configured (pytest-django sets it up afterwards).

The defaults below only fill in what the environment leaves unset: CI sets DATABASE_URL and
CELERY_BROKER_URL to run the same suite on PostgreSQL + Redis.
"""

import os
import tempfile
import uuid

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "insecure-test-only-" + uuid.uuid4().hex)
# Tests never touch the developer's var/ (database, broker queue, demo passwords).
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="jaiml-test-var-"))
# A queue of its own, so a worker of a running `make run` on the same Redis never takes test tasks.
# (pytest-xdist's workers each add their id to both: config/settings.py, PYTEST_XDIST_WORKER.)
os.environ.setdefault("CELERY_QUEUE", f"jaiml-test-{uuid.uuid4().hex[:8]}")
# Likewise the LLM gateway's shared limits (in Redis when the broker is Redis) are this run's own.
os.environ.setdefault("LLM_LIMITS_KEY_PREFIX", f"jaiml-test-{uuid.uuid4().hex[:8]}:llm-limits")
# The browser tests talk plain HTTP to the live server.
os.environ.setdefault("SECURE_COOKIES", "0")

import django.conf

django.conf.settings.DATABASES  # noqa: B018 - makes pytest-django finish set-up in pytest_configure

import hypothesis  # noqa: E402
import pytest  # noqa: E402

# Property-based tests draw the same examples on every run (a CI run's result never depends on the draw);
# HYPOTHESIS_PROFILE=explore draws new ones each run, to look for failures (README "Tests").
hypothesis.settings.register_profile("deterministic", derandomize=True)
hypothesis.settings.register_profile("explore", derandomize=False)
hypothesis.settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

# Hashing a password with the production hasher (PBKDF2, a million rounds) takes about 0.35 s of CPU, and
# the suite makes a user (with a password) in most database tests: thousands of seconds per run. New
# passwords are hashed with MD5 in this process; the production hashers stay listed, so their hashes
# still check. Subprocesses (`make run`, rundev, the demo) keep the production setting.
django.conf.settings.PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    *django.conf.settings.PASSWORD_HASHERS,
]


@pytest.fixture
def annotator(db):
    from tests.helpers import make_user

    return make_user("ann_001", "annotator")


@pytest.fixture
def researcher(db):
    from tests.helpers import make_user

    return make_user("res_001", "researcher")


@pytest.fixture
def staff_user(db):
    from tests.helpers import make_user

    return make_user("admin_001", staff=True)


@pytest.fixture
def outsider(db):
    """Logged in, but holding no role."""
    from tests.helpers import make_user

    return make_user("nobody")


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts with an empty cache (cached counts must not leak between tests)."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture
def celery_worker(transactional_db):
    """A real Celery worker (in a thread) consuming from the configured broker (Redis in CI, files by default)."""
    from celery.contrib.testing.worker import start_worker

    from config.celery import app as celery_app

    # Tests before this one queued tasks that no worker took (jobs enqueued without a worker): they would
    # all run first, one by one, and under load outlast the test's wait. They belong to no test now.
    celery_app.control.purge()
    with start_worker(celery_app, pool="solo", concurrency=1, perform_ping_check=False, shutdown_timeout=10):
        yield


# --- CI: the tests that touch no database run on one backend only ---------------------------------------------
# `.ci/run` runs the suite on PostgreSQL + Redis, then on the embedded defaults with
# ONLY_BACKEND_TESTS=1: the second pass leaves out what cannot differ between the backends, i.e. tests that
# neither use the database (no django_db mark, no db fixture) nor start processes or read the backend
# settings (their module mentions subprocess, DATABASE_URL or CELERY_BROKER_URL). `make test` alone runs all.
_DB_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback", "live_server"}
_BACKEND_WORDS = ("subprocess", "DATABASE_URL", "CELERY_BROKER_URL", "connection.vendor")


def _backend_sensitive(item) -> bool:
    if item.get_closest_marker("django_db") is not None or _DB_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    path = getattr(item, "path", None)
    try:
        source = path.read_text(encoding="utf-8") if path is not None else ""
    except OSError:
        return True
    return any(word in source for word in _BACKEND_WORDS)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("ONLY_BACKEND_TESTS") != "1":
        return
    keep = [item for item in items if _backend_sensitive(item)]
    kept = set(keep)
    left_out = [item for item in items if item not in kept]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = keep
