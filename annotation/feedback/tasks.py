"""Celery beat's monthly task (FEEDBACK_MONTHLY_CRON): prepare the month that just ended for the feedback meeting."""

from celery import shared_task

from annotation.feedback.services import feedback_previous_month_prepare


@shared_task(name="annotation.feedback_monthly")
def feedback_monthly_task() -> int | None:
    """Store last month's feedback figures, once per month; returns the stored row's id (None: no ratings)."""
    row = feedback_previous_month_prepare()
    return row.pk if row else None
