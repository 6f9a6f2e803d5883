import logging
import time

import pytest

from core.job_runner import JobRefused, job_run
from core.jobs import JobCancelled, Progress, job_handler
from core.models import Job
from core.services import job_cancel, job_enqueue


@job_handler("tests.count_to")
def _count_to(job, progress):
    total = job.params["n"]
    for i in range(1, total + 1):
        progress(i, total, f"item {i}")
    return {"counted": total}


@job_handler("tests.explode")
def _explode(job, progress):
    raise ValueError("bad input in row 3")


@job_handler("tests.refuse")
def _refuse(job, progress):
    raise JobRefused("upload.csv: 2 problem(s); nothing was stored\n  row 3: bad\n  row 4: bad")


@job_handler("tests.cancel_midway")
def _cancel_midway(job, progress):
    Job.objects.filter(pk=job.pk).update(cancel_requested=True)
    progress(1, 10, "first", force=True)
    return {"unreachable": True}


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_writes_at_most_once_per_interval_and_always_at_the_end():
    saved = []
    clock = _Clock()
    progress = Progress(lambda d, t, m: saved.append((d, t, m)), lambda: False, interval=1.0, clock=clock)
    progress(1, 5, "a")
    progress(2)
    clock.now = 0.5
    progress(3)
    clock.now = 1.2
    progress(4)
    progress(5)
    assert saved == [(1, 5, "a"), (4, 5, "a"), (5, 5, "a")]


def test_progress_raises_when_cancelled():
    progress = Progress(lambda *a: None, lambda: True)
    with pytest.raises(JobCancelled):
        progress(1, 2)


def test_job_run_stores_result_and_progress(db):
    job = Job.objects.create(kind="tests.count_to", params={"n": 7})
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED
    assert job.result == {"counted": 7}
    assert (job.progress_done, job.progress_total, job.percent) == (7, 7, 100)
    assert job.started_at <= job.finished_at


def test_job_run_records_failure_without_raising(db):
    job = Job.objects.create(kind="tests.explode")
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error == "ValueError: bad input in row 3"


def test_an_unexpected_failure_is_logged_as_an_error_with_its_traceback(db, caplog):
    job = Job.objects.create(kind="tests.explode")
    with caplog.at_level(logging.INFO, logger="core.job_runner"):
        job_run(job_id=job.id)
    [record] = [r for r in caplog.records if r.name == "core.job_runner"]
    assert record.levelno == logging.ERROR and record.exc_info is not None
    assert "Traceback" in caplog.text and "bad input in row 3" in caplog.text


def test_a_refused_input_fails_its_job_and_is_logged_as_one_warning_line_without_traceback(db, caplog):
    job = Job.objects.create(kind="tests.refuse")
    with caplog.at_level(logging.INFO, logger="core.job_runner"):
        job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error == "upload.csv: 2 problem(s); nothing was stored\n  row 3: bad\n  row 4: bad"
    [record] = [r for r in caplog.records if r.name == "core.job_runner"]
    assert record.levelno == logging.WARNING and record.exc_info is None and record.exc_text is None
    message = record.getMessage()
    assert "\n" not in message and "Traceback" not in caplog.text
    assert str(job.pk) in message and "tests.refuse" in message and "2 problem(s); nothing was stored" in message
    assert issubclass(JobRefused, ValueError)  # a handler's callers that catch ValueError still do


def test_job_run_runs_a_job_once_even_if_delivered_twice(db):
    job = Job.objects.create(kind="tests.count_to", params={"n": 1})
    assert job_run(job_id=job.id) is not None
    assert job_run(job_id=job.id) is None


def test_running_job_stops_at_its_next_progress_report_when_cancelled(db):
    job = Job.objects.create(kind="tests.cancel_midway")
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED
    assert job.result is None


def test_cancelling_a_queued_job_finishes_it(db):
    job = Job.objects.create(kind="tests.count_to", params={"n": 1})
    job_cancel(job=job)
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED and job.finished_at is not None
    assert job_run(job_id=job.id) is None


def test_enqueue_rejects_unknown_kind(db):
    with pytest.raises(LookupError, match="no handler for job kind 'nope'"):
        job_enqueue(kind="nope")


def test_enqueue_sends_the_task_only_after_commit(db, monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: sent.append(job_id))
    with django_capture_on_commit_callbacks(execute=True):
        job = job_enqueue(kind="tests.count_to", params={"n": 2})
        assert sent == []
    assert sent == [str(job.id)]


def _wait_finished(job: Job, timeout: float = 30.0) -> Job:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.is_finished:
            return job
        time.sleep(0.1)
    raise AssertionError(f"job still {job.status} after {timeout}s")


def test_worker_runs_a_job_through_the_real_broker(celery_worker, researcher, client):
    client.force_login(researcher)
    response = client.post("/system/worker-check/", headers={"HX-Request": "true"})
    assert response.status_code == 200
    job = Job.objects.get()
    assert f'id="job-{job.id}"' in response.content.decode()
    job = _wait_finished(job)
    assert job.status == Job.Status.SUCCEEDED
    assert set(job.result) == {"hostname", "pid", "python"}
    assert job.created_by == researcher


def test_worker_reports_progress_of_a_long_job(celery_worker, researcher):
    job = job_enqueue(kind="tests.count_to", params={"n": 50}, user=researcher)
    job = _wait_finished(job)
    assert job.status == Job.Status.SUCCEEDED and job.progress_done == 50


def test_job_page_polls_until_finished(client, researcher):
    job = Job.objects.create(kind="tests.count_to", params={"n": 1}, created_by=researcher)
    client.force_login(researcher)
    html = client.get(f"/jobs/{job.id}/", headers={"HX-Request": "true"}).content.decode()
    assert 'hx-trigger="every 1s"' in html
    job_run(job_id=job.id)
    html = client.get(f"/jobs/{job.id}/", headers={"HX-Request": "true"}).content.decode()
    assert "hx-trigger" not in html and "counted" in html


def test_other_users_job_is_not_visible_to_an_annotator(client, annotator, researcher):
    job = Job.objects.create(kind="tests.count_to", params={"n": 1}, created_by=researcher)
    client.force_login(annotator)
    assert client.get(f"/jobs/{job.id}/").status_code == 404
    assert client.post(f"/jobs/{job.id}/cancel/").status_code == 404
