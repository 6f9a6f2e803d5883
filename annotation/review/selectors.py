"""Reads of the review: the adjudications in force, and a batch's consensus with them applied."""

from __future__ import annotations

from django.db.models import Q
from django.db.models.functions import Coalesce

from annotation.aggregation.consensus import Adjudicated, FlagExclusion, MergeResult, merge_with_exclusions
from annotation.axes import AXES, MIN_CONFIDENCE, MIN_KAPPA
from annotation.io.dataset import rating_set
from annotation.io.records import format_timestamp
from annotation.models import Adjudication, Annotation, Batch, Dialogue, QualityFlag
from annotation.selectors import annotation_records


def flag_batch_expression() -> Coalesce:
    """The batch a flag belongs to: its item's, else its rating's item's, else its report's (None: all batches)."""
    return Coalesce("dialogue__batch_id", "annotation__dialogue__batch_id", "report__batch_id")


def _flag_axes(flag: dict) -> tuple[str, ...]:
    """The axes a flag is about: its axis; for an item's disagreement, the axes whose span crossed the
    threshold; else every axis."""
    if flag["axis"] in AXES:
        return (flag["axis"],)
    spans = flag["details"].get("spans") if isinstance(flag["details"], dict) else None
    threshold = flag["threshold"]
    if isinstance(spans, dict) and threshold is not None:
        wide = tuple(axis for axis in AXES if isinstance(spans.get(axis), int | float) and spans[axis] > threshold)
        if wide:
            return wide
    return AXES


_FLAG_FIELDS = [
    "pk", "kind", "axis", "flag_batch", "annotator__username", "dialogue__external_id",
    "annotation__annotator__username", "annotation__dialogue__external_id", "reviewer__username",
    "reviewed_at", "review_note", "details", "threshold",
]  # fmt: skip


def _flag_rows(flags):
    return flags.annotate(flag_batch=flag_batch_expression()).order_by("pk").values(*_FLAG_FIELDS)


def _exclusions(rows) -> list[FlagExclusion]:
    batch_items: dict[int, frozenset[str]] = {}
    found = []
    for flag in rows:
        annotator = flag["annotation__annotator__username"] or flag["annotator__username"]
        item = flag["annotation__dialogue__external_id"] or flag["dialogue__external_id"]
        if item is not None:
            items = frozenset([item])
        elif annotator is None:
            continue  # neither an annotator nor an item: nothing to leave out
        elif flag["flag_batch"] is None:
            items = None
        else:
            if flag["flag_batch"] not in batch_items:
                batch_items[flag["flag_batch"]] = frozenset(
                    Dialogue.objects.filter(batch_id=flag["flag_batch"]).values_list("external_id", flat=True)
                )
            items = batch_items[flag["flag_batch"]]
        found.append(
            FlagExclusion(
                flag=flag["pk"],
                kind=flag["kind"],
                axes=_flag_axes(flag),
                annotator=annotator,
                items=items,
                reviewer=flag["reviewer__username"] or "",
                reviewed_at=format_timestamp(flag["reviewed_at"]) if flag["reviewed_at"] else "",
                note=flag["review_note"],
            )
        )
    return found


def accepted_flag_exclusions(batch: Batch | None = None) -> list[FlagExclusion]:
    """What the accepted quality flags leave out of the consensus: those of ``batch`` and those of reports over
    all batches; every accepted flag when ``batch`` is None (a merge of files, matched by dialogue id).

    A flag on a rating (or on an annotator and an item) leaves out that rating; on an annotator, their ratings
    in the flag's batch (everywhere for a report over all batches); on an item, the item. A flag without an
    axis covers every axis (an item's disagreement: the axes whose span crossed the threshold).
    """
    flags = _flag_rows(QualityFlag.objects.filter(status=QualityFlag.Status.ACCEPTED))
    if batch is not None:
        flags = flags.filter(Q(flag_batch=batch.pk) | Q(flag_batch__isnull=True))
    return _exclusions(flags)


def flag_exclusions(flags) -> list[FlagExclusion]:
    """What the flags of the queryset ``flags`` leave out of the consensus when accepted (whatever their status)."""
    return _exclusions(_flag_rows(flags))


def flag_exclusion(flag: QualityFlag) -> tuple[FlagExclusion | None, int]:
    """What ``flag`` leaves out of the consensus when accepted (whatever its status now), and how many stored
    ratings that is (items, for a flag on an item)."""
    found = _exclusions(_flag_rows(QualityFlag.objects.filter(pk=flag.pk)))
    if not found:
        return None, 0
    exclusion = found[0]
    if exclusion.annotator is None:
        return exclusion, len(exclusion.items or ())
    ratings = Annotation.objects.filter(annotator__username=exclusion.annotator)
    if exclusion.items is not None:
        ratings = ratings.filter(dialogue__external_id__in=exclusion.items)
    return exclusion, ratings.count()


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
    include_llm: bool = False,
) -> tuple[MergeResult, dict] | None:
    """The batch's consensus and rejected items (seed A.6) with its adjudications and accepted flags applied;
    None without ratings. LLM raters' ratings count only with ``include_llm``."""
    records = annotation_records(batch_name=batch.name, include_llm=include_llm)
    if not records:
        return None
    return merge_with_exclusions(
        rating_set(records),
        method=method,
        min_kappa=min_kappa,
        min_confidence=min_confidence,
        adjudications=adjudications_in_force(batch),
        flag_exclusions=accepted_flag_exclusions(batch),
    )
