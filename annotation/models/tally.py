"""Per-annotator rating counts kept by the database, for the progress bar of the rating page.

Counting an annotator's ratings in a batch on every page view costs time in proportion to how
many they have made. On PostgreSQL, triggers on ``annotation_annotation`` (and on a dialogue's
move to another batch) keep these two tables exact whatever writes the ratings (the web form,
imports, the admin, bulk inserts): a total per annotator and batch, and counts per quarter-hour
(UTC), from which "today" in any time zone is summed. See ``annotation.models.tally_postgresql`` for the
triggers. Other databases count the ratings directly (``annotation.collection.progress.batch_progress``).

"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

__all__ = ["RatingQuarter", "RatingTotal"]


class _Tally(models.Model):
    """A count of an annotator's ratings in a batch (maintained by the database)."""

    annotator = models.ForeignKey(  # the unique constraints index it
        settings.AUTH_USER_MODEL,
        verbose_name=_("annotator"),
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
    )
    batch = models.ForeignKey("annotation.Batch", verbose_name=_("batch"), on_delete=models.CASCADE, related_name="+")
    n = models.IntegerField(_("ratings"), default=0)

    class Meta:
        abstract = True


class RatingTotal(_Tally):
    """How many ratings an annotator has stored in a batch."""

    class Meta:
        db_table = "annotation_ratingtotal"  # named in annotation.models.tally_postgresql
        verbose_name = _("rating total")
        verbose_name_plural = _("rating totals")
        constraints = [models.UniqueConstraint(fields=["annotator", "batch"], name="rating_total_once")]

    def __str__(self) -> str:
        return f"{self.annotator_id} in {self.batch_id}: {self.n}"


class RatingQuarter(_Tally):
    """How many ratings an annotator stored in a batch in one quarter-hour starting at ``start`` (UTC)."""

    start = models.DateTimeField(_("start"))

    class Meta:
        db_table = "annotation_ratingquarter"  # named in annotation.models.tally_postgresql
        verbose_name = _("ratings per quarter-hour")
        verbose_name_plural = _("ratings per quarter-hour")
        constraints = [models.UniqueConstraint(fields=["annotator", "batch", "start"], name="rating_quarter_once")]

    def __str__(self) -> str:
        return f"{self.annotator_id} in {self.batch_id} from {timezone.localtime(self.start):%Y-%m-%d %H:%M}: {self.n}"
