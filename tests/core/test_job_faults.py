"""The faults a deployment meets, with real processes on PostgreSQL + Redis (issue 41): every job ends.

- a worker's database connections terminated mid-job (``pg_terminate_backend``): the job ends failed, saying
  so, on a new connection; the import stored nothing; its kept upload is removed;
- a worker SIGKILLed mid-job: the job sweep fails it once its heartbeat is stale (``JOB_CHUNK_STALE_SECONDS``);
- the broker unreachable for the web server: starting a job answers (202, waiting for the queue) and leaves no
  orphan: the sweep hands the job over once a process reaches the broker, and a worker runs it.

The workers are ``celery worker`` processes (``tests/worker_processes.py``), the web server gunicorn.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest
from django.conf import settings as django_settings
from django.db import connection

from annotation.io.rating_uploads import RATINGS_UPLOAD, UPLOAD_FOLDER, RatingsUpload, ratings_upload_enqueue
from annotation.models import Annotation, Batch, Dialogue
from core.api_tokens import token_create
from core.job_runner import CONNECTION_LOST
from core.job_sweep import WORKER_LOST, jobs_sweep, jobs_sweep_task
from core.models import Job
from tests.annotation.conftest import dialogue, rating, write_jsonl
from tests.helpers import make_user
from tests.worker_processes import celery_workers, database_url, wait_until, web_server

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql" or not django_settings.CELERY_BROKER_URL.startswith("redis://"),
        reason="worker processes share PostgreSQL and a Redis broker",
    ),
]
STALE = 3  # JOB_CHUNK_STALE_SECONDS of the workers and of this process's sweep
LINES = 150_000  # the upload: long enough to be caught mid-job


@pytest.fixture
def worker_env(settings, tmp_path):
    settings.VAR_DIR = tmp_path / "var"
    settings.JOB_CHUNK_STALE_SECONDS = STALE
    return {
        "DATABASE_URL": database_url(connection.settings_dict), "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "DEBUG": "1", "VAR_DIR": str(settings.VAR_DIR), "LOG_LEVEL": "WARNING",
        "JOB_CHUNK_STALE_SECONDS": str(STALE),
    }  # fmt: skip


@pytest.fixture
def one_worker(worker_env, tmp_path):
    from config.celery import app

    app.control.purge()  # tasks earlier tests queued without a worker belong to no test now
    with celery_workers(1, env=worker_env, queue=app.conf.task_default_queue, log_dir=tmp_path / "logs") as started:
        yield started


def large_ratings_upload(tmp_path: Path, user) -> tuple[Batch, RatingsUpload]:
    """A batch of LINES / 3 dialogues and a kept upload of LINES ratings of them by three annotators."""
    batch = Batch.objects.create(name="faults", annotations_per_item=3)
    items = LINES // 3
    Dialogue.objects.bulk_create(
        (Dialogue(external_id=f"f{i:06d}", user_text="質問", response_text="回答", batch=batch) for i in range(items)),
        batch_size=5000,
    )
    folder = Path(django_settings.VAR_DIR) / UPLOAD_FOLDER / "faults"
    folder.mkdir(parents=True)
    path = folder / "ratings.jsonl"
    axes = {"social": 1, "avoidant": 2, "mechanical": 1, "self": 1}
    confidence = {"social": 0.9, "avoidant": 0.8, "mechanical": 0.9, "self": 0.9}
    with path.open("w") as out:
        for i in range(items):
            for annotator in ("ann_fa", "ann_fb", "ann_fc"):
                out.write(json.dumps({"id": f"f{i:06d}", "annotator_id": annotator, "timestamp": "2025-01-31T09:00:00Z",
                                      "annotations": axes, "confidence": confidence}) + "\n")  # fmt: skip
    upload = RatingsUpload(path=path, name="ratings.jsonl", size=path.stat().st_size, lines=LINES)
    return batch, upload


@pytest.fixture
def rated_batch(tmp_path):
    """Three items, each rated by three annotators (an agreement report has something to compute)."""
    from django.core.management import call_command

    call_command("import_dialogues", str(write_jsonl(tmp_path / "d.jsonl", [dialogue(i) for i in range(3)])),
                 batch="rated")  # fmt: skip
    rows = [rating(i, name, scores=(1 + i, 2, 1, 1)) for i in range(3) for name in ("ann_ra", "ann_rb", "ann_rc")]
    call_command("import_annotations", str(write_jsonl(tmp_path / "r.jsonl", rows)))
    return Batch.objects.get(name="rated")


def running_import(job: Job, workers) -> Job:
    def started():
        job.refresh_from_db()
        return job.status == Job.Status.RUNNING and job.message.startswith("checking and storing")

    try:
        return wait_until(started, timeout=60, what=f"job {job.pk} starting its import") and job
    except AssertionError:
        raise AssertionError(workers.output()) from None


def test_a_job_whose_database_connection_is_terminated_mid_import_ends_failed_and_stores_nothing(one_worker, tmp_path):
    user = make_user("res_faults", "researcher")
    batch, upload = large_ratings_upload(tmp_path, user)
    job = ratings_upload_enqueue(upload=upload, batch=batch, user=user, surface="page")
    running_import(job, one_worker)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        assert cursor.fetchone()[0] >= 1, "the worker's connections"
    terminated = time.monotonic()

    def ended():
        job.refresh_from_db()
        return job.is_finished

    try:
        wait_until(ended, timeout=30, what="the job ending")
    except AssertionError:
        raise AssertionError(one_worker.output()) from None
    assert time.monotonic() - terminated < STALE + 30
    assert job.status == Job.Status.FAILED and job.message == CONNECTION_LOST, (job.message, job.error)
    assert "OperationalError" in job.error or "InterfaceError" in job.error, job.error
    assert job.finished_at is not None and job.kind == RATINGS_UPLOAD
    assert not Annotation.objects.exists(), "the import is all or nothing"
    assert not upload.path.exists(), "the kept upload was removed"
    assert jobs_sweep().failed == [], "nothing was left for the sweep"


def test_a_job_whose_worker_is_killed_is_failed_by_the_sweep_once_its_heartbeat_is_stale(one_worker, tmp_path):
    user = make_user("res_faults", "researcher")
    batch, upload = large_ratings_upload(tmp_path, user)
    job = ratings_upload_enqueue(upload=upload, batch=batch, user=user, surface="page")
    running_import(job, one_worker)
    one_worker.kill(0)
    killed = time.monotonic()
    assert jobs_sweep().failed == [], "its last heartbeat is fresh: not failed yet"

    def swept():  # as the beat entry does every JOB_SWEEP_SECONDS
        return str(job.pk) in jobs_sweep().failed

    wait_until(swept, timeout=STALE + 30, interval=0.5, what="the sweep failing the job")
    waited = time.monotonic() - killed
    assert STALE - 1 <= waited < STALE + 15, waited
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and job.message == WORKER_LOST
    assert f"for over {STALE} s (JOB_CHUNK_STALE_SECONDS)" in job.error
    assert not Annotation.objects.exists() and not upload.path.exists()


def test_with_the_broker_unreachable_a_job_waits_and_runs_once_the_broker_is_reachable(
    worker_env, one_worker, tmp_path, rated_batch
):
    researcher = make_user("res_broker", "researcher")
    _token, key = token_create(user=researcher, name="faults")
    down = {**worker_env, "DEBUG": "0", "SECRET_KEY": "faults-" + "x" * 50, "SECURE_COOKIES": "0",
            "CELERY_BROKER_URL": "redis://127.0.0.1:1/15", "LLM_LIMITS": "process"}  # fmt: skip
    with web_server(env=down, log=tmp_path / "web.log") as url:
        api = httpx.Client(base_url=url, headers={"Authorization": f"Token {key}"}, timeout=30)
        assert api.get("/api/v1/annotation/jobs/").status_code == 200  # the server's first request loads the API
        started = time.monotonic()
        response = api.post(f"/api/v1/annotation/batches/{rated_batch.pk}/reports/", json={"n_boot": 50})
        answered = time.monotonic() - started
        assert response.status_code == 202, response.text
        body = response.json()
        assert body["status"] == "queued" and body["queue"]["waiting"] is True, body
        assert "Connection refused" in body["queue"]["error"] and "127.0.0.1:1" in body["queue"]["error"]
        assert answered < 5, answered  # one quick retry, not the system's TCP timeout
        polled = api.get(body["url"]).json()
        assert polled["queue"]["waiting"] is True and polled["status"] == "queued"
        # Rating is not affected and /healthz says the broker is down.
        health = httpx.get(f"{url}/healthz", timeout=30)
        assert health.status_code == 503 and health.json()["checks"]["broker"]["ok"] is False
    job = Job.objects.get(pk=body["id"])
    assert job.waiting_for_queue and job.dispatch_attempts == 1
    # The broker is reachable again: beat's next sweep, run by a worker, hands the job over.
    Job.objects.filter(pk=job.pk).update(created_at=job.created_at.replace(year=job.created_at.year - 1))
    jobs_sweep_task.delay()  # as beat sends it every JOB_SWEEP_SECONDS

    def done():
        job.refresh_from_db()
        return job.is_finished

    try:
        wait_until(done, timeout=60, what="the worker running the job")
    except AssertionError:
        raise AssertionError(one_worker.output()) from None
    assert job.status == Job.Status.SUCCEEDED and job.result["batch_id"] == rated_batch.pk
    assert Job.objects.filter(status=Job.Status.QUEUED).count() == 0
