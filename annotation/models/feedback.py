"""The prepared months of the monthly feedback meeting (seed 000 B.3.2), one row per calendar month."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class MonthlyFeedback(models.Model):
    """The figures of one month (``annotation.feedback.compute.month_feedback``), as prepared for the meeting.

    ``month`` is the first day of the calendar month in the site time zone; it is unique, so preparing the same
    month again (a second beat run, a redelivered task) finds the row instead of adding one.
    """

    class Trigger(models.TextChoices):
        SCHEDULE = "schedule", _("schedule")
        MANUAL = "manual", _("by hand")

    month = models.DateField(_("month"), unique=True)
    prepared_at = models.DateTimeField(_("prepared at"), default=timezone.now)
    prepared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("prepared by"), null=True, blank=True, on_delete=models.SET_NULL
    )
    trigger = models.CharField(_("trigger"), max_length=16, choices=Trigger.choices, default=Trigger.SCHEDULE)
    content = models.JSONField(_("content"))

    class Meta:
        ordering = ["-month"]
        verbose_name = _("monthly feedback")
        verbose_name_plural = _("monthly feedback")

    def __str__(self) -> str:
        return f"{self.month:%Y-%m}"
