import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _settings_in_subprocess(code: str, **env) -> subprocess.CompletedProcess:
    # PYTEST_XDIST_WORKER too: these settings are read as a deployment reads them, not as a test worker
    dropped = ("SECRET_KEY", "DEBUG", "DATABASE_URL", "PYTEST_XDIST_WORKER")
    environ = {k: v for k, v in os.environ.items() if k not in dropped}
    environ.update({"DJANGO_SETTINGS_MODULE": "config.settings", **env})
    script = "import django; django.setup(); from django.conf import settings; " + code
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=environ, capture_output=True, text=True)


def test_secret_key_is_required_when_debug_is_off():
    done = _settings_in_subprocess("print(settings.SECRET_KEY)")
    assert done.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in done.stderr


def test_debug_mode_runs_without_secret_key_and_insecure_cookies():
    done = _settings_in_subprocess("print(settings.DEBUG, settings.SESSION_COOKIE_SECURE)", DEBUG="1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]


def test_production_mode_has_secure_cookies():
    done = _settings_in_subprocess(
        "print(settings.DEBUG, settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE)",
        SECRET_KEY="x" * 50,
        SECURE_COOKIES="",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True"]


def test_database_url_selects_postgresql():
    done = _settings_in_subprocess(
        "d = settings.DATABASES['default']; print(d['ENGINE'], d['HOST'], d['PORT'], d['NAME'])",
        DEBUG="1",
        DATABASE_URL="postgres://u:p@db.example:6543/research",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["django.db.backends.postgresql", "db.example", "6543", "research"]


def test_bad_boolean_names_the_variable():
    done = _settings_in_subprocess("print(1)", DEBUG="perhaps")
    assert done.returncode != 0
    assert "DEBUG='perhaps' is not a boolean" in done.stderr


def test_embedded_defaults_are_sqlite_and_filesystem_broker(tmp_path):
    done = _settings_in_subprocess(
        "from config.celery import app; "
        "print(settings.DATABASES['default']['ENGINE'], settings.CELERY_BROKER_URL, app.conf.task_always_eager)",
        DEBUG="1",
        VAR_DIR=str(tmp_path),
        CELERY_BROKER_URL="",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["django.db.backends.sqlite3", "filesystem://", "False"]
    assert (tmp_path / "celery" / "queue").is_dir()


def test_a_short_or_blank_secret_key_is_refused_when_debug_is_off():
    for key in (" ", "x" * 31, "short key with spaces in it  ....."):
        done = _settings_in_subprocess("print(1)", SECRET_KEY=key)
        assert done.returncode != 0, key
        assert "at least 32 characters other than spaces" in done.stderr
    done = _settings_in_subprocess("print(1)", SECRET_KEY="k" * 32)
    assert done.returncode == 0, done.stderr


def test_var_folder_and_sqlite_database_are_private(tmp_path):
    var = tmp_path / "var"
    var.mkdir(mode=0o755)
    done = _settings_in_subprocess(
        "from django.db import connection; connection.ensure_connection(); "
        "connection.cursor().execute('CREATE TABLE t (x)'); print(settings.DATABASES['default']['NAME'])",
        DEBUG="1",
        VAR_DIR=str(var),
    )
    assert done.returncode == 0, done.stderr
    database = Path(done.stdout.strip())
    assert database.parent == var
    assert var.stat().st_mode & 0o777 == 0o700
    for path in var.glob("db.sqlite3*"):  # the database and SQLite's -wal/-shm files
        assert path.stat().st_mode & 0o077 == 0, path


def test_a_widget_catalogue_file_sets_the_catalogue_and_a_bad_one_names_the_variable(tmp_path):
    good = tmp_path / "widgets.txt"
    good.write_text("# our app\nnotes\nkanban\n", encoding="utf-8")
    done = _settings_in_subprocess("print(list(settings.LAYER3_WIDGET_CATALOGUE))", DEBUG="1",
                                   LAYER3_WIDGET_CATALOGUE=str(good))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['notes', 'kanban']"
    bad = tmp_path / "bad.txt"
    bad.write_text("notes\nnotes\n", encoding="utf-8")
    done = _settings_in_subprocess("print(1)", DEBUG="1", LAYER3_WIDGET_CATALOGUE=str(bad))
    assert done.returncode != 0
    assert "LAYER3_WIDGET_CATALOGUE" in done.stderr and "line 2: 'notes' is listed twice" in done.stderr
    done = _settings_in_subprocess("print(1)", DEBUG="1", LAYER3_WIDGET_CATALOGUE=str(tmp_path / "none.txt"))
    assert done.returncode != 0 and "LAYER3_WIDGET_CATALOGUE: cannot read" in done.stderr
