"""The seed's Layer3 endpoints (002 §5.1, §5.2): start a run, read results and statistics, export, upload,
and the judge calibration of a batch (issue 18).

Researchers only (``IsResearcher``; annotators get 403, anonymous requests 401); ``batchId`` is the
batch's name or id. Bodies and answers use the seed's camelCase shapes; errors answer
``{"success": false, "error": "...", "field"?: "..."}`` naming what was wrong and what is accepted.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from django.conf import settings
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view, parser_classes, permission_classes
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.response import Response

from core.jsonl import InputError
from core.permissions import IsResearcher
from core.problem_text import problem_row
from layer3.api.requests import RequestError, parse_evaluate_request
from layer3.exports.calibration_files import batch_calibration
from layer3.exports.files import ExportError, export_file
from layer3.io.imports import trials_import
from layer3.models import Batch, TrialLog
from layer3.runs.services import RunInFlight, layer3_run_create
from layer3.selectors import (
    BatchNotFound,
    batch_get,
    evaluation_summary,
    results_document,
    run_target_counts,
)
from layer3.statistics import CORRECTIONS

MAX_PAGE_SIZE = 500


def _error(code: int, message: str, field: str | None = None, **extra) -> Response:
    body = {"success": False, "error": message, **extra}
    if field is not None:
        body["field"] = field
    return Response(body, status=code)


def _batch(batch_id: str):
    try:
        return batch_get(batch_id), None
    except BatchNotFound as exc:
        return None, _error(status.HTTP_404_NOT_FOUND, str(exc))


def _flag(request, name: str, default: bool = False) -> bool | None:
    value = request.query_params.get(name)
    if value is None:
        return default
    return {"true": True, "1": True, "false": False, "0": False}.get(value.lower())


_JSON = OpenApiTypes.OBJECT
_ERRORS = {400: _JSON, 403: _JSON, 404: _JSON}


@extend_schema(
    summary="Start a Layer3 evaluation of a batch (seed 002 §5.1); 202 with the job, 409 while one runs",
    request=_JSON,
    responses={202: _JSON, 409: _JSON, **_ERRORS},
)
@api_view(["POST"])
@permission_classes([IsResearcher])
@parser_classes([JSONParser])
def evaluate_layer3(request, batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    try:
        options = parse_evaluate_request(request.data, default_model=settings.LLM_MODEL)
    except RequestError as exc:
        return _error(status.HTTP_400_BAD_REQUEST, str(exc), exc.field)
    known = set(TrialLog.objects.filter(batch=batch).values_list("model_config", flat=True).distinct())
    unknown = [config for config in options.model_configs if config not in known]
    if unknown:
        message = f"batch {batch.name} has no model config {', '.join(unknown)}; it has {', '.join(sorted(known))}"
        return _error(status.HTTP_400_BAD_REQUEST, f"modelConfigs: {message}", "modelConfigs")
    try:
        run = layer3_run_create(batch=batch, options=options, user=request.user, enqueue=True)
    except RunInFlight as exc:
        running = {
            "runId": exc.run.pk,
            "jobId": str(exc.run.job_id) if exc.run.job_id else None,
            "status": exc.run.status,
        }
        return _error(status.HTTP_409_CONFLICT, f"{exc}; wait for it or cancel its job", data=running)
    except ValueError as exc:
        return _error(status.HTTP_400_BAD_REQUEST, f"useLLMJudge: {exc}", "useLLMJudge")
    total, skipped = run_target_counts(batch, options)
    data = {
        "batchId": batch.name,
        "totalTargets": total,
        "evaluatedCount": 0,
        "skippedCount": skipped,
        "errorCount": 0,
        "elapsedMs": 0,
        "options": options.as_request(),
    }
    return Response({"success": True, "data": data, "jobId": str(run.job_id), "runId": run.pk}, status=202)


@extend_schema(
    summary="A batch's Layer3 results overall and per model configuration (seed 002 §5.1)",
    parameters=[
        OpenApiParameter("modelConfig", str, description="one model configuration only"),
        OpenApiParameter("includeDetails", bool, description="add each trial's stored metrics, paginated"),
        OpenApiParameter("page", int, description="details page (from 1)"),
        OpenApiParameter("pageSize", int, description=f"details per page (1 to {MAX_PAGE_SIZE}, default 100)"),
    ],
    responses={200: _JSON, **_ERRORS},
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def layer3_results(request, batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    model_config = request.query_params.get("modelConfig") or None
    include = _flag(request, "includeDetails")
    if include is None:
        return _error(400, "includeDetails: expected true or false", "includeDetails")
    if model_config is not None and not TrialLog.objects.filter(batch=batch, model_config=model_config).exists():
        return _error(400, f"modelConfig: batch {batch.name} has no model config {model_config!r}", "modelConfig")
    document = results_document(batch, model_config=model_config)
    data = {
        "batchId": document["batchId"],
        "experimentId": document["experimentId"],
        "evaluatedAt": document["evaluatedAt"],
        "overall": document["overall"],
        "byModel": [
            {"modelConfig": e["modelConfig"], "trialCount": e["trialCount"], "layer3": e["layer3"]}
            for e in document["byModel"]
        ],
        "summary": evaluation_summary(batch),
    }
    if include:
        try:
            page = int(request.query_params.get("page", 1))
            size = int(request.query_params.get("pageSize", 100))
        except ValueError:
            return _error(400, "page and pageSize: expected whole numbers", "page")
        if page < 1 or not 1 <= size <= MAX_PAGE_SIZE:
            return _error(400, f"page ≥ 1 and pageSize from 1 to {MAX_PAGE_SIZE}", "pageSize")
        trials = TrialLog.objects.filter(batch=batch)
        if model_config is not None:
            trials = trials.filter(model_config=model_config)
        count = trials.count()
        rows = trials.order_by("external_id").values_list("external_id", "model_config", "layer3_metrics")
        rows = rows[(page - 1) * size : page * size]
        data["details"] = {
            "count": count,
            "page": page,
            "pageSize": size,
            "results": [{"id": i, "modelConfig": c, "layer3Metrics": m} for i, c, m in rows],
        }
    return Response({"success": True, "data": data})


@extend_schema(
    summary="Pairwise statistical tests of the Layer3 metrics (seed 002 §5.2, §7)",
    parameters=[OpenApiParameter("correction", str, enum=list(CORRECTIONS), description="default bonferroni")],
    responses={200: _JSON, **_ERRORS},
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def statistics(request, batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    correction = request.query_params.get("correction", "bonferroni")
    if correction not in CORRECTIONS:
        return _error(400, f"correction: expected one of {', '.join(CORRECTIONS)}", "correction")
    stats = results_document(batch, correction=correction)["statistics"]
    if stats is None:
        return Response({"layer3Comparisons": [], "summary": {"layer3": None}})
    return Response({"layer3Comparisons": stats["layer3Comparisons"], "summary": {"layer3": stats["summary"]}})


@extend_schema(
    summary="Download a batch's Layer3 results as JSON, CSV, Markdown or LaTeX (seed 002 §5.1)",
    parameters=[
        OpenApiParameter("format", str, enum=["json", "csv", "markdown", "latex"]),
        OpenApiParameter("includeRawData", bool),
        OpenApiParameter("modelConfig", str),
    ],
    responses={(200, "application/octet-stream"): OpenApiTypes.BINARY, **_ERRORS},
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def layer3_export(request, batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    include = _flag(request, "includeRawData")
    if include is None:
        return _error(400, "includeRawData: expected true or false", "includeRawData")
    try:
        export = export_file(
            batch,
            fmt=request.query_params.get("format", "json"),
            include_raw=include,
            model_config=request.query_params.get("modelConfig") or None,
        )
    except ExportError as exc:
        return _error(400, str(exc), "format" if "format" in str(exc) else None)
    response = StreamingHttpResponse((chunk.encode() for chunk in export.chunks), content_type=export.media_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    return response


@extend_schema(
    summary="The judge calibration of a batch: one report per judge audit, newest first (issue 18)",
    description=(
        "People rate a stratified sample of the batch's LLM-judge verdicts on the 0–2 scale (a judge audit); each "
        "report compares the judge with them (quadratic weighted kappa, Gwet AC2, exact agreement vs the human "
        "consensus and each annotator, with bootstrap CIs) beside human–human agreement and the offline baseline "
        "judge as a floor, and re-estimates the batch's usefulRate / correctnessRate from the people. "
        '`{"batchId", "audits": [report, ...]}`, newest first; `audits` is empty while the batch has no audit. A '
        'report: `{"audit", "scale", "consensusRule", "humans", "judges", "baseline", "rate"}`, every statistic as '
        '`{"value", "ci", "reason"}` (value and ci null with the reason when undefined).'
    ),
    responses={200: _JSON, 401: _JSON, 403: _JSON, 404: _JSON},
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def judge_calibration(request, batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    return Response({"batchId": batch.name, "audits": batch_calibration(batch)})


@extend_schema(
    summary="Create (or add to) a batch from a trial-log JSONL file; nothing is stored on any error",
    request={
        "multipart/form-data": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "the batch name"},
                "experimentId": {"type": "string"},
                "file": {"type": "string", "format": "binary", "description": "trial-log JSONL"},
            },
            "required": ["name", "file"],
        }
    },
    responses={200: _JSON, 201: _JSON, 400: _JSON, 403: _JSON},
)
@api_view(["POST"])
@permission_classes([IsResearcher])
@parser_classes([MultiPartParser])
def batch_upload(request):
    upload = request.FILES.get("file")
    name = request.data.get("name", "")
    if upload is None:
        return _error(400, "file: attach the trial log as multipart field 'file' (JSONL)", "file")
    experiment = request.data.get("experimentId") or None
    safe = Path(upload.name or "trials.jsonl").name or "trials.jsonl"
    with tempfile.TemporaryDirectory(prefix="layer3-upload-") as folder:
        path = Path(folder) / safe
        with path.open("wb") as handle:
            for chunk in upload.chunks():
                handle.write(chunk)
        try:
            summary = trials_import(paths=[path], batch_name=name, experiment_id=experiment)
        except InputError as exc:
            rows = [problem_row(p, names={str(path): safe}) for p in exc.problems]  # no server paths, even in messages
            problems = [{key: row[key] for key in ("file", "line", "path", "message")} for row in rows]
            return _error(400, f"nothing was stored: {len(problems)} problem(s)", problems=problems)
    batch = Batch.objects.filter(name=name).first()
    data = {
        "batchId": name,
        "id": batch.pk if batch else None,
        "created": summary.created,
        "unchanged": summary.unchanged,
    }
    return Response({"success": True, "data": data}, status=201 if summary.created else 200)
