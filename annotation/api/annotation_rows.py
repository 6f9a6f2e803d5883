"""A page of ratings as ``AnnotationSerializer`` writes them, built from ``values()`` rows (the list endpoint).

A page holds up to 1,000 ratings: two queries (the ratings with their dialogue, batch and annotator; the
edits of those ratings) and plain dicts, without model instances or DRF fields per value. The JSON is the
serializer's, key for key and value for value (``tests/annotation/api/test_annotation_rows.py`` compares
them); the date-times go through DRF's own ``DateTimeField`` so the format and time zone cannot drift (with the
request's time zone looked up once per page, and each distinct time written once: an import gives thousands of
ratings the same one).
"""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.utils import timezone
from rest_framework import serializers

from annotation.axes import AXES
from annotation.models import AnnotationEdit

_SCORES = tuple(f"{axis}_score" for axis in AXES)
_CONFIDENCES = tuple(f"{axis}_confidence" for axis in AXES)
ROW_FIELDS = (
    "id", "dialogue__batch_id", "dialogue__external_id", "annotator__username", *_SCORES, *_CONFIDENCES, "source",
    "seconds_spent", "created_at", "updated_at",
)  # fmt: skip


def _moments():
    """DRF's ``DateTimeField().to_representation`` with the current time zone fixed for the page, memoised."""
    field = serializers.DateTimeField(default_timezone=timezone.get_current_timezone() if settings.USE_TZ else None)
    written: dict = {}

    def moment(value):
        try:
            return written[value]
        except KeyError:
            text = written[value] = field.to_representation(value)
            return text

    return moment


def _float(value):
    return None if value is None else float(value)


def rating_dicts(rows: list[dict]) -> list[dict]:
    """``rows`` (``values(*ROW_FIELDS)``) as the API shows ratings, each with its edits newest first."""
    _moment = _moments()
    edits = defaultdict(list)
    if rows:
        ids = {row["id"] for row in rows}
        low, high = min(ids), max(ids)
        # Ratings changed in one go (an import) have neighbouring ids: a range is two parameters where a list
        # of 1,000 costs more to build and send than the query takes; edits of other ratings in it are skipped.
        narrow = high - low < 4 * len(ids)
        where = {"annotation_id__gte": low, "annotation_id__lte": high} if narrow else {"annotation_id__in": ids}
        found = (
            AnnotationEdit.objects.filter(**where)
            .order_by("-edited_at", "-pk")
            .values_list("annotation_id", "edited_by__username", "edited_at", "reason", "old_values", "new_values")
        )
        for annotation_id, editor, edited_at, reason, old, new in found:
            if annotation_id not in ids:
                continue
            edits[annotation_id].append(
                {"edited_by": editor, "edited_at": _moment(edited_at), "reason": reason,
                 "old_values": {str(k): v for k, v in old.items()}, "new_values": {str(k): v for k, v in new.items()}}
            )  # fmt: skip
    return [
        {
            "id": row["id"],
            "batch": row["dialogue__batch_id"],
            "dialogue": row["dialogue__external_id"],
            "annotator": row["annotator__username"],
            "scores": {axis: int(row[name]) for axis, name in zip(AXES, _SCORES, strict=True)},
            "confidence": {axis: float(row[name]) for axis, name in zip(AXES, _CONFIDENCES, strict=True)},
            "source": row["source"],
            "seconds_spent": _float(row["seconds_spent"]),
            "created_at": _moment(row["created_at"]),
            "updated_at": _moment(row["updated_at"]),
            "edits": edits.get(row["id"], []),
        }
        for row in rows
    ]
