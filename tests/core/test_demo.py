import json
import stat

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from core.demo import credentials_path, register_demo_part
from core.models import DemoLoad
from core.roles import user_roles


@pytest.fixture
def demo_mode(settings, db):
    settings.DEBUG = True
    credentials_path().unlink(missing_ok=True)


def _login_request():
    """Logins go through django-axes, which needs the request (its address)."""
    from django.test import RequestFactory

    return RequestFactory().post("/login/")


def test_load_demo_creates_the_five_accounts_and_prints_their_passwords(demo_mode, capsys):
    call_command("load_demo")
    out = capsys.readouterr().out
    credentials = json.loads(credentials_path().read_text())
    assert set(credentials) == {"admin", "researcher", "reviewer", "annotator1", "annotator2"}
    for username, password in credentials.items():
        assert f"{username}" in out and password in out
        assert authenticate(_login_request(), username=username, password=password) is not None
    assert user_roles(User.objects.get(username="annotator1")) == {"annotator"}
    assert user_roles(User.objects.get(username="researcher")) == {"researcher"}
    reviewer = User.objects.get(username="reviewer")
    assert user_roles(reviewer) == {"researcher"} and not reviewer.is_staff
    assert reviewer.has_perm("annotation.review_qualityflag") and "researcher (+ reviewer)" in out
    assert not User.objects.get(username="researcher").has_perm("annotation.review_qualityflag")
    assert User.objects.get(username="admin").is_superuser
    assert stat.S_IMODE(credentials_path().stat().st_mode) == 0o600


def test_load_demo_twice_keeps_accounts_and_passwords(demo_mode):
    call_command("load_demo")
    first, users = credentials_path().read_text(), User.objects.count()
    call_command("load_demo")
    assert credentials_path().read_text() == first
    assert User.objects.count() == users


def test_load_demo_resets_passwords_when_the_credentials_file_was_lost(demo_mode):
    call_command("load_demo")
    credentials_path().unlink()
    call_command("load_demo")
    credentials = json.loads(credentials_path().read_text())
    assert authenticate(_login_request(), username="annotator2", password=credentials["annotator2"]) is not None


def test_load_demo_refuses_when_debug_is_off(settings, db):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG=1"):
        call_command("load_demo")
    assert not User.objects.exists()


def test_each_demo_part_loads_once(demo_mode, capsys):
    calls = []
    register_demo_part("tests.part", lambda: calls.append(1) or "1 thing", order=999)
    try:
        call_command("load_demo")
        call_command("load_demo")
        assert calls == [1]
        assert DemoLoad.objects.get(part="tests.part").summary == "1 thing"
        call_command("load_demo", "--reload")
        assert calls == [1, 1]
    finally:
        from core import demo

        demo._PARTS.pop("tests.part")
