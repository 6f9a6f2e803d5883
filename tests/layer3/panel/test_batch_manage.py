"""Renaming and deleting a Layer3 batch from its page (issue 42): the name rule, the confirmation, the ledger."""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from layer3.models import Batch, Layer3Run, Layer3RunProblem, Layer3RunResult, TrialLog
from llm.models import LLMCall, LLMRun

pytestmark = pytest.mark.django_db
SCRIPT = "<script>alert(1)</script>"


@pytest.fixture
def batch(db):
    """Four trials, two of them judged; two runs (one with a problem); LLM ledger rows of the judge's calls."""
    batch = Batch.objects.create(name="pilot", experiment_id="e")
    for i in range(4):
        metrics = {"graphComplexity": {}}
        if i < 2:
            metrics["generatedValueRelevance" if i == 0 else "w2wrSemanticCorrectness"] = {"avgScore": 1.5}
        TrialLog.objects.create(batch=batch, external_id=f"t{i}", model_config="A", stage=3, input_text="x",
                                generated_data={}, layer3_metrics=metrics)  # fmt: skip
    TrialLog.objects.create(batch=batch, external_id="t9", model_config="B", stage=3, input_text="x",
                            generated_data={})  # fmt: skip
    done = dict(status="succeeded", finished_at=timezone.now())
    first = Layer3Run.objects.create(batch=batch, options={}, **done)
    Layer3Run.objects.create(batch=batch, options={}, **done)
    Layer3RunProblem.objects.create(run=first, trial=batch.trials.first(), external_id="t0", kind="spec",
                                    message="m")  # fmt: skip
    for trial in batch.trials.all():  # the runs' snapshots of their trials (layer3.runs.snapshots)
        Layer3RunResult.objects.create(run=first, trial=trial, metrics=trial.layer3_metrics)
    run = LLMRun.objects.create(prompt="layer3.gv_relevance@1", model="m", cost_jpy=12.5)
    LLMCall.objects.create(cache_key="k" * 64, run=run, prompt="layer3.gv_relevance@1", model="m", endpoint="e",
                           request={}, status="ok", cost_jpy=12.5)  # fmt: skip
    return batch


@pytest.fixture
def page(client, researcher):
    client.force_login(researcher)
    client.cookies["django_language"] = "en"
    return client


def rename(client, batch, name):
    return client.post(reverse("layer3:batch-rename", args=[batch.pk]), {"name": name})


def test_the_batch_page_offers_rename_and_delete(page):
    batch = Batch.objects.create(name="fresh")
    html = page.get(reverse("layer3:batch", args=[batch.pk])).content.decode()
    assert f'action="{reverse("layer3:batch-rename", args=[batch.pk])}"' in html
    assert f'href="{reverse("layer3:batch-delete", args=[batch.pk])}"' in html


def test_a_rename_is_stored_and_said(page, batch):
    response = rename(page, batch, "pilot-2")
    assert response.status_code == 302 and response.url == reverse("layer3:batch", args=[batch.pk])
    batch.refresh_from_db()
    assert batch.name == "pilot-2"
    assert "Batch pilot renamed to pilot-2." in page.get(response.url).content.decode()


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("other", "Another batch is already named other; choose another name."),
        ("12345", "digits"),
        ("a/b", "/"),
        ("", "name"),
        ("x" * 101, "100"),
    ],
)
def test_a_rename_to_a_taken_or_invalid_name_is_refused_with_a_clear_error(page, batch, name, said):
    Batch.objects.create(name="other")
    response = rename(page, batch, name)
    html = response.content.decode()
    assert response.status_code == 400 and "data-error" in html and said in html
    batch.refresh_from_db()
    assert batch.name == "pilot"


def test_rename_and_delete_are_refused_while_a_run_is_in_flight(page, batch):
    Layer3Run.objects.create(batch=batch, options={}, status="queued")
    response = rename(page, batch, "pilot-2")
    assert response.status_code == 409 and "queued or running" in response.content.decode()
    confirm = page.get(reverse("layer3:batch-delete", args=[batch.pk])).content.decode()
    assert "data-busy" in confirm and "disabled" in confirm
    response = page.post(reverse("layer3:batch-delete", args=[batch.pk]))
    assert response.status_code == 409 and "queued or running" in response.content.decode()
    assert Batch.objects.filter(name="pilot").exists() and TrialLog.objects.count() == 5


@pytest.mark.parametrize("status", ["queued", "running"])
def test_rename_and_delete_are_refused_while_an_upload_into_the_batch_is_in_flight(page, batch, status):
    """A queued upload names its batch: after a rename it would create a new batch under the old name."""
    from core.models import Job
    from layer3.io.uploads import TRIALS_UPLOAD

    job = Job.objects.create(kind=TRIALS_UPLOAD, status=status, params={"batch_name": "pilot"})
    Job.objects.create(kind=TRIALS_UPLOAD, status="queued", params={"batch_name": "other"})  # another batch's
    response = rename(page, batch, "pilot-2")
    assert response.status_code == 409 and "upload into this batch" in response.content.decode()
    response = page.post(reverse("layer3:batch-delete", args=[batch.pk]))
    assert response.status_code == 409 and "upload into this batch" in response.content.decode()
    assert Batch.objects.filter(name="pilot").exists() and TrialLog.objects.count() == 5
    Job.objects.filter(pk=job.pk).update(status="succeeded")
    assert rename(page, batch, "pilot-2").status_code == 302


def test_a_batch_judge_audits_were_drawn_from_keeps_its_name(page, batch, monkeypatch):
    from layer3 import batch_services

    monkeypatch.setattr(batch_services, "calibration_reports", lambda name: [{"audit": {"id": 1}}])
    response = rename(page, batch, "pilot-2")
    assert response.status_code == 409 and "Judge audits were drawn from this batch" in response.content.decode()
    confirm = page.get(reverse("layer3:batch-delete", args=[batch.pk])).content.decode()
    assert "data-kept-audits" in confirm and "1 judge audit drawn from this batch" in confirm


def test_the_confirmation_says_what_goes_and_that_the_ledger_stays(page, batch):
    html = page.get(reverse("layer3:batch-delete", args=[batch.pk])).content.decode()
    assert "Delete batch pilot?" in html
    assert "5 trials" in html and "of them 2 with judged results" in html and "2 evaluation runs" in html
    assert "The LLM cost ledger keeps every row" in html and "This cannot be undone." in html
    assert 'method="post"' in html and "csrfmiddlewaretoken" in html
    assert Batch.objects.filter(pk=batch.pk).exists()  # asking deletes nothing


def test_delete_removes_trials_and_runs_but_keeps_the_llm_ledger(page, batch):
    other = Batch.objects.create(name="other")
    TrialLog.objects.create(batch=other, external_id="t0", model_config="A", stage=3, input_text="x",
                            generated_data={})  # fmt: skip
    response = page.post(reverse("layer3:batch-delete", args=[batch.pk]))
    assert response.status_code == 302 and response.url == reverse("layer3:batches")
    assert not Layer3RunResult.objects.exists()
    assert not Batch.objects.filter(pk=batch.pk).exists()
    assert TrialLog.objects.filter(batch_id=batch.pk).count() == 0 and TrialLog.objects.count() == 1
    assert Layer3Run.objects.count() == 0 and Layer3RunProblem.objects.count() == 0
    assert LLMRun.objects.count() == 1 and LLMCall.objects.count() == 1  # the ledger is not cascaded
    assert LLMRun.objects.get().cost_jpy == 12.5
    assert "Batch pilot deleted with its 5 trials and 2 runs." in page.get(response.url).content.decode()


def test_hostile_names_are_escaped(page, batch):
    batch.name = "b" + SCRIPT.replace("/", "")
    batch.save()
    for url in (reverse("layer3:batch-delete", args=[batch.pk]), reverse("layer3:batch-rename", args=[batch.pk])):
        html = page.get(url).content.decode()
        assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    html = rename(page, batch, "a/" + SCRIPT).content.decode()
    assert "<script>alert(1)" not in html


def test_annotators_get_403_and_anonymous_users_the_login_page(client, annotator, batch):
    urls = [reverse("layer3:batch-rename", args=[batch.pk]), reverse("layer3:batch-delete", args=[batch.pk])]
    for url in urls:
        assert client.get(url).status_code == 302 and client.post(url, {"name": "x"}).status_code == 302
    client.force_login(annotator)
    for url in urls:
        assert client.get(url).status_code == 403 and client.post(url, {"name": "x"}).status_code == 403
    batch.refresh_from_db()
    assert batch.name == "pilot" and TrialLog.objects.count() == 5


def test_rename_and_delete_need_the_csrf_token(researcher, batch):
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    assert rename(client, batch, "pilot-2").status_code == 403
    assert client.post(reverse("layer3:batch-delete", args=[batch.pk])).status_code == 403
    batch.refresh_from_db()
    assert batch.name == "pilot"
