"""Running a queued job in a worker process: claim it, call its handler with progress, record the outcome.

Called by the Celery task ``core.tasks.run_job``; ``core.services`` queues that task. A handler that
raises fails its job: an unexpected exception is logged at ERROR with its traceback, a ``JobRefused``
(input the user must mend, not a fault here) at WARNING on one line, without one.
"""

from __future__ import annotations

import logging
import traceback
import uuid

from django.utils import timezone

from core.jobs import DEFERRED, JobCancelled, Progress, get_handler
from core.models import Job

logger = logging.getLogger(__name__)


class JobRefused(ValueError):
    """Raised by a handler whose input is refused (a user's mistake): the job fails with the message as its error."""


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
    except JobRefused as exc:
        logger.warning("job %s (%s) refused: %s", job.pk, job.kind, " ".join(str(exc).splitlines()))
        job.status, job.error = Job.Status.FAILED, str(exc)
    except Exception as exc:  # the job records the failure; the worker stays up
        logger.exception("job %s (%s) failed", job.pk, job.kind)
        job.status = Job.Status.FAILED
        job.error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    else:
        if result is DEFERRED:  # split into chunks: the worker that finishes the last one finishes the job
            return Job.objects.get(pk=job.pk)
        job.status, job.result = Job.Status.SUCCEEDED, result
        if progress.total is not None:
            progress.done = progress.total
    job.progress_done, job.progress_total = progress.done, progress.total
    job.message = job.message or progress.message[:255]
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "result", "error", "message", "progress_done", "progress_total", "finished_at"])
    return job
