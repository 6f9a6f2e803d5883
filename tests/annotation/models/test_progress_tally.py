"""The progress bar's counts: the database's tallies (PostgreSQL triggers) always equal counting the ratings."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.utils import timezone

from annotation.collection.progress import batch_progress
from annotation.collection.queue import assignment_next, rating_submit
from annotation.models import Annotation, Batch, Dialogue, RatingQuarter, RatingTotal, tally_postgresql
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
SCORES = {"social": 1, "avoidant": 2, "mechanical": 3, "self": 4}
CONFIDENCE = dict.fromkeys(SCORES, 1.0)
on_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="the tallies are PostgreSQL triggers")


def _batch(name: str, n: int) -> Batch:
    batch = Batch.objects.create(name=name, annotations_per_item=3)
    Dialogue.objects.bulk_create(
        Dialogue(external_id=f"{name}_{i}", user_text="u", response_text="r", batch=batch) for i in range(n)
    )
    return batch


def _rating(dialogue, annotator, created_at) -> Annotation:
    values = {f"{axis}_score": score for axis, score in SCORES.items()}
    values.update({f"{axis}_confidence": 1.0 for axis in SCORES})
    return Annotation(dialogue=dialogue, annotator=annotator, created_at=created_at, updated_at=created_at, **values)


def _counted(batch, annotator, since) -> tuple[int, int]:
    mine = Annotation.objects.filter(annotator=annotator, dialogue__batch=batch)
    return mine.count(), mine.filter(created_at__gte=since).count()


def _assert_progress_matches_counting(batches, annotators) -> None:
    since = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    for batch in batches:
        for annotator in annotators:
            progress = batch_progress(batch=batch, annotator=annotator)
            assert (progress["done_total"], progress["done_today"]) == _counted(batch, annotator, since), (
                batch.name,
                annotator.username,
            )


def test_progress_equals_counting_after_every_kind_of_write():
    first, second = _batch("first", 6), _batch("second", 4)
    alice, bob = make_user("alice", "annotator"), make_user("bob", "annotator")
    now = timezone.now()
    # the web form's statement, an ORM save, a bulk insert (no signals), old and new ratings
    for _ in range(2):
        assignment = assignment_next(batch=first, annotator=alice)
        rating_submit(
            batch_id=first.pk, assignment_id=assignment.pk, annotator=alice, scores=SCORES, confidence=CONFIDENCE
        )
    d = list(Dialogue.objects.filter(batch=first).order_by("pk"))
    _rating(d[3], alice, now - timedelta(days=3)).save()
    Annotation.objects.bulk_create(
        [_rating(d[4], bob, now), _rating(d[5], bob, now - timedelta(days=1)), _rating(d[0], bob, now)]
    )
    e = list(Dialogue.objects.filter(batch=second).order_by("pk"))
    Annotation.objects.bulk_create([_rating(e[0], alice, now), _rating(e[1], bob, now)])
    _assert_progress_matches_counting([first, second], [alice, bob])

    # a deletion, an edit of the time stamp, a rating handed to another annotator, a queryset update
    Annotation.objects.filter(dialogue=d[4], annotator=bob).delete()
    moved = Annotation.objects.get(dialogue=d[3], annotator=alice)
    moved.created_at = now
    moved.save()
    Annotation.objects.filter(dialogue=e[1]).update(annotator=alice)
    Annotation.objects.filter(annotator=bob, dialogue=d[0]).update(social_score=5)  # changes no count
    _assert_progress_matches_counting([first, second], [alice, bob])

    # a dialogue moved to the other batch takes its ratings' counts along
    Dialogue.objects.filter(pk=d[0].pk).update(batch=second)
    _assert_progress_matches_counting([first, second], [alice, bob])


@on_postgresql
def test_today_starts_at_local_midnight(settings):
    settings.TIME_ZONE = "Asia/Tokyo"
    batch = _batch("tz", 3)
    alice = make_user("alice", "annotator")
    tokyo = ZoneInfo("Asia/Tokyo")
    midnight = timezone.localtime().astimezone(tokyo).replace(hour=0, minute=0, second=0, microsecond=0)
    d = list(Dialogue.objects.filter(batch=batch).order_by("pk"))
    Annotation.objects.bulk_create(
        [
            _rating(d[0], alice, midnight - timedelta(seconds=1)),  # yesterday, in the quarter before midnight
            _rating(d[1], alice, midnight),
            _rating(d[2], alice, midnight + timedelta(minutes=14, seconds=59)),
        ]
    )
    with timezone.override(tokyo):
        progress = batch_progress(batch=batch, annotator=alice)
    assert (progress["done_total"], progress["done_today"]) == (3, 2)
    starts = set(RatingQuarter.objects.filter(annotator=alice).values_list("start", flat=True))
    assert starts == {midnight - timedelta(minutes=15), midnight}
    assert all(start.tzinfo is not None and start.minute % 15 == 0 for start in starts)


@on_postgresql
def test_backfill_rebuilds_the_tallies_from_the_ratings():
    batch = _batch("fill", 4)
    alice, bob = make_user("alice", "annotator"), make_user("bob", "annotator")
    at = datetime(2026, 1, 2, 3, 4, tzinfo=ZoneInfo("UTC"))
    d = list(Dialogue.objects.filter(batch=batch).order_by("pk"))
    Annotation.objects.bulk_create([_rating(d[i], user, at) for i in range(3) for user in (alice, bob)])
    expected_totals = set(RatingTotal.objects.values_list("annotator_id", "batch_id", "n"))
    expected_quarters = set(RatingQuarter.objects.values_list("annotator_id", "batch_id", "start", "n"))
    RatingTotal.objects.update(n=99)
    RatingQuarter.objects.all().delete()
    with connection.cursor() as cursor:
        cursor.execute(tally_postgresql.BACKFILL)
    assert expected_totals == {(alice.pk, batch.pk, 3), (bob.pk, batch.pk, 3)}
    assert set(RatingTotal.objects.values_list("annotator_id", "batch_id", "n")) == expected_totals
    assert set(RatingQuarter.objects.values_list("annotator_id", "batch_id", "start", "n")) == expected_quarters
    quarter = datetime(2026, 1, 2, 3, 0, tzinfo=ZoneInfo("UTC"))
    assert expected_quarters == {(user.pk, batch.pk, quarter, 3) for user in (alice, bob)}


@on_postgresql
def test_the_next_item_statement_reads_the_same_counts():
    batch = _batch("next", 5)
    alice = make_user("alice", "annotator")
    for _ in range(3):
        assignment = assignment_next(batch=batch, annotator=alice)
        rating_submit(
            batch_id=batch.pk, assignment_id=assignment.pk, annotator=alice, scores=SCORES, confidence=CONFIDENCE
        )
    Annotation.objects.filter(annotator=alice).order_by("pk").update(created_at=timezone.now() - timedelta(days=2))
    following = assignment_next(batch=batch, annotator=alice)
    assert following.progress_counts == (3, 0)
    progress = batch_progress(batch=batch, annotator=alice)
    assert (progress["done_total"], progress["done_today"]) == following.progress_counts


def _tallies_equal_counting() -> None:
    """Every tally row equals counting the ratings (and no group with ratings lacks one)."""
    from collections import Counter

    totals, quarters = Counter(), Counter()
    for annotator, batch, created in Annotation.objects.values_list("annotator_id", "dialogue__batch_id", "created_at"):
        totals[annotator, batch] += 1
        start = created.astimezone(ZoneInfo("UTC")).replace(minute=created.minute // 15 * 15, second=0, microsecond=0)
        quarters[annotator, batch, start] += 1
    stored_totals = {(a, b): n for a, b, n in RatingTotal.objects.values_list("annotator_id", "batch_id", "n") if n}
    stored_quarters = {
        (a, b, s): n for a, b, s, n in RatingQuarter.objects.values_list("annotator_id", "batch_id", "start", "n") if n
    }
    assert stored_totals == dict(totals)
    assert stored_quarters == dict(quarters)


@on_postgresql
def test_multi_row_statements_keep_every_tally_exact():
    """One INSERT of 1,000 ratings, one UPDATE moving 50 dialogues, one DELETE of a batch's ratings."""
    first, second = _batch("first", 400), _batch("second", 400)
    annotators = [make_user(f"ann_{i}", "annotator") for i in range(3)]
    base = datetime(2026, 3, 4, 23, 50, tzinfo=ZoneInfo("UTC"))  # the ratings span several quarter-hours and days
    dialogues = list(Dialogue.objects.order_by("pk"))  # 800 across both batches
    rows = [
        _rating(dialogues[i % 800], annotators[i // 800 + (i % 2)], base + timedelta(minutes=7 * i))
        for i in range(1_000)
    ]
    Annotation.objects.bulk_create(rows, batch_size=1_000)  # one INSERT statement
    assert Annotation.objects.count() == 1_000
    _tallies_equal_counting()
    _assert_progress_matches_counting([first, second], annotators)

    moved = list(Dialogue.objects.filter(batch=first, annotations__isnull=False).distinct().order_by("pk")[:50])
    assert Dialogue.objects.filter(pk__in=[d.pk for d in moved]).update(batch=second) == 50  # one UPDATE
    _tallies_equal_counting()
    _assert_progress_matches_counting([first, second], annotators)

    Annotation.objects.filter(annotator=annotators[1]).update(created_at=base)  # one UPDATE, into one quarter
    _tallies_equal_counting()
    newcomer = make_user("newcomer", "annotator")
    Annotation.objects.filter(annotator=annotators[0]).update(annotator=newcomer)  # one UPDATE, another annotator
    annotators.append(newcomer)
    _tallies_equal_counting()

    from core.bulk import bulk_delete

    gone = bulk_delete(Annotation.objects.filter(dialogue__batch=second))  # one DELETE
    assert gone > 50
    _tallies_equal_counting()
    _assert_progress_matches_counting([first, second], annotators)
    assert not RatingTotal.objects.filter(batch=second).exclude(n=0).exists()


@on_postgresql
@pytest.mark.django_db(transaction=True)
def test_two_statements_writing_the_same_tallies_at_once_both_count():
    """Concurrent bulk inserts into the same groups, rows in opposite orders: no lost count, no deadlock."""
    import threading

    from django.db import connections

    batch = _batch("race", 200)
    annotators = [make_user(f"ann_{i}", "annotator") for i in range(3)]
    dialogues = list(Dialogue.objects.filter(batch=batch).order_by("pk"))
    now = timezone.now()
    halves = [[_rating(d, a, now) for d in dialogues[0::2] for a in annotators]]
    halves.append([_rating(d, a, now) for d in dialogues[1::2] for a in reversed(annotators)])
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def write(rows):
        try:
            start.wait()
            Annotation.objects.bulk_create(rows)  # one statement each
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=write, args=(rows,)) for rows in halves]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(RatingTotal.objects.filter(batch=batch).values_list("n", flat=True)) == [200, 200, 200]
    _tallies_equal_counting()
