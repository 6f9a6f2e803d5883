"""Background jobs as the API shows them (``JobSerializer``): the answer of ``jobs/`` and the 202 of an upload
handed to a worker (the annotation imports, the Layer3 trial-log upload), one shape for every kind.

Labels and result summaries are the people's words the pages show (``core.job_display``); the uploaded
file's place on the server is never shown (``core.jobs.public_params``).
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.job_display import job_failure_kept, job_label, job_summary
from core.jobs import public_params
from core.models import Job

# The API's one jobs endpoint (it serves every kind; it is mounted with the annotation API).
JOB_URL_NAME = "annotation-api:job"


class JobProgressSerializer(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField(allow_null=True)
    percent = serializers.IntegerField(allow_null=True)


class JobQueueSerializer(serializers.Serializer):
    handed_over = serializers.BooleanField(help_text="whether the broker took the job (a worker can start it)")
    waiting = serializers.BooleanField(
        help_text="the broker could not be reached: the job is kept and handed over again once it is back"
    )
    error = serializers.CharField(help_text="why the last hand-over failed (empty once it succeeded)")


class JobSerializer(serializers.ModelSerializer):
    label = serializers.SerializerMethodField(help_text="the kind in people's words, in the request's language")
    progress = serializers.SerializerMethodField()
    summary = serializers.SerializerMethodField(help_text="what a succeeded job produced, in people's words")
    summary_url = serializers.SerializerMethodField(help_text="the page showing what it produced")
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    url = serializers.SerializerMethodField(help_text="this job in the API")
    kept = serializers.SerializerMethodField(
        help_text="for a failed job: what its failure left stored, in the request's language"
    )
    queue = serializers.SerializerMethodField()
    params = serializers.SerializerMethodField(
        help_text="what the job was asked to do (an uploaded file by the name it was uploaded with)"
    )

    class Meta:
        model = Job
        fields = ["id", "kind", "label", "status", "progress", "message", "summary", "summary_url", "error",
                  "kept", "queue", "result", "params", "created_by", "created_at", "started_at", "finished_at",
                  "url"]  # fmt: skip
        read_only_fields = fields

    def get_kept(self, job: Job) -> str | None:
        return job_failure_kept(job)

    @extend_schema_field(JobQueueSerializer)
    def get_queue(self, job: Job) -> dict:
        return {"handed_over": job.dispatched_at is not None, "waiting": job.waiting_for_queue,
                "error": job.dispatch_error}  # fmt: skip

    @extend_schema_field({"type": "object", "additionalProperties": True})
    def get_params(self, job: Job) -> dict:
        return public_params(job.params)

    def get_label(self, job: Job) -> str:
        return job_label(job.kind)

    @extend_schema_field(JobProgressSerializer)
    def get_progress(self, job: Job) -> dict:
        return {"done": job.progress_done, "total": job.progress_total, "percent": job.percent}

    def get_summary(self, job: Job) -> str | None:
        told = job_summary(job)
        return str(told[0]) if told else None

    def get_summary_url(self, job: Job) -> str | None:
        told = job_summary(job)
        return told[1] if told else None

    def get_url(self, job: Job) -> str:
        return reverse(JOB_URL_NAME, args=[job.pk])
