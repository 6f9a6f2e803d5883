"""Two Layer3 versions side by side (issue 42): two runs of one batch, or two batches.

``GET batch/{batch_id}/runs/{run_a}/compare/{run_b}`` and ``GET batch/{batch_id}/compare-batch/{other_batch_id}``;
``format`` json (default: ``{"success": true, "data": Comparison}``), csv, markdown or latex (a download);
``sort`` orders the changed trials (delta: |Δ| largest first, metric, trial). Researchers only; errors in the
API's one shape: 400 for a refused query parameter, 404 for a batch or a run of that batch that does not exist.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.response import Response

from core import api_query
from core.api_schema import error_responses
from core.permissions import IsResearcher
from layer3.api.compare_schemas import ComparisonAnswerSerializer
from layer3.api.errors import error_response, query_refused
from layer3.api.views import _batch
from layer3.compare.exports import COMPARE_FORMATS, EXTENSIONS, MEDIA_TYPES, render
from layer3.compare.selectors import batches_comparison, runs_comparison
from layer3.models import Layer3Run
from layer3.statistics.versions import CHANGED_SORTS

QUERY = (
    api_query.Choice(name="format", choices=("json", *COMPARE_FORMATS), default="json"),
    api_query.Choice(
        name="sort", choices=CHANGED_SORTS, default="delta",
        description="the changed trials: delta (|B - A| largest first), metric or trial (id)",
    ),
)  # fmt: skip
RESPONSES = {
    (200, "application/json"): ComparisonAnswerSerializer,
    **{(200, MEDIA_TYPES[fmt].split(";")[0]): OpenApiTypes.BINARY for fmt in COMPARE_FORMATS},
    **error_responses(400, 404),
}


def _answer(comparison, given: dict, stem: str):
    document = comparison.as_dict(sort=given["sort"])
    fmt = given["format"]
    if fmt == "json":
        return Response({"success": True, "data": document})
    response = HttpResponse(render(document, fmt), content_type=MEDIA_TYPES[fmt])
    filename = f"{stem}.{EXTENSIONS[fmt]}"
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    return response


@extend_schema(
    summary="Compare two Layer3 runs of one batch, trial by trial (paired tests, changed trials)",
    parameters=api_query.parameters(*QUERY),
    responses=RESPONSES,
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def compare_runs(request, batch_id: str, run_a: int, run_b: int):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    try:
        given = api_query.read_query(request.query_params, *QUERY)
    except api_query.QueryRefused as exc:
        return query_refused(exc)
    runs = {run.pk: run for run in Layer3Run.objects.filter(batch=batch, pk__in=(run_a, run_b))}
    for field, pk in (("run_a", run_a), ("run_b", run_b)):
        if pk not in runs:
            message = f"{field}: batch {batch.name} has no run {pk}"
            return error_response(status.HTTP_404_NOT_FOUND, message, field)
    comparison = runs_comparison(run_a=runs[run_a], run_b=runs[run_b])
    return _answer(comparison, given, f"layer3-compare-run{run_a}-run{run_b}")


@extend_schema(
    summary="Compare two Layer3 batches: trials matched by id, else by (input text, model config)",
    parameters=api_query.parameters(*QUERY),
    responses=RESPONSES,
)
@api_view(["GET"])
@permission_classes([IsResearcher])
def compare_batches(request, batch_id: str, other_batch_id: str):
    batch, missing = _batch(batch_id)
    if missing:
        return missing
    other, missing = _batch(other_batch_id)
    if missing:
        return missing
    try:
        given = api_query.read_query(request.query_params, *QUERY)
    except api_query.QueryRefused as exc:
        return query_refused(exc)
    comparison = batches_comparison(batch_a=batch, batch_b=other)
    return _answer(comparison, given, f"layer3-compare-batch{batch.pk}-batch{other.pk}")
