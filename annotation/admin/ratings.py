"""Admin of the ratings and the people who give them: annotations with their edit history, profiles,
queue assignments, training answers and qualification attempts."""

from django.contrib import admin
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Q
from django.db.models.functions import Least
from django.utils.formats import number_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.admin.common import ReadOnlyAdmin, local_time, username
from annotation.admin.imports import overrides_of_rating
from annotation.axes import AXES, MIN_CONFIDENCE, SCORES
from annotation.guidelines.scale import AXIS_NAMES, LEVEL_LABELS
from annotation.models import (
    Annotation,
    AnnotationEdit,
    AnnotatorProfile,
    Assignment,
    QualificationAttempt,
    QualificationExtension,
    TrainingAnswer,
)
from annotation.services import annotation_update, annotation_values


def _value_label(name: str) -> str:
    """A rating field as the admin's column headers name it ("social" is the axis's name, and so on)."""
    try:
        return str(Annotation._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:
        return name


def _changed_values(values, other) -> str:
    """The values of an edit that differ from the other side's, named: an edit stores all eight values."""
    if not isinstance(values, dict) or not isinstance(other, dict):
        return str(values)
    return ", ".join(f"{_value_label(name)}: {value}" for name, value in values.items() if other.get(name) != value)


class EditColumns:
    """The columns of a rating's edit history (AnnotationEdit's fields are JSON and a foreign key)."""

    @admin.display(description=_("edited at"), ordering="edited_at")
    def edited(self, obj):
        return local_time(obj.edited_at)

    @admin.display(description=_("edited by"))
    def editor(self, obj):
        return username(obj.edited_by)

    @admin.display(description=_("old values"))
    def before(self, obj):
        return _changed_values(obj.old_values, obj.new_values)

    @admin.display(description=_("new values"))
    def after(self, obj):
        return _changed_values(obj.new_values, obj.old_values)

    @admin.display(description=_("reason"))
    def why(self, obj):
        return obj.reason


class AnnotationEditInline(EditColumns, admin.TabularInline):
    model = AnnotationEdit
    extra = 0
    can_delete = False
    fields = ["edited", "editor", "before", "after", "why"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(AnnotationEdit)
class AnnotationEditAdmin(EditColumns, ReadOnlyAdmin):
    list_display = ["edited", "rating", "editor", "why", "before", "after"]
    list_filter = ["annotation__dialogue__batch"]
    search_fields = ["annotation__dialogue__external_id", "annotation__annotator__username", "reason"]
    list_select_related = ["annotation__dialogue", "annotation__annotator", "edited_by"]
    fields = ["edited", "rating", "editor", "why", "before", "after"]
    readonly_fields = fields

    @admin.display(description=_("annotation"))
    def rating(self, obj):
        return f"{obj.annotation.dialogue.external_id} / {obj.annotation.annotator.get_username()}"


class ConfidenceFilter(admin.SimpleListFilter):
    """Ratings with a confidence below the seed's threshold on some axis (left out of the consensus on that axis,
    seed A.6), or at least the threshold on every axis."""

    title = _("confidence")
    parameter_name = "confidence"

    def lookups(self, request, model_admin):
        threshold = {"min": number_format(MIN_CONFIDENCE)}
        return [
            ("below", gettext("below %(min)s on some axis") % threshold),
            ("at_least", gettext("at least %(min)s on every axis") % threshold),
        ]

    def queryset(self, request, queryset):
        if self.value() == "below":
            below = Q()
            for axis in AXES:
                below |= Q(**{f"{axis}_confidence__lt": MIN_CONFIDENCE})
            return queryset.filter(below)
        if self.value() == "at_least":
            return queryset.filter(**{f"{axis}_confidence__gte": MIN_CONFIDENCE for axis in AXES})
        return queryset


class _ScoreFilter(admin.SimpleListFilter):
    """The five levels of one axis, named. Fixed choices: the admin's default for a number field would look up
    the distinct values in every rating on every page load. The parameter is the field's name, as before."""

    axis = ""

    def lookups(self, request, model_admin):
        return [(str(score), f"{score} · {LEVEL_LABELS[score]}") for score in SCORES]

    def queryset(self, request, queryset):
        if self.value() in {str(score) for score in SCORES}:
            return queryset.filter(**{f"{self.axis}_score": int(self.value())})
        return queryset


SCORE_FILTERS = [
    type(f"{axis.title()}ScoreFilter", (_ScoreFilter,),
         {"axis": axis, "title": AXIS_NAMES[axis], "parameter_name": f"{axis}_score"})
    for axis in AXES
]  # fmt: skip


@admin.register(Annotation)
class AnnotationAdmin(admin.ModelAdmin):
    list_display = [
        "dialogue", "annotator", "social_score", "avoidant_score", "mechanical_score", "self_score",
        "lowest_confidence", "seconds_spent", "source", "created",
    ]  # fmt: skip
    list_filter = [
        ConfidenceFilter,
        "dialogue__batch",
        ("annotator", admin.RelatedOnlyFieldListFilter),  # only people who rated, not every account
        "source",
        *SCORE_FILTERS,
    ]
    search_fields = ["dialogue__external_id", "annotator__username"]
    list_select_related = ["dialogue", "annotator"]
    raw_id_fields = ["dialogue", "annotator"]
    readonly_fields = ["dialogue", "annotator", "created_at", "updated_at", "seconds_spent", "source", "overrides"]
    inlines = [AnnotationEditInline]

    @admin.display(description=_("import overrides"))
    def overrides(self, obj):
        return overrides_of_rating(obj)

    def get_queryset(self, request):
        lowest = Least(*[f"{axis}_confidence" for axis in AXES])
        return super().get_queryset(request).annotate(_lowest_confidence=lowest)

    @admin.display(description=_("lowest confidence"), ordering="_lowest_confidence")
    def lowest_confidence(self, obj):
        return round(min(obj.confidences.values()), 2)

    @admin.display(description=_("timestamp"), ordering="created_at")
    def created(self, obj):
        return local_time(obj.created_at)

    def save_model(self, request, obj, form, change):
        if not change:
            super().save_model(request, obj, form, change)
            return
        # Edits go through the service so that the history keeps the old values.
        values = {name: value for name, value in annotation_values(obj).items() if name in form.changed_data}
        annotation_update(annotation=obj, values=values, user=request.user, reason="admin")

    def has_add_permission(self, request) -> bool:
        return False  # ratings come from annotators and imports


@admin.register(AnnotatorProfile)
class AnnotatorProfileAdmin(admin.ModelAdmin):
    list_display = ["person", "imported", "created_at"]
    list_filter = ["imported"]
    search_fields = ["user__username"]
    list_select_related = ["user"]
    fields = ["person", "imported", "created_at"]
    readonly_fields = ["person"]

    @admin.display(description=_("user"), ordering="user__username")
    def person(self, obj):
        return username(obj.user)

    def has_add_permission(self, request) -> bool:
        return False  # made with the user (sign-up, imports)


@admin.register(QualificationAttempt)
class QualificationAttemptAdmin(admin.ModelAdmin):
    list_display = ["annotator", "kind", "started_at", "finished_at", "passed", "extended_until"]
    list_filter = ["passed", "kind"]
    search_fields = ["annotator__username"]
    readonly_fields = [
        "annotator",
        "started_at",
        "finished_at",
        "item_ids",
        "passed",
        "kappas",
        "reasons",
        "shown_item",
        "shown_at",
        "kind",
        "min_kappa",
        "extended_until",  # changed with a reason on the activity page (QualificationExtension)
    ]

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(QualificationExtension)
class QualificationExtensionAdmin(ReadOnlyAdmin):
    """The audit of qualification extensions: who moved whose expiry, when, why, from and to."""

    list_display = ["annotator", "old_expires_at", "new_expires_at", "extended_by", "created_at", "reason"]
    search_fields = ["annotator__username", "extended_by__username", "reason"]
    list_select_related = ["annotator", "extended_by"]


@admin.register(TrainingAnswer)
class TrainingAnswerAdmin(ReadOnlyAdmin):
    list_display = ["annotator", "gold_item", "attempt_started", "social_score", "avoidant_score",
                    "mechanical_score", "self_score", "created_at"]  # fmt: skip
    list_filter = [("attempt", admin.EmptyFieldListFilter)]
    search_fields = ["annotator__username", "gold_item__external_id"]
    list_select_related = ["annotator", "gold_item", "attempt"]

    @admin.display(description=_("qualification attempt"))
    def attempt_started(self, obj):
        return local_time(obj.attempt.started_at) if obj.attempt else ""


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    """What the work queue handed out, and what became of it (submitted, skipped with a reason, expired)."""

    list_display = ["dialogue", "annotator", "batch", "status", "reserved_at", "finished_at", "skip_reason"]
    list_filter = ["status", "batch"]
    search_fields = ["dialogue__external_id", "annotator__username", "skip_reason"]
    list_select_related = ["dialogue", "annotator", "batch"]
