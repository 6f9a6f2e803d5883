"""Reads for the annotation app."""

from __future__ import annotations

from collections.abc import Iterator

from annotation.axes import AXES
from annotation.io.dataset import RatingSet, rating_set
from annotation.io.records import AnnotationRecord
from annotation.models import Annotation, AnnotatorProfile, Dialogue

CHUNK = 5_000


def annotation_rows(*, batch_name: str | None = None) -> Iterator[tuple]:
    """Stored ratings, streamed in chunks, as (dialogue id, annotator, timestamp, seconds, 4 scores, 4 confidences)."""
    return _rating_values(batch_name, "created_at", "seconds_spent")


def annotation_sheet_rows(*, batch_name: str | None = None) -> Iterator[tuple]:
    """As ``annotation_rows``, with the rating's source after the timestamp (the rows of ``annotation.io.sheets``)."""
    return _rating_values(batch_name, "created_at", "source", "seconds_spent")


def _rating_values(batch_name: str | None, *middle: str, without_raters: list[int] | None = None) -> Iterator[tuple]:
    queryset = Annotation.objects.order_by("dialogue_id", "annotator_id")
    if batch_name is not None:
        queryset = queryset.filter(dialogue__batch__name=batch_name)
    if without_raters:
        queryset = queryset.exclude(annotator_id__in=without_raters)
    fields = [f"{axis}_score" for axis in AXES] + [f"{axis}_confidence" for axis in AXES]
    return queryset.values_list("dialogue__external_id", "annotator__username", *middle, *fields).iterator(
        chunk_size=CHUNK
    )


def llm_rater_ids() -> list[int]:
    """The user ids of the LLM raters' accounts (``annotation.llm_rater``)."""
    return list(AnnotatorProfile.objects.exclude(llm_model="").values_list("user_id", flat=True))


def annotation_records(*, batch_name: str | None = None, include_llm: bool = False) -> list[AnnotationRecord]:
    """Stored ratings in the shape of the seed A.3 output records.

    The ratings of LLM raters are left out unless ``include_llm``: consensus and human agreement are
    computed over people unless a researcher includes an LLM.
    """
    without = None if include_llm else llm_rater_ids()
    rows = _rating_values(batch_name, "created_at", "seconds_spent", without_raters=without)
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


def stored_rating_set(*, batch_name: str | None = None, include_llm: bool = False) -> RatingSet:
    return rating_set(annotation_records(batch_name=batch_name, include_llm=include_llm))


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
