"""A large ratings upload is imported by a worker (``annotation.ratings_upload``), seen through the job endpoint."""

import json
import time
from pathlib import Path

import pytest

from annotation.io import rating_uploads
from annotation.models import Annotation
from core.job_runner import job_run
from core.models import Job
from tests.annotation.api.support import API, NOTHING_OVERRIDDEN, logged_in, make_batch
from tests.annotation.conftest import rating

URL = API + "annotations/import/"


def _body(rows) -> bytes:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows).encode()


def _kept_files(settings) -> list[Path]:
    folder = Path(settings.VAR_DIR) / rating_uploads.UPLOAD_FOLDER
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def _wait_finished(client, url: str, timeout: float = 60.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body["status"] in ("succeeded", "failed", "cancelled"):
            return body
        time.sleep(0.1)
    raise AssertionError(f"job still {body['status']} after {timeout}s")


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(rating_uploads, "LARGE_UPLOAD_LINES", 5)


def test_a_worker_imports_a_large_file_and_the_job_tells_the_counts(
    celery_worker, researcher, small_threshold, settings
):
    client = logged_in(researcher)
    client.cookies["django_language"] = "en"
    batch = make_batch("big", n_items=30)
    rows = [rating(0, f"ann_{i % 3}", id=f"big_{i:03d}") for i in range(30)]
    response = client.post(f"{URL}?batch={batch.pk}", _body(rows), content_type="application/x-ndjson")
    assert response.status_code == 202, response.content
    job = _wait_finished(client, response["Location"])
    assert job["status"] == "succeeded", job
    assert job["result"] == {"batch_id": batch.pk, "batch_name": "big", "file": "body", "created": 30,
                             "updated": 0, "unchanged": 0, "users_created": 3, "dry_run": False,
                             **NOTHING_OVERRIDDEN}  # fmt: skip
    assert job["summary"] == "body: 30 ratings stored, 0 replaced, 0 stored already. " \
        "3 annotator accounts were created for annotator ids seen only in the file."  # fmt: skip
    assert Annotation.objects.filter(dialogue__batch=batch).count() == 30
    assert _kept_files(settings) == [], "the kept file is removed once the job ended"


def test_a_worker_refuses_a_large_file_with_problems_and_stores_nothing(
    celery_worker, researcher, small_threshold, settings
):
    client = logged_in(researcher)
    make_batch("big", n_items=10)
    rows = [rating(0, "ann_x", id=f"big_{i:03d}") for i in range(10)]
    rows[4]["confidence"]["self"] = 2
    rows[7] = "not json"
    response = client.post(URL, _body(rows), content_type="text/plain")
    assert response.status_code == 202
    job = _wait_finished(client, response.json()["url"])
    assert job["status"] == "failed" and "2 problem(s); nothing was stored" in job["error"]
    problems = job["result"]["problems"]
    assert [(p["file"], p["line"], p["path"]) for p in problems] == [("body", 5, "$.confidence.self"), ("body", 8, "$")]
    assert job["result"]["total"] == 2 and job["result"]["truncated"] is False
    assert not Annotation.objects.exists()
    assert _kept_files(settings) == []


def test_the_job_handler_runs_a_dry_run_with_the_page_hints(db, researcher, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    batch = make_batch("b", n_items=2)
    first = rating_uploads.ratings_body_keep(_reader(_body([rating(0, "ann_y", id="b_000")]))())
    rating_uploads.ratings_upload_import(upload=first, batch=batch, user=researcher)
    rating_uploads.ratings_upload_discard(first)
    changed = _reader(_body([rating(0, "ann_y", id="b_000", scores=(5, 5, 5, 5))]))
    for update, expected in ((False, "failed"), (True, "succeeded")):
        upload = rating_uploads.ratings_body_keep(changed())
        job = rating_uploads.ratings_upload_enqueue(upload=upload, batch=batch, user=researcher, dry_run=True,
                                                    update=update, surface="page")  # fmt: skip
        job = job_run(job_id=job.id)
        assert job.status == expected, job.error
        if not update:
            (problem,) = job.result["problems"]
            assert "the option “Replace ratings that differ”" in problem["message"]
        else:
            assert job.result["dry_run"] is True and job.result["updated"] == 1
    assert Annotation.objects.get().social_score == 1  # dry runs: nothing changed
    assert not any(p.is_file() for p in tmp_path.rglob("*"))
    assert Job.objects.filter(status=Job.Status.FAILED).count() == 1


def _reader(data: bytes):
    def make():
        chunks = iter([data])
        return lambda n: next(chunks, b"")

    return make
