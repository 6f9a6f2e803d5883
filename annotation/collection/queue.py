"""The work queue: hand each annotator the next dialogue without ever exceeding an item's quota.

``QueueEntry.taken_count`` counts a dialogue's ratings plus live reservations. Handing out an item
locks its entry (``SELECT ... FOR UPDATE SKIP LOCKED`` on PostgreSQL, so concurrent annotators take
different rows instead of waiting) and raises the count in the same transaction; a concurrent
transaction that reaches the same row after the commit re-checks ``taken_count < quota`` on the new
row version.
On SQLite every write transaction is serialised (``transaction_mode = IMMEDIATE``), which gives the
same guarantee. Reservations expire after ``RESERVATION_MINUTES``; a late submission is still
stored (nothing an annotator submitted is lost).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.axes import AXES
from annotation.collection import queue_postgresql
from annotation.collection.progress import start_of_today
from annotation.models import Annotation, Assignment, Batch, Dialogue, QueueEntry
from core.bulk import array_literal, values_in

RESERVATION_MINUTES = 60
CHUNK = 2_000


class Outcome(StrEnum):
    STORED = "stored"
    REPEATED = "repeated"  # the same submission arrived twice: the first one is stored
    RATED_ELSEWHERE = "rated_elsewhere"  # a rating of theirs arrived another way (import, spreadsheet): kept
    REFUSED = "refused"  # the reservation was given back and the item has since reached its quota


@dataclass(frozen=True)
class Submitted:
    annotation: Annotation | None  # the stored rating (for REFUSED: None)
    outcome: Outcome

    @property
    def created(self) -> bool:
        return self.outcome is Outcome.STORED


def _count_subquery(model, exclude_source: str | None = None, **filters):
    rows = model.objects.filter(dialogue=OuterRef("pk"), **filters)
    if exclude_source is not None:
        rows = rows.exclude(source=exclude_source)
    return Coalesce(
        Subquery(rows.order_by().values("dialogue").annotate(n=Count("pk")).values("n")[:1]),
        Value(0),
    )


# One set-based statement on PostgreSQL: the counts grouped once, and only changed rows written.
_RECOUNT_POSTGRESQL = """
UPDATE annotation_queueentry e SET taken_count = c.n
FROM (SELECT x.id, COALESCE(a.n, 0) + COALESCE(s.n, 0) AS n
      FROM unnest(%(ids)s::bigint[]) AS x(id)
      LEFT JOIN (SELECT dialogue_id, count(*) AS n FROM annotation_annotation
                 WHERE dialogue_id = ANY(%(ids)s::bigint[]) AND source <> %(llm)s GROUP BY 1) AS a
             ON a.dialogue_id = x.id
      LEFT JOIN (SELECT dialogue_id, count(*) AS n FROM annotation_assignment
                 WHERE status = %(reserved)s AND dialogue_id = ANY(%(ids)s::bigint[]) GROUP BY 1) AS s
             ON s.dialogue_id = x.id
     ) AS c
WHERE e.dialogue_id = c.id AND e.taken_count <> c.n
"""


def recount_taken(dialogue_ids) -> None:
    """Recompute ``taken_count`` from the stored ratings and live reservations (after imports).

    An LLM rater's ratings take no slot: the quota is of people's ratings.
    """
    ids = list(dialogue_ids)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            literal, _kind = array_literal(ids)  # one text parameter, not a list dumped three times
            params = {"ids": literal, "reserved": Assignment.Status.RESERVED.value, "llm": Annotation.Source.LLM.value}
            cursor.execute(_RECOUNT_POSTGRESQL, params)
        return
    for start in range(0, len(ids), CHUNK):
        QueueEntry.objects.filter(pk__in=ids[start : start + CHUNK]).update(
            taken_count=_count_subquery(Annotation, exclude_source=Annotation.Source.LLM)
            + _count_subquery(Assignment, status=Assignment.Status.RESERVED)
        )


def expire_reservations(*, now=None, batch: Batch | None = None) -> int:
    """Give back the slots of reservations past their expiry (all, or one batch's); returns how many.

    Runs where it matters without a scheduler: the next-item step calls it for its batch when it
    finds nothing free (``assignment_next``); the periodic sweep (``manage.py expire_reservations``,
    Celery beat) keeps the counts fresh elsewhere. A late submission of an expired reservation is
    still stored while the item's quota allows (``annotation_submit``).
    """
    now = now or timezone.now()
    stale = Assignment.objects.filter(status=Assignment.Status.RESERVED, expires_at__lt=now)
    if batch is not None:
        stale = stale.filter(batch=batch)
    released = 0
    while True:
        chunk = list(stale.order_by("expires_at").values_list("pk", flat=True)[:CHUNK])
        for pk in chunk:
            with transaction.atomic():
                assignment = (
                    Assignment.objects.select_for_update().filter(pk=pk, status=Assignment.Status.RESERVED).first()
                )
                if assignment is None:
                    continue
                QueueEntry.objects.filter(pk=assignment.dialogue_id, taken_count__gt=0).update(
                    taken_count=F("taken_count") - 1
                )
                assignment.status, assignment.finished_at = Assignment.Status.EXPIRED, now
                assignment.save(update_fields=["status", "finished_at"])
                released += 1
        if len(chunk) < CHUNK:
            return released


def close_reservations_rated_elsewhere(pairs) -> int:
    """Close the open reservations of (dialogue id, annotator id) ``pairs`` that now have a rating.

    For every path that stores ratings outside the queue (imports, spreadsheets): the queue must
    not hand the item out again, and the slot held by the reservation goes back (the caller
    recounts ``taken_count``, or the rating took no slot of its own).
    """
    pairs = set(pairs)
    if not pairs:
        return 0
    # the open reservations of these annotators: few, whatever the size of the import
    open_ = values_in(
        Assignment,
        ("id", "dialogue", "annotator"),
        {"annotator": sorted({a for _d, a in pairs}), "status": [Assignment.Status.RESERVED.value]},
    )
    closing = [pk for pk, dialogue_id, annotator_id in open_ if (dialogue_id, annotator_id) in pairs]
    for start in range(0, len(closing), CHUNK):
        Assignment.objects.filter(pk__in=closing[start : start + CHUNK]).update(
            status=Assignment.Status.CLOSED, finished_at=timezone.now()
        )
    return len(closing)


def batch_get(batch_id: int) -> Batch | None:
    """The batch with this primary key, or None (one prepared statement on PostgreSQL: every rating page asks)."""
    if connection.vendor == "postgresql":
        return queue_postgresql.batch_get(batch_id)
    return Batch.objects.filter(pk=batch_id).first()


def current_assignment(*, batch: Batch, annotator) -> Assignment | None:
    return (
        Assignment.objects.select_related("dialogue")
        .filter(annotator=annotator, batch=batch, status=Assignment.Status.RESERVED)
        .exclude(dialogue__annotations__annotator=annotator)  # rated another way meanwhile
        .order_by("reserved_at")
        .first()
    )


def _next_candidate(*, batch: Batch, annotator_id: int) -> Dialogue | None:
    """Lock the queue entry of the batch's item with the fewest ratings that this annotator has not had yet.

    Returns the dialogue, with the entry's ``taken_count`` as an attribute.

    Plain SQL: this runs on every "next item", and building the equivalent ORM query costs more
    than running it.
    """
    lock = " FOR UPDATE OF e SKIP LOCKED" if connection.features.has_select_for_update_skip_locked else ""
    entry, dialogue, assignment, annotation = (
        connection.ops.quote_name(model._meta.db_table) for model in (QueueEntry, Dialogue, Assignment, Annotation)
    )
    sql = (
        f"SELECT d.*, e.taken_count FROM {entry} e JOIN {dialogue} d ON d.id = e.dialogue_id "  # noqa: S608 - table names only
        "WHERE e.batch_id = %s AND e.taken_count < %s "
        f"AND NOT EXISTS (SELECT 1 FROM {assignment} s WHERE s.dialogue_id = e.dialogue_id AND s.annotator_id = %s) "
        f"AND NOT EXISTS (SELECT 1 FROM {annotation} n WHERE n.dialogue_id = e.dialogue_id AND n.annotator_id = %s) "
        f"ORDER BY e.taken_count, e.dialogue_id LIMIT 1{lock}"
    )
    found = list(Dialogue.objects.raw(sql, [batch.pk, batch.annotations_per_item, annotator_id, annotator_id]))
    return found[0] if found else None


def batch_open_to(*, batch: Batch, annotator) -> bool:
    """Whether ``batch`` hands items to ``annotator``: it is open, and either open to every annotator or
    ``annotator`` is one of those chosen for it. (Qualification is checked by the pages, before this.)"""
    if batch.status != Batch.Status.OPEN:
        return False
    return not batch.restricted or batch.annotators.filter(pk=annotator.pk).exists()


def batches_visible_to(annotator):
    """The batches an annotator's lists show (the queue page, the API): not closed, and open to every
    annotator or chosen for them. A paused batch is listed; ``batch_open_to`` says it hands out nothing."""
    chosen = Batch.annotators.through.objects.filter(user=annotator).values("batch_id")
    return Batch.objects.exclude(status=Batch.Status.CLOSED).filter(Q(restricted=False) | Q(pk__in=chosen))


def work_left(*, batch: Batch, annotator, take_new: bool = True) -> bool:
    """Whether ``assignment_next`` would give ``annotator`` an item of ``batch``: a reservation of theirs is
    open, or (unless ``take_new`` is false) an item is under its quota that they have neither been given
    nor rated (the queue's rule)."""
    if not batch_open_to(batch=batch, annotator=annotator):
        return False
    if Assignment.objects.filter(batch=batch, annotator=annotator, status=Assignment.Status.RESERVED).exists():
        return True
    if not take_new:
        return False
    given = Assignment.objects.filter(dialogue_id=OuterRef("dialogue_id"), annotator=annotator)
    rated = Annotation.objects.filter(dialogue_id=OuterRef("dialogue_id"), annotator=annotator)
    return (
        QueueEntry.objects.filter(batch=batch, taken_count__lt=batch.annotations_per_item)
        .exclude(Exists(given))
        .exclude(Exists(rated))
        .exists()
    )


def assignment_next(*, batch: Batch, annotator, take_new: bool = True) -> Assignment | None:
    """The annotator's open reservation in ``batch``, or a new one; None when nothing is left for them.

    ``take_new`` false (the annotator's qualification has expired: ``annotation.collection.qualification``):
    the open reservation only, nothing new is reserved.

    When nothing is free, reservations of the batch past their expiry are given back and the
    search runs once more: an abandoned reservation never keeps an item from anyone. A paused or
    closed batch, or one whose annotators were chosen without ``annotator``, hands out nothing (a
    reservation already open may still be submitted: ``annotation_submit`` takes it).
    """
    if not batch_open_to(batch=batch, annotator=annotator):
        return None
    found = _next(batch=batch, annotator=annotator, take_new=take_new)
    if found is None and take_new and expire_reservations(batch=batch):
        found = _next(batch=batch, annotator=annotator)
    return found


def _next(*, batch: Batch, annotator, take_new: bool = True) -> Assignment | None:
    if connection.vendor == "postgresql":
        return _next_postgresql(batch=batch, annotator=annotator, take_new=take_new)
    existing = current_assignment(batch=batch, annotator=annotator)
    if existing is not None or not take_new:
        return existing
    for _attempt in range(5):
        try:
            taken = _take_portable(batch=batch, annotator=annotator, now=timezone.now())
        except _Retry:
            continue
        return taken
    return current_assignment(batch=batch, annotator=annotator)


def _next_postgresql(*, batch: Batch, annotator, take_new: bool = True) -> Assignment | None:
    for _attempt in range(5):
        try:
            found = queue_postgresql.next_assignment(
                batch=batch,
                annotator_id=annotator.pk,
                now=timezone.now(),
                minutes=RESERVATION_MINUTES,
                since=start_of_today(),
                take_new=take_new,
            )
        except queue_postgresql.Conflict:
            continue
        if found is not None or not take_new:
            return found
        # Nothing free for this annotator, or the picked row was taken meanwhile: look once more.
        if _next_candidate(batch=batch, annotator_id=annotator.pk) is None:
            return None
    return current_assignment(batch=batch, annotator=annotator)


class _Retry(Exception):
    """The same annotator asked twice at once and the other request got the item: try the next one."""


def _take_portable(*, batch: Batch, annotator, now) -> Assignment | None:
    with transaction.atomic():
        dialogue = _next_candidate(batch=batch, annotator_id=annotator.pk)
        if dialogue is None:
            return None
        if dialogue.taken_count >= batch.annotations_per_item:  # re-checked on the locked row
            raise _Retry
        try:
            with transaction.atomic():
                assignment = Assignment.objects.create(
                    dialogue_id=dialogue.pk,
                    batch=batch,
                    annotator=annotator,
                    reserved_at=now,
                    expires_at=now + timedelta(minutes=RESERVATION_MINUTES),
                )
        except IntegrityError:
            raise _Retry from None
        QueueEntry.objects.filter(pk=dialogue.pk).update(taken_count=F("taken_count") + 1)
    assignment.dialogue = dialogue
    return assignment


def assignment_skip(*, assignment: Assignment, reason: str = "") -> Assignment:
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if locked.status != Assignment.Status.RESERVED:
            return locked
        locked.status, locked.finished_at, locked.skip_reason = Assignment.Status.SKIPPED, timezone.now(), reason[:300]
        locked.save(update_fields=["status", "finished_at", "skip_reason"])
        QueueEntry.objects.filter(pk=locked.dialogue_id, taken_count__gt=0).update(taken_count=F("taken_count") - 1)
    return locked


class Unskip(StrEnum):
    REOPENED = "reopened"
    NOT_SKIPPED = "not_skipped"  # not (or no longer) a skipped assignment of this annotator
    RATED = "rated"  # a rating of theirs arrived meanwhile (another tab, an import)
    FULL = "full"  # the item has all the ratings and reservations its quota allows
    UNAVAILABLE = "unavailable"  # the batch is paused, closed or not open to them, or the item moved


@dataclass(frozen=True)
class Unskipped:
    outcome: Unskip
    assignment: Assignment
    released: Assignment | None = None  # the open reservation given back to make room

    @property
    def reopened(self) -> bool:
        return self.outcome is Unskip.REOPENED


def assignment_unskip(*, assignment: Assignment, annotator, now=None) -> Unskipped:
    """Reopen ``annotator``'s skipped ``assignment`` as a reservation (the undo of a skip).

    The same rules as handing an item out: the batch must hand items to them, and the item's queue
    entry is locked and must be under its quota (a slot is taken again). One open reservation per
    annotator and batch: an open reservation of theirs in the batch (the item shown after the skip)
    is given back first, as if it had never been handed out, so the queue may offer it again later;
    when the skip cannot be undone, nothing changes.
    """
    now = now or timezone.now()
    with transaction.atomic():
        # Assignments are locked before queue entries, as in submitting and skipping.
        locked = Assignment.objects.select_for_update().filter(pk=assignment.pk, annotator=annotator).first()
        if locked is None or locked.status != Assignment.Status.SKIPPED:
            return Unskipped(Unskip.NOT_SKIPPED, locked or assignment)
        batch = Batch.objects.get(pk=locked.batch_id)
        moved = not Dialogue.objects.filter(pk=locked.dialogue_id, batch_id=batch.pk).exists()
        if moved or not batch_open_to(batch=batch, annotator=annotator):
            return Unskipped(Unskip.UNAVAILABLE, locked)
        if Annotation.objects.filter(dialogue_id=locked.dialogue_id, annotator=annotator).exists():
            return Unskipped(Unskip.RATED, locked)
        current = list(
            Assignment.objects.select_for_update().filter(
                annotator=annotator, batch_id=batch.pk, status=Assignment.Status.RESERVED
            )
        )
        entry = QueueEntry.objects.select_for_update().filter(pk=locked.dialogue_id).first()
        if entry is None or entry.taken_count >= batch.annotations_per_item:
            return Unskipped(Unskip.FULL, locked)
        for open_ in current:
            _give_back(open_, now=now)
        QueueEntry.objects.filter(pk=entry.pk).update(taken_count=F("taken_count") + 1)
        locked.status, locked.skip_reason, locked.finished_at = Assignment.Status.RESERVED, "", None
        locked.reserved_at, locked.expires_at = now, now + timedelta(minutes=RESERVATION_MINUTES)
        locked.save(update_fields=["status", "skip_reason", "finished_at", "reserved_at", "expires_at"])
    return Unskipped(Unskip.REOPENED, locked, current[0] if current else None)


def _give_back(reservation: Assignment, *, now) -> None:
    """Undo the handing out of an open (locked) reservation: the item may come to this annotator again."""
    rated = Annotation.objects.filter(
        dialogue_id=reservation.dialogue_id, annotator_id=reservation.annotator_id
    ).exists()
    if rated:  # rated another way meanwhile: closed, as the queue closes such reservations
        reservation.status, reservation.finished_at = Assignment.Status.CLOSED, now
        reservation.save(update_fields=["status", "finished_at"])
        recount_taken([reservation.dialogue_id])
        return
    Assignment.objects.filter(pk=reservation.pk).delete()  # the instance keeps its pk for the caller
    QueueEntry.objects.filter(pk=reservation.dialogue_id, taken_count__gt=0).update(taken_count=F("taken_count") - 1)


def annotation_submit(
    *, assignment: Assignment, scores: dict[str, int], confidence: dict[str, float], now=None
) -> Submitted:
    """Store the rating of an assigned dialogue, keeping ``taken_count`` = ratings + open reservations.

    * an open reservation: the rating is stored and takes the reservation's slot;
    * a reservation given back (expired, skipped): stored while the item is under its quota (it
      takes a slot again), else REFUSED;
    * the annotator already has a rating of the item (a repeated submission, or one that arrived
      another way): nothing is overwritten; an open reservation is closed and the item recounted.
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
        stored = Annotation.objects.filter(dialogue_id=locked.dialogue_id, annotator_id=locked.annotator_id).first()
        if stored is not None:
            if locked.status == Assignment.Status.SUBMITTED:
                return Submitted(stored, Outcome.REPEATED)
            if locked.status == Assignment.Status.RESERVED:
                locked.status, locked.finished_at = Assignment.Status.CLOSED, now
                locked.save(update_fields=["status", "finished_at"])
                recount_taken([locked.dialogue_id])  # the rating kept may not have been counted
            return Submitted(stored, Outcome.RATED_ELSEWHERE)
        if locked.status != Assignment.Status.RESERVED:
            # Given back meanwhile: the rating takes a slot again if the quota allows.
            quota = Batch.objects.filter(pk=locked.batch_id).values_list("annotations_per_item", flat=True).get()
            if not QueueEntry.objects.filter(pk=locked.dialogue_id, taken_count__lt=quota).update(
                taken_count=F("taken_count") + 1
            ):
                return Submitted(None, Outcome.REFUSED)
        values = {f"{axis}_score": scores[axis] for axis in AXES}
        values.update({f"{axis}_confidence": confidence[axis] for axis in AXES})
        annotation = Annotation.objects.create(
            dialogue_id=locked.dialogue_id,
            annotator_id=locked.annotator_id,
            created_at=now,
            updated_at=now,
            seconds_spent=max(0.0, (now - locked.reserved_at).total_seconds()),
            source=Annotation.Source.WEB,
            **values,
        )
        locked.status, locked.finished_at = Assignment.Status.SUBMITTED, now
        locked.save(update_fields=["status", "finished_at"])
    return Submitted(annotation, Outcome.STORED)


@dataclass(frozen=True)
class Rated:
    """What the rating page needs after a submission: the batch, the rated item, what happened."""

    batch: Batch
    external_id: str
    outcome: Outcome
    annotation_id: int | None = None  # the stored rating (the new one, or the one kept)

    @property
    def created(self) -> bool:
        return self.outcome is Outcome.STORED


def rating_submit(
    *, batch_id: int, assignment_id: int, annotator, scores: dict[str, int], confidence: dict[str, float]
) -> Rated | None:
    """Store ``annotator``'s rating of their assignment in ``batch_id``; None if it is not theirs there.

    The same rules as ``annotation_submit``; on PostgreSQL in one statement (the rating page's
    hot path), elsewhere through it.
    """
    now = timezone.now()
    if connection.vendor == "postgresql":
        stored = queue_postgresql.submit(
            batch_id=batch_id,
            assignment_id=assignment_id,
            annotator_id=annotator.pk,
            scores=scores,
            confidence=confidence,
            now=now,
        )
        if stored is None:
            return None
        outcome, annotation_id, external_id, batch = stored
        return Rated(batch, external_id, Outcome(outcome), annotation_id)
    assignment = (
        Assignment.objects.select_related("dialogue", "batch")
        .filter(pk=assignment_id, annotator=annotator, batch_id=batch_id)
        .first()
    )
    if assignment is None:
        return None
    result = annotation_submit(assignment=assignment, scores=scores, confidence=confidence, now=now)
    annotation_id = result.annotation.pk if result.annotation is not None else None
    return Rated(assignment.batch, assignment.dialogue.external_id, result.outcome, annotation_id)
