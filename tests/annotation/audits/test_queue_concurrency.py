"""The audit queue under concurrent raters (PostgreSQL: row locks, SKIP LOCKED, separate connections)."""

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections, transaction

from annotation.audits.queue import Outcome, next_assignment, submit
from annotation.models import AuditAssignment, AuditItem, AuditRating

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("row locks (SELECT ... FOR UPDATE SKIP LOCKED) are proven on PostgreSQL")


def run_at_once(count, work):
    """``work(index)`` in ``count`` threads released together, each on its own connection; errors re-raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(count)

    def run(index):
        try:
            start.wait()
            work(index)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors


def assert_counts_exact(audit):
    for item in AuditItem.objects.filter(audit=audit):
        ratings = AuditRating.objects.filter(item=item).count()
        open_ = AuditAssignment.objects.filter(item=item, status="reserved").count()
        assert item.taken_count == ratings + open_ <= audit.per_item, (item.key, item.taken_count, ratings, open_)


def test_twelve_raters_at_once_never_over_assign_and_lose_nothing(audit_of):
    audit = audit_of(size=15, per_item=3)
    raters = [User.objects.create(username=f"c{i:02d}") for i in range(12)]
    submitted, lock = [], threading.Lock()

    def work(index):
        rater = raters[index]
        while (assignment := next_assignment(audit, rater)) is not None:
            assert submit(assignment, rater, index % 3) is Outcome.STORED
            with lock:
                submitted.append((assignment.item_id, rater.pk))

    run_at_once(len(raters), work)
    per_item = [item.ratings.count() for item in AuditItem.objects.filter(audit=audit)]
    assert per_item == [3] * 15
    assert len(submitted) == len(set(submitted)) == 45
    assert set(AuditRating.objects.values_list("item_id", "annotator_id")) == set(submitted)
    assert_counts_exact(audit)


def test_raters_racing_for_the_last_slots_get_exactly_as_many_as_there_are(audit_of):
    audit = audit_of(size=11, per_item=2)
    filler = User.objects.create(username="filler")
    items = list(AuditItem.objects.filter(audit=audit).order_by("id"))
    AuditItem.objects.filter(pk__in=[item.pk for item in items[:-1]]).update(taken_count=2)  # only the last is free
    raters = [User.objects.create(username=f"r{i}") for i in range(6)]
    got = [None] * len(raters)

    def work(index):
        got[index] = next_assignment(audit, raters[index])

    run_at_once(len(raters), work)
    winners = [assignment for assignment in got if assignment is not None]
    assert len(winners) == 2 and {a.item_id for a in winners} == {items[-1].pk}  # no slot lost, none over
    assert AuditItem.objects.get(pk=items[-1].pk).taken_count == 2
    assert next_assignment(audit, filler) is None


def test_one_rater_in_several_tabs_at_once_keeps_one_open_reservation(audit_of):
    audit = audit_of(size=20, per_item=3)
    rater = User.objects.create(username="tabs")
    got = []

    def work(_index):
        got.append(next_assignment(audit, rater).pk)

    run_at_once(6, work)
    assert len(set(got)) == 1
    assert AuditAssignment.objects.filter(annotator=rater, status="reserved").count() == 1
    assert_counts_exact(audit)


def test_an_item_locked_by_another_request_right_now_is_waited_for_not_reported_gone(audit_of):
    """SKIP LOCKED passes over a row another request holds; when no other is free, the queue waits for it."""
    audit = audit_of(size=11, per_item=2)
    items = list(AuditItem.objects.filter(audit=audit).order_by("id"))
    AuditItem.objects.filter(pk__in=[item.pk for item in items[:-1]]).update(taken_count=2)
    rater = User.objects.create(username="waiting")
    locked, release = threading.Event(), threading.Event()

    def hold_the_row():
        try:
            with transaction.atomic():
                AuditItem.objects.select_for_update().get(pk=items[-1].pk)
                locked.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold_the_row)
    holder.start()
    assert locked.wait(timeout=30)
    threading.Timer(0.5, release.set).start()
    assignment = next_assignment(audit, rater)  # blocks until the holder lets go, then takes the slot
    holder.join(timeout=30)
    assert assignment is not None and assignment.item_id == items[-1].pk
    assert AuditItem.objects.get(pk=items[-1].pk).taken_count == 1
