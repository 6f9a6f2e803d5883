"""What researchers see of the judge audits: every audit with its progress."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from annotation.audits.selectors import ratings_per_item
from annotation.models import AuditRating, JudgeAudit
from core.judge_audits import batch_page_url


@dataclass(frozen=True)
class AuditRow:
    audit: JudgeAudit
    items: int
    complete_items: int
    ratings: int
    raters: int
    batch_url: str | None

    @property
    def wanted(self) -> int:
        return self.items * self.audit.per_item

    @property
    def percent(self) -> int:
        return round(100 * min(self.ratings, self.wanted) / self.wanted) if self.wanted else 0


def audit_rows() -> list[AuditRow]:
    """Every audit with its progress: grouped queries for all audits at once, one page URL per Layer3 batch."""
    audits = list(JudgeAudit.objects.select_related("created_by").annotate(n_items=Count("items", distinct=True)))
    ids = [audit.pk for audit in audits]
    ratings = ratings_per_item(ids)
    raters = dict(
        AuditRating.objects.filter(item__audit__in=ids)
        .values("item__audit")
        .annotate(n=Count("annotator", distinct=True))
        .values_list("item__audit", "n")
    )
    pages = {name: batch_page_url(name) for name in {audit.source_batch for audit in audits}}
    return [
        AuditRow(
            audit=audit,
            items=audit.n_items,
            complete_items=sum(1 for n in ratings.get(audit.pk, ()) if n >= audit.per_item),
            ratings=sum(ratings.get(audit.pk, ())),
            raters=raters.get(audit.pk, 0),
            batch_url=pages[audit.source_batch],
        )
        for audit in audits
    ]
