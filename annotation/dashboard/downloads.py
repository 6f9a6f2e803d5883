"""Downloads from the agreement dashboard: a batch's ratings, its consensus and rejected items, its report.

The same files as the commands write (``export_annotations``, ``export_consensus`` / ``merge_annotations``
defaults, ``kappa_calculator``), as JSONL or JSON downloads named after the batch; researchers only.
Ratings and consensus also come as spreadsheets (``annotation.io.sheets``, ``--format xlsx|csv``):
ratings.xlsx / ratings.csv; consensus.xlsx (a consensus and a rejected sheet); consensus.csv and
rejected.csv. CSV is streamed; a workbook is written to a temporary file first (a zip is not streamed).
The latest agreement report also comes as report.xlsx / report.csv: one row per axis with its CI and how the CI
was computed (``annotation.dashboard.ci_method.REPORT_COLUMNS``: method, replicates, unit, level, coverage).
"""

from __future__ import annotations

import json
import re
import tempfile
from functools import wraps

from django.http import FileResponse, Http404, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from annotation.dashboard.ci_method import REPORT_COLUMNS, report_ci_method, report_sheet_rows
from annotation.io import sheets
from annotation.io.exports import annotation_lines
from annotation.models import AgreementReport, Batch
from annotation.review.selectors import batch_consensus
from annotation.selectors import annotation_sheet_rows
from core.permissions import researcher_required

_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def _filename(batch: Batch, what: str, extension: str) -> str:
    return re.sub(r"[^\w.-]", "_", f"{batch.name}-{what}") + extension


def _attach(response, filename: str):
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    return response


@researcher_required
@require_GET
def ratings(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    lines = (line if line.endswith("\n") else line + "\n" for line in annotation_lines(batch_name=batch.name))
    response = StreamingHttpResponse(lines, content_type="application/x-ndjson; charset=utf-8")
    return _attach(response, _filename(batch, "ratings", ".jsonl"))


class _BadQuery(Exception):
    pass


def _include_llm(request) -> bool:
    """``?include_llm=1``: the LLM raters' ratings count in the consensus, as ``export_consensus --include-llm``."""
    value = request.GET.get("include_llm", "0")
    if value not in ("0", "1"):
        raise _BadQuery(f"include_llm={value!r}: accepted 0 (people only, the default) or 1 (with the LLM raters)")
    return value == "1"


def _plain_400(view):
    """A bad query string answers 400 with the reason as plain text (a download link has no page to show it on)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except _BadQuery as error:
            return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")

    return wrapper


def _what(part: str, include_llm: bool) -> str:
    return f"{part}-with-llm" if include_llm else part


@researcher_required
@require_GET
@_plain_400
def consensus(request, pk: int, part: str):
    """``part``: "consensus" or "rejected", merged with the export_consensus defaults, adjudications applied."""
    batch = get_object_or_404(Batch, pk=pk)
    if part not in ("consensus", "rejected"):
        raise Http404("consensus or rejected")
    include_llm = _include_llm(request)
    result = _merged(batch, include_llm)
    rows = result.consensus if part == "consensus" else result.rejected
    body = "".join(_encode(row) + "\n" for row in rows)
    return _attach(HttpResponse(body, content_type="application/x-ndjson; charset=utf-8"),
                   _filename(batch, _what(part, include_llm), ".jsonl"))  # fmt: skip


def _merged(batch: Batch, include_llm: bool = False):
    merged = batch_consensus(batch, include_llm=include_llm)
    if merged is None:
        raise Http404(f"batch {batch.name} has no ratings yet")
    return merged[0]


def _workbook(write, filename: str) -> FileResponse:
    """A workbook that ``write(handle)`` writes, served from a temporary file (closed with the response)."""
    handle = tempfile.TemporaryFile()  # noqa: SIM115 (the response closes it once sent)
    try:
        write(handle)
        handle.seek(0)
    except BaseException:
        handle.close()
        raise
    return FileResponse(handle, as_attachment=True, filename=filename, content_type=sheets.XLSX_CONTENT_TYPE)


def _csv(chunks, filename: str) -> StreamingHttpResponse:
    return _attach(StreamingHttpResponse(chunks, content_type=sheets.CSV_CONTENT_TYPE), filename)


@researcher_required
@require_GET
def ratings_sheet(request, pk: int, file_format: str):
    """The ratings as ``export_annotations --format xlsx|csv`` writes them."""
    batch = get_object_or_404(Batch, pk=pk)
    rows = annotation_sheet_rows(batch_name=batch.name)
    if file_format == "xlsx":
        return _workbook(lambda handle: sheets.write_ratings_xlsx(rows, handle), _filename(batch, "ratings", ".xlsx"))
    return _csv(sheets.iter_ratings_csv(rows), _filename(batch, "ratings", ".csv"))


@researcher_required
@require_GET
@_plain_400
def consensus_sheet(request, pk: int, part: str, file_format: str):
    """``part`` "consensus" (xlsx: with the rejected sheet) or "rejected" (CSV only), as export_consensus writes."""
    batch = get_object_or_404(Batch, pk=pk)
    include_llm = _include_llm(request)
    result = _merged(batch, include_llm)
    if file_format == "xlsx":
        return _workbook(
            lambda handle: sheets.write_consensus_xlsx(result.consensus, result.rejected, handle),
            _filename(batch, _what("consensus", include_llm), ".xlsx"),
        )
    if part == "rejected":
        return _csv(sheets.iter_rejected_csv(result.rejected), _filename(batch, _what("rejected", include_llm), ".csv"))
    return _csv(sheets.iter_consensus_csv(result.consensus), _filename(batch, _what("consensus", include_llm), ".csv"))


def _latest_report(batch: Batch) -> AgreementReport:
    stored = AgreementReport.objects.filter(batch=batch).order_by("-created_at", "-pk").first()
    if stored is None:
        raise Http404(f"batch {batch.name} has no agreement report yet")
    return stored


@researcher_required
@require_GET
def report(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    stored = _latest_report(batch)
    body = json.dumps(stored.report, ensure_ascii=False, indent=2, allow_nan=False)
    return _attach(HttpResponse(body, content_type="application/json; charset=utf-8"),
                   _filename(batch, f"agreement-report-{stored.pk}", ".json"))  # fmt: skip


@researcher_required
@require_GET
def report_sheet(request, pk: int, file_format: str):
    """The latest report's axes with their CIs and the CI method (statement in the user's language)."""
    batch = get_object_or_404(Batch, pk=pk)
    stored = _latest_report(batch)
    rows = report_sheet_rows(stored, report_ci_method(stored))
    name = _filename(batch, f"agreement-report-{stored.pk}", f".{file_format}")
    if file_format == "xlsx":
        return _workbook(lambda handle: sheets.write_xlsx(handle, [("report", REPORT_COLUMNS, rows)]), name)
    return _csv(sheets.iter_csv(REPORT_COLUMNS, rows), name)
