"""Progress tallies kept by statement-level triggers (one upsert per group of rows, not per row)."""

from importlib import import_module

from django.db import migrations

from annotation.models import tally_postgresql

# The row-level triggers and functions of migration 0004.
REMOVE_ROW_LEVEL = """
DROP TRIGGER IF EXISTS annotation_tally_dialogue_moved ON annotation_dialogue;
DROP TRIGGER IF EXISTS annotation_tally_update ON annotation_annotation;
DROP TRIGGER IF EXISTS annotation_tally_insert_delete ON annotation_annotation;
DROP FUNCTION IF EXISTS annotation_tally_dialogue_moved();
DROP FUNCTION IF EXISTS annotation_tally_rating();
DROP FUNCTION IF EXISTS annotation_tally_apply(integer, bigint, timestamptz, integer);
"""


def per_statement(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(REMOVE_ROW_LEVEL)
        schema_editor.execute(tally_postgresql.INSTALL)


def per_row(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(tally_postgresql.REMOVE)
        migration_0004 = import_module("annotation.migrations.0004_rating_tally")
        schema_editor.execute(migration_0004.INSTALL)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0004_rating_tally")]

    operations = [migrations.RunPython(per_statement, per_row)]
