"""A new database's schema made at once (core.fresh_schema) is the schema the migrations make one by one.

Each test runs ``manage.py migrate`` in a subprocess on databases of its own (SQLite files; on PostgreSQL, when
DATABASE_URL names one, scratch databases beside it) and compares everything the migrations leave: tables,
columns, indexes, constraints, triggers and functions, the rows of content types, permissions and groups,
and the migrations recorded as applied.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import uuid
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db.migrations.loader import MigrationLoader

from core import fresh_schema

ROOT = Path(__file__).resolve().parents[2]
DATABASE_URL = os.environ.get("DATABASE_URL", "")
NEW_DATABASE = "New database:"

ROWS = {
    "content types": "SELECT app_label, model FROM django_content_type",
    "permissions": (
        "SELECT t.app_label, t.model, p.codename, p.name FROM auth_permission p "
        "JOIN django_content_type t ON t.id = p.content_type_id"
    ),
    "groups": (
        "SELECT g.name, p.codename FROM auth_group g LEFT JOIN auth_group_permissions gp ON gp.group_id = g.id "
        "LEFT JOIN auth_permission p ON p.id = gp.permission_id"
    ),
    "migrations": "SELECT app, name FROM django_migrations",
}

POSTGRES_SCHEMA = {
    "columns": (
        "SELECT table_name, column_name, data_type, character_maximum_length, numeric_precision, is_nullable, "
        "column_default, is_identity, identity_generation FROM information_schema.columns "
        "WHERE table_schema = 'public'"
    ),
    "constraints": (
        "SELECT conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE connamespace = 'public'::regnamespace"
    ),
    "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
    "triggers": "SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal",
    "functions": "SELECT proname, pg_get_functiondef(oid) FROM pg_proc WHERE pronamespace = 'public'::regnamespace",
}


def migrate(url: str, *options: str) -> str:
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "1"}
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", *options],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def table_clauses(sql: str) -> tuple:
    """A CREATE TABLE's column and constraint clauses, in a stable order.

    SQLite rebuilds a table to alter one of its columns and puts that column last; the order of the
    columns is all that differs between the two paths there.
    """
    head, _, body = sql.partition("(")
    clauses, depth, current = [], 0, ""
    for char in body.rstrip()[:-1]:
        if char == "," and depth == 0:
            clauses.append(current.strip())
            current = ""
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        current += char
    clauses.append(current.strip())
    return (head.strip(), tuple(sorted(clauses)))


def sqlite_snapshot(path: Path) -> dict:
    with sqlite3.connect(path) as conn:
        schema = {
            (kind, name): table_clauses(sql) if kind == "table" else re.sub(r"\s+", " ", sql or "")
            for kind, name, sql in conn.execute(
                "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            )
        }
        rows = {label: sorted(conn.execute(query).fetchall(), key=repr) for label, query in ROWS.items()}
    return {"schema": schema, **rows}


def postgres_snapshot(url: str) -> dict:
    import psycopg

    with psycopg.connect(url) as conn:
        found = {label: set(conn.execute(query).fetchall()) for label, query in POSTGRES_SCHEMA.items()}
        found.update({label: sorted(conn.execute(query).fetchall(), key=repr) for label, query in ROWS.items()})
    return found


def assert_same(fresh: dict, replayed: dict) -> None:
    assert fresh.keys() == replayed.keys()
    for label in fresh:
        assert fresh[label] == replayed[label], label
    assert len(fresh["migrations"]) > 60 and len(fresh["groups"]) >= 3


def test_sqlite_new_database_gets_the_schema_the_migrations_make(tmp_path):
    fresh, replayed = tmp_path / "fresh.sqlite3", tmp_path / "replayed.sqlite3"
    assert NEW_DATABASE in migrate(f"sqlite:///{fresh}")
    assert NEW_DATABASE not in migrate(f"sqlite:///{replayed}", "--replay")
    assert_same(sqlite_snapshot(fresh), sqlite_snapshot(replayed))
    # Migrating again finds nothing to do and leaves the schema as it was.
    again = migrate(f"sqlite:///{fresh}")
    assert NEW_DATABASE not in again and "No migrations to apply" in again
    assert_same(sqlite_snapshot(fresh), sqlite_snapshot(replayed))


@contextmanager
def scratch_postgres():
    import psycopg

    parts = urlsplit(DATABASE_URL)
    admin = urlunsplit(parts._replace(path="/postgres"))
    name = f"jaiml_fresh_schema_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.skipif(not DATABASE_URL.startswith("postgres"), reason="DATABASE_URL names no PostgreSQL server")
def test_postgresql_new_database_gets_the_schema_the_migrations_make():
    with scratch_postgres() as fresh, scratch_postgres() as replayed:
        assert NEW_DATABASE in migrate(fresh)
        assert NEW_DATABASE not in migrate(replayed, "--replay")
        fresh_found, replayed_found = postgres_snapshot(fresh), postgres_snapshot(replayed)
        assert_same(fresh_found, replayed_found)
        # The tally and queue triggers are there: the path ran the migrations' RunPython steps.
        assert len(fresh_found["triggers"]) >= 4


def test_a_database_with_any_table_replays_the_migrations_and_keeps_its_rows(tmp_path):
    path = tmp_path / "kept.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (body text)")
        conn.execute("INSERT INTO notes VALUES ('keep me')")
    out = migrate(f"sqlite:///{path}")
    assert NEW_DATABASE not in out and "Applying annotation.0001_initial... OK" in out
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT body FROM notes").fetchall() == [("keep me",)]


def test_plan_and_a_named_app_never_take_the_new_database_path(tmp_path):
    path = tmp_path / "planned.sqlite3"
    out = migrate(f"sqlite:///{path}", "--plan")
    assert NEW_DATABASE not in out and "annotation.0001_initial" in out
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)
    out = migrate(f"sqlite:///{path}", "contenttypes")
    assert NEW_DATABASE not in out and "Applying contenttypes.0001_initial... OK" in out


def in_django(url: str, code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a new process with Django set up on the database at ``url``."""
    script = "import django\ndjango.setup()\n" + code
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings"}
    return subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )


FAILING_STEP = """
from django.core.management import call_command
from django.db.migrations.operations.special import RunPython
from core import fresh_schema

def fail(apps, schema_editor):
    raise RuntimeError("step failed")

real = fresh_schema.database_operations
fresh_schema.database_operations = lambda operations: [*real(operations), RunPython(fail)]
call_command("migrate", interactive=False, verbosity=0)
"""


def test_a_failing_step_stores_nothing(tmp_path):
    path = tmp_path / "failed.sqlite3"
    done = in_django(f"sqlite:///{path}", FAILING_STEP)
    assert done.returncode != 0 and "RuntimeError: step failed" in done.stderr
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)


@pytest.mark.skipif(not DATABASE_URL.startswith("postgres"), reason="DATABASE_URL names no PostgreSQL server")
def test_a_failing_step_stores_nothing_on_postgresql():
    import psycopg

    with scratch_postgres() as url:
        done = in_django(url, FAILING_STEP)
        assert done.returncode != 0 and "RuntimeError: step failed" in done.stderr
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)


def test_create_records_every_migration_and_the_database_is_no_longer_new(tmp_path):
    done = in_django(
        f"sqlite:///{tmp_path / 'made.sqlite3'}",
        """
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from core import fresh_schema

executor = MigrationExecutor(connection)
assert fresh_schema.is_fresh(connection)
planned = {(migration.app_label, migration.name) for migration, _ in fresh_schema.full_plan(executor)}
assert fresh_schema.create(executor) == len(planned) > 60
executor = MigrationExecutor(connection)
assert set(executor.loader.applied_migrations) == planned
assert not fresh_schema.is_fresh(connection)
assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
print("checked")
""",
    )
    assert done.returncode == 0 and done.stdout.strip() == "checked", done.stderr[-3000:]


def test_only_data_steps_are_left_out():
    """The steps written for the rows of their time are elidable; the ones that shape the database are not."""
    kept = {
        (migration.app_label, migration.name, operation.code.__name__)
        for migration in MigrationLoader(None, ignore_no_migrations=True).disk_migrations.values()
        for operation in fresh_schema.database_operations(migration.operations)
        if migration.app_label in {"annotation", "core", "layer3", "llm", "director"}
    }
    assert {(app, name) for app, name, _ in kept} == {
        ("annotation", "0004_rating_tally"),
        ("annotation", "0005_rating_tally_per_statement"),
        ("annotation", "0007_postgresql_schema"),
        ("annotation", "0010_postgresql_cascades"),
        ("annotation", "0011_rating_tally_one_statement"),
        ("annotation", "0012_queue_entries"),
        ("annotation", "0016_flag_reviews"),
        ("core", "0002_role_groups"),
    }
    assert ("annotation", "0012_queue_entries", "copy_counts") not in kept
    assert ("annotation", "0016_flag_reviews", "reviewer_group") in kept
