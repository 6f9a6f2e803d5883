"""Plain SQL for the few statements that run on every request, prepared once per connection on PostgreSQL.

Django binds parameters on the client and never prepares statements (so that connection poolers
in transaction mode keep working), which makes PostgreSQL parse and plan every statement again:
for the work queue's CTEs that is more CPU than running them. ``fetch`` runs a statement through a
server-binding psycopg cursor with ``prepare=True`` instead (psycopg keeps the prepared statement
per connection), unless ``DB_PREPARED_STATEMENTS`` is off; other databases go through Django's cursor.
Django opens its connections with ``prepare_threshold=None``, which makes psycopg ignore
``prepare=True``; ``fetch`` raises it so high that only the statements run here are ever prepared.
Errors come out as Django's database exceptions either way.
"""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.db import connections

# psycopg prepares a statement after this many executions, or at once when asked (prepare=True).
ONLY_WHEN_ASKED = 2**31 - 1


def fetch(sql: str, params, *, using: str = "default", one: bool = False):
    """Rows of ``sql`` (``%s``/``%(name)s`` placeholders), or the first row (None if none) when ``one``."""
    connection = connections[using]
    if connection.vendor == "postgresql" and getattr(settings, "DB_PREPARED_STATEMENTS", True):
        import psycopg

        connection.ensure_connection()
        raw = connection.connection
        if raw.prepare_threshold is None:
            raw.prepare_threshold = ONLY_WHEN_ASKED
        with connection.wrap_database_errors, psycopg.Cursor(raw) as cursor:
            cursor.execute(sql, params, prepare=True)
            return cursor.fetchone() if one else cursor.fetchall()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone() if one else cursor.fetchall()


def instance_from_row(model, values, *, using: str = "default"):
    """An instance of ``model`` from a row of all its concrete columns in field order, converted as the
    ORM converts them (SQLite returns datetimes as text and booleans as integers; JSON arrives as text)."""
    connection = connections[using]
    attnames, converters = _row_plan(using, model)
    values = list(values)
    for index, column, functions in converters:
        for function in functions:
            values[index] = function(values[index], column, connection)
    return model.from_db(using, attnames, values)


@cache
def _row_plan(using: str, model):
    connection = connections[using]
    fields = model._meta.concrete_fields
    converters = []
    for index, field in enumerate(fields):
        column = field.get_col(model._meta.db_table)
        functions = [*connection.ops.get_db_converters(column), *field.get_db_converters(connection)]
        if functions:
            converters.append((index, column, tuple(functions)))
    return [field.attname for field in fields], tuple(converters)
