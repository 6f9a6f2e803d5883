"""``POST /api/experiment/batch/`` with a large trial log (issue 42): 202 with the job; a worker imports it."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from core.job_runner import job_run
from core.models import Job
from layer3.demo.generator import generate_trials
from layer3.io.upload_jobs import TRIALS_UPLOAD
from layer3.models import Batch, TrialLog

pytestmark = pytest.mark.django_db
URL = "/api/experiment/batch/"


def jsonl(trials) -> bytes:
    return "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in trials).encode()


@pytest.fixture
def api(client, researcher, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    settings.LAYER3_UPLOAD_JOB_BYTES = 10_000
    client.force_login(researcher)
    return client


def kept(tmp_path) -> list:
    folder = tmp_path / "uploads" / "trials"
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def test_a_large_file_is_answered_202_with_the_job_and_nothing_is_parsed(api, tmp_path, monkeypatch):
    from layer3.api import views

    monkeypatch.setattr(views, "trials_import", lambda **kw: pytest.fail("the web request parsed the log"))
    data = jsonl(generate_trials(20, seed=5, broken_share=0.0))
    response = api.post(URL, {"name": "big", "experimentId": "e1", "file": SimpleUploadedFile("big.jsonl", data)})
    assert response.status_code == 202, response.content
    body = response.json()
    job = Job.objects.get(kind=TRIALS_UPLOAD)
    assert body["id"] == str(job.pk) and body["kind"] == TRIALS_UPLOAD and body["status"] == "queued"
    assert response["Location"] == body["url"] == f"/api/v1/annotation/jobs/{job.pk}/"
    assert {"progress", "label", "summary", "summary_url", "kept", "queue", "params", "result"} <= set(body)
    assert "file" not in body["params"] and body["params"]["name"] == "big.jsonl"  # no server paths
    assert body["params"]["batch_name"] == "big" and body["params"]["experiment_id"] == "e1"
    assert not Batch.objects.exists() and len(kept(tmp_path)) == 1


def test_the_job_imports_the_file_and_its_api_answer_links_the_batch(api, tmp_path):
    data = jsonl(generate_trials(20, seed=5, broken_share=0.0))
    api.post(URL, {"name": "big", "file": SimpleUploadedFile("big.jsonl", data)})
    job = job_run(job_id=Job.objects.get(kind=TRIALS_UPLOAD).pk)
    assert job.status == "succeeded", job.error
    batch = Batch.objects.get(name="big")
    assert batch.trials.count() == 20 and kept(tmp_path) == []
    body = api.get(f"/api/v1/annotation/jobs/{job.pk}/").json()
    assert body["result"]["batch_id"] == batch.pk and body["result"]["created"] == 20
    assert body["summary_url"] == f"/research/layer3/{batch.pk}/"


def test_a_large_file_with_its_catalogue_keeps_both_for_the_worker(api, tmp_path):
    data = jsonl(generate_trials(20, seed=5, broken_share=0.0))
    catalogue = SimpleUploadedFile("widgets.json", json.dumps(["mind_map", "slider", "chart"]).encode())
    api.post(URL, {"name": "big", "file": SimpleUploadedFile("big.jsonl", data), "widgetCatalogue": catalogue})
    assert len(kept(tmp_path)) == 2
    job = job_run(job_id=Job.objects.get(kind=TRIALS_UPLOAD).pk)
    assert job.status == "succeeded", job.error
    assert Batch.objects.get(name="big").widget_catalogue == ["mind_map", "slider", "chart"]
    assert kept(tmp_path) == []


def test_a_large_bad_file_fails_its_job_with_the_located_problems_and_stores_nothing(api, tmp_path):
    trials = generate_trials(20, seed=5, broken_share=0.0)
    del trials[2]["modelConfig"]
    api.post(URL, {"name": "big", "file": SimpleUploadedFile("big.jsonl", jsonl(trials))})
    job = job_run(job_id=Job.objects.get(kind=TRIALS_UPLOAD).pk)
    assert job.status == "failed"
    body = api.get(f"/api/v1/annotation/jobs/{job.pk}/").json()
    problem = body["result"]["problems"][0]
    assert (problem["file"], problem["line"], problem["path"]) == ("big.jsonl", 3, "$.modelConfig")
    assert "Nothing of the file was stored" in body["kept"] or body["kept"]
    assert not Batch.objects.exists() and TrialLog.objects.count() == 0 and kept(tmp_path) == []


def test_a_small_file_keeps_its_201_and_200(api):
    data = jsonl(generate_trials(2, seed=5, broken_share=0.0))
    assert len(data) < 10_000
    first = api.post(URL, {"name": "small", "file": SimpleUploadedFile("s.jsonl", data)})
    assert first.status_code == 201 and first.json()["data"]["created"] == 2
    again = api.post(URL, {"name": "small", "file": SimpleUploadedFile("s.jsonl", data)})
    assert again.status_code == 200 and again.json()["data"]["unchanged"] == 2
    assert not Job.objects.exists()


def test_a_file_over_the_upload_limit_is_still_a_413_and_queues_nothing(api, settings):
    settings.UPLOAD_MAX_BYTES_TRIALS = 3000
    data = jsonl(generate_trials(20, seed=5))
    response = api.post(URL, {"name": "big", "file": SimpleUploadedFile("big.jsonl", data)})
    assert response.status_code == 413 and not Job.objects.exists()


def test_the_schema_documents_the_202_with_the_job():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    responses = schema["paths"]["/api/experiment/batch/"]["post"]["responses"]
    assert {"200", "201", "202", "400", "413", "507"} <= set(responses)
    assert responses["202"]["content"]["application/json"]["schema"]["$ref"].endswith("/Job")
    assert "LAYER3_UPLOAD_JOB_BYTES" in schema["paths"]["/api/experiment/batch/"]["post"]["description"]
