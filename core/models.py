import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Job(models.Model):
    """A long-running piece of work done by a Celery worker, with progress the UI can poll."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Succeeded")
        FAILED = "failed", _("Failed")
        CANCELLED = "cancelled", _("Cancelled")

    FINISHED = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(_("kind"), max_length=64)
    params = models.JSONField(_("parameters"), default=dict, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress_done = models.PositiveIntegerField(_("done"), default=0)
    progress_total = models.PositiveIntegerField(_("total"), null=True, blank=True)
    message = models.CharField(_("message"), max_length=255, blank=True)
    result = models.JSONField(_("result"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    cancel_requested = models.BooleanField(_("cancel requested"), default=False)
    # The outbox: a job is handed to the broker after its row commits. ``dispatched_at`` stays empty while the
    # broker could not take it (``dispatch_error`` says why); ``core.job_sweep`` hands it over again.
    dispatched_at = models.DateTimeField(_("handed to the queue"), null=True, blank=True)
    dispatch_attempts = models.PositiveSmallIntegerField(_("hand-over attempts"), default=0)
    dispatch_error = models.CharField(_("queue error"), max_length=255, blank=True)
    # The worker process running it (host:pid:token) and its last sign of life, in the database's clock: a
    # running job whose heartbeat is older than ``JOB_CHUNK_STALE_SECONDS`` lost its worker (``core.job_sweep``).
    worker = models.CharField(_("worker"), max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(_("heartbeat"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["kind", "status"])]
        verbose_name = _("job")
        verbose_name_plural = _("jobs")

    def __str__(self) -> str:
        return f"{self.kind} {self.id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def waiting_for_queue(self) -> bool:
        """Queued, but the broker has not taken it yet (it was unreachable): the sweep hands it over again."""
        return self.status == self.Status.QUEUED and self.dispatched_at is None and self.dispatch_attempts > 0

    @property
    def percent(self) -> int | None:
        if not self.progress_total:
            return None
        return min(100, round(100 * self.progress_done / self.progress_total))

    @property
    def duration_seconds(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class DemoLoad(models.Model):
    """Which part of the demo data set has been loaded, so `make run` loads each part once."""

    part = models.CharField(_("part"), max_length=64, unique=True)
    loaded_at = models.DateTimeField(_("loaded at"), auto_now_add=True)
    summary = models.CharField(_("summary"), max_length=255, blank=True)

    class Meta:
        verbose_name = _("demo data load")
        verbose_name_plural = _("demo data loads")

    def __str__(self) -> str:
        return self.part


class ApiToken(models.Model):
    """A personal token for scripts: ``Authorization: Token <key>``. Only its sha256 is stored; the key is
    shown once, when it is created. Revoked tokens stay listed (who had access, until when)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=100)
    prefix = models.CharField(_("prefix"), max_length=12)  # the key's first characters, to recognise it
    digest = models.CharField(_("digest"), max_length=64, unique=True)  # sha256 of the key
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class JobChunk(models.Model):
    """One part of a job split for several workers (``core.chunks``): any worker may claim it.

    The claimer writes its ``token`` and keeps ``heartbeat_at`` fresh while it works; a chunk whose
    heartbeat is older than ``JOB_CHUNK_STALE_SECONDS`` belonged to a worker that died and is claimed
    again. A chunk's results are stored in the transaction that marks it done, and only while the token
    is still the claimer's, so a chunk taken over is stored once.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        SKIPPED = "skipped", _("Skipped")
        FAILED = "failed", _("Failed")

    OPEN = (Status.QUEUED, Status.RUNNING)

    job = models.ForeignKey(Job, verbose_name=_("job"), on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField(_("index"))
    payload = models.JSONField(_("payload"))
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.QUEUED)
    token = models.CharField(_("claimed by"), max_length=200, blank=True)  # host:pid:uuid of the claimer
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    items = models.PositiveIntegerField(_("items"), default=0)  # what it counted towards the job's progress
    result = models.JSONField(_("result"), null=True, blank=True)  # what its kind's finish adds up
    heartbeat_at = models.DateTimeField(_("heartbeat"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [models.UniqueConstraint(fields=["job", "index"], name="job_chunk_unique_index")]
        indexes = [models.Index(fields=["job", "status"])]
        verbose_name = _("job chunk")
        verbose_name_plural = _("job chunks")

    def __str__(self) -> str:
        return f"{self.job_id} #{self.index} ({self.status})"
