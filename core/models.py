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

    part = models.CharField(max_length=64, unique=True)
    loaded_at = models.DateTimeField(auto_now_add=True)
    summary = models.CharField(max_length=255, blank=True)

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
