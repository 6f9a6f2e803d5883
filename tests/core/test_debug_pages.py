"""Django's technical error pages (DEBUG on, as `make run` serves) never show a password."""

import sys

from django.test import RequestFactory
from django.views.debug import technical_500_response

PASSWORDS = ("db-pass-1234", "broker-pass-5678", "llm-pass-9012")


def _page(settings, **meta) -> str:
    settings.DEBUG = True
    settings.DATABASE_URL = f"postgres://app:{PASSWORDS[0]}@db.internal:5432/research"
    settings.CELERY_BROKER_URL = f"redis://:{PASSWORDS[1]}@redis.internal:6379/0"
    settings.LLM_BASE_URL = f"https://user:{PASSWORDS[2]}@llm.internal/v1"
    request = RequestFactory().post("/login/", **meta)
    try:
        raise RuntimeError("database unavailable")
    except RuntimeError:
        response = technical_500_response(request, *sys.exc_info())
    return response.content.decode()


def test_technical_500_masks_every_url_with_credentials(settings):
    page = _page(settings, DATABASE_URL=f"postgres://app:{PASSWORDS[0]}@db.internal:5432/research")
    assert "database unavailable" in page and "db.internal" in page  # the page is the real one
    for password in PASSWORDS:
        assert password not in page


def test_technical_500_masks_the_secret_key_and_api_key(settings):
    settings.LLM_API_KEY = "sk-live-abcdefghijklmnopqrstuvwx"
    page = _page(settings)
    assert settings.SECRET_KEY not in page and "sk-live-abcdefghijklmnopqrstuvwx" not in page


def test_connection_parameters_in_the_traceback_are_masked(settings):
    """A database outage: the driver's frames hold the connection parameters, password included."""
    settings.DEBUG = True
    settings.DATABASE_URL = f"postgres://app:{PASSWORDS[0]}@db.internal:5432/research"

    def connect(conn_params):
        raise RuntimeError("connection refused")

    try:
        connect({"host": "db.internal", "user": "app", "password": PASSWORDS[0]})
    except RuntimeError:
        response = technical_500_response(RequestFactory().get("/"), *sys.exc_info())
    page = response.content.decode()
    assert "conn_params" in page and "db.internal" in page
    assert PASSWORDS[0] not in page
