"""The work queue: reservations of dialogues for annotators, and each dialogue's place in its batch's queue."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models.dialogue import Batch, Dialogue


class Assignment(models.Model):
    """A dialogue handed to an annotator by the work queue: reserved until submitted, skipped or expired."""

    class Status(models.TextChoices):
        RESERVED = "reserved", _("reserved")
        SUBMITTED = "submitted", _("submitted")
        SKIPPED = "skipped", _("skipped")
        EXPIRED = "expired", _("expired")
        # the annotator's rating of the item arrived another way (an import, a spreadsheet) meanwhile
        CLOSED = "closed", _("closed: rated another way")

    dialogue = models.ForeignKey(
        Dialogue, verbose_name=_("dialogue"), on_delete=models.CASCADE, related_name="assignments"
    )
    # The batch whose queue handed the item out (the dialogue's batch at that time). No database
    # constraint: checking it would lock the batch row (FOR KEY SHARE) on every reservation, and
    # with many annotators in one batch those locks pile up into multixacts (PostgreSQL CPU per
    # rating doubled at 20 annotators). The dialogue's own key guards integrity; deletions go
    # through the ORM or annotation.io.batch_delete, which delete a batch's assignments.
    batch = models.ForeignKey(
        Batch,
        verbose_name=_("batch"),
        on_delete=models.CASCADE,
        related_name="assignments",
        db_constraint=False,
        db_index=False,  # the index of open reservations leads with the annotator; a batch_id index
        # tempted the submit statement into walking the whole batch's assignments
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.CASCADE, related_name="assignments"
    )
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.RESERVED)
    reserved_at = models.DateTimeField(_("reserved at"), default=timezone.now)
    expires_at = models.DateTimeField(_("expires at"))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    skip_reason = models.CharField(_("skip reason"), max_length=300, blank=True)

    class Meta:
        ordering = ["-reserved_at"]
        verbose_name = _("assignment")
        verbose_name_plural = _("assignments")
        constraints = [
            models.UniqueConstraint(fields=["dialogue", "annotator"], name="assignment_once_per_annotator"),
            # however many tabs or double submits race each other
            # Also the index of open reservations: the rating page's "my open reservation in this
            # batch", and the expiry sweep (a scan of open reservations only). An index on
            # (status, expires_at) tempted the planner into scanning every annotator's reservations.
            models.UniqueConstraint(
                fields=["annotator", "batch"], condition=Q(status="reserved"), name="one_open_reservation_per_batch"
            ),
        ]
        indexes = [
            models.Index(fields=["annotator", "status"], name="assignment_annotator_status"),
        ]

    def __str__(self) -> str:
        return f"{self.dialogue_id} → {self.annotator_id} ({self.status})"


class QueueEntry(models.Model):
    """How many ratings and live reservations a dialogue has, in its batch's queue order.

    Each dialogue's place in its batch's work queue, apart from the dialogue's texts.

    Every reservation, rating, skip and import changes how many ratings and open reservations an item
    has. Kept on the dialogue row, each change rewrote the texts and three index entries (an import of
    100,000 ratings rewrote 100,000 dialogues: 2.2–3.2 s on PostgreSQL here, most of the import); kept
    here it rewrites a narrow row and two index entries. The row lock taken when the queue hands an
    item out is on this row and guards the quota (see ``annotation.collection.queue``).

    Database triggers (``annotation.models.queue_triggers``) create an entry with every dialogue, move it with
    its dialogue to another batch and delete it with the dialogue, whatever writes the dialogue (imports,
    the admin, COPY, raw SQL). Hence no foreign key: the triggers are the integrity, and an import of
    100,000 dialogues does not pay 100,000 key checks for rows it has just written.
    """

    dialogue = models.OneToOneField(
        Dialogue,
        verbose_name=_("dialogue"),
        primary_key=True,
        on_delete=models.DO_NOTHING,  # the database deletes it with the dialogue
        db_constraint=False,
        related_name="queue_entry",
    )
    # The dialogue's batch, copied by the triggers: the queue's index leads with it.
    batch = models.ForeignKey(
        Batch,
        verbose_name=_("batch"),
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,
        related_name="+",
    )
    taken_count = models.PositiveIntegerField(_("ratings and reservations"), default=0)

    class Meta:
        verbose_name = _("queue entry")
        verbose_name_plural = _("queue entries")
        indexes = [models.Index(fields=["batch", "taken_count", "dialogue"], name="queue_entry_order")]

    def __str__(self) -> str:
        return f"{self.dialogue_id}: {self.taken_count}"
