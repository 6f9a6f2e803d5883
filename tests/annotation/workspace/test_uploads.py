"""A new batch from a JSONL file, and more dialogues for a batch: all or nothing, with every problem listed."""

import json
import logging
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

import annotation.workspace.upload_jobs as upload_jobs
import annotation.workspace.uploads as uploads
from annotation.models import Batch, Dialogue
from core.job_display import job_summary
from core.job_runner import job_run
from core.jobs import Progress
from core.models import Job
from tests.annotation.conftest import dialogue
from tests.annotation.workspace.conftest import HTMX

pytestmark = pytest.mark.django_db

CREATE = "/research/batches/new/"


def _file(rows, name="dialogues.jsonl") -> SimpleUploadedFile:
    text = "".join((row if isinstance(row, str) else json.dumps(row, ensure_ascii=False)) + "\n" for row in rows)
    return SimpleUploadedFile(name, text.encode("utf-8"), content_type="application/jsonl")


def _create(client, rows, **fields):
    data = {"name": "new_batch", "description": "説明", "annotations_per_item": "2", "guidelines_version": "v2.1"}
    data.update(fields)
    return client.post(CREATE, {**data, "file": _file(rows)})


def _uploads_left() -> list:
    folder = Path(settings.VAR_DIR) / uploads.UPLOAD_FOLDER
    return list(folder.glob("*/*")) if folder.exists() else []


BAD_ROWS = [
    dialogue(31),
    {"id": "dialogue_002", "user": "質問"},  # no response
    '{"id": "dialogue_003", "user": "質問", ',  # broken JSON
    dialogue(4, context=[{"turn": 0, "speaker": "user", "text": "x"}]),  # turn 0 is the pair itself
]


def test_a_good_file_creates_the_batch_with_its_settings(researcher_client):
    response = _create(researcher_client, [dialogue(i) for i in range(5)])
    batch = Batch.objects.get(name="new_batch")
    assert response.status_code == 302 and response["Location"] == f"/research/batches/{batch.pk}/"
    assert (batch.annotations_per_item, batch.guidelines_version, batch.description) == (2, "v2.1", "説明")
    assert Dialogue.objects.filter(batch=batch).count() == 5
    page = researcher_client.get(response["Location"]).content.decode()
    assert "5 dialogues imported into batch new_batch." in page
    assert _uploads_left() == []  # the kept copy is removed once imported


def test_a_bad_file_lists_every_problem_with_line_and_json_path_and_stores_nothing(researcher_client):
    response = _create(researcher_client, BAD_ROWS)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-problems="3"' in html
    for line, path in ((2, "$.response"), (3, "$"), (4, "$.context[0].turn")):
        assert f"<code data-where>dialogues.jsonl:{line}</code>" in html
        assert f'data-line="{line}" data-path="{path}"' in html
    assert "missing required field" in html and "invalid JSON" in html
    assert not Batch.objects.filter(name="new_batch").exists()
    assert not Dialogue.objects.exists()
    # The typed values stay in the form.
    assert 'value="new_batch"' in html and 'value="v2.1"' in html and "説明</textarea>" in html
    assert _uploads_left() == []


def test_a_taken_name_is_refused_beside_the_field(researcher_client, batch):
    response = _create(researcher_client, [dialogue(10)], name="ws")
    html = response.content.decode()
    assert response.status_code == 200
    assert "A batch named ws exists already" in html
    assert not Dialogue.objects.filter(external_id="dialogue_010").exists()


def test_a_quota_below_one_is_refused(researcher_client):
    response = _create(researcher_client, [dialogue(1)], annotations_per_item="0")
    assert "Ensure this value is greater than or equal to 1." in response.content.decode()
    assert not Batch.objects.exists()


def test_a_new_batch_of_dialogues_stored_already_is_not_created_empty(researcher_client, batch):
    response = _create(researcher_client, [dialogue(0), dialogue(1)])
    assert response.status_code == 400
    assert "stored already" in response.content.decode()
    assert not Batch.objects.filter(name="new_batch").exists()
    assert Dialogue.objects.get(external_id="dialogue_000").batch == batch


def test_dialogues_are_added_to_a_batch_from_its_page(researcher_client, batch):
    response = researcher_client.post(f"/research/batches/{batch.pk}/", {"file": _file([dialogue(0), dialogue(20)])})
    assert response.status_code == 302
    assert Dialogue.objects.get(external_id="dialogue_020").batch == batch
    page = researcher_client.get(response["Location"]).content.decode()
    assert "1 dialogues imported into batch ws." in page and "1 were stored already" in page


def test_a_bad_file_for_an_existing_batch_stores_nothing_and_lists_the_problems(researcher_client, batch):
    response = researcher_client.post(f"/research/batches/{batch.pk}/", {"file": _file([dialogue(30), *BAD_ROWS])})
    assert response.status_code == 400
    html = response.content.decode()
    assert "<code data-where>dialogues.jsonl:3</code>" in html and 'data-path="$.response"' in html
    assert not Dialogue.objects.filter(external_id__in=["dialogue_030", "dialogue_031"]).exists()


def _large(monkeypatch):
    monkeypatch.setattr(uploads, "LARGE_UPLOAD_LINES", 3)


def test_a_large_file_goes_to_a_job_and_the_job_imports_it(researcher_client, monkeypatch):
    _large(monkeypatch)
    response = _create(researcher_client, [dialogue(i) for i in range(8)])
    batch = Batch.objects.get(name="new_batch")
    job = Job.objects.get(kind=upload_jobs.DIALOGUES_UPLOAD)
    assert response["Location"] == f"/research/batches/{batch.pk}/?job={job.pk}"
    assert batch.annotations_per_item == 2 and batch.guidelines_version == "v2.1"  # the settings, at once
    assert job.params["batch_id"] == batch.pk and job.params["lines"] == 8 and job.params["name"] == "dialogues.jsonl"
    assert not Dialogue.objects.exists()  # the worker stores them
    page = researcher_client.get(response["Location"]).content.decode()
    assert f'hx-get="/research/batches/{batch.pk}/?job={job.pk}"' in page  # the panel polls the job
    listing = researcher_client.get("/research/batches/").content.decode()
    assert "importing…" in listing[listing.index('data-batch="new_batch"') :]

    seen = []
    result = upload_jobs.dialogues_upload(job, Progress(lambda *args: seen.append(args), lambda: False))
    assert result == {"batch_id": batch.pk, "batch_name": "new_batch", "file": "dialogues.jsonl", "created": 8,
                      "updated": 0, "unchanged": 0, "ignored_keys": {}}  # fmt: skip
    assert seen[0][:2] == (0, 8)
    assert Dialogue.objects.filter(batch=batch).count() == 8
    assert _uploads_left() == []
    job.status, job.result = Job.Status.SUCCEEDED, result
    with translation.override("en"):
        assert job_summary(job) == ("8 dialogues imported into batch new_batch.", f"/research/batches/{batch.pk}/")


def test_a_large_file_with_problems_fails_its_job_and_the_batch_page_lists_them(researcher_client, batch, monkeypatch):
    _large(monkeypatch)
    response = researcher_client.post(f"/research/batches/{batch.pk}/", {"file": _file([dialogue(40), *BAD_ROWS])})
    job = Job.objects.get(kind=upload_jobs.DIALOGUES_UPLOAD)
    assert response["Location"] == f"/research/batches/{batch.pk}/?job={job.pk}"
    job_run(job_id=job.pk)  # what the worker does
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "3 problem(s); nothing was stored" in job.error
    assert [(p["line"], p["path"]) for p in job.result["problems"]] == [
        (3, "$.response"),
        (4, "$"),
        (5, "$.context[0].turn"),
    ]
    assert not Dialogue.objects.filter(external_id="dialogue_040").exists()
    poll = researcher_client.get(response["Location"], headers=HTMX)
    html = poll.content.decode()
    assert "<html" not in html and "HX-Refresh" not in poll.headers
    assert "<code data-where>dialogues.jsonl:3</code>" in html and 'data-path="$.context[0].turn"' in html
    page = researcher_client.get(response["Location"]).content.decode()
    assert "<code data-where>dialogues.jsonl:5</code>" in page and "nothing was stored" in page.lower()


def test_a_refused_dialogue_job_is_logged_as_one_warning_line_without_traceback(
    researcher_client, batch, monkeypatch, caplog
):
    _large(monkeypatch)
    researcher_client.post(f"/research/batches/{batch.pk}/", {"file": _file([dialogue(40), *BAD_ROWS])})
    job = Job.objects.get(kind=upload_jobs.DIALOGUES_UPLOAD)
    with caplog.at_level(logging.INFO):
        job_run(job_id=job.pk)
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelno) for r in records] == [("core.job_runner", logging.WARNING)]
    assert records[0].exc_info is None and "Traceback" not in caplog.text


def test_the_batch_page_reloads_itself_when_its_upload_job_succeeded(researcher_client, batch, monkeypatch):
    _large(monkeypatch)
    response = researcher_client.post(
        f"/research/batches/{batch.pk}/", {"file": _file([dialogue(i) for i in range(50, 55)])}
    )
    job = Job.objects.get(kind=upload_jobs.DIALOGUES_UPLOAD)
    running = researcher_client.get(response["Location"], headers=HTMX)
    assert "HX-Refresh" not in running.headers and 'hx-trigger="every 2s"' in running.content.decode()
    job_run(job_id=job.pk)
    done = researcher_client.get(response["Location"], headers=HTMX)
    assert done.headers["HX-Refresh"] == "true"
    assert Dialogue.objects.filter(batch=batch, external_id__startswith="dialogue_05").count() == 5
    page = researcher_client.get(response["Location"]).content.decode()
    assert 'data-count="items">11<' in page
    assert "5 dialogues imported into batch ws." in page  # the job's summary, with its link


def test_a_job_for_another_batch_or_no_job_is_not_found(researcher_client, batch):
    assert researcher_client.get(f"/research/batches/{batch.pk}/?job=not-a-uuid").status_code == 404
    assert (
        researcher_client.get(f"/research/batches/{batch.pk}/?job=6f1c1c8e-9d5e-4d43-9a55-0d6f1f1b2c3d").status_code
        == 404
    )
