"""The work queue through the API: ``batches/{id}/next/`` hands out an item, ``assignments/{id}/skip/`` gives it back.

The queue's own rules hold (``annotation.collection.queue``): an item is never handed out beyond its
quota, nobody gets an item twice, an open reservation is returned again until it is submitted or
skipped. Only qualified annotators get items, as on the rating page.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.response import Response

from annotation.api.errors import ApiError, ApiErrorsMixin, conflict, not_found
from annotation.api.permissions import IsAnnotator, IsQualifiedOrFinishing
from annotation.api.schema import error_responses
from annotation.api.strict import StrictFieldsMixin
from annotation.collection.queue import assignment_next, assignment_skip, batch_get
from annotation.collection.training import QUALIFICATION_EXPIRED_MESSAGE
from annotation.models import Assignment, Batch
from core.api_parsers import StrictJSONParser


class NextDialogueSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="the dialogue's id (seed A.3)")
    user = serializers.CharField()
    response = serializers.CharField()
    context = serializers.ListField(child=serializers.DictField(), help_text="[{turn, speaker, text}]")


class NextItemSerializer(serializers.Serializer):
    assignment_id = serializers.IntegerField(help_text="send it back with the rating (POST annotations/)")
    expires_at = serializers.DateTimeField(help_text="the reservation is kept for you until then")
    batch = serializers.IntegerField()
    dialogue = NextDialogueSerializer()


class SkipSerializer(StrictFieldsMixin, serializers.Serializer):
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class SkippedSerializer(serializers.Serializer):
    assignment_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=[Assignment.Status.SKIPPED])
    skip_reason = serializers.CharField()


_NEXT_EXAMPLE = {
    "assignment_id": 981, "expires_at": "2025-01-31T10:00:00+09:00", "batch": 3,
    "dialogue": {"id": "dialogue_001", "user": "この企画書、どう思いますか？",
                 "response": "素晴らしい企画書ですね！完璧だと思います。",
                 "context": [{"turn": -1, "speaker": "ai", "text": "企画書を拝見しました。"}]},
}  # fmt: skip


def _refusal(batch: Batch, user) -> ApiError | None:
    """Why ``batch`` hands ``user`` nothing, when it is not simply out of items."""
    if batch.status == Batch.Status.PAUSED:
        return conflict(f"batch {batch.name} is paused: it hands out no items until a researcher opens it again")
    if batch.status == Batch.Status.CLOSED:
        return conflict(f"batch {batch.name} is closed: it hands out no more items")
    if batch.restricted and not batch.annotators.filter(pk=user.pk).exists():
        return ApiError(
            f"batch {batch.name} is for chosen annotators only, and you are not one of them",
            code=status.HTTP_403_FORBIDDEN,
        )
    return None


@extend_schema(tags=["annotation"])
class QueueViewSet(ApiErrorsMixin, viewsets.GenericViewSet):
    """The work queue: the next item of a batch, and giving an item back (qualified annotators; once the
    qualification has expired, only the open reservation: nothing new is reserved)."""

    permission_classes = [IsAnnotator, IsQualifiedOrFinishing]
    parser_classes = [StrictJSONParser]
    serializer_class = NextItemSerializer
    queryset = Assignment.objects.none()

    @extend_schema(
        summary="Your next item of a batch (your open reservation first); 204 when nothing is left for you",
        request=None,
        responses={
            200: NextItemSerializer,
            204: OpenApiResponse(description="nothing left for you in this batch"),
            **error_responses(404, 409),
        },
        examples=[OpenApiExample("item", value=_NEXT_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def next(self, request, pk: int):
        batch = batch_get(pk)
        if batch is None:
            raise not_found(f"no batch with id {pk}")
        if (refusal := _refusal(batch, request.user)) is not None:
            raise refusal
        expired = request.qualification.expired
        assignment = assignment_next(batch=batch, annotator=request.user, take_new=not expired)
        if assignment is None:
            if expired:
                raise ApiError(str(QUALIFICATION_EXPIRED_MESSAGE), code=status.HTTP_403_FORBIDDEN)
            return Response(status=status.HTTP_204_NO_CONTENT)
        dialogue = assignment.dialogue
        body = {
            "assignment_id": assignment.pk,
            "expires_at": assignment.expires_at,
            "batch": batch.pk,
            "dialogue": dialogue.as_record(),
        }
        return Response(NextItemSerializer(body).data)

    @extend_schema(
        summary="Give back your reserved item unrated (it goes to someone else); a reason is optional",
        request=SkipSerializer,
        responses={200: SkippedSerializer, **error_responses(400, 404, 409)},
        examples=[
            OpenApiExample("skip", request_only=True, value={"reason": "文脈が足りず判断できない"}),
            OpenApiExample("skipped", response_only=True, status_codes=["200"],
                           value={"assignment_id": 981, "status": "skipped",
                                  "skip_reason": "文脈が足りず判断できない"}),
        ],
    )  # fmt: skip
    def skip(self, request, pk: int):
        assignment = Assignment.objects.filter(pk=pk, annotator=request.user).first()
        if assignment is None:
            raise not_found(f"no assignment {pk} of yours")
        serializer = SkipSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if assignment.status != Assignment.Status.RESERVED:
            raise conflict(
                f"assignment {pk} is {assignment.status}; only an open reservation can be skipped",
                assignment_status=assignment.status,
            )
        skipped = assignment_skip(assignment=assignment, reason=serializer.validated_data["reason"])
        if skipped.status != Assignment.Status.SKIPPED:  # submitted or expired meanwhile
            raise conflict(f"assignment {pk} is {skipped.status}; only an open reservation can be skipped")
        return Response({"assignment_id": skipped.pk, "status": skipped.status, "skip_reason": skipped.skip_reason})
