from django.contrib import admin
from django.db.models import Count
from django.utils import timezone
from django.utils.html import format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from annotation.axes import AXES
from annotation.models import (
    AgreementReport,
    Annotation,
    AnnotationEdit,
    AnnotatorProfile,
    Batch,
    Dialogue,
    DialogueRevision,
    GoldItem,
    QualificationAttempt,
    QualityFlag,
)
from annotation.services import annotation_update, annotation_values


@admin.register(Batch)
class BatchAdmin(admin.ModelAdmin):
    list_display = ["name", "annotations_per_item", "dialogue_count", "created_at"]
    search_fields = ["name", "description"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_dialogues=Count("dialogues"))

    @admin.display(description=_("dialogues"), ordering="_dialogues")
    def dialogue_count(self, obj):
        return obj._dialogues


@admin.register(DialogueRevision)
class DialogueRevisionAdmin(admin.ModelAdmin):
    """The text a dialogue had before an import changed it: history, read only."""

    list_display = ["dialogue", "changed_at", "source", "ratings", "user_excerpt"]
    search_fields = ["dialogue__external_id", "user_text", "response_text", "source"]
    list_select_related = ["dialogue"]
    readonly_fields = ["dialogue", "changed_at", "source", "user_text", "response_text", "context", "ratings"]

    @admin.display(description=_("previous user utterance"))
    def user_excerpt(self, obj):
        return Truncator(obj.user_text).chars(40)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Dialogue)
class DialogueAdmin(admin.ModelAdmin):
    list_display = ["external_id", "batch", "user_excerpt", "response_excerpt", "annotation_count", "created_at"]
    list_filter = ["batch"]
    search_fields = ["external_id", "user_text", "response_text"]
    readonly_fields = ["created_at", "context_turns"]
    list_select_related = ["batch"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_annotations=Count("annotations"))

    @admin.display(description=_("user utterance"))
    def user_excerpt(self, obj):
        return Truncator(obj.user_text).chars(40)

    @admin.display(description=_("AI response"))
    def response_excerpt(self, obj):
        return Truncator(obj.response_text).chars(60)

    @admin.display(description=_("ratings"), ordering="_annotations")
    def annotation_count(self, obj):
        return obj._annotations

    @admin.display(description=_("context turns"))
    def context_turns(self, obj):
        # format_html_join escapes every piece of the (untrusted) dialogue text.
        return format_html_join(
            "", "<div><b>{}</b> {}: {}</div>", ((t["turn"], t["speaker"], t["text"]) for t in obj.context)
        )


class AnnotationEditInline(admin.TabularInline):
    model = AnnotationEdit
    extra = 0
    can_delete = False
    fields = ["edited_at", "edited_by", "old_values", "new_values", "reason"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


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
    list_display = ["user", "imported", "created_at"]
    list_filter = ["imported"]
    search_fields = ["user__username"]


@admin.register(AgreementReport)
class AgreementReportAdmin(admin.ModelAdmin):
    list_display = ["created_at", "source", "passed", *[f"kappa_{axis}" for axis in AXES], "created_by"]
    list_filter = ["passed", "batch"]
    readonly_fields = ["created_at", "created_by", "batch", "source", "parameters", "passed", "report"]

    def has_add_permission(self, request) -> bool:
        return False

    def _kappa(self, obj, axis):
        value = obj.axis_kappa(axis)
        return "—" if value is None else f"{value:.3f}"

    @admin.display(description="κ social")
    def kappa_social(self, obj):
        return self._kappa(obj, "social")

    @admin.display(description="κ avoidant")
    def kappa_avoidant(self, obj):
        return self._kappa(obj, "avoidant")

    @admin.display(description="κ mechanical")
    def kappa_mechanical(self, obj):
        return self._kappa(obj, "mechanical")

    @admin.display(description="κ self")
    def kappa_self(self, obj):
        return self._kappa(obj, "self")


@admin.register(QualityFlag)
class QualityFlagAdmin(admin.ModelAdmin):
    list_display = ["kind", "source", "annotator", "dialogue", "axis", "statistic", "threshold", "status", "reviewer"]
    list_filter = ["status", "source", "kind", "axis"]
    search_fields = ["message", "annotator__username", "dialogue__external_id"]
    list_select_related = ["annotator", "dialogue", "reviewer"]
    raw_id_fields = ["annotator", "dialogue", "annotation", "report"]
    readonly_fields = [
        "source", "kind", "report", "annotator", "dialogue", "annotation", "axis", "statistic", "threshold",
        "message", "details", "created_at", "reviewer", "reviewed_at",
    ]  # fmt: skip

    def has_add_permission(self, request) -> bool:
        return False

    def save_model(self, request, obj, form, change):
        if "status" in form.changed_data:
            obj.reviewer, obj.reviewed_at = request.user, timezone.now()
        super().save_model(request, obj, form, change)


@admin.register(GoldItem)
class GoldItemAdmin(admin.ModelAdmin):
    list_display = ["external_id", "set", "position", "social_gold", "avoidant_gold", "mechanical_gold", "self_gold"]
    list_filter = ["set"]
    search_fields = ["external_id", "user_text", "response_text", "explanation"]


@admin.register(QualificationAttempt)
class QualificationAttemptAdmin(admin.ModelAdmin):
    list_display = ["annotator", "started_at", "finished_at", "passed"]
    list_filter = ["passed"]
    search_fields = ["annotator__username"]
    readonly_fields = ["annotator", "started_at", "finished_at", "item_ids", "passed", "kappas", "reasons"]

    def has_add_permission(self, request) -> bool:
        return False
