"""Issue: no lost or stuck work in the queue (expiry, ratings that arrive another way, one open reservation)."""

import json
import threading
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, connections, transaction
from django.utils import timezone

from annotation.collection.queue import Outcome, assignment_next, expire_reservations
from annotation.io.imports import annotations_import
from annotation.models import Annotation, Assignment, Batch, Dialogue
from tests.annotation.collection.test_queue_submit import CONFIDENCE, SCORES, _submit
from tests.annotation.collection.test_queue_submit import _batch as queue_batch
from tests.helpers import make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db


def _batch(n_items: int = 1, quota: int = 1) -> Batch:
    return queue_batch(n_items=n_items, quota=quota, name="b")


def _age(assignment, minutes=61):
    """As if the reservation had been made ``minutes`` ago (past its expiry)."""
    past = timezone.now() - timedelta(minutes=minutes)
    Assignment.objects.filter(pk=assignment.pk).update(reserved_at=past, expires_at=past + timedelta(minutes=60))


def _taken_is_exact():
    for dialogue in Dialogue.objects.all():
        ratings = Annotation.objects.filter(dialogue=dialogue).count()
        open_ = Assignment.objects.filter(dialogue=dialogue, status="reserved").count()
        taken = dialogue.queue_entry.taken_count
        assert taken == ratings + open_, (dialogue.external_id, taken, ratings, open_)


# 1. Reservations expire without a scheduler ---------------------------------------------------------------


def test_an_abandoned_reservation_goes_to_the_next_annotator_and_the_late_submit_is_answered():
    batch = _batch(n_items=1, quota=1)
    alice, bob = make_user("alice", "annotator"), make_user("bob", "annotator")
    abandoned = assignment_next(batch=batch, annotator=alice)
    assert assignment_next(batch=batch, annotator=bob) is None  # still reserved
    _age(abandoned)
    given = assignment_next(batch=batch, annotator=bob)  # released by the next-item step itself
    assert given is not None and given.dialogue_id == abandoned.dialogue_id
    assert Assignment.objects.get(pk=abandoned.pk).status == "expired"
    late = _submit(batch, abandoned, alice)
    assert late.outcome is Outcome.REFUSED and not Annotation.objects.filter(annotator=alice).exists()
    assert _submit(batch, given, bob).outcome is Outcome.STORED
    _taken_is_exact()


def test_a_late_submit_is_stored_while_the_quota_allows():
    batch = _batch(n_items=2, quota=2)
    alice, bob = make_user("alice", "annotator"), make_user("bob", "annotator")
    abandoned = assignment_next(batch=batch, annotator=alice)
    _age(abandoned)
    assert expire_reservations() == 1
    assert assignment_next(batch=batch, annotator=bob).dialogue_id == abandoned.dialogue_id  # 1 of 2 slots
    assert _submit(batch, abandoned, alice).outcome is Outcome.STORED
    _taken_is_exact()


def test_the_sweep_command_releases_every_expired_reservation(capsys):
    batch = _batch(n_items=3, quota=1)
    for name in ("a", "b"):
        _age(assignment_next(batch=batch, annotator=make_user(name, "annotator")))
    call_command("expire_reservations")
    assert "released 2 expired reservation(s)" in capsys.readouterr().out
    assert not Assignment.objects.filter(status="reserved").exists()
    _taken_is_exact()


def test_the_sweep_is_scheduled(settings):
    from config.celery import app

    app.loader.import_default_modules()  # what a worker does at start: autodiscovery finds annotation.tasks
    entry = settings.CELERY_BEAT_SCHEDULE["expire-reservations"]
    assert entry["task"] in app.tasks and entry["schedule"] <= 600


def test_expired_reservation_page_flow_shows_a_clear_message(client):
    batch = _batch(n_items=1, quota=1)
    alice, bob = make_qualified_annotator("alice"), make_qualified_annotator("bob")
    abandoned = assignment_next(batch=batch, annotator=alice)
    _age(abandoned)
    assignment_next(batch=batch, annotator=bob)
    client.force_login(alice)
    data = {**{a: str(s) for a, s in SCORES.items()}, **{f"{a}_confidence": str(c) for a, c in CONFIDENCE.items()}}
    response = client.post(f"/annotate/{batch.pk}/{abandoned.pk}/submit/", data, follow=True)
    page = response.content.decode()
    assert response.status_code == 200
    assert "b_000" in page and "message-error" in page
    assert not Annotation.objects.filter(annotator=alice).exists()


# 2. A rating that arrived another way is never silently dropped -------------------------------------------


def _import_rating(tmp_path, annotator, dialogue, social=4):
    path = tmp_path / "ratings.jsonl"
    row = {
        "id": dialogue.external_id,
        "annotator_id": annotator.username,
        "timestamp": "2026-01-01T10:00:00Z",
        "annotations": {"social": social, "avoidant": 1, "mechanical": 1, "self": 1},
        "confidence": {"social": 0.9, "avoidant": 0.9, "mechanical": 0.9, "self": 0.9},
    }
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    annotations_import(paths=[path])


def test_import_closes_the_open_reservation_and_the_queue_never_hands_the_item_out_again(tmp_path):
    batch = _batch(n_items=2, quota=2)
    alice = make_qualified_annotator("alice")
    reserved = assignment_next(batch=batch, annotator=alice)
    _import_rating(tmp_path, alice, reserved.dialogue)
    assert Assignment.objects.get(pk=reserved.pk).status == "closed"
    _taken_is_exact()
    following = assignment_next(batch=batch, annotator=alice)
    assert following is not None and following.dialogue_id != reserved.dialogue_id
    late = _submit(batch, reserved, alice, scores={**SCORES, "social": 1})
    assert late.outcome is Outcome.RATED_ELSEWHERE
    assert Annotation.objects.get(annotator=alice, dialogue=reserved.dialogue).social_score == 4  # kept
    _taken_is_exact()


def test_a_rating_written_directly_is_kept_reported_and_counted_exactly():
    """The admin, a script, a spreadsheet to come: a rating stored without closing the reservation."""
    batch = _batch(n_items=1, quota=2)
    alice = make_user("alice", "annotator")
    reserved = assignment_next(batch=batch, annotator=alice)
    values = {f"{a}_score": 5 for a in SCORES} | {f"{a}_confidence": 1.0 for a in SCORES}
    Annotation.objects.create(dialogue=reserved.dialogue, annotator=alice, source="spreadsheet", **values)
    assert assignment_next(batch=batch, annotator=alice) is None  # never handed out again
    submitted = _submit(batch, reserved, alice)
    assert submitted.outcome is Outcome.RATED_ELSEWHERE
    assert submitted.annotation_id == Annotation.objects.get(annotator=alice).pk
    assert Annotation.objects.get(annotator=alice).social_score == 5
    assert Assignment.objects.get(pk=reserved.pk).status == "closed"
    _taken_is_exact()  # 1 rating, no open reservation (not 3 for 2 real ratings)
    again = _submit(batch, reserved, alice)
    assert again.outcome is Outcome.RATED_ELSEWHERE
    _taken_is_exact()


def test_the_rating_page_shows_what_is_stored_and_offers_the_edit(client, tmp_path):
    batch = _batch(n_items=2, quota=2)
    alice = make_qualified_annotator("alice")
    reserved = assignment_next(batch=batch, annotator=alice)
    _import_rating(tmp_path, alice, reserved.dialogue, social=4)
    client.force_login(alice)
    data = {**{a: "1" for a in SCORES}, **{f"{a}_confidence": "1.0" for a in SCORES}}
    page = client.post(f"/annotate/{batch.pk}/{reserved.pk}/submit/", data, follow=True).content.decode()
    stored = Annotation.objects.get(annotator=alice)
    assert "message-warning" in page and reserved.dialogue.external_id in page
    assert f'href="/annotate/history/{stored.pk}/edit/"' in page
    assert stored.social_score == 4


# 4. One open reservation per annotator and batch -----------------------------------------------------------


def test_the_database_refuses_a_second_open_reservation_in_a_batch():
    batch = _batch(n_items=2, quota=3)
    alice = make_user("alice", "annotator")
    first = assignment_next(batch=batch, annotator=alice)
    other = Dialogue.objects.exclude(pk=first.dialogue_id).get()
    now = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(
            dialogue=other, batch=batch, annotator=alice, reserved_at=now, expires_at=now + timedelta(hours=1)
        )


@pytest.mark.django_db(transaction=True)
def test_concurrent_next_item_requests_of_one_annotator_leave_one_open_reservation():
    if connection.vendor != "postgresql":
        pytest.skip("needs concurrent PostgreSQL connections")
    batch = _batch(n_items=20, quota=3)
    alice = make_user("alice", "annotator")
    start = threading.Barrier(6)
    got, errors = [], []

    def ask():
        try:
            start.wait()
            got.append(assignment_next(batch=batch, annotator=alice).pk)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert len(set(got)) == 1
    assert Assignment.objects.filter(annotator=alice, status="reserved").count() == 1
    _taken_is_exact()
