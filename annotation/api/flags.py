"""``flags/``: quality flags (consistency rules, outliers, changed texts) and their review (researchers).

A review sets the status (accepted, dismissed, or open again) and a note, through the same service as
the admin (``annotation.review.flags.flags_review``): every decision is kept as a review row, a dismissal
needs a note, and only admins and researchers with the review permission may review; every researcher
may read.
"""

from __future__ import annotations

from django.db.models import Q
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from annotation.api import filters
from annotation.api.errors import ApiErrorsMixin, conflict, invalid, not_found
from annotation.api.pagination import Pages
from annotation.api.permissions import IsResearcher
from annotation.api.schema import error_responses
from annotation.api.strict import StrictFieldsMixin
from annotation.models import QualityFlag
from annotation.review.flags import can_review_flags, flags_review
from annotation.review.services import ReviewError
from core import api_query
from core.api_parsers import StrictJSONParser
from core.api_schema import NOT_BLANK_TEXT


class FlagSerializer(StrictFieldsMixin, serializers.ModelSerializer):
    """A quality flag; ``status`` and ``review_note`` are what a review changes (a dismissal needs a note)."""

    # A review names one of them at least; dismissing needs a note that is not blank. (A pattern, not an enum: the
    # schema generator would name an enum of two statuses after the field and the three.)
    schema_extra = {
        "minProperties": 1,
        "anyOf": [
            {"properties": {"status": {"pattern": "^(?:open|accepted)$"}}},
            {"required": ["review_note"], "properties": {"review_note": {"pattern": NOT_BLANK_TEXT}}},
        ],
    }

    batch = serializers.SerializerMethodField(help_text="the batch of its report or dialogue")
    annotator = serializers.CharField(source="annotator.username", allow_null=True, default=None, read_only=True)
    dialogue = serializers.CharField(source="dialogue.external_id", allow_null=True, default=None, read_only=True)
    reviewer = serializers.CharField(source="reviewer.username", allow_null=True, default=None, read_only=True)
    review_note = serializers.CharField(max_length=2000, required=False, allow_blank=True)

    class Meta:
        model = QualityFlag
        fields = ["id", "source", "kind", "batch", "report", "annotator", "dialogue", "annotation", "axis",
                  "statistic", "threshold", "message", "details", "status", "review_note", "reviewer", "reviewed_at",
                  "created_at"]  # fmt: skip
        read_only_fields = [name for name in fields if name not in ("status", "review_note")]

    def get_batch(self, flag: QualityFlag) -> int | None:
        if flag.report_id is not None and flag.report.batch_id is not None:
            return flag.report.batch_id
        return flag.dialogue.batch_id if flag.dialogue_id is not None else None


_FILTERS = (
    api_query.Choice(name="status", choices=tuple(QualityFlag.Status.values)),
    api_query.Choice(name="source", choices=tuple(QualityFlag.Source.values)),
    filters.BATCH_PARAM,
    filters.ANNOTATOR_PARAM,
)
_FLAG_EXAMPLE = {
    "id": 77, "source": "outlier", "kind": "annotator_bias", "batch": 3, "report": 12, "annotator": "ann_004",
    "dialogue": None, "annotation": None, "axis": "social", "statistic": 1.42, "threshold": 1.0,
    "message": "ann_004 rates social 1.42 points above the others on average", "details": {},
    "status": "accepted", "review_note": "本人に確認済み。ガイドライン再読を依頼。", "reviewer": "res_001",
    "reviewed_at": "2025-02-01T10:00:00+09:00", "created_at": "2025-01-31T09:30:09+09:00",
}  # fmt: skip


@extend_schema(tags=["annotation"])
class FlagViewSet(ApiErrorsMixin, viewsets.GenericViewSet):
    """Quality flags and their review (researchers)."""

    permission_classes = [IsResearcher]
    pagination_class = Pages
    ordering = ("-created_at", "-id")
    serializer_class = FlagSerializer
    parser_classes = [StrictJSONParser]
    queryset = QualityFlag.objects.none()

    def get_queryset(self):
        return QualityFlag.objects.select_related("report", "annotator", "dialogue", "reviewer").order_by(
            "-created_at", "-pk"
        )

    @extend_schema(
        summary="Quality flags, newest first (researchers)",
        parameters=api_query.parameters(*_FILTERS),
        responses={200: FlagSerializer(many=True), **error_responses(400, 404)},
        examples=[OpenApiExample("flag", value=_FLAG_EXAMPLE, response_only=True)],
    )
    def list(self, request):
        given, rows = filters.read(request.query_params, *_FILTERS), self.get_queryset()
        if given["status"] is not None:
            rows = rows.filter(status=given["status"])
        if given["source"] is not None:
            rows = rows.filter(source=given["source"])
        if (batch := filters.check_batch(given["batch"])) is not None:
            rows = rows.filter(Q(report__batch_id=batch) | Q(dialogue__batch_id=batch))
        if (annotator := filters.check_username(given["annotator"])) is not None:
            rows = rows.filter(annotator__username=annotator)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(FlagSerializer(page, many=True).data)

    @extend_schema(
        summary="Review a flag (researchers): accept, dismiss or reopen it, with a note",
        request=FlagSerializer,
        responses={200: FlagSerializer, **error_responses(400, 403, 404, 409)},
        examples=[
            OpenApiExample("accept", request_only=True,
                           value={"status": "accepted", "review_note": "本人に確認済み。ガイドライン再読を依頼。"}),
            OpenApiExample("reviewed", response_only=True, value=_FLAG_EXAMPLE),
        ],
    )  # fmt: skip
    def partial_update(self, request, pk: int):
        if not can_review_flags(request.user):
            raise PermissionDenied(
                "Reviewing flags needs the review permission (an admin gives it to researchers: the reviewer group)."
            )
        flag = self.get_queryset().filter(pk=pk).first()
        if flag is None:
            raise not_found(f"no quality flag with id {pk}")
        serializer = FlagSerializer(flag, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        changes = serializer.validated_data
        if not changes:
            raise invalid("status", "give the new status (accepted, dismissed or open) and/or a review_note")
        status = changes.get("status", flag.status)
        note = changes.get("review_note", flag.review_note if "status" not in changes else "")
        if "status" not in changes and status == QualityFlag.Status.DISMISSED and not note.strip():
            raise conflict("the flag is dismissed, and a dismissal needs a note: give one, or a new status")
        try:
            flags_review(flags=[flag], status=status, note=note, user=request.user)
        except ReviewError as exc:
            raise invalid("review_note" if "note" in str(exc) else "status", str(exc)) from None
        return Response(FlagSerializer(self.get_queryset().get(pk=pk)).data)
