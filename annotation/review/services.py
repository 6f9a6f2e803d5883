"""Writes of the review: a researcher's adjudication of one axis, an annotator's comment on an item."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from annotation.axes import AXES, SCORES
from annotation.models import Adjudication, Dialogue, ItemComment

MAX_COMMENT = 2_000


class ReviewError(ValueError):
    """A decision or comment that cannot be stored; the message says what is accepted."""


def adjudication_record(*, dialogue: Dialogue, axis: str, score: int | None, reason: str, user) -> Adjudication:
    """Record a researcher's score for ``axis`` of ``dialogue`` (``score=None`` withdraws the decision).

    Earlier decisions stay as the history; the latest one holds.
    """
    if axis not in AXES:
        raise ReviewError(f"axis must be one of {', '.join(AXES)}; got {axis!r}")
    if score is not None and score not in SCORES:
        raise ReviewError(f"score must be an integer from {SCORES[0]} to {SCORES[-1]}; got {score!r}")
    reason = (reason or "").strip()
    if not reason:
        raise ReviewError("a reason is required: say why this score holds (it is kept with the decision)")
    with transaction.atomic():
        Dialogue.objects.select_for_update().filter(pk=dialogue.pk).exists()  # one decision at a time per item
        return Adjudication.objects.create(
            dialogue=dialogue, axis=axis, score=score, reason=reason[:MAX_COMMENT], decided_by=user,
            decided_at=timezone.now(),
        )  # fmt: skip


def item_comment_create(*, dialogue: Dialogue, author, text: str = "", problem: bool = False) -> ItemComment:
    """An annotator's note on an item: a comment, a "problem with this item" mark, or both."""
    text = (text or "").strip()
    if not text and not problem:
        raise ReviewError("write a comment or mark the item as having a problem")
    if len(text) > MAX_COMMENT:
        raise ReviewError(f"a comment holds at most {MAX_COMMENT} characters; this one has {len(text)}")
    return ItemComment.objects.create(dialogue=dialogue, author=author, text=text, problem=problem)


def item_comment_resolve(*, comment: ItemComment) -> ItemComment:
    if comment.resolved_at is None:
        comment.resolved_at = timezone.now()
        comment.save(update_fields=["resolved_at"])
    return comment
