import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import django, json
django.setup()
from django.test.utils import setup_test_environment
setup_test_environment()
from django.test import Client
response = Client().get("/healthz")
print(json.dumps({"status": response.status_code, "body": response.json()}))
"""


def _healthz_in_subprocess(**env) -> dict:
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_healthz_reports_database_and_broker_up(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is True
    assert response["Cache-Control"].startswith("max-age=0")


def test_healthz_needs_no_login(client, db):
    assert client.get("/healthz").status_code == 200


def test_healthz_is_503_when_the_database_server_is_dead(tmp_path):
    result = _healthz_in_subprocess(
        DATABASE_URL="postgres://postgres@127.0.0.1:9/none",
        DB_CONNECT_TIMEOUT="2",
        CELERY_BROKER_URL="",
        VAR_DIR=str(tmp_path),
    )
    assert result["status"] == 503
    assert result["body"]["status"] == "unavailable"
    assert result["body"]["checks"]["database"] == {"ok": False, "error": "OperationalError"}
    assert result["body"]["checks"]["broker"]["ok"] is True


def test_healthz_is_503_when_the_broker_is_dead(tmp_path):
    result = _healthz_in_subprocess(
        CELERY_BROKER_URL="redis://:s3cret-password@127.0.0.1:9/0",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    assert result["status"] == 503
    assert result["body"]["checks"]["broker"]["ok"] is False
    assert result["body"]["checks"]["database"]["ok"] is True
    assert "s3cret" not in json.dumps(result)


def test_healthz_is_503_when_the_filesystem_broker_folder_is_gone(client, db, settings, tmp_path):
    options = dict(settings.CELERY_BROKER_TRANSPORT_OPTIONS or {})
    if not settings.CELERY_BROKER_URL.startswith("filesystem://"):
        options = {"data_folder_in": "", "data_folder_out": "", "control_folder": ""}
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {**options, "data_folder_in": str(tmp_path / "missing")}
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["broker"] == {"ok": False, "error": "OSError"}


def test_the_favicon_is_an_empty_cached_answer_without_login(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.content == b""
    assert response["Content-Type"] == "image/x-icon" and "max-age=86400" in response["Cache-Control"]
