"""Database sessions read with one plain SQL statement.

Every request of a logged-in user loads its session; Django's database backend builds an ORM
query for that, which costs more CPU than running it. Same table, same expiry rule, same
behaviour otherwise (saving, flushing and cleanup stay Django's).
"""

from __future__ import annotations

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import connections, router
from django.utils import timezone

from core.db import fetch


class SessionStore(DatabaseSessionStore):
    def _get_session_from_db(self):
        if not self.session_key:
            return None
        model = self.model
        connection = connections[router.db_for_read(model)]
        table = connection.ops.quote_name(model._meta.db_table)
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        row = fetch(
            f"SELECT session_data FROM {table} WHERE session_key = %s AND expire_date > %s",  # noqa: S608
            [self.session_key, now],
            using=connection.alias,
            one=True,
        )
        if row is None:
            self._session_key = None
            return None
        return model(session_key=self.session_key, session_data=row[0])
