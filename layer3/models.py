"""Stored trial logs of LLM-generated UI specs and their Layer3 results (seed 002 §3.3).

``Batch`` is the seed's ``batch_executions`` row, ``TrialLog`` its ``experiment_trial_logs``: the
JSON columns hold the seed's ``BatchLayer3Results`` and ``Layer3MetricsV1`` shapes as they are
(camelCase keys), so that the API and the exports serve them without translation.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.validators import BatchNameValidator


class Batch(models.Model):
    """One batch execution: trials generated together for an experiment."""

    name = models.CharField(
        _("name"), max_length=100, unique=True, validators=[BatchNameValidator(limit=100, digits_allowed=False)]
    )
    experiment_id = models.CharField(_("experiment id"), max_length=100, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    layer3_results = models.JSONField(_("Layer3 results"), null=True, blank=True)  # BatchLayer3Results
    # Beside the seed's column: the same figures per model config, and the §7 tests (Bonferroni),
    # refreshed with layer3_results after every run.
    layer3_by_model = models.JSONField(_("Layer3 results by model configuration"), null=True, blank=True)
    layer3_statistics = models.JSONField(_("Layer3 statistics"), null=True, blank=True)
    layer3_evaluated_at = models.DateTimeField(_("Layer3 evaluated at"), null=True, blank=True)
    # Which aggregation wrote the three figures above: an older one is recomputed on the next read
    # (layer3.selectors.current_results), so figures of one batch never mix two definitions.
    results_version = models.PositiveSmallIntegerField(_("results version"), default=0)
    # The widget types the batch's generator could choose from (seed 002 §2.2.4 |W|), fixed at import.
    widget_catalogue = models.JSONField(_("widget catalogue"), default=list, blank=True)
    # The types its trials use outside the catalogue, [{"type", "trials", "widgets"}] sorted by type
    # (layer3.metrics.widget_types): with the catalogue they are the batch's one |W|. Kept by the import.
    widget_types_seen = models.JSONField(_("widget types outside the catalogue"), default=list, blank=True)

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


class Layer3Run(models.Model):
    """One evaluation of a batch (seed 002 §5.1 ``evaluate-layer3``, §6): options, progress and outcome.

    Written by the run service as it goes, so a page, the API or a second command can see a run in
    flight; ``heartbeat_at`` moves with every chunk, so a run whose process died is told apart from
    a slow one.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Succeeded")
        STOPPED_BY_BUDGET = "stopped_by_budget", _("Stopped by the budget")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")
        INTERRUPTED = "interrupted", _("Interrupted")

    IN_FLIGHT = (Status.QUEUED, Status.RUNNING)

    batch = models.ForeignKey(Batch, verbose_name=_("batch"), on_delete=models.CASCADE, related_name="layer3_runs")
    job_id = models.UUIDField(_("job"), null=True, blank=True)  # core.Job when a worker runs it
    options = models.JSONField(_("options"))  # EvaluateLayer3Request (camelCase) + judge, stage, budget
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.QUEUED)
    total_targets = models.PositiveIntegerField(_("targets"), default=0)
    evaluated_count = models.PositiveIntegerField(_("evaluated"), default=0)
    skipped_count = models.PositiveIntegerField(_("skipped"), default=0)
    error_count = models.PositiveIntegerField(_("errors"), default=0)
    unjudged_count = models.PositiveIntegerField(_("left for a later run"), default=0)
    judge_failures = models.PositiveIntegerField(_("judge answers given up on"), default=0)  # items
    # What the run was to compute, keep and replace per metric block (layer3.runs.plan.PlanCounts)
    plan = models.JSONField(_("plan"), null=True, blank=True)
    current_trial = models.CharField(_("current trial"), max_length=200, blank=True)
    last_metrics = models.JSONField(_("latest metrics"), null=True, blank=True)  # Partial<Layer3MetricsV1>
    judge_requests = models.PositiveIntegerField(_("judge requests"), default=0)
    judge_cache_hits = models.PositiveIntegerField(_("judge cache hits"), default=0)
    cost_usd = models.FloatField(_("cost (USD)"), default=0.0)
    cost_jpy = models.FloatField(_("cost (JPY)"), default=0.0)
    error = models.TextField(_("error"), blank=True)
    log_file = models.CharField(_("log file"), max_length=500, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    heartbeat_at = models.DateTimeField(_("last progress"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    elapsed_ms = models.PositiveIntegerField(_("elapsed (ms)"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("Layer3 run")
        verbose_name_plural = _("Layer3 runs")
        indexes = [models.Index(fields=["batch", "status"], name="layer3_run_batch_status")]

    def __str__(self) -> str:
        return f"{self.batch} · {self.created_at:%Y-%m-%d %H:%M} · {self.status}"

    @property
    def percentage(self) -> float:
        done = self.evaluated_count + self.error_count
        return round(100.0 * done / self.total_targets, 1) if self.total_targets else 100.0


class Layer3RunProblem(models.Model):
    """A problem one run met: a trial whose data is not a UISpec, or judge answers given up on.

    Kept per run, so a run's progress stream and summary report its own problems only, and a later
    run of the batch does not repeat an earlier one's.
    """

    class Kind(models.TextChoices):
        SPEC = "spec", _("Not a UISpec")
        JUDGE = "judge", _("Judge answers given up on")

    run = models.ForeignKey(Layer3Run, verbose_name=_("run"), on_delete=models.CASCADE, related_name="problems")
    trial = models.ForeignKey(
        TrialLog, verbose_name=_("trial"), null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    external_id = models.CharField(_("trial id"), max_length=200)
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    path = models.CharField(_("JSON path"), max_length=500, blank=True)
    message = models.TextField(_("message"))  # English, as stored; pages translate it
    items = models.PositiveIntegerField(_("items"), default=0)  # judge: the items given up on

    class Meta:
        ordering = ["run", "pk"]
        verbose_name = _("Layer3 run problem")
        verbose_name_plural = _("Layer3 run problems")

    def __str__(self) -> str:
        return f"{self.run_id}/{self.external_id}: {self.kind}"


class Layer3RunResult(models.Model):
    """One target trial's ``layer3_metrics`` as they stood when a run ended (a snapshot, so two runs compare).

    Written in one INSERT…SELECT when a run succeeds, stops at its budget or is cancelled
    (``layer3.runs.services.layer3_run_finish``); a run from before snapshots existed has none.
    """

    run = models.ForeignKey(
        Layer3Run, verbose_name=_("run"), on_delete=models.CASCADE, related_name="results", db_index=False
    )  # the unique (run, trial) index leads with it
    trial = models.ForeignKey(TrialLog, verbose_name=_("trial"), on_delete=models.CASCADE, related_name="+")
    metrics = models.JSONField(_("Layer3 metrics"), null=True, blank=True)  # Layer3MetricsV1 after the run

    class Meta:
        ordering = ["run", "trial"]
        verbose_name = _("Layer3 run result")
        verbose_name_plural = _("Layer3 run results")
        constraints = [models.UniqueConstraint(fields=["run", "trial"], name="run_result_once_per_trial")]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.trial_id}"
