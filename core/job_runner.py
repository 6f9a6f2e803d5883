"""Running a queued job in a worker process: claim it, call its handler with progress, record the outcome.

Called by the Celery task ``core.tasks.run_job``; ``core.services`` queues that task. A handler that
raises fails its job: an unexpected exception is logged at ERROR with its traceback, a ``JobRefused``
(input the user must mend, not a fault here) at WARNING on one line, without one.

Every job ends:

- while the handler runs, a helper thread keeps the job's heartbeat fresh (``core.heartbeat``); a job whose
  worker dies stops beating, and ``core.job_sweep`` fails it once the heartbeat is older than
  ``JOB_CHUNK_STALE_SECONDS``;
- the outcome is recorded on a fresh connection when the handler's own one is gone (terminated, the server
  restarted), retrying for a few seconds; should that fail too, the sweep fails the job later.
"""

from __future__ import annotations

import logging
import time
import traceback
import uuid

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.models.functions import Now
from django.utils import timezone

from core.chunks import worker_token
from core.heartbeat import beat_interval, beating
from core.jobs import DEFERRED, JobCancelled, Progress, ended_hook, get_handler
from core.models import Job

logger = logging.getLogger(__name__)

# Seconds between the attempts to record an outcome when the database does not answer (about 15 s in all).
RECORD_RETRY_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
# The messages a failure leaves on a job (shown translated: core.job_display registers them).
FAILED = "failed"
CONNECTION_LOST = "failed: the database connection was lost"


class JobRefused(ValueError):
    """Raised by a handler whose input is refused (a user's mistake): the job fails with the message as its error."""


def job_run(*, job_id: str | uuid.UUID) -> Job | None:
    """Run a queued job in this process (called by the Celery task). Returns None if it is not runnable.

    Claiming the job is atomic, so a message delivered twice runs the job once.
    """
    token = worker_token()
    claimed = Job.objects.filter(pk=job_id, status=Job.Status.QUEUED).update(
        status=Job.Status.RUNNING, started_at=timezone.now(), worker=token, heartbeat_at=Now()
    )
    if not claimed:
        logger.info("job %s is not queued (missing, running or finished); skipped", job_id)
        return None
    job = Job.objects.get(pk=job_id)

    def save(done: int, total: int | None, message: str) -> None:
        Job.objects.filter(pk=job.pk).update(progress_done=done, progress_total=total, message=message[:255])

    def is_cancelled() -> bool:
        return Job.objects.filter(pk=job.pk, cancel_requested=True).exists()

    def beat() -> None:
        Job.objects.filter(pk=job.pk, worker=token, status=Job.Status.RUNNING).update(heartbeat_at=Now())

    progress = Progress(save, is_cancelled)
    outcome: dict = {}
    with beating(beat, interval=beat_interval(settings.JOB_CHUNK_STALE_SECONDS), name=f"job-{job.pk}"):
        try:
            result = get_handler(job.kind)(job, progress)
        except JobCancelled:
            outcome = {"status": Job.Status.CANCELLED, "message": "cancelled"}
        except JobRefused as exc:
            logger.warning("job %s (%s) refused: %s", job.pk, job.kind, " ".join(str(exc).splitlines()))
            # The handler may have put the problems on ``job.result`` for the pages and the API.
            outcome = {"status": Job.Status.FAILED, "error": str(exc), "message": FAILED, "result": job.result}
        except Exception as exc:  # the job records the failure; the worker stays up
            logger.exception("job %s (%s) failed", job.pk, job.kind)
            lost = isinstance(exc, DatabaseError) and not _connection_usable()
            outcome = {
                "status": Job.Status.FAILED,
                "error": "".join(traceback.format_exception_only(type(exc), exc)).strip(),
                "message": CONNECTION_LOST if lost else FAILED,
                "result": job.result,
            }
        else:
            if result is DEFERRED:  # split into chunks: the worker that finishes the last one finishes the job
                return Job.objects.get(pk=job.pk)
            outcome = {"status": Job.Status.SUCCEEDED, "result": result, "message": progress.message[:255]}
            if progress.total is not None:
                progress.done = progress.total
    fields = {"progress_done": progress.done, "progress_total": progress.total, **outcome}
    if not record_outcome(job, token, fields):
        return None
    job.refresh_from_db()
    if job.status == Job.Status.FAILED:
        run_ended_hook(job, job.error or job.message)
    return job


def _connection_usable() -> bool:
    try:
        return connection.connection is not None and connection.is_usable()
    except Exception:
        return False


def record_outcome(job: Job, token: str, fields: dict, *, delays=RECORD_RETRY_DELAYS, sleep=time.sleep) -> bool:
    """Write a job's outcome (``fields``) once, while ``token`` still holds it; on a fresh connection if need be.

    False if the database did not answer in any attempt: the job stays running without a heartbeat, and the
    sweep fails it later (``core.job_sweep``).
    """
    for attempt, delay in enumerate((0.0, *delays)):
        if delay:
            sleep(delay)
        try:
            Job.objects.filter(pk=job.pk, worker=token).update(**fields, finished_at=Now())
            return True
        except DatabaseError as exc:
            logger.warning(
                "job %s: recording its outcome failed (%s, attempt %s); trying again on a new connection",
                job.pk, type(exc).__name__, attempt + 1,
            )  # fmt: skip
            connection.close()
    logger.error("job %s: its outcome could not be recorded; the sweep fails it once its heartbeat is stale", job.pk)
    return False


def run_ended_hook(job: Job, reason: str) -> None:
    """Let the job's kind bring its own rows and files in line with its end (a Layer3 run marked failed, a kept
    upload removed...): ``core.jobs.job_handler``'s ``on_ended``."""
    hook = ended_hook(job.kind)
    if hook is None:
        return
    try:
        hook(job, reason)
    except Exception:
        logger.exception("job %s (%s): its kind's on_ended hook failed", job.pk, job.kind)
