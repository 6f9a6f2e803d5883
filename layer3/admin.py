"""Layer3 in Django admin: batches, trial logs and runs to look at (imports and runs write them)."""

from django.contrib import admin
from django.db.models import Count
from django.utils.translation import gettext_lazy as _

from layer3.models import Batch, Layer3Run, Layer3RunProblem, TrialLog
from layer3.panel.messages import problem_text


class ReadOnlyAdmin(admin.ModelAdmin):
    """Stored logs are evidence and runs are records: viewable, never edited by hand."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Batch)
class BatchAdmin(ReadOnlyAdmin):
    list_display = ["name", "experiment_id", "trial_count", "created_at", "layer3_evaluated_at"]
    search_fields = ["name", "experiment_id"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_trials=Count("trials"))

    @admin.display(description=_("trials"), ordering="_trials")
    def trial_count(self, obj):
        return obj._trials


@admin.register(TrialLog)
class TrialLogAdmin(ReadOnlyAdmin):
    list_display = ["external_id", "batch", "model_config", "stage", "evaluated"]
    list_filter = ["batch", "model_config", "stage"]
    search_fields = ["external_id", "input_text"]
    list_select_related = ["batch"]

    @admin.display(description=_("evaluated"), boolean=True)
    def evaluated(self, obj):
        return obj.layer3_metrics is not None


class Layer3RunProblemInline(admin.TabularInline):
    """A run's own problems: trials whose data is not a UISpec, and judge answers given up on."""

    model = Layer3RunProblem
    fields = ["external_id", "kind", "path", "message_text", "items"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description=_("message"))
    def message_text(self, obj):
        return problem_text(obj.kind, obj.message)  # stored in English, shown in the admin's language


@admin.register(Layer3Run)
class Layer3RunAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "batch", "status", "total_targets", "evaluated_count", "skipped_count",
                    "error_count", "judge_failures", "unjudged_count", "judge_requests", "cost_jpy",
                    "elapsed_ms"]  # fmt: skip
    inlines = [Layer3RunProblemInline]
    list_filter = ["status", "batch"]
    list_select_related = ["batch"]
