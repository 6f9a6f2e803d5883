"""``batches/{id}/dialogues/``: listing a batch's dialogues, and adding them by JSONL upload."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Annotation, Batch, Dialogue
from tests.annotation.api.support import API, CONFIDENCE, SCORES, make_batch, token_client, walk
from tests.annotation.conftest import dialogue

pytestmark = pytest.mark.django_db


def _file(rows, name="dialogues.jsonl"):
    text = "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
    return SimpleUploadedFile(name, text.encode(), content_type="application/x-ndjson")


def _upload(client, batch, rows, **fields):
    return client.post(API + f"batches/{batch.pk}/dialogues/", {"file": _file(rows), **fields})


@pytest.mark.parametrize("method", ["get", "post"])
def test_anonymous_requests_get_401(client, method):
    batch = make_batch("b")
    assert getattr(client, method)(API + f"batches/{batch.pk}/dialogues/").status_code == 401


@pytest.mark.parametrize("method", ["get", "post"])
def test_annotators_get_403(ann, method):
    batch = make_batch("b")
    response = getattr(ann, method)(API + f"batches/{batch.pk}/dialogues/")
    assert response.status_code == 403 and "researcher role" in response.json()["error"]


def test_the_list_is_the_seed_input_shape_with_rating_counts(res, qualified):
    batch = make_batch("b", n_items=2)
    first = batch.dialogues.order_by("pk").first()
    values = {f"{a}_score": s for a, s in SCORES.items()} | {f"{a}_confidence": c for a, c in CONFIDENCE.items()}
    Annotation.objects.create(dialogue=first, annotator=qualified, **values)
    body = res.get(API + f"batches/{batch.pk}/dialogues/").json()
    assert len(body["results"]) == 2 and body["next"] is None
    context = [{"turn": -1, "speaker": "ai", "text": "前の応答"}]
    assert body["results"][0] == {
        "id": "b_000",
        "user": "質問 0",
        "response": "回答 0",
        "context": context,
        "ratings": 1,
    }
    assert body["results"][1]["ratings"] == 0


def test_search_and_pagination(res):
    batch = make_batch("b", n_items=12)
    make_batch("other", n_items=3)
    found = res.get(API + f"batches/{batch.pk}/dialogues/?q=質問 1").json()
    assert [r["id"] for r in found["results"]] == ["b_001", "b_010", "b_011"]
    assert len(walk(res, API + f"batches/{batch.pk}/dialogues/?q=b_005")) == 1
    second = res.get(res.get(API + f"batches/{batch.pk}/dialogues/?page_size=5").json()["next"]).json()
    page = res.get(second["next"]).json()
    assert [r["id"] for r in page["results"]] == ["b_010", "b_011"] and page["next"] is None
    assert len(walk(res, API + f"batches/{batch.pk}/dialogues/?page_size=5")) == 12
    assert res.get(API + "batches/999/dialogues/").status_code == 404


def test_a_good_upload_stores_the_dialogues_and_a_second_changes_nothing(res):
    batch = Batch.objects.create(name="empty")
    rows = [dialogue(1), dialogue(2)]
    response = _upload(res, batch, rows)
    assert response.status_code == 201
    assert response.json() == {"batch": batch.pk, "created": 2, "updated": 0, "unchanged": 0, "dry_run": False,
                               "ignored_keys": [], "ignored_keys_more": 0}  # fmt: skip
    stored = Dialogue.objects.get(external_id="dialogue_001")
    assert stored.batch == batch and stored.user_text == "質問 1" and stored.context[0]["speaker"] == "ai"
    again = _upload(res, batch, rows)
    assert again.status_code == 200 and again.json()["unchanged"] == 2
    assert Dialogue.objects.count() == 2


def test_a_dry_run_validates_and_stores_nothing(res):
    batch = Batch.objects.create(name="empty")
    response = _upload(res, batch, [dialogue(1)], dry_run="true")
    assert response.status_code == 200 and response.json()["created"] == 1 and response.json()["dry_run"] is True
    assert not Dialogue.objects.exists()


def test_a_bad_upload_answers_located_problems_and_stores_nothing(res):
    batch = make_batch("b", n_items=1)
    rows = [dialogue(1), {"id": "dialogue_002", "user": "u"}, "{not json", dialogue(1)]
    response = _upload(res, batch, rows)
    assert response.status_code == 400
    body = response.json()
    assert body["success"] is False and body["error"].startswith("nothing was stored")
    located = {(p["file"], p["line"]) for p in body["problems"]}
    assert {("dialogues.jsonl", 2), ("dialogues.jsonl", 3), ("dialogues.jsonl", 4)} <= located
    assert all(set(p) == {"file", "line", "path", "message"} for p in body["problems"])
    assert not any("annotation-upload-" in p["message"] for p in body["problems"])  # no server paths
    assert Dialogue.objects.count() == 1


def test_the_upload_needs_a_file_and_known_fields(res):
    batch = Batch.objects.create(name="empty")
    missing = res.post(API + f"batches/{batch.pk}/dialogues/", {"dry_run": "true"})
    assert missing.status_code == 400 and missing.json()["field"] == "file"
    bad_flag = _upload(res, batch, [dialogue(1)], dry_run="maybe")
    assert bad_flag.status_code == 400 and bad_flag.json()["field"] == "dry_run"
    unknown = _upload(res, batch, [dialogue(1)], batch_name="x")
    assert unknown.status_code == 400 and unknown.json()["field"] == "batch_name"
    assert not Dialogue.objects.exists()


def test_scripts_upload_with_a_token(researcher):
    batch = Batch.objects.create(name="empty")
    script = token_client(researcher)
    assert _upload(script, batch, [dialogue(1)]).status_code == 201
    assert len(walk(script, API + f"batches/{batch.pk}/dialogues/")) == 1


def test_problems_are_in_the_site_s_language_and_name_the_api_s_options(res):
    batch = make_batch("b", n_items=1)
    stored = batch.dialogues.get()
    changed = {"id": stored.external_id, "user": "別の質問", "response": "応答", "context": []}
    body = _upload(res, batch, [changed, {"id": "d9", "user": "u"}]).json()
    messages = {p["path"]: p["message"] for p in body["problems"]}
    assert messages["$.response"] == "必須項目がありません"
    assert "置き換えるにはupdate=trueを使ってください" in messages["$.id"]
    res.cookies["django_language"] = "en"
    body = _upload(res, batch, [changed, {"id": "d9", "user": "u"}]).json()
    messages = {p["path"]: p["message"] for p in body["problems"]}
    assert messages["$.response"] == "missing required field"
    assert messages["$.id"].endswith("use update=true to replace it")
    assert _upload(res, batch, [changed], update="true").status_code == 201
