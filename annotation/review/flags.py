"""Writes of the flag review: accept, dismiss or reopen quality flags, each decision kept as a review row.

An accepted flag takes its annotator's ratings (on its axis, in its batch; one rating for a flag on a
rating; the whole item for a flag on an item) out of the consensus; dismissing or reopening it puts them
back (see :func:`annotation.review.selectors.accepted_flag_exclusions`). A decision queues the agreement report
of the flags' batches again, so the dashboard follows it.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from annotation.aggregation.reports import N_BOOT
from annotation.job_handlers import AGREEMENT_REPORT
from annotation.models import Annotation, QualityFlag, QualityFlagReview
from annotation.review.selectors import flag_batch_expression
from annotation.review.services import MAX_COMMENT, ReviewError
from core.models import Job
from core.roles import ADMIN, RESEARCHER, has_role
from core.services import job_enqueue

STATUSES = tuple(QualityFlag.Status.values)
REVIEW_PERMISSION = "annotation.review_qualityflag"


def can_review_flags(user) -> bool:
    """Admins, and researchers an admin gave the review permission (directly or through the "reviewer" group).

    The permission alone is not enough: a reviewer sees every annotator's ratings, which annotators must not.
    """
    return has_role(user, ADMIN) or (has_role(user, RESEARCHER) and user.has_perm(REVIEW_PERMISSION))


def flags_review(*, flags: Iterable[QualityFlag | int], status: str, note: str = "", user) -> list[QualityFlag]:
    """Set ``status`` on ``flags`` (instances or ids) and record who, when and why; returns the flags changed.

    Dismissing needs a note (why the finding does not hold). A flag already in ``status`` changes only when
    a different note is given (a review row records the new note). All or nothing: one transaction, the
    flags locked while they change.
    """
    if status not in STATUSES:
        raise ReviewError(f"status must be one of {', '.join(STATUSES)}; got {status!r}")
    note = (note or "").strip()
    if status == QualityFlag.Status.DISMISSED and not note:
        raise ReviewError("a note is required to dismiss a flag: say why the finding does not hold")
    if len(note) > MAX_COMMENT:
        raise ReviewError(f"a review note holds at most {MAX_COMMENT} characters; this one has {len(note)}")
    ids = [flag if isinstance(flag, int) else flag.pk for flag in flags]
    now = timezone.now()
    with transaction.atomic():
        locked = list(QualityFlag.objects.select_for_update().filter(pk__in=ids).order_by("pk"))
        changed = [flag for flag in locked if flag.status != status or (note and note != flag.review_note)]
        reviews = []
        for flag in changed:
            reviews.append(
                QualityFlagReview(
                    flag=flag, old_status=flag.status, new_status=status, note=note, reviewer=user, reviewed_at=now
                )
            )
            flag.status, flag.review_note, flag.reviewer, flag.reviewed_at = status, note, user, now
        QualityFlag.objects.bulk_update(changed, ["status", "review_note", "reviewer", "reviewed_at"])
        QualityFlagReview.objects.bulk_create(reviews)
        reports_recompute_after_review(flags=changed, user=user)
    return changed


def reports_recompute_after_review(*, flags: list[QualityFlag], user) -> list[Job]:
    """Queue the dashboard's agreement report again for each batch whose flags were decided (its flags and
    figures then follow the decision), unless a recompute of that batch is waiting or running already.
    The jobs go to a worker once the decision is committed."""
    batch_ids = set(
        QualityFlag.objects.filter(pk__in=[flag.pk for flag in flags])
        .annotate(flag_batch=flag_batch_expression())
        .exclude(flag_batch=None)
        .values_list("flag_batch", flat=True)
    )
    queued = []
    for batch_id in sorted(batch_ids):
        busy = Job.objects.filter(kind=AGREEMENT_REPORT, params__batch_id=batch_id).exclude(status__in=Job.FINISHED)
        if busy.exists() or not Annotation.objects.filter(dialogue__batch_id=batch_id).exists():
            continue
        params = {"batch_id": batch_id, "n_boot": N_BOOT, "trigger": "flag review"}
        queued.append(job_enqueue(kind=AGREEMENT_REPORT, params=params, user=user))
    return queued
