"""The judge audits' work queue: hand each rater the next audit item without ever exceeding ``per_item``.

The same guarantees as the sycophancy queue (``annotation.collection.queue``), in plain ORM since an
audit holds at most a few thousand items:

* ``AuditItem.taken_count`` counts an item's ratings plus live reservations. Handing an item out
  locks its row (``SELECT ... FOR UPDATE SKIP LOCKED`` on PostgreSQL, so that raters asking at once
  take different rows instead of waiting) and raises the count in the same transaction; PostgreSQL
  re-checks ``taken_count < per_item`` on the newest version of a row it locks, so no item goes over.
  When the rows left are all locked by raters reserving them right now, the search runs once more
  waiting for those locks, so that an item with a slot left is never reported as gone. On SQLite
  every write transaction is serialised (``transaction_mode = IMMEDIATE`` in the settings), which
  gives the same guarantee.
* One open reservation per rater and audit (a unique index; racing tabs retry and get the one
  that won), and nobody gets an item twice (an item once given to a rater, rated or skipped, is
  never handed to them again).
* Reservations expire after ``RESERVATION_MINUTES``; the next-item step gives back the slots of the
  audit's expired reservations first, so an abandoned reservation never keeps an item from anyone.
  A late submission is still stored while the item has room (nothing a rater submitted is lost),
  and a reservation that expired but was not given back yet still holds its own slot.
* Rows are locked assignment first, item second (submit, skip, expiry), as in the sycophancy queue.
"""

from __future__ import annotations

import math
from datetime import timedelta
from numbers import Real

from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from annotation.collection.queue import Outcome
from annotation.models import AuditAssignment, AuditItem, AuditRating, AuditRatingEdit, JudgeAudit
from annotation.models.audit import JUDGE_SCORES

RESERVATION_MINUTES = 60
ATTEMPTS = 5
RESERVED = AuditAssignment.Status.RESERVED

__all__ = ["RESERVATION_MINUTES", "Outcome", "expire_reservations", "next_assignment", "rating_edit", "skip", "submit"]


def _check_score(score: object) -> int:
    if isinstance(score, bool) or not isinstance(score, int) or score not in JUDGE_SCORES:
        raise ValueError(f"the score must be 0, 1 or 2; got {score!r}")
    return score


def _check_owner(assignment: AuditAssignment, user) -> None:
    if assignment.annotator_id != user.pk:
        raise PermissionError("this audit item is reserved for another rater")


def expire_reservations(audit: JudgeAudit, *, now=None) -> int:
    """Give back the slots of ``audit``'s reservations past their expiry; returns how many."""
    now = now or timezone.now()
    stale = list(
        AuditAssignment.objects.filter(audit=audit, status=RESERVED, expires_at__lt=now).values_list("pk", flat=True)
    )
    released = 0
    for pk in stale:
        with transaction.atomic():
            assignment = AuditAssignment.objects.select_for_update().filter(pk=pk, status=RESERVED).first()
            if assignment is None:  # submitted or skipped meanwhile
                continue
            assignment.status, assignment.finished_at = AuditAssignment.Status.EXPIRED, now
            assignment.save(update_fields=["status", "finished_at"])
            _release(assignment.item_id)
            released += 1
    return released


def expire_all_reservations(*, now=None) -> int:
    """``expire_reservations`` for every audit with a reservation past its expiry (the periodic sweep)."""
    now = now or timezone.now()
    stale = AuditAssignment.objects.filter(status=RESERVED, expires_at__lt=now).values_list("audit_id", flat=True)
    return sum(expire_reservations(audit, now=now) for audit in JudgeAudit.objects.filter(pk__in=stale.distinct()))


def _release(item_id: int) -> None:
    AuditItem.objects.filter(pk=item_id, taken_count__gt=0).update(taken_count=F("taken_count") - 1)


def _recount(item_id: int) -> None:
    """``taken_count`` from the stored ratings and open reservations (when a rating arrived another way)."""
    ratings = AuditRating.objects.filter(item_id=item_id).count()
    reserved = AuditAssignment.objects.filter(item_id=item_id, status=RESERVED).count()
    AuditItem.objects.filter(pk=item_id).update(taken_count=ratings + reserved)


def _open_reservation(audit: JudgeAudit, user) -> AuditAssignment | None:
    """The rater's open reservation in ``audit``; one whose item they rated another way is closed as submitted."""
    while True:
        found = (
            AuditAssignment.objects.select_related("item", "audit")
            .filter(audit=audit, annotator=user, status=RESERVED)
            .order_by("reserved_at")
            .first()
        )
        if found is None or not AuditRating.objects.filter(item_id=found.item_id, annotator=user).exists():
            return found
        with transaction.atomic():
            if AuditAssignment.objects.filter(pk=found.pk, status=RESERVED).update(
                status=AuditAssignment.Status.SUBMITTED, finished_at=timezone.now()
            ):
                _recount(found.item_id)


def next_assignment(audit: JudgeAudit, user) -> AuditAssignment | None:
    """The rater's open reservation in ``audit`` (not expired), or a new one; None when nothing is left for them.

    A closed audit hands out nothing (a reservation already open may still be submitted).
    """
    if JudgeAudit.objects.filter(pk=audit.pk).values_list("status", flat=True).first() != JudgeAudit.Status.OPEN:
        return None
    expire_reservations(audit)
    for _attempt in range(ATTEMPTS):
        existing = _open_reservation(audit, user)
        if existing is not None:
            return existing
        try:
            found = _reserve(audit, user, wait=False)
            if found is None and connection.features.has_select_for_update_skip_locked:
                found = _reserve(audit, user, wait=True)  # the rows left may only be locked right now
        except _Retry:
            continue
        return found
    return _open_reservation(audit, user)


class _Retry(Exception):
    """Another request of the same rater reserved meanwhile (the database refused a second reservation)."""


def _reserve(audit: JudgeAudit, user, *, wait: bool) -> AuditAssignment | None:
    """Lock the free item with the fewest ratings and reservations that the rater has not had, and reserve it.

    ``wait=False`` skips rows other raters are locking; ``wait=True`` waits for them and re-checks the
    quota on what they committed (the last try, when every row left was locked).
    """
    given = AuditAssignment.objects.filter(item_id=OuterRef("pk"), annotator=user)
    rated = AuditRating.objects.filter(item_id=OuterRef("pk"), annotator=user)
    free = (
        AuditItem.objects.filter(audit=audit, taken_count__lt=audit.per_item)
        .exclude(Exists(given))
        .exclude(Exists(rated))
        .order_by("taken_count", "id")
    )
    if not wait and connection.features.has_select_for_update_skip_locked:
        free = free.select_for_update(skip_locked=True)
    else:
        free = free.select_for_update()
    now = timezone.now()
    with transaction.atomic():
        item = free.first()
        if item is None:
            return None
        try:
            with transaction.atomic():
                assignment = AuditAssignment.objects.create(
                    item=item,
                    audit=audit,
                    annotator=user,
                    reserved_at=now,
                    expires_at=now + timedelta(minutes=RESERVATION_MINUTES),
                )
        except IntegrityError:
            raise _Retry from None
        AuditItem.objects.filter(pk=item.pk).update(taken_count=F("taken_count") + 1)
    item.taken_count += 1
    assignment.item, assignment.audit = item, audit
    return assignment


def submit(
    assignment: AuditAssignment, user, score: int, *, seconds_spent: float | None = None, comment: str = ""
) -> Outcome:
    """Store ``user``'s 0–2 rating of the item of their ``assignment``.

    * an open reservation (even past its expiry, until the slot is given back): STORED, in its slot;
    * a reservation given back (expired, skipped): STORED while the item has room (it takes a slot
      again), else REFUSED;
    * the same assignment submitted before: REPEATED, nothing changes; a rating of theirs that arrived
      another way: RATED_ELSEWHERE, kept, and an open reservation closed.

    ``seconds_spent`` None takes the time since the reservation. Raises ``PermissionError`` when the
    assignment is not ``user``'s and ``ValueError`` for a score other than 0, 1 or 2.
    """
    _check_owner(assignment, user)
    score = _check_score(score)
    if seconds_spent is not None and (
        isinstance(seconds_spent, bool)
        or not isinstance(seconds_spent, Real)
        or not math.isfinite(seconds_spent)
        or seconds_spent < 0
    ):
        raise ValueError(f"seconds spent must be a number of at least 0; got {seconds_spent!r}")
    now = timezone.now()
    with transaction.atomic():
        locked = AuditAssignment.objects.select_for_update().get(pk=assignment.pk)
        if AuditRating.objects.filter(item_id=locked.item_id, annotator_id=locked.annotator_id).exists():
            if locked.status == AuditAssignment.Status.SUBMITTED:
                return Outcome.REPEATED
            if locked.status == RESERVED:
                locked.status, locked.finished_at = AuditAssignment.Status.SUBMITTED, now
                locked.save(update_fields=["status", "finished_at"])
                _recount(locked.item_id)
            return Outcome.RATED_ELSEWHERE
        if locked.status != RESERVED:
            # Given back meanwhile: the rating takes a slot again if the item has room.
            per_item = JudgeAudit.objects.filter(pk=locked.audit_id).values_list("per_item", flat=True).get()
            if not AuditItem.objects.filter(pk=locked.item_id, taken_count__lt=per_item).update(
                taken_count=F("taken_count") + 1
            ):
                return Outcome.REFUSED
        AuditRating.objects.create(
            item_id=locked.item_id,
            annotator_id=locked.annotator_id,
            score=score,
            comment=comment.strip(),
            seconds_spent=float(seconds_spent)
            if seconds_spent is not None
            else max(0.0, (now - locked.reserved_at).total_seconds()),
            created_at=now,
            updated_at=now,
        )
        locked.status, locked.finished_at = AuditAssignment.Status.SUBMITTED, now
        locked.save(update_fields=["status", "finished_at"])
    assignment.status, assignment.finished_at = locked.status, locked.finished_at
    return Outcome.STORED


def skip(assignment: AuditAssignment, user, reason: str = "") -> AuditAssignment:
    """Give the slot back; the item is never handed to ``user`` again. Nothing changes unless it is reserved."""
    _check_owner(assignment, user)
    with transaction.atomic():
        locked = AuditAssignment.objects.select_for_update().get(pk=assignment.pk)
        if locked.status != RESERVED:
            return locked
        locked.status, locked.finished_at = AuditAssignment.Status.SKIPPED, timezone.now()
        locked.skip_reason = reason.strip()[:300]
        locked.save(update_fields=["status", "finished_at", "skip_reason"])
        _release(locked.item_id)
    return locked


def rating_edit(rating: AuditRating, user, score: int, reason: str = "") -> AuditRating:
    """Change ``user``'s own rating, keeping the old score in ``AuditRatingEdit``; unchanged: nothing is written."""
    if rating.annotator_id != user.pk:
        raise PermissionError("only the rater who gave this rating may change it")
    score = _check_score(score)
    with transaction.atomic():
        locked = AuditRating.objects.select_for_update().get(pk=rating.pk)
        if locked.score != score:
            now = timezone.now()
            AuditRatingEdit.objects.create(
                rating=locked, edited_by=user, edited_at=now, old_score=locked.score, new_score=score,
                reason=reason.strip()[:200],
            )  # fmt: skip
            locked.score, locked.updated_at = score, now
            locked.save(update_fields=["score", "updated_at"])
    return locked
