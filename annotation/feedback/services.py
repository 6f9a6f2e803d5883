"""Writes of the monthly feedback: storing a prepared month (once per month, unless asked to recompute)."""

from __future__ import annotations

import logging
from datetime import date, datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.feedback.selectors import compute_month_with_trend, first_of, shift_month, this_month
from annotation.models import MonthlyFeedback

logger = logging.getLogger(__name__)


class MonthNotEnded(ValueError):
    """Figures of a month still running would be stored incomplete, and the schedule would not redo them."""


def feedback_month_prepare(
    *,
    month: date,
    user=None,
    trigger: str = MonthlyFeedback.Trigger.SCHEDULE,
    n_boot: int | None = None,
    recompute: bool = False,
    now: datetime | None = None,
) -> tuple[MonthlyFeedback | None, bool]:
    """Store the figures of ``month``; returns ``(row, stored_now)``.

    A month already prepared is left as it is (``stored_now`` False) unless ``recompute``: a second run for the same
    month, or a redelivered task, adds nothing. A month without ratings is not stored (``(None, False)``); a month
    that has not ended by ``now`` is refused (``MonthNotEnded``).
    """
    month = first_of(month)
    if month >= this_month(now):
        raise MonthNotEnded(f"{month:%Y-%m} has not ended yet")
    existing = MonthlyFeedback.objects.filter(month=month).first()
    if existing is not None and not recompute:
        return existing, False
    content = compute_month_with_trend(month, n_boot=settings.AGREEMENT_MONITOR_N_BOOT if n_boot is None else n_boot)
    if content is None:
        return existing, False
    fields = {"content": content, "prepared_at": timezone.now(), "prepared_by": user, "trigger": trigger}
    if existing is not None:
        MonthlyFeedback.objects.filter(pk=existing.pk).update(**fields)
        existing.refresh_from_db()
        return existing, True
    try:
        with transaction.atomic():
            return MonthlyFeedback.objects.create(month=month, **fields), True
    except IntegrityError:  # another worker stored the same month meanwhile
        return MonthlyFeedback.objects.get(month=month), False


def feedback_previous_month_prepare(*, now: datetime | None = None) -> MonthlyFeedback | None:
    """What beat runs on the first of each month: prepare the month that just ended (once)."""
    month = shift_month(this_month(now), -1)
    row, stored = feedback_month_prepare(month=month, now=now)
    logger.info(
        "monthly feedback %s: %s",
        f"{month:%Y-%m}",
        "stored" if stored else ("already prepared" if row else "no ratings"),
    )
    return row
