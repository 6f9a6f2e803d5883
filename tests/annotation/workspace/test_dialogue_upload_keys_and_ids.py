"""Dialogue uploads on the pages (new batch, add dialogues, the large-file job): an unknown top-level key or an
unsafe id is a listed problem and nothing is stored; *Ignore unknown fields* leaves the keys out and says which."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

import annotation.workspace.uploads as uploads
from annotation.models import Batch, Dialogue
from core.job_display import job_summary
from core.job_runner import job_run
from core.models import Job
from tests.annotation.conftest import dialogue

pytestmark = pytest.mark.django_db


def _file(rows) -> SimpleUploadedFile:
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return SimpleUploadedFile("d.jsonl", text.encode("utf-8"), content_type="application/jsonl")


def _create(client, rows, **fields):
    data = {"name": "new_batch", "annotations_per_item": "2", **fields}
    return client.post("/research/batches/new/", {**data, "file": _file(rows)})


def test_a_new_batch_refuses_an_unknown_key_and_an_unsafe_id(researcher_client):
    rows = [dialogue(0, source="<b>crawl</b>"), dialogue(1, id="@x"), dialogue(2, id="a\tb")]
    response = _create(researcher_client, rows)
    html = response.content.decode()
    assert response.status_code == 400
    assert 'data-line="1" data-path="$.source"' in html and "the option “Ignore unknown fields”" in html
    assert 'data-line="2" data-path="$.id"' in html and "formula injection" in html
    assert 'data-line="3" data-path="$.id"' in html and "U+0009 (tab)" in html
    assert not Batch.objects.exists() and not Dialogue.objects.exists()


def test_a_new_batch_ignores_unknown_keys_when_asked_and_says_which(researcher_client):
    response = _create(researcher_client, [dialogue(0, source="crawl"), dialogue(1)], ignore_unknown_keys="on")
    assert response.status_code == 302
    assert "Unknown fields ignored: source ×1." in researcher_client.get(response["Location"]).content.decode()
    assert Dialogue.objects.count() == 2


def test_adding_dialogues_takes_the_option_and_the_job_too(researcher_client, monkeypatch):
    assert _create(researcher_client, [dialogue(0)]).status_code == 302
    batch = Batch.objects.get()
    url = f"/research/batches/{batch.pk}/"
    rows = [dialogue(i, lang="ja") for i in range(1, 5)]
    response = researcher_client.post(url, {"file": _file(rows)})
    assert response.status_code == 400 and 'data-path="$.lang"' in response.content.decode()
    monkeypatch.setattr(uploads, "LARGE_UPLOAD_LINES", 3)
    response = researcher_client.post(url, {"file": _file(rows), "ignore_unknown_keys": "on"})
    assert response.status_code == 302
    job = Job.objects.get()
    assert job.params["ignore_unknown_keys"] is True
    job = job_run(job_id=job.pk)
    assert job.status == "succeeded", job.error
    assert job.result["ignored_keys"] == {"lang": 4} and Dialogue.objects.count() == 5
    assert "Unknown fields ignored: lang ×4." in job_summary(job)[0]
