"""Every job ends (issue 41): the job is its own outbox, a running job beats, and the sweep ends what lost its worker.

These tests run on both backends in one process; the failures with real processes (a terminated connection, a
killed worker, an unreachable broker) are in ``test_job_faults.py``.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.db import DatabaseError, connection
from django.db.models.functions import Now
from django.test import Client
from kombu.exceptions import OperationalError

from core import job_runner
from core.job_runner import job_run, record_outcome
from core.job_sweep import WORKER_LOST, jobs_sweep
from core.jobs import job_handler
from core.models import Job, JobChunk
from core.services import broker_error_text, job_cancel, job_dispatch, job_enqueue
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
ended: list[tuple[str, str, str]] = []


def _noted(job, reason):
    ended.append((str(job.pk), job.status, reason))


@job_handler("tests.sweep_noted", kept="nothing of it was stored", on_ended=_noted)
def _sweep_noted(job, progress):
    return {"ok": True}


@pytest.fixture(autouse=True)
def _stale_window(settings):
    settings.JOB_CHUNK_STALE_SECONDS = 30
    ended.clear()


def running(kind="tests.sweep_noted", *, beat_ago: float | None, worker="host:1:abc") -> Job:
    """A job a worker claimed, whose last heartbeat was ``beat_ago`` seconds ago in the database's clock."""
    job = Job.objects.create(kind=kind, status=Job.Status.RUNNING, worker=worker, started_at=None)
    heartbeat = None if beat_ago is None else Now() - timedelta(seconds=beat_ago)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=heartbeat, started_at=Now() - timedelta(seconds=600))
    return Job.objects.get(pk=job.pk)


def test_a_running_job_whose_worker_stopped_beating_is_failed_saying_so_and_its_kind_cleans_up():
    stale, alive = running(beat_ago=31), running(beat_ago=5)
    report = jobs_sweep()
    assert report.failed == [str(stale.pk)]
    stale.refresh_from_db()
    alive.refresh_from_db()
    assert stale.status == Job.Status.FAILED and stale.message == WORKER_LOST and stale.finished_at is not None
    assert "no sign of life from its worker host:1:abc" in stale.error and "JOB_CHUNK_STALE_SECONDS" in stale.error
    assert alive.status == Job.Status.RUNNING
    assert ended == [(str(stale.pk), "failed", stale.error)]
    assert jobs_sweep().failed == [], "a second sweep finds nothing left"


def test_a_job_claimed_before_heartbeats_existed_is_failed_once_it_started_long_ago():
    old = running(beat_ago=None)
    assert jobs_sweep().failed == [str(old.pk)]


def test_a_chunked_job_is_left_to_its_chunks_and_finished_when_its_finisher_died():
    from core.chunks import ChunkWork, chunked

    chunked("tests.sweep_chunked", work=lambda job, payload: ChunkWork(store=lambda: None),
            finish=lambda job, summary: (Job.Status.SUCCEEDED, {"chunks": summary.counts}))  # fmt: skip
    job_handler("tests.sweep_chunked")(lambda job, progress: None)
    busy = running("tests.sweep_chunked", beat_ago=300)
    JobChunk.objects.create(job=busy, index=0, payload={}, status=JobChunk.Status.QUEUED)
    done = running("tests.sweep_chunked", beat_ago=300)
    JobChunk.objects.create(job=done, index=0, payload={}, status=JobChunk.Status.DONE)
    report = jobs_sweep()
    assert report.failed == [] and report.finished == [str(done.pk)]
    done.refresh_from_db()
    busy.refresh_from_db()
    assert done.status == Job.Status.SUCCEEDED and done.result == {"chunks": {"done": 1}}
    assert busy.status == Job.Status.RUNNING


def test_a_worker_that_comes_back_after_the_sweep_records_what_really_happened():
    job = running(beat_ago=60, worker="host:2:xyz")
    jobs_sweep()
    assert record_outcome(job, "host:2:xyz", {"status": Job.Status.SUCCEEDED, "result": {"n": 1}})
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and job.result == {"n": 1}


def test_the_outcome_is_recorded_on_a_new_connection_when_the_first_attempts_fail(monkeypatch):
    job = running(beat_ago=0, worker="host:3:t")
    real_update = type(Job.objects.filter(pk=job.pk)).update
    failures = iter([DatabaseError("terminating connection due to administrator command")] * 2)
    closed, slept = [], []

    def flaky(queryset, **fields):
        error = next(failures, None)
        if error is not None:
            raise error
        return real_update(queryset, **fields)

    monkeypatch.setattr(type(Job.objects.filter(pk=job.pk)), "update", flaky)
    monkeypatch.setattr(connection, "close", lambda: closed.append(True))
    recorded = record_outcome(job, "host:3:t", {"status": Job.Status.FAILED, "message": "failed"}, sleep=slept.append)
    assert recorded and len(closed) == 2 and slept == list(job_runner.RECORD_RETRY_DELAYS[:2])
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED


@pytest.mark.django_db(transaction=True)  # the heartbeat thread has a connection of its own
def test_a_run_beats_while_its_handler_works(settings):
    settings.JOB_CHUNK_STALE_SECONDS = 1  # a beat every 0.25 s
    seen = []

    @job_handler("tests.sweep_beats")
    def _beats(job, progress):
        from tests.worker_processes import wait_until

        first = Job.objects.get(pk=job.pk).heartbeat_at
        wait_until(lambda: Job.objects.get(pk=job.pk).heartbeat_at > first, timeout=20, what="a second heartbeat")
        seen.append(Job.objects.get(pk=job.pk).worker)
        return {}

    job = Job.objects.create(kind="tests.sweep_beats")
    job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and seen == [job.worker] and job.worker.count(":") == 2


# --- the job as its own outbox ---------------------------------------------------------------------------------


def refused(*args, **kwargs):
    raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def test_a_job_the_broker_cannot_take_waits_is_shown_waiting_and_is_handed_over_by_the_sweep(
    monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr("core.tasks.run_job.delay", refused)
    with django_capture_on_commit_callbacks(execute=True):
        job = job_enqueue(kind="tests.sweep_noted", user=make_user("res_q", "researcher"))
    job.refresh_from_db()
    assert job.status == Job.Status.QUEUED and job.waiting_for_queue and job.dispatch_attempts == 1
    assert job.dispatch_error == "OperationalError: Error 111 connecting to 127.0.0.1:6379. Connection refused."
    client = Client()
    client.force_login(job.created_by)
    client.cookies["django_language"] = "en"
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "data-job-waiting-for-queue" in page and "nothing was lost" in page
    api = client.get(f"/api/v1/annotation/jobs/{job.pk}/").json()
    assert api["queue"] == {"handed_over": False, "waiting": True, "error": job.dispatch_error}
    system = client.get("/system/").content.decode()
    assert "data-waiting-jobs>1 " in system and "waiting for the worker queue" in system
    # The broker is still down at the next sweep: the job keeps waiting; once it is back, the sweep hands it over.
    Job.objects.filter(pk=job.pk).update(created_at=Now() - timedelta(seconds=60))
    assert jobs_sweep().still_waiting == [str(job.pk)]
    sent = []
    monkeypatch.setattr("core.tasks.run_job.delay", sent.append)
    assert jobs_sweep().dispatched == [str(job.pk)] and sent == [str(job.pk)]
    job.refresh_from_db()
    assert not job.waiting_for_queue and job.dispatched_at is not None and job.dispatch_error == ""
    assert jobs_sweep().dispatched == [], "handed over once"
    job_run(job_id=sent[0])
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED


def test_a_job_whose_message_the_broker_lost_is_handed_over_again_and_runs_once(settings, monkeypatch):
    settings.JOB_REDISPATCH_SECONDS = 300
    sent = []
    monkeypatch.setattr("core.tasks.run_job.delay", sent.append)
    job = Job.objects.create(kind="tests.sweep_noted")
    Job.objects.filter(pk=job.pk).update(dispatched_at=Now() - timedelta(seconds=301), dispatch_attempts=1)
    fresh = Job.objects.create(kind="tests.sweep_noted")
    Job.objects.filter(pk=fresh.pk).update(dispatched_at=Now() - timedelta(seconds=100), dispatch_attempts=1)
    assert jobs_sweep().dispatched == [str(job.pk)]
    job_run(job_id=job.pk)
    assert job_run(job_id=job.pk) is None, "the second message finds it run"
    assert Job.objects.get(pk=job.pk).status == Job.Status.SUCCEEDED


def test_broker_errors_are_told_without_credentials():
    error = OperationalError("failed to connect to redis://:s3cret@broker.internal:6379/0?token=abc")
    text = broker_error_text(error)
    assert "s3cret" not in text and "abc" not in text and "broker.internal" in text


def test_a_job_cancelled_before_it_started_removes_what_it_kept(settings, tmp_path, django_capture_on_commit_callbacks):
    from annotation.io.rating_uploads import RATINGS_UPLOAD, UPLOAD_FOLDER

    settings.VAR_DIR = tmp_path
    kept = tmp_path / UPLOAD_FOLDER / "abc123" / "ratings.jsonl"
    kept.parent.mkdir(parents=True)
    kept.write_text("{}\n")
    job = Job.objects.create(kind=RATINGS_UPLOAD, params={"file": kept.relative_to(tmp_path).as_posix()})
    with django_capture_on_commit_callbacks(execute=True):
        job_cancel(job=job)
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED and not kept.exists() and not kept.parent.exists()
    assert Path(tmp_path / UPLOAD_FOLDER).is_dir()


def test_job_dispatch_updates_the_callers_instance(monkeypatch):
    monkeypatch.setattr("core.tasks.run_job.delay", refused)
    job = Job.objects.create(kind="tests.sweep_noted")
    assert not job_dispatch(job) and job.waiting_for_queue and job.dispatch_attempts == 1
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: None)
    assert job_dispatch(job) and not job.waiting_for_queue and job.dispatch_attempts == 2
