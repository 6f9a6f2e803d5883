"""Ratings imports that went past a batch's rules: who allowed it, why, and which ratings it let in."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models.dialogue import Batch
from annotation.models.rating import Annotation

__all__ = ["ImportOverride", "ImportOverrideRating"]


class ImportOverride(models.Model):
    """One ratings import stored against a batch's rules (``annotation.io.import_rules``), by explicit options.

    The web queue never hands an item out beyond its quota, in a batch for chosen annotators only to those
    chosen, to an annotator without a valid qualification, or of a closed batch, and an import never replaces
    a rating made on the web; an import (a JSONL file, or a rating sheet a researcher uploads) goes past one of
    these only with the option that names it and a reason. Written in the import's transaction, so it exists
    exactly when the ratings it let in were stored. Read-only history.
    """

    class Surface(models.TextChoices):
        COMMAND = "command", _("command line (import_annotations)")
        API = "api", _("API (annotations/import/)")
        PAGE = "page", _("batch page (Upload ratings)")
        SHEET = "sheet", _("rating sheet (Spreadsheets)")
        SHEET_COMMAND = "sheet_command", _("command line (import_spreadsheet)")

    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("allowed by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    # Who, as it was when recorded: the account's name, or the command line's system user (no account).
    by_name = models.CharField(_("allowed by (as recorded)"), max_length=200)
    reason = models.TextField(_("reason"))
    surface = models.CharField(_("through"), max_length=16, choices=Surface.choices)
    job_id = models.UUIDField(_("job"), null=True, blank=True, help_text=_("The worker job that ran the import."))
    # The batch the upload was made to (a batch page, the API's ``batch``); the command imports into any batch.
    batch = models.ForeignKey(
        Batch, verbose_name=_("batch"), null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    batch_names = models.CharField(
        _("batches overridden"), max_length=500, help_text=_("The batches whose rules were passed.")
    )
    files = models.CharField(_("files"), max_length=500)
    # {rule: how many ratings it let in}, for the rules overridden (keys: ImportOverrideRating.Rule values).
    counts = models.JSONField(_("ratings per rule"), default=dict)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("import override")
        verbose_name_plural = _("import overrides")

    def __str__(self) -> str:
        return f"#{self.pk} {self.by_name} {timezone.localtime(self.created_at):%Y-%m-%d %H:%M}"


class ImportOverrideRating(models.Model):
    """A rating an import override let in (or replaced), the rule it passed and the line it came from."""

    class Rule(models.TextChoices):
        QUOTA = "quota", _("quota (ratings per item)")
        CHOSEN_ANNOTATORS = "chosen_annotators", _("chosen annotators only")
        QUALIFICATION = "qualification", _("qualification")
        WEB_RATINGS = "web_ratings", _("rating made on the web replaced")
        CLOSED_BATCH = "closed_batch", _("closed batch")

    override = models.ForeignKey(
        ImportOverride, verbose_name=_("import override"), on_delete=models.CASCADE, related_name="ratings"
    )
    annotation = models.ForeignKey(
        Annotation, verbose_name=_("rating"), on_delete=models.CASCADE, related_name="import_overrides"
    )
    rule = models.CharField(_("rule"), max_length=24, choices=Rule.choices)
    line = models.CharField(_("line"), max_length=300, help_text=_("The file and line of the rating."))

    class Meta:
        ordering = ["override", "id"]
        verbose_name = _("rating let in by an override")
        verbose_name_plural = _("ratings let in by overrides")
        constraints = [
            models.UniqueConstraint(fields=["override", "annotation", "rule"], name="import_override_rating_once")
        ]

    def __str__(self) -> str:
        return f"{self.override_id}: {self.annotation_id} ({self.rule})"
