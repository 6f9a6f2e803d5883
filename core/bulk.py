"""Fast bulk inserts for imports of 100k+ rows.

Django's bulk_create spends most of its time building model instances and compiling SQL per
row; for large imports we send plain rows instead: COPY on PostgreSQL, executemany elsewhere.
Values must already be what the column stores (JSON as text, datetimes as aware datetimes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from itertools import islice

from django.db import connection, transaction

# After a COPY of this many rows the table's planner statistics are refreshed (ANALYZE, once the rows are
# committed): a table filled in one go has no statistics, or stale ones, until autovacuum gets to it (up to a
# minute or more later), and meanwhile PostgreSQL picks plans for a handful of rows. Measured: a page of 1,000
# ratings of a 100,000-rating batch took 290-410 ms right after the import (hash join of the whole batch and a
# sort) and 2.7 ms once analysed (the (updated_at, id) index walked backwards). ANALYZE reads a fixed-size
# sample (~0.15 s on 100k rows here), whatever the table's size.
ANALYZE_AFTER_ROWS = 10_000


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
            copied = 0
            with cursor.cursor.copy(f"COPY {table} ({column_sql}) FROM STDIN") as copy:
                rows = iter(rows)
                while block := list(islice(rows, COPY_BLOCK)):
                    copy.write(_copy_block(block, len(columns)))
                    copied += len(block)
            if copied >= ANALYZE_AFTER_ROWS:
                transaction.on_commit(lambda: _analyze(table))
            return
        adapt = connection.ops.adapt_datetimefield_value
        if datetime_positions:
            rows = (_adapt_datetimes(row, datetime_positions, adapt) for row in rows)
        # Multi-row INSERTs: a statement per row would open a statement journal per row wherever the
        # table has triggers (the queue entries' on dialogues: +40 % on an import of 100k dialogues).
        one = "(" + ", ".join(["%s"] * len(columns)) + ")"
        per_statement = max(1, min(_sqlite_parameters(), 32_766) // len(columns))
        rows = iter(rows)
        while chunk := list(islice(rows, per_statement)):
            values = ", ".join([one] * len(chunk))
            cursor.execute(f"INSERT INTO {table} ({column_sql}) VALUES {values}", [v for row in chunk for v in row])  # noqa: S608


def _analyze(table: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {table}")


_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _sqlite_parameters() -> int:
    """How many parameters one statement may have (999 before SQLite 3.32, 32,766 since)."""
    import sqlite3

    connection.ensure_connection()
    return connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)


COPY_BLOCK = 20_000  # rows built and sent at once


def _copy_block(rows: list, width: int) -> str:
    """``rows`` in COPY's text format, built column by column: psycopg's write_row costs 8 µs a row, and
    ``_copy_text`` called per value 0.5 µs; a column of one type converts in C (``map(str, ...)``), and a
    column equal to the one before it (``updated_at`` = ``created_at``) is converted once."""
    if set(map(len, rows)) != {width}:
        raise ValueError(f"bulk_insert rows must have {width} values each")
    texts: list[list[str]] = []
    previous: tuple | None = None
    for values in zip(*rows, strict=True):
        kinds = frozenset(map(type, values))
        if previous is not None and previous[1] == kinds and previous[0] == values:
            texts.append(texts[-1])
        else:
            texts.append(_column_texts(values, kinds))
        previous = (values, kinds)
    return "\n".join(map("\t".join, zip(*texts, strict=True))) + "\n"


_NONE = type(None)
_ESCAPED = ("\\", "\t", "\n", "\r")


def _column_texts(values: tuple, kinds: frozenset) -> list[str]:
    """Each value of one column as ``_copy_text`` gives it (the common types converted in C)."""
    if kinds <= {int}:  # bool is not int here: type(True) is bool
        return list(map(str, values))
    if kinds <= {int, float}:
        return list(map(repr, values))
    if kinds <= {int, float, _NONE}:
        return ["\\N" if value is None else repr(value) for value in values]
    if kinds == {str}:
        joined = "".join(values)
        return list(values) if not any(c in joined for c in _ESCAPED) else list(map(_copy_text, values))
    if kinds == {datetime} and all(value.tzinfo is not None for value in values):
        return list(map(datetime.isoformat, values))
    return list(map(_copy_text, values))


def _copy_text(value) -> str:
    """One value in PostgreSQL's COPY text format (NULL, booleans, escaped text, ISO 8601 times)."""
    if value is None:
        return "\\N"
    if isinstance(value, str):
        if "\\" in value or "\t" in value or "\n" in value or "\r" in value:  # scans in C; translate is slow
            return value.translate(_COPY_ESCAPES)
        return value
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value} in a bulk insert")
        return value.isoformat()
    if isinstance(value, int | float):
        return repr(value)
    raise TypeError(f"bulk_insert cannot send {type(value).__name__} values")


def array_literal(values: Sequence) -> tuple[str, str]:
    """A PostgreSQL array literal of ints or strings and its element type (``bigint`` or ``text``).

    One text parameter (``= ANY(%s::bigint[])``): cheaper to send than a list psycopg dumps item by item.
    """
    if all(isinstance(v, int) for v in values):
        return "{" + ",".join(map(str, values)) + "}", "bigint"
    return "{" + ",".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}", "text"


def _adapt_datetimes(row: Sequence, positions: list[int], adapt) -> tuple:
    values = list(row)
    for i in positions:
        if isinstance(values[i], datetime):
            if values[i].tzinfo is None:
                raise ValueError(f"naive datetime {values[i]} in a bulk insert")
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


def existing_values(model, key_field: str, keys: Sequence, fields: Sequence[str], *, chunk: int | None = None) -> dict:
    """``{key: (field values...)}`` for the rows whose ``key_field`` is in ``keys`` (plain SQL, chunked)."""
    rows = values_in(model, (key_field, *fields), {key_field: keys}, chunk=chunk)
    return {key: tuple(values) for key, *values in rows}


def values_in(
    model, fields: Sequence[str], filters: dict[str, Sequence], *, chunk: int | None = None
) -> Iterator[tuple]:
    """The ``fields`` of the rows where each field of ``filters`` takes one of its values (plain SQL).

    The first filter's values are sent in chunks (5,000 on SQLite, 50,000 on PostgreSQL). On
    PostgreSQL each list is one array parameter, not thousands of placeholders (which cost more to
    send than the query to run), and the first one is joined (``unnest``: one index probe per value;
    ``= ANY`` of a long array costs the planner milliseconds per chunk). Values come back as the ORM
    would give them (JSON text decoded).
    """
    meta = model._meta
    quote = connection.ops.quote_name
    table = quote(meta.db_table)
    select = ", ".join(f"t.{quote(meta.get_field(name).column)}" for name in fields)
    converters = [_converter(meta.get_field(name)) for name in fields]
    (first, first_values), *others = filters.items()
    first_values = list(dict.fromkeys(first_values))  # a value twice would join its rows twice
    postgresql = connection.vendor == "postgresql"
    chunk = chunk or (50_000 if postgresql else 5_000)

    def column(name: str) -> str:
        return "t." + quote(meta.get_field(name).column)

    def condition(name: str, values: Sequence) -> tuple[str, list]:
        if postgresql:
            literal, kind = array_literal(values)
            return f"{column(name)} = ANY(%s::{kind}[])", [literal]
        return f"{column(name)} IN ({', '.join(['%s'] * len(values))})", list(values)

    with connection.cursor() as cursor:
        for start in range(0, len(first_values), chunk):
            keys = first_values[start : start + chunk]
            if postgresql:
                literal, kind = array_literal(keys)
                source, params = f"unnest(%s::{kind}[]) AS k(v) JOIN {table} t ON {column(first)} = k.v", [literal]
                parts = [condition(name, values) for name, values in others]
            else:
                source, params = f"{table} t", []
                parts = [condition(first, keys)] + [condition(name, values) for name, values in others]
            where = " AND ".join(sql for sql, _params in parts) or "TRUE"
            params += [p for _sql, ps in parts for p in ps]
            cursor.execute(f"SELECT {select} FROM {source} WHERE {where}", params)  # noqa: S608
            for row in cursor.fetchall():
                yield tuple(convert(v) for convert, v in zip(converters, row, strict=True))


def _converter(field):
    """Turn a raw column value into the Python value the ORM would give (JSON text → objects)."""
    if field.get_internal_type() == "JSONField":
        import json

        return lambda v: json.loads(v) if isinstance(v, (str, bytes)) else v
    return lambda v: v


def bulk_delete(queryset) -> int:
    """Delete the rows of ``queryset`` with one statement; returns how many.

    No collector, no signals, no cascades: the caller deletes the rows that refer to these first
    (``annotation.io.batch_delete`` does, in order). Database triggers still run, once per statement.
    """
    meta = queryset.model._meta
    quote = connection.ops.quote_name
    select, params = queryset.values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {quote(meta.db_table)} WHERE {quote(meta.pk.column)} IN ({select})", params)  # noqa: S608
        return cursor.rowcount


def bulk_update_json(model, field: str, values: Sequence[tuple[int, object]]) -> int:
    """Set the JSON column ``field`` of many rows at once: ``values`` are ``(primary key, value)`` pairs.

    On PostgreSQL the pairs are copied into a temporary table (COPY) and joined by key in one
    UPDATE (a text-array parameter would be quoted element by element in Python, 0.5 s per 1,000
    large documents; one JSON object unpacked by ``jsonb_each`` parses everything twice); on SQLite
    an executemany of a prepared UPDATE. ``bulk_update`` would build a CASE over every row instead.
    Values are encoded here (UTF-8 kept, no NaN: JSON has none); None sets SQL NULL. Returns the
    number of rows updated.
    """
    import json

    from django.db import transaction

    if not values:
        return 0
    meta = model._meta
    quote = connection.ops.quote_name
    table, column, key = quote(meta.db_table), quote(meta.get_field(field).column), quote(meta.pk.column)
    encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("CREATE TEMP TABLE _bulk_json_update (k bigint, v text) ON COMMIT DROP")
            with cursor.cursor.copy("COPY _bulk_json_update (k, v) FROM STDIN") as copy:
                for pk, value in values:
                    copy.write_row((pk, None if value is None else encode(value)))
            cursor.execute(
                f"UPDATE {table} AS t SET {column} = u.v::jsonb FROM _bulk_json_update u WHERE t.{key} = u.k"  # noqa: S608
            )
            updated = cursor.rowcount
            cursor.execute("DROP TABLE _bulk_json_update")
            return updated
        keys = [pk for pk, _value in values]
        texts = [None if value is None else encode(value) for _pk, value in values]
        cursor.executemany(f"UPDATE {table} SET {column} = %s WHERE {key} = %s", list(zip(texts, keys, strict=True)))  # noqa: S608
        return len(values)
