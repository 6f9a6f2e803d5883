"""Annotators' profiles, their ratings, and the history of edits to a rating."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.axes import AXES
from annotation.models.dialogue import Dialogue


class AnnotatorProfile(models.Model):
    """Per-annotator facts that are not about logging in."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE, related_name="annotator_profile"
    )
    imported = models.BooleanField(
        _("imported"), default=False, help_text=_("Created by an import of annotation files, not a person who logs in.")
    )
    # An LLM rater (``annotation.llm_rater``): the model and prompt version it rates with; empty for people.
    # Its account has no usable password and no role; its ratings stay out of consensus and human agreement
    # unless a researcher includes them.
    llm_model = models.CharField(_("LLM model"), max_length=150, blank=True)
    llm_prompt = models.CharField(_("LLM prompt version"), max_length=100, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("annotator profile")
        verbose_name_plural = _("annotator profiles")

    def __str__(self) -> str:
        return str(self.user)

    @property
    def is_llm_rater(self) -> bool:
        return bool(self.llm_model)

    @property
    def rater_label(self) -> str:
        """How people see the rater: its username, or ``llm:<model>@<prompt version>`` for an LLM rater."""
        return f"llm:{self.llm_model}@{self.llm_prompt}" if self.llm_model else self.user.get_username()


def _score_field(label):
    return models.PositiveSmallIntegerField(label)


def _confidence_field(label):
    return models.FloatField(label, default=1.0)


class Annotation(models.Model):
    """One annotator's four scores (1–5) and confidences (0–1) for one dialogue (seed A.3 output)."""

    class Source(models.TextChoices):
        WEB = "web", _("web form")
        IMPORT = "import", _("JSONL import")
        SPREADSHEET = "spreadsheet", _("spreadsheet")
        LLM = "llm", _("LLM rater")

    # No single-column indexes: (dialogue, annotator) and (annotator, created_at) below serve every lookup, and
    # each index costs every bulk insert and delete of ratings. (updated_at, id) is the API's keyset order
    # ("newest change first"): a page of the list, filtered or not, reads only its own rows at any depth.
    dialogue = models.ForeignKey(
        Dialogue, verbose_name=_("dialogue"), on_delete=models.PROTECT, related_name="annotations", db_index=False
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("annotator"),
        on_delete=models.PROTECT,
        related_name="annotations",
        db_index=False,
    )
    social_score = _score_field(_("social"))
    avoidant_score = _score_field(_("avoidant"))
    mechanical_score = _score_field(_("mechanical"))
    self_score = _score_field(_("self"))
    social_confidence = _confidence_field(_("social confidence"))
    avoidant_confidence = _confidence_field(_("avoidant confidence"))
    mechanical_confidence = _confidence_field(_("mechanical confidence"))
    self_confidence = _confidence_field(_("self confidence"))
    created_at = models.DateTimeField(_("timestamp"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)
    seconds_spent = models.FloatField(_("seconds spent"), null=True, blank=True)
    source = models.CharField(_("source"), max_length=16, choices=Source.choices, default=Source.WEB)

    class Meta:
        ordering = ["dialogue_id", "annotator_id"]
        verbose_name = _("annotation")
        verbose_name_plural = _("annotations")
        constraints = [
            models.UniqueConstraint(fields=["dialogue", "annotator"], name="annotation_one_per_annotator"),
            *[
                models.CheckConstraint(
                    condition=Q(**{f"{axis}_score__gte": 1, f"{axis}_score__lte": 5}), name=f"annotation_{axis}_1_to_5"
                )
                for axis in AXES
            ],
            *[
                models.CheckConstraint(
                    condition=Q(**{f"{axis}_confidence__gte": 0, f"{axis}_confidence__lte": 1}),
                    name=f"annotation_{axis}_confidence_0_to_1",
                )
                for axis in AXES
            ],
            models.CheckConstraint(
                condition=Q(seconds_spent__isnull=True) | Q(seconds_spent__gte=0),
                name="annotation_seconds_not_negative",
            ),
        ]
        indexes = [
            models.Index(fields=["annotator", "created_at"]),
            models.Index(fields=["updated_at", "id"], name="annotation_newest_change"),
        ]

    def __str__(self) -> str:
        return f"{self.dialogue_id} / {self.annotator_id}"

    @property
    def scores(self) -> dict[str, int]:
        return {axis: getattr(self, f"{axis}_score") for axis in AXES}

    @property
    def confidences(self) -> dict[str, float]:
        return {axis: getattr(self, f"{axis}_confidence") for axis in AXES}


class AnnotationEdit(models.Model):
    """History of a changed annotation: who changed it, when, and the values before and after."""

    annotation = models.ForeignKey(
        Annotation, verbose_name=_("annotation"), on_delete=models.CASCADE, related_name="edits"
    )
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("edited by"), null=True, on_delete=models.SET_NULL, related_name="+"
    )
    edited_at = models.DateTimeField(_("edited at"), default=timezone.now)
    old_values = models.JSONField(_("old values"))
    new_values = models.JSONField(_("new values"))
    reason = models.CharField(_("reason"), max_length=200, blank=True)

    class Meta:
        ordering = ["-edited_at"]
        verbose_name = _("annotation edit")
        verbose_name_plural = _("annotation edits")

    def __str__(self) -> str:
        return f"{self.annotation_id} @ {timezone.localtime(self.edited_at):%Y-%m-%d %H:%M}"
