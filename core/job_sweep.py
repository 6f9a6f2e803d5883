"""The periodic sweep that makes every job end (beat entry ``core.jobs_sweep``, every ``JOB_SWEEP_SECONDS``).

Each sweep:

1. hands over again the jobs the broker could not take (``core.services``: the job is its own outbox), and
   those handed over long ago that no worker ever started (the broker lost the message: a Redis restarted
   without persistence); a message delivered twice runs its job once (``core.job_runner`` claims it);
2. fails every running job whose worker stopped beating for ``JOB_CHUNK_STALE_SECONDS`` (killed, out of
   memory, its machine gone, or unable to reach the database), saying so and what the kind keeps; the kind's
   failure hook brings its own rows in line (``core.jobs.job_handler``);
3. for jobs split into chunks: calls workers into the chunks nobody works on (``core.chunks.watchdog``), and
   finishes a job whose last chunk is stored but whose finisher died before finishing it.

Staleness is read in the database's clock (``heartbeat_at`` is written with ``NOW()``), so workers on other
machines with other clocks agree on it.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Now

from core.chunks import finish_if_done, watchdog
from core.job_runner import run_ended_hook
from core.models import Job, JobChunk
from core.services import job_dispatch

logger = logging.getLogger(__name__)

WORKER_LOST = "failed: the worker stopped"
# A job whose row just committed is being handed over by its own request: not the sweep's to hand over yet.
DISPATCH_GRACE = timedelta(seconds=10)


@dataclass
class SweepReport:
    dispatched: list[str] = field(default_factory=list)
    still_waiting: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    called_in: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def stale_window() -> timedelta:
    return timedelta(seconds=settings.JOB_CHUNK_STALE_SECONDS)


def jobs_sweep() -> SweepReport:
    report = SweepReport()
    _hand_over(report)
    _fail_abandoned(report)
    _finish_orphaned_chunked(report)
    report.called_in = watchdog()
    if report.failed or report.dispatched or report.finished:
        logger.warning("job sweep: %s", {k: v for k, v in report.as_dict().items() if v})
    return report


def _hand_over(report: SweepReport) -> None:
    redispatch = timedelta(seconds=settings.JOB_REDISPATCH_SECONDS)
    waiting = Job.objects.filter(status=Job.Status.QUEUED).filter(
        Q(dispatched_at__isnull=True, created_at__lt=Now() - DISPATCH_GRACE) | Q(dispatched_at__lt=Now() - redispatch)
    )
    for job in waiting.order_by("created_at")[:500]:
        (report.dispatched if job_dispatch(job) else report.still_waiting).append(str(job.pk))


def _fail_abandoned(report: SweepReport) -> None:
    """Running jobs without chunks whose worker's heartbeat is stale (or never came) fail, saying what happened."""
    stale = Now() - stale_window()
    abandoned = (
        Job.objects.filter(status=Job.Status.RUNNING)
        .filter(Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True, started_at__lt=stale))
        .exclude(pk__in=JobChunk.objects.values("job_id"))
    )
    for job in abandoned:
        error = (
            f"no sign of life from its worker {job.worker or '(unknown)'} for over "
            f"{settings.JOB_CHUNK_STALE_SECONDS:g} s (JOB_CHUNK_STALE_SECONDS): it was stopped or killed, or lost "
            "the database; failed by the job sweep"
        )
        # Only while it is still as read: a worker that came back and recorded its outcome keeps it.
        failed = (
            Job.objects.filter(pk=job.pk, status=Job.Status.RUNNING, worker=job.worker)
            .filter(Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True))
            .update(status=Job.Status.FAILED, message=WORKER_LOST, error=error, finished_at=Now())
        )
        if failed:
            job.refresh_from_db()
            report.failed.append(str(job.pk))
            run_ended_hook(job, error)


def _finish_orphaned_chunked(report: SweepReport) -> None:
    """A chunked job with no open chunk left is finished (its finisher died between storing and finishing)."""
    open_chunks = JobChunk.objects.filter(status__in=JobChunk.OPEN).values("job_id")
    orphaned = (
        Job.objects.filter(status=Job.Status.RUNNING, chunks__isnull=False)
        .exclude(pk__in=open_chunks)
        .filter(Q(heartbeat_at__lt=Now() - stale_window()) | Q(heartbeat_at__isnull=True))
        .distinct()
    )
    for job_id in orphaned.values_list("pk", flat=True):
        if finish_if_done(job_id):
            report.finished.append(str(job_id))


@shared_task(name="core.jobs_sweep")
def jobs_sweep_task() -> dict:
    """Beat: hand waiting jobs to the broker, fail jobs whose worker died, call workers into lost chunks."""
    return jobs_sweep().as_dict()
