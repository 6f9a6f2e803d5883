"""A new, empty database gets its schema in one step instead of replaying every migration.

Replaying this project's migrations on an empty database costs about 4 s, nearly all of it in Django
rendering the models' state again after each operation (every model related to ``auth.User`` is rebuilt
for every ``CreateModel``, ``AddField`` or ``AddConstraint``). A database with no tables at all does not
need the history: this module creates every table from the state the migrations end in (as ``migrate
--run-syncdb`` does for apps without migrations, and as Rails loads ``schema.rb``), runs the migrations'
non-elidable ``RunPython``/``RunSQL`` operations in their order (the PostgreSQL triggers and ``ON DELETE``
actions, the role groups), and records every migration as applied, all in one transaction.

A ``RunPython`` or ``RunSQL`` that only moves or backfills existing rows is marked ``elidable=True`` (Django's
flag for "leave out when squashing"): on an empty database it has nothing to do, and it is written for the
columns of its own time, not the final ones. ``tests/core/test_fresh_schema.py`` holds the two paths to
the same schema, rows and recorded migrations on SQLite and PostgreSQL.

The path is taken only when every migration is to be applied and the database has no table at all;
``manage.py migrate --replay`` always replays the migrations.
"""

from __future__ import annotations

from django.db import router
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.operations.special import RunPython, RunSQL, SeparateDatabaseAndState


def is_fresh(connection) -> bool:
    """True when the database has no table at all (so no migration recorded either): nothing there can be lost."""
    with connection.cursor() as cursor:
        return not connection.introspection.table_names(cursor)


def full_plan(executor: MigrationExecutor) -> list:
    """Every migration, in the order ``migrate`` would apply them."""
    return executor.migration_plan(executor.loader.graph.leaf_nodes(), clean_start=True)


def create(executor: MigrationExecutor) -> int:
    """Create the final schema on a fresh database and record the plan as applied; returns how many were."""
    plan = full_plan(executor)
    connection = executor.connection
    state = executor.loader.project_state()
    models = [
        model
        for model in state.apps.get_models()
        if model._meta.app_label in executor.loader.migrated_apps
        and model._meta.can_migrate(connection)
        and router.allow_migrate_model(connection.alias, model)
    ]
    with connection.schema_editor(atomic=True) as editor:
        for model in models:
            editor.create_model(model)
        # The foreign keys and indexes Django leaves to the end of a migration: the operations below act on them.
        while editor.deferred_sql:
            editor.execute(editor.deferred_sql.pop(0))
        for migration, _backwards in plan:
            for operation in database_operations(migration.operations):
                operation.database_forwards(migration.app_label, editor, state, state)
        executor.recorder.ensure_schema()
        for migration, _backwards in plan:
            executor.record_migration(migration)
    return len(plan)


def database_operations(operations) -> list:
    """The operations of a migration that act on the database beyond its tables: non-elidable RunPython/RunSQL."""
    found = []
    for operation in operations:
        if isinstance(operation, SeparateDatabaseAndState):
            found.extend(database_operations(operation.database_operations))
        elif isinstance(operation, (RunPython, RunSQL)) and not operation.elidable:
            found.append(operation)
    return found
