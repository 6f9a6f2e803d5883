"""A job split into chunks that any number of workers take, finished once by whoever completes the last.

A chunked job kind registers three functions with ``chunked``:

- ``work(job, payload) -> ChunkWork``: compute one chunk (no writes but the LLM ledger's); the
  returned ``store`` writes its results;
- ``finish(job, summary) -> (status, result)``: once no chunk is open, in one transaction;
- ``halted(job) -> bool`` (optional): the remaining chunks are skipped (a budget spent).

The job's handler (the coordinator, ``core.job_runner``) plans the work, calls ``chunks_create`` and
returns ``work_on(job)``: it takes chunks itself like every helper. ``chunks_create`` queues one
``core.run_chunks`` message per chunk (at most ``MAX_HELPERS``): each worker that takes one joins the job
and claims chunks until none is left, so a job spreads over every idle worker, and with the embedded
broker's single worker the same code runs the chunks one after the other.

Guarantees (tested against PostgreSQL and Redis with worker processes killed):

- a chunk is claimed by one worker at a time (a conditional ``UPDATE``; ``SKIP LOCKED`` on PostgreSQL);
- its results are stored in the transaction that marks it done, only while the claim is the worker's
  own, so a chunk taken over from a worker presumed dead is never stored twice;
- a worker that dies loses at most its chunk: its heartbeat stops, and after ``JOB_CHUNK_STALE_SECONDS``
  the chunk is claimed again by a worker still in the job, by the check a worker leaving the job
  schedules, or by the job sweep (``core.job_sweep``, beat entry ``core.jobs_sweep``);
- ``finish`` runs once: under the job row's lock, and only while the job is running.
"""

from __future__ import annotations

import logging
import os
import socket
import traceback
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from core.heartbeat import beat_interval, beating
from core.jobs import DEFERRED
from core.models import Job, JobChunk

logger = logging.getLogger(__name__)

MAX_HELPERS = 64  # messages queued per job: more workers than this cannot join one job


@dataclass
class ChunkWork:
    store: Callable[[], None]  # the chunk's writes, in the transaction that marks it done
    items: int = 0  # towards the job's progress
    message: str = ""
    result: dict | None = None  # kept on the chunk for ``finish`` (``chunk_results``)


@dataclass
class Summary:
    """What became of a job's chunks, handed to ``finish``."""

    counts: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    cancelled: bool = False

    @property
    def failed(self) -> bool:
        return bool(self.counts.get(JobChunk.Status.FAILED))

    @property
    def skipped(self) -> int:
        return self.counts.get(JobChunk.Status.SKIPPED, 0)


@dataclass(frozen=True)
class ChunkedKind:
    work: Callable[[Job, object], ChunkWork]
    finish: Callable[[Job, Summary], tuple[str, dict | None]]
    halted: Callable[[Job], bool] | None = None


_KINDS: dict[str, ChunkedKind] = {}


class ChunkLost(Exception):
    """The chunk was claimed by another worker while this one worked on it (this one was presumed dead)."""


def chunked(kind: str, *, work, finish, halted=None) -> None:
    if kind in _KINDS and _KINDS[kind].work is not work:
        raise ValueError(f"chunked job kind {kind!r} is registered twice")
    _KINDS[kind] = ChunkedKind(work, finish, halted)


def stale_after() -> timedelta:
    return timedelta(seconds=settings.JOB_CHUNK_STALE_SECONDS)


def worker_token() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def chunks_create(job: Job, payloads: list) -> list[JobChunk]:
    """Store ``job``'s chunks (all queued) and, once committed, queue the messages that call workers in."""
    if job.kind not in _KINDS:
        raise LookupError(f"job kind {job.kind!r} is not chunked; known: {sorted(_KINDS)}")
    rows = JobChunk.objects.bulk_create(
        JobChunk(job=job, index=index, payload=payload) for index, payload in enumerate(payloads)
    )
    job_id = str(job.pk)
    helpers = min(len(rows), MAX_HELPERS) - 1  # the coordinator is in the job already

    def call_in() -> None:
        _call_in(job_id, helpers)

    transaction.on_commit(call_in)
    return rows


def _call_in(job_id: str, count: int) -> int:
    """Queue ``count`` messages calling workers into ``job_id``; how many the broker took. A broker that cannot
    take them costs only speed: the workers in the job take every chunk, and the sweep calls others in later."""
    for sent in range(count):
        try:
            run_chunks.delay(job_id)
        except Exception as exc:
            logger.warning("job %s: could not call workers in (%s); the job goes on without them", job_id,
                           type(exc).__name__)  # fmt: skip
            return sent
    return count


def work_on(job_id) -> object:
    """Claim and work on ``job_id``'s chunks until none is left, then finish the job if it is the last.

    Returns ``DEFERRED`` (for ``core.job_runner``: the job's status is the finisher's to write).
    """
    token = worker_token()
    while True:
        job = Job.objects.filter(pk=job_id, status=Job.Status.RUNNING).first()
        if job is None:
            return DEFERRED
        kind = _KINDS[job.kind]
        if job.cancel_requested or (kind.halted is not None and kind.halted(job)):
            _skip_open(job)
            break
        chunk = _claim(job, token)
        if chunk is None:
            break
        try:
            with _heartbeat(chunk.pk, token):
                work = kind.work(job, chunk.payload)
            _commit(job, chunk, token, work)
        except ChunkLost:
            logger.warning(
                "job %s chunk %s was taken over by another worker; its results are not stored", job.pk, chunk.index
            )
        except Exception as exc:  # the job fails; the worker stays up
            logger.exception("job %s (%s) chunk %s failed", job.pk, job.kind, chunk.index)
            _fail(job, chunk, token, exc)
            break
    finish_if_done(job_id)
    return DEFERRED


def _claim(job: Job, token: str) -> JobChunk | None:
    """A queued chunk of ``job`` (or one whose worker stopped beating), now claimed by ``token``."""
    while True:
        open_ = JobChunk.objects.filter(job=job).filter(
            Q(status=JobChunk.Status.QUEUED)
            | Q(status=JobChunk.Status.RUNNING, heartbeat_at__lt=timezone.now() - stale_after())
        )
        with transaction.atomic():
            candidates = open_.order_by("index")
            if connection.features.has_select_for_update_skip_locked:
                candidates = candidates.select_for_update(skip_locked=True)
            chunk = candidates.only("pk", "status", "token", "index").first()
            if chunk is None:
                return None
            claimed = JobChunk.objects.filter(pk=chunk.pk, status=chunk.status, token=chunk.token).update(
                status=JobChunk.Status.RUNNING, token=token, heartbeat_at=timezone.now(), attempts=F("attempts") + 1
            )
        if claimed:
            if chunk.status == JobChunk.Status.RUNNING:
                logger.warning(
                    "job %s chunk %s: its worker stopped (%s); claimed again", job.pk, chunk.index, chunk.token
                )
            return JobChunk.objects.get(pk=chunk.pk)


def _commit(job: Job, chunk: JobChunk, token: str, work: ChunkWork) -> None:
    with transaction.atomic():
        mine = JobChunk.objects.filter(pk=chunk.pk, token=token, status=JobChunk.Status.RUNNING)
        if connection.features.has_select_for_update:
            mine = mine.select_for_update()
        if not mine.exists():
            raise ChunkLost
        work.store()
        mine.update(status=JobChunk.Status.DONE, finished_at=timezone.now(), items=work.items, result=work.result)
        Job.objects.filter(pk=job.pk).update(
            progress_done=F("progress_done") + work.items, **({"message": work.message[:255]} if work.message else {})
        )


def _fail(job: Job, chunk: JobChunk, token: str, exc: Exception) -> None:
    error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    with transaction.atomic():
        JobChunk.objects.filter(pk=chunk.pk, token=token).update(
            status=JobChunk.Status.FAILED, finished_at=timezone.now(), error=error
        )
        _skip_open(job)


def _skip_open(job: Job) -> None:
    """The chunks nobody works on are skipped (cancelled, halted or failed job); running ones finish."""
    JobChunk.objects.filter(job=job, status=JobChunk.Status.QUEUED).update(
        status=JobChunk.Status.SKIPPED, finished_at=timezone.now()
    )


def chunk_results(job: Job) -> list[tuple[str, object, dict | None]]:
    """``(status, payload, result)`` of each of ``job``'s chunks, in order (for a kind's ``finish``)."""
    return list(JobChunk.objects.filter(job=job).order_by("index").values_list("status", "payload", "result"))


def finish_if_done(job_id) -> bool:
    """Finish ``job_id`` if no chunk is open (True if this call did); else make sure someone checks later."""
    with transaction.atomic():
        job = Job.objects.select_for_update().filter(pk=job_id, status=Job.Status.RUNNING).first()
        if job is None:
            return False
        open_ = JobChunk.objects.filter(job=job, status__in=JobChunk.OPEN)
        if open_.exists():
            if not open_.filter(status=JobChunk.Status.QUEUED).exists():
                transaction.on_commit(lambda: _check_later(job_id))
            return False
        rows = list(JobChunk.objects.filter(job=job).order_by("index").values_list("status", "items", "error"))
        errors = [error for status, _items, error in rows if status == JobChunk.Status.FAILED]
        statuses = Counter(status for status, _items, _error in rows)
        summary = Summary(counts=dict(statuses), errors=errors, cancelled=job.cancel_requested)
        status, result = _KINDS[job.kind].finish(job, summary)
        done = sum(items for _status, items, _error in rows)
        Job.objects.filter(pk=job.pk).update(
            status=status,
            result=result,
            error="\n".join(errors)[:10_000],
            message="cancelled" if status == Job.Status.CANCELLED else (job.message or ""),
            progress_done=done if status != Job.Status.SUCCEEDED else (job.progress_total or done),
            finished_at=timezone.now(),
        )
    return True


def _check_later(job_id) -> None:
    """Other workers hold the last chunks: look again once a dead one's chunk would be stale."""
    from config.celery import app

    if app.conf.task_always_eager:  # no delay in eager mode: it would run now, forever
        return
    try:
        run_chunks.apply_async((str(job_id),), countdown=settings.JOB_CHUNK_STALE_SECONDS + 1)
    except Exception as exc:  # the sweep's watchdog looks again (core.job_sweep)
        logger.warning("job %s: could not schedule a later check (%s); the job sweep will", job_id, type(exc).__name__)


def watchdog() -> list[str]:
    """Call workers into every running chunked job with a chunk nobody works on (beat, every few minutes)."""
    stale = timezone.now() - stale_after()
    jobs = (
        JobChunk.objects.filter(job__status=Job.Status.RUNNING)
        .filter(Q(status=JobChunk.Status.QUEUED) | Q(status=JobChunk.Status.RUNNING, heartbeat_at__lt=stale))
        .values_list("job_id", flat=True)
        .distinct()
    )
    ids = [str(job_id) for job_id in jobs]
    return [job_id for job_id in ids if _call_in(job_id, 1)]


@shared_task(name="core.run_chunks")
def run_chunks(job_id: str) -> None:
    """Join a chunked job: claim its chunks until none is left."""
    work_on(job_id)


@shared_task(name="core.chunks_watchdog")
def chunks_watchdog() -> list[str]:
    """Call workers into chunked jobs whose chunks nobody works on (a worker died with its check)."""
    return watchdog()


def _heartbeat(chunk_pk: int, token: str):
    """Keep the chunk's heartbeat fresh from a helper thread while this one works on it."""
    interval = beat_interval(settings.JOB_CHUNK_STALE_SECONDS)

    def update() -> None:
        JobChunk.objects.filter(pk=chunk_pk, token=token).update(heartbeat_at=timezone.now())

    return beating(update, interval=interval, name=f"chunk-{chunk_pk}")
