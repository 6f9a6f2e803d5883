"""PostgreSQL: the foreign keys a batch deletion runs through act in the database (see annotation.schema_postgresql)."""

from django.db import migrations

from annotation import schema_postgresql


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            schema_postgresql.apply(cursor)
            schema_postgresql.drop_pattern_index(cursor)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            schema_postgresql.create_pattern_index(cursor)
            schema_postgresql.apply(cursor, actions=dict.fromkeys(schema_postgresql.ACTIONS, "NO ACTION"))


class Migration(migrations.Migration):
    dependencies = [("annotation", "0006_indexes_covered_by_composites")]

    operations = [migrations.RunPython(forwards, backwards)]
