"""Weekly agreement monitoring (seed 000 B.3.2 週次κモニタリング): the agreement report and quality flags of every
active batch, recomputed on a schedule.

Celery beat runs ``annotation.weekly_agreement`` (annotation.tasks) at ``AGREEMENT_MONITOR_CRON``, by default
Mondays at 06:00 site time. The reports it stores are ordinary agreement reports marked
``parameters["trigger"] == "weekly"``, with no creator: the dashboard shows the latest report of each batch, and
admin lists them all.
"""

from __future__ import annotations

import logging
from datetime import datetime, time, timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef
from django.utils import timezone

from annotation.models import AgreementReport, Annotation, Batch
from annotation.services import agreement_report_create

logger = logging.getLogger(__name__)

WEEKLY = "weekly"
# A paused batch hands out no new items, but reservations already taken may still be submitted, so its ratings
# still change; a closed batch is done.
ACTIVE_STATUSES = (Batch.Status.OPEN, Batch.Status.PAUSED)


def iso_week_bounds(moment: datetime) -> tuple[datetime, datetime]:
    """From Monday 00:00 to the next Monday 00:00 of the ISO week ``moment`` falls in, in the site time zone."""
    zone = timezone.get_default_timezone()
    day = timezone.localtime(moment, zone).date()
    monday = day - timedelta(days=day.weekday())
    start = datetime.combine(monday, time.min, tzinfo=zone)
    return start, datetime.combine(monday + timedelta(days=7), time.min, tzinfo=zone)


def weekly_agreement_reports() -> list[AgreementReport]:
    """Store this week's agreement report, with its quality flags, for each active batch that has ratings.

    A batch that already has a weekly report from this ISO week is left alone, so a restarted scheduler or a
    redelivered task does not store a second one. A batch whose computation fails is logged and the others
    still run. The computation holds no lock: one beat process per site sends the task.
    """
    start, end = iso_week_bounds(timezone.now())
    weekly_this_week = AgreementReport.objects.filter(
        batch=OuterRef("pk"), parameters__trigger=WEEKLY, created_at__gte=start, created_at__lt=end
    )
    batches = (
        Batch.objects.filter(status__in=ACTIVE_STATUSES)
        .annotate(
            rated=Exists(
                Annotation.objects.filter(dialogue__batch=OuterRef("pk")).exclude(source=Annotation.Source.LLM)
            ),
            done=Exists(weekly_this_week),
        )
        .order_by("pk")
    )
    stored, unrated, done, failed = [], 0, 0, 0
    for batch in batches:
        if not batch.rated:
            unrated += 1
        elif batch.done:
            done += 1
        else:
            try:
                stored.append(
                    agreement_report_create(batch=batch, n_boot=settings.AGREEMENT_MONITOR_N_BOOT, trigger=WEEKLY)
                )
            except Exception:
                failed += 1
                logger.exception("weekly agreement report of batch %r (id %s) failed", batch.name, batch.pk)
    logger.info(
        "weekly agreement: %d report(s) stored, %d batch(es) already done this week, %d without ratings, %d failed",
        len(stored),
        done,
        unrated,
        failed,
    )
    return stored
