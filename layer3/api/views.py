"""The seed's Layer3 endpoints (002 §5.1, §5.2): start a run, read results and statistics, export, upload,
and the judge calibration of a batch (issue 18).

Researchers only (``IsResearcher``; annotators get 403, anonymous requests 401); ``batchId`` is the
batch's id (all digits) or its name (never all digits: such names are refused at import). Bodies and
answers use the seed's camelCase shapes; errors answer
``{"success": false, "error": "...", "field"?: "..."}`` naming what was wrong and what is accepted.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from django.conf import settings
from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view, parser_classes, permission_classes
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from core.api_parsers import StrictJSONParser
from core.jsonl import InputError
from core.permissions import IsResearcher
from core.problem_text import problem_row
from core.query_params import QueryParamError, whole_number
from core.upload_limits import upload_refusal
from layer3.api.errors import error_response as _error
from layer3.api.requests import RequestError, parse_evaluate_request
from layer3.api.schemas import EvaluateLayer3RequestSerializer
from layer3.exports.calibration_files import batch_calibration
from layer3.exports.files import ExportError, export_file
from layer3.io.imports import trials_import
from layer3.models import Batch, TrialLog
from layer3.runs.plan import plan_warnings, run_judge_labels
from layer3.runs.services import RunInFlight, layer3_run_create, run_judges, run_plan
from layer3.selectors import (
    BatchNotFound,
    batch_get,
    evaluation_summary,
    results_document,
)
from layer3.statistics import CORRECTIONS, DEFAULT_FAMILY, parse_family

MAX_PAGE_SIZE = 500
MAX_PAGE = 10**9


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
    request=EvaluateLayer3RequestSerializer,
    responses={202: _JSON, 409: _JSON, **_ERRORS},
)
@api_view(["POST"])
@permission_classes([IsResearcher])
@parser_classes([StrictJSONParser])
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
    plan = run_plan(batch=batch, options=options)  # before the worker may start on it
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
    data = {
        "batchId": str(batch.pk),
        "batchName": batch.name,
        "runId": run.pk,
        "status": run.status,
        "totalTargets": plan.trials + plan.skipped,
        "skippedCount": plan.skipped,
        # known when the run ends: the progress stream's complete event and the run carry them
        "evaluatedCount": None,
        "errorCount": None,
        "elapsedMs": None,
        "plan": plan.as_dict(),
        "warnings": plan_warnings(plan, run_judge_labels(run_judges(options))),
        "options": options.as_request(),
    }
    links = {
        "job": reverse("job-detail", args=[run.job_id]) if run.job_id else None,
        "progress": reverse("layer3-api-progress", args=[batch.pk]),
        "results": reverse("layer3-api-results", args=[batch.pk]),
    }
    return Response(
        {"success": True, "data": data, "jobId": str(run.job_id), "runId": run.pk, "links": links}, status=202
    )


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
        "batchName": document["batchName"],
        "experimentId": document["experimentId"],
        "evaluatedAt": document["evaluatedAt"],
        "overall": document["overall"],
        "byModel": [
            {
                "modelConfig": e["modelConfig"],
                "trialCount": e["trialCount"],
                "judge": e.get("judge"),
                "layer3": e["layer3"],
            }
            for e in document["byModel"]
        ],
        "summary": evaluation_summary(batch),
    }
    if include:
        try:
            page = whole_number(request.query_params, "page", default=1, minimum=1, maximum=MAX_PAGE)
            size = whole_number(request.query_params, "pageSize", default=100, minimum=1, maximum=MAX_PAGE_SIZE)
        except QueryParamError as exc:
            return _error(400, f"{exc.name}: {exc.translated(gettext)}", exc.name)
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
    parameters=[
        OpenApiParameter("correction", str, enum=list(CORRECTIONS), description="default bonferroni"),
        OpenApiParameter(
            "family",
            str,
            description="the multiple-comparison family: seed (default: 11 metrics × the pairs of model configs, "
            "110 for A–E, seed 002 §7.2), tests-run (the tests performed), or a whole number (e.g. 210 across layers)",
        ),
    ],
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
    try:
        family = parse_family(request.query_params.get("family", DEFAULT_FAMILY))
        stats = results_document(batch, correction=correction, family=family)["statistics"]
    except ValueError as exc:
        return _error(400, f"family: {exc}", "family")
    if stats is None:
        return Response({"layer3Comparisons": [], "summary": {"layer3": None}})
    return Response({"layer3Comparisons": stats["layer3Comparisons"], "summary": {"layer3": stats["summary"]}})


@extend_schema(
    summary="Download a batch's Layer3 results as JSON, CSV, Markdown or LaTeX (seed 002 §5.1)",
    parameters=[
        OpenApiParameter("format", str, enum=["json", "csv", "markdown", "latex"]),
        OpenApiParameter("includeRawData", bool),
        OpenApiParameter("modelConfig", str),
        OpenApiParameter("correction", str, enum=list(CORRECTIONS), description="default bonferroni"),
        OpenApiParameter("family", str, description="seed (default), tests-run, or a whole number"),
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
        family = parse_family(request.query_params.get("family", DEFAULT_FAMILY))
    except ValueError as exc:
        return _error(400, f"family: {exc}", "family")
    try:
        export = export_file(
            batch,
            fmt=request.query_params.get("format", "json"),
            include_raw=include,
            model_config=request.query_params.get("modelConfig") or None,
            correction=request.query_params.get("correction", "bonferroni"),
            family=family,
        )
    except ExportError as exc:
        field = next((name for name in ("format", "correction", "family") if str(exc).startswith(name)), None)
        return _error(400, str(exc), field)
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
        '`{"batchId", "batchName", "audits": [report, ...]}`, newest first; `audits` is empty while the batch has '
        'no audit. A report: `{"audit", "scale", "consensusRule", "humans", "judges", "baseline", "rate"}`, every '
        'statistic as `{"value", "ci", "reason"}` (value and ci null with the reason when undefined).'
    ),
    responses={200: _JSON, 401: _JSON, 403: _JSON, 404: _JSON},
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def judge_calibration(request, batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    return Response({"batchId": str(batch.pk), "batchName": batch.name, "audits": batch_calibration(batch)})


@extend_schema(
    summary="Create (or add to) a batch from a trial-log JSONL file; nothing is stored on any error",
    request={
        "multipart/form-data": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "the batch name"},
                "experimentId": {"type": "string"},
                "file": {"type": "string", "format": "binary", "description": "trial-log JSONL"},
                "widgetCatalogue": {
                    "type": "string",
                    "format": "binary",
                    "description": "the widget types the generator could choose from (JSON array or one per line); "
                    "default: the site's catalogue",
                },
            },
            "required": ["name", "file"],
        }
    },
    responses={200: _JSON, 201: _JSON, 400: _JSON, 403: _JSON, 413: _JSON},
)
@api_view(["POST"])
@permission_classes([IsResearcher])
@parser_classes([MultiPartParser])
def batch_upload(request):
    """Files over the setting ``UPLOAD_MAX_BYTES_TRIALS`` (the request's files together) are refused with 413
    before they are read; the limit bounds the memory this request's parsing takes."""
    if (refusal := upload_refusal(request, "UPLOAD_MAX_BYTES_TRIALS")) is not None:
        return Response(refusal.body(), status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    upload = request.FILES.get("file")
    name = request.data.get("name", "")
    if upload is None:
        return _error(400, "file: attach the trial log as multipart field 'file' (JSONL)", "file")
    experiment = request.data.get("experimentId") or None
    catalogue_upload = request.FILES.get("widgetCatalogue")
    safe = Path(upload.name or "trials.jsonl").name or "trials.jsonl"
    with tempfile.TemporaryDirectory(prefix="layer3-upload-") as folder:
        path = _saved(upload, Path(folder) / "trials", safe)
        names = {str(path): safe}
        catalogue = None
        if catalogue_upload is not None:
            shown = Path(catalogue_upload.name or "catalogue.txt").name or "catalogue.txt"
            catalogue = _saved(catalogue_upload, Path(folder) / "catalogue", shown)
            names[str(catalogue)] = shown
        try:
            summary = trials_import(paths=[path], batch_name=name, experiment_id=experiment, catalogue_path=catalogue)
        except InputError as exc:
            rows = [problem_row(p, names=names) for p in exc.problems]  # no server paths, even in messages
            problems = [{key: row[key] for key in ("file", "line", "path", "message")} for row in rows]
            return _error(400, f"nothing was stored: {len(problems)} problem(s)", problems=problems)
    batch = Batch.objects.filter(name=name).first()
    data = {
        "batchId": str(batch.pk) if batch else None,
        "batchName": name,
        "id": batch.pk if batch else None,
        "created": summary.created,
        "unchanged": summary.unchanged,
    }
    return Response({"success": True, "data": data}, status=201 if summary.created else 200)


def _saved(upload, folder: Path, name: str) -> Path:
    folder.mkdir()
    path = folder / name
    with path.open("wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
    return path
