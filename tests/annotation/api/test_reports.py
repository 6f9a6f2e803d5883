"""``reports/`` and ``batches/{id}/reports/``: stored agreement reports, and queueing a new one as a job."""

import pytest
from django.core.management import call_command

import annotation.job_handlers  # noqa: F401  (registers the annotation.agreement_report job kind)
from annotation.job_handlers import AGREEMENT_REPORT
from annotation.models import AgreementReport, Batch
from annotation.services import agreement_report_create
from core.job_runner import job_run
from core.models import Job
from tests.annotation.api.support import API, make_batch, post, token_client, walk
from tests.annotation.conftest import dialogue, rating

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(jsonl):
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(8)])), batch="rated")
    rows = [rating(i, who, scores=(1 + i % 5, 1 + i % 3, 1 + i % 2, 1)) for i in range(8) for who in ("ann_a", "ann_b")]
    call_command("import_annotations", str(jsonl(rows)))
    return Batch.objects.get(name="rated")


@pytest.mark.parametrize(
    ("method", "url"), [("get", "reports/"), ("get", "reports/1/"), ("post", "batches/1/reports/")]
)
def test_anonymous_gets_401_and_annotators_403(client, ann, method, url):
    assert getattr(client, method)(API + url).status_code == 401
    response = getattr(ann, method)(API + url)
    assert response.status_code == 403 and "researcher role" in response.json()["error"]


def test_reports_are_listed_newest_first_with_kappas_and_filtered_by_batch(res, researcher, batch):
    other = make_batch("other", n_items=0)
    older = agreement_report_create(batch=batch, user=researcher, n_boot=0)
    newer = agreement_report_create(batch=batch, n_boot=0)
    AgreementReport.objects.create(batch=other, source="batch other", passed=False, report={"axes": {}})
    body = res.get(API + f"reports/?batch={batch.pk}").json()
    assert [r["id"] for r in body["results"]] == [newer.pk, older.pk]
    row = body["results"][1]
    assert row["batch"] == batch.pk and row["created_by"] == "res_001" and row["parameters"]["n_boot"] == 0
    assert row["kappa"]["social"] == pytest.approx(older.axis_kappa("social")) and "report" not in row
    assert len(walk(res, API + "reports/")) == 3
    assert res.get(API + "reports/?batch=x").json()["field"] == "batch"


def test_a_report_is_the_stored_json(res, batch):
    stored = agreement_report_create(batch=batch, n_boot=0)
    body = res.get(API + f"reports/{stored.pk}/").json()
    assert body["report"] == stored.report and body["passed"] == stored.passed
    assert res.get(API + "reports/999/").status_code == 404


def test_posting_queues_the_agreement_job_and_the_job_makes_the_report(
    res, researcher, batch, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: sent.append(job_id))
    with django_capture_on_commit_callbacks(execute=True):
        response = post(res, API + f"batches/{batch.pk}/reports/", {"n_boot": 0})
    assert response.status_code == 202
    job = Job.objects.get()
    assert (job.kind, job.params, job.created_by) == (AGREEMENT_REPORT, {"batch_id": batch.pk, "n_boot": 0}, researcher)
    assert sent == [str(job.id)] and response.json()["id"] == str(job.id) and response.json()["status"] == "queued"
    assert response["Location"] == f"{API}jobs/{job.id}/"
    job_run(job_id=job.id)
    shown = res.get(response["Location"]).json()
    report = AgreementReport.objects.get()
    assert shown["status"] == "succeeded" and shown["result"]["report_id"] == report.pk
    assert f"#{report.pk}" in shown["summary"] and report.batch == batch


def test_the_default_and_bad_bootstrap_counts(res, batch):
    assert post(res, API + f"batches/{batch.pk}/reports/").status_code == 202
    assert Job.objects.get().params["n_boot"] == 1000
    for bad in (-1, 10_001, "many"):
        response = post(res, API + f"batches/{batch.pk}/reports/", {"n_boot": bad})
        assert response.status_code == 400 and response.json()["field"] == "n_boot"
    assert Job.objects.count() == 1


def test_a_batch_without_ratings_is_refused_with_409(res):
    empty = make_batch("empty")
    response = post(res, API + f"batches/{empty.pk}/reports/")
    assert response.status_code == 409 and "no ratings" in response.json()["error"]
    assert post(res, API + "batches/999/reports/").status_code == 404
    assert not Job.objects.exists()


def test_scripts_queue_reports_with_a_token(researcher, batch):
    assert post(token_client(researcher), API + f"batches/{batch.pk}/reports/", {"n_boot": 0}).status_code == 202
