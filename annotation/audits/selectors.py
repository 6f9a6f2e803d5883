"""What raters see of the judge audits: the open audits with their progress, their own ratings.

Blind by construction: nothing here returns the judge's score or reasoning to a rater's page, and
``audit_ratings`` (everyone's scores) is for the calibration report, never for a rater.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, QuerySet

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


def audits_for_rater(user) -> list[AuditProgress]:
    """The open audits, newest first, with how far each is and what is left for ``user``."""
    rows = []
    for audit in JudgeAudit.objects.filter(status=JudgeAudit.Status.OPEN).order_by("-created_at", "-pk"):
        items = AuditItem.objects.filter(audit=audit)
        rated = AuditRating.objects.filter(item_id=OuterRef("pk"), annotator=user)
        given = AuditAssignment.objects.filter(item_id=OuterRef("pk"), annotator=user)
        counts = items.annotate(n=Count("ratings")).filter(n__gte=audit.per_item)
        reserved = AuditAssignment.objects.filter(
            audit=audit, annotator=user, status=AuditAssignment.Status.RESERVED
        ).exists()
        free = items.filter(taken_count__lt=audit.per_item).exclude(Exists(given)).exclude(Exists(rated)).count()
        rows.append(
            AuditProgress(
                audit=audit,
                items=items.count(),
                complete_items=counts.count(),
                rated_by_user=AuditRating.objects.filter(item__audit=audit, annotator=user).count(),
                available_to_user=free + int(reserved),
            )
        )
    return rows


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
