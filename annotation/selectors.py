"""Reads for the annotation app."""

from __future__ import annotations

from collections.abc import Iterator

from annotation.axes import AXES
from annotation.io.dataset import RatingSet, rating_set
from annotation.io.records import AnnotationRecord
from annotation.models import Annotation, Dialogue

CHUNK = 5_000


def annotation_rows(*, batch_name: str | None = None) -> Iterator[tuple]:
    """Stored ratings, streamed in chunks, as (dialogue id, annotator, timestamp, seconds, 4 scores, 4 confidences)."""
    return _rating_values(batch_name, "created_at", "seconds_spent")


def annotation_sheet_rows(*, batch_name: str | None = None) -> Iterator[tuple]:
    """As ``annotation_rows``, with the rating's source after the timestamp (the rows of ``annotation.io.sheets``)."""
    return _rating_values(batch_name, "created_at", "source", "seconds_spent")


def _rating_values(batch_name: str | None, *middle: str) -> Iterator[tuple]:
    queryset = Annotation.objects.order_by("dialogue_id", "annotator_id")
    if batch_name is not None:
        queryset = queryset.filter(dialogue__batch__name=batch_name)
    fields = [f"{axis}_score" for axis in AXES] + [f"{axis}_confidence" for axis in AXES]
    return queryset.values_list("dialogue__external_id", "annotator__username", *middle, *fields).iterator(
        chunk_size=CHUNK
    )


def annotation_records(*, batch_name: str | None = None) -> list[AnnotationRecord]:
    """Stored ratings in the shape of the seed A.3 output records."""
    rows = annotation_rows(batch_name=batch_name)
    n = len(AXES)
    return [
        AnnotationRecord(
            id=dialogue_id,
            annotator_id=annotator,
            timestamp=created_at,
            scores=dict(zip(AXES, values[:n], strict=True)),
            confidence=dict(zip(AXES, values[n:], strict=True)),
            seconds_spent=seconds,
        )
        for dialogue_id, annotator, created_at, seconds, *values in rows
    ]


def stored_rating_set(*, batch_name: str | None = None) -> RatingSet:
    return rating_set(annotation_records(batch_name=batch_name))


def dialogue_records(external_ids) -> dict[str, dict]:
    """``{external_id: seed A.3 input dict}`` for the given ids."""
    ids = list(external_ids)
    found = {}
    for start in range(0, len(ids), CHUNK):
        for item in Dialogue.objects.filter(external_id__in=ids[start : start + CHUNK]).only(
            "external_id", "user_text", "response_text", "context"
        ):
            found[item.external_id] = item.as_record()
    return found
