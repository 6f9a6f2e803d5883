"""What raters see of the judge audits: the open audits with their progress, their own ratings.

Blind by construction: nothing here returns the judge's score or reasoning to a rater's page, and
``audit_ratings`` (everyone's scores) is for the calibration report, never for a rater.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from django.db.models import Count, Exists, F, OuterRef, QuerySet

from annotation.models import AuditAssignment, AuditItem, AuditRating, JudgeAudit


@dataclass(frozen=True)
class AuditProgress:
    audit: JudgeAudit
    items: int
    complete_items: int  # items with per_item ratings
    rated_by_user: int
    available_to_user: int  # items the queue may still hand the user: their open reservation and free items

    @property
    def wanted(self) -> int:
        return self.items * self.audit.per_item

    @property
    def has_work(self) -> bool:
        return self.available_to_user > 0


def _per_audit(rows) -> Counter:
    return Counter({audit_id: n for audit_id, n in rows})


def ratings_per_item(audit_ids) -> dict[int, list[int]]:
    """{audit id: [ratings of each rated item]}: one grouped query for every audit at once."""
    counts: dict[int, list[int]] = {}
    rows = (
        AuditRating.objects.filter(item__audit__in=audit_ids).values_list("item__audit", "item").annotate(n=Count("pk"))
    )
    for audit_id, _item, n in rows:
        counts.setdefault(audit_id, []).append(n)
    return counts


def audits_for_rater(user) -> list[AuditProgress]:
    """The open audits, newest first, with how far each is and what is left for ``user``.

    A fixed number of grouped queries however many audits are open (the annotator's queue home shows it).
    """
    audits = list(JudgeAudit.objects.filter(status=JudgeAudit.Status.OPEN).order_by("-created_at", "-pk"))
    ids = [audit.pk for audit in audits]
    items = AuditItem.objects.filter(audit__in=ids)
    sizes = _per_audit(items.values("audit").annotate(n=Count("pk")).values_list("audit", "n"))
    ratings = ratings_per_item(ids)
    mine = AuditRating.objects.filter(item__audit__in=ids, annotator=user)
    rated_by_user = _per_audit(mine.values("item__audit").annotate(n=Count("pk")).values_list("item__audit", "n"))
    reserved = set(
        AuditAssignment.objects.filter(
            audit__in=ids, annotator=user, status=AuditAssignment.Status.RESERVED
        ).values_list("audit", flat=True)
    )
    rated = AuditRating.objects.filter(item_id=OuterRef("pk"), annotator=user)
    given = AuditAssignment.objects.filter(item_id=OuterRef("pk"), annotator=user)
    free_items = items.filter(taken_count__lt=F("audit__per_item")).exclude(Exists(given)).exclude(Exists(rated))
    free = _per_audit(free_items.values("audit").annotate(n=Count("pk")).values_list("audit", "n"))
    return [
        AuditProgress(
            audit=audit,
            items=sizes[audit.pk],
            complete_items=sum(1 for n in ratings.get(audit.pk, ()) if n >= audit.per_item),
            rated_by_user=rated_by_user[audit.pk],
            available_to_user=free[audit.pk] + int(audit.pk in reserved),
        )
        for audit in audits
    ]


def rating_history(user, audit: JudgeAudit | None = None) -> QuerySet[AuditRating]:
    """``user``'s audit ratings, newest first, with their item and audit (one audit's when given)."""
    ratings = AuditRating.objects.filter(annotator=user).select_related("item", "item__audit")
    if audit is not None:
        ratings = ratings.filter(item__audit=audit)
    return ratings.order_by("-created_at", "-pk")


def audit_ratings(audit: JudgeAudit) -> dict[str, dict[str, int]]:
    """``{item key: {username: score}}`` for every rated item of ``audit`` (unrated items are left out)."""
    ratings: dict[str, dict[str, int]] = {}
    rows = (
        AuditRating.objects.filter(item__audit=audit)
        .order_by("item_id", "annotator__username")
        .values_list("item__key", "annotator__username", "score")
    )
    for key, username, score in rows:
        ratings.setdefault(key, {})[username] = score
    return ratings
