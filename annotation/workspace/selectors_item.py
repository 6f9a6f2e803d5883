"""Reads of the item page: every annotator's ratings side by side, the spread per axis, the consensus line,
flags, comments and the adjudication history of one item."""

from __future__ import annotations

import hashlib

import orjson
from django.core.cache import cache
from django.db.models import Count, F, Max, Q, Sum
from django.utils.translation import gettext as _

from annotation.axes import AXES
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import Adjudication, Annotation, Batch, Dialogue, ItemComment, QualityFlag
from annotation.review.selectors import batch_consensus
from annotation.workspace.selectors import ItemFilters, items_filtered

CONSENSUS_SECONDS = 600


def rating_rows(dialogue: Dialogue) -> list[dict]:
    ratings = Annotation.objects.filter(dialogue=dialogue).select_related("annotator").order_by("created_at", "pk")
    return [
        {
            "rating": rating,
            "cells": [
                {"axis": axis, "score": rating.scores[axis], "confidence": rating.confidences[axis]} for axis in AXES
            ],
        }
        for rating in ratings
    ]


def axis_spreads(rows: list[dict], batch: Batch) -> list[dict]:
    """Per axis: lowest and highest score, their difference, and whether it reaches the batch's disputed spread."""
    out = []
    for i, axis in enumerate(AXES):
        scores = [row["cells"][i]["score"] for row in rows]
        spread = max(scores) - min(scores) if scores else 0
        out.append(
            {
                "axis": axis,
                "label": AXIS_NAMES[axis],
                "low": min(scores) if scores else None,
                "high": max(scores) if scores else None,
                "spread": spread,
                "disputed": len(scores) > 1 and spread >= batch.disagreement_spread,
            }
        )
    return out


def item_flags(dialogue: Dialogue) -> list[QualityFlag]:
    """Quality flags of the item and of its ratings, open ones first."""
    flags = QualityFlag.objects.filter(Q(dialogue=dialogue) | Q(annotation__dialogue=dialogue))
    flags = flags.select_related("annotator").order_by("-created_at", "-pk")
    return sorted(flags, key=lambda flag: flag.status != QualityFlag.Status.OPEN)


def item_comments(dialogue: Dialogue) -> list[ItemComment]:
    return list(ItemComment.objects.filter(dialogue=dialogue).select_related("author").order_by("-created_at", "-pk"))


def adjudication_history(dialogue: Dialogue) -> tuple[list[dict], dict[str, Adjudication]]:
    """(every decision, newest first, with the score it replaced; the decisions in force by axis)."""
    decisions = Adjudication.objects.filter(dialogue=dialogue).select_related("decided_by").order_by("decided_at", "pk")
    current: dict[str, Adjudication | None] = {}
    history = []
    for decision in decisions:
        previous = current.get(decision.axis)
        history.append(
            {
                "decision": decision,
                "label": AXIS_NAMES.get(decision.axis, decision.axis),
                "old": previous.score if previous is not None else None,
                "withdrawal": decision.score is None,
            }
        )
        current[decision.axis] = decision
    in_force = {axis: decision for axis, decision in current.items() if decision is not None and decision.score}
    return history[::-1], in_force


def _fingerprint(batch: Batch) -> str:
    """Changes whenever a rating or a decision of the batch is added, changed or removed."""
    scores = sum((F(f"{axis}_score") for axis in AXES[1:]), F(f"{AXES[0]}_score"))
    confidences = sum((F(f"{axis}_confidence") for axis in AXES[1:]), F(f"{AXES[0]}_confidence"))
    ratings = Annotation.objects.filter(dialogue__batch=batch).aggregate(
        n=Count("pk"), last=Max("pk"), updated=Max("updated_at"), scores=Sum(scores), confidences=Sum(confidences)
    )
    decisions = Adjudication.objects.filter(dialogue__batch=batch).aggregate(
        n=Count("pk"), last=Max("pk"), at=Max("decided_at")
    )
    text = repr((batch.pk, sorted(ratings.items()), sorted(decisions.items())))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _consensus_entry(batch: Batch, external_id: str) -> dict | None:
    """The item's consensus line (``{"kind": "consensus", "line"}``) or rejected entry (``{"kind": "rejected",
    "entry"}``); None when the item has no ratings.

    The consensus of one item depends on the whole batch (annotators with low agreement are left out
    per axis), so it is computed for the batch and cached until a rating or decision of the batch
    changes: the item pages of a large batch stay quick after the first one. Each item's entry is kept
    as JSON text, so that reading the cache does not rebuild 10,000 dicts for the one wanted.
    """
    key = f"workspace:consensus:{batch.pk}:{_fingerprint(batch)}"
    found = cache.get(key)
    if found is None:
        merged = batch_consensus(batch)
        found = {}
        if merged is not None:
            result, _summary = merged
            found = {line["id"]: orjson.dumps({"kind": "consensus", "line": line}) for line in result.consensus}
            found |= {entry["id"]: orjson.dumps({"kind": "rejected", "entry": entry}) for entry in result.rejected}
        cache.set(key, found, CONSENSUS_SECONDS)
    text = found.get(external_id)
    return None if text is None else orjson.loads(text)


def reject_reason_text(reason: dict) -> str:
    """One axis's reason for rejecting an item (seed A.6), in the user's language."""
    if reason.get("reason") == "too_few_ratings":
        return _("%(usable)s usable rating(s), %(required)s needed") % reason
    if reason.get("reason") == "spread_too_wide":
        return _("scores %(min)s–%(max)s, more than %(max_spread)s apart") % reason
    if reason.get("reason") == "flag_accepted":
        return _("an accepted quality flag on the item")
    return str(reason.get("reason"))


def item_consensus(batch: Batch, dialogue: Dialogue, in_force: dict[str, Adjudication]) -> dict | None:
    """The consensus row of the item page: per axis the merged score (or the decision in force, marked),
    or, for a rejected item, per axis the reason it was rejected; None when the item has no ratings."""
    found = _consensus_entry(batch, dialogue.external_id)
    if found is None:
        return None
    if found["kind"] == "rejected":
        reasons = found["entry"]["reasons"]
        cells = [
            {
                "axis": axis,
                "reason": reject_reason_text(reasons[axis]) if axis in reasons else "",
                "decision": in_force.get(axis),
            }
            for axis in AXES
        ]
        return {"rejected": True, "cells": cells}
    line = found["line"]
    adjudicated = line.get("adjudicated", {})
    cells = []
    for axis in AXES:
        decided = adjudicated.get(axis)
        cells.append(
            {
                "axis": axis,
                "score": line["annotations"][axis],
                "mean": decided["merged"] if decided else line["scores_mean"][axis],
                "adjudicated": decided,
                "n_used": line["n_used"][axis],
            }
        )
    return {"rejected": False, "cells": cells, "method": line["method"]}


def neighbours(batch: Batch, filters: ItemFilters, dialogue_pk: int) -> dict:
    """The previous and next item under ``filters`` (in their order), and this item's place among them."""
    order = list(items_filtered(batch, filters).values_list("pk", flat=True))
    try:
        at = order.index(dialogue_pk)
    except ValueError:
        return {"previous": None, "next": None, "position": None, "total": len(order)}
    return {
        "previous": order[at - 1] if at > 0 else None,
        "next": order[at + 1] if at + 1 < len(order) else None,
        "position": at + 1,
        "total": len(order),
    }
