"""``annotations/import/``: ratings in bulk as JSONL, through the service of ``manage.py import_annotations``."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.io import rating_uploads
from annotation.models import Annotation, AnnotationEdit, AnnotatorProfile
from core.models import Job
from tests.annotation.api.support import API, NOTHING_OVERRIDDEN, make_batch, token_client
from tests.annotation.conftest import rating
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

URL = API + "annotations/import/"


def _jsonl(rows) -> bytes:
    return ("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n").encode()


def _rows(batch, n=3, annotator="ann_imp", **overrides):
    return [rating(0, annotator, id=f"{batch.name}_{i:03d}", **overrides) for i in range(n)]


def _post(client, rows, query="", content_type="application/x-ndjson"):
    return client.post(URL + query, _jsonl(rows), content_type=content_type)


@pytest.fixture
def en(res):
    res.cookies["django_language"] = "en"
    return res


def test_anonymous_gets_401_and_annotators_403(client, ann):
    batch = make_batch("b")
    assert _post(client, _rows(batch)).status_code == 401
    response = _post(ann, _rows(batch))
    assert response.status_code == 403 and "researcher role" in response.json()["error"]
    assert not Annotation.objects.exists()


def test_a_good_body_is_stored_and_a_second_upload_changes_nothing(en):
    batch = make_batch("b", n_items=3)
    response = _post(en, _rows(batch))
    assert response.status_code == 201, response.content
    assert response.json() == {"batch": None, "file": "body", "created": 3, "updated": 0, "unchanged": 0,
                               "users_created": 1, "dry_run": False, **NOTHING_OVERRIDDEN}  # fmt: skip
    stored = Annotation.objects.get(dialogue__external_id="b_001")
    assert stored.annotator.username == "ann_imp" and stored.social_score == 1 and stored.source == "import"
    assert AnnotatorProfile.objects.get(user__username="ann_imp").imported
    again = _post(en, _rows(batch))
    assert again.status_code == 200 and again.json()["unchanged"] == 3 and again.json()["created"] == 0
    assert Annotation.objects.count() == 3


@pytest.mark.parametrize("content_type", ["application/jsonl", "text/plain; charset=utf-8"])
def test_the_other_body_types(en, content_type):
    batch = make_batch("b")
    assert _post(en, _rows(batch), content_type=content_type).status_code == 201


def test_a_multipart_file_with_its_options_in_the_query(en):
    batch = make_batch("b")
    upload = SimpleUploadedFile("mine.jsonl", _jsonl(_rows(batch)), content_type="application/x-ndjson")
    response = en.post(f"{URL}?batch={batch.pk}&dry_run=1", {"file": upload})
    assert response.status_code == 200, response.content
    assert response.json()["file"] == "mine.jsonl" and response.json()["dry_run"] is True
    assert response.json()["batch"] == batch.pk and response.json()["created"] == 3
    assert not Annotation.objects.exists()


def test_bad_lines_are_located_and_nothing_is_stored(en):
    batch = make_batch("b", n_items=4)
    rows = _rows(batch, n=4)
    rows[1]["annotations"]["social"] = 7
    rows[2] = '{"id": "b_002", broken'
    rows[3]["id"] = "nowhere"
    upload = SimpleUploadedFile("r.jsonl", _jsonl(rows))
    response = en.post(URL, {"file": upload})
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False and body["total"] == 3 and body["truncated"] is False
    assert body["error"] == "nothing was stored: 3 problem(s)"
    assert [(p["file"], p["line"], p["path"]) for p in body["problems"]] == [
        ("r.jsonl", 2, "$.annotations.social"),
        ("r.jsonl", 3, "$"),
        ("r.jsonl", 4, "$.id"),
    ]
    assert "must be from 1 to 5, got 7" in body["problems"][0]["message"]
    assert "unknown dialogue id 'nowhere'" in body["problems"][2]["message"]
    assert not Annotation.objects.exists()
    rows[1]["annotations"]["social"] = 2
    rows[2] = rating(2, "ann_imp", id="b_002")
    rows[3]["id"] = "b_003"
    assert _post(en, rows).status_code == 201  # mended, the same file is stored whole
    assert Annotation.objects.count() == 4


def test_problems_are_capped_with_their_total(en):
    make_batch("b")
    response = _post(en, ["[]"] * 150)
    body = response.json()
    assert response.status_code == 400 and body["total"] == 150 and body["truncated"] is True
    assert len(body["problems"]) == 100


def test_problems_in_japanese_by_default(res):
    make_batch("b")
    response = _post(res, [rating(0, "ann_imp", id="missing")])
    assert response.status_code == 400
    assert "対話 ID 'missing' は登録されていません" in response.json()["problems"][0]["message"]


def test_a_differing_rating_needs_update_and_keeps_its_history(en, researcher):
    batch = make_batch("b", n_items=2)
    assert _post(en, _rows(batch, n=2)).status_code == 201
    changed = _rows(batch, n=2, scores=(5, 5, 5, 5))
    refused = _post(en, changed)
    assert refused.status_code == 400
    assert "use update=true to replace the stored rating" in refused.json()["problems"][0]["message"]
    assert Annotation.objects.filter(social_score=5).count() == 0
    dry = _post(en, changed, "?update=true&dry_run=true")
    assert dry.status_code == 200 and dry.json()["updated"] == 2
    assert Annotation.objects.filter(social_score=5).count() == 0
    done = _post(en, changed, "?update=1")
    assert done.status_code == 201 and done.json()["updated"] == 2
    assert Annotation.objects.filter(social_score=5).count() == 2
    edit = AnnotationEdit.objects.first()
    assert edit.edited_by == researcher and edit.old_values["social_score"] == 1 and "body:1" in edit.reason


def test_batch_restricts_the_import_to_its_dialogues(en):
    batch, _other = make_batch("b", n_items=2), make_batch("o", n_items=1)
    rows = [*_rows(batch, n=2), rating(0, "ann_imp", id="o_000")]
    response = _post(en, rows, f"?batch={batch.pk}")
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert (problem["line"], problem["path"]) == (3, "$.id")
    assert "dialogue 'o_000' belongs to batch 'o', not to batch 'b'" in problem["message"]
    assert not Annotation.objects.exists()
    unknown = _post(en, [rating(0, "ann_imp", id="zzz")], f"?batch={batch.pk}")
    assert "unknown dialogue id 'zzz'" in unknown.json()["problems"][0]["message"]
    good = _post(en, rows[:2], f"?batch={batch.pk}")
    assert good.status_code == 201 and good.json()["batch"] == batch.pk and good.json()["created"] == 2


@pytest.mark.parametrize(
    ("query", "field"),
    [("?dry_run=yes", "dry_run"), ("?update=2", "update"), ("?dry_run=", "dry_run"), ("?batch=x", "batch"),
     ("?batch=0", "batch"), ("?dry_run=true&dry_run=true", "dry_run")],
)  # fmt: skip
def test_bad_options_are_400_naming_them(en, query, field):
    batch = make_batch("b")
    response = _post(en, _rows(batch), query)
    assert response.status_code == 400 and response.json()["field"] == field, response.content
    assert not Annotation.objects.exists()


def test_a_batch_that_does_not_exist_is_404(en):
    batch = make_batch("b")
    response = _post(en, _rows(batch), "?batch=99999")
    assert response.status_code == 404 and response.json()["field"] == "batch", response.content
    assert not Annotation.objects.exists()


def test_an_option_as_a_form_field_and_an_unknown_field_are_refused_naming_them(en):
    batch = make_batch("b")
    upload = SimpleUploadedFile("r.jsonl", _jsonl(_rows(batch)))
    response = en.post(URL + "?dry_run=true", {"file": upload, "dry_run": "false"})
    assert response.status_code == 400 and response.json()["field"] == "dry_run"
    assert "a query parameter (?dry_run=…)" in response.json()["error"]
    upload = SimpleUploadedFile("r.jsonl", _jsonl(_rows(batch)))
    response = en.post(URL, {"file": upload, "overwrite": "1"})
    assert response.status_code == 400 and response.json()["field"] == "overwrite"
    assert en.post(URL, {}).json()["field"] == "file"
    assert not Annotation.objects.exists()


def test_another_media_type_is_415(en):
    batch = make_batch("b")
    response = en.post(URL, json.dumps(_rows(batch)), content_type="application/json")
    assert response.status_code == 415
    body = response.json()
    assert "application/x-ndjson" in body["error"] and body["problems"][0]["path"] == "Content-Type"


def test_an_empty_body_is_a_problem(en):
    response = en.post(URL, b"\n\n", content_type="application/x-ndjson")
    assert response.status_code == 400
    assert "no ratings in this file" in response.json()["problems"][0]["message"]


def test_over_the_limit_is_413_naming_it(en, settings):
    settings.UPLOAD_MAX_BYTES_RATINGS = 1024
    batch = make_batch("b", n_items=20)
    rows = _rows(batch, n=20)
    response = _post(en, rows)
    assert response.status_code == 413
    body = response.json()
    assert "UPLOAD_MAX_BYTES_RATINGS" in body["error"] and "1,024 bytes" in body["error"]
    upload = SimpleUploadedFile("big.jsonl", _jsonl(rows))
    response = en.post(URL, {"file": upload})
    assert response.status_code == 413 and "UPLOAD_MAX_BYTES_RATINGS" in response.json()["error"]
    assert not Annotation.objects.exists()


def test_the_stream_is_refused_past_the_limit_even_without_a_length(settings, tmp_path):
    from core.upload_limits import UploadTooLarge

    settings.VAR_DIR = tmp_path
    settings.UPLOAD_MAX_BYTES_RATINGS = 1000
    chunks = iter([b"x" * 600, b"y" * 600, b"z"])
    with pytest.raises(UploadTooLarge):
        rating_uploads.ratings_body_keep(lambda n: next(chunks, b""))
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_values_are_kept_as_text_and_script_is_not_run(en):
    batch = make_batch("b")
    rows = _rows(batch, n=1, annotator="<script>alert(1)</script>")
    response = _post(en, rows)
    assert response.status_code == 400 and response["Content-Type"].startswith("application/json")
    problem = response.json()["problems"][0]
    assert problem["path"] == "$.annotator_id" and "<script>" in problem["message"]


def test_session_posts_need_the_csrf_token_and_tokens_do_not(researcher):
    batch = make_batch("b")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(researcher)
    response = _post(browser, _rows(batch))
    assert response.status_code == 403 and "CSRF" in response.json()["error"]
    browser.get("/research/batches/")  # sets the CSRF cookie
    token = browser.cookies["csrftoken"].value
    done = browser.post(URL, _jsonl(_rows(batch)), content_type="application/x-ndjson", headers={"X-CSRFToken": token})
    assert done.status_code == 201, done.content
    script = token_client(make_user("res_script", "researcher"))
    assert _post(script, _rows(batch)).status_code == 200  # stored already: unchanged


def test_a_large_file_becomes_a_job(en, settings, tmp_path, monkeypatch, django_capture_on_commit_callbacks):
    settings.VAR_DIR = tmp_path
    monkeypatch.setattr(rating_uploads, "LARGE_UPLOAD_LINES", 2)
    batch = make_batch("b", n_items=3)
    queued = []
    monkeypatch.setattr("core.services.run_job.delay", lambda job_id: queued.append(job_id))
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(en, _rows(batch), f"?batch={batch.pk}")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["kind"] == "annotation.ratings_upload" and body["status"] == "queued"
    assert response["Location"] == body["url"] == f"/api/v1/annotation/jobs/{body['id']}/"
    assert body["params"]["batch_id"] == batch.pk and body["params"]["name"] == "body"
    assert "file" not in body["params"], "the server's own path is not shown"
    kept = tmp_path / Job.objects.get(pk=body["id"]).params["file"]
    assert kept.is_file(), "the file is kept until the job ends"
    assert queued == [body["id"]] and not Annotation.objects.exists()


def test_a_conflict_with_a_concurrent_write_is_a_problem_not_a_500(en, monkeypatch):
    from django.db import IntegrityError

    def conflicting(**kwargs):
        raise IntegrityError("duplicate key value violates unique constraint")

    monkeypatch.setattr(rating_uploads, "annotations_import", conflicting)
    batch = make_batch("b")
    response = _post(en, _rows(batch))
    assert response.status_code == 400
    (problem,) = response.json()["problems"]
    assert problem["file"] == "body" and "changed while this file was being imported" in problem["message"]


def test_a_chunked_body_without_a_length_is_411_not_an_empty_file(en):
    response = en.generic("POST", URL, b"", CONTENT_TYPE="application/x-ndjson", HTTP_TRANSFER_ENCODING="chunked")
    assert response.status_code == 411 and response.json()["field"] == "Content-Length"
