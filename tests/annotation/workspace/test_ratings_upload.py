"""The batch page's "Upload ratings (JSONL)": ``manage.py import_annotations``'s import, restricted to the batch."""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.io import rating_uploads
from annotation.models import Annotation, Batch
from core.job_runner import job_run
from core.models import Job
from tests.annotation.conftest import rating
from tests.annotation.workspace.conftest import HTMX

pytestmark = pytest.mark.django_db


def _file(rows, name="ratings.jsonl") -> SimpleUploadedFile:
    text = "".join((row if isinstance(row, str) else json.dumps(row, ensure_ascii=False)) + "\n" for row in rows)
    return SimpleUploadedFile(name, text.encode("utf-8"), content_type="application/x-ndjson")


def _upload(client, batch, rows, **options):
    data = {"ratings-file": _file(rows), **{f"ratings-{k}": "on" for k, v in options.items() if v}}
    return client.post(f"/research/batches/{batch.pk}/ratings/", data)


def _kept() -> list[Path]:
    folder = Path(settings.VAR_DIR) / rating_uploads.UPLOAD_FOLDER
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def test_the_batch_page_offers_the_upload(researcher_client, batch):
    html = researcher_client.get(f"/research/batches/{batch.pk}/").content.decode()
    assert 'data-card="ratings-upload"' in html and "Upload ratings (JSONL)" in html
    assert f'action="/research/batches/{batch.pk}/ratings/"' in html
    assert 'name="ratings-file"' in html and 'name="ratings-dry_run"' in html and 'name="ratings-update"' in html


def test_a_good_file_is_stored_with_a_summary(researcher_client, batch):
    rows = [rating(3, "ann_new1"), rating(2, "ann_b")]
    response = _upload(researcher_client, batch, rows)
    assert response.status_code == 302 and response["Location"] == f"/research/batches/{batch.pk}/"
    assert Annotation.objects.filter(dialogue__external_id="dialogue_003").count() == 1
    page = researcher_client.get(response["Location"]).content.decode()
    assert "ratings.jsonl: 2 ratings stored, 0 replaced, 0 stored already." in page
    assert "1 annotator account was created for an annotator id seen only in the file." in page
    assert _kept() == []


def test_a_dry_run_stores_nothing_and_says_what_would_be_stored(researcher_client, batch):
    before = Annotation.objects.count()
    response = _upload(researcher_client, batch, [rating(3, "ann_new1")], dry_run=True)
    assert response.status_code == 302 and Annotation.objects.count() == before
    page = researcher_client.get(response["Location"]).content.decode()
    assert "Dry run of ratings.jsonl, nothing was stored: 1 new ratings" in page
    assert "1 annotator account would be created." in page


def test_problems_are_listed_located_and_escaped_and_nothing_is_stored(researcher_client, batch):
    other = Batch.objects.create(name="other")
    other.dialogues.create(external_id="elsewhere", user_text="u", response_text="r")
    before = Annotation.objects.count()
    rows = [
        rating(3, "ann_new1"),
        rating(3, "<script>alert(1)</script>"),
        rating(0, "ann_x", id="elsewhere"),
        rating(0, "ann_a", scores=(5, 5, 5, 5)),
    ]
    response = _upload(researcher_client, batch, rows)
    html = response.content.decode()
    assert response.status_code == 400
    assert Annotation.objects.count() == before
    table = html[html.index('id="ratings-problems"') :]
    assert "ratings.jsonl: 3 problems found. Nothing was stored." in table  # every problem at once
    assert 'data-line="2" data-path="$.annotator_id"' in table
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in table and "<script>alert(1)" not in html
    assert 'data-line="3" data-path="$.id"' in table and "belongs to batch &#x27;other&#x27;" in table
    assert 'data-line="4" data-path="$"' in table  # the values of the lines that can be checked are compared too
    assert "use the option “Replace ratings that differ” to replace the stored rating" in table
    assert _kept() == []
    response = _upload(researcher_client, batch, rows[:1] + rows[3:])
    table = response.content.decode()[response.content.decode().index('id="ratings-problems"') :]
    assert response.status_code == 400 and 'data-line="2" data-path="$"' in table
    assert "use the option “Replace ratings that differ” to replace the stored rating" in table
    assert Annotation.objects.count() == before


def test_update_replaces_a_differing_rating(researcher_client, batch):
    response = _upload(researcher_client, batch, [rating(0, "ann_a", scores=(5, 5, 5, 5))], update=True)
    assert response.status_code == 302
    assert Annotation.objects.get(dialogue__external_id="dialogue_000", annotator__username="ann_a").social_score == 5


def test_an_empty_file_and_a_file_over_the_limit(researcher_client, batch, settings):
    response = researcher_client.post(
        f"/research/batches/{batch.pk}/ratings/", {"ratings-file": SimpleUploadedFile("e.jsonl", b"\n")}
    )
    assert response.status_code == 400 and "no ratings in this file" in response.content.decode()
    settings.UPLOAD_MAX_BYTES_RATINGS = 100
    response = _upload(researcher_client, batch, [rating(3, "ann_new1")] * 3)
    assert response.status_code == 413 and "UPLOAD_MAX_BYTES_RATINGS" in response.content.decode()


def test_only_researchers_and_a_post_with_the_csrf_token(client, annotator_client, csrf_client, batch):
    url = f"/research/batches/{batch.pk}/ratings/"
    assert client.post(url, {})["Location"].startswith("/login/")
    assert annotator_client.post(url, {}).status_code == 403
    assert csrf_client.post(url, {"ratings-file": _file([rating(3, "ann_new1")])}).status_code == 403
    assert csrf_client.get(url)["Location"] == f"/research/batches/{batch.pk}/#ratings-upload"  # a reload


def test_a_large_file_is_a_job_whose_progress_and_result_the_batch_page_shows(
    researcher_client, batch, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(rating_uploads, "LARGE_UPLOAD_LINES", 1)
    monkeypatch.setattr("core.services.run_job.delay", lambda job_id: None)
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(researcher_client, batch, [rating(3, "ann_new1"), rating(3, "ann_new2")])
    job = Job.objects.get(kind=rating_uploads.RATINGS_UPLOAD)
    assert response.status_code == 302 and response["Location"] == f"/research/batches/{batch.pk}/?job={job.pk}"
    assert job.params["batch_id"] == batch.pk and job.params["surface"] == "page" and len(_kept()) == 1
    page = researcher_client.get(response["Location"]).content.decode()
    assert "Import of ratings.jsonl" in page and "is being imported by a worker" in page
    assert 'hx-trigger="every 2s"' in page
    job_run(job_id=job.pk)
    poll = researcher_client.get(response["Location"], headers=HTMX)
    assert poll["HX-Refresh"] == "true"
    page = researcher_client.get(response["Location"]).content.decode()
    assert "ratings.jsonl: 2 ratings stored" in page
    assert Annotation.objects.filter(dialogue__external_id="dialogue_003").count() == 2 and _kept() == []


def test_a_large_file_with_problems_lists_them_from_the_job(researcher_client, batch, monkeypatch):
    monkeypatch.setattr(rating_uploads, "LARGE_UPLOAD_LINES", 1)
    monkeypatch.setattr("core.services.run_job.delay", lambda job_id: None)
    _upload(researcher_client, batch, [rating(3, "ann_new1"), rating(3, "ann_new2", id="nowhere")])
    job = Job.objects.get(kind=rating_uploads.RATINGS_UPLOAD)
    job_run(job_id=job.pk)
    html = researcher_client.get(f"/research/batches/{batch.pk}/?job={job.pk}", headers=HTMX).content.decode()
    assert 'data-job-status="failed"' in html and 'data-line="2" data-path="$.id"' in html
    assert "unknown dialogue id &#x27;nowhere&#x27;" in html
