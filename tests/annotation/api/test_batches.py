"""``batches/``: researchers list, create and change batches; annotators see the batches open to them."""

import pytest
from django.test import Client

from annotation.models import Annotation, Batch
from core.api_tokens import token_create, token_revoke
from tests.annotation.api.support import API, CONFIDENCE, SCORES, logged_in, make_batch, patch, post, token_client, walk
from tests.helpers import make_qualified_annotator

pytestmark = pytest.mark.django_db


def _rate(batch, user, index=0):
    dialogue = batch.dialogues.order_by("pk")[index]
    values = {f"{a}_score": s for a, s in SCORES.items()} | {f"{a}_confidence": c for a, c in CONFIDENCE.items()}
    return Annotation.objects.create(dialogue=dialogue, annotator=user, **values)


@pytest.mark.parametrize(
    ("method", "url"),
    [("get", "batches/"), ("post", "batches/"), ("get", "batches/1/"), ("patch", "batches/1/")],
)
def test_anonymous_requests_get_401_with_a_json_message(client, method, url):
    response = getattr(client, method)(API + url, {}, content_type="application/json")
    assert response.status_code == 401
    assert response.json()["success"] is False and response.json()["error"]
    assert response["WWW-Authenticate"].startswith("Session")


def test_researchers_see_every_batch_with_settings_and_counts(res, qualified):
    open_ = make_batch("open", n_items=3, quota=2, guidelines_version="v1.2")
    make_batch("closed", n_items=1, status=Batch.Status.CLOSED)
    open_.annotators.add(qualified)
    _rate(open_, qualified)
    body = res.get(API + "batches/").json()
    assert len(body["results"]) == 2 and body["previous"] is None and body["next"] is None
    row = next(r for r in body["results"] if r["name"] == "open")
    assert row == {
        "id": open_.pk, "name": "open", "description": "", "status": "open", "annotations_per_item": 2,
        "restricted": False, "annotators": ["ann_q1"], "disagreement_spread": 2, "guidelines_version": "v1.2",
        "created_at": row["created_at"], "n_items": 3, "n_ratings": 1,
    }  # fmt: skip


def test_annotators_see_only_batches_open_to_them_with_their_own_progress(ann, qualified, qualified_2):
    mine = make_batch("mine", n_items=2, restricted=True)
    mine.annotators.add(qualified)
    others = make_batch("others", n_items=2, restricted=True)
    others.annotators.add(qualified_2)
    make_batch("closed", n_items=2, status=Batch.Status.CLOSED)
    make_batch("paused", n_items=2, status=Batch.Status.PAUSED)
    Batch.objects.create(name="empty")
    _rate(mine, qualified)
    _rate(mine, qualified_2, index=1)
    body = ann.get(API + "batches/").json()
    assert sorted(r["name"] for r in body["results"]) == ["mine", "paused"]
    row = next(r for r in body["results"] if r["name"] == "mine")
    assert "annotators" not in row and "n_ratings" not in row
    assert row["progress"] == {"done_total": 1, "done_today": 1, "items": 2, "ratings_needed": 6, "ratings_done": 2,
                               "work_left": True}  # fmt: skip
    assert ann.get(API + f"batches/{others.pk}/").status_code == 404
    assert ann.get(API + f"batches/{mine.pk}/").json()["progress"]["done_total"] == 1


def test_annotators_must_pass_the_qualification_first(unqualified):
    make_batch("open")
    response = logged_in(unqualified).get(API + "batches/")
    error = response.json()["error"]
    assert response.status_code == 403 and ("認定テスト" in error or "qualification test" in error)


def test_users_without_a_role_get_403(outsider):
    response = logged_in(outsider).get(API + "batches/")
    assert response.status_code == 403 and "researcher or annotator" in response.json()["error"]


def test_researchers_create_an_empty_batch_with_settings(res, qualified, qualified_2):
    body = {"name": "pilot-02", "annotations_per_item": 2, "restricted": True, "annotators": ["ann_q1", "ann_q2"],
            "guidelines_version": "v1.3", "description": "二回目", "disagreement_spread": 3}  # fmt: skip
    response = post(res, API + "batches/", body)
    assert response.status_code == 201
    batch = Batch.objects.get(name="pilot-02")
    assert (batch.annotations_per_item, batch.restricted, batch.guidelines_version, batch.disagreement_spread) == (
        2, True, "v1.3", 3)  # fmt: skip
    assert sorted(batch.annotators.values_list("username", flat=True)) == ["ann_q1", "ann_q2"]
    assert response.json()["id"] == batch.pk and response.json()["n_items"] == 0


def test_creating_needs_a_new_name_and_refuses_unknown_fields(res):
    make_batch("taken")
    response = post(res, API + "batches/", {"name": "taken"})
    assert response.status_code == 409 and response.json()["field"] == "name"  # a conflict with a stored batch
    response = post(res, API + "batches/", {"name": "new", "annotation_per_item": 2})
    assert response.status_code == 400 and response.json()["field"] == "annotation_per_item"
    assert "annotations_per_item" in response.json()["error"]
    assert not Batch.objects.filter(name="new").exists()


def test_annotators_cannot_create_or_change_batches(ann):
    batch = make_batch("b")
    assert post(ann, API + "batches/", {"name": "x"}).status_code == 403
    response = patch(ann, API + f"batches/{batch.pk}/", {"status": "closed"})
    assert response.status_code == 403 and "researcher role" in response.json()["error"]
    batch.refresh_from_db()
    assert batch.status == "open" and not Batch.objects.filter(name="x").exists()


def test_researchers_change_quota_status_and_chosen_annotators(res, qualified, qualified_2):
    batch = make_batch("b")
    body = {"annotations_per_item": 1, "status": "paused", "restricted": True, "annotators": ["ann_q1", "ann_q2"],
            "description": "d", "guidelines_version": "v2", "disagreement_spread": 1}  # fmt: skip
    response = patch(res, API + f"batches/{batch.pk}/", body)
    assert response.status_code == 200 and response.json()["annotators"] == ["ann_q1", "ann_q2"]
    batch.refresh_from_db()
    assert (batch.annotations_per_item, batch.status, batch.restricted, batch.description) == (1, "paused", True, "d")
    patch(res, API + f"batches/{batch.pk}/", {"annotators": ["ann_q2"]})
    assert list(batch.annotators.values_list("username", flat=True)) == ["ann_q2"]


def test_a_quota_over_the_chosen_annotators_is_refused_unless_explicitly_allowed(res, qualified, qualified_2):
    """Issue 30, point 3: such a batch would never complete (nobody rates an item twice)."""
    body = {"name": "never", "annotations_per_item": 2, "restricted": True, "annotators": ["ann_q1"]}
    response = post(res, API + "batches/", body)  # settings in conflict with each other: 409 (issue 41)
    assert response.status_code == 409 and response.json()["field"] == "annotations_per_item"
    assert "only 1 annotator(s) are chosen" in response.json()["error"]
    assert not Batch.objects.filter(name="never").exists()
    response = post(res, API + "batches/", {**body, "allow_unreachable_quota": True})
    assert response.status_code == 201 and "allow_unreachable_quota" not in response.json()
    batch = Batch.objects.get(name="never")
    assert batch.annotations_per_item == 2 and batch.restricted

    # A change is checked against the stored settings it leaves as they are.
    batch = make_batch("b", quota=2)
    batch.annotators.add(qualified, qualified_2)
    assert patch(res, API + f"batches/{batch.pk}/", {"restricted": True}).status_code == 200
    response = patch(res, API + f"batches/{batch.pk}/", {"annotators": ["ann_q2"]})
    assert response.status_code == 409 and response.json()["field"] == "annotations_per_item"
    response = patch(res, API + f"batches/{batch.pk}/", {"annotations_per_item": 3})
    assert response.status_code == 409
    assert (
        patch(res, API + f"batches/{batch.pk}/", {"annotators": ["ann_q2"], "annotations_per_item": 1}).status_code
        == 200
    )
    batch.refresh_from_db()
    assert batch.annotations_per_item == 1 and list(batch.annotators.values_list("username", flat=True)) == ["ann_q2"]


def test_an_unknown_username_is_named_and_nothing_changes(res, qualified):
    """A 404 naming the field (issue 41): the name is of no annotator, as an id in the path of no object."""
    batch = make_batch("b")
    for names in (["ann_q1", "ann_999"], ["res_001"]):
        response = patch(res, API + f"batches/{batch.pk}/", {"restricted": True, "annotators": names})
        assert response.status_code == 404
        assert response.json()["field"] == "annotators" and repr(names[-1]) in response.json()["error"]
    batch.refresh_from_db()
    assert not batch.restricted and not batch.annotators.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"annotations_per_item": 0}, "annotations_per_item"),
        ({"status": "archived"}, "status"),
        ({"disagreement_spread": 5}, "disagreement_spread"),
        ({"name": "renamed"}, "name"),
        ({"n_items": 3}, "n_items"),
        ({"restricted": 0}, "restricted"),
        ({"restricted": "true"}, "restricted"),
        ({"description": 7}, "description"),
        ({"allow_unreachable_quota": 0}, "allow_unreachable_quota"),
        ({"annotations_per_item": "2"}, "annotations_per_item"),
    ],
)
def test_bad_settings_are_refused_naming_the_field(res, body, field):
    batch = make_batch("b")
    response = patch(res, API + f"batches/{batch.pk}/", body)
    assert response.status_code == 400 and response.json()["field"] == field
    batch.refresh_from_db()
    assert (batch.name, batch.annotations_per_item, batch.status) == ("b", 3, "open")


def test_a_missing_batch_is_a_json_404(res):
    response = res.get(API + "batches/999/")
    assert response.status_code == 404 and response.json() == {
        "success": False,
        "error": "no batch with id 999",
        "detail": "no batch with id 999",
        "problems": [{"path": None, "message": "no batch with id 999"}],
    }


def test_pagination_and_the_status_filter(res):
    for i in range(5):
        make_batch(f"b{i}", n_items=0, status="closed" if i % 2 else "open")
    first = res.get(API + "batches/?page_size=2").json()
    assert len(first["results"]) == 2 and "cursor=" in first["next"] and "page_size=2" in first["next"]
    second = res.get(first["next"]).json()
    last = res.get(second["next"]).json()
    assert [r["name"] for r in last["results"]] == ["b4"] and last["next"] is None
    assert [r["name"] for r in res.get(last["previous"]).json()["results"]] == ["b2", "b3"]
    assert [r["name"] for r in walk(res, API + "batches/?page_size=2")] == [f"b{i}" for i in range(5)]
    closed = res.get(API + "batches/?status=closed").json()
    assert [r["name"] for r in closed["results"]] == ["b1", "b3"]
    bad = res.get(API + "batches/?status=gone")
    assert bad.status_code == 400 and bad.json()["field"] == "status"


def test_a_token_works_for_scripts_and_a_revoked_one_gets_401(researcher):
    make_batch("b")
    script = token_client(researcher)
    assert len(walk(script, API + "batches/")) == 1
    assert post(script, API + "batches/", {"name": "from-script"}).status_code == 201  # no CSRF token needed
    token, key = token_create(user=researcher, name="old")
    token_revoke(user=researcher, token_id=token.pk)
    response = Client().get(API + "batches/", headers={"Authorization": f"Token {key}"})
    assert response.status_code == 401 and response.json()["success"] is False


def test_an_annotators_token_carries_their_role(db):
    user = make_qualified_annotator("ann_tok")
    make_batch("b")
    script = token_client(user)
    assert [r["name"] for r in script.get(API + "batches/").json()["results"]] == ["b"]
    assert post(script, API + "batches/", {"name": "x"}).status_code == 403


def test_a_staff_user_counts_as_researcher(staff_user):
    make_batch("b")
    assert logged_in(staff_user).get(API + "batches/").json()["results"][0]["n_items"] == 3
