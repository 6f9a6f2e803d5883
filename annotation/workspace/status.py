"""A batch's status in the workspace's words: its label and what it means for the annotators."""

from django.utils.translation import gettext_lazy as _

from annotation.models import Batch

# The batch's own words for its status (the model's "open" shares its msgid with a quality flag's "open").
STATUS_LABELS = {
    Batch.Status.OPEN: _("Open"),
    Batch.Status.PAUSED: _("Paused"),
    Batch.Status.CLOSED: _("Closed"),
}
STATUS_HELP = {
    Batch.Status.OPEN: _("Annotators get items from this batch."),
    Batch.Status.PAUSED: _("A paused batch hands out nothing; reservations already open may still be submitted."),
    Batch.Status.CLOSED: _("Hands out nothing and no longer appears in the annotators' list."),
}
