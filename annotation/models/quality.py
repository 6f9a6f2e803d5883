"""Stored agreement reports and the quality flags that admins review."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models.dialogue import Batch, Dialogue
from annotation.models.rating import Annotation


class AgreementReport(models.Model):
    """One run of the agreement computation (the kappa_calculator report), kept for the UI and admin."""

    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True, on_delete=models.SET_NULL
    )
    batch = models.ForeignKey(
        Batch, verbose_name=_("batch"), null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    source = models.CharField(
        _("source"), max_length=255, help_text=_("The batch or files the report was computed from.")
    )
    parameters = models.JSONField(_("parameters"), default=dict)
    passed = models.BooleanField(_("passed"))
    report = models.JSONField(_("report"))

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("agreement report")
        verbose_name_plural = _("agreement reports")

    def __str__(self) -> str:
        return f"{self.source} {timezone.localtime(self.created_at):%Y-%m-%d %H:%M}"

    def axis_kappa(self, axis: str):
        return (self.report.get("axes", {}).get(axis) or {}).get("kappa")


class QualityFlag(models.Model):
    """A consistency issue or a statistical outlier, reviewed by an admin."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ACCEPTED = "accepted", _("accepted")
        DISMISSED = "dismissed", _("dismissed")

    class Source(models.TextChoices):
        CONSISTENCY = "consistency", _("consistency rule")
        OUTLIER = "outlier", _("outlier detection")
        TEXT_CHANGE = "text_change", _("the rated text changed")

    source = models.CharField(_("source"), max_length=16, choices=Source.choices)
    kind = models.CharField(_("kind"), max_length=64, help_text=_("Rule id or outlier kind."))
    report = models.ForeignKey(
        AgreementReport, verbose_name=_("report"), null=True, blank=True, on_delete=models.CASCADE, related_name="flags"
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("annotator"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="quality_flags",
    )
    dialogue = models.ForeignKey(
        Dialogue,
        verbose_name=_("dialogue"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="quality_flags",
    )
    annotation = models.ForeignKey(
        Annotation,
        verbose_name=_("annotation"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="quality_flags",
    )
    axis = models.CharField(_("axis"), max_length=16, blank=True)
    statistic = models.FloatField(_("statistic"), null=True, blank=True)
    threshold = models.FloatField(_("threshold"), null=True, blank=True)
    message = models.TextField(_("message"))
    details = models.JSONField(_("details"), default=dict, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.OPEN)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reviewer"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reviewed_flags",
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    review_note = models.TextField(_("review note"), blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("quality flag")
        verbose_name_plural = _("quality flags")
        indexes = [models.Index(fields=["status", "source"])]
        # Researchers who hold it review flags on the review site (see annotation.admin.sites); admins
        # hold every permission.
        permissions = [("review_qualityflag", _("Can review quality flags (accept, dismiss, reopen)"))]

    def __str__(self) -> str:
        return _("quality flag #%(pk)s") % {"pk": self.pk}


class QualityFlagReview(models.Model):
    """One review decision on a flag (accept, dismiss, reopen): who, when, from which status, and why.

    Rows are never changed; the flag's own ``status``, ``reviewer``, ``reviewed_at`` and ``review_note``
    repeat the latest one.
    """

    flag = models.ForeignKey(
        QualityFlag, verbose_name=_("quality flag"), on_delete=models.CASCADE, related_name="reviews"
    )
    old_status = models.CharField(_("previous status"), max_length=16, choices=QualityFlag.Status.choices)
    new_status = models.CharField(_("new status"), max_length=16, choices=QualityFlag.Status.choices)
    note = models.TextField(_("review note"), blank=True)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("reviewer"), null=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), default=timezone.now)

    class Meta:
        ordering = ["-reviewed_at", "-pk"]
        verbose_name = _("flag review")
        verbose_name_plural = _("flag reviews")

    def __str__(self) -> str:
        return f"{self.flag_id}: {self.old_status} -> {self.new_status}"
