"""Stored trial logs of LLM-generated UI specs and their Layer3 results (seed 002 §3.3).

``Batch`` is the seed's ``batch_executions`` row, ``TrialLog`` its ``experiment_trial_logs``: the
JSON columns hold the seed's ``BatchLayer3Results`` and ``Layer3MetricsV1`` shapes as they are
(camelCase keys), so that the API and the exports serve them without translation.
"""

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Batch(models.Model):
    """One batch execution: trials generated together for an experiment."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    experiment_id = models.CharField(_("experiment id"), max_length=100, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    layer3_results = models.JSONField(_("Layer3 results"), null=True, blank=True)  # BatchLayer3Results

    class Meta:
        ordering = ["name"]
        verbose_name = _("trial batch")
        verbose_name_plural = _("trial batches")

    def __str__(self) -> str:
        return self.name


class TrialLog(models.Model):
    """One generated UI spec for one concern, by one model configuration (A–E)."""

    batch = models.ForeignKey(
        Batch, verbose_name=_("batch"), on_delete=models.CASCADE, related_name="trials", db_index=False
    )  # the unique (batch, external id) index leads with it
    external_id = models.CharField(_("trial id"), max_length=200)
    model_config = models.CharField(_("model configuration"), max_length=50)
    stage = models.PositiveSmallIntegerField(_("stage"))
    input_text = models.TextField(_("concern"))
    generated_data = models.JSONField(_("generated data"))  # UISpec or PlanUISpec, as generated
    layer3_metrics = models.JSONField(_("Layer3 metrics"), null=True, blank=True)  # Layer3MetricsV1
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["batch", "external_id"]
        verbose_name = _("trial log")
        verbose_name_plural = _("trial logs")
        constraints = [models.UniqueConstraint(fields=["batch", "external_id"], name="trial_once_per_batch")]
        indexes = [
            # seed §3.3: evaluated trials, and those still to evaluate (stage 3)
            models.Index(fields=["batch"], condition=Q(layer3_metrics__isnull=False), name="trial_layer3_evaluated"),
            models.Index(
                fields=["batch", "stage"],
                condition=Q(layer3_metrics__isnull=True, stage=3),
                name="trial_layer3_unevaluated",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.batch_id}/{self.external_id} ({self.model_config})"
