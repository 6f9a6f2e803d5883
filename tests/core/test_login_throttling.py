"""Login throttling (django-axes): a username + address pair is locked after repeated wrong passwords."""

import pytest
from axes.models import AccessAttempt
from django.conf import settings

from tests.helpers import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def _try(client, url: str, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=ip)


@pytest.mark.parametrize("url", ["/login/", "/admin/login/"])
def test_the_right_password_no_longer_works_after_the_limit(client, url):
    make_user("alice", "annotator", staff=True)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert _try(client, url, "alice", "wrong-password").status_code in (200, 429)
    locked = _try(client, url, "alice", PASSWORD)
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "data-locked-out" in page and "分後" in page  # the lockout page, in Japanese
    assert "_auth_user_id" not in client.session


def test_the_lock_is_per_username_and_address(client):
    make_user("alice", "annotator")
    make_user("bob", "annotator")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _try(client, "/login/", "alice", "wrong-password")
    assert _try(client, "/login/", "bob", PASSWORD).status_code == 302  # another user from the same address
    client.logout()
    assert _try(client, "/login/", "alice", PASSWORD, ip="10.0.0.2").status_code == 302  # another address


def test_an_admin_unlocks_by_deleting_the_attempt(client):
    make_user("alice", "annotator")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _try(client, "/login/", "alice", "wrong-password")
    assert _try(client, "/login/", "alice", PASSWORD).status_code == 429
    admin = make_user("admin_001", staff=True)
    client.force_login(admin)
    attempt = AccessAttempt.objects.get(username="alice")
    response = client.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not AccessAttempt.objects.exists()
    client.logout()
    assert _try(client, "/login/", "alice", PASSWORD).status_code == 302


def test_a_few_mistakes_then_the_right_password_still_works(client):
    make_user("alice", "annotator")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        _try(client, "/login/", "alice", "wrong-password")
    assert _try(client, "/login/", "alice", PASSWORD).status_code == 302
    assert not AccessAttempt.objects.filter(username="alice", failures_since_start__gt=0).exists()
