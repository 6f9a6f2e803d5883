"""Assignments name the batch whose queue handed them out; one open reservation per annotator and batch."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone


def backfill_batch_and_close_duplicates(apps, schema_editor):
    Assignment = apps.get_model("annotation", "Assignment")
    Dialogue = apps.get_model("annotation", "Dialogue")
    Assignment.objects.filter(batch__isnull=True).update(
        batch_id=Subquery(Dialogue.objects.filter(pk=OuterRef("dialogue_id")).values("batch_id")[:1])
    )
    # Two racing requests could leave an annotator two open reservations in one batch: keep the
    # newest, give the others' slots back (their late submissions are still stored by the queue).
    seen: set[tuple[int, int]] = set()
    now = timezone.now()
    for pk, annotator_id, batch_id, dialogue_id in (
        Assignment.objects.filter(status="reserved")
        .order_by("annotator_id", "batch_id", "-reserved_at", "-pk")
        .values_list("pk", "annotator_id", "batch_id", "dialogue_id")
    ):
        if (annotator_id, batch_id) in seen:
            Assignment.objects.filter(pk=pk).update(status="expired", finished_at=now)
            Dialogue.objects.filter(pk=dialogue_id, taken_count__gt=0).update(taken_count=F("taken_count") - 1)
        seen.add((annotator_id, batch_id))


class Migration(migrations.Migration):
    dependencies = [("annotation", "0007_postgresql_schema")]

    operations = [
        migrations.AddField(
            model_name="assignment",
            name="batch",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="assignments",
                to="annotation.batch",
                verbose_name="batch",
            ),
        ),
        migrations.RunPython(backfill_batch_and_close_duplicates, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name="assignment",
            name="batch",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="assignments",
                to="annotation.batch",
                verbose_name="batch",
            ),
        ),
        migrations.AlterField(
            model_name="assignment",
            name="status",
            field=models.CharField(
                choices=[
                    ("reserved", "reserved"),
                    ("submitted", "submitted"),
                    ("skipped", "skipped"),
                    ("expired", "expired"),
                    ("closed", "closed: rated another way"),
                ],
                default="reserved",
                max_length=16,
                verbose_name="status",
            ),
        ),
        migrations.RemoveIndex(model_name="assignment", name="assignment_expiry"),
        migrations.AddConstraint(
            model_name="assignment",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status", "reserved")),
                fields=("annotator", "batch"),
                name="one_open_reservation_per_batch",
            ),
        ),
    ]
