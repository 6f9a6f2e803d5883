"""Settings for the whole project, read from environment variables.

One module for every environment: the embedded defaults (SQLite + a filesystem Celery broker
under ``var/``) need no server; ``DATABASE_URL`` and ``CELERY_BROKER_URL`` point it at
PostgreSQL and Redis. The README's configuration table documents every variable read here.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from config.env import (
    ImproperlyConfiguredError,
    env_bool,
    env_choice,
    env_crontab,
    env_float,
    env_int,
    env_json_object,
    env_list,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
# pytest-xdist's worker processes inherit one environment (and load these settings before the test
# set-up runs): each gets a folder and a Celery queue of its own, or one process's worker takes the
# other's tasks.
_XDIST_WORKER = env_str("PYTEST_XDIST_WORKER")
if _XDIST_WORKER:
    VAR_DIR = VAR_DIR / f"xdist-{_XDIST_WORKER}"
    VAR_DIR.mkdir(parents=True, exist_ok=True)


def _private(path: Path, *, mode: int) -> None:
    """Only the owner may read what the app keeps under var/ (database, broker queue, demo passwords)."""
    try:
        if path.stat().st_uid == os.getuid():  # a shared folder given as VAR_DIR is left as it is
            path.chmod(mode)
    except OSError:
        pass


VAR_DIR.mkdir(parents=True, exist_ok=True)
_private(VAR_DIR, mode=0o700)


def _widget_catalogue(path: str) -> tuple[str, ...]:
    """The widget types of the catalogue file at ``path`` (empty: the fifteen default types)."""
    from layer3.metrics.catalogue import DEFAULT_WIDGET_TYPES, CatalogueError, parse_catalogue

    if not path:
        return DEFAULT_WIDGET_TYPES
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImproperlyConfiguredError(f"LAYER3_WIDGET_CATALOGUE: cannot read {path}: {exc}") from None
    try:
        return parse_catalogue(text)
    except CatalogueError as exc:
        raise ImproperlyConfiguredError(f"LAYER3_WIDGET_CATALOGUE: {path}: {exc}") from None


try:
    DEBUG = env_bool("DEBUG", False)

    SECRET_KEY = env_str("SECRET_KEY")
    if not SECRET_KEY:
        if not DEBUG:
            raise ImproperlyConfigured(
                "SECRET_KEY must be set when DEBUG is off "
                "(set DEBUG=1 for local development, or export a long random SECRET_KEY)."
            )
        SECRET_KEY = "django-insecure-local-development-only"  # noqa: S105 - DEBUG only
    elif not DEBUG and len("".join(SECRET_KEY.split())) < 32:
        raise ImproperlyConfigured(
            "SECRET_KEY must hold at least 32 characters other than spaces when DEBUG is off; generate one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )

    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
    CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

    # --- database -------------------------------------------------------------------------
    DATABASE_URL = env_str("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}"
    _db = dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=True,
    )
    # The work queue's per-request statements are prepared once per connection (core.db); turn this
    # off behind a connection pooler in transaction mode that cannot keep prepared statements.
    DB_PREPARED_STATEMENTS = env_bool("DB_PREPARED_STATEMENTS", True)
    if _db["ENGINE"] == "django.db.backends.sqlite3":
        _path = Path(_db["NAME"])
        if not _path.is_absolute():
            _path = BASE_DIR / _path
        _path.parent.mkdir(parents=True, exist_ok=True)
        if not _path.exists():  # an empty file is an empty SQLite database; SQLite gives -wal/-shm its mode
            _path.touch(mode=0o600)
        _private(_path, mode=0o600)
        _db["NAME"] = str(_path)
        _db["CONN_MAX_AGE"] = 0
        # WAL lets the web server and the worker read while one of them writes; IMMEDIATE
        # transactions take the write lock up front instead of failing with "database is locked".
        _db["OPTIONS"] = {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY;",
        }
        # The test database is a file too, not Django's shared-cache in-memory default: there, a worker
        # thread meeting the test's write lock fails at once with "database table is locked" (SQLITE_LOCKED
        # ignores the busy timeout), which never happens to the file the server and worker share.
        _db["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
    elif _db["ENGINE"] == "django.db.backends.postgresql":
        _db.setdefault("OPTIONS", {})
        _db["OPTIONS"].setdefault("connect_timeout", env_int("DB_CONNECT_TIMEOUT", 5, minimum=1))
    DATABASES = {"default": _db}
    DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

    # --- task queue -----------------------------------------------------------------------
    CELERY_BROKER_URL = env_str("CELERY_BROKER_URL") or "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {}
    if CELERY_BROKER_URL.startswith("filesystem://"):
        _queue_dir = VAR_DIR / "celery" / "queue"
        _control_dir = VAR_DIR / "celery" / "control"
        for _dir in (_queue_dir, _control_dir):
            _dir.mkdir(parents=True, exist_ok=True)
        CELERY_BROKER_TRANSPORT_OPTIONS = {
            "data_folder_in": str(_queue_dir),
            "data_folder_out": str(_queue_dir),
            "control_folder": str(_control_dir),
            "polling_interval": 0.2,
        }
    elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        # A broker host that does not answer fails a hand-over in seconds, not at the system's TCP timeout:
        # the job then waits for the sweep (core.services), and the request that queued it answers.
        CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 5}
    # Progress and results of long jobs are stored on core.Job rows, not in a result backend.
    CELERY_TASK_IGNORE_RESULT = True
    CELERY_WORKER_PREFETCH_MULTIPLIER = 1
    CELERY_TASK_ACKS_LATE = True
    CELERY_TASK_REJECT_ON_WORKER_LOST = True
    CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
    # A hand-over to a broker that is down fails after one quick retry: the request that queued the job answers,
    # and the job waits for the sweep (core.services, core.job_sweep).
    CELERY_TASK_PUBLISH_RETRY_POLICY = {
        "max_retries": 1,
        "interval_start": 0.2,
        "interval_step": 0.5,
        "interval_max": 0.5,
    }
    CELERY_WORKER_HIJACK_ROOT_LOGGER = False
    CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "jaiml") + (f"-{_XDIST_WORKER}" if _XDIST_WORKER else "")
    CELERY_BEAT_SCHEDULE = {
        "expire-reservations": {"task": "annotation.expire_reservations", "schedule": 300.0},
    }
    # A worker beats every quarter of this while it holds a job, a chunk of one (core.chunks) or LLM claims
    # (llm.claims); what it held is failed (a job) or taken over (a chunk, a claim) once its heartbeat is older.
    JOB_CHUNK_STALE_SECONDS = env_float("JOB_CHUNK_STALE_SECONDS", 120.0, minimum=1.0)
    # The job sweep (core.job_sweep): hands waiting jobs to the broker, fails jobs whose worker stopped beating,
    # calls workers into chunks nobody works on. A queued job that no worker started this long after it was
    # handed over is handed over again (the broker lost it); running it twice is impossible (core.job_runner).
    JOB_SWEEP_SECONDS = env_float("JOB_SWEEP_SECONDS", 30.0, minimum=1.0)
    JOB_REDISPATCH_SECONDS = env_float("JOB_REDISPATCH_SECONDS", 900.0, minimum=1.0)
    CELERY_BEAT_SCHEDULE["jobs-sweep"] = {"task": "core.jobs_sweep", "schedule": JOB_SWEEP_SECONDS}
    CELERY_IMPORTS = ("core.job_sweep",)  # the worker registers the sweep's task (autodiscovery finds tasks.py only)
    # Weekly agreement monitoring (seed 000 B.3.2, annotation.monitoring). Crontab times are in the site time
    # zone: with CELERY_TIMEZONE unset, Celery takes Django's TIME_ZONE. "off" leaves the entry out.
    _weekly_run = env_crontab("AGREEMENT_MONITOR_CRON", "0 6 * * 1")
    if _weekly_run is not None:
        CELERY_BEAT_SCHEDULE["weekly-agreement"] = {"task": "annotation.weekly_agreement", "schedule": _weekly_run}
    # Bootstrap replicates of the weekly reports: annotation.aggregation.reports.N_BOOT, at most what a job may ask for.
    AGREEMENT_MONITOR_N_BOOT = env_int("AGREEMENT_MONITOR_N_BOOT", 1000, minimum=0, maximum=10_000)
    # Monthly feedback (seed 000 B.3.2, annotation.feedback): on the first of each month, prepare the month that
    # just ended (once per month). Same crontab rules as above; "off" leaves the entry out.
    _monthly_run = env_crontab("FEEDBACK_MONTHLY_CRON", "0 5 1 * *")
    if _monthly_run is not None:
        CELERY_BEAT_SCHEDULE["feedback-monthly"] = {"task": "annotation.feedback_monthly", "schedule": _monthly_run}
    CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

    # --- Training: a qualification test item answered sooner than this is not accepted
    TRAINING_MIN_SECONDS_PER_ITEM = env_float("TRAINING_MIN_SECONDS_PER_ITEM", 5.0, minimum=0.0)
    # --- Quarterly re-training (seed 000 B.3.2): a qualification expires this many days after it was
    # passed (0: never); the re-qualification test asks this many gold items not seen in the previous
    # attempt and passes with at least this weighted kappa on every axis.
    QUALIFICATION_VALID_DAYS = env_int("QUALIFICATION_VALID_DAYS", 92, minimum=0)
    REQUALIFICATION_ITEMS = env_int("REQUALIFICATION_ITEMS", 10, minimum=2)
    REQUALIFICATION_MIN_KAPPA = env_float("REQUALIFICATION_MIN_KAPPA", 0.60, minimum=-1.0)

    # --- Layer3 progress streams (SSE): one response lasts at most this long; browsers reconnect
    LAYER3_SSE_SECONDS = env_float("LAYER3_SSE_SECONDS", 30.0, minimum=1.0)
    # Trials per chunk of a run (the unit stored at once, and the unit a worker takes): without a judge,
    # and with one (then also the most judge calls in flight lost when a worker dies).
    LAYER3_CHUNK_SIZE = env_int("LAYER3_CHUNK_SIZE", 1000, minimum=1)
    LAYER3_JUDGED_CHUNK_SIZE = env_int("LAYER3_JUDGED_CHUNK_SIZE", 10, minimum=1)
    # --- Layer3 widget catalogue: the widget types a new batch's generator could choose from (seed 002 |W|)
    LAYER3_WIDGET_CATALOGUE = _widget_catalogue(env_str("LAYER3_WIDGET_CATALOGUE"))

    # --- uploads --------------------------------------------------------------------------
    # The largest upload of each surface, in bytes (README "Upload limits"); larger ones are refused
    # (413 or a form error) before anything parses them. Parsing costs about 7 MB of memory per MB of
    # trial log and 4.5 MB per MB of dialogues (bench/upload_memory.py).
    UPLOAD_MAX_BYTES_TRIALS = env_int("UPLOAD_MAX_BYTES_TRIALS", 50 * 1024 * 1024, minimum=1)
    # A trial log above this many bytes is imported by a worker (a job with progress), not by the request:
    # the Layer3 upload page and POST /api/experiment/batch/ (202 with the job) alike.
    LAYER3_UPLOAD_JOB_BYTES = env_int("LAYER3_UPLOAD_JOB_BYTES", 2 * 1024 * 1024, minimum=0)
    UPLOAD_MAX_BYTES_DIALOGUES = env_int("UPLOAD_MAX_BYTES_DIALOGUES", 50 * 1024 * 1024, minimum=1)
    UPLOAD_MAX_BYTES_SPREADSHEET = env_int("UPLOAD_MAX_BYTES_SPREADSHEET", 50 * 1024 * 1024, minimum=1)
    UPLOAD_MAX_BYTES_RATINGS = env_int("UPLOAD_MAX_BYTES_RATINGS", 50 * 1024 * 1024, minimum=1)  # ratings JSONL
    UPLOAD_MAX_BYTES_GOLD = env_int("UPLOAD_MAX_BYTES_GOLD", 20 * 1024 * 1024, minimum=1)
    UPLOAD_MAX_BYTES_RULES = env_int("UPLOAD_MAX_BYTES_RULES", 256 * 1024, minimum=1)
    # core.upload_limits counts each file as it streams in and drops it past its limit; below it Django
    # keeps a file in memory up to FILE_UPLOAD_MAX_MEMORY_SIZE (2.5 MB), on disk above.
    # Where Django writes those (default: the system's temporary folder, TMPDIR): a disk that fills up there refuses
    # the upload with 507 naming this setting (core.upload_limits.TemporaryFileHandler).
    FILE_UPLOAD_TEMP_DIR = env_str("FILE_UPLOAD_TEMP_DIR") or None
    FILE_UPLOAD_HANDLERS = [
        "core.upload_limits.LimitedUploadHandler",
        "django.core.files.uploadhandler.MemoryFileUploadHandler",
        "core.upload_limits.TemporaryFileHandler",  # a full disk refuses the file (507) instead of a 500
    ]

    # --- LLM endpoint (used only through the llm app) -------------------------------------
    LLM_BASE_URL = env_str("LLM_BASE_URL")
    LLM_API_KEY = env_str("LLM_API_KEY")
    LLM_MODEL = env_str("LLM_MODEL")
    DIRECTOR_MODEL = env_str("DIRECTOR_MODEL")  # the Director's LLM review (seed 004 §7); "" = LLM_MODEL
    LLM_MAX_CONCURRENCY = env_int("LLM_MAX_CONCURRENCY", 16, minimum=1)
    # Calls one worker process keeps in flight (0: up to LLM_MAX_CONCURRENCY). With shared limits, the
    # site's LLM_MAX_CONCURRENCY is divided among the workers that ask; this caps each one's share.
    LLM_WORKER_CONCURRENCY = env_int("LLM_WORKER_CONCURRENCY", 0, minimum=0)
    # Dialogues per chunk of an LLM rater job (the unit a worker takes and stores at once).
    LLM_RATE_CHUNK_SIZE = env_int("LLM_RATE_CHUNK_SIZE", 20, minimum=1)
    LLM_REQUESTS_PER_MINUTE = env_int("LLM_REQUESTS_PER_MINUTE", 0, minimum=0)
    LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 60.0, minimum=0.1)
    LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 4, minimum=0)
    LLM_BACKOFF_SECONDS = env_float("LLM_BACKOFF_SECONDS", 0.5, minimum=0.0)  # first retry waits up to this
    # First structured-output mode tried; the client falls back json_schema → json_object → prompt.
    LLM_JSON_MODE = env_choice("LLM_JSON_MODE", "json_schema", ("json_schema", "json_object", "prompt"))
    # Where LLM_REQUESTS_PER_MINUTE, LLM_MAX_CONCURRENCY and Retry-After pauses are counted (llm/limits.py):
    # "redis" shares them between every worker process, "process" counts per process; "auto" (read here,
    # once) is "redis" when the broker is Redis or LLM_LIMITS_REDIS_URL is set. Redis failing at run time
    # makes a run fall back to per-process limits with a warning.
    _broker_is_redis = CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
    LLM_LIMITS_REDIS_URL = env_str("LLM_LIMITS_REDIS_URL") or (CELERY_BROKER_URL if _broker_is_redis else "")
    if LLM_LIMITS_REDIS_URL and not LLM_LIMITS_REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfiguredError("LLM_LIMITS_REDIS_URL must be a redis://, rediss:// or unix:// URL")
    LLM_LIMITS = env_choice("LLM_LIMITS", "auto", ("auto", "redis", "process"))
    if LLM_LIMITS == "auto":
        LLM_LIMITS = "redis" if LLM_LIMITS_REDIS_URL else "process"
    elif LLM_LIMITS == "redis" and not LLM_LIMITS_REDIS_URL:
        raise ImproperlyConfiguredError("LLM_LIMITS=redis needs LLM_LIMITS_REDIS_URL or a redis:// CELERY_BROKER_URL")
    # Sites (or test runs) sharing one Redis keep apart with their own prefix; pytest-xdist workers add their id.
    LLM_LIMITS_KEY_PREFIX = (
        (env_str("LLM_LIMITS_KEY_PREFIX") or "jaiml:llm-limits").rstrip(":")
        + (f"-{_XDIST_WORKER}" if _XDIST_WORKER else "")
        + ":"
    )
    # How long a concurrency slot of a worker that died stays taken; a live worker renews its leases every
    # third of this while their requests run, however long they take.
    LLM_LIMITS_LEASE_SECONDS = env_float("LLM_LIMITS_LEASE_SECONDS", 30.0, minimum=1.0)
    # USD per 1M input/output tokens (list prices, 2025); JPY = USD x LLM_USD_JPY unless given.
    # Models missing here (local servers) cost 0. Override with a JSON object in LLM_PRICES.
    LLM_PRICES = env_json_object(
        "LLM_PRICES",
        {
            "gpt-4o": {"input_usd": 2.50, "output_usd": 10.00},
            "gpt-4o-mini": {"input_usd": 0.15, "output_usd": 0.60},
            "gpt-4.1": {"input_usd": 2.00, "output_usd": 8.00},
            "gpt-4.1-mini": {"input_usd": 0.40, "output_usd": 1.60},
        },
    )
    LLM_USD_JPY = env_float("LLM_USD_JPY", 150.0, minimum=0.0)

    # --- security -------------------------------------------------------------------------
    _secure_cookies = env_bool("SECURE_COOKIES", not DEBUG)
    SESSION_COOKIE_SECURE = _secure_cookies
    CSRF_COOKIE_SECURE = _secure_cookies
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
    if env_bool("SECURE_PROXY_SSL_HEADER", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
    AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
    _axes_cooloff_minutes = env_int("AXES_COOLOFF_MINUTES", 15, minimum=1)
except ImproperlyConfiguredError as exc:
    raise ImproperlyConfigured(str(exc)) from None

SESSION_COOKIE_HTTPONLY = True
SESSION_ENGINE = "core.sessions"  # Django's database sessions, read with one plain SQL statement
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses a locked-out username + address before the password is checked
    "core.auth_backends.RoleLoadingModelBackend",  # user and roles in one query
]
# The CSRF token reaches HTMX through the page (hx-headers), so JavaScript never reads the cookie.
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# --- applications ---------------------------------------------------------------------------
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "template_partials",
    "django_htmx",
    "axes",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "llm",
    "annotation",
    "layer3",
    "director",
    "config.apps.StartupConfig",  # last: start-up ends here (core.startup_gc)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.middleware.CookieLocaleMiddleware",
    "core.api_errors.ApiErrorMiddleware",  # under /api/: every error JSON in one shape, in the user's language
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "core.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "core.middleware.PrivatePagesMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # answers a locked-out login with the lockout page
    "core.method_pages.MethodNotAllowedPageMiddleware",  # a 405 of a page: the site's page, not an empty body
    "core.storage_errors.StorageErrorMiddleware",  # last, so first to see a view's exception: a full disk, 507
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "core.context_processors.navigation",
            ],
            "builtins": ["template_partials.templatetags.partials"],
        },
    }
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# --- login throttling (django-axes) ----------------------------------------------------------
# After AXES_FAILURE_LIMIT wrong passwords for one username from one address (on /login/ and
# /admin/login/ alike) that pair is locked out for AXES_COOLOFF_MINUTES; an admin unlocks it by
# deleting its access attempt in Django admin (or `manage.py axes_reset_username NAME`).
AXES_COOLOFF_TIME = timedelta(minutes=_axes_cooloff_minutes)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "core.lockout.lockout_response"  # the page in the user's language, with the wait
AXES_VERBOSE = False
AXES_SENSITIVE_PARAMETERS = ["password"]

# --- Content-Security-Policy (django-csp) -------------------------------------------------------
# Scripts and styles only from this site's own files: no inline script, handler or style attribute
# (the templates put data in data-* attributes and static/js reads them).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# --- internationalisation -------------------------------------------------------------------
LANGUAGE_CODE = "ja"
LANGUAGES = [("ja", _("Japanese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Asia/Tokyo"
USE_TZ = True

# --- static files ---------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns when it is missing
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Serve static files straight from the apps and static/ without a collectstatic step.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- REST API -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "core.api_auth.SessionAuthenticationWithChallenge",
        "core.api_tokens.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # Every JSON body under one set of rules (depth, duplicate keys, surrogates, NUL, 64-bit integers).
    "DEFAULT_PARSER_CLASSES": [
        "core.api_parsers.StrictJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # One error shape: {"success": false, "error", "detail", "problems": [{"path", "message"}]}.
    "EXCEPTION_HANDLER": "core.api_errors.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "core.api_schema.AutoSchema",  # the refusals and request bounds (core/api_schema.py)
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # ?format= is the seed's export parameter (json|csv|markdown|latex), not DRF's renderer switch
    "URL_FORMAT_OVERRIDE": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "JAIML research API",
    "DESCRIPTION": "Annotation, Layer3 validation and Director judgment APIs.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc from the drf-spectacular-sidecar package, served by this site (no CDN)
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request bodies as their own components: what a request may hold (required, non-blank texts, write-only
    # fields) apart from what an answer holds (read-only fields).
    "COMPONENT_SPLIT_REQUEST": True,
    # One name for a choice set used by several components (a batch and its change; a verdict's two statuses; the
    # success flag of an error and of an answer).
    "ENUM_NAME_OVERRIDES": {
        "BatchStatusEnum": "annotation.models.Batch.Status",
        "VerdictStatusEnum": "director.api.requests.STATUSES",
        "FailureEnum": [(False, False)],
        "SuccessEnum": [(True, True)],
        "ComparisonSideEnum": "layer3.statistics.versions.SIDES",  # version A or B of a Layer3 comparison
    },
    # <id:...> in URLs (core.converters): an integer of 1 to 18 digits
    "PATH_CONVERTER_OVERRIDES": {"id": {"type": "integer", "minimum": 0, "maximum": 10**18 - 1}},
}

# --- logging --------------------------------------------------------------------------------
# Debug pages mask URLs with credentials too (DATABASE_URL, CELERY_BROKER_URL, LLM_BASE_URL, ...).
DEFAULT_EXCEPTION_REPORTER_FILTER = "core.redaction.SecretsExceptionReporterFilter"
# ... and query-string keys (?api-key=) in the request's URL and GET, and in the exception's message.
DEFAULT_EXCEPTION_REPORTER = "core.redaction.SecretsExceptionReporter"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "redact_secrets": {"()": "core.logging.RedactSecretsFilter"},
        "forbidden_one_line": {"()": "core.logging.ForbiddenOneLineFilter"},
        "routine_sweep": {"()": "core.logging.RoutineSweepFilter"},
    },
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_secrets", "routine_sweep"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # The llm logger records every attempt; httpx would repeat each request at INFO.
    # axes logs every successful login at INFO; lockouts come at WARNING.
    # A 403 is one line (method, path, user, reason), not a PermissionDenied's traceback.
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        "httpx": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
        "django.request": {"filters": ["forbidden_one_line"]},
    },
}
