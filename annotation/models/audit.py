"""Judge audits (issue 18): people rate a stratified sample of an LLM judge's verdicts on a 0–2 scale.

A ``JudgeAudit`` is drawn from a judged Layer3 batch (through ``core.judge_audits``, so that this app
never imports Layer3): GV items (§2.2.1: 0 not relevant / 1 generic / 2 useful) or W2WR bindings
(§2.2.3: 0 wrong / 1 redundant / 2 correct). Each sampled unit becomes an ``AuditItem`` holding what a
rater needs to see (``context``), what the judge said (never shown to raters) and its sampling
stratum and design weight. Raters take items through a queue of their own with the work queue's
guarantees: ``taken_count`` (ratings plus live reservations) never exceeds ``per_item``, an item is
reserved for one rater at a time, one open reservation per rater and audit.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

JUDGE_SCORES = (0, 1, 2)


class JudgeAudit(models.Model):
    class Kind(models.TextChoices):
        GV = "gv", _("GV relevance (generated values)")
        W2WR = "w2wr", _("W2WR semantic correctness (bindings)")

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    name = models.CharField(_("name"), max_length=150, unique=True)
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    # The Layer3 batch's name (its public id in the API): a name, not a key, since apps do not share tables.
    source_batch = models.CharField(_("Layer3 batch"), max_length=100, db_index=True)
    per_item = models.PositiveSmallIntegerField(_("ratings per item"), default=3)
    requested_size = models.PositiveIntegerField(_("requested sample size"))
    seed = models.BigIntegerField(_("seed"))
    population = models.PositiveIntegerField(_("judged units in the batch"))
    # {"strata": [{"stratum": [model_config, score], "population": N_h, "sampled": n_h}], "minPerStratum": 2,
    #  "judgeRates": {"<model>@<prompt>": rate over the whole batch}} (see annotation.audits.services)
    design = models.JSONField(_("sampling design"), default=dict)
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.OPEN)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("judge audit")
        verbose_name_plural = _("judge audits")
        constraints = [models.CheckConstraint(condition=Q(per_item__gte=1), name="audit_per_item_positive")]

    def __str__(self) -> str:
        return self.name


class AuditItem(models.Model):
    """One sampled judged unit: what raters see, what the judge said, and its place in the design."""

    audit = models.ForeignKey(JudgeAudit, verbose_name=_("audit"), on_delete=models.CASCADE, related_name="items")
    key = models.CharField(_("unit"), max_length=300)  # "<trial id>:<itemId>" or "<trial id>:<bindingId>"
    trial_id = models.CharField(_("trial id"), max_length=200)
    model_config = models.CharField(_("model configuration"), max_length=50)
    # What a rater sees (see core.judge_audits.JudgedUnit.context); untrusted generated text, escaped on pages.
    context = models.JSONField(_("context"))
    judge_model = models.CharField(_("judge model"), max_length=150)
    judge_prompt = models.CharField(_("judge prompt version"), max_length=100)
    judge_score = models.PositiveSmallIntegerField(_("judge score"))
    judge_label = models.CharField(_("judge label"), max_length=40, blank=True)
    judge_reasoning = models.TextField(_("judge reasoning"), blank=True)
    baseline_score = models.PositiveSmallIntegerField(_("offline baseline score"), null=True, blank=True)
    stratum = models.JSONField(_("stratum"))  # [model_config, judge_score]
    weight = models.FloatField(_("design weight"))  # N_h / n_h
    taken_count = models.PositiveSmallIntegerField(_("ratings and reservations"), default=0)
    # 1-based place in the audit as drawn ("item 3 of 30" on the rater's page; the id is a database key)
    position = models.PositiveIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["audit", "id"]
        verbose_name = _("audit item")
        verbose_name_plural = _("audit items")
        constraints = [
            models.UniqueConstraint(fields=["audit", "key"], name="audit_item_once"),
            models.CheckConstraint(condition=Q(judge_score__lte=2), name="audit_item_judge_score_0_to_2"),
            models.CheckConstraint(
                condition=Q(baseline_score__isnull=True) | Q(baseline_score__lte=2),
                name="audit_item_baseline_score_0_to_2",
            ),
        ]
        indexes = [models.Index(fields=["audit", "taken_count", "id"], name="audit_item_queue_order")]

    def __str__(self) -> str:
        return f"{self.audit_id}/{self.key}"


class AuditAssignment(models.Model):
    """An audit item handed to a rater: reserved until submitted, skipped or expired."""

    class Status(models.TextChoices):
        RESERVED = "reserved", _("reserved")
        SUBMITTED = "submitted", _("submitted")
        SKIPPED = "skipped", _("skipped")
        EXPIRED = "expired", _("expired")

    item = models.ForeignKey(AuditItem, verbose_name=_("item"), on_delete=models.CASCADE, related_name="assignments")
    audit = models.ForeignKey(JudgeAudit, verbose_name=_("audit"), on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.CASCADE, related_name="+"
    )
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.RESERVED)
    reserved_at = models.DateTimeField(_("reserved at"), default=timezone.now)
    expires_at = models.DateTimeField(_("expires at"))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    skip_reason = models.CharField(_("skip reason"), max_length=300, blank=True)

    class Meta:
        ordering = ["-reserved_at"]
        verbose_name = _("audit assignment")
        verbose_name_plural = _("audit assignments")
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="audit_assignment_once_per_annotator"),
            models.UniqueConstraint(
                fields=["annotator", "audit"], condition=Q(status="reserved"), name="audit_one_open_reservation"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item_id} → {self.annotator_id} ({self.status})"


class AuditRating(models.Model):
    """One person's 0–2 rating of one audit item."""

    item = models.ForeignKey(AuditItem, verbose_name=_("item"), on_delete=models.PROTECT, related_name="ratings")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.PROTECT, related_name="+"
    )
    score = models.PositiveSmallIntegerField(_("score"))
    comment = models.TextField(_("comment"), blank=True)
    seconds_spent = models.FloatField(_("seconds spent"), null=True, blank=True)
    created_at = models.DateTimeField(_("timestamp"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        ordering = ["item_id", "annotator_id"]
        verbose_name = _("audit rating")
        verbose_name_plural = _("audit ratings")
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="audit_rating_one_per_annotator"),
            models.CheckConstraint(condition=Q(score__lte=2), name="audit_rating_score_0_to_2"),
            models.CheckConstraint(
                condition=Q(seconds_spent__isnull=True) | Q(seconds_spent__gte=0), name="audit_rating_seconds"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item_id} / {self.annotator_id}: {self.score}"


class AuditRatingEdit(models.Model):
    """History of a changed audit rating: who, when, before and after."""

    rating = models.ForeignKey(AuditRating, verbose_name=_("rating"), on_delete=models.CASCADE, related_name="edits")
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("edited by"), null=True, on_delete=models.SET_NULL, related_name="+"
    )
    edited_at = models.DateTimeField(_("edited at"), default=timezone.now)
    old_score = models.PositiveSmallIntegerField(_("old score"))
    new_score = models.PositiveSmallIntegerField(_("new score"))
    reason = models.CharField(_("reason"), max_length=200, blank=True)

    class Meta:
        ordering = ["-edited_at"]
        verbose_name = _("audit rating edit")
        verbose_name_plural = _("audit rating edits")

    def __str__(self) -> str:
        return f"{self.rating_id} @ {timezone.localtime(self.edited_at):%Y-%m-%d %H:%M}"


class AuditGuidelinesRead(models.Model):
    """A rater has read the short guidelines of one kind of judge audit (GV or W2WR) and may rate its items.

    A judge audit asks for its own 0–2 scale, not the sycophancy scale, so it needs these instructions
    rather than the sycophancy qualification test (README, *Judge calibration*).
    """

    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("annotator"), on_delete=models.CASCADE, related_name="+"
    )
    kind = models.CharField(_("kind"), max_length=8, choices=JudgeAudit.Kind.choices)
    read_at = models.DateTimeField(_("read at"), default=timezone.now)

    class Meta:
        verbose_name = _("audit guidelines read")
        verbose_name_plural = _("audit guidelines read")
        constraints = [models.UniqueConstraint(fields=["annotator", "kind"], name="audit_guidelines_read_once")]

    def __str__(self) -> str:
        return f"{self.annotator_id}: {self.kind}"
