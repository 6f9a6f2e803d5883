"""``batches/{id}/next/`` and ``assignments/{id}/skip/``: the work queue's rules hold through the API."""

import pytest

from annotation.models import Assignment, Batch, QueueEntry
from tests.annotation.api.support import API, CONFIDENCE, SCORES, logged_in, make_batch, post, token_client

pytestmark = pytest.mark.django_db


def _next(client, batch):
    return post(client, API + f"batches/{batch.pk}/next/")


def _submit(client, assignment_id):
    return post(client, API + "annotations/", {"assignment_id": assignment_id, "scores": SCORES,
                                               "confidence": CONFIDENCE})  # fmt: skip


@pytest.mark.parametrize("url", ["batches/1/next/", "assignments/1/skip/"])
def test_anonymous_requests_get_401(client, url):
    response = post(client, API + url)
    assert response.status_code == 401 and response.json()["success"] is False


def test_next_hands_out_an_item_with_its_reservation(ann, qualified):
    batch = make_batch("b", n_items=2)
    response = _next(ann, batch)
    assert response.status_code == 200
    body = response.json()
    assignment = Assignment.objects.get(annotator=qualified)
    assert body["assignment_id"] == assignment.pk and body["batch"] == batch.pk and body["expires_at"]
    assert body["dialogue"] == {"id": "b_000", "user": "質問 0", "response": "回答 0",
                                "context": [{"turn": -1, "speaker": "ai", "text": "前の応答"}]}  # fmt: skip
    assert _next(ann, batch).json()["assignment_id"] == assignment.pk  # the open reservation comes back


def test_with_quota_1_a_second_annotator_gets_204(ann, ann_2):
    batch = make_batch("b", n_items=1, quota=1)
    assert _next(ann, batch).status_code == 200
    response = _next(ann_2, batch)
    assert response.status_code == 204 and response.content == b""
    assert QueueEntry.objects.get().taken_count == 1


def test_nothing_left_after_rating_everything_is_204(ann):
    batch = make_batch("b", n_items=1)
    assert _submit(ann, _next(ann, batch).json()["assignment_id"]).status_code == 201
    assert _next(ann, batch).status_code == 204


@pytest.mark.parametrize(("state", "word"), [("paused", "paused"), ("closed", "closed")])
def test_a_paused_or_closed_batch_answers_409_saying_so(ann, state, word):
    batch = make_batch("b", status=state)
    response = _next(ann, batch)
    assert response.status_code == 409 and word in response.json()["error"] and "b" in response.json()["error"]
    assert not Assignment.objects.exists()


def test_an_annotator_not_chosen_gets_403_and_a_chosen_one_an_item(ann, ann_2, qualified_2):
    batch = make_batch("b", restricted=True)
    batch.annotators.add(qualified_2)
    response = _next(ann, batch)
    assert response.status_code == 403 and "chosen annotators" in response.json()["error"]
    assert _next(ann_2, batch).status_code == 200


def test_researchers_and_unqualified_annotators_get_no_items(res, unqualified):
    batch = make_batch("b")
    response = _next(res, batch)
    assert response.status_code == 403 and "annotator role" in response.json()["error"]
    unqualified_response = _next(logged_in(unqualified), batch)
    assert unqualified_response.status_code == 403
    assert not Assignment.objects.exists()


def test_a_missing_batch_is_404(ann):
    assert post(ann, API + "batches/999/next/").json() == {
        "success": False,
        "error": "no batch with id 999",
        "detail": "no batch with id 999",
        "problems": [{"path": None, "message": "no batch with id 999"}],
    }


def test_skip_then_next_gives_another_item(ann):
    batch = make_batch("b", n_items=2)
    first = _next(ann, batch).json()
    response = post(ann, API + f"assignments/{first['assignment_id']}/skip/", {"reason": "判断できない"})
    assert response.status_code == 200
    assert response.json() == {"assignment_id": first["assignment_id"], "status": "skipped",
                               "skip_reason": "判断できない"}  # fmt: skip
    second = _next(ann, batch).json()
    assert second["dialogue"]["id"] != first["dialogue"]["id"]
    assert QueueEntry.objects.get(dialogue__external_id=first["dialogue"]["id"]).taken_count == 0


def test_skipping_needs_an_open_reservation_of_ones_own(ann, ann_2):
    batch = make_batch("b", n_items=2)
    mine = _next(ann, batch).json()["assignment_id"]
    other = post(ann_2, API + f"assignments/{mine}/skip/")
    assert other.status_code == 404 and "of yours" in other.json()["error"]
    assert Assignment.objects.get(pk=mine).status == "reserved"
    _submit(ann, mine)
    again = post(ann, API + f"assignments/{mine}/skip/")
    assert again.status_code == 409 and "submitted" in again.json()["error"]
    too_long = post(ann, API + f"assignments/{_next(ann, batch).json()['assignment_id']}/skip/", {"reason": "x" * 301})
    assert too_long.status_code == 400 and too_long.json()["field"] == "reason"


def test_the_queue_works_with_a_token(qualified):
    batch = make_batch("b", n_items=2)
    script = token_client(qualified)
    first = _next(script, batch).json()["assignment_id"]
    assert post(script, API + f"assignments/{first}/skip/").status_code == 200
    assert _submit(script, _next(script, batch).json()["assignment_id"]).status_code == 201
    assert Batch.objects.get().dialogues.filter(annotations__annotator=qualified).count() == 1
