"""Undoing a skip (``assignment_unskip``): the owner's skipped item is reserved again while its quota allows."""

import threading
import time

import pytest
from django.db import connection, connections

from annotation.collection.queue import Unskip, assignment_next, assignment_skip, assignment_unskip, rating_submit
from annotation.models import Annotation, Assignment, Batch, Dialogue, QueueEntry
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
SCORES = {"social": 1, "avoidant": 2, "mechanical": 1, "self": 1}
CONFIDENCE = dict.fromkeys(SCORES, 1.0)


def _batch(n_items: int, quota: int = 2, name: str = "u") -> Batch:
    batch = Batch.objects.create(name=name, annotations_per_item=quota)
    Dialogue.objects.bulk_create(
        Dialogue(external_id=f"{name}_{i}", user_text="u", response_text="r", batch=batch) for i in range(n_items)
    )
    return batch


def _taken(dialogue_id: int) -> int:
    return QueueEntry.objects.get(pk=dialogue_id).taken_count


def _skip_and_move_on(batch, user):
    skipped = assignment_next(batch=batch, annotator=user)
    assignment_skip(assignment=skipped, reason="文脈不足")
    shown_next = assignment_next(batch=batch, annotator=user)
    return skipped, shown_next


def test_undo_reopens_the_skipped_item_and_gives_back_the_one_shown_after_the_skip():
    batch = _batch(3)
    user = make_user("ann", "annotator")
    skipped, shown_next = _skip_and_move_on(batch, user)
    assert _taken(skipped.dialogue_id) == 0 and _taken(shown_next.dialogue_id) == 1

    done = assignment_unskip(assignment=skipped, annotator=user)

    assert done.outcome is Unskip.REOPENED and done.released.pk == shown_next.pk
    skipped.refresh_from_db()
    assert skipped.status == "reserved" and skipped.skip_reason == "" and skipped.finished_at is None
    assert skipped.expires_at > skipped.reserved_at
    assert not Assignment.objects.filter(pk=shown_next.pk).exists()
    assert _taken(skipped.dialogue_id) == 1 and _taken(shown_next.dialogue_id) == 0
    assert Assignment.objects.filter(annotator=user, status="reserved").count() == 1
    # The queue shows the reopened item now, and the one given back comes to the annotator again later.
    assert assignment_next(batch=batch, annotator=user).pk == skipped.pk
    rating_submit(batch_id=batch.pk, assignment_id=skipped.pk, annotator=user, scores=SCORES, confidence=CONFIDENCE)
    assert assignment_next(batch=batch, annotator=user).dialogue_id == shown_next.dialogue_id


def test_without_another_open_reservation_nothing_is_given_back():
    batch = _batch(1)
    user = make_user("ann", "annotator")
    skipped, shown_next = _skip_and_move_on(batch, user)
    assert shown_next is None
    done = assignment_unskip(assignment=skipped, annotator=user)
    assert done.reopened and done.released is None and _taken(skipped.dialogue_id) == 1


def test_only_the_owner_can_undo_a_skip():
    batch = _batch(2)
    owner, other = make_user("owner", "annotator"), make_user("other", "annotator")
    skipped, _ = _skip_and_move_on(batch, owner)
    done = assignment_unskip(assignment=skipped, annotator=other)
    assert done.outcome is Unskip.NOT_SKIPPED
    skipped.refresh_from_db()
    assert skipped.status == "skipped" and skipped.annotator == owner and _taken(skipped.dialogue_id) == 0


def test_a_skip_cannot_be_undone_once_the_item_has_its_quota():
    batch = _batch(2, quota=1)
    user, other = make_user("ann", "annotator"), make_user("other", "annotator")
    skipped, shown_next = _skip_and_move_on(batch, user)
    taken_by_other = assignment_next(batch=batch, annotator=other)
    assert taken_by_other.dialogue_id == skipped.dialogue_id  # the slot went to someone else

    done = assignment_unskip(assignment=skipped, annotator=user)

    assert done.outcome is Unskip.FULL
    skipped.refresh_from_db()
    assert skipped.status == "skipped" and _taken(skipped.dialogue_id) == 1
    # The annotator's current item is left alone when the undo is refused.
    assert Assignment.objects.get(pk=shown_next.pk).status == "reserved" and _taken(shown_next.dialogue_id) == 1


def test_only_skipped_assignments_are_reopened():
    batch = _batch(2)
    user = make_user("ann", "annotator")
    open_ = assignment_next(batch=batch, annotator=user)
    assert assignment_unskip(assignment=open_, annotator=user).outcome is Unskip.NOT_SKIPPED
    rating_submit(batch_id=batch.pk, assignment_id=open_.pk, annotator=user, scores=SCORES, confidence=CONFIDENCE)
    open_.refresh_from_db()
    assert assignment_unskip(assignment=open_, annotator=user).outcome is Unskip.NOT_SKIPPED
    assert Assignment.objects.get(pk=open_.pk).status == "submitted"


def test_a_paused_batch_reopens_nothing():
    batch = _batch(2)
    user = make_user("ann", "annotator")
    skipped, _ = _skip_and_move_on(batch, user)
    Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.PAUSED)
    assert assignment_unskip(assignment=skipped, annotator=user).outcome is Unskip.UNAVAILABLE
    assert Assignment.objects.get(pk=skipped.pk).status == "skipped"


def test_an_item_rated_another_way_is_not_reopened():
    batch = _batch(2)
    user = make_user("ann", "annotator")
    skipped, _ = _skip_and_move_on(batch, user)
    values = {f"{axis}_score": 1 for axis in SCORES}
    Annotation.objects.create(dialogue_id=skipped.dialogue_id, annotator=user, **values)
    assert assignment_unskip(assignment=skipped, annotator=user).outcome is Unskip.RATED
    assert Assignment.objects.get(pk=skipped.pk).status == "skipped"


@pytest.mark.django_db(transaction=True)
def test_two_annotators_undoing_at_once_never_take_the_last_slot_twice(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("row locks are proven on PostgreSQL (SQLite serialises every write transaction)")
    from annotation.collection import queue

    batch = _batch(3, quota=1, name="race")
    users = [make_user(f"r{i}", "annotator") for i in range(2)]
    skips = []
    for user in users:  # both skip the first item, and each has another item open
        skipped, shown_next = _skip_and_move_on(batch, user)
        assert shown_next is not None
        skips.append(skipped)
    assert skips[0].dialogue_id == skips[1].dialogue_id and _taken(skips[0].dialogue_id) == 0
    give_back = queue._give_back

    def slow_give_back(reservation, *, now):  # widens the window between the quota check and taking the slot
        time.sleep(0.3)
        give_back(reservation, now=now)

    monkeypatch.setattr(queue, "_give_back", slow_give_back)
    outcomes, errors = [], []
    start = threading.Barrier(2)

    def undo(assignment, user):
        try:
            start.wait()
            outcomes.append(assignment_unskip(assignment=assignment, annotator=user).outcome)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=undo, args=(a, u)) for a, u in zip(skips, users, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(outcomes) == sorted([Unskip.REOPENED, Unskip.FULL])
    assert _taken(skips[0].dialogue_id) == 1
    assert Assignment.objects.filter(dialogue_id=skips[0].dialogue_id, status="reserved").count() == 1
    # the refused annotator kept the item they had open
    assert Assignment.objects.filter(status="reserved").count() == 2
