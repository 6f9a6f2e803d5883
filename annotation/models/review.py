"""Researchers' adjudications of disputed items, and annotators' comments on items."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.axes import AXES
from annotation.models.dialogue import Dialogue

AXIS_CHOICES = [(axis, axis) for axis in AXES]


class Adjudication(models.Model):
    """A researcher's decision on one axis of a disputed item. Rows are never changed: the latest per
    (dialogue, axis) holds, a row without a score withdraws the decision, and the rest are its history."""

    dialogue = models.ForeignKey(
        Dialogue, verbose_name=_("dialogue"), on_delete=models.CASCADE, related_name="adjudications"
    )
    axis = models.CharField(_("axis"), max_length=16, choices=AXIS_CHOICES)
    score = models.PositiveSmallIntegerField(_("adjudicated score"), null=True, blank=True)
    reason = models.TextField(_("reason"))
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("decided by"), null=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(_("decided at"), default=timezone.now)

    class Meta:
        ordering = ["-decided_at", "-pk"]
        verbose_name = _("adjudication")
        verbose_name_plural = _("adjudications")
        indexes = [models.Index(fields=["dialogue", "axis", "-decided_at"], name="adjudication_latest")]
        constraints = [
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__gte=1, score__lte=5), name="adjudication_1_to_5"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.dialogue_id} {self.axis} = {self.score}"


class ItemComment(models.Model):
    """An annotator's note on an item ("問題あり" or a free comment), shown to researchers."""

    dialogue = models.ForeignKey(
        Dialogue, verbose_name=_("dialogue"), on_delete=models.CASCADE, related_name="comments"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("author"), on_delete=models.CASCADE, related_name="item_comments"
    )
    problem = models.BooleanField(_("problem with the item"), default=False)
    text = models.TextField(_("comment"), blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    resolved_at = models.DateTimeField(_("resolved at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("item comment")
        verbose_name_plural = _("item comments")
        indexes = [models.Index(fields=["dialogue", "created_at"], name="item_comment_dialogue")]
        constraints = [
            models.CheckConstraint(condition=Q(problem=True) | ~Q(text=""), name="item_comment_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.dialogue_id}: {self.text[:40]}"
