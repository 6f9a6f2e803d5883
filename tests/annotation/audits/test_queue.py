"""The audit queue: fewest first, never over per_item, one open reservation, skip, expiry, late and repeated submits."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.audits.queue import RESERVATION_MINUTES, Outcome, next_assignment, rating_edit, skip, submit
from annotation.audits.services import judge_audit_close, judge_audit_reopen
from annotation.models import AuditAssignment, AuditItem, AuditRating, AuditRatingEdit

pytestmark = pytest.mark.django_db


def make_user(username):
    """A rater (no password: hashing one costs more than the test)."""
    return User.objects.create(username=username)


def _age(assignment, minutes=RESERVATION_MINUTES + 1):
    """As if the reservation had been made ``minutes`` ago (past its expiry)."""
    past = timezone.now() - timedelta(minutes=minutes)
    AuditAssignment.objects.filter(pk=assignment.pk).update(
        reserved_at=past, expires_at=past + timedelta(minutes=RESERVATION_MINUTES)
    )
    assignment.refresh_from_db()


def _taken_is_exact(audit):
    """taken_count = ratings + open reservations, and never over per_item."""
    for item in AuditItem.objects.filter(audit=audit):
        ratings = AuditRating.objects.filter(item=item).count()
        open_ = AuditAssignment.objects.filter(item=item, status="reserved").count()
        assert item.taken_count == ratings + open_ <= audit.per_item, (item.key, item.taken_count, ratings, open_)


def test_the_item_with_the_fewest_ratings_and_reservations_comes_first(audit_of):
    audit = audit_of(size=12, per_item=2)
    first, second = make_user("r1"), make_user("r2")
    a = next_assignment(audit, first)
    b = next_assignment(audit, second)
    assert a.item_id != b.item_id
    assert [a.item_id, b.item_id] == list(AuditItem.objects.filter(audit=audit).values_list("id", flat=True)[:2])
    assert a.item.taken_count == 1 and AuditItem.objects.get(pk=a.item_id).taken_count == 1
    assert a.expires_at - a.reserved_at == timedelta(minutes=RESERVATION_MINUTES)


def test_an_open_reservation_is_returned_again_and_is_the_only_one(audit_of):
    audit = audit_of()
    rater = make_user("r1")
    first = next_assignment(audit, rater)
    assert next_assignment(audit, rater).pk == first.pk
    assert AuditAssignment.objects.filter(annotator=rater, status="reserved").count() == 1
    other = AuditItem.objects.filter(audit=audit).exclude(pk=first.item_id).first()
    now = timezone.now()
    with pytest.raises(IntegrityError), transaction.atomic():  # the database refuses a second one
        AuditAssignment.objects.create(item=other, audit=audit, annotator=rater, expires_at=now)
    _taken_is_exact(audit)


def test_the_quota_is_never_exceeded_and_nobody_gets_an_item_twice(audit_of):
    audit = audit_of(size=12, per_item=2)
    raters = [make_user(f"r{i}") for i in range(4)]
    rated = []
    for _round in range(20):
        for rater in raters:
            assignment = next_assignment(audit, rater)
            if assignment is not None:
                assert submit(assignment, rater, 1) is Outcome.STORED
                rated.append((assignment.item_id, rater.pk))
    assert all(next_assignment(audit, rater) is None for rater in raters)
    assert len(rated) == len(set(rated)) == 12 * 2
    assert all(item.ratings.count() == 2 for item in AuditItem.objects.filter(audit=audit))
    _taken_is_exact(audit)


def test_submit_stores_the_rating_with_the_time_spent_and_closes_the_assignment(audit_of):
    audit = audit_of()
    rater = make_user("r1")
    assignment = next_assignment(audit, rater)
    AuditAssignment.objects.filter(pk=assignment.pk).update(reserved_at=timezone.now() - timedelta(seconds=42))
    assignment.refresh_from_db()
    assert submit(assignment, rater, 2, comment=" unclear widget ") is Outcome.STORED
    rating = AuditRating.objects.get()
    assert (rating.item_id, rating.annotator, rating.score, rating.comment) == (
        assignment.item_id, rater, 2, "unclear widget"
    )  # fmt: skip
    assert 42 <= rating.seconds_spent < 60
    assert AuditAssignment.objects.get(pk=assignment.pk).status == "submitted"
    other = next_assignment(audit, rater)
    submit(other, rater, 0, seconds_spent=7.5)
    assert AuditRating.objects.get(item_id=other.item_id).seconds_spent == 7.5
    _taken_is_exact(audit)


def test_a_repeated_submit_changes_nothing(audit_of):
    audit = audit_of()
    rater = make_user("r1")
    assignment = next_assignment(audit, rater)
    assert submit(assignment, rater, 1) is Outcome.STORED
    assert submit(assignment, rater, 2) is Outcome.REPEATED
    assert list(AuditRating.objects.values_list("score", flat=True)) == [1]
    assert AuditItem.objects.get(pk=assignment.item_id).taken_count == 1


@pytest.mark.parametrize("score", [3, -1, True, "2", 1.0, None])
def test_a_score_outside_zero_to_two_is_refused(audit_of, score):
    audit = audit_of()
    rater = make_user("r1")
    assignment = next_assignment(audit, rater)
    with pytest.raises(ValueError, match="the score must be 0, 1 or 2"):
        submit(assignment, rater, score)
    assert not AuditRating.objects.exists()


def test_a_negative_time_spent_is_refused(audit_of):
    audit = audit_of()
    rater = make_user("r1")
    with pytest.raises(ValueError, match="seconds spent must be a number of at least 0"):
        submit(next_assignment(audit, rater), rater, 1, seconds_spent=-3)


def test_only_the_owner_may_submit_or_skip(audit_of):
    audit = audit_of()
    owner, intruder = make_user("r1"), make_user("r2")
    assignment = next_assignment(audit, owner)
    with pytest.raises(PermissionError):
        submit(assignment, intruder, 1)
    with pytest.raises(PermissionError):
        skip(assignment, intruder)
    assert not AuditRating.objects.exists()
    assert AuditAssignment.objects.get(pk=assignment.pk).status == "reserved"


def test_skip_gives_the_slot_back_and_the_item_never_comes_back_to_that_rater(audit_of):
    audit = audit_of(size=12, per_item=1)
    first, second = make_user("r1"), make_user("r2")
    assignment = next_assignment(audit, first)
    skipped = skip(assignment, first, reason=" cannot read the widget ")
    assert (skipped.status, skipped.skip_reason) == ("skipped", "cannot read the widget")
    assert AuditItem.objects.get(pk=assignment.item_id).taken_count == 0
    seen = set()
    while (given := next_assignment(audit, first)) is not None:
        seen.add(given.item_id)
        submit(given, first, 1)
    assert assignment.item_id not in seen and len(seen) == 11
    assert next_assignment(audit, second).item_id == assignment.item_id
    assert skip(assignment, first).status == "skipped"  # a second skip changes nothing
    _taken_is_exact(audit)


def test_an_abandoned_reservation_goes_to_the_next_rater_and_the_late_submit_is_refused_when_full(audit_of):
    audit = audit_of(size=11, per_item=1)
    slow, other = make_user("slow"), make_user("other")
    abandoned = next_assignment(audit, slow)
    for _ in range(10):  # the other items
        submit(next_assignment(audit, other), other, 2)
    assert next_assignment(audit, other) is None  # the last item is still reserved
    _age(abandoned)
    given = next_assignment(audit, other)  # the next-item step gave the expired slot back
    assert given.item_id == abandoned.item_id
    assert AuditAssignment.objects.get(pk=abandoned.pk).status == "expired"
    assert submit(abandoned, slow, 0) is Outcome.REFUSED
    assert submit(given, other, 1) is Outcome.STORED
    assert not AuditRating.objects.filter(annotator=slow).exists()
    _taken_is_exact(audit)


def test_a_late_submit_is_stored_while_the_item_has_room(audit_of):
    audit = audit_of(size=11, per_item=2)
    slow, other = make_user("slow"), make_user("other")
    late = next_assignment(audit, slow)
    _age(late)
    next_assignment(audit, other)  # sweeps the expired reservation
    assert AuditAssignment.objects.get(pk=late.pk).status == "expired"
    assert submit(late, slow, 2) is Outcome.STORED  # nothing a rater submitted is lost
    assert AuditRating.objects.get(annotator=slow).item_id == late.item_id
    _taken_is_exact(audit)


def test_an_expired_reservation_not_yet_given_back_is_stored_in_its_own_slot(audit_of):
    audit = audit_of(size=11, per_item=1)
    rater = make_user("r1")
    assignment = next_assignment(audit, rater)
    _age(assignment)
    assert submit(assignment, rater, 1) is Outcome.STORED
    assert AuditItem.objects.get(pk=assignment.item_id).taken_count == 1
    _taken_is_exact(audit)


def test_the_raters_own_expired_reservation_is_replaced_by_a_fresh_one(audit_of):
    audit = audit_of()
    rater = make_user("r1")
    old = next_assignment(audit, rater)
    _age(old)
    new = next_assignment(audit, rater)
    assert new.pk != old.pk and new.item_id != old.item_id and new.expires_at > timezone.now()
    assert AuditAssignment.objects.get(pk=old.pk).status == "expired"
    _taken_is_exact(audit)


def test_a_closed_audit_hands_out_nothing_but_takes_an_open_reservation(audit_of):
    audit = audit_of()
    rater, newcomer = make_user("r1"), make_user("r2")
    assignment = next_assignment(audit, rater)
    judge_audit_close(audit)
    assert next_assignment(audit, rater) is None and next_assignment(audit, newcomer) is None
    assert submit(assignment, rater, 2) is Outcome.STORED
    judge_audit_reopen(audit)
    assert next_assignment(audit, newcomer) is not None
    _taken_is_exact(audit)


def test_a_rating_stored_another_way_closes_the_open_reservation(audit_of):
    audit = audit_of()
    rater = make_user("r1")
    assignment = next_assignment(audit, rater)
    AuditRating.objects.create(item_id=assignment.item_id, annotator=rater, score=0)  # e.g. demo data
    fresh = next_assignment(audit, rater)
    assert fresh.item_id != assignment.item_id
    assert AuditAssignment.objects.get(pk=assignment.pk).status == "submitted"
    assert submit(assignment, rater, 2) is Outcome.REPEATED
    assert AuditRating.objects.get(item_id=assignment.item_id).score == 0
    _taken_is_exact(audit)


def test_rating_edit_keeps_the_history_and_changes_nothing_when_unchanged(audit_of):
    audit = audit_of()
    rater, other = make_user("r1"), make_user("r2")
    assignment = next_assignment(audit, rater)
    submit(assignment, rater, 1)
    rating = AuditRating.objects.get()
    assert rating_edit(rating, rater, 1).score == 1 and not AuditRatingEdit.objects.exists()
    edited = rating_edit(rating, rater, 2, reason="misread the binding")
    assert edited.score == 2 and AuditRating.objects.get().score == 2
    edit = AuditRatingEdit.objects.get()
    assert (edit.old_score, edit.new_score, edit.edited_by, edit.reason) == (1, 2, rater, "misread the binding")
    with pytest.raises(PermissionError):
        rating_edit(rating, other, 0)
    with pytest.raises(ValueError, match="the score must be 0, 1 or 2"):
        rating_edit(rating, rater, 5)
    assert AuditRating.objects.get().score == 2 and AuditRatingEdit.objects.count() == 1


def test_the_periodic_sweep_gives_back_expired_audit_reservations(audit_of):
    from django.core.management import call_command

    from annotation.tasks import expire_reservations_task

    audit = audit_of()
    first, second = make_user("r1"), make_user("r2")
    stale, fresh = next_assignment(audit, first), next_assignment(audit, second)
    _age(stale)
    assert expire_reservations_task() == 1
    assert AuditAssignment.objects.get(pk=stale.pk).status == "expired"
    assert AuditAssignment.objects.get(pk=fresh.pk).status == "reserved"
    _taken_is_exact(audit)
    _age(fresh)
    call_command("expire_reservations")
    assert AuditAssignment.objects.get(pk=fresh.pk).status == "expired"
    _taken_is_exact(audit)
