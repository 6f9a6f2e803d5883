"""PostgreSQL: the foreign keys a batch deletion runs through act in the database (see annotation.models.schema_postgresql)."""

from django.db import migrations

from annotation.models import schema_postgresql

# The foreign keys there were when this migration was written (0009 adds the later ones).
ACTIONS = {
    ("annotation_annotationedit", "annotation_id"): "CASCADE",
    ("annotation_qualityflag", "annotation_id"): "CASCADE",
    ("annotation_qualityflag", "dialogue_id"): "CASCADE",
    ("annotation_assignment", "dialogue_id"): "CASCADE",
    ("annotation_annotation", "dialogue_id"): "RESTRICT",
}


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            schema_postgresql.apply(cursor, actions=ACTIONS)
            schema_postgresql.drop_pattern_index(cursor)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            schema_postgresql.create_pattern_index(cursor)
            schema_postgresql.apply(cursor, actions=dict.fromkeys(ACTIONS, "NO ACTION"))


class Migration(migrations.Migration):
    dependencies = [("annotation", "0006_indexes_covered_by_composites")]

    operations = [migrations.RunPython(forwards, backwards)]
