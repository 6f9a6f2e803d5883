"""Agreement reports (``reports/``, ``batches/{id}/reports/``) and a batch's consensus (``batches/{id}/consensus/``).

Researchers only. A report is computed by a worker: the POST queues the same job as the
dashboard's "recompute" button and answers 202 with the job to poll. The consensus is the one the
dashboard downloads: seed A.6 merge with the researchers' adjudications applied, each adjudicated
axis marked under ``adjudicated``.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.response import Response

from annotation.aggregation.consensus import METHODS
from annotation.aggregation.reports import N_BOOT
from annotation.api import filters
from annotation.api.errors import ApiErrorsMixin, conflict, not_found
from annotation.api.jobs import JOB_EXAMPLE, JobSerializer
from annotation.api.pagination import Pages
from annotation.api.permissions import IsResearcher
from annotation.api.schema import error_responses
from annotation.api.strict import StrictFieldsMixin
from annotation.axes import AXES
from annotation.job_handlers import AGREEMENT_REPORT, MAX_N_BOOT
from annotation.models import AgreementReport, Annotation, Batch
from annotation.review.selectors import batch_consensus
from core import api_query
from core.api_fields import StrictIntegerField
from core.api_parsers import StrictJSONParser
from core.services import job_enqueue


class ReportSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    kappa = serializers.SerializerMethodField(help_text="quadratic weighted kappa per axis (null: undefined)")

    class Meta:
        model = AgreementReport
        fields = ["id", "batch", "source", "created_at", "created_by", "passed", "parameters", "kappa"]
        read_only_fields = fields

    def get_kappa(self, report: AgreementReport) -> dict[str, float | None]:
        return {axis: report.axis_kappa(axis) for axis in AXES}


class ReportDetailSerializer(ReportSerializer):
    report = serializers.JSONField(help_text="the stored report, as kappa_calculator writes it")

    class Meta(ReportSerializer.Meta):
        fields = [*ReportSerializer.Meta.fields, "report"]
        read_only_fields = fields


class ReportRequestSerializer(StrictFieldsMixin, serializers.Serializer):
    n_boot = StrictIntegerField(
        min_value=0, max_value=MAX_N_BOOT, required=False, default=N_BOOT,
        help_text=f"bootstrap replicates for the confidence intervals (default {N_BOOT}; 0 for none)",
    )  # fmt: skip


class ConsensusSerializer(serializers.Serializer):
    consensus = serializers.ListField(child=serializers.DictField(), help_text="seed A.6 consensus lines")
    rejected = serializers.ListField(child=serializers.DictField(), help_text="items not merged, with the reasons")
    summary = serializers.DictField()


_REPORT_EXAMPLE = {
    "id": 12, "batch": 3, "source": "batch pilot-01", "created_at": "2025-01-31T09:30:09+09:00",
    "created_by": "res_001", "passed": True,
    "parameters": {"min_kappa": 0.6, "target_kappa": 0.8, "n_boot": 1000, "seed": 0},
    "kappa": {"social": 0.71, "avoidant": 0.64, "mechanical": 0.82, "self": 0.66},
}  # fmt: skip
_CONSENSUS_EXAMPLE = {
    "consensus": [{
        "id": "dialogue_001", "annotator_id": "consensus", "timestamp": "2025-01-31T09:40:00Z",
        "annotations": {"social": 4, "avoidant": 1, "mechanical": 2, "self": 1},
        "confidence": {"social": 0.9, "avoidant": 0.85, "mechanical": 0.8, "self": 0.95},
        "scores_mean": {"social": 4.0, "avoidant": 1.0, "mechanical": 2.3, "self": 1.0},
        "n_annotators": 3, "n_used": {"social": 3, "avoidant": 3, "mechanical": 3, "self": 3},
        "method": "weighted_average",
        "adjudicated": {"social": {"score": 4, "merged": 3.1, "reason": "賛辞が3つ以上ある",
                                   "by": "res_001", "at": "2025-01-31T09:35:00Z"}},
    }],
    "rejected": [{"id": "dialogue_007", "reasons": {"avoidant": {"reason": "spread_too_wide", "min": 1, "max": 5,
                                                                 "max_spread": 2}},
                  "n_annotators": 3, "ratings": {"ann_001": {"social": 1, "avoidant": 1, "mechanical": 1, "self": 1}}}],
    "summary": {"method": "weighted_average", "consensus_items": 1, "rejected_items": 1, "adjudicated_items": 1},
}  # fmt: skip


_METHOD = api_query.Choice(name="method", choices=tuple(METHODS), default="weighted_average",
                           description="how the ratings of an item are merged")  # fmt: skip


def _batch(pk: int) -> Batch:
    batch = Batch.objects.filter(pk=pk).first()
    if batch is None:
        raise not_found(f"no batch with id {pk}")
    return batch


@extend_schema(tags=["annotation"])
class ReportViewSet(ApiErrorsMixin, viewsets.GenericViewSet):
    """Agreement reports (computed in the background) and consensus (researchers)."""

    permission_classes = [IsResearcher]
    pagination_class = Pages
    ordering = ("-created_at", "-id")
    serializer_class = ReportSerializer
    parser_classes = [StrictJSONParser]
    queryset = AgreementReport.objects.none()

    def get_queryset(self):
        return AgreementReport.objects.select_related("created_by").order_by("-created_at", "-pk")

    @extend_schema(
        summary="Stored agreement reports, newest first (researchers)",
        parameters=[filters.BATCH],
        responses={200: ReportSerializer(many=True), **error_responses(400, 404)},
        examples=[OpenApiExample("report", value=_REPORT_EXAMPLE, response_only=True)],
    )
    def list(self, request):
        rows = self.get_queryset()  # the report is read for its kappas
        if (batch := filters.batch_id(request.query_params)) is not None:
            rows = rows.filter(batch_id=batch)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(ReportSerializer(page, many=True).data)

    @extend_schema(
        summary="One stored agreement report with its full JSON (researchers)",
        responses={200: ReportDetailSerializer, **error_responses(404)},
    )
    def retrieve(self, request, pk: int):
        report = self.get_queryset().filter(pk=pk).first()
        if report is None:
            raise not_found(f"no agreement report with id {pk}")
        return Response(ReportDetailSerializer(report).data)

    @extend_schema(
        summary="Compute a batch's agreement report in the background (researchers): 202 with the job to poll",
        request=ReportRequestSerializer,
        responses={202: JobSerializer, **error_responses(400, 404, 409)},
        examples=[
            OpenApiExample("default", request_only=True, value={"n_boot": 1000}),
            OpenApiExample("queued", response_only=True, status_codes=["202"],
                           value={**JOB_EXAMPLE, "status": "queued", "progress": {"done": 0, "total": None,
                                  "percent": None}, "summary": None, "summary_url": None, "result": None,
                                  "started_at": None, "finished_at": None, "message": ""}),
        ],
    )  # fmt: skip
    def create(self, request, pk: int):
        batch = _batch(pk)
        serializer = ReportRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if not Annotation.objects.filter(dialogue__batch=batch).exists():
            raise conflict(f"batch {batch.name} has no ratings yet, so there is nothing to compute")
        params = {"batch_id": batch.pk, "n_boot": serializer.validated_data["n_boot"]}
        job = job_enqueue(kind=AGREEMENT_REPORT, params=params, user=request.user)
        body = JobSerializer(job).data
        return Response(body, status=status.HTTP_202_ACCEPTED, headers={"Location": body["url"]})

    @extend_schema(
        summary="A batch's consensus and rejected items, adjudications applied (researchers)",
        parameters=api_query.parameters(_METHOD),
        responses={200: ConsensusSerializer, **error_responses(400, 404)},
        examples=[OpenApiExample("consensus", value=_CONSENSUS_EXAMPLE, response_only=True)],
    )
    def consensus(self, request, pk: int):
        batch = _batch(pk)
        method = filters.read_one(request.query_params, _METHOD)
        merged = batch_consensus(batch, method=method)
        if merged is None:
            raise not_found(f"batch {batch.name} has no ratings yet, so it has no consensus")
        result, summary = merged
        return Response({"consensus": result.consensus, "rejected": result.rejected, "summary": summary})
