"""Reads for the annotator's "My ratings" page: their ratings with what each edit changed, and their skips."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, F, OuterRef

from annotation.axes import AXES
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import Annotation, AnnotationEdit, Assignment, Batch

PER_PAGE = 50
EDITS_SHOWN = 20  # per rating; the rest are counted


@dataclass(frozen=True)
class Change:
    """One axis whose score or confidence an edit changed (None: that value did not change)."""

    axis: str
    score: tuple[int, int] | None
    confidence: tuple[float, float] | None

    @property
    def name(self):
        return AXIS_NAMES[self.axis]


def edit_changes(old_values: dict, new_values: dict) -> list[Change]:
    """The axes an edit changed, in axis order: old → new score and confidence (unchanged ones left out)."""
    changes = []
    for axis in AXES:
        pairs = []
        for field in (f"{axis}_score", f"{axis}_confidence"):
            old, new = old_values.get(field), new_values.get(field)
            pairs.append((old, new) if old != new else None)
        if pairs[0] or pairs[1]:
            changes.append(Change(axis, *pairs))
    return changes


def ratings_page(*, annotator, number) -> Page:
    """``annotator``'s ratings, newest first, each with ``recent_edits`` (newest first, each with ``changes``)."""
    edits = AnnotationEdit.objects.select_related("edited_by").order_by("-edited_at", "-pk")
    ratings = (
        Annotation.objects.filter(annotator=annotator)
        .select_related("dialogue", "dialogue__batch")
        .annotate(n_edits=Count("edits"))
        .order_by("-created_at", "-pk")
    )
    page = Paginator(ratings, PER_PAGE).get_page(number)
    shown = list(page.object_list)
    by_rating: dict[int, list[AnnotationEdit]] = {}
    for edit in edits.filter(annotation__in=[r.pk for r in shown]):
        by_rating.setdefault(edit.annotation_id, []).append(edit)
    for rating in shown:
        rating.values_by_axis = [(getattr(rating, f"{a}_score"), getattr(rating, f"{a}_confidence")) for a in AXES]
        rating.recent_edits = by_rating.get(rating.pk, [])[:EDITS_SHOWN]
        for edit in rating.recent_edits:
            edit.changes = edit_changes(edit.old_values, edit.new_values)
    page.object_list = shown
    return page


def edits_of(annotation: Annotation) -> list[AnnotationEdit]:
    edits = list(annotation.edits.select_related("edited_by").order_by("-edited_at", "-pk")[:EDITS_SHOWN])
    for edit in edits:
        edit.changes = edit_changes(edit.old_values, edit.new_values)
    return edits


def skipped_page(*, annotator, number) -> Page:
    """``annotator``'s skipped items, newest first, each with ``reopenable`` or ``why_not`` ("complete",
    "rated", "paused", "closed", "unavailable"): what ``assignment_unskip`` would answer now."""
    rated = Annotation.objects.filter(dialogue_id=OuterRef("dialogue_id"), annotator=annotator)
    skipped = (
        Assignment.objects.filter(annotator=annotator, status=Assignment.Status.SKIPPED)
        .select_related("dialogue", "batch")
        .annotate(taken=F("dialogue__queue_entry__taken_count"), rated=Exists(rated))
        .order_by("-finished_at", "-pk")
    )
    page = Paginator(skipped, PER_PAGE).get_page(number)
    shown = list(page.object_list)
    chosen = set(
        Batch.annotators.through.objects.filter(
            user_id=annotator.pk, batch_id__in={a.batch_id for a in shown}
        ).values_list("batch_id", flat=True)
    )
    for assignment in shown:
        assignment.why_not = _why_not(assignment, chosen)
        assignment.reopenable = assignment.why_not is None
    page.object_list = shown
    return page


def _why_not(assignment: Assignment, chosen: set[int]) -> str | None:
    batch = assignment.batch
    if assignment.rated:
        return "rated"
    if batch.status != Batch.Status.OPEN:
        return batch.status  # "paused" or "closed"
    if (batch.restricted and batch.pk not in chosen) or assignment.dialogue.batch_id != batch.pk:
        return "unavailable"
    if assignment.taken is None or assignment.taken >= batch.annotations_per_item:
        return "complete"
    return None
