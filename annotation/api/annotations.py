"""``annotations/``: ratings. Annotators submit through the queue and read and correct their own;
researchers read everyone's.

A submission goes through ``rating_submit`` with the rating page's rules: a repeated submission or
one whose item the annotator already rated another way keeps the stored rating (200, returned), a
reservation given back whose item has meanwhile reached its quota is refused (409). A correction
goes through ``annotation_update``, which keeps the old values in the edit history.
"""

from __future__ import annotations

from django.db.models import Prefetch
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.response import Response

from annotation.api import filters
from annotation.api.annotation_rows import ROW_FIELDS, rating_dicts
from annotation.api.errors import ApiError, ApiErrorsMixin, conflict, invalid, not_found
from annotation.api.pagination import Pages
from annotation.api.permissions import IsAnnotator, IsQualifiedOrFinishing, IsResearcherOrAnnotator, is_researcher
from annotation.api.schema import error_responses
from annotation.api.strict import StrictFieldsMixin
from annotation.axes import AXES
from annotation.collection.queue import Outcome, rating_submit
from annotation.models import Annotation, AnnotationEdit, Assignment
from annotation.services import annotation_update
from core import api_query
from core.api_fields import StrictFloatField, StrictIntegerField
from core.api_parsers import StrictJSONParser
from core.api_renderers import FastJSONRenderer
from core.query_params import ID_MAX

_SCORE_ERRORS = {name: "expected a whole number from 1 to 5" for name in ("invalid", "min_value", "max_value")}
_CONFIDENCE_ERRORS = {name: "expected a number from 0 to 1" for name in ("invalid", "min_value", "max_value")}


class _AxesSerializer(StrictFieldsMixin, serializers.Serializer):
    """One value per axis; with ``every_axis = False`` (a correction) one or more of the axes."""

    every_axis = True

    def value_field(self, required: bool) -> serializers.Field:
        raise NotImplementedError

    def get_fields(self):
        return {axis: self.value_field(self.every_axis) for axis in AXES}

    @property
    def schema_extra(self) -> dict:
        return {} if self.every_axis else {"minProperties": 1}

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError(f"name at least one axis: {', '.join(AXES)}")
        return attrs


class ScoresSerializer(_AxesSerializer):
    """A score from 1 (absent) to 5 (extreme) per axis."""

    def value_field(self, required: bool) -> serializers.Field:
        errors = {**_SCORE_ERRORS, "required": f"every axis needs a score: {', '.join(AXES)}"}
        return StrictIntegerField(min_value=1, max_value=5, required=required, error_messages=errors)


class ConfidenceSerializer(_AxesSerializer):
    """The annotator's confidence from 0 to 1 per axis (below 0.7 the rating stays out of the consensus)."""

    def value_field(self, required: bool) -> serializers.Field:
        errors = {**_CONFIDENCE_ERRORS, "required": f"every axis needs a confidence: {', '.join(AXES)}"}
        return StrictFloatField(min_value=0.0, max_value=1.0, required=required, error_messages=errors)


class ScoreChangesSerializer(ScoresSerializer):
    """The axes whose score changes (the others keep theirs)."""

    every_axis = False


class ConfidenceChangesSerializer(ConfidenceSerializer):
    """The axes whose confidence changes."""

    every_axis = False


class EditSerializer(serializers.Serializer):
    edited_by = serializers.CharField(source="edited_by.username", allow_null=True, default=None)
    edited_at = serializers.DateTimeField()
    reason = serializers.CharField()
    old_values = serializers.DictField(help_text="<axis>_score and <axis>_confidence before the edit")
    new_values = serializers.DictField(help_text="... and after it")


class AnnotationSerializer(serializers.ModelSerializer):
    """A stored rating, with the history of its edits (newest first)."""

    batch = serializers.IntegerField(source="dialogue.batch_id")
    dialogue = serializers.CharField(source="dialogue.external_id", help_text="the dialogue's id (seed A.3)")
    annotator = serializers.CharField(source="annotator.username")
    scores = ScoresSerializer()
    confidence = ConfidenceSerializer(source="confidences")
    edits = EditSerializer(many=True)

    class Meta:
        model = Annotation
        fields = ["id", "batch", "dialogue", "annotator", "scores", "confidence", "source", "seconds_spent",
                  "created_at", "updated_at", "edits"]  # fmt: skip
        read_only_fields = fields


class SubmitSerializer(StrictFieldsMixin, serializers.Serializer):
    assignment_id = StrictIntegerField(min_value=1, max_value=ID_MAX, help_text="from POST batches/{id}/next/")
    scores = ScoresSerializer()
    confidence = ConfidenceSerializer()


class ChangeSerializer(StrictFieldsMixin, serializers.Serializer):
    """A correction: the reason and the scores or confidences that change (a PATCH body that needs them)."""

    scores = ScoreChangesSerializer(required=False)
    confidence = ConfidenceChangesSerializer(required=False)
    reason = serializers.CharField(max_length=200, help_text="required: why the rating changes (kept in its history)")
    schema_extra = {"required": ["reason"], "anyOf": [{"required": ["scores"]}, {"required": ["confidence"]}]}

    def validate(self, data):
        if not data.get("scores") and not data.get("confidence"):
            raise invalid("scores", "give the scores or confidences to change")
        return data


class SubmittedSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(
        choices=[Outcome.STORED.value, Outcome.REPEATED.value, Outcome.RATED_ELSEWHERE.value],
        help_text="stored (201); repeated or rated_elsewhere (200): your rating stored before is kept and returned",
    )
    annotation = AnnotationSerializer()


_SCORES = {"social": 4, "avoidant": 1, "mechanical": 2, "self": 1}
_CONFIDENCE = {"social": 0.9, "avoidant": 0.8, "mechanical": 0.7, "self": 1.0}
_ANNOTATION_EXAMPLE = {
    "id": 5120, "batch": 3, "dialogue": "dialogue_001", "annotator": "ann_001", "scores": _SCORES,
    "confidence": _CONFIDENCE, "source": "web", "seconds_spent": 48.2, "created_at": "2025-01-31T09:12:03+09:00",
    "updated_at": "2025-01-31T09:20:41+09:00",
    "edits": [{"edited_by": "ann_001", "edited_at": "2025-01-31T09:20:41+09:00",
               "reason": "見落としていた賛辞に気づいた",
               "old_values": {"social_score": 3}, "new_values": {"social_score": 4}}],
}  # fmt: skip
_FILTERS = (
    filters.BATCH_PARAM,
    filters.ANNOTATOR_PARAM,
    api_query.Text(name="dialogue", max_length=200, description="only ratings of this dialogue (its id)"),
    api_query.Choice(name="source", choices=tuple(Annotation.Source.values), description="how the rating arrived"),
    filters.SINCE_PARAM,
)


@extend_schema(tags=["annotation"])
class AnnotationViewSet(ApiErrorsMixin, viewsets.GenericViewSet):
    """Ratings: submitted through the queue, read and corrected by their annotator, read by researchers."""

    pagination_class = Pages
    ordering = ("-updated_at", "-id")  # the index annotation_newest_change: a page costs the same at any depth
    serializer_class = AnnotationSerializer
    parser_classes = [StrictJSONParser]
    renderer_classes = [FastJSONRenderer]  # pages of up to 1,000 ratings
    queryset = Annotation.objects.none()

    def get_permissions(self):
        if self.request.method == "POST":
            return [IsAnnotator(), IsQualifiedOrFinishing()]  # a rating needs a reservation, never a new one
        return [IsResearcherOrAnnotator()]

    def get_queryset(self):
        rows = Annotation.objects.select_related("dialogue", "annotator").prefetch_related(
            Prefetch("edits", queryset=AnnotationEdit.objects.select_related("edited_by").order_by("-edited_at", "-pk"))
        )
        return self._visible(rows).order_by("-updated_at", "-pk")

    def _visible(self, rows):
        if not is_researcher(self.request):
            rows = rows.filter(annotator=self.request.user)  # blind annotation: only one's own ratings
        return rows

    def _filtered(self, rows):
        given = filters.read(self.request.query_params, *_FILTERS)
        if is_researcher(self.request):  # an annotator's filter of someone else matches none of their own
            filters.check_batch(given["batch"])
            filters.check_username(given["annotator"])
        if given["batch"] is not None:
            rows = rows.filter(dialogue__batch_id=given["batch"])
        if given["annotator"] is not None:
            rows = rows.filter(annotator__username=given["annotator"])
        if given["dialogue"] is not None:
            rows = rows.filter(dialogue__external_id=given["dialogue"])
        if given["source"] is not None:
            rows = rows.filter(source=given["source"])
        if given["since"] is not None:
            rows = rows.filter(updated_at__gte=given["since"])
        return rows

    def _own_or_visible(self, pk: int) -> Annotation:
        annotation = self.get_queryset().filter(pk=pk).first()
        if annotation is None:
            raise not_found(f"no rating with id {pk}" + ("" if is_researcher(self.request) else " of yours"))
        return annotation

    @extend_schema(
        summary="Ratings: every rating for researchers, your own for annotators; newest change first",
        parameters=api_query.parameters(*_FILTERS),
        responses={200: AnnotationSerializer(many=True), **error_responses(400, 404)},
        examples=[OpenApiExample("rating", value=_ANNOTATION_EXAMPLE, response_only=True)],
    )
    def list(self, request):
        rows = self._filtered(self._visible(Annotation.objects.all())).values(*ROW_FIELDS)
        return self.get_paginated_response(rating_dicts(self.paginate_queryset(rows)))

    @extend_schema(
        summary="Submit your rating of the item the queue gave you (qualified annotators)",
        request=SubmitSerializer,
        responses={
            201: OpenApiResponse(SubmittedSerializer, description="stored"),
            200: OpenApiResponse(SubmittedSerializer, description="your earlier rating of the item is kept"),
            **error_responses(400, 404, 409),
        },
        examples=[
            OpenApiExample("rating", request_only=True,
                           value={"assignment_id": 981, "scores": _SCORES, "confidence": _CONFIDENCE}),
            OpenApiExample("stored", response_only=True, status_codes=["201"],
                           value={"outcome": "stored", "annotation": {**_ANNOTATION_EXAMPLE, "edits": []}}),
        ],
    )  # fmt: skip
    def create(self, request):
        serializer = SubmitSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        batch_id = (
            Assignment.objects.filter(pk=data["assignment_id"], annotator=request.user)
            .values_list("batch_id", flat=True)
            .first()
        )
        if batch_id is None:
            raise ApiError(f"no assignment {data['assignment_id']} of yours", code=404, field="assignment_id")
        rated = rating_submit(
            batch_id=batch_id,
            assignment_id=data["assignment_id"],
            annotator=request.user,
            scores=dict(data["scores"]),
            confidence=dict(data["confidence"]),
        )
        if rated is None:  # deleted meanwhile
            raise not_found(f"no assignment {data['assignment_id']} of yours")
        if rated.outcome is Outcome.REFUSED:
            raise conflict(
                f"your reservation of {rated.external_id} had expired and the item has since received all the "
                "ratings it needs, so your rating was not stored",
                outcome=rated.outcome.value,
            )
        annotation = self.get_queryset().get(pk=rated.annotation_id)
        body = {"outcome": rated.outcome.value, "annotation": AnnotationSerializer(annotation).data}
        return Response(body, status=status.HTTP_201_CREATED if rated.created else status.HTTP_200_OK)

    @extend_schema(
        summary="One rating with its edit history (your own, or any for researchers)",
        responses={200: AnnotationSerializer, **error_responses(404)},
        examples=[OpenApiExample("rating", value=_ANNOTATION_EXAMPLE, response_only=True)],
    )
    def retrieve(self, request, pk: int):
        return Response(AnnotationSerializer(self._own_or_visible(pk)).data)

    @extend_schema(
        summary="Correct your own rating; the old values stay in its history with your reason",
        request=ChangeSerializer,
        responses={200: AnnotationSerializer, **error_responses(400, 404)},
        examples=[OpenApiExample("correction", request_only=True,
                                 value={"scores": {"social": 4}, "reason": "見落としていた賛辞に気づいた"})],
    )  # fmt: skip
    def partial_update(self, request, pk: int):
        annotation = self._own_or_visible(pk)
        if annotation.annotator_id != request.user.pk:
            raise ApiError("only the annotator who gave a rating may change it", code=status.HTTP_403_FORBIDDEN)
        serializer = ChangeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        values = {f"{axis}_score": score for axis, score in data.get("scores", {}).items()}
        values.update({f"{axis}_confidence": value for axis, value in data.get("confidence", {}).items()})
        annotation_update(annotation=annotation, values=values, user=request.user, reason=data["reason"])
        return Response(AnnotationSerializer(self._own_or_visible(pk)).data)
