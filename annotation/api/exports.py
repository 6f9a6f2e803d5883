"""``batches/{id}/export/...``: a batch's files streamed, the same bytes as the dashboard's downloads (researchers).

``ratings.jsonl|csv`` (``export_annotations``), ``consensus.jsonl|csv`` and ``rejected.jsonl|csv``
(``export_consensus`` defaults, adjudications applied; ``?include_llm=0|1``). The text comes from
``annotation.io.downloads``, which the dashboard serves too: same file names, CSV with a BOM and formula-like
texts neutralised. Ratings are read in chunks and sent as they are written (memory stays flat at any size);
an unknown batch is a 404 and a bad ``include_llm`` a 400, JSON like the rest of the API.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.views import APIView

from annotation.api import filters
from annotation.api.errors import ApiErrorsMixin, not_found
from annotation.api.permissions import IsResearcher
from annotation.api.schema import error_responses
from annotation.io import downloads
from annotation.models import Batch
from core import api_query
from core.api_files import AnyAccept, attachment

MEDIA_TYPES = {"jsonl": downloads.JSONL_CONTENT_TYPE, "csv": downloads.CSV_CONTENT_TYPE}
_SCHEMA_MEDIA = {"jsonl": "application/x-ndjson", "csv": "text/csv"}


class _IncludeLlm(api_query.Choice):
    def parse(self, text: str) -> bool:
        try:
            return downloads.include_llm(text)  # its message says what 0 and 1 mean
        except downloads.BadQuery as exc:
            raise self.refuse(str(exc)) from None


_INCLUDE_LLM = _IncludeLlm(
    name="include_llm", choices=("0", "1"), default="0",
    description="1: the LLM raters' ratings count in the merge (default 0)",
)  # fmt: skip


def _batch(pk: int) -> Batch:
    batch = Batch.objects.filter(pk=pk).first()
    if batch is None:
        raise not_found(f"no batch with id {pk}")
    return batch


def _file(chunks, file_format: str, name: str):
    return attachment(chunks, MEDIA_TYPES[file_format], name)


def _documented(summary: str, file_format: str, *, part: str):
    merged = part in downloads.PARTS
    return extend_schema(
        operation_id=f"annotation_batch_export_{part}_{file_format}",
        tags=["annotation"],
        summary=summary,
        description=f"Streamed as an attachment (pilot-01-{part}.{file_format}); the dashboard's download of the same "
        "batch is the same bytes." + (" CSV: UTF-8 with a BOM, CRLF, formula-like texts neutralised." if
                                      file_format == "csv" else " One JSON object per line, UTF-8."),
        parameters=api_query.parameters(_INCLUDE_LLM) if merged else [],
        responses={
            (200, _SCHEMA_MEDIA[file_format]): OpenApiResponse(OpenApiTypes.STR, description="the file"),
            **(error_responses(400, 404) if merged else error_responses(404)),
        },
    )  # fmt: skip


class _Export(ApiErrorsMixin, APIView):
    permission_classes = [IsResearcher]
    content_negotiation_class = AnyAccept  # a file whatever the client accepts; refusals in JSON
    file_format = "jsonl"


class RatingsExport(_Export):
    """The batch's ratings (``export_annotations``)."""

    def get(self, request, pk: int):
        batch = _batch(pk)
        writer = downloads.ratings_csv if self.file_format == "csv" else downloads.ratings_jsonl
        return _file(writer(batch), self.file_format, downloads.filename(batch, "ratings", f".{self.file_format}"))


class MergedExport(_Export):
    """The batch's consensus or rejected items (``export_consensus``)."""

    part = "consensus"

    def get(self, request, pk: int):
        batch = _batch(pk)
        with_llm = filters.read_one(request.query_params, _INCLUDE_LLM) in (True, "1")
        result = downloads.merged(batch, with_llm)
        if result is None:
            raise not_found(f"batch {batch.name} has no ratings yet, so it has no consensus")
        writer = downloads.merged_csv if self.file_format == "csv" else downloads.merged_jsonl
        name = downloads.filename(batch, downloads.merged_name(self.part, with_llm), f".{self.file_format}")
        return _file(writer(result, self.part), self.file_format, name)


def _view(base, file_format: str, summary: str, **attrs):
    """``base`` for one file format, documented (drf-spectacular reads the schema per view class)."""

    def get(self, request, pk: int):
        return base.get(self, request, pk)

    get = _documented(summary, file_format, part=attrs.get("part", "ratings"))(get)
    name = f"{base.__name__}{attrs.get('part', '').title()}{file_format.title()}"
    body = {"file_format": file_format, "get": get, "__module__": __name__, "__doc__": base.__doc__, **attrs}
    return type(name, (base,), body).as_view()


ratings_jsonl = _view(RatingsExport, "jsonl", "A batch's ratings as JSONL, streamed (researchers)")
ratings_csv = _view(RatingsExport, "csv", "A batch's ratings as CSV, streamed (researchers)")
consensus_jsonl = _view(MergedExport, "jsonl", "A batch's consensus as JSONL (researchers)", part="consensus")
consensus_csv = _view(MergedExport, "csv", "A batch's consensus as CSV (researchers)", part="consensus")
rejected_jsonl = _view(MergedExport, "jsonl", "A batch's rejected items as JSONL (researchers)", part="rejected")
rejected_csv = _view(MergedExport, "csv", "A batch's rejected items as CSV (researchers)", part="rejected")
