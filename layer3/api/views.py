"""The seed's Layer3 endpoints (002 §5.1, §5.2): start a run, read results and statistics, export, upload,
and the judge calibration of a batch (issue 18).

Researchers only (``IsResearcher``; annotators get 403, anonymous requests 401); ``batchId`` is the
batch's id (all digits) or its name (never all digits: such names are refused at import). Bodies and
answers use the seed's camelCase shapes; errors answer the API's one shape
``{"success": false, "error", "detail", "problems", "field"?}`` naming what was wrong and what is accepted:
400 for a malformed request, 404 for a batch or model configuration that does not exist, 409 for a request the
batch's state does not allow (a run in flight, no results yet, a family smaller than the tests performed).
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.http import StreamingHttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.decorators import api_view, parser_classes, permission_classes
from rest_framework.parsers import MultiPartParser
from rest_framework.response import Response

from core import api_query
from core.api_jobs import JobSerializer
from core.api_parsers import StrictJSONParser
from core.api_schema import error_responses
from core.jsonl import InputError
from core.permissions import IsResearcher
from core.problem_text import problem_row
from core.upload_limits import UploadRefused, upload_refusal
from core.uploads import scratch_copies
from layer3.api import query
from layer3.api.errors import error_response as _error
from layer3.api.errors import query_refused
from layer3.api.requests import RequestError, parse_evaluate_request
from layer3.api.schemas import (
    BATCH_UPLOAD_FIELDS,
    BATCH_UPLOAD_REQUEST,
    CalibrationAnswerSerializer,
    EvaluateAnswerSerializer,
    EvaluateLayer3RequestSerializer,
    ResultsAnswerSerializer,
    StatisticsAnswerSerializer,
    UploadAnswerSerializer,
)
from layer3.exports.calibration_files import batch_calibration
from layer3.exports.files import ExportError, export_file
from layer3.io.imports import trials_import
from layer3.io.upload_jobs import trials_upload_enqueue
from layer3.io.uploads import job_threshold, trials_upload_keep
from layer3.models import Batch, TrialLog
from layer3.runs.plan import plan_warnings, run_judge_labels
from layer3.runs.services import RunInFlight, layer3_run_create, run_judges, run_plan
from layer3.selectors import (
    BatchNotFound,
    batch_get,
    evaluation_summary,
    results_document,
)


def _batch(batch_id: str):
    if "\x00" in batch_id:  # no name holds one (and PostgreSQL could not compare it)
        return None, _error(status.HTTP_404_NOT_FOUND, f"no batch named {batch_id!r}")
    try:
        return batch_get(batch_id), None
    except BatchNotFound as exc:
        return None, _error(status.HTTP_404_NOT_FOUND, str(exc))


def _model_config_missing(batch, model_config: str | None):
    """A 404 naming ``modelConfig`` when ``batch`` has no trials of that model configuration (else None)."""
    if model_config is None or TrialLog.objects.filter(batch=batch, model_config=model_config).exists():
        return None
    known = sorted(set(TrialLog.objects.filter(batch=batch).values_list("model_config", flat=True)))
    has = ", ".join(known) or "none"
    message = f"modelConfig: batch {batch.name} has no model config {model_config!r}; it has {has}"
    return _error(status.HTTP_404_NOT_FOUND, message, "modelConfig")


@extend_schema(
    summary="Start a Layer3 evaluation of a batch (seed 002 §5.1); 202 with the job, 409 while one runs",
    description="An LLM judge (judge llm, or useLLMJudge without judge) needs an endpoint (LLM_BASE_URL): without "
    "one the request is refused (400, naming useLLMJudge). modelConfigs the batch has no trials of: 404.",
    request=EvaluateLayer3RequestSerializer,
    responses={202: EvaluateAnswerSerializer, **error_responses(404, 409)},
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
        has = ", ".join(sorted(known)) or "none"
        message = f"batch {batch.name} has no model config {', '.join(unknown)}; it has {has}"
        return _error(status.HTTP_404_NOT_FOUND, f"modelConfigs: {message}", "modelConfigs")
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
    parameters=api_query.parameters(*query.RESULTS),
    responses={200: ResultsAnswerSerializer, **error_responses(404)},
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def layer3_results(request, batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    try:
        given = api_query.read_query(request.query_params, *query.RESULTS)
    except api_query.QueryRefused as exc:
        return query_refused(exc)
    model_config = given["modelConfig"]
    if (unknown := _model_config_missing(batch, model_config)) is not None:
        return unknown
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
        "widgetTypes": document["widgetTypes"],
    }
    if given["includeDetails"]:
        page, size = given["page"], given["pageSize"]
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
    parameters=api_query.parameters(*query.STATISTICS),
    responses={200: StatisticsAnswerSerializer, **error_responses(404, 409)},
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def statistics(request, batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    try:
        given = api_query.read_query(request.query_params, *query.STATISTICS)
    except api_query.QueryRefused as exc:
        return query_refused(exc)
    try:
        stats = results_document(batch, correction=given["correction"], family=given["family"])["statistics"]
    except ValueError as exc:  # a family smaller than the tests this batch's data has
        return _error(status.HTTP_409_CONFLICT, f"family: {exc}", "family")
    if stats is None:
        return Response({"layer3Comparisons": [], "summary": {"layer3": None}})
    return Response({"layer3Comparisons": stats["layer3Comparisons"], "summary": {"layer3": stats["summary"]}})


@extend_schema(
    summary="Download a batch's Layer3 results as JSON, CSV, Markdown or LaTeX (seed 002 §5.1)",
    parameters=api_query.parameters(*query.EXPORT),
    responses={(200, "application/octet-stream"): OpenApiTypes.BINARY, **error_responses(404, 409)},
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def layer3_export(request, batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    try:
        given = api_query.read_query(request.query_params, *query.EXPORT)
    except api_query.QueryRefused as exc:
        return query_refused(exc)
    if (unknown := _model_config_missing(batch, given["modelConfig"])) is not None:
        return unknown
    if batch.layer3_results is None:
        command = f"python manage.py evaluate_layer3 {batch.name}"
        return _error(status.HTTP_409_CONFLICT, f"batch {batch.name} has no Layer3 results yet: run `{command}` first")
    try:
        export = export_file(
            batch,
            fmt=given["format"],
            include_raw=given["includeRawData"],
            model_config=given["modelConfig"],
            correction=given["correction"],
            family=given["family"],
        )
    except ExportError as exc:  # a family smaller than the tests this batch's data has
        return _error(status.HTTP_409_CONFLICT, str(exc), "family" if str(exc).startswith("family") else None)
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
    responses={200: CalibrationAnswerSerializer},
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
    description=(
        "A file up to `LAYER3_UPLOAD_JOB_BYTES` (default 2 MB) is imported while the client waits: 201 when "
        "trials were stored, 200 when all were stored already, 400 with every problem located (nothing stored). "
        "A larger file is imported by a worker (job kind `layer3.trials_upload`): the answer is 202 with the job "
        "(its `Location` header and `url`); poll it until `status` is succeeded (its `result` holds `batch_id`, "
        "`created`, `unchanged`, `widget_types_added`, `recomputed`) or failed (its `result.problems` lists every "
        "problem located: file, line, path, message; nothing was stored). Files over `UPLOAD_MAX_BYTES_TRIALS` "
        "are refused with 413 before they are read; 507 when the server's disk could not hold the upload."
    ),
    request={"multipart/form-data": BATCH_UPLOAD_REQUEST},
    responses={
        201: OpenApiResponse(UploadAnswerSerializer, description="trials were stored"),
        200: OpenApiResponse(UploadAnswerSerializer, description="nothing new: every trial was stored already"),
        202: OpenApiResponse(JobSerializer, description="a large file: a worker imports it; poll the job"),
        **error_responses(400, 413, 507),
    },
)
@api_view(["POST"])
@permission_classes([IsResearcher])
@parser_classes([MultiPartParser])
def batch_upload(request):
    """Files over the setting ``UPLOAD_MAX_BYTES_TRIALS`` (the request's files together) are refused with 413
    before they are read; the limit bounds the memory this request's parsing takes. A trial log over
    ``LAYER3_UPLOAD_JOB_BYTES`` is kept on disk and imported by a worker (202 with the job): no web process
    parses a large log."""
    if (refusal := upload_refusal(request, "UPLOAD_MAX_BYTES_TRIALS")) is not None:
        return Response(refusal.body(), status=refusal.status)  # 413, or 507: the server's disk is full
    unknown = sorted(set(request.data) - set(BATCH_UPLOAD_FIELDS))
    if unknown:
        return _error(400, f"{unknown[0]}: not a field this accepts; accepted: {', '.join(BATCH_UPLOAD_FIELDS)}",
                      unknown[0])  # fmt: skip
    given = getattr(request.data, "getlist", lambda name: [])  # no body at all: an empty dict
    repeated = next((name for name in BATCH_UPLOAD_FIELDS if len(given(name)) > 1), None)
    if repeated:
        return _error(400, f"{repeated}: given {len(given(repeated))} times; give it once", repeated)
    upload = request.FILES.get("file")
    name = request.data.get("name", "")
    if upload is None:
        return _error(400, "file: attach the trial log as multipart field 'file' (JSONL)", "file")
    experiment = request.data.get("experimentId") or None
    catalogue_upload = request.FILES.get("widgetCatalogue")
    shown = [Path(upload.name or "trials.jsonl").name or "trials.jsonl"]
    files = [upload]
    if catalogue_upload is not None:
        shown.append(Path(catalogue_upload.name or "catalogue.txt").name or "catalogue.txt")
        files.append(catalogue_upload)
    if upload.size > job_threshold():  # a worker parses it: 202 with the job
        try:
            kept = trials_upload_keep(upload, catalogue=catalogue_upload)
        except UploadRefused as refusal:
            return Response(refusal.body(), status=refusal.status)  # 507: the server's disk is full
        job = trials_upload_enqueue(upload=kept, batch_name=name, experiment_id=experiment, user=request.user,
                                    surface="api")  # fmt: skip
        body = JobSerializer(job).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})
    with scratch_copies(files, prefix="layer3-upload-", names=shown) as (_folder, paths):
        path, catalogue = paths[0], (paths[1] if len(paths) > 1 else None)
        names = {str(copy): name for copy, name in zip(paths, shown, strict=True)}
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
        "widgetTypesAdded": list(summary.widget_types_added),
        "recomputed": summary.recomputed,
    }
    return Response({"success": True, "data": data}, status=201 if summary.created else 200)
