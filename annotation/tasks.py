"""Periodic work of the annotation app (Celery beat; ``make run`` runs beat inside its worker)."""

from celery import shared_task

from annotation.audits.queue import expire_all_reservations
from annotation.collection.queue import expire_reservations
from annotation.feedback.tasks import feedback_monthly_task  # noqa: F401  (registers the monthly task)
from annotation.monitoring import weekly_agreement_reports

SWEEP_SECONDS = 300


@shared_task(name="annotation.expire_reservations")
def expire_reservations_task() -> int:
    """Give back the slots of abandoned reservations, so progress and quota counts stay current.

    Not needed for correctness: the queue releases a batch's expired reservations itself when it
    finds nothing free (and so does a judge audit's).
    """
    return expire_reservations() + expire_all_reservations()


@shared_task(name="annotation.weekly_agreement")
def weekly_agreement_task() -> list[int]:
    """Recompute agreement and quality flags of the active batches, once per ISO week (AGREEMENT_MONITOR_CRON)."""
    return [report.pk for report in weekly_agreement_reports()]
