"""What researchers see of the judge audits: every audit with its progress."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

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
    audits = list(JudgeAudit.objects.select_related("created_by").annotate(n_items=Count("items", distinct=True)))
    rows = []
    for audit in audits:
        ratings = AuditRating.objects.filter(item__audit=audit)
        counts = list(ratings.values("item").annotate(n=Count("pk")).values_list("n", flat=True))
        raters = ratings.values("annotator").distinct().count()
        rows.append(
            AuditRow(
                audit=audit,
                items=audit.n_items,
                complete_items=sum(1 for n in counts if n >= audit.per_item),
                ratings=sum(counts),
                raters=raters,
                batch_url=batch_page_url(audit.source_batch),
            )
        )
    return rows
