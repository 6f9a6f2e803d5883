"""The work queue's counts move from the dialogue rows to narrow QueueEntry rows kept by triggers.

See annotation/models_queue.py for why. Order matters on SQLite: removing ``taken_count`` rebuilds
``annotation_dialogue``, which would drop triggers created before it, so they are installed last.
"""

import django.db.models.deletion
from django.db import migrations, models

from annotation.models import queue_triggers as queue_entries

COPY_COUNTS = (
    "INSERT INTO annotation_queueentry (dialogue_id, batch_id, taken_count) "
    "SELECT id, batch_id, taken_count FROM annotation_dialogue"
)
COPY_COUNTS_BACK = (
    "UPDATE annotation_dialogue SET taken_count = COALESCE("
    "(SELECT e.taken_count FROM annotation_queueentry e WHERE e.dialogue_id = annotation_dialogue.id), 0)"
)


def copy_counts(apps, schema_editor):
    schema_editor.execute(COPY_COUNTS)


def copy_counts_back(apps, schema_editor):
    schema_editor.execute(COPY_COUNTS_BACK)


def install_triggers(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        queue_entries.install(cursor, schema_editor.connection.vendor)


def remove_triggers(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        queue_entries.remove(cursor, schema_editor.connection.vendor)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0011_rating_tally_one_statement")]

    operations = [
        migrations.CreateModel(
            name="QueueEntry",
            fields=[
                (
                    "dialogue",
                    models.OneToOneField(
                        db_constraint=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        primary_key=True,
                        related_name="queue_entry",
                        serialize=False,
                        to="annotation.dialogue",
                        verbose_name="dialogue",
                    ),
                ),
                ("taken_count", models.PositiveIntegerField(default=0, verbose_name="ratings and reservations")),
                (
                    "batch",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="annotation.batch",
                    ),
                ),
            ],
            options={"verbose_name": "queue entry", "verbose_name_plural": "queue entries"},
        ),
        migrations.AddIndex(
            model_name="queueentry",
            index=models.Index(fields=["batch", "taken_count", "dialogue"], name="queue_entry_order"),
        ),
        migrations.RunPython(copy_counts, copy_counts_back, elidable=True),
        migrations.RemoveIndex(model_name="dialogue", name="dialogue_queue_order"),
        migrations.RemoveField(model_name="dialogue", name="taken_count"),
        migrations.AlterField(
            model_name="dialogue",
            name="batch",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="dialogues",
                to="annotation.batch",
                verbose_name="batch",
            ),
        ),
        migrations.RunPython(install_triggers, remove_triggers),
    ]
