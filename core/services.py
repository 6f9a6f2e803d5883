"""Writes for the core app: creating, running and cancelling jobs."""

from __future__ import annotations

import logging
import traceback
import uuid

from django.db import transaction
from django.utils import timezone

from core.jobs import JobCancelled, Progress, get_handler
from core.models import Job

logger = logging.getLogger(__name__)


def job_enqueue(*, kind: str, params: dict | None = None, user=None) -> Job:
    """Create a job and queue it for a worker once the surrounding transaction commits."""
    get_handler(kind)  # fail now, in the request, on an unknown kind
    job = Job.objects.create(kind=kind, params=params or {}, created_by=user)
    from core.tasks import run_job

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


def job_run(*, job_id: str | uuid.UUID) -> Job | None:
    """Run a queued job in this process (called by the Celery task). Returns None if it is not runnable.

    Claiming the job is atomic, so a message delivered twice runs the job once.
    """
    claimed = Job.objects.filter(pk=job_id, status=Job.Status.QUEUED).update(
        status=Job.Status.RUNNING, started_at=timezone.now()
    )
    if not claimed:
        logger.info("job %s is not queued (missing, running or finished); skipped", job_id)
        return None
    job = Job.objects.get(pk=job_id)

    def save(done: int, total: int | None, message: str) -> None:
        Job.objects.filter(pk=job.pk).update(progress_done=done, progress_total=total, message=message[:255])

    def is_cancelled() -> bool:
        return Job.objects.filter(pk=job.pk, cancel_requested=True).exists()

    progress = Progress(save, is_cancelled)
    try:
        result = get_handler(job.kind)(job, progress)
    except JobCancelled:
        job.status, job.message = Job.Status.CANCELLED, "cancelled"
    except Exception as exc:  # the job records the failure; the worker stays up
        logger.exception("job %s (%s) failed", job.pk, job.kind)
        job.status = Job.Status.FAILED
        job.error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    else:
        job.status, job.result = Job.Status.SUCCEEDED, result
        if progress.total is not None:
            progress.done = progress.total
    job.progress_done, job.progress_total = progress.done, progress.total
    job.message = job.message or progress.message[:255]
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "result", "error", "message", "progress_done", "progress_total", "finished_at"])
    return job
