"""``batches/``: researchers list, create and change batches; annotators list those open to them.

Researchers see every batch with its settings (quota, status, chosen annotators, disagreement spread,
guidelines version) and counts. Annotators see what the queue page shows them: batches that are not
closed, not restricted to others, and have items, each with their own progress.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.request import is_form_media_type
from rest_framework.response import Response

from annotation.api import filters
from annotation.api.dialogues import UPLOAD_SETTING, dialogues_upload_import, too_large
from annotation.api.errors import ApiErrorsMixin, conflict, not_found
from annotation.api.pagination import Pages
from annotation.api.permissions import IsResearcher, IsResearcherOrQualifiedAnnotator, is_researcher
from annotation.api.schema import ErrorSerializer, error_responses
from annotation.api.strict import StrictFieldsMixin
from annotation.collection.progress import batch_progress, quota_shortfall
from annotation.collection.queue import batches_visible_to, work_left
from annotation.models import Batch
from core import api_query
from core.api_fields import BatchNameField, StrictBooleanField
from core.api_schema import NO_NUL, NOT_BLANK_TEXT
from core.roles import ANNOTATOR
from core.upload_limits import upload_refusal

MAX_SPREAD = 4  # scores run from 1 to 5


class UsernamesField(serializers.ListField):
    """The chosen annotators, read and written as usernames."""

    child = serializers.CharField(max_length=150)

    def get_attribute(self, instance):
        return instance.annotators.all()

    def to_representation(self, data):
        return sorted(user.username for user in data)


KEEPS_NAME = "a batch keeps its name (exports and imports refer to it); create a new batch instead"


class BatchSerializer(StrictFieldsMixin, serializers.ModelSerializer):
    """A batch as researchers see and set it."""

    name = BatchNameField(help_text="1 to 100 printable characters, without / or \\; unique")
    restricted = StrictBooleanField(required=False, help_text="true: only the chosen annotators get items")
    annotators = UsernamesField(
        required=False,
        help_text="usernames of the chosen annotators; with restricted=true only they get items",
    )
    annotations_per_item = serializers.IntegerField(
        min_value=1, max_value=1000, required=False, help_text="the quota: ratings wanted per item (default 3)"
    )
    disagreement_spread = serializers.IntegerField(
        min_value=1,
        max_value=MAX_SPREAD,
        required=False,
        help_text="an item is disputed when on some axis its highest and lowest score differ by at least this",
    )
    allow_unreachable_quota = StrictBooleanField(
        write_only=True,
        required=False,
        default=False,
        help_text="store a quota over the number of chosen annotators anyway (refused otherwise: no item could "
        "reach it, so the batch would never complete)",
    )
    n_items = serializers.IntegerField(read_only=True, help_text="dialogues in the batch")
    n_ratings = serializers.IntegerField(read_only=True, help_text="stored ratings of its dialogues")

    class Meta:
        model = Batch
        fields = [
            "id", "name", "description", "status", "annotations_per_item", "restricted", "annotators",
            "disagreement_spread", "guidelines_version", "created_at", "n_items", "n_ratings",
            "allow_unreachable_quota",
        ]  # fmt: skip
        read_only_fields = ["created_at"]
        extra_kwargs = {"description": {"required": False}, "guidelines_version": {"required": False}}

    def validate_annotators(self, names: list[str]):
        """The chosen annotators' accounts; a name that is no annotator's is a 404 naming it (like an id that is no
        object's)."""
        wanted = list(dict.fromkeys(names))
        users = {u.username: u for u in get_user_model().objects.filter(username__in=wanted).prefetch_related("groups")}
        unknown = [name for name in wanted if name not in users]
        if unknown:
            raise filters.missing("annotators", f"no user named {', '.join(map(repr, unknown))}")
        no_role = [name for name in wanted if not any(g.name == ANNOTATOR for g in users[name].groups.all())]
        if no_role:
            raise filters.missing(
                "annotators", f"no annotator named {', '.join(map(repr, no_role))}: they do not hold the annotator role"
            )
        return [users[name] for name in wanted]

    def validate(self, attrs: dict) -> dict:
        """A quota over the chosen annotators is refused unless ``allow_unreachable_quota`` (the settings page asks
        the same explicit yes): nobody rates an item twice, so no item could reach it."""
        allowed = attrs.pop("allow_unreachable_quota", False)
        batch = self.instance
        restricted = attrs.get("restricted", batch.restricted if batch else False)
        quota = attrs.get("annotations_per_item", batch.annotations_per_item if batch else Batch().annotations_per_item)
        chosen = attrs["annotators"] if "annotators" in attrs else (list(batch.annotators.all()) if batch else [])
        shortfall = quota_shortfall(restricted=restricted, quota=quota, chosen=chosen)
        if shortfall and not allowed:  # the settings conflict with each other: 409, like a state that forbids it
            raise conflict(
                f"each item needs {shortfall[0]} ratings but only {shortfall[1]} annotator(s) "
                "are chosen and nobody rates an item twice, so the batch would never complete; choose more "
                "annotators, lower the quota, or send allow_unreachable_quota=true",
                field="annotations_per_item",
            )
        return attrs


class BatchChangeSerializer(BatchSerializer):
    """A batch's settings as a PATCH changes them: every field but its name, which a batch keeps."""

    name = serializers.CharField(read_only=True)

    def to_internal_value(self, data):
        if isinstance(data, dict) and "name" in data:
            raise serializers.ValidationError({"name": [KEEPS_NAME]})
        return super().to_internal_value(data)


class BatchProgressSerializer(serializers.Serializer):
    done_total = serializers.IntegerField(help_text="your ratings in this batch")
    done_today = serializers.IntegerField(help_text="your ratings in this batch since midnight")
    items = serializers.IntegerField()
    ratings_needed = serializers.IntegerField(help_text="items × annotations per item")
    ratings_done = serializers.IntegerField(help_text="ratings of all annotators (may lag a few seconds)")
    work_left = serializers.BooleanField(help_text="whether `next/` would give you an item now")


class BatchForAnnotatorSerializer(serializers.ModelSerializer):
    """A batch as an annotator sees it: what it is and their own progress."""

    status = serializers.ChoiceField(choices=[Batch.Status.OPEN, Batch.Status.PAUSED], read_only=True)
    n_items = serializers.IntegerField(read_only=True)
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Batch
        fields = ["id", "name", "description", "status", "annotations_per_item", "guidelines_version", "created_at",
                  "n_items", "progress"]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(BatchProgressSerializer)
    def get_progress(self, batch: Batch) -> dict:
        annotator = self.context["request"].user
        return {
            **batch_progress(batch=batch, annotator=annotator),
            "work_left": work_left(batch=batch, annotator=annotator),
        }


def _batch_write(batch: Batch, values: dict) -> Batch:
    """Store a batch's settings and its chosen annotators together."""
    annotators = values.pop("annotators", None)
    with transaction.atomic():
        for name, value in values.items():
            setattr(batch, name, value)
        batch.save()
        if annotators is not None:
            batch.annotators.set(annotators)
    return batch


def _researcher_batches():
    return (
        Batch.objects.annotate(n_items=Count("dialogues", distinct=True), n_ratings=Count("dialogues__annotations"))
        .prefetch_related("annotators")
        .order_by("name")
    )  # a GROUP BY query ignores Meta.ordering


def _annotator_batches(user):
    return batches_visible_to(user).annotate(n_items=Count("dialogues")).filter(n_items__gt=0).order_by("name")


BATCH_EXAMPLE = {
    "id": 3, "name": "pilot-01", "description": "First pilot, 200 items", "status": "open",
    "annotations_per_item": 3, "restricted": True, "annotators": ["ann_001", "ann_002", "ann_003"],
    "disagreement_spread": 2, "guidelines_version": "v1.2", "created_at": "2025-01-31T09:00:00+09:00",
    "n_items": 200, "n_ratings": 412,
}  # fmt: skip
ANNOTATOR_BATCH_EXAMPLE = {
    "id": 3, "name": "pilot-01", "description": "First pilot, 200 items", "status": "open",
    "annotations_per_item": 3, "guidelines_version": "v1.2", "created_at": "2025-01-31T09:00:00+09:00",
    "n_items": 200,
    "progress": {"done_total": 41, "done_today": 12, "items": 200, "ratings_needed": 600, "ratings_done": 412,
                 "work_left": True},
}  # fmt: skip
_EITHER = PolymorphicProxySerializer(
    component_name="BatchForRole",
    serializers=[BatchSerializer, BatchForAnnotatorSerializer],
    resource_type_field_name=None,
)
_CREATE_WITH_FILE = {
    "type": "object",
    "properties": {
        "name": BatchNameField.SCHEMA,
        "description": {"type": "string", "pattern": NO_NUL},
        "annotations_per_item": {"type": "integer", "minimum": 1, "maximum": 1000},
        "restricted": {"type": "boolean"},
        "annotators": {"type": "array", "description": "usernames (repeat the field)",
                       "items": {"type": "string", "minLength": 1, "maxLength": 150, "pattern": NOT_BLANK_TEXT}},
        "disagreement_spread": {"type": "integer", "minimum": 1, "maximum": MAX_SPREAD},
        "guidelines_version": {"type": "string", "maxLength": 40, "pattern": NO_NUL},
        "status": {"type": "string", "enum": list(Batch.Status.values)},
        "allow_unreachable_quota": {"type": "boolean", "description": "store a quota over the chosen annotators "
                                    "anyway (refused otherwise: the batch would never complete)"},
        "file": {"type": "array", "items": {"type": "string", "format": "binary"}, "minItems": 1,
                 "description": "one or more JSONL files, one dialogue per line: {id, user, response, context}"},
        "ignore_unknown_keys": {"type": "boolean", "default": False,
                                "description": "with a file: leave out top-level keys beyond id, user, response and "
                                               "context; otherwise each is a problem of its line"},
    },
    "required": ["name"],
    "additionalProperties": False,
}  # fmt: skip
_STATUS = api_query.Choice(
    name="status", choices=tuple(Batch.Status.values), description="researchers: only this status"
)


@extend_schema(tags=["annotation"])
class BatchViewSet(ApiErrorsMixin, mixins.CreateModelMixin, viewsets.GenericViewSet):
    """Batches: settings and counts for researchers; for annotators the batches open to them, with their progress."""

    pagination_class = Pages
    ordering = ("name", "id")
    serializer_class = BatchSerializer
    queryset = Batch.objects.none()  # per role: get_queryset

    def get_permissions(self):
        if self.request.method in ("GET", "HEAD", "OPTIONS"):
            return [IsResearcherOrQualifiedAnnotator()]
        return [IsResearcher()]

    def get_queryset(self):
        if is_researcher(self.request):
            return _researcher_batches()
        return _annotator_batches(self.request.user)

    def get_serializer_class(self):
        if self.request is not None and self.request.method == "GET" and not is_researcher(self.request):
            return BatchForAnnotatorSerializer
        return BatchSerializer

    def _get_batch(self, pk: int) -> Batch:
        batch = self.get_queryset().filter(pk=pk).first()
        if batch is None:
            raise not_found(f"no batch with id {pk}")
        return batch

    @extend_schema(
        summary="List batches: all for researchers, those open to you for annotators (with your progress)",
        parameters=api_query.parameters(_STATUS),
        responses={200: PolymorphicProxySerializer(
            component_name="BatchForRole", serializers=[BatchSerializer, BatchForAnnotatorSerializer],
            resource_type_field_name=None, many=True), **error_responses(400)},
        examples=[OpenApiExample("researcher", value=BATCH_EXAMPLE, response_only=True),
                  OpenApiExample("annotator", value=ANNOTATOR_BATCH_EXAMPLE, response_only=True)],
    )  # fmt: skip
    def list(self, request):
        rows, wanted = self.get_queryset(), filters.read_one(request.query_params, _STATUS)
        if wanted is not None and is_researcher(request):  # an annotator's batches are open or paused anyway
            rows = rows.filter(status=wanted)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        summary="Create a batch with its settings (researchers), and its dialogues when a file comes with them",
        description="JSON: an empty batch (add dialogues with POST dialogues/). multipart/form-data with the "
        "settings and one or more JSONL files in 'file': the batch and its dialogues in one transaction; a file "
        "with any problem (400, every problem located) or over UPLOAD_MAX_BYTES_DIALOGUES (413) stores nothing, "
        "not even the batch.",
        request={"application/json": BatchSerializer, "multipart/form-data": _CREATE_WITH_FILE},
        responses={201: BatchSerializer, **error_responses(400, 404, 409),
                   413: OpenApiResponse(ErrorSerializer, description="the files are over UPLOAD_MAX_BYTES_DIALOGUES "
                                        "(together); refused before they were read, nothing was stored")},
        examples=[
            OpenApiExample("new batch", request_only=True, value={
                "name": "pilot-02", "annotations_per_item": 2, "restricted": True,
                "annotators": ["ann_001", "ann_002"], "guidelines_version": "v1.2"}),
            OpenApiExample("created", response_only=True, status_codes=["201"], value=BATCH_EXAMPLE),
        ],
    )  # fmt: skip
    def create(self, request):
        if (refusal := upload_refusal(request, UPLOAD_SETTING)) is not None:
            return too_large(refusal)
        uploads = request.FILES.getlist("file")
        data = request.POST if is_form_media_type(request.content_type) else request.data  # the settings
        ignore_unknown_keys = False
        if is_form_media_type(request.content_type) and "ignore_unknown_keys" in data:  # the file's option
            ignore_unknown_keys = filters.form_flag(data, "ignore_unknown_keys")
            data = data.copy()
            data.pop("ignore_unknown_keys")
        serializer = BatchSerializer(data=data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        values = dict(serializer.validated_data)
        taken = conflict(f"a batch named {values['name']!r} exists already; choose another name", field="name")
        if Batch.objects.filter(name=values["name"]).exists():
            raise taken
        try:
            with transaction.atomic():  # a batch exists only with its file's dialogues stored
                batch = _batch_write(Batch(), values)
                if uploads:
                    options = {"ignore_unknown_keys": ignore_unknown_keys}
                    summary = dialogues_upload_import(uploads, batch_name=batch.name, **options)
                    if not summary.created:
                        raise conflict(
                            f"all {summary.unchanged + summary.updated} dialogue(s) of the file are stored already "
                            "(their ids are taken), so the new batch would be empty; add new dialogues, or upload "
                            "to the batch that holds them (POST batches/{id}/dialogues/)",
                            field="file",
                        )
        except IntegrityError:  # created by another request meanwhile
            raise taken from None
        shown = BatchSerializer(self._get_batch(batch.pk), context=self.get_serializer_context()).data
        return Response(shown, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="One batch (annotators: only a batch open to them)",
        responses={200: _EITHER, **error_responses(404)},
        examples=[OpenApiExample("researcher", value=BATCH_EXAMPLE, response_only=True),
                  OpenApiExample("annotator", value=ANNOTATOR_BATCH_EXAMPLE, response_only=True)],
    )  # fmt: skip
    def retrieve(self, request, pk: int):
        return Response(self.get_serializer(self._get_batch(pk)).data)

    @extend_schema(
        summary="Change a batch's settings (researchers): quota, status, chosen annotators, ...",
        request=BatchChangeSerializer,
        responses={200: BatchSerializer, **error_responses(400, 404, 409)},
        examples=[
            OpenApiExample("pause", request_only=True, value={"status": "paused"}),
            OpenApiExample("choose annotators", request_only=True,
                           value={"restricted": True, "annotators": ["ann_001", "ann_004"]}),
            OpenApiExample("unknown username", response_only=True, status_codes=["404"], value={
                "success": False, "error": "no user named 'ann_999'", "detail": "no user named 'ann_999'",
                "field": "annotators", "problems": [{"path": "annotators", "message": "no user named 'ann_999'"}]}),
        ],
    )  # fmt: skip
    def partial_update(self, request, pk: int):
        batch = self._get_batch(pk)
        serializer = BatchChangeSerializer(
            batch, data=request.data, partial=True, context=self.get_serializer_context()
        )
        serializer.is_valid(raise_exception=True)
        _batch_write(batch, dict(serializer.validated_data))
        return Response(BatchSerializer(self._get_batch(pk), context=self.get_serializer_context()).data)
