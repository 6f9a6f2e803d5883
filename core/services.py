"""Writes for the core app: queueing and cancelling jobs (a worker runs them: ``core.job_runner``)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from core.jobs import get_handler
from core.models import Job
from core.tasks import run_job


def job_enqueue(*, kind: str, params: dict | None = None, user=None) -> Job:
    """Create a job and queue it for a worker once the surrounding transaction commits."""
    get_handler(kind)  # fail now, in the request, on an unknown kind
    job = Job.objects.create(kind=kind, params=params or {}, created_by=user)
    job_id = str(job.id)
    transaction.on_commit(lambda: run_job.delay(job_id))
    return job


def job_cancel(*, job: Job) -> None:
    """Ask for cancellation; a queued job is cancelled at once, a running one at its next progress report."""
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job.pk)
        if job.status == Job.Status.QUEUED:
            job.status = Job.Status.CANCELLED
            job.finished_at = timezone.now()
            job.message = "cancelled before it started"
        job.cancel_requested = True
        job.save(update_fields=["status", "finished_at", "message", "cancel_requested"])
