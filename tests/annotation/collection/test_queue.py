"""The work queue: fewest ratings first, never over quota, skip, expiry, idempotent submit."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from annotation.collection.progress import batch_progress
from annotation.collection.queue import (
    annotation_submit,
    assignment_next,
    assignment_skip,
    expire_reservations,
    rating_submit,
    recount_taken,
)
from annotation.models import Annotation, Assignment, Batch, Dialogue, QueueEntry
from tests.helpers import make_user

SCORES = {"social": 1, "avoidant": 2, "mechanical": 1, "self": 1}
CONFIDENCE = {"social": 1.0, "avoidant": 0.9, "mechanical": 0.8, "self": 1.0}


def _batch(n_items: int, quota: int = 3, name: str = "b") -> Batch:
    batch = Batch.objects.create(name=name, annotations_per_item=quota)
    Dialogue.objects.bulk_create(
        Dialogue(external_id=f"{name}_{i:03d}", user_text="u", response_text="r", batch=batch) for i in range(n_items)
    )
    return batch


@pytest.mark.django_db
def test_next_item_prefers_the_fewest_ratings():
    batch = _batch(3)
    first, second = make_user("a1", "annotator"), make_user("a2", "annotator")
    a = assignment_next(batch=batch, annotator=first)
    b = assignment_next(batch=batch, annotator=second)
    assert a.dialogue.external_id == "b_000" and b.dialogue.external_id == "b_001"


@pytest.mark.django_db
def test_an_open_reservation_is_returned_again():
    batch = _batch(3)
    user = make_user("a1", "annotator")
    first = assignment_next(batch=batch, annotator=user)
    assert assignment_next(batch=batch, annotator=user).pk == first.pk
    assert QueueEntry.objects.get(pk=first.dialogue_id).taken_count == 1


@pytest.mark.django_db
def test_quota_is_never_exceeded_and_nobody_gets_an_item_twice():
    batch = _batch(1, quota=2)
    users = [make_user(f"a{i}", "annotator") for i in range(3)]
    for user in users[:2]:
        assignment = assignment_next(batch=batch, annotator=user)
        annotation_submit(assignment=assignment, scores=SCORES, confidence=CONFIDENCE)
        assert assignment_next(batch=batch, annotator=user) is None
    assert assignment_next(batch=batch, annotator=users[2]) is None
    assert QueueEntry.objects.get().taken_count == 2


@pytest.mark.django_db
def test_submit_stores_the_rating_with_server_side_time_and_is_idempotent():
    batch = _batch(2)
    user = make_user("a1", "annotator")
    assignment = assignment_next(batch=batch, annotator=user)
    Assignment.objects.filter(pk=assignment.pk).update(reserved_at=timezone.now() - timedelta(seconds=42))
    assignment.refresh_from_db()
    first = annotation_submit(assignment=assignment, scores=SCORES, confidence=CONFIDENCE)
    again = annotation_submit(assignment=assignment, scores={**SCORES, "self": 5}, confidence=CONFIDENCE)
    assert first.created and not again.created
    assert again.annotation.pk == first.annotation.pk and Annotation.objects.count() == 1
    stored = Annotation.objects.get()
    assert stored.scores == SCORES and stored.confidences == CONFIDENCE and stored.source == "web"
    assert 42 <= stored.seconds_spent < 60
    assignment.refresh_from_db()
    assert assignment.status == "submitted"
    assert QueueEntry.objects.get(pk=assignment.dialogue_id).taken_count == 1


@pytest.mark.django_db
def test_skip_gives_the_slot_back_and_the_item_is_not_offered_again_to_that_annotator():
    batch = _batch(1, quota=1)
    first, second = make_user("a1", "annotator"), make_user("a2", "annotator")
    assignment = assignment_next(batch=batch, annotator=first)
    assignment_skip(assignment=assignment, reason="unclear context")
    assignment.refresh_from_db()
    assert assignment.status == "skipped" and assignment.skip_reason == "unclear context"
    assert assignment_next(batch=batch, annotator=first) is None
    assert assignment_next(batch=batch, annotator=second).dialogue_id == assignment.dialogue_id


@pytest.mark.django_db
def test_expired_reservations_are_released_and_a_late_submission_is_still_stored():
    batch = _batch(1, quota=1)
    slow, other = make_user("a1", "annotator"), make_user("a2", "annotator")
    assignment = assignment_next(batch=batch, annotator=slow)
    assert expire_reservations(now=timezone.now() + timedelta(hours=2)) == 1
    assert QueueEntry.objects.get().taken_count == 0
    late = annotation_submit(assignment=assignment, scores=SCORES, confidence=CONFIDENCE)
    assert late.created  # nothing an annotator submitted is lost
    assert QueueEntry.objects.get().taken_count == 1
    assert assignment_next(batch=batch, annotator=other) is None


@pytest.mark.django_db
def test_imported_ratings_count_toward_the_quota():
    batch = _batch(1, quota=1)
    item = Dialogue.objects.get()
    Annotation.objects.create(dialogue=item, annotator=make_user("imp", "annotator"), **{
        f"{a}_score": 1 for a in SCORES})  # fmt: skip
    recount_taken([item.pk])
    assert assignment_next(batch=batch, annotator=make_user("a1", "annotator")) is None


@pytest.mark.django_db
def test_progress_counts_today_and_batch():
    batch = _batch(2, quota=2)
    user = make_user("a1", "annotator")
    annotation_submit(assignment=assignment_next(batch=batch, annotator=user), scores=SCORES, confidence=CONFIDENCE)
    progress = batch_progress(batch=batch, annotator=user)
    assert progress == {"done_today": 1, "done_total": 1, "items": 2, "ratings_needed": 4, "ratings_done": 1}


@pytest.mark.django_db(transaction=True)
def test_twenty_annotators_at_once_never_over_assign_and_lose_nothing():
    if connection.vendor != "postgresql":
        pytest.skip("row locks (SELECT ... FOR UPDATE SKIP LOCKED) are proven on PostgreSQL")
    batch = _batch(30, quota=3)
    users = [make_user(f"c{i:02d}", "annotator") for i in range(20)]
    submitted: list[tuple[int, int]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(len(users))

    def work(user, hot_path: bool):
        try:
            start.wait()
            while True:
                assignment = assignment_next(batch=batch, annotator=user)
                if assignment is None:
                    return
                if hot_path:  # the rating page's single-statement submit
                    created = rating_submit(
                        batch_id=batch.pk, assignment_id=assignment.pk, annotator=user, scores=SCORES,
                        confidence=CONFIDENCE,
                    ).created  # fmt: skip
                else:
                    created = annotation_submit(assignment=assignment, scores=SCORES, confidence=CONFIDENCE).created
                assert created
                with lock:
                    submitted.append((assignment.dialogue_id, user.pk))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(user, i % 2 == 0)) for i, user in enumerate(users)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    per_item = {d.pk: d.annotations.count() for d in Dialogue.objects.filter(batch=batch)}
    assert max(per_item.values()) <= 3
    assert sum(per_item.values()) == 90 == len(submitted) == len(set(submitted))
    assert set(Annotation.objects.values_list("dialogue_id", "annotator_id")) == set(submitted)
    assert all(e.taken_count == 3 for e in QueueEntry.objects.filter(batch=batch))


@pytest.mark.django_db
def test_progress_counts_items_once_however_many_ratings_they_have():
    batch = _batch(2, quota=3)
    for name in ("p1", "p2", "p3"):  # the third rating goes to an item that already has one
        user = make_user(name, "annotator")
        annotation_submit(assignment=assignment_next(batch=batch, annotator=user), scores=SCORES, confidence=CONFIDENCE)
    progress = batch_progress(batch=batch, annotator=user)
    assert progress["items"] == 2 and progress["ratings_needed"] == 6 and progress["ratings_done"] == 3


@pytest.mark.django_db(transaction=True)
def test_one_annotator_in_several_tabs_at_once_keeps_every_count_right():
    """Requests of the same annotator racing each other: no item twice, taken_count = ratings + open reservations."""
    if connection.vendor != "postgresql":
        pytest.skip("needs concurrent PostgreSQL connections")
    batch = _batch(40, quota=2)
    user = make_user("tabs", "annotator")
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def work():
        try:
            start.wait()
            for _ in range(15):
                assignment = assignment_next(batch=batch, annotator=user)
                if assignment is None:
                    return
                rating_submit(
                    batch_id=batch.pk, assignment_id=assignment.pk, annotator=user, scores=SCORES, confidence=CONFIDENCE
                )
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    rated = list(Annotation.objects.filter(annotator=user).values_list("dialogue_id", flat=True))
    assert len(rated) == len(set(rated)) > 0
    for dialogue in Dialogue.objects.filter(batch=batch):
        open_ = Assignment.objects.filter(dialogue=dialogue, status=Assignment.Status.RESERVED).count()
        assert dialogue.queue_entry.taken_count == dialogue.annotations.count() + open_ <= 2


@pytest.mark.django_db
def test_a_lost_race_for_the_picked_item_is_retried(monkeypatch):
    """When the statement reports that another request of the annotator reserved the picked item, ask again."""
    if connection.vendor != "postgresql":
        pytest.skip("the single-statement queue is PostgreSQL's")
    from annotation.collection import queue_postgresql

    batch = _batch(2)
    user = make_user("raced", "annotator")
    real_fetch, calls = queue_postgresql.fetch, []

    def fetch_losing_once(sql, params, **kwargs):
        calls.append(sql)
        row = real_fetch(sql, params, **kwargs)
        if len(calls) == 1:
            return (None, None, None, *row[3:])  # what the statement returns when its INSERT found a conflict
        return row

    monkeypatch.setattr(queue_postgresql, "fetch", fetch_losing_once)
    assignment = assignment_next(batch=batch, annotator=user)
    assert len(calls) == 2 and assignment is not None
    assert assignment.pk == Assignment.objects.get(annotator=user, status=Assignment.Status.RESERVED).pk
