"""Fast bulk inserts for imports of 100k+ rows.

Django's bulk_create spends most of its time building model instances and compiling SQL per
row; for large imports we send plain rows instead: COPY on PostgreSQL, executemany elsewhere.
Values must already be what the column stores (JSON as text, datetimes as aware datetimes).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import connection


def bulk_insert(model, fields: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Insert ``rows`` (tuples in the order of ``fields``, model field names) into ``model``'s table."""
    meta = model._meta
    columns = [meta.get_field(name).column for name in fields]
    datetime_positions = [
        i for i, name in enumerate(fields) if meta.get_field(name).get_internal_type() == "DateTimeField"
    ]
    table = connection.ops.quote_name(meta.db_table)
    column_sql = ", ".join(connection.ops.quote_name(c) for c in columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({column_sql}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        adapt = connection.ops.adapt_datetimefield_value
        if datetime_positions:
            rows = (_adapt_datetimes(row, datetime_positions, adapt) for row in rows)
        placeholders = ", ".join(["%s"] * len(columns))
        cursor.executemany(f"INSERT INTO {table} ({column_sql}) VALUES ({placeholders})", rows)  # noqa: S608


def _adapt_datetimes(row: Sequence, positions: list[int], adapt) -> tuple:
    values = list(row)
    for i in positions:
        if isinstance(values[i], datetime):
            values[i] = _adapt_cached(values[i], adapt)
    return tuple(values)


_ADAPTED: dict[datetime, str] = {}


def _adapt_cached(value: datetime, adapt) -> str:
    # Imports carry few distinct timestamps (one "now", or timestamps repeated across axes/files).
    adapted = _ADAPTED.get(value)
    if adapted is None:
        if len(_ADAPTED) > 10_000:
            _ADAPTED.clear()
        adapted = _ADAPTED[value] = adapt(value)
    return adapted


def existing_values(model, key_field: str, keys: Sequence, fields: Sequence[str], *, chunk: int = 5_000) -> dict:
    """``{key: (field values...)}`` for the rows whose ``key_field`` is in ``keys`` (plain SQL, chunked)."""
    meta = model._meta
    table = connection.ops.quote_name(meta.db_table)
    key_column = connection.ops.quote_name(meta.get_field(key_field).column)
    select = ", ".join(connection.ops.quote_name(meta.get_field(name).column) for name in (key_field, *fields))
    converters = [_converter(meta.get_field(name)) for name in fields]
    found = {}
    with connection.cursor() as cursor:
        for start in range(0, len(keys), chunk):
            part = list(keys[start : start + chunk])
            if connection.vendor == "postgresql":
                where, params = f"{key_column} = ANY(%s)", [part]  # one array parameter, not thousands
            else:
                where, params = f"{key_column} IN ({', '.join(['%s'] * len(part))})", part
            cursor.execute(f"SELECT {select} FROM {table} WHERE {where}", params)  # noqa: S608
            for key, *values in cursor.fetchall():
                found[key] = tuple(convert(v) for convert, v in zip(converters, values, strict=True))
    return found


def _converter(field):
    """Turn a raw column value into the Python value the ORM would give (JSON text → objects)."""
    if field.get_internal_type() == "JSONField":
        import json

        return lambda v: json.loads(v) if isinstance(v, (str, bytes)) else v
    return lambda v: v
