"""``annotations/import/`` obeys the batch's rules (issue #41, point 5): each violation is a located problem (400,
nothing stored); each override is an option with a reason, recorded with the caller's name; the job behind large
uploads carries the options in its params and says in its result what was overridden."""

import json

import pytest

from annotation.collection.queue import annotation_submit, assignment_next
from annotation.io import rating_uploads
from annotation.models import Annotation, AnnotationEdit, Batch, Dialogue, ImportOverride, ImportOverrideRating
from core.job_runner import job_run
from tests.annotation.api.support import API, CONFIDENCE, SCORES, make_batch
from tests.annotation.conftest import rating
from tests.helpers import make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db

URL = API + "annotations/import/"


def _post(client, rows, query=""):
    body = "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows).encode()
    return client.post(URL + query, body, content_type="application/x-ndjson")


@pytest.fixture
def en(res):
    res.cookies["django_language"] = "en"
    return res


def _stored() -> tuple:
    return Annotation.objects.count(), ImportOverride.objects.count(), ImportOverrideRating.objects.count()


def _problems(response) -> list[tuple]:
    assert response.status_code == 400, response.content
    return [(p["file"], p["line"], p["path"], p["message"]) for p in response.json()["problems"]]


def test_a_rating_past_the_quota_is_a_located_problem(en):
    make_batch("b", n_items=1, quota=2)
    problems = _problems(_post(en, [rating(0, f"ext_{k}", id="b_000") for k in range(3)]))
    assert [(file, line, path) for file, line, path, _m in problems] == [("body", 3, "$.id")]
    assert "would have 3 ratings, more than the quota of batch 'b' (2 per item" in problems[0][3]
    assert "allow_over_quota=true with a reason" in problems[0][3]
    assert _stored() == (0, 0, 0)


def test_the_quota_override_needs_a_reason_and_is_recorded(en, researcher):
    make_batch("b", n_items=1, quota=2)
    rows = [rating(0, f"ext_{k}", id="b_000") for k in range(3)]
    response = _post(en, rows, "?allow_over_quota=true")
    assert response.status_code == 400 and response.json()["problems"][0]["path"] == "reason"
    assert "give a reason for the override (allow_over_quota=true)" in response.json()["error"]
    response = _post(en, rows, "?allow_over_quota=1&reason=" + "三人目の評価者を追加")
    assert response.status_code == 201, response.content
    body = response.json()
    record = ImportOverride.objects.get()
    assert body["overridden"] == {"quota": 1, "chosen_annotators": 0, "qualification": 0, "web_ratings": 0,
                                  "closed_batch": 0}  # fmt: skip
    assert body["override"] == {"id": record.pk, "by": "res_001", "reason": "三人目の評価者を追加"}
    assert record.created_by == researcher and record.surface == "api" and record.files == "body"
    assert _stored() == (3, 1, 1)


def test_unchosen_and_unqualified_annotators_are_refused_then_allowed_with_a_reason(en):
    batch = make_batch("b", n_items=2, restricted=True)
    batch.annotators.add(make_qualified_annotator("alice"))
    make_user("newbie", "annotator")
    rows = [rating(0, "alice", id="b_000"), rating(0, "newbie", id="b_001")]
    problems = _problems(_post(en, rows))
    assert [(line, path) for _f, line, path, _m in problems] == [(2, "$.annotator_id"), (2, "$.annotator_id")]
    assert "'newbie' is not among the annotators chosen for batch 'b'" in problems[0][3]
    assert "allow_unchosen_annotators=true with a reason" in problems[0][3]
    assert "'newbie' has not passed the qualification test" in problems[1][3]
    assert "allow_unqualified_annotators=true with a reason" in problems[1][3]
    assert _stored() == (0, 0, 0)
    query = "?allow_unchosen_annotators=true&allow_unqualified_annotators=true&reason=trained+offline"
    body = _post(en, rows, query).json()
    assert body["overridden"] == {"quota": 0, "chosen_annotators": 1, "qualification": 1, "web_ratings": 0,
                                  "closed_batch": 0}  # fmt: skip
    assert ImportOverride.objects.get().counts == {"chosen_annotators": 1, "qualification": 1}
    assert _stored() == (2, 1, 2)


def test_a_closed_batch_is_a_located_problem_and_its_override_is_recorded(en, researcher):
    make_batch("b", n_items=2, status=Batch.Status.CLOSED)
    rows = [rating(0, "ext_a", id="b_000"), rating(1, "ext_a", id="b_001")]
    problems = _problems(_post(en, rows))
    assert [(file, line, path) for file, line, path, _m in problems] == [("body", 1, "$.id")]
    assert "batch 'b' is closed (2 new or changed rating(s) in this import)" in problems[0][3]
    assert "allow_closed_batch=true with a reason" in problems[0][3]
    assert _stored() == (0, 0, 0)
    response = _post(en, rows, "?allow_closed_batch=true")
    assert response.status_code == 400 and response.json()["problems"][0]["path"] == "reason"
    assert "give a reason for the override (allow_closed_batch=true)" in response.json()["error"]
    response = _post(en, rows, "?allow_closed_batch=true&reason=late+paper+ratings")
    assert response.status_code == 201, response.content
    body, record = response.json(), ImportOverride.objects.get()
    assert body["overridden"]["closed_batch"] == 2 and sum(body["overridden"].values()) == 2
    assert body["override"] == {"id": record.pk, "by": "res_001", "reason": "late paper ratings"}
    assert (record.created_by, record.surface, record.counts) == (researcher, "api", {"closed_batch": 2})
    assert _stored() == (2, 1, 2)


def test_update_over_a_web_rating_needs_its_own_option(en):
    batch = make_batch("b", n_items=1)
    alice = make_qualified_annotator("alice")
    web = annotation_submit(assignment=assignment_next(batch=batch, annotator=alice), scores=SCORES,
                            confidence=CONFIDENCE).annotation  # fmt: skip
    rows = [rating(0, "alice", id="b_000", scores=(5, 5, 5, 5))]
    problems = _problems(_post(en, rows, "?update=true"))
    assert problems[0][1:3] == (1, "$") and "replace_web_ratings=true with a reason" in problems[0][3]
    # Without update=true nothing is replaced: the differing rating stays a problem of its line.
    problems = _problems(_post(en, rows, "?replace_web_ratings=true&reason=x"))
    assert problems[0][1:3] == (1, "$") and "update=true" in problems[0][3]
    response = _post(en, rows, "?update=true&replace_web_ratings=true&reason=alice+asked")
    assert response.status_code == 201 and response.json()["overridden"]["web_ratings"] == 1
    web.refresh_from_db()
    assert web.social_score == 5 and "alice asked" in AnnotationEdit.objects.get().reason


def test_unknown_keys_are_refused_or_ignored_with_counts(en):
    make_batch("b", n_items=2)
    rows = [rating(0, "ext", id="b_000", note="x" * 10_000), rating(0, "ext", id="b_001", note="", tag=1)]
    problems = _problems(_post(en, rows))
    assert [(line, path) for _f, line, path, _m in problems] == [(1, "$.note"), (2, "$.note"), (2, "$.tag")]
    assert "unknown field; the fields are id, annotator_id, timestamp" in problems[0][3]
    assert "ignore_unknown_keys=true ignores unknown fields" in problems[0][3]
    body = _post(en, rows, "?ignore_unknown_keys=true").json()
    assert body["ignored_keys"] == [{"key": "note", "lines": 2}, {"key": "tag", "lines": 1}]
    assert body["ignored_keys_more"] == 0 and body["created"] == 2


def test_formula_and_control_ids_are_refused(en):
    make_batch("b", n_items=1)
    rows = [rating(0, "=ext", id="b_000"), rating(0, "ext", id="b_000\t")]
    problems = _problems(_post(en, rows))
    assert problems[0][1:3] == (1, "$.annotator_id") and "formula injection" in problems[0][3]
    assert problems[1][1:3] == (2, "$.id") and "control character U+0009 (tab)" in problems[1][3]


def test_the_dialogue_upload_refuses_unsafe_ids_and_unknown_keys(en):
    batch = make_batch("d", n_items=0)
    lines = [{"id": "@x", "user": "u", "response": "r"}, {"id": "ok", "user": "u", "response": "r", "lang": "ja"}]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = en.post(f"{API}batches/{batch.pk}/dialogues/", {"file": SimpleUploadedFile("d.jsonl", data)})
    problems = _problems(response)
    assert [(file, line, path) for file, line, path, _m in problems] == [
        ("d.jsonl", 1, "$.id"),
        ("d.jsonl", 2, "$.lang"),
    ]
    assert "ignore_unknown_keys=true ignores unknown fields" in problems[1][3]
    assert not Dialogue.objects.exists()
    upload = SimpleUploadedFile("d.jsonl", data.replace(b'"@x"', b'"x"'))
    response = en.post(f"{API}batches/{batch.pk}/dialogues/", {"file": upload, "ignore_unknown_keys": "true"})
    assert response.status_code == 201 and response.json()["ignored_keys"] == [{"key": "lang", "lines": 1}]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("?reason=", "given empty; give a value or leave the parameter out"),
        ("?allow_over_quota=true&reason=%20%20", "give a reason for the override"),
        ("?allow_over_quota=true&reason=a%00b", "control character"),
        ("?allow_over_quota=true&reason=" + "x" * 501, "at most 500 fit"),
        ("?allow_over_quota=maybe&reason=x", "expected true or false, got 'maybe'"),
    ],
)
def test_bad_options_are_refused_before_reading_the_file(en, query, message):
    make_batch("b", n_items=1)
    response = _post(en, [rating(0, "ext", id="b_000")], query)
    assert response.status_code == 400 and message in response.json()["error"], response.content
    assert _stored() == (0, 0, 0)


def test_a_reason_without_an_override_is_accepted_and_records_nothing(en):
    make_batch("b", n_items=1)
    response = _post(en, [rating(0, "ext", id="b_000")], "?reason=just+in+case")
    assert response.status_code == 201 and response.json()["override"] is None
    assert _stored() == (1, 0, 0)


def test_the_job_carries_the_options_and_its_result_says_what_was_overridden(en, researcher, monkeypatch):
    monkeypatch.setattr(rating_uploads, "LARGE_UPLOAD_LINES", 2)
    make_batch("b", n_items=1, quota=2)
    rows = [rating(0, f"ext_{k}", id="b_000", note="n") for k in range(3)]
    response = _post(en, rows, "?allow_over_quota=true&ignore_unknown_keys=true&reason=pilot")
    assert response.status_code == 202, response.content
    job_id = response.json()["id"]
    from core.models import Job

    params = Job.objects.get(pk=job_id).params
    assert params["allow_over_quota"] is True and params["ignore_unknown_keys"] is True and params["reason"] == "pilot"
    assert params["allow_unqualified_annotators"] is False
    job = job_run(job_id=job_id)
    assert job.status == "succeeded", job.error
    record = ImportOverride.objects.get()
    assert record.job_id == job.pk and record.created_by == researcher and record.surface == "api"
    assert job.result["override"] == {"id": record.pk, "by": "res_001", "reason": "pilot"}
    assert job.result["overridden"]["quota"] == 1 and job.result["ignored_keys"] == [{"key": "note", "lines": 3}]
    summary = en.get(response["Location"]).json()["summary"]
    assert "Unknown fields ignored: note ×3." in summary
    assert f"recorded as import override #{record.pk} by res_001." in summary


def test_the_job_refuses_without_the_override_and_stores_nothing(en, monkeypatch):
    monkeypatch.setattr(rating_uploads, "LARGE_UPLOAD_LINES", 2)
    make_batch("b", n_items=1, quota=2)
    response = _post(en, [rating(0, f"ext_{k}", id="b_000") for k in range(3)])
    job = job_run(job_id=response.json()["id"])
    assert job.status == "failed"
    (problem,) = job.result["problems"]
    assert problem["line"] == 3 and problem["path"] == "$.id" and "allow_over_quota=true" in problem["message"]
    assert _stored() == (0, 0, 0)


def test_a_new_batch_with_its_file_takes_the_option_too(en):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from annotation.models import Batch

    data = (json.dumps({"id": "n1", "user": "u", "response": "r", "lang": "ja"}) + "\n").encode()
    response = en.post(f"{API}batches/", {"name": "new", "file": SimpleUploadedFile("n.jsonl", data)})
    assert _problems(response)[0][:3] == ("n.jsonl", 1, "$.lang")
    assert not Batch.objects.filter(name="new").exists()
    upload = SimpleUploadedFile("n.jsonl", data)
    response = en.post(f"{API}batches/", {"name": "new", "file": upload, "ignore_unknown_keys": "true"})
    assert response.status_code == 201, response.content
    assert Dialogue.objects.get().external_id == "n1"
