"""Writes for the core app: queueing and cancelling jobs (a worker runs them: ``core.job_runner``).

A job is its own outbox: its row is stored first, and handed to the broker once the row commits. When the
broker cannot take it (unreachable, its disk full), the request still succeeds: the job waits, shown as
waiting for the worker queue, and ``core.job_sweep`` hands it over again once the broker is back. Nothing a
user started is lost, and no job is left queued with no message behind it.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Now
from django.utils import timezone

from core.job_runner import run_ended_hook
from core.jobs import get_handler
from core.models import Job
from core.redaction import mask_query_secrets, mask_url_passwords
from core.tasks import run_job

logger = logging.getLogger(__name__)


def job_enqueue(*, kind: str, params: dict | None = None, user=None) -> Job:
    """Create a job and hand it to the broker once the surrounding transaction commits (``job_dispatch``)."""
    get_handler(kind)  # fail now, in the request, on an unknown kind
    job = Job.objects.create(kind=kind, params=params or {}, created_by=user)
    transaction.on_commit(lambda: job_dispatch(job))
    return job


def job_dispatch(job: Job) -> bool:
    """Hand ``job`` to the broker; True if it took it. On failure the job waits for ``core.job_sweep``.

    ``job`` (the caller's instance) is updated with what was recorded, so a page rendered after the
    request's commit shows whether the job is waiting for the queue.
    """
    try:
        run_job.delay(str(job.pk))  # one quick retry at most (CELERY_TASK_PUBLISH_RETRY_POLICY)
    except Exception as exc:  # any failure to hand it over: kombu's OperationalError, OSError of a full disk...
        reason = broker_error_text(exc)
        logger.warning("job %s (%s) could not be handed to the worker queue: %s; it waits", job.pk, job.kind, reason)
        Job.objects.filter(pk=job.pk).update(dispatch_attempts=F("dispatch_attempts") + 1, dispatch_error=reason)
        job.dispatch_attempts += 1
        job.dispatch_error = reason
        return False
    Job.objects.filter(pk=job.pk).update(
        dispatched_at=Now(), dispatch_attempts=F("dispatch_attempts") + 1, dispatch_error=""
    )
    job.dispatched_at, job.dispatch_error = timezone.now(), ""
    job.dispatch_attempts += 1
    return True


def broker_error_text(exc: BaseException) -> str:
    """What went wrong handing a task to the broker, on one line, without credentials (at most 255 characters)."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return mask_query_secrets(mask_url_passwords(text))[:255]


def job_cancel(*, job: Job) -> None:
    """Ask for cancellation; a queued job is cancelled at once, a running one at its next progress report.

    A job cancelled before it started never runs its handler: its kind's ``on_ended`` removes what it kept
    (an upload waiting for it).
    """
    with transaction.atomic():
        job = Job.objects.select_for_update().get(pk=job.pk)
        if job.status == Job.Status.QUEUED:
            job.status = Job.Status.CANCELLED
            job.finished_at = timezone.now()
            job.message = "cancelled before it started"
            transaction.on_commit(lambda: run_ended_hook(job, job.message))
        job.cancel_requested = True
        job.save(update_fields=["status", "finished_at", "message", "cancel_requested"])
