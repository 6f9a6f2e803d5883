"""Admin of the ratings and the people who give them: annotations with their edit history, profiles,
queue assignments, training answers and qualification attempts."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from annotation.admin.common import ReadOnlyAdmin, local_time, username
from annotation.axes import AXES
from annotation.models import (
    Annotation,
    AnnotationEdit,
    AnnotatorProfile,
    Assignment,
    QualificationAttempt,
    TrainingAnswer,
)
from annotation.services import annotation_update, annotation_values


class EditColumns:
    """The columns of a rating's edit history (AnnotationEdit's fields have no verbose names)."""

    @admin.display(description=_("edited at"), ordering="edited_at")
    def edited(self, obj):
        return local_time(obj.edited_at)

    @admin.display(description=_("edited by"))
    def editor(self, obj):
        return username(obj.edited_by)

    @admin.display(description=_("old values"))
    def before(self, obj):
        return obj.old_values

    @admin.display(description=_("new values"))
    def after(self, obj):
        return obj.new_values

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


@admin.register(Annotation)
class AnnotationAdmin(admin.ModelAdmin):
    list_display = [
        "dialogue", "annotator", "social_score", "avoidant_score", "mechanical_score", "self_score",
        "lowest_confidence", "seconds_spent", "source", "created_at",
    ]  # fmt: skip
    list_filter = ["source", "dialogue__batch", "annotator", *[f"{axis}_score" for axis in AXES]]
    search_fields = ["dialogue__external_id", "annotator__username"]
    list_select_related = ["dialogue", "annotator"]
    raw_id_fields = ["dialogue", "annotator"]
    readonly_fields = ["dialogue", "annotator", "created_at", "updated_at", "seconds_spent", "source"]
    inlines = [AnnotationEditInline]

    @admin.display(description=_("lowest confidence"))
    def lowest_confidence(self, obj):
        return min(obj.confidences.values())

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
    list_display = ["annotator", "started_at", "finished_at", "passed"]
    list_filter = ["passed"]
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
    ]

    def has_add_permission(self, request) -> bool:
        return False


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
