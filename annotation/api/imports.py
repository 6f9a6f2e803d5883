"""``annotations/import/``: ratings uploaded in bulk as JSONL (seed A.3 output), researchers only.

The same import as ``manage.py import_annotations`` (``annotation.io.rating_uploads``): every line is
checked first, any problem stores nothing and comes back located (file, line, JSON path), and
uploading the same file again changes nothing. The body is the JSONL itself (``Content-Type:
application/x-ndjson``, ``application/jsonl`` or ``text/plain``) or a multipart form with ``file``.
Options come as query parameters, whatever the body: ``dry_run``, ``update`` and ``batch``;
``ignore_unknown_keys``; and the overrides of the batch's rules (``annotation.io.import_rules``):
``allow_over_quota``, ``allow_unchosen_annotators``, ``allow_unqualified_annotators``,
``allow_closed_batch`` and ``replace_web_ratings`` (with ``update``), each needing a ``reason``, recorded with
the caller's name.
A large file (over 2 MB or 5,000 lines) is imported by a worker: 202 with the job to poll.
"""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.parsers import BaseParser, MultiPartParser
from rest_framework.response import Response

from annotation.api import filters
from annotation.api.dialogues import IgnoredKeySerializer, ProblemSerializer
from annotation.api.errors import ApiError, ApiErrorsMixin, invalid
from annotation.api.jobs import JOB_EXAMPLE, JobSerializer
from annotation.api.permissions import IsResearcher
from annotation.api.schema import ErrorSerializer, error_responses
from annotation.io.import_rules import (
    MAX_REASON,
    REASON_PATTERN,
    RULE_OPTIONS,
    reason_problem,
)
from annotation.io.imports import MAX_IGNORED_KEYS
from annotation.io.rating_uploads import (
    UPLOAD_SETTING,
    RatingsUpload,
    RuleOptions,
    UploadRejected,
    ratings_body_keep,
    ratings_file_keep,
    ratings_upload_discard,
    ratings_upload_enqueue,
    ratings_upload_import,
    summary_counts,
)
from annotation.models import Batch
from core import api_query
from core.jsonl import fill
from core.problem_text import problem_row_message
from core.query_params import ID_MAX
from core.upload_limits import UploadRefused, UploadTooLarge, limit_bytes, upload_refusal

BODY_TYPES = ("application/x-ndjson", "application/jsonl", "text/plain")
OVERRIDES = tuple(RULE_OPTIONS.values())  # allow_over_quota, ..., replace_web_ratings
FLAGS = ("dry_run", "update", "ignore_unknown_keys", *OVERRIDES)
OPTIONS = (*FLAGS, "batch", "reason")
BODY_NAME = "body"  # how the problems name a file sent as the request body


class RatingsBodyParser(BaseParser):
    """Names the raw JSONL media types for content negotiation and the schema, and reads nothing: the view
    streams the body to a file itself (never whole in memory). Reached only when something asks for
    ``request.POST`` (the session's CSRF check does), which such a body does not have."""

    media_type = "application/x-ndjson"

    def parse(self, stream, media_type=None, parser_context=None):
        return {}


class JsonlParser(RatingsBodyParser):
    media_type = "application/jsonl"


class TextParser(RatingsBodyParser):
    media_type = "text/plain"


class OverriddenSerializer(serializers.Serializer):
    """How many ratings each override let past its rule (in a dry run: would)."""

    quota = serializers.IntegerField(min_value=0, help_text="ratings past their item's quota (allow_over_quota)")
    chosen_annotators = serializers.IntegerField(
        min_value=0, help_text="ratings by annotators not chosen for their batch (allow_unchosen_annotators)"
    )
    qualification = serializers.IntegerField(
        min_value=0, help_text="ratings by annotators without a valid qualification (allow_unqualified_annotators)"
    )
    web_ratings = serializers.IntegerField(
        min_value=0, help_text="ratings made on the web that were replaced (replace_web_ratings)"
    )
    closed_batch = serializers.IntegerField(
        min_value=0, help_text="ratings added to or changed in a closed batch (allow_closed_batch)"
    )


class OverrideRecordSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="the import override's id (admin: import overrides)")
    by = serializers.CharField(help_text="who allowed it: the caller's user name")
    reason = serializers.CharField()


class ImportSummarySerializer(serializers.Serializer):
    batch = serializers.IntegerField(allow_null=True, help_text="the batch the import was restricted to")
    file = serializers.CharField(help_text=f"the uploaded file's name ({BODY_NAME!r} for a request body)")
    created = serializers.IntegerField(help_text="new ratings (would be, in a dry run)")
    updated = serializers.IntegerField(help_text="stored ratings replaced (update=true; old values kept in history)")
    unchanged = serializers.IntegerField(help_text="ratings stored already with the same values")
    users_created = serializers.IntegerField(help_text="annotator accounts made for annotator ids seen only here")
    dry_run = serializers.BooleanField()
    ignored_keys = IgnoredKeySerializer(
        many=True, help_text=f"ignore_unknown_keys=true: the keys left out, the most frequent first (at most "
        f"{MAX_IGNORED_KEYS})",
    )  # fmt: skip
    ignored_keys_more = serializers.IntegerField(min_value=0, help_text="keys left out beyond those listed")
    overridden = OverriddenSerializer()
    override = OverrideRecordSerializer(
        allow_null=True, help_text="the record of the overrides (null in a dry run, or when nothing was overridden)"
    )


class ImportErrorSerializer(ErrorSerializer):
    problems = ProblemSerializer(many=True)
    truncated = serializers.BooleanField(
        required=False, help_text="the file's problems: more were found than are listed (at most 100)"
    )
    total = serializers.IntegerField(required=False, help_text="the file's problems: how many were found")


_RATING = {"id": "dialogue_001", "annotator_id": "ann_001", "timestamp": "2025-01-01T10:00:00Z",
           "annotations": {"social": 4, "avoidant": 1, "mechanical": 2, "self": 1},
           "confidence": {"social": 0.9, "avoidant": 0.8, "mechanical": 0.7, "self": 1.0}}  # fmt: skip
_BINARY = {"type": "string", "format": "binary", "description": "JSONL: one rating per line, " + str(_RATING)}
_REQUEST = {
    **dict.fromkeys(BODY_TYPES, _BINARY),
    "multipart/form-data": {
        "type": "object",
        "properties": {"file": {"type": "string", "format": "binary", "description": "the JSONL file"}},
        "required": ["file"],
        "additionalProperties": False,  # the options are query parameters
    },
}
_FLAG_HELP = {
    "dry_run": "true: check every line and count what would change; store nothing",
    "update": "true: replace stored ratings that differ (the old values go to the edit history); otherwise a "
    "differing rating is a problem and nothing is stored. A rating made on the web is replaced only with "
    "replace_web_ratings=true as well",
    "ignore_unknown_keys": "true: leave out top-level keys beyond id, annotator_id, timestamp, annotations, "
    "confidence and seconds_spent (the answer lists them with counts); otherwise each is a problem of its line",
    "allow_over_quota": "true: store ratings that take an item past its batch's quota (annotations per item; "
    "stored ratings and open reservations count); needs a reason, recorded",
    "allow_unchosen_annotators": "true: store ratings by annotators not chosen for a batch that is for chosen "
    "annotators only; needs a reason, recorded",
    "allow_unqualified_annotators": "true: store ratings by annotators (people who log in) without a valid "
    "qualification; accounts made by imports are not checked (they cannot take the test); needs a reason, recorded",
    "replace_web_ratings": "true, with update=true: also replace ratings annotators made on the web; needs a "
    "reason, recorded (without update=true nothing is replaced: a differing rating stays a problem of its line)",
    "allow_closed_batch": "true: store ratings (new ones, and with update=true changed ones) of a closed batch, "
    "which the queue no longer hands out; needs a reason, recorded",
}
_REASON = {
    "type": "string", "minLength": 1, "maxLength": MAX_REASON, "pattern": REASON_PATTERN,
    "description": "why the overrides are right: required with any of " + ", ".join(OVERRIDES) + "; kept "
    "with the caller's name (admin: import overrides). Plain text: no control characters but tabs and line "
    "breaks, at least one that is not a space",
}  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class _Reason(api_query.QueryParam):
    """The reason for the overrides: plain text of 1 to MAX_REASON characters, one of them not a space."""

    def schema(self) -> dict:
        return {key: value for key, value in _REASON.items() if key != "description"}

    def parse(self, text: str) -> str:
        found = reason_problem(text, ["reason"])
        if found is not None:
            template, params = found
            raise self.refuse(template, **params)
        return text


_FLAG_PARAMS = tuple(api_query.Flag(name=name, description=_FLAG_HELP[name]) for name in FLAGS)
_BATCH_PARAM = api_query.Integer(
    name="batch", minimum=1, maximum=ID_MAX,
    description="only ratings of this batch's dialogues; a rating of another batch's dialogue is a problem of its line",
)  # fmt: skip
_REASON_PARAM = _Reason(name="reason", description=_REASON["description"])
QUERY = (*_FLAG_PARAMS, _BATCH_PARAM, _REASON_PARAM)
_PROBLEMS_EXAMPLE = {
    "success": False, "error": "nothing was stored: 2 problem(s)", "detail": "nothing was stored: 2 problem(s)",
    "problems": [
        {"file": "ratings.jsonl", "line": 3, "path": "$.annotations.social", "message": "must be from 1 to 5, got 7"},
        {"file": "ratings.jsonl", "line": 9, "path": "$.id",
         "message": "unknown dialogue id 'dialogue_999'; import the dialogues first (import_dialogues)"},
    ],
    "truncated": False, "total": 2,
}  # fmt: skip
_STORED_EXAMPLE = {"batch": 3, "file": "ratings.jsonl", "created": 1200, "updated": 0, "unchanged": 0,
                   "users_created": 2, "dry_run": False, "ignored_keys": [{"key": "note", "lines": 1200}],
                   "ignored_keys_more": 0,
                   "overridden": {"quota": 4, "chosen_annotators": 0, "qualification": 0, "web_ratings": 0,
                                  "closed_batch": 0},
                   "override": {"id": 7, "by": "researcher", "reason": "two extra raters, pilot"}}  # fmt: skip


def _options(request) -> dict:
    """The options, from the query string (``core.api_query``: each at most once, never empty)."""
    values = filters.read(request.query_params, *QUERY)
    flags = {name: values[name] for name in FLAGS}
    overrides = [f"{name}=true" for name in OVERRIDES if flags[name]]
    reason = values["reason"] or ""
    if overrides and (found := reason_problem(reason, overrides)) is not None:
        raise invalid("reason", fill(*found))
    rules = RuleOptions(**{name: flags[name] for name in (*OVERRIDES, "ignore_unknown_keys")}, reason=reason)
    batch = None
    if values["batch"] is not None:
        batch = Batch.objects.filter(pk=values["batch"]).first()
        if batch is None:
            raise filters.missing("batch", f"no batch with id {values['batch']}")
    return {"dry_run": flags["dry_run"], "update": flags["update"], "batch": batch, "rules": rules}


def _media_type(request) -> str:
    return (request.content_type or "").split(";")[0].strip().lower()


@extend_schema(tags=["annotation"])
class RatingsImportViewSet(ApiErrorsMixin, viewsets.GenericViewSet):
    """Ratings in bulk (researchers): the JSONL of ``manage.py import_annotations`` over HTTP."""

    permission_classes = [IsResearcher]
    parser_classes = [RatingsBodyParser, JsonlParser, TextParser, MultiPartParser]
    serializer_class = ImportSummarySerializer

    @extend_schema(
        summary="Import ratings from a JSONL body or file (researchers); any problem stores nothing and is located",
        description=(
            "The JSONL of `manage.py import_annotations` (seed A.3 output): one rating per line, "
            "`{id, annotator_id, timestamp, annotations, confidence}` and optionally `seconds_spent`. Send it as the "
            f"body ({', '.join(BODY_TYPES)}) or as the multipart field `file`; at most UPLOAD_MAX_BYTES_RATINGS "
            "(50 MB by default). Every line is checked before anything is stored. Annotator ids without an "
            "account become annotator accounts (flagged as imported). Files over 2 MB or 5,000 lines are "
            "imported by a worker: the answer is 202 with the job; poll its `url` until `status` is succeeded "
            "(its `result` holds the counts) or failed (its `result.problems` the located problems).\n\n"
            "The ratings obey their batches' rules, as the web queue does: a closed batch takes no new or changed "
            "rating, at most the batch's quota of ratings per item (stored ratings and open reservations count), "
            "in a batch for chosen annotators only those chosen, only annotators with a valid qualification "
            "(accounts made by imports are not checked: they cannot log in to take the test), and `update` never "
            "replaces a rating made on the web. Each violation is a located problem naming the rule and its "
            "override; `allow_closed_batch`, `allow_over_quota`, `allow_unchosen_annotators`, "
            "`allow_unqualified_annotators` and `replace_web_ratings` (with `update`) override them, each with a "
            "`reason`: what they let in is recorded with the caller's name "
            "(`override` in the answer; admin: import overrides). A top-level key beyond the format's fields is "
            "a problem unless `ignore_unknown_keys=true`, and so is an id (`id`, `annotator_id`) that begins "
            "with = + - @ or holds a control character."
        ),
        request=_REQUEST,
        parameters=api_query.parameters(*QUERY),
        responses={
            201: OpenApiResponse(ImportSummarySerializer, description="ratings were stored"),
            200: OpenApiResponse(ImportSummarySerializer, description="a dry run, or nothing new to store"),
            202: OpenApiResponse(JobSerializer, description="a large file: a worker imports it; poll the job"),
            400: OpenApiResponse(ImportErrorSerializer, description="located problems (at most 100 listed, "
                                 "`total` counts them all), or a bad option; nothing was stored",
                                 examples=[OpenApiExample("problems", value=_PROBLEMS_EXAMPLE)]),
            413: OpenApiResponse(ErrorSerializer, description="the upload is over UPLOAD_MAX_BYTES_RATINGS; "
                                 "nothing was stored"),
            507: OpenApiResponse(ErrorSerializer, description="the server's disk could not hold the upload (full, "
                                 "or a write error): nothing was stored, nothing of it kept"),
            404: OpenApiResponse(ErrorSerializer, description="the batch named by ?batch= does not exist"),
            411: OpenApiResponse(ErrorSerializer, description="a chunked body without Content-Length"),
            415: OpenApiResponse(ErrorSerializer, description="a body of another media type"),
            **error_responses(),
        },
        examples=[
            OpenApiExample("stored", status_codes=["201"], response_only=True, value=_STORED_EXAMPLE),
            OpenApiExample("queued", status_codes=["202"], response_only=True,
                           value={**JOB_EXAMPLE, "kind": "annotation.ratings_upload", "status": "queued",
                                  "summary": None, "summary_url": None, "result": None}),
        ],
    )  # fmt: skip
    def create(self, request):
        media_type = _media_type(request)
        if media_type == "multipart/form-data":
            options = _options(request)
            upload = self._file(request)
        elif media_type in BODY_TYPES:
            options = _options(request)
            upload = self._body(request)
        else:
            accepted = ", ".join((*BODY_TYPES, "multipart/form-data"))
            raise ApiError(
                f"a body of type {media_type or 'none'!r} is not accepted; send the JSONL as {accepted}",
                code=status.HTTP_415_UNSUPPORTED_MEDIA_TYPE, field="Content-Type",
            )  # fmt: skip
        return self._import(request, upload, **options)

    def _file(self, request) -> RatingsUpload:
        if (refusal := upload_refusal(request, UPLOAD_SETTING)) is not None:
            raise _Refused(refusal)
        unknown = sorted(set(request.data) - {"file"})
        if unknown:
            where = "a query parameter" if unknown[0] in OPTIONS else "not an option"
            raise invalid(unknown[0], f"the form takes the field file only; {unknown[0]} is {where} "
                          f"(?{unknown[0]}=…); the options are {', '.join(OPTIONS)}")  # fmt: skip
        files = request.FILES.getlist("file")
        if len(files) != 1:
            raise invalid("file", "attach one JSONL file of ratings as the multipart field 'file'")
        try:
            return ratings_file_keep(files[0])
        except UploadRefused as refusal:
            raise _Refused(refusal) from None

    def _body(self, request) -> RatingsUpload:
        raw = request._request  # read as a stream: never the whole body in memory
        length = raw.META.get("CONTENT_LENGTH") or "0"
        if length == "0" and "chunked" in raw.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            # The WSGI request reads as many bytes as Content-Length says: a chunked body would read as empty.
            raise ApiError(
                "send the body with a Content-Length header (a chunked body is not read) or as the multipart "
                "field 'file'", code=status.HTTP_411_LENGTH_REQUIRED, field="Content-Length",
            )  # fmt: skip
        if length.isdigit() and int(length) > limit_bytes(UPLOAD_SETTING):
            raise _Refused(UploadTooLarge(setting=UPLOAD_SETTING, size=int(length), names=[BODY_NAME]))
        try:
            return ratings_body_keep(raw.read, name=BODY_NAME)
        except UploadRefused as refusal:
            raise _Refused(refusal) from None

    def _import(self, request, upload: RatingsUpload, *, dry_run: bool, update: bool, batch: Batch | None,
                rules: RuleOptions):  # fmt: skip
        options = {"batch": batch, "user": request.user, "dry_run": dry_run, "update": update, "surface": "api",
                   "rules": rules}  # fmt: skip
        if upload.is_large:
            job = ratings_upload_enqueue(upload=upload, **options)
            body = JobSerializer(job).data
            return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})
        try:
            summary = ratings_upload_import(upload=upload, **options)
        except UploadRejected as exc:
            problems = [{"file": row["file"], "line": row["line"], "path": row["path"],
                         "message": problem_row_message(row)} for row in exc.problems]  # fmt: skip
            raise ApiError(
                f"nothing was stored: {exc.total} problem(s)", problems=problems, truncated=exc.truncated,
                total=exc.total,
            ) from None  # fmt: skip
        finally:
            if not upload.is_large:
                ratings_upload_discard(upload)
        body = {"batch": batch.pk if batch else None, "file": upload.name, **summary_counts(summary)}
        stored = not dry_run and (summary.created or summary.updated)
        return Response(body, status=status.HTTP_201_CREATED if stored else status.HTTP_200_OK)


class _Refused(ApiError):
    """413 naming the upload's size, the limit and its setting, or 507 for a disk that could not hold it
    (``core.upload_limits``); nothing was stored."""

    def __init__(self, refusal: UploadRefused) -> None:
        body = refusal.body()
        super().__init__(body["error"], code=refusal.status, problems=body["problems"])
