"""Annotator training and the qualification test (seed 000, B.3.1): gold items, answers, attempts."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.axes import AXES, MIN_KAPPA

__all__ = ["GoldItem", "QualificationAttempt", "QualificationExtension", "TrainingAnswer"]


def _score_constraints(prefix: str, suffix: str) -> list[models.CheckConstraint]:
    return [
        models.CheckConstraint(
            condition=Q(**{f"{axis}_{suffix}__gte": 1, f"{axis}_{suffix}__lte": 5}), name=f"{prefix}_{axis}_1_to_5"
        )
        for axis in AXES
    ]


class GoldItem(models.Model):
    """A dialogue with the scores a trained annotator should give it, and why (practice or test)."""

    class Set(models.TextChoices):
        PRACTICE = "practice", _("practice")
        TEST = "test", _("test")

    external_id = models.CharField(_("ID"), max_length=200, unique=True)
    user_text = models.TextField(_("user utterance"))
    response_text = models.TextField(_("AI response"))
    # [{"turn": -3, "speaker": "user", "text": "..."}, ...] as Dialogue.context.
    context = models.JSONField(_("context turns"), default=list, blank=True)
    social_gold = models.PositiveSmallIntegerField(_("social"))
    avoidant_gold = models.PositiveSmallIntegerField(_("avoidant"))
    mechanical_gold = models.PositiveSmallIntegerField(_("mechanical"))
    self_gold = models.PositiveSmallIntegerField(_("self"))
    explanation = models.TextField(_("explanation"))
    set = models.CharField(_("set"), max_length=16, choices=Set.choices)
    # Order within the set: the practice sequence and the fixed order of the test.
    position = models.PositiveIntegerField(_("position"), default=0)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        ordering = ["set", "position", "id"]
        verbose_name = _("gold item")
        verbose_name_plural = _("gold items")
        constraints = [
            *_score_constraints("gold", "gold"),
            models.CheckConstraint(condition=Q(set__in=["practice", "test"]), name="gold_set_practice_or_test"),
        ]
        indexes = [models.Index(fields=["set", "position"], name="gold_set_order")]

    def __str__(self) -> str:
        return self.external_id

    @property
    def gold(self) -> dict[str, int]:
        return {axis: getattr(self, f"{axis}_gold") for axis in AXES}

    def as_record(self) -> dict:
        """The gold JSONL shape (annotation.io.gold_records)."""
        return {
            "id": self.external_id,
            "user": self.user_text,
            "response": self.response_text,
            "context": self.context,
            "gold": self.gold,
            "explanation": self.explanation,
            "set": self.set,
        }


class QualificationAttempt(models.Model):
    """One sitting of the qualification test: the items in their fixed order, then the result per axis.

    The latest passed attempt is the annotator's qualification; it expires ``QUALIFICATION_VALID_DAYS``
    after it was passed, or at ``extended_until`` when a researcher extended it to a later time
    (``annotation.collection.qualification``). A re-qualification is a shorter test of gold items not
    seen in the previous attempt, with its own minimum kappa; passing it renews the qualification.
    """

    class Kind(models.TextChoices):
        QUALIFICATION = "qualification", _("qualification test")
        REQUALIFICATION = "requalification", _("re-qualification test")

    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("annotator"),
        on_delete=models.CASCADE,
        related_name="qualification_attempts",
    )
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    # GoldItem ids in the order they are asked, fixed when the attempt starts.
    item_ids = models.JSONField(_("items"), default=list)
    passed = models.BooleanField(_("passed"), null=True, blank=True)  # None until finished
    kappas = models.JSONField(_("kappa per axis"), default=dict, blank=True)  # {axis: float | None}
    reasons = models.JSONField(_("reasons"), default=dict, blank=True)  # {axis: str | None}: why not passed
    # The item last put on screen and when, by the server: a test answer counts only after the
    # minimum time per item (TRAINING_MIN_SECONDS_PER_ITEM) has passed since then.
    shown_item = models.ForeignKey(
        GoldItem,
        verbose_name=_("item on screen"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    shown_at = models.DateTimeField(_("item shown at"), null=True, blank=True)
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices, default=Kind.QUALIFICATION)
    # The weighted kappa every axis must reach, fixed when the attempt starts.
    min_kappa = models.FloatField(_("minimum kappa"), default=MIN_KAPPA)
    # Set by a researcher's extension (QualificationExtension holds who, when and why).
    extended_until = models.DateTimeField(_("extended until"), null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        verbose_name = _("qualification attempt")
        verbose_name_plural = _("qualification attempts")
        constraints = [
            models.UniqueConstraint(
                fields=["annotator"], condition=Q(finished_at__isnull=True), name="qualification_one_open_attempt"
            ),
            models.CheckConstraint(
                condition=Q(finished_at__isnull=True, passed__isnull=True)
                | Q(finished_at__isnull=False, passed__isnull=False),
                name="qualification_passed_set_when_finished",
            ),
        ]
        indexes = [models.Index(fields=["annotator", "passed"], name="qualification_passed")]

    def __str__(self) -> str:
        return f"{self.annotator_id} @ {timezone.localtime(self.started_at):%Y-%m-%d %H:%M}"

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    @property
    def axis_kappas(self) -> list[tuple[str, float | None]]:
        """(axis, kappa) in axis order; kappa None where undefined or not yet computed."""
        return [(axis, self.kappas.get(axis)) for axis in AXES]


class QualificationExtension(models.Model):
    """A researcher moved an annotator's qualification expiry to a later time: who, when, why, from and to."""

    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("annotator"),
        on_delete=models.CASCADE,
        related_name="qualification_extensions",
    )
    attempt = models.ForeignKey(
        QualificationAttempt,
        verbose_name=_("qualification attempt"),
        on_delete=models.CASCADE,
        related_name="extensions",
    )
    extended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("extended by"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(_("extended at"), default=timezone.now)
    reason = models.TextField(_("reason"))
    old_expires_at = models.DateTimeField(_("previous expiry"), null=True, blank=True)
    new_expires_at = models.DateTimeField(_("new expiry"))

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("qualification extension")
        verbose_name_plural = _("qualification extensions")
        constraints = [models.CheckConstraint(condition=~Q(reason=""), name="qualification_extension_has_reason")]

    def __str__(self) -> str:
        return f"{self.annotator_id} → {timezone.localtime(self.new_expires_at):%Y-%m-%d}"


class TrainingAnswer(models.Model):
    """An annotator's four scores for a gold item: a practice answer (no attempt) or a test answer."""

    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.CASCADE, related_name="training_answers"
    )
    gold_item = models.ForeignKey(
        GoldItem, verbose_name=_("gold item"), on_delete=models.PROTECT, related_name="answers"
    )
    attempt = models.ForeignKey(
        QualificationAttempt,
        verbose_name=_("qualification attempt"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="answers",
    )
    social_score = models.PositiveSmallIntegerField(_("social"))
    avoidant_score = models.PositiveSmallIntegerField(_("avoidant"))
    mechanical_score = models.PositiveSmallIntegerField(_("mechanical"))
    self_score = models.PositiveSmallIntegerField(_("self"))
    confidence = models.JSONField(_("confidence per axis"), default=dict, blank=True)  # {axis: 0.0-1.0}
    # Test answers: when the server showed the item (None for practice answers and older rows).
    shown_at = models.DateTimeField(_("shown at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("training answer")
        verbose_name_plural = _("training answers")
        constraints = [
            *_score_constraints("training_answer", "score"),
            # Practice may be repeated; a test item is answered once per attempt.
            models.UniqueConstraint(
                fields=["attempt", "gold_item"],
                condition=Q(attempt__isnull=False),
                name="training_answer_once_per_attempt",
            ),
        ]
        indexes = [models.Index(fields=["annotator", "attempt"], name="training_answer_annotator")]

    def __str__(self) -> str:
        return f"{self.gold_item_id} / {self.annotator_id}"

    @property
    def scores(self) -> dict[str, int]:
        return {axis: getattr(self, f"{axis}_score") for axis in AXES}

    @property
    def seconds(self) -> float | None:
        """Seconds from the item being shown to the answer being stored; None where not measured."""
        return None if self.shown_at is None else (self.created_at - self.shown_at).total_seconds()
