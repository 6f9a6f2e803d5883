"""``jobs/``: background jobs (agreement reports and the other kinds) and how far they are.

Researchers see every job; everyone else only the jobs they started, as on the job pages. Labels
and result summaries are the people's words the pages show (``core.job_display``).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from annotation.api import filters
from annotation.api.errors import ApiErrorsMixin, not_found
from annotation.api.pagination import Pages
from annotation.api.permissions import is_researcher
from annotation.api.schema import error_responses
from core import api_query
from core.api_jobs import JobSerializer
from core.models import Job

JOB_EXAMPLE = {
    "id": "6f1c1f7e-3c55-4b0a-9d7e-0c3c1f3c9a11", "kind": "annotation.agreement_report", "label": "一致率レポート",
    "status": "succeeded", "progress": {"done": 1, "total": 1, "percent": 100},
    "message": "stored agreement report 12", "summary": "一致率レポート #12 を保存しました（合格）。",
    "summary_url": "/research/agreement/?batch=3", "error": "", "kept": None,
    "queue": {"handed_over": True, "waiting": False, "error": ""},
    "result": {"report_id": 12, "batch_id": 3, "passed": True}, "params": {"batch_id": 3, "n_boot": 1000},
    "created_by": "res_001", "created_at": "2025-01-31T09:30:00+09:00", "started_at": "2025-01-31T09:30:01+09:00",
    "finished_at": "2025-01-31T09:30:09+09:00", "url": "/api/v1/annotation/jobs/6f1c1f7e-3c55-4b0a-9d7e-0c3c1f3c9a11/",
}  # fmt: skip


_FILTERS = (
    api_query.Text(name="kind", max_length=64, description="only this kind, e.g. annotation.agreement_report"),
    api_query.Choice(name="status", choices=tuple(Job.Status.values), description="only jobs in this status"),
)


@extend_schema(tags=["annotation"])
class JobViewSet(ApiErrorsMixin, viewsets.GenericViewSet):
    """Background jobs: researchers see all, everyone else their own."""

    permission_classes = [IsAuthenticated]
    pagination_class = Pages
    ordering = ("-created_at", "-id")
    serializer_class = JobSerializer
    queryset = Job.objects.none()

    def get_queryset(self):
        rows = Job.objects.select_related("created_by").order_by("-created_at", "-pk")
        if not is_researcher(self.request):
            rows = rows.filter(created_by=self.request.user)  # others' jobs are not shown (as on the job pages)
        return rows

    @extend_schema(
        summary="Background jobs, newest first: all for researchers, your own for everyone else",
        parameters=api_query.parameters(*_FILTERS),
        responses={200: JobSerializer(many=True), **error_responses(400)},
        examples=[OpenApiExample("job", value=JOB_EXAMPLE, response_only=True)],
    )
    def list(self, request):
        rows = self.get_queryset()
        wanted = filters.read(request.query_params, *_FILTERS)
        if wanted["kind"] is not None:
            rows = rows.filter(kind=wanted["kind"])
        if wanted["status"] is not None:
            rows = rows.filter(status=wanted["status"])
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(JobSerializer(page, many=True).data)

    @extend_schema(
        summary="One job: poll it until its status is succeeded, failed or cancelled",
        responses={200: JobSerializer, **error_responses(404)},
        examples=[OpenApiExample("job", value=JOB_EXAMPLE, response_only=True)],
    )
    def retrieve(self, request, pk):
        job = self.get_queryset().filter(pk=pk).first()
        if job is None:
            raise not_found(f"no job {pk}" + ("" if is_researcher(request) else " of yours"))
        return Response(JobSerializer(job).data)
