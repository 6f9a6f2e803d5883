"""``jobs/``: researchers see every job, everyone else their own, with labels and summaries in people's words."""

import uuid

import pytest
from django.utils import timezone

import annotation.job_handlers  # noqa: F401  (registers the annotation.agreement_report job kind)
from core.models import Job
from tests.annotation.api.support import API, logged_in, token_client, walk

pytestmark = pytest.mark.django_db


@pytest.fixture
def jobs(researcher, qualified):
    done = Job.objects.create(
        kind="annotation.agreement_report",
        params={"batch_id": 3, "n_boot": 0},
        status="succeeded",
        created_by=researcher,
        progress_done=1,
        progress_total=1,
        result={"report_id": 12, "batch_id": 3, "passed": True},
        finished_at=timezone.now(),
    )
    own = Job.objects.create(kind="core.worker_ping", created_by=qualified, status="queued")
    return done, own  # fmt: skip


@pytest.mark.parametrize("url", ["jobs/", f"jobs/{uuid.UUID(int=1)}/"])
def test_anonymous_gets_401(client, url):
    assert client.get(API + url).status_code == 401


def test_researchers_see_every_job_with_label_progress_and_summary(res, jobs):
    done, own = jobs
    rows = res.get(API + "jobs/").json()["results"]
    assert [r["id"] for r in rows] == [str(own.pk), str(done.pk)]
    shown = rows[1]
    assert shown["kind"] == "annotation.agreement_report" and shown["label"] not in ("", shown["kind"])
    assert shown["progress"] == {"done": 1, "total": 1, "percent": 100} and shown["status"] == "succeeded"
    assert "#12" in shown["summary"] and shown["summary_url"] == "/research/agreement/?batch=3"
    assert shown["result"] == {"report_id": 12, "batch_id": 3, "passed": True} and shown["finished_at"]
    assert shown["created_by"] == "res_001" and shown["url"] == f"{API}jobs/{done.pk}/"
    assert rows[0]["summary"] is None and rows[0]["progress"]["percent"] is None


def test_others_see_only_their_own_jobs(ann, jobs, outsider):
    done, own = jobs
    assert [r["id"] for r in ann.get(API + "jobs/").json()["results"]] == [str(own.pk)]
    response = ann.get(API + f"jobs/{done.pk}/")
    assert response.status_code == 404 and response.json()["success"] is False
    assert ann.get(API + f"jobs/{own.pk}/").json()["kind"] == "core.worker_ping"
    assert walk(logged_in(outsider), API + "jobs/") == []


def test_filters_by_kind_and_status(res, jobs):
    done, own = jobs
    assert [r["id"] for r in res.get(API + "jobs/?status=queued").json()["results"]] == [str(own.pk)]
    assert [r["id"] for r in res.get(API + "jobs/?kind=annotation.agreement_report").json()["results"]] == [
        str(done.pk)
    ]
    assert res.get(API + "jobs/?status=done").json()["field"] == "status"
    second = res.get(res.get(API + "jobs/?page_size=1").json()["next"]).json()
    assert second["results"][0]["id"] == str(done.pk)


def test_jobs_with_a_token(qualified, jobs):
    assert len(walk(token_client(qualified), API + "jobs/")) == 1
