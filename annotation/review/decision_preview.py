"""What a flag review decision would do, shown before it is taken: per batch, the consensus and the agreement with
the accepted flags as they are and as they would be (the same merge and κ as the exports and the reports).

Accepting a flag adds what it leaves out to the exclusions in force; dismissing or reopening an accepted flag takes
it away. The items that leave the consensus (with the reasons the merge then gives), the items that join it, and
the items whose consensus scores change are listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.aggregation.consensus import FlagExclusion, kappa_without_flagged, merge_with_exclusions
from annotation.axes import AXES
from annotation.io.dataset import rating_set
from annotation.models import Batch, QualityFlag
from annotation.review.selectors import (
    accepted_flag_exclusions,
    adjudications_in_force,
    flag_batch_expression,
    flag_exclusions,
)
from annotation.selectors import annotation_records

MAX_BATCHES = 5  # a review of flags over more batches lists the first few
MAX_ITEMS = 100  # items listed per kind of change


@dataclass
class ItemChange:
    id: str
    reasons: dict = field(default_factory=dict)  # a leaving item: {axis: the merge's reason}
    before: dict = field(default_factory=dict)  # a changed item: {axis: score} before and after
    after: dict = field(default_factory=dict)


@dataclass
class BatchPreview:
    batch: Batch
    consensus_before: int
    consensus_after: int
    ratings_left_out_before: int
    ratings_left_out_after: int
    kappa: list[tuple[str, float | None, float | None]]  # (axis, before, after)
    leaving: list[ItemChange]
    joining: list[ItemChange]
    changed: list[ItemChange]
    n_leaving: int
    n_joining: int
    n_changed: int

    @property
    def unchanged(self) -> bool:
        return not (self.n_leaving or self.n_joining or self.n_changed) and all(b == a for _x, b, a in self.kappa)


@dataclass
class DecisionPreview:
    batches: list[BatchPreview]
    more_batches: int = 0  # batches touched but not previewed (over MAX_BATCHES)
    all_batches: bool = False  # some flag comes from a report over all batches


def _after(before: list[FlagExclusion], selected: list[FlagExclusion], status: str) -> list[FlagExclusion]:
    chosen = {exclusion.flag for exclusion in selected}
    if status == QualityFlag.Status.ACCEPTED:
        kept = {exclusion.flag for exclusion in before}
        return [*before, *(exclusion for exclusion in selected if exclusion.flag not in kept)]
    return [exclusion for exclusion in before if exclusion.flag not in chosen]


def _batch_preview(batch: Batch, selected: list[FlagExclusion], status: str) -> BatchPreview | None:
    records = annotation_records(batch_name=batch.name)
    if not records:
        return None
    ratings = rating_set(records)
    adjudications = adjudications_in_force(batch)
    before = accepted_flag_exclusions(batch)
    after = _after(before, selected, status)
    merged_before, summary_before = merge_with_exclusions(ratings, adjudications=adjudications, flag_exclusions=before)
    merged_after, summary_after = merge_with_exclusions(ratings, adjudications=adjudications, flag_exclusions=after)
    lines_before = {line["id"]: line for line in merged_before.consensus}
    lines_after = {line["id"]: line for line in merged_after.consensus}
    rejected_after = {line["id"]: line["reasons"] for line in merged_after.rejected}
    order = {item: index for index, item in enumerate(ratings.item_ids)}
    leaving = sorted(set(lines_before) - set(lines_after), key=order.__getitem__)
    joining = sorted(set(lines_after) - set(lines_before), key=order.__getitem__)
    changed = [
        item
        for item in sorted(set(lines_before) & set(lines_after), key=order.__getitem__)
        if lines_before[item]["annotations"] != lines_after[item]["annotations"]
    ]
    kappa_before = kappa_without_flagged(ratings, before)
    kappa_after = kappa_without_flagged(ratings, after)
    return BatchPreview(
        batch=batch,
        consensus_before=len(lines_before),
        consensus_after=len(lines_after),
        ratings_left_out_before=summary_before["ratings_excluded_by_flags"],
        ratings_left_out_after=summary_after["ratings_excluded_by_flags"],
        kappa=[(axis, kappa_before[axis], kappa_after[axis]) for axis in AXES],
        leaving=[ItemChange(item, reasons=rejected_after.get(item, {})) for item in leaving[:MAX_ITEMS]],
        joining=[ItemChange(item) for item in joining[:MAX_ITEMS]],
        changed=[
            ItemChange(item, before=lines_before[item]["annotations"], after=lines_after[item]["annotations"])
            for item in changed[:MAX_ITEMS]
        ],
        n_leaving=len(leaving),
        n_joining=len(joining),
        n_changed=len(changed),
    )


def flag_decision_preview(*, flags, status: str) -> DecisionPreview:
    """What setting ``status`` on the queryset ``flags`` would do to the consensus and agreement of their batches
    (people's ratings, as the exports and the dashboard count them)."""
    rows = list(flags.annotate(flag_batch=flag_batch_expression()).values_list("pk", "flag_batch", "status"))
    changing = [pk for pk, _batch, current in rows if current != status]
    batch_ids = sorted({batch for _pk, batch, _status in rows if batch is not None})
    all_batches = any(batch is None for _pk, batch, _status in rows)
    selected = flag_exclusions(QualityFlag.objects.filter(pk__in=changing))
    previews = []
    for batch in Batch.objects.filter(pk__in=batch_ids[:MAX_BATCHES]).order_by("name"):
        preview = _batch_preview(batch, selected, status)
        if preview is not None:
            previews.append(preview)
    return DecisionPreview(batches=previews, more_batches=max(0, len(batch_ids) - MAX_BATCHES), all_batches=all_batches)
