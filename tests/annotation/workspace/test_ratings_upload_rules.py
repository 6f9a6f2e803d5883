"""The batch page's "Upload ratings (JSONL)" obeys the batch's rules (issue #41, point 5): the problems are listed
(file, line, JSON path, in the page's language, escaped); the overrides are checkboxes with a reason, recorded with
the researcher's name; the large-file job takes the same options."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.io import rating_uploads
from annotation.models import Annotation, Batch, ImportOverride
from core.job_runner import job_run
from core.models import Job
from tests.annotation.conftest import rating
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


def _file(rows, name="ratings.jsonl") -> SimpleUploadedFile:
    text = "".join((row if isinstance(row, str) else json.dumps(row, ensure_ascii=False)) + "\n" for row in rows)
    return SimpleUploadedFile(name, text.encode("utf-8"), content_type="application/x-ndjson")


def _upload(client, batch, rows, reason=None, **options):
    data = {"ratings-file": _file(rows), **{f"ratings-{k}": "on" for k, v in options.items() if v}}
    if reason is not None:
        data["ratings-reason"] = reason
    return client.post(f"/research/batches/{batch.pk}/ratings/", data)


@pytest.fixture
def en_client(researcher_client):
    return researcher_client  # English (the workspace's fixture sets the language cookie)


@pytest.fixture
def ja_client(researcher_client):
    del researcher_client.cookies["django_language"]  # Japanese: the site's default
    return researcher_client


def _over_quota_rows():
    """dialogue_003 has no rating; four new ones pass its quota of 3 by one."""
    return [rating(3, f"ext_{k}") for k in range(4)]


def test_the_card_offers_the_overrides_with_a_reason_in_both_languages(ja_client, batch):
    html = ja_client.get(f"/research/batches/{batch.pk}/").content.decode()
    for name in ("ignore_unknown_keys", "allow_closed_batch", "allow_over_quota", "allow_unchosen_annotators",
                 "allow_unqualified_annotators", "replace_web_ratings", "reason"):  # fmt: skip
        assert f'name="ratings-{name}"' in html, name
    assert "バッチの規則の例外" in html and "上限を超える評価を許可する" in html and "例外の理由" in html
    assert "終了したバッチへの評価を許可する" in html
    ja_client.cookies["django_language"] = "en"
    html = ja_client.get(f"/research/batches/{batch.pk}/").content.decode()
    assert "Overrides of the batch's rules" in html and "Allow more ratings than the quota" in html
    assert '<details class="ws-overrides" data-overrides>' in html  # closed until used


def test_a_rating_past_the_quota_is_listed_and_nothing_is_stored(en_client, batch):
    before = Annotation.objects.count()
    response = _upload(en_client, batch, _over_quota_rows())
    assert response.status_code == 400
    html = response.content.decode()
    assert "would have 4 ratings, more than the quota of batch &#x27;ws&#x27;" in html
    assert "the option “Allow more ratings than the quota” with a reason" in html
    assert Annotation.objects.count() == before and not ImportOverride.objects.exists()


def test_the_problems_are_in_japanese_by_default(ja_client, batch):
    response = _upload(ja_client, batch, _over_quota_rows())
    assert response.status_code == 400
    assert "バッチ &#x27;ws&#x27; の上限" in response.content.decode()


def test_an_override_without_a_reason_is_a_form_error(en_client, batch):
    response = _upload(en_client, batch, _over_quota_rows(), allow_over_quota=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert "give a reason for the override (the option “Allow more ratings than the quota”)" in html
    assert '<details class="ws-overrides" data-overrides open>' in html  # shown open: the error is inside
    assert not Annotation.objects.filter(dialogue__external_id="dialogue_003").exists()


def test_the_override_stores_and_records_the_researcher_and_the_reason(en_client, batch, researcher):
    evil = '<script>alert("x")</script> 4人目'
    response = _upload(en_client, batch, _over_quota_rows(), reason=evil, allow_over_quota=True)
    assert response.status_code == 302, response.content.decode()[:3000]
    record = ImportOverride.objects.get()
    assert record.created_by == researcher and record.reason == evil and record.surface == "page"
    assert record.batch == batch and record.files == "ratings.jsonl" and record.counts == {"quota": 1}
    page = en_client.get(response["Location"]).content.decode()
    assert f"recorded as import override #{record.pk} by res_001." in page
    assert "quota (ratings per item): 1" in page
    assert Annotation.objects.filter(dialogue__external_id="dialogue_003").count() == 4


def test_an_unqualified_annotator_and_an_unknown_key_are_listed_together(en_client, batch):
    make_user("newbie", "annotator")
    rows = [rating(3, "newbie"), rating(3, "ext_1", note="<b>n</b>")]
    html = _upload(en_client, batch, rows).content.decode()
    assert "&#x27;newbie&#x27; has not passed the qualification test" in html
    assert "the option “Allow annotators without a valid qualification” with a reason" in html
    assert "$.note" in html and "the option “Ignore unknown fields” ignores unknown fields" in html


def test_ignored_keys_are_named_in_the_summary(en_client, batch):
    response = _upload(en_client, batch, [rating(3, "ext_1", note="n")], ignore_unknown_keys=True)
    assert response.status_code == 302
    assert "Unknown fields ignored: note ×1." in en_client.get(response["Location"]).content.decode()


def test_replacing_web_ratings_needs_replace_ratings_that_differ(en_client, batch):
    response = _upload(en_client, batch, [rating(3, "ext_1")], reason="x", replace_web_ratings=True)
    assert response.status_code == 200
    assert "Choose “Replace ratings that differ” as well." in response.content.decode()


def test_the_job_of_a_large_upload_takes_the_options(en_client, batch, researcher, monkeypatch):
    monkeypatch.setattr(rating_uploads, "LARGE_UPLOAD_LINES", 2)
    response = _upload(en_client, batch, _over_quota_rows(), reason="pilot", allow_over_quota=True)
    assert response.status_code == 302
    job = Job.objects.get()
    assert (
        job.params["allow_over_quota"] is True and job.params["reason"] == "pilot" and job.params["surface"] == "page"
    )
    job = job_run(job_id=job.pk)
    assert job.status == "succeeded", job.error
    record = ImportOverride.objects.get()
    assert record.job_id == job.pk and record.created_by == researcher and record.surface == "page"
    page = en_client.get(response["Location"]).content.decode()
    assert f"recorded as import override #{record.pk} by res_001." in page


def test_a_restricted_batch_refuses_unchosen_annotators_on_the_page(en_client, batch):
    Batch.objects.filter(pk=batch.pk).update(restricted=True)
    html = _upload(en_client, batch, [rating(3, "ext_1")]).content.decode()
    assert "&#x27;ext_1&#x27; is not among the annotators chosen for batch &#x27;ws&#x27;" in html
    response = _upload(en_client, batch, [rating(3, "ext_1")], reason="external", allow_unchosen_annotators=True)
    assert response.status_code == 302 and ImportOverride.objects.get().counts == {"chosen_annotators": 1}


def test_a_closed_batch_refuses_the_upload_and_its_override_is_recorded(en_client, batch, researcher):
    Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.CLOSED)
    before = (Annotation.objects.count(), ImportOverride.objects.count(), Job.objects.count())
    response = _upload(en_client, batch, [rating(3, "ext_1"), rating(3, "ext_2")])
    assert response.status_code == 400
    html = response.content.decode()
    assert "ratings.jsonl" in html and "$.id" in html
    assert "batch &#x27;ws&#x27; is closed (2 new or changed rating(s) in this import)" in html
    assert "the option “Allow ratings in a closed batch” with a reason" in html
    assert (Annotation.objects.count(), ImportOverride.objects.count(), Job.objects.count()) == before
    response = _upload(en_client, batch, [rating(3, "ext_1"), rating(3, "ext_2")], reason="late",
                       allow_closed_batch=True)  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:3000]
    record = ImportOverride.objects.get()
    assert (record.created_by, record.surface, record.counts) == (researcher, "page", {"closed_batch": 2})
    assert "closed batch: 2" in en_client.get(response["Location"]).content.decode()
