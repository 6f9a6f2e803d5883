"""Reads of the review: the adjudications in force, and a batch's consensus with them applied."""

from __future__ import annotations

from annotation.aggregation.consensus import Adjudicated, MergeResult, merge_with_exclusions
from annotation.axes import MIN_CONFIDENCE, MIN_KAPPA
from annotation.io.dataset import rating_set
from annotation.io.records import format_timestamp
from annotation.models import Adjudication, Batch
from annotation.selectors import annotation_records


def adjudications_in_force(batch: Batch) -> dict[str, dict[str, Adjudicated]]:
    """``{dialogue external id: {axis: Adjudicated}}``: the latest decision per item and axis, unless withdrawn."""
    latest: dict[tuple[str, str], Adjudicated | None] = {}
    rows = (
        Adjudication.objects.filter(dialogue__batch=batch)
        .order_by("dialogue_id", "axis", "-decided_at", "-pk")
        .values_list("dialogue__external_id", "axis", "score", "reason", "decided_by__username", "decided_at")
    )
    for external_id, axis, score, reason, username, decided_at in rows:
        if (external_id, axis) in latest:
            continue  # an older decision: history
        latest[(external_id, axis)] = (
            None if score is None else Adjudicated(score, reason, username or "", format_timestamp(decided_at))
        )
    found: dict[str, dict[str, Adjudicated]] = {}
    for (external_id, axis), decision in latest.items():
        if decision is not None:
            found.setdefault(external_id, {})[axis] = decision
    return found


def batch_consensus(
    batch: Batch,
    *,
    method: str = "weighted_average",
    min_kappa: float = MIN_KAPPA,
    min_confidence: float = MIN_CONFIDENCE,
) -> tuple[MergeResult, dict] | None:
    """The batch's consensus and rejected items (seed A.6) with its adjudications applied; None without ratings."""
    records = annotation_records(batch_name=batch.name)
    if not records:
        return None
    return merge_with_exclusions(
        rating_set(records),
        method=method,
        min_kappa=min_kappa,
        min_confidence=min_confidence,
        adjudications=adjudications_in_force(batch),
    )
