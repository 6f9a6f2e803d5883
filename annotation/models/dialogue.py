"""Batches of dialogues, the dialogues to rate, and the texts an import replaced."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.validators import BatchNameValidator


class Batch(models.Model):
    """A set of dialogues imported together and annotated under the same settings."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")  # capitalised: "open" is a quality flag's state (未対応)
        PAUSED = "paused", _("Paused")  # hands out nothing; open reservations may still be submitted
        CLOSED = "closed", _("Closed")

    name = models.CharField(_("name"), max_length=100, unique=True, validators=[BatchNameValidator(limit=100)])
    description = models.TextField(_("description"), blank=True)
    annotations_per_item = models.PositiveSmallIntegerField(_("annotations per item"), default=3)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.OPEN)
    guidelines_version = models.CharField(
        _("guidelines version"), max_length=40, blank=True, help_text=_("The guidelines the batch is rated under.")
    )
    # False: every annotator (qualified, where qualification is required) may work on the batch;
    # True: only those in ``annotators``. A flag, so the queue's hot path asks nothing more for open batches.
    restricted = models.BooleanField(_("chosen annotators only"), default=False)
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, verbose_name=_("chosen annotators"), blank=True, related_name="chosen_batches"
    )
    disagreement_spread = models.PositiveSmallIntegerField(
        _("disagreement spread"),
        default=2,
        help_text=_("An item is disputed when on some axis the highest and lowest score differ by at least this."),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("batch")
        verbose_name_plural = _("batches")
        constraints = [
            models.CheckConstraint(condition=Q(annotations_per_item__gte=1), name="batch_quota_positive"),
            models.CheckConstraint(condition=Q(disagreement_spread__gte=1), name="batch_spread_positive"),
        ]

    def __str__(self) -> str:
        return self.name


class Dialogue(models.Model):
    """A (user utterance, AI response) pair with its context turns (seed A.3 input)."""

    external_id = models.CharField(_("ID"), max_length=200, unique=True)
    user_text = models.TextField(_("user utterance"))
    response_text = models.TextField(_("AI response"))
    # [{"turn": -3, "speaker": "user", "text": "..."}, ...]; offsets -3..3 without 0, sorted.
    context = models.JSONField(_("context turns"), default=list, blank=True)
    batch = models.ForeignKey(Batch, verbose_name=_("batch"), on_delete=models.PROTECT, related_name="dialogues")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    # Ratings plus live reservations of the work queue: QueueEntry (annotation.models.queue).

    class Meta:
        ordering = ["id"]
        verbose_name = _("dialogue")
        verbose_name_plural = _("dialogues")

    def __str__(self) -> str:
        return self.external_id

    def as_record(self) -> dict:
        """The seed A.3 input shape."""
        return {"id": self.external_id, "user": self.user_text, "response": self.response_text, "context": self.context}


class DialogueRevision(models.Model):
    """The text a dialogue had before an import replaced it (``import_dialogues --update``)."""

    dialogue = models.ForeignKey(
        Dialogue, verbose_name=_("dialogue"), on_delete=models.CASCADE, related_name="revisions"
    )
    changed_at = models.DateTimeField(_("changed at"), default=timezone.now)
    source = models.CharField(_("source"), max_length=300, help_text=_("The file and line of the new text."))
    user_text = models.TextField(_("previous user utterance"))
    response_text = models.TextField(_("previous AI response"))
    context = models.JSONField(_("previous context turns"), default=list, blank=True)
    ratings = models.PositiveIntegerField(_("ratings at the time"), default=0)

    class Meta:
        ordering = ["-changed_at"]
        verbose_name = _("dialogue revision")
        verbose_name_plural = _("dialogue revisions")

    def __str__(self) -> str:
        return f"{self.dialogue_id} before {timezone.localtime(self.changed_at):%Y-%m-%d %H:%M}"
