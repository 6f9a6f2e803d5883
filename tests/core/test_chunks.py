"""Chunked jobs in one process (``core.chunks``): claims, stores, takeovers, cancel, failure, halt, finish once.

Worker processes sharing a job against PostgreSQL and Redis: tests/layer3/runs/test_worker_processes.py.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from core import chunks
from core.job_runner import job_run
from core.jobs import DEFERRED, job_handler
from core.models import Job, JobChunk

pytestmark = pytest.mark.django_db

KIND = "tests.sum"
stored: list[int] = []  # what the chunks stored, in order
finished: list[chunks.Summary] = []
behaviour: dict = {}


def _work(job, payload):
    if behaviour.get("fail_at") == payload["n"]:
        raise RuntimeError(f"chunk {payload['n']} broke")
    if behaviour.get("taken_over_at") == payload["n"]:  # another worker claims it meanwhile
        JobChunk.objects.filter(job=job, index=payload["n"]).update(token="elsewhere:1:x")
    if behaviour.get("cancel_at") == payload["n"]:
        Job.objects.filter(pk=job.pk).update(cancel_requested=True)
    return chunks.ChunkWork(
        store=lambda: stored.append(payload["n"]), items=payload["items"], message=f"chunk {payload['n']}"
    )


def _finish(job, summary):
    finished.append(summary)
    if summary.failed:
        return Job.Status.FAILED, None
    if summary.cancelled:
        return Job.Status.CANCELLED, None
    return Job.Status.SUCCEEDED, {"stored": list(stored), "skipped": summary.skipped}


def _halted(job):
    return behaviour.get("halt_after") is not None and len(stored) >= behaviour["halt_after"]


chunks.chunked(KIND, work=_work, finish=_finish, halted=_halted)


@job_handler(KIND)
def _coordinator(job, progress):
    progress(0, 4 * 3, "planned", force=True)
    chunks.chunks_create(job, [{"n": n, "items": 3} for n in range(4)])
    return chunks.work_on(job.pk)


@pytest.fixture(autouse=True)
def _reset():
    stored.clear()
    finished.clear()
    behaviour.clear()


def run_job() -> Job:
    job = Job.objects.create(kind=KIND)
    job_run(job_id=job.pk)
    job.refresh_from_db()
    return job


def test_the_coordinator_works_through_every_chunk_and_whoever_stores_the_last_finishes_the_job():
    job = run_job()
    assert stored == [0, 1, 2, 3] and len(finished) == 1
    assert (job.status, job.result) == ("succeeded", {"stored": [0, 1, 2, 3], "skipped": 0})
    assert (job.progress_done, job.progress_total) == (12, 12) and job.finished_at is not None
    assert list(JobChunk.objects.filter(job=job).values_list("status", "attempts", "items")) == [("done", 1, 3)] * 4


def test_a_chunk_taken_over_meanwhile_is_not_stored_by_the_worker_presumed_dead():
    behaviour["taken_over_at"] = 1
    job = run_job()
    assert stored == [0, 2, 3] and finished == []  # its new owner has it: the job waits for it
    assert job.status == "running"
    taken = JobChunk.objects.get(job=job, index=1)
    assert (taken.status, taken.token) == ("running", "elsewhere:1:x")


def test_a_chunk_whose_worker_stopped_beating_is_claimed_again_and_stored_once(settings):
    job = Job.objects.create(kind=KIND, status=Job.Status.RUNNING)
    chunks.chunks_create(job, [{"n": n, "items": 1} for n in range(2)])
    old = timezone.now() - timedelta(seconds=settings.JOB_CHUNK_STALE_SECONDS + 1)
    JobChunk.objects.filter(job=job, index=0).update(status="running", token="dead:7:x", heartbeat_at=old, attempts=1)
    JobChunk.objects.filter(job=job, index=1).update(status="running", token="alive:8:y", heartbeat_at=timezone.now())
    assert chunks.watchdog() == [str(job.pk)]
    assert chunks.work_on(job.pk) is DEFERRED
    assert stored == [0]
    retaken = JobChunk.objects.get(job=job, index=0)
    assert (retaken.status, retaken.attempts) == ("done", 2) and "dead" not in retaken.token
    assert JobChunk.objects.get(job=job, index=1).status == "running"  # alive elsewhere: left alone
    assert chunks.watchdog() == [] and not chunks.finish_if_done(job.pk)


def test_a_cancelled_job_skips_the_chunks_nobody_works_on_and_finishes_cancelled():
    behaviour["cancel_at"] = 1
    job = run_job()
    assert stored == [0, 1]  # the chunk in hand is stored, as a single-process run did
    assert job.status == "cancelled" and finished[0].cancelled and finished[0].skipped == 2


def test_a_chunk_that_raises_fails_the_job_with_its_error_and_nothing_after_it_runs():
    behaviour["fail_at"] = 2
    job = run_job()
    assert stored == [0, 1]
    assert job.status == "failed" and "RuntimeError: chunk 2 broke" in job.error
    statuses = dict(JobChunk.objects.filter(job=job).values_list("index", "status"))
    assert statuses == {0: "done", 1: "done", 2: "failed", 3: "skipped"}


def test_a_halted_job_skips_its_remaining_chunks_and_still_finishes():
    behaviour["halt_after"] = 2
    job = run_job()
    assert stored == [0, 1]
    assert (job.status, job.result) == ("succeeded", {"stored": [0, 1], "skipped": 2})


def test_a_job_is_finished_once_even_if_asked_again():
    job = run_job()
    assert not chunks.finish_if_done(job.pk) and len(finished) == 1


def test_an_unknown_kind_cannot_be_split():
    job = Job.objects.create(kind="core.worker_ping")
    with pytest.raises(LookupError, match="not chunked"):
        chunks.chunks_create(job, [{}])
