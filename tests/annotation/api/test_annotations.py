"""``annotations/``: submitting through the queue, reading one's own or everyone's, correcting with history."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.collection.queue import assignment_next
from annotation.models import Annotation, AnnotationEdit, Assignment, QueueEntry
from tests.annotation.api.support import API, CONFIDENCE, SCORES, logged_in, make_batch, patch, post, token_client, walk
from tests.helpers import make_qualified_annotator

pytestmark = pytest.mark.django_db


def _rating(assignment_id, scores=SCORES, confidence=CONFIDENCE):
    return {"assignment_id": assignment_id, "scores": scores, "confidence": confidence}


def _reserve(client, batch) -> int:
    return post(client, API + f"batches/{batch.pk}/next/").json()["assignment_id"]


def _rated(client, batch) -> dict:
    return post(client, API + "annotations/", _rating(_reserve(client, batch))).json()["annotation"]


@pytest.mark.parametrize(
    ("method", "url"),
    [("get", "annotations/"), ("post", "annotations/"), ("get", "annotations/1/"), ("patch", "annotations/1/")],
)
def test_anonymous_requests_get_401(client, method, url):
    response = getattr(client, method)(API + url, {}, content_type="application/json")
    assert response.status_code == 401 and response.json()["success"] is False


def test_a_rating_is_stored_with_201_and_returned(ann, qualified):
    batch = make_batch("b")
    response = post(ann, API + "annotations/", _rating(_reserve(ann, batch)))
    assert response.status_code == 201
    body = response.json()
    stored = Annotation.objects.get()
    assert body["outcome"] == "stored" and body["annotation"]["id"] == stored.pk
    assert stored.annotator == qualified and stored.scores == SCORES and stored.confidences == CONFIDENCE
    shown = body["annotation"]
    assert (shown["batch"], shown["dialogue"], shown["annotator"], shown["source"]) == (batch.pk, "b_000", "ann_q1",
                                                                                        "web")  # fmt: skip
    assert shown["scores"] == SCORES and shown["confidence"] == CONFIDENCE and shown["edits"] == []


def test_a_repeated_submission_keeps_the_first_rating_with_200(ann):
    batch = make_batch("b")
    assignment = _reserve(ann, batch)
    post(ann, API + "annotations/", _rating(assignment))
    again = post(ann, API + "annotations/", _rating(assignment, scores={**SCORES, "self": 5}))
    assert again.status_code == 200 and again.json()["outcome"] == "repeated"
    assert again.json()["annotation"]["scores"] == SCORES and Annotation.objects.count() == 1


def test_a_rating_that_arrived_another_way_is_kept_with_200(ann, qualified):
    batch = make_batch("b")
    assignment = Assignment.objects.get(pk=_reserve(ann, batch))
    values = {f"{a}_score": 2 for a in SCORES} | {f"{a}_confidence": 1.0 for a in SCORES}
    Annotation.objects.create(dialogue=assignment.dialogue, annotator=qualified, source="import", **values)
    response = post(ann, API + "annotations/", _rating(assignment.pk))
    assert response.status_code == 200 and response.json()["outcome"] == "rated_elsewhere"
    assert (
        response.json()["annotation"]["source"] == "import" and response.json()["annotation"]["scores"]["social"] == 2
    )


def test_a_late_rating_of_an_item_that_reached_its_quota_is_refused_with_409(ann, qualified):
    batch = make_batch("b", n_items=1, quota=1)
    assignment = _reserve(ann, batch)
    Assignment.objects.filter(pk=assignment).update(expires_at=timezone.now() - timedelta(minutes=1))
    other = make_qualified_annotator("ann_fast")
    taken = assignment_next(batch=batch, annotator=other)  # the expired reservation is given back to the queue
    post(token_client(other), API + "annotations/", _rating(taken.pk))
    response = post(ann, API + "annotations/", _rating(assignment))
    assert response.status_code == 409 and response.json()["outcome"] == "refused"
    assert "b_000" in response.json()["error"]
    assert not Annotation.objects.filter(annotator=qualified).exists() and QueueEntry.objects.get().taken_count == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"scores": {**SCORES, "social": 7}}, "scores.social"),
        ({"scores": {k: v for k, v in SCORES.items() if k != "self"}}, "scores.self"),
        ({"scores": {**SCORES, "kindness": 3}}, "scores.kindness"),
        ({"confidence": {**CONFIDENCE, "avoidant": 1.5}}, "confidence.avoidant"),
        ({"scores": {**SCORES, "mechanical": "high"}}, "scores.mechanical"),
        ({"assignment_id": "x"}, "assignment_id"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_validation_errors_name_the_field_and_store_nothing(ann, body, field):
    batch = make_batch("b")
    response = post(ann, API + "annotations/", {**_rating(_reserve(ann, batch)), **body})
    assert response.status_code == 400 and response.json()["field"] == field
    assert field in response.json()["error"] and not Annotation.objects.exists()


def test_one_cannot_submit_another_annotators_assignment(ann, ann_2):
    batch = make_batch("b")
    response = post(ann_2, API + "annotations/", _rating(_reserve(ann, batch)))
    assert response.status_code == 404 and response.json()["field"] == "assignment_id"
    assert not Annotation.objects.exists()


def test_researchers_and_unqualified_annotators_cannot_submit(res, unqualified):
    batch = make_batch("b")
    assignment = assignment_next(batch=batch, annotator=unqualified)
    assert post(res, API + "annotations/", _rating(assignment.pk)).status_code == 403
    assert post(logged_in(unqualified), API + "annotations/", _rating(assignment.pk)).status_code == 403
    assert not Annotation.objects.exists()


def test_annotators_read_only_their_own_researchers_read_all(ann, ann_2, res):
    batch = make_batch("b")
    mine, theirs = _rated(ann, batch), _rated(ann_2, batch)
    assert [r["id"] for r in ann.get(API + "annotations/").json()["results"]] == [mine["id"]]
    assert ann.get(API + f"annotations/{theirs['id']}/").status_code == 404
    assert ann.get(API + f"annotations/{mine['id']}/").json()["scores"] == SCORES
    assert walk(ann, API + "annotations/?annotator=ann_q2") == []
    assert len(walk(res, API + "annotations/")) == 2
    assert res.get(API + f"annotations/{theirs['id']}/").json()["annotator"] == "ann_q2"


def test_researchers_filter_by_batch_annotator_dialogue_source_and_since(res, ann, ann_2, qualified):
    first, second = make_batch("b1", n_items=2), make_batch("b2", n_items=1)
    _rated(ann, first)
    _rated(ann, second)
    _rated(ann_2, first)
    Annotation.objects.filter(dialogue__batch=second).update(
        source="import", updated_at=timezone.now() - timedelta(days=3)
    )

    def ids(query):
        return sorted((r["dialogue"], r["annotator"]) for r in res.get(API + "annotations/?" + query).json()["results"])

    # the queue gives the second annotator the item with fewer ratings: b1_001
    assert ids(f"batch={first.pk}") == [("b1_000", "ann_q1"), ("b1_001", "ann_q2")]
    assert ids("annotator=ann_q1") == [("b1_000", "ann_q1"), ("b2_000", "ann_q1")]
    assert ids("dialogue=b2_000") == [("b2_000", "ann_q1")]
    assert ids("source=import") == [("b2_000", "ann_q1")]
    since = (timezone.now() - timedelta(days=1)).date().isoformat()
    assert ids(f"since={since}") == [("b1_000", "ann_q1"), ("b1_001", "ann_q2")]
    assert ids(f"batch={first.pk}&annotator=ann_q2") == [("b1_001", "ann_q2")]


@pytest.mark.parametrize(
    ("query", "field"),
    [("batch=seven", "batch"), ("batch=0", "batch"), ("batch=", "batch"), ("batch=1&batch=2", "batch"),
     ("annotator=", "annotator"), ("source=fax", "source"), ("source=", "source"), ("since=yesterday", "since"),
     ("since=2025-01-31T09:00:00", "since"), ("page_size=", "page_size"), ("page_size=5&page_size=6", "page_size"),
     ("cursor=", "cursor"), ("dialogue=a%00b", "dialogue"), ("annotator=a%00", "annotator")],
)  # fmt: skip
def test_bad_filters_are_400_naming_the_parameter(res, query, field):
    """Issue 41: an empty value, a value given twice, a time without its offset and a NUL character (a 500 on
    PostgreSQL before) are refused too."""
    response = res.get(API + "annotations/?" + query)
    assert response.status_code == 400 and response.json()["field"] == field, response.content


@pytest.mark.parametrize(("query", "field"), [("batch=999", "batch"), ("annotator=ghost", "annotator")])
def test_a_filter_naming_nothing_that_exists_is_404_naming_the_parameter(res, query, field):
    """Issue 41: like an id in the path that is no object's (the schema cannot list the batches and users)."""
    response = res.get(API + "annotations/?" + query)
    assert response.status_code == 404 and response.json()["field"] == field
    assert response.json()["problems"] == [{"path": field, "message": response.json()["errors"][0]["message"]}]


def test_since_takes_a_date_or_an_rfc_3339_time_and_a_time_past_the_calendar_matches_nothing(res):
    assert res.get(API + "annotations/?since=2025-01-31").status_code == 200
    assert res.get(API + "annotations/?since=2025-01-31T09:00:00%2B09:00").status_code == 200
    assert res.get(API + "annotations/?since=0001-01-01").status_code == 200  # before 0001-01-01 in UTC: all
    assert res.get(API + "annotations/?since=9999-12-31T23:59:59-23:59").json()["results"] == []


def test_pagination_of_ratings(res, qualified):
    batch = make_batch("b", n_items=7)
    client = logged_in(qualified)
    for _ in range(7):
        _rated(client, batch)
    first = res.get(API + "annotations/?page_size=3").json()
    assert len(first["results"]) == 3 and first["previous"] is None and "count" not in first
    seen = [r["id"] for r in walk(res, API + "annotations/?page_size=3")]
    assert seen == list(Annotation.objects.order_by("-updated_at", "-pk").values_list("pk", flat=True))


def test_the_owner_corrects_a_rating_and_the_history_is_kept(ann, qualified):
    batch = make_batch("b")
    rating = _rated(ann, batch)
    body = {"scores": {"social": 2}, "confidence": {"self": 0.5}, "reason": "読み直した"}
    response = patch(ann, API + f"annotations/{rating['id']}/", body)
    assert response.status_code == 200
    shown = response.json()
    assert shown["scores"] == {**SCORES, "social": 2} and shown["confidence"]["self"] == 0.5
    edit = AnnotationEdit.objects.get()
    assert edit.edited_by == qualified and edit.reason == "読み直した"
    assert edit.old_values["social_score"] == 4 and edit.new_values["social_score"] == 2
    assert shown["edits"][0]["reason"] == "読み直した" and shown["edits"][0]["old_values"]["social_score"] == 4


def test_a_correction_needs_a_reason_and_a_change(ann):
    rating = _rated(ann, make_batch("b"))
    no_reason = patch(ann, API + f"annotations/{rating['id']}/", {"scores": {"social": 2}})
    assert no_reason.status_code == 400 and no_reason.json()["field"] == "reason"
    nothing = patch(ann, API + f"annotations/{rating['id']}/", {"reason": "x"})
    assert nothing.status_code == 400 and nothing.json()["field"] == "scores"
    out_of_range = patch(ann, API + f"annotations/{rating['id']}/", {"scores": {"self": 0}, "reason": "x"})
    assert out_of_range.status_code == 400 and out_of_range.json()["field"] == "scores.self"
    assert Annotation.objects.get().scores == SCORES and not AnnotationEdit.objects.exists()


def test_only_the_owner_may_correct(ann, ann_2, res):
    rating = _rated(ann, make_batch("b"))
    body = {"scores": {"social": 1}, "reason": "x"}
    assert patch(ann_2, API + f"annotations/{rating['id']}/", body).status_code == 404
    by_researcher = patch(res, API + f"annotations/{rating['id']}/", body)
    assert by_researcher.status_code == 403 and "only the annotator" in by_researcher.json()["error"]
    assert Annotation.objects.get().scores == SCORES


def test_ratings_work_with_a_token(qualified, researcher):
    batch = make_batch("b")
    script = token_client(qualified)
    rating = post(script, API + "annotations/", _rating(_reserve(script, batch))).json()["annotation"]
    assert (
        patch(script, API + f"annotations/{rating['id']}/", {"scores": {"self": 3}, "reason": "r"}).status_code == 200
    )
    assert token_client(researcher).get(API + f"annotations/{rating['id']}/").json()["scores"]["self"] == 3
