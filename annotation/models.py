from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.axes import AXES


class Batch(models.Model):
    """A set of dialogues imported together and annotated under the same settings."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    description = models.TextField(_("description"), blank=True)
    annotations_per_item = models.PositiveSmallIntegerField(_("annotations per item"), default=3)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["name"]
        verbose_name = _("batch")
        verbose_name_plural = _("batches")
        constraints = [models.CheckConstraint(condition=Q(annotations_per_item__gte=1), name="batch_quota_positive")]

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
    # Ratings plus live reservations of the work queue: QueueEntry (annotation.models_queue).

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
        return f"{self.dialogue_id} before {self.changed_at:%Y-%m-%d %H:%M}"


class AnnotatorProfile(models.Model):
    """Per-annotator facts that are not about logging in."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotator_profile")
    imported = models.BooleanField(
        _("imported"), default=False, help_text=_("Created by an import of annotation files, not a person who logs in.")
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("annotator profile")
        verbose_name_plural = _("annotator profiles")

    def __str__(self) -> str:
        return str(self.user)


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

    # No single-column indexes: (dialogue, annotator) and (annotator, created_at) below serve every lookup, and
    # each index costs every bulk insert and delete of ratings.
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
        indexes = [models.Index(fields=["annotator", "created_at"])]

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

    annotation = models.ForeignKey(Annotation, on_delete=models.CASCADE, related_name="edits")
    edited_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    edited_at = models.DateTimeField(default=timezone.now)
    old_values = models.JSONField()
    new_values = models.JSONField()
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-edited_at"]
        verbose_name = _("annotation edit")
        verbose_name_plural = _("annotation edits")

    def __str__(self) -> str:
        return f"{self.annotation_id} @ {self.edited_at:%Y-%m-%d %H:%M}"


class AgreementReport(models.Model):
    """One run of the agreement computation (the kappa_calculator report), kept for the UI and admin."""

    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    batch = models.ForeignKey(Batch, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports")
    source = models.CharField(
        _("source"), max_length=255, help_text=_("The batch or files the report was computed from.")
    )
    parameters = models.JSONField(_("parameters"), default=dict)
    passed = models.BooleanField(_("passed"))
    report = models.JSONField(_("report"))

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("agreement report")
        verbose_name_plural = _("agreement reports")

    def __str__(self) -> str:
        return f"{self.source} {self.created_at:%Y-%m-%d %H:%M}"

    def axis_kappa(self, axis: str):
        return (self.report.get("axes", {}).get(axis) or {}).get("kappa")


class QualityFlag(models.Model):
    """A consistency issue or a statistical outlier, reviewed by an admin."""

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ACCEPTED = "accepted", _("accepted")
        DISMISSED = "dismissed", _("dismissed")

    class Source(models.TextChoices):
        CONSISTENCY = "consistency", _("consistency rule")
        OUTLIER = "outlier", _("outlier detection")
        TEXT_CHANGE = "text_change", _("the rated text changed")

    source = models.CharField(_("source"), max_length=16, choices=Source.choices)
    kind = models.CharField(_("kind"), max_length=64, help_text=_("Rule id or outlier kind."))
    report = models.ForeignKey(AgreementReport, null=True, blank=True, on_delete=models.CASCADE, related_name="flags")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="quality_flags"
    )
    dialogue = models.ForeignKey(
        Dialogue, null=True, blank=True, on_delete=models.CASCADE, related_name="quality_flags"
    )
    annotation = models.ForeignKey(
        Annotation, null=True, blank=True, on_delete=models.CASCADE, related_name="quality_flags"
    )
    axis = models.CharField(_("axis"), max_length=16, blank=True)
    statistic = models.FloatField(_("statistic"), null=True, blank=True)
    threshold = models.FloatField(_("threshold"), null=True, blank=True)
    message = models.TextField(_("message"))
    details = models.JSONField(_("details"), default=dict, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.OPEN)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="reviewed_flags"
    )
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    review_note = models.TextField(_("review note"), blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("quality flag")
        verbose_name_plural = _("quality flags")
        indexes = [models.Index(fields=["status", "source"])]

    def __str__(self) -> str:
        return f"{self.kind}: {self.message[:60]}"


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
    # through the ORM or annotation.batch_delete, which delete a batch's assignments.
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


from annotation.models_queue import *  # noqa: E402,F403  (the work queue's counts, kept apart from the texts)
from annotation.models_tally import *  # noqa: E402,F403  (rating counts kept by the database)
from annotation.models_training import *  # noqa: E402,F403  (training models live in their own module)
