"""Each dialogue's place in its batch's work queue, apart from the dialogue's texts.

Every reservation, rating, skip and import changes how many ratings and open reservations an item
has. Kept on the dialogue row, each change rewrote the texts and three index entries (an import of
100,000 ratings rewrote 100,000 dialogues: 2.2–3.2 s on PostgreSQL here, most of the import); kept
here it rewrites a narrow row and two index entries. The row lock taken when the queue hands an
item out is on this row and guards the quota (see ``annotation.queue``).

Database triggers (``annotation.queue_entries``) create an entry with every dialogue, move it with
its dialogue to another batch and delete it with the dialogue, whatever writes the dialogue (imports,
the admin, COPY, raw SQL). Hence no foreign key: the triggers are the integrity, and an import of
100,000 dialogues does not pay 100,000 key checks for rows it has just written.

Imported at the end of annotation/models.py, so the model belongs to the annotation app.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

__all__ = ["QueueEntry"]


class QueueEntry(models.Model):
    """How many ratings and live reservations a dialogue has, in its batch's queue order."""

    dialogue = models.OneToOneField(
        "annotation.Dialogue",
        verbose_name=_("dialogue"),
        primary_key=True,
        on_delete=models.DO_NOTHING,  # the database deletes it with the dialogue
        db_constraint=False,
        related_name="queue_entry",
    )
    # The dialogue's batch, copied by the triggers: the queue's index leads with it.
    batch = models.ForeignKey(
        "annotation.Batch", on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    taken_count = models.PositiveIntegerField(_("ratings and reservations"), default=0)

    class Meta:
        verbose_name = _("queue entry")
        verbose_name_plural = _("queue entries")
        indexes = [models.Index(fields=["batch", "taken_count", "dialogue"], name="queue_entry_order")]

    def __str__(self) -> str:
        return f"{self.dialogue_id}: {self.taken_count}"
