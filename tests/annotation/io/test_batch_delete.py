"""Deleting a batch: everything under it goes, set-based, other batches and reports stay; the command asks first."""

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import ForeignKey

from annotation.collection.queue import assignment_next
from annotation.io.batch_delete import HANDLED, batch_contents, batch_delete
from annotation.models import (
    AgreementReport,
    Annotation,
    AnnotationEdit,
    Assignment,
    Batch,
    Dialogue,
    QualityFlag,
    RatingTotal,
)
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
SCORES = {"social": 1, "avoidant": 2, "mechanical": 3, "self": 4}


def _filled(name: str, n: int, annotators) -> Batch:
    batch = Batch.objects.create(name=name, annotations_per_item=3)
    Dialogue.objects.bulk_create(
        Dialogue(external_id=f"{name}_{i}", user_text="u", response_text="r", batch=batch) for i in range(n)
    )
    values = {f"{axis}_score": score for axis, score in SCORES.items()} | {f"{a}_confidence": 1.0 for a in SCORES}
    Annotation.objects.bulk_create(
        Annotation(dialogue=d, annotator=a, **values) for d in batch.dialogues.all() for a in annotators
    )
    first = Annotation.objects.filter(dialogue__batch=batch).first()
    AnnotationEdit.objects.create(annotation=first, old_values={}, new_values={}, reason="r")
    QualityFlag.objects.create(annotation=first, source="outlier", kind="outlier", message="m")
    QualityFlag.objects.create(dialogue=batch.dialogues.first(), source="consistency", kind="B.1", message="m")
    AgreementReport.objects.create(batch=batch, source=name, passed=True, report={})
    return batch


def test_every_relation_to_a_batch_has_a_rule():
    """A new model pointing at batches, dialogues or ratings must be given a place in the deletion."""
    targets = {Batch, Dialogue, Annotation}
    from django.apps import apps

    found = {
        (model, field.name)
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if isinstance(field, ForeignKey) and field.related_model in targets
    }
    assert found == set(HANDLED)


def test_batch_delete_removes_everything_under_the_batch_and_nothing_else():
    alice, bob = make_user("alice", "annotator"), make_user("bob", "annotator")
    doomed, kept = _filled("doomed", 30, [alice, bob]), _filled("kept", 10, [alice])
    assignment_next(batch=doomed, annotator=make_user("carol", "annotator"))
    before = {model: model.objects.count() for model in (Annotation, AnnotationEdit, QualityFlag, Dialogue)}

    contents = batch_contents(doomed)
    assert (contents.dialogues, contents.ratings, contents.edits, contents.flags, contents.assignments) == (
        30, 60, 1, 2, 1
    )  # fmt: skip
    deleted = batch_delete(doomed)
    assert deleted == contents

    assert not Batch.objects.filter(name="doomed").exists()
    assert Annotation.objects.count() == before[Annotation] - 60 == 10
    assert Dialogue.objects.count() == 10 and AnnotationEdit.objects.count() == 1 and QualityFlag.objects.count() == 2
    assert not Assignment.objects.exists()
    assert set(RatingTotal.objects.values_list("batch_id", flat=True)) <= {kept.pk}
    report = AgreementReport.objects.get(source="doomed")
    assert report.batch is None  # kept, detached
    assert batch_contents(kept).ratings == 10


def test_delete_batch_command_needs_a_confirmation(capsys):
    batch = _filled("old", 3, [make_user("alice", "annotator")])
    with pytest.raises(CommandError, match="confirm with --yes"):
        call_command("delete_batch", "old")  # no terminal under pytest
    assert Batch.objects.filter(pk=batch.pk).exists()
    with pytest.raises(CommandError, match="no batch named 'olde' \\(batches: old\\)"):
        call_command("delete_batch", "olde", "--yes")
    call_command("delete_batch", "old", "--yes")
    out = capsys.readouterr().out
    assert "3 dialogues, 3 ratings" in out and "deleted batch old" in out
    assert not Batch.objects.exists() and not Annotation.objects.exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's own foreign-key actions and indexes")
def test_postgresql_acts_on_deletes_as_the_models_say():
    from django.db import IntegrityError, transaction

    from annotation.models import schema_postgresql

    with connection.cursor() as cursor:
        assert schema_postgresql.current(cursor) == schema_postgresql.ACTIONS
        assert schema_postgresql.pattern_indexes(cursor) == []
    batch = _filled("kept", 2, [make_user("alice", "annotator")])
    dialogue = batch.dialogues.first()
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM annotation_dialogue WHERE id = %s", [dialogue.pk])  # RESTRICT: refused at once
    assert Annotation.objects.filter(dialogue=dialogue).exists()
