"""``rating_submit``: the rating page's submit (one statement on PostgreSQL) keeps every queue guarantee."""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.collection.forms import RatingForm, parse_rating
from annotation.collection.queue import assignment_next, assignment_skip, expire_reservations, rating_submit
from annotation.models import Annotation, Assignment, Batch, Dialogue, QueueEntry
from tests.helpers import make_user

SCORES = {"social": 2, "avoidant": 5, "mechanical": 1, "self": 3}
CONFIDENCE = {"social": 1.0, "avoidant": 0.7, "mechanical": 0.0, "self": 0.5}
pytestmark = pytest.mark.django_db


def _batch(n_items: int = 2, quota: int = 3, name: str = "s") -> Batch:
    batch = Batch.objects.create(name=name, annotations_per_item=quota)
    Dialogue.objects.bulk_create(
        Dialogue(external_id=f"{name}_{i:03d}", user_text="u", response_text="r", batch=batch) for i in range(n_items)
    )
    return batch


def _submit(batch, assignment, user, scores=SCORES):
    return rating_submit(
        batch_id=batch.pk, assignment_id=assignment.pk, annotator=user, scores=scores, confidence=CONFIDENCE
    )


def test_stores_the_values_and_the_time_spent_and_closes_the_assignment():
    batch, user = _batch(), make_user("a1", "annotator")
    assignment = assignment_next(batch=batch, annotator=user)
    Assignment.objects.filter(pk=assignment.pk).update(reserved_at=timezone.now() - timedelta(seconds=30))
    rated = _submit(batch, assignment, user)
    assert rated.created and rated.batch == batch and rated.external_id == assignment.dialogue.external_id
    stored = Annotation.objects.get()
    assert stored.scores == SCORES and stored.confidences == CONFIDENCE
    assert stored.source == "web" and stored.annotator == user and 30 <= stored.seconds_spent < 60
    assert Assignment.objects.get(pk=assignment.pk).status == "submitted"
    assert QueueEntry.objects.get(pk=assignment.dialogue_id).taken_count == 1


def test_a_repeated_submission_stores_nothing_more():
    batch, user = _batch(), make_user("a1", "annotator")
    assignment = assignment_next(batch=batch, annotator=user)
    assert _submit(batch, assignment, user).created
    again = _submit(batch, assignment, user, scores={**SCORES, "self": 5})
    assert again is not None and not again.created
    assert Annotation.objects.get().self_score == 3
    assert QueueEntry.objects.get(pk=assignment.dialogue_id).taken_count == 1


def test_another_annotators_assignment_or_another_batch_is_refused():
    batch, other_batch = _batch(name="s"), _batch(name="t")
    owner, intruder = make_user("a1", "annotator"), make_user("a2", "annotator")
    assignment = assignment_next(batch=batch, annotator=owner)
    assert _submit(batch, assignment, intruder) is None
    assert _submit(other_batch, assignment, owner) is None
    assert (
        rating_submit(batch_id=batch.pk, assignment_id=10**9, annotator=owner, scores=SCORES, confidence=CONFIDENCE)
        is None
    )
    assert not Annotation.objects.exists()
    assert Assignment.objects.get(pk=assignment.pk).status == "reserved"


@pytest.mark.parametrize("give_back", ["expire", "skip"])
def test_a_late_submission_takes_its_slot_again(give_back):
    batch, user = _batch(n_items=1, quota=1), make_user("a1", "annotator")
    assignment = assignment_next(batch=batch, annotator=user)
    if give_back == "expire":
        assert expire_reservations(now=timezone.now() + timedelta(hours=2)) == 1
    else:
        assignment_skip(assignment=assignment)
    assert QueueEntry.objects.get().taken_count == 0
    assert _submit(batch, assignment, user).created  # nothing an annotator submitted is lost
    assert QueueEntry.objects.get().taken_count == 1
    assert assignment_next(batch=batch, annotator=make_user("a2", "annotator")) is None


def test_next_after_submit_hands_out_a_new_item_and_returns_an_open_reservation_again():
    batch, user = _batch(n_items=3), make_user("a1", "annotator")
    first = assignment_next(batch=batch, annotator=user)
    assert assignment_next(batch=batch, annotator=user).pk == first.pk
    _submit(batch, first, user)
    second = assignment_next(batch=batch, annotator=user)
    assert second.pk != first.pk and second.dialogue_id != first.dialogue_id
    assert second.dialogue.context == [] and second.dialogue.batch_id == batch.pk


def _rating(score: str | None, confidence: str | None) -> dict:
    data = {a: score for a in SCORES} if score is not None else {}
    return data | ({f"{a}_confidence": confidence for a in SCORES} if confidence is not None else {})


@pytest.mark.parametrize(
    ("data", "valid"),
    [
        ({}, False),
        ({"social": "1"}, False),
        (_rating("3", "1.0"), True),
        (_rating("3", "1"), True),  # the form reads numbers: "1" is 1.0 ...
        (_rating("3", "0.70"), True),  # ... and "0.70" is 0.7
        (_rating("6", "1.0"), False),
        (_rating(" 3", "0.7"), False),
        (_rating("5", "0.0"), True),
        (_rating("2", "0.05"), False),
        (_rating("2", "1.5"), False),
        (_rating("2", "nan"), False),
        (_rating("2", None), False),
        (_rating("3.0", "0.5"), False),
    ],
)
def test_what_the_fast_parser_accepts_the_form_accepts_with_the_same_values(data, valid):
    """The view falls back to the form when the parser declines ("0.70"): never the other way round."""
    form = RatingForm(data)
    assert form.is_valid() == valid, form.errors
    parsed = parse_rating(data)
    if parsed is not None:
        assert valid and parsed == (form.scores(), form.confidences())
    if valid:
        assert set(form.confidences().values()) <= {0.0, 0.7, 1.0}
