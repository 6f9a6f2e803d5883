"""Deleting a batch with everything stored under it, one set-based statement per table.

Ratings are research data: nothing else in the app deletes them (dialogues and ratings are
protected from the ORM's cascades). A researcher who really wants a batch gone calls this, through
``manage.py delete_batch``; agreement reports about the batch are kept, detached from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from annotation.models import (
    Adjudication,
    AgreementReport,
    Annotation,
    AnnotationEdit,
    Assignment,
    Batch,
    Dialogue,
    DialogueRevision,
    ImportOverride,
    ImportOverrideRating,
    ItemComment,
    QualityFlag,
    QueueEntry,
    RatingQuarter,
    RatingTotal,
)
from core.bulk import bulk_delete

# Every model with a foreign key to Batch, Dialogue or Annotation, and how a batch deletion treats it
# (a test fails when a new one appears, so it gets a place here).
HANDLED = {
    (QualityFlag, "dialogue"): "deleted",
    (QualityFlag, "annotation"): "deleted",
    (AnnotationEdit, "annotation"): "deleted",
    (ImportOverrideRating, "annotation"): "deleted",
    (Annotation, "dialogue"): "deleted",
    (DialogueRevision, "dialogue"): "deleted",
    (Adjudication, "dialogue"): "deleted",
    (ItemComment, "dialogue"): "deleted",
    (Assignment, "dialogue"): "deleted",
    (Assignment, "batch"): "deleted",
    (Dialogue, "batch"): "deleted",
    (RatingTotal, "batch"): "deleted",
    (RatingQuarter, "batch"): "deleted",
    # deleted with their dialogues by the database (annotation.models.queue_triggers)
    (QueueEntry, "dialogue"): "deleted by trigger",
    (QueueEntry, "batch"): "deleted by trigger",
    (AgreementReport, "batch"): "kept, detached",
    # the record of an import that went past the batch's rules: who and why stays (it names its batches)
    (ImportOverride, "batch"): "kept, detached",
}


@dataclass(frozen=True)
class BatchContents:
    dialogues: int
    ratings: int
    edits: int
    assignments: int
    revisions: int
    adjudications: int
    comments: int
    flags: int
    reports: int

    def __str__(self) -> str:
        return (
            f"{self.dialogues} dialogues, {self.ratings} ratings, {self.edits} rating edits, "
            f"{self.assignments} assignments, {self.revisions} text revisions, {self.adjudications} adjudications, "
            f"{self.comments} item comments, {self.flags} quality flags; "
            f"{self.reports} agreement reports kept"
        )


def _querysets(batch: Batch) -> dict:
    """What is deleted, in an order where nothing is deleted before what refers to it."""
    return {
        "flags": QualityFlag.objects.filter(dialogue__batch=batch)
        | QualityFlag.objects.filter(annotation__dialogue__batch=batch),
        "edits": AnnotationEdit.objects.filter(annotation__dialogue__batch=batch),
        "ratings": Annotation.objects.filter(dialogue__batch=batch),
        "assignments": Assignment.objects.filter(dialogue__batch=batch) | Assignment.objects.filter(batch=batch),
        "revisions": DialogueRevision.objects.filter(dialogue__batch=batch),
        "adjudications": Adjudication.objects.filter(dialogue__batch=batch),
        "comments": ItemComment.objects.filter(dialogue__batch=batch),
        "dialogues": Dialogue.objects.filter(batch=batch),
    }


def batch_contents(batch: Batch) -> BatchContents:
    """What ``batch_delete`` would delete (and keep)."""
    counts = {name: queryset.count() for name, queryset in _querysets(batch).items()}
    return BatchContents(**counts, reports=AgreementReport.objects.filter(batch=batch).count())


def batch_delete(batch: Batch) -> BatchContents:
    """Delete ``batch``, its dialogues with their ratings, edits, assignments, revisions, adjudications, comments and
    flags, and its tallies."""
    with transaction.atomic():
        Batch.objects.select_for_update().get(pk=batch.pk)  # no second deletion or import runs meanwhile
        # the links of import overrides to the batch's ratings go with the ratings (the overrides stay)
        bulk_delete(ImportOverrideRating.objects.filter(annotation__dialogue__batch=batch))
        counts = {name: bulk_delete(queryset) for name, queryset in _querysets(batch).items()}
        bulk_delete(RatingTotal.objects.filter(batch=batch))
        bulk_delete(RatingQuarter.objects.filter(batch=batch))
        reports = AgreementReport.objects.filter(batch=batch).update(batch=None)
        ImportOverride.objects.filter(batch=batch).update(batch=None)
        Batch.objects.filter(pk=batch.pk).delete()
    return BatchContents(**counts, reports=reports)
