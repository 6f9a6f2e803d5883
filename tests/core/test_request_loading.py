"""The per-request loaders: the session (one SQL statement), the user with roles (one query), ``core.db.fetch``."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.contrib.sessions.models import Session
from django.db import DatabaseError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.auth_backends import RoleLoadingModelBackend
from core.db import fetch
from core.roles import user_roles
from core.sessions import SessionStore
from tests.helpers import PASSWORD, make_user

pytestmark = pytest.mark.django_db


def test_session_round_trip_and_expiry():
    store = SessionStore()
    store["answer"] = {"text": "<script>alert(1)</script>", "n": 42}
    store.save()
    assert SessionStore(store.session_key).load() == {"answer": {"text": "<script>alert(1)</script>", "n": 42}}
    Session.objects.filter(session_key=store.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    expired = SessionStore(store.session_key)
    assert expired.load() == {} and expired.session_key is None
    assert SessionStore("no-such-session-key-000000000000").load() == {}


def test_logout_ends_the_session_for_every_process(client):
    user = make_user("u1", "annotator")
    client.force_login(user)
    key = client.session.session_key
    client.post("/logout/")
    assert SessionStore(key).load() == {}


def test_user_and_roles_in_one_query():
    user = make_user("both", "annotator", "researcher")
    user.groups.add(Group.objects.create(name="not-a-role"))
    with CaptureQueriesContext(connection) as queries:
        loaded = RoleLoadingModelBackend().get_user(user.pk)
        roles = user_roles(loaded)
    assert roles == {"annotator", "researcher"}
    if connection.vendor != "postgresql":  # on PostgreSQL the statement is prepared outside Django's cursor
        assert len(queries) == 1
    assert loaded.pk == user.pk and loaded.username == "both" and loaded.is_active is True
    assert loaded.date_joined == user.date_joined and loaded.check_password(PASSWORD)


def test_roles_follow_the_database_on_the_next_request():
    user = make_user("a1", "annotator")
    backend = RoleLoadingModelBackend()
    assert user_roles(backend.get_user(user.pk)) == {"annotator"}
    user.groups.clear()
    assert user_roles(backend.get_user(user.pk)) == frozenset()
    user.is_staff = True
    user.save()
    assert user_roles(backend.get_user(user.pk)) == {"admin", "researcher"}


def test_inactive_or_missing_users_are_not_loaded():
    user = make_user("gone", "annotator")
    user.is_active = False
    user.save()
    backend = RoleLoadingModelBackend()
    assert backend.get_user(user.pk) is None
    assert backend.get_user(10**9) is None


def test_fetch_returns_rows_and_raises_djangos_errors():
    assert fetch("SELECT %s + %s", [1, 2], one=True) == (3,)
    assert fetch("SELECT 1 WHERE 1 = 0", [], one=True) is None
    with pytest.raises(DatabaseError):
        fetch("SELECT * FROM no_such_table_for_this_test", [])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
def test_fetch_prepares_its_statements_once_per_connection(settings):
    settings.DB_PREPARED_STATEMENTS = True
    sql = "SELECT %s::int * 2 AS doubled_for_prepare_test"
    assert fetch(sql, [21], one=True) == (42,)
    assert fetch(sql, [5], one=True) == (10,)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", ["%doubled_for_prepare%"])
        assert cursor.fetchone() == (1,)
        # Django's own (client-binding) statements are never prepared.
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", ["%pg_prepared%"])
        assert cursor.fetchone() == (0,)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
def test_fetch_prepares_nothing_when_turned_off(settings):
    settings.DB_PREPARED_STATEMENTS = False
    assert fetch("SELECT %s::int + 1 AS unprepared_for_test", [1], one=True) == (2,)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", ["%unprepared_for%"])
        assert cursor.fetchone() == (0,)
