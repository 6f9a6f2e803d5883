"""The Layer3 upload page (issue 42): a trial log from the browser, small ones at once, large ones as a job."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from core.job_runner import job_run
from core.models import Job
from layer3.demo.generator import generate_trials
from layer3.io.upload_jobs import TRIALS_UPLOAD
from layer3.models import Batch, TrialLog

pytestmark = pytest.mark.django_db
SCRIPT = "<script>alert(1)</script>"


def jsonl(trials) -> bytes:
    return "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in trials).encode()


def bad_file() -> bytes:
    """Line 2 nested 100 levels deep, line 3 without modelConfig, line 4 with a lone surrogate."""
    trials = generate_trials(4, seed=1, broken_share=0.0)
    lines = [json.dumps(trials[0], ensure_ascii=False)]
    deep = "[" * 100 + "]" * 100
    lines.append(f'{{"id": "t2", "modelConfig": "A", "stage": 3, "inputText": "x", "generatedData": {deep}}}')
    missing = dict(trials[2])
    del missing["modelConfig"]
    lines.append(json.dumps(missing, ensure_ascii=False))
    lines.append(json.dumps(trials[3], ensure_ascii=False).replace('"inputText": "', '"inputText": "\\ud800', 1))
    return ("\n".join(lines) + "\n").encode()


def counts() -> tuple[int, int, int]:
    return Batch.objects.count(), TrialLog.objects.count(), Job.objects.count()


@pytest.fixture
def page(client, researcher, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    client.force_login(researcher)
    client.cookies["django_language"] = "en"
    return client


def post(client, data: bytes, name="pilot", *, filename="trials.jsonl", **fields):
    body = {"file": SimpleUploadedFile(filename, data), "name": name, **fields}
    return client.post(reverse("layer3:upload"), body)


def kept_files(tmp_path) -> list:
    folder = tmp_path / "uploads" / "trials"
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def test_the_layer3_page_links_to_the_upload_page(page):
    html = page.get(reverse("layer3:batches")).content.decode()
    assert f'href="{reverse("layer3:upload")}"' in html and 'data-link="upload"' in html


def test_the_page_has_a_drop_zone_that_is_a_file_input_and_no_inline_script(page):
    html = page.get(reverse("layer3:upload")).content.decode()
    assert "data-drop-zone" in html and 'type="file" name="file"' in html and "js/layer3_upload.js" in html
    assert "<script>" not in html and " onclick=" not in html and " style=" not in html
    for field in ('name="name"', 'name="experiment_id"', 'name="widget_catalogue"', 'name="dry_run"'):
        assert field in html


def test_a_good_file_creates_the_batch_and_opens_it_with_a_summary(page, tmp_path):
    response = post(page, jsonl(generate_trials(12, seed=2, broken_share=0.0)), experiment_id="exp-1")
    batch = Batch.objects.get(name="pilot")
    assert response.status_code == 302 and response.url == reverse("layer3:batch", args=[batch.pk])
    assert batch.experiment_id == "exp-1" and batch.trials.count() == 12
    html = page.get(response.url).content.decode()
    assert "12 trials stored in batch pilot; 0 were stored already." in html
    again = post(page, jsonl(generate_trials(12, seed=2, broken_share=0.0)), experiment_id="exp-1")
    assert again.status_code == 302 and TrialLog.objects.count() == 12
    assert "all 12 trials were stored already" in page.get(again.url).content.decode()
    assert kept_files(tmp_path) == []


def test_the_summary_names_the_widget_types_added_and_the_trials_recomputed(page, monkeypatch):
    from layer3.io import uploads
    from layer3.io.imports import TrialImportSummary

    def importing(**kwargs):
        return TrialImportSummary(created=3, unchanged=2, widget_types_added=("mind_map", "slider"), recomputed=7)

    Batch.objects.create(name="pilot")
    monkeypatch.setattr(uploads, "trials_import", importing)
    response = post(page, jsonl(generate_trials(3, seed=2)))
    html = page.get(response.url).content.decode()
    assert "now counted in |W| (the denominator of widget diversity): mind_map, slider" in html
    assert "the widget diversity of 7 stored trials changed and was recomputed" in html


def test_a_new_batch_names_its_types_outside_the_catalogue_without_a_recompute(page):
    trials = generate_trials(3, seed=2)
    for trial in trials:
        trial["generatedData"] = {"widgets": [{"id": "w1", "component": "custom_chart", "config": {}}],
                                  "reactiveBindings": {"bindings": []}}  # fmt: skip
    response = post(page, jsonl(trials))
    html = page.get(response.url).content.decode()
    assert (
        "Widget types outside the catalogue counted in |W| (the denominator of widget diversity): custom_chart." in html
    )
    assert "recomputed" not in html


def test_a_dry_run_shows_what_would_be_stored_and_stores_nothing(page, tmp_path):
    before = counts()
    response = post(page, jsonl(generate_trials(5, seed=2)), dry_run="on")
    html = response.content.decode()
    assert response.status_code == 200 and "data-dry-run" in html
    assert "nothing was stored: 5 trials would be stored in batch pilot, 0 are stored already." in html
    assert counts() == before and kept_files(tmp_path) == []


def test_a_bad_file_lists_each_located_problem_and_stores_nothing(page, tmp_path):
    Batch.objects.create(name="pilot")
    before = counts()
    response = post(page, bad_file(), filename="bad.jsonl")
    html = response.content.decode()
    assert response.status_code == 400
    assert 'data-problems="3"' in html and "bad.jsonl: 3 problems found. Nothing was stored." in html
    assert "<code data-where>bad.jsonl:2</code>" in html and "nested more than 64 levels deep" in html
    assert "<code data-where>bad.jsonl:3</code>" in html and "<code>$.modelConfig</code>" in html
    assert "missing required field" in html
    assert "<code data-where>bad.jsonl:4</code>" in html and "<code>$.inputText</code>" in html
    assert "lone surrogate" in html
    assert counts() == before and kept_files(tmp_path) == []


def test_the_problems_are_in_japanese_by_default(page):
    del page.cookies["django_language"]
    html = post(page, bad_file(), filename="bad.jsonl").content.decode()
    assert "試行ログをアップロード" in html and "<code data-where>bad.jsonl:2</code>" in html
    assert "何も保存していません" in html
    # every problem in the reader's language, the trial fields' too (missing modelConfig on line 3)
    assert "必須項目がありません（受け付ける形式: 空でない文字列（例: &quot;A&quot;））" in html
    assert "missing required field" not in html


def test_a_bad_batch_name_is_located_at_the_field(page):
    response = post(page, jsonl(generate_trials(2, seed=2)), name="12345")
    html = response.content.decode()
    assert response.status_code == 400 and "<code data-where>Batch name</code>" in html
    assert not Batch.objects.exists()


def test_hostile_names_and_problems_are_escaped(page):
    name = "b" + SCRIPT.replace("/", "")
    trials = generate_trials(2, seed=2)
    trials[1]["modelConfig"] = 5
    trials[1][SCRIPT] = 1
    html = post(page, jsonl(trials), name=name, filename="x<b>.jsonl").content.decode()
    assert SCRIPT not in html and "x<b>.jsonl" not in html
    assert "&lt;script&gt;" in html and "x&lt;b&gt;.jsonl" in html
    good = post(page, jsonl(generate_trials(2, seed=4)), name=name)
    html = page.get(good.url).content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html


def test_a_missing_file_or_name_is_a_form_error(page):
    response = page.post(reverse("layer3:upload"), {"name": "x"})
    assert response.status_code == 400 and 'data-field="file"' in response.content.decode()
    response = page.post(reverse("layer3:upload"), {"file": SimpleUploadedFile("t.jsonl", b"{}\n")})
    assert response.status_code == 400 and "l3-has-error" in response.content.decode()
    assert not Batch.objects.exists()


def test_a_file_over_the_upload_limit_is_refused_with_413(page, settings):
    settings.UPLOAD_MAX_BYTES_TRIALS = 100
    response = post(page, jsonl(generate_trials(5, seed=2)))
    assert response.status_code == 413 and not Batch.objects.exists()


def test_a_large_file_is_a_job_whose_page_shows_progress_then_the_batch(page, settings, tmp_path):
    settings.LAYER3_UPLOAD_JOB_BYTES = 1000
    data = jsonl(generate_trials(30, seed=2, broken_share=0.0))
    response = post(page, data, filename="big.jsonl")
    job = Job.objects.get(kind=TRIALS_UPLOAD)
    assert response.status_code == 302 and response.url == reverse("layer3:upload-job", args=[job.pk])
    assert not Batch.objects.exists() and len(kept_files(tmp_path)) == 1  # nothing parsed by the web request
    html = page.get(response.url).content.decode()
    assert f'id="job-{job.pk}"' in html and "Import of big.jsonl" in html and 'data-job-status="queued"' in html
    job = job_run(job_id=job.pk)
    assert job.status == "succeeded", job.error
    batch = Batch.objects.get(name="pilot")
    assert batch.trials.count() == 30 and kept_files(tmp_path) == []
    followup = page.get(response.url, headers={"HX-Request": "true"}).content.decode()
    assert f'href="{reverse("layer3:batch", args=[batch.pk])}"' in followup and "data-open-batch" in followup
    assert "hx-get" not in followup  # it stops polling
    html = page.get(response.url).content.decode()
    assert "30 trials stored in batch pilot" in html


def test_a_large_bad_file_fails_its_job_and_its_page_lists_the_problems(page, settings, tmp_path):
    settings.LAYER3_UPLOAD_JOB_BYTES = 100
    before = counts()
    post(page, bad_file(), filename="bad.jsonl")
    job = job_run(job_id=Job.objects.get(kind=TRIALS_UPLOAD).pk)
    assert job.status == "failed" and job.result["total"] == 3
    html = page.get(reverse("layer3:upload-job", args=[job.pk])).content.decode()
    for line, path in ((2, "$.generatedData[0]"), (3, "$.modelConfig"), (4, "$.inputText")):
        assert f"<code data-where>bad.jsonl:{line}</code>" in html and path in html
    assert (Batch.objects.count(), TrialLog.objects.count()) == before[:2] and kept_files(tmp_path) == []


def test_a_large_dry_run_stores_nothing(page, settings):
    settings.LAYER3_UPLOAD_JOB_BYTES = 100
    post(page, jsonl(generate_trials(6, seed=2)), dry_run="on")
    job = job_run(job_id=Job.objects.get(kind=TRIALS_UPLOAD).pk)
    assert job.status == "succeeded" and job.result["dry_run"] is True and job.result["created"] == 6
    assert not Batch.objects.exists()
    assert "6 trials would be stored" in page.get(reverse("layer3:upload-job", args=[job.pk])).content.decode()


def test_an_unknown_job_is_404(page):
    other = Job.objects.create(kind="core.worker_ping")
    assert page.get(reverse("layer3:upload-job", args=[other.pk])).status_code == 404


def test_annotators_get_403_and_anonymous_users_the_login_page(client, annotator):
    job = Job.objects.create(kind=TRIALS_UPLOAD, params={"name": "x"})
    for url in (reverse("layer3:upload"), reverse("layer3:upload-job", args=[job.pk])):
        assert client.get(url).status_code == 302
    client.force_login(annotator)
    for url in (reverse("layer3:upload"), reverse("layer3:upload-job", args=[job.pk])):
        assert client.get(url).status_code == 403
    assert client.post(reverse("layer3:upload"), {"name": "x"}).status_code == 403


def test_the_upload_needs_the_csrf_token(researcher):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    assert post(client, jsonl(generate_trials(2, seed=2))).status_code == 403
    assert not Batch.objects.exists()
