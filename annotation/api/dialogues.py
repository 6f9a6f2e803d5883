"""``batches/{id}/dialogues/``: a batch's dialogues (seed A.3 input shape), and adding them by JSONL upload.

The upload goes through the same import as ``manage.py import_dialogues``: every line of every
file is validated first, any problem stores nothing and comes back located (file, line, JSON path),
and uploading the same file again changes nothing. Dialogue ids are unique across batches: an id
already stored (in any batch) is counted as unchanged, or replaced with ``update=true``.
"""

from __future__ import annotations

from pathlib import Path

from django.db.models import Count, Q
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from annotation.api import filters
from annotation.api.errors import ApiError, ApiErrorsMixin, invalid, not_found
from annotation.api.pagination import Pages
from annotation.api.permissions import IsResearcher
from annotation.api.schema import ErrorSerializer, ProblemSerializer, error_responses
from annotation.io.imports import MAX_IGNORED_KEYS, ImportSummary, dialogues_import
from annotation.io.records import InputError
from annotation.models import Batch, Dialogue
from core import api_query
from core.problem_text import problem_message
from core.upload_limits import UploadRefused, upload_refusal
from core.uploads import scratch_copies

UPLOAD_FLAGS = ("dry_run", "update", "force_text_change", "ignore_unknown_keys")
UPLOAD_SETTING = "UPLOAD_MAX_BYTES_DIALOGUES"  # the files of one request together
# The problems' hints name the options as this API takes them (not as the import command does).
_OPTION_NAMES = {"update": "update=true", "force_text_change": "force_text_change=true",
                 "ignore_unknown_keys": "ignore_unknown_keys=true"}  # fmt: skip


class ContextTurnSerializer(serializers.Serializer):
    turn = serializers.IntegerField(help_text="offset from the rated pair: -3..-1 before, 1..3 after")
    speaker = serializers.CharField(help_text="user or ai")
    text = serializers.CharField()


class DialogueSerializer(serializers.Serializer):
    """A dialogue in the seed A.3 input shape, with how many ratings it has."""

    id = serializers.CharField(source="external_id")
    user = serializers.CharField(source="user_text")
    response = serializers.CharField(source="response_text")
    context = ContextTurnSerializer(many=True)
    ratings = serializers.IntegerField(source="n_ratings")


class IgnoredKeySerializer(serializers.Serializer):
    key = serializers.CharField(help_text="a top-level key beyond the format's fields (cut to 100 characters)")
    lines = serializers.IntegerField(min_value=1, help_text="how many lines had it")


class UploadSummarySerializer(serializers.Serializer):
    batch = serializers.IntegerField(help_text="the batch id")
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    dry_run = serializers.BooleanField()
    ignored_keys = IgnoredKeySerializer(
        many=True, help_text=f"ignore_unknown_keys=true: the keys left out, the most frequent first (at most "
        f"{MAX_IGNORED_KEYS})",
    )  # fmt: skip
    ignored_keys_more = serializers.IntegerField(min_value=0, help_text="keys left out beyond those listed")


__all__ = ["ProblemSerializer"]  # the error body's problems ({path, message}, and file and line for a file's)
_Q = api_query.Text(name="q", max_length=200, description="only dialogues whose id, user utterance or response "
                    "contain this")  # fmt: skip


_UPLOAD_REQUEST = {
    "multipart/form-data": {
        "type": "object",
        "properties": {
            "file": {"type": "array", "items": {"type": "string", "format": "binary"}, "minItems": 1,
                     "description": "one or more JSONL files, one dialogue per line: {id, user, response, context}"},
            "dry_run": {"type": "boolean", "default": False, "description": "validate only; store nothing"},
            "update": {"type": "boolean", "default": False,
                       "description": "replace stored dialogues whose text changed (import_dialogues --update)"},
            "force_text_change": {"type": "boolean", "default": False,
                                  "description": "with update: also change rated dialogues (old text kept, "
                                                 "their ratings flagged for review)"},
            "ignore_unknown_keys": {"type": "boolean", "default": False,
                                    "description": "leave out top-level keys beyond id, user, response and "
                                                   "context (the answer lists them with counts); otherwise each "
                                                   "is a problem of its line"},
        },
        "required": ["file"],
        "additionalProperties": False,
    }
}  # fmt: skip
_DIALOGUE_EXAMPLE = {
    "id": "dialogue_001", "user": "この企画書、どう思いますか？",
    "response": "素晴らしい企画書ですね！完璧だと思います。",
    "context": [{"turn": -1, "speaker": "ai", "text": "企画書を拝見しました。"}], "ratings": 3,
}  # fmt: skip
_PROBLEMS_EXAMPLE = {
    "success": False, "error": "nothing was stored: 2 problem(s)",
    "problems": [
        {"file": "batch.jsonl", "line": 2, "path": "$.response", "message": "missing required field"},
        {"file": "batch.jsonl", "line": 5, "path": "$",
         "message": "invalid JSON: Expecting ',' delimiter at column 41"},
    ],
    "truncated": False,
}  # fmt: skip


@extend_schema(tags=["annotation"])
class BatchDialogueViewSet(ApiErrorsMixin, viewsets.GenericViewSet):
    """A batch's dialogues, and adding them by JSONL upload (researchers)."""

    permission_classes = [IsResearcher]
    pagination_class = Pages
    ordering = ("id",)
    serializer_class = DialogueSerializer
    queryset = Dialogue.objects.none()
    parser_classes = [MultiPartParser, FormParser]

    def _batch(self, pk: int) -> Batch:
        batch = Batch.objects.filter(pk=pk).first()
        if batch is None:
            raise not_found(f"no batch with id {pk}")
        return batch

    @extend_schema(
        summary="A batch's dialogues in the seed A.3 input shape, with their rating counts (researchers)",
        parameters=api_query.parameters(_Q),
        responses={200: DialogueSerializer(many=True), **error_responses(400, 404)},
        examples=[OpenApiExample("dialogue", value=_DIALOGUE_EXAMPLE, response_only=True)],
    )
    def list(self, request, pk: int):
        batch = self._batch(pk)
        rows = Dialogue.objects.filter(batch=batch).annotate(n_ratings=Count("annotations")).order_by("pk")
        if query := (filters.read_one(request.query_params, _Q) or "").strip():
            rows = rows.filter(
                Q(external_id__icontains=query) | Q(user_text__icontains=query) | Q(response_text__icontains=query)
            )
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(DialogueSerializer(page, many=True).data)

    @extend_schema(
        summary="Add dialogues by JSONL upload (researchers); any problem stores nothing and is located",
        request=_UPLOAD_REQUEST,
        responses={
            201: OpenApiResponse(UploadSummarySerializer, description="dialogues were stored"),
            200: OpenApiResponse(UploadSummarySerializer, description="a dry run, or nothing new to store"),
            400: OpenApiResponse(ErrorSerializer, description="located problems, each with its file and line (or a "
                                 "bad option); nothing was stored",
                                 examples=[OpenApiExample("problems", value=_PROBLEMS_EXAMPLE)]),
            413: OpenApiResponse(ErrorSerializer, description="the files are over UPLOAD_MAX_BYTES_DIALOGUES "
                                 "(together); refused before they were read, nothing was stored"),
            **error_responses(404),
        },
        examples=[OpenApiExample("stored", status_codes=["201"], response_only=True,
                                 value={"batch": 3, "created": 200, "updated": 0, "unchanged": 0, "dry_run": False,
                                        "ignored_keys": [], "ignored_keys_more": 0})],
    )  # fmt: skip
    def create(self, request, pk: int):
        batch = self._batch(pk)
        if (refusal := upload_refusal(request, UPLOAD_SETTING)) is not None:
            return too_large(refusal)
        uploads = request.FILES.getlist("file")
        unknown = sorted(set(request.data) - {"file", *UPLOAD_FLAGS})
        if unknown:
            raise invalid(unknown[0], f"not a field this accepts; accepted: file, {', '.join(UPLOAD_FLAGS)}")
        if not uploads:
            raise invalid("file", "attach the dialogues as multipart field 'file' (JSONL, seed A.3 input)")
        options = {name: filters.form_flag(request.data, name) for name in UPLOAD_FLAGS}
        summary = dialogues_upload_import(uploads, batch_name=batch.name, **options)
        ignored = list(summary.ignored_keys.items())
        body = {"batch": batch.pk, "created": summary.created, "updated": summary.updated,
                "unchanged": summary.unchanged, "dry_run": options["dry_run"],
                "ignored_keys": [{"key": key, "lines": n} for key, n in ignored[:MAX_IGNORED_KEYS]],
                "ignored_keys_more": max(0, len(ignored) - MAX_IGNORED_KEYS)}  # fmt: skip
        stored = not options["dry_run"] and (summary.created or summary.updated)
        return Response(body, status=status.HTTP_201_CREATED if stored else status.HTTP_200_OK)


def too_large(refusal: UploadRefused) -> Response:
    """413 naming the files' size, the limit and its setting, or 507 when the server's disk could not hold them;
    nothing was read or stored."""
    return Response(refusal.body(), status=refusal.status)


def dialogues_upload_import(uploads: list, *, batch_name: str, **options) -> ImportSummary:
    """``dialogues_import`` of uploaded files (copied chunk by chunk to a temporary folder); ``ApiError`` 400 with
    every problem located (as the uploader named the file) when any line is wrong: nothing is stored."""
    names = [Path(upload.name or "dialogues.jsonl").name or "dialogues.jsonl" for upload in uploads]
    with scratch_copies(uploads, prefix="annotation-upload-", names=names) as (folder, paths):
        try:
            return dialogues_import(paths=paths, batch_name=batch_name, option_names=_OPTION_NAMES, **options)
        except InputError as exc:
            problems = [_problem(p, str(folder)) for p in exc.problems]
            raise ApiError(
                f"nothing was stored: {len(problems)} problem(s)", problems=problems, truncated=exc.truncated
            ) from None


def _problem(problem, folder: str) -> dict:
    """A problem as the uploader knows the file (its own name, not the temporary copy's path), in the request's
    language."""
    inside = f"{folder}/"
    name = Path(problem.file).name if problem.file.startswith(inside) else problem.file
    message = problem_message(problem)
    while inside in message:  # "first at <tmp>/0/a.jsonl:3" -> "first at a.jsonl:3"
        start = message.index(inside)
        rest = message[start + len(inside) :]
        message = message[:start] + rest.split("/", 1)[-1]
    return {"file": name, "line": problem.line, "path": problem.path, "message": message}
