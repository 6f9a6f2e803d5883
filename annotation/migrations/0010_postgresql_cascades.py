"""PostgreSQL: the foreign key added by 0009 acts on delete in the database too.

A migration of its own: Django creates a new table's foreign keys at the end of the migration that
creates it.
"""

from django.db import migrations

from annotation.models import schema_postgresql

NEW_KEYS = [("annotation_dialoguerevision", "dialogue_id")]


def cascade_in_database(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            schema_postgresql.apply(cursor, actions={key: "CASCADE" for key in NEW_KEYS})


class Migration(migrations.Migration):
    dependencies = [("annotation", "0009_dialogue_revisions")]

    operations = [migrations.RunPython(cascade_in_database, migrations.RunPython.noop)]
