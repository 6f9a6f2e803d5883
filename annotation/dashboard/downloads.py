"""Downloads from the agreement dashboard: a batch's ratings, its consensus and rejected items, its report.

The same files as the commands write (``export_annotations``, ``export_consensus`` / ``merge_annotations``
defaults, ``kappa_calculator``), as JSONL or JSON downloads named after the batch; researchers only.
Ratings and consensus also come as spreadsheets (``annotation.io.sheets``, ``--format xlsx|csv``):
ratings.xlsx / ratings.csv; consensus.xlsx (a consensus and a rejected sheet); consensus.csv and
rejected.csv. CSV and JSONL come from ``annotation.io.downloads`` (the API's exports send the same bytes), CSV and
the ratings streamed; a workbook is written to a temporary file first (a zip is not streamed).
The latest agreement report also comes as report.xlsx / report.csv: one row per axis with its CI and how the CI
was computed (``annotation.dashboard.ci_method.REPORT_COLUMNS``: method, replicates, unit, level, coverage).
"""

from __future__ import annotations

import json
import tempfile
from functools import wraps

from django.http import FileResponse, Http404, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from annotation.dashboard.ci_method import REPORT_COLUMNS, report_ci_method, report_sheet_rows
from annotation.io import downloads, sheets
from annotation.models import AgreementReport, Batch
from annotation.selectors import annotation_sheet_rows
from core.permissions import researcher_required

_filename = downloads.filename


def _attach(response, filename: str):
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    return response


@researcher_required
@require_GET
def ratings(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    response = StreamingHttpResponse(downloads.ratings_jsonl(batch), content_type=downloads.JSONL_CONTENT_TYPE)
    return _attach(response, _filename(batch, "ratings", ".jsonl"))


def _include_llm(request) -> bool:
    return downloads.include_llm(request.GET.get("include_llm"))


def _plain_400(view):
    """A bad query string answers 400 with the reason as plain text (a download link has no page to show it on)."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except downloads.BadQuery as error:
            return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")

    return wrapper


_what = downloads.merged_name


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
    body = "".join(downloads.merged_jsonl(result, part))
    return _attach(HttpResponse(body, content_type=downloads.JSONL_CONTENT_TYPE),
                   _filename(batch, _what(part, include_llm), ".jsonl"))  # fmt: skip


def _merged(batch: Batch, include_llm: bool = False):
    merged = downloads.merged(batch, include_llm)
    if merged is None:
        raise Http404(f"batch {batch.name} has no ratings yet")
    return merged


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
    if file_format == "xlsx":
        rows = annotation_sheet_rows(batch_name=batch.name)
        return _workbook(lambda handle: sheets.write_ratings_xlsx(rows, handle), _filename(batch, "ratings", ".xlsx"))
    return _csv(downloads.ratings_csv(batch), _filename(batch, "ratings", ".csv"))


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
    return _csv(downloads.merged_csv(result, part), _filename(batch, _what(part, include_llm), ".csv"))


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
