"""Admin of agreement reports and quality flags."""

from django.contrib import admin
from django.utils import timezone
from django.utils.text import Truncator, format_lazy
from django.utils.translation import gettext_lazy as _

from annotation.admin.common import ReadOnlyAdmin, local_time, username
from annotation.axes import AXES
from annotation.dashboard.flag_text import flag_text, kind_label
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import AgreementReport, QualityFlag


def _kappa_column(axis: str):
    # The axis name first: the admin capitalises a column title, which would turn a leading κ into Κ.
    @admin.display(description=format_lazy("{} κ", AXIS_NAMES[axis]))
    def column(self, obj):
        value = obj.axis_kappa(axis)
        return "—" if value is None else f"{value:.3f}"

    return column


@admin.register(AgreementReport)
class AgreementReportAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "source", "passed", *[f"kappa_{axis}" for axis in AXES], "n_boot", "creator"]
    list_filter = ["passed", "batch"]
    list_select_related = ["created_by", "batch"]
    fields = ["created_at", "creator", "report_batch", "source", "parameters", "passed", "report"]
    readonly_fields = fields

    kappa_social = _kappa_column("social")
    kappa_avoidant = _kappa_column("avoidant")
    kappa_mechanical = _kappa_column("mechanical")
    kappa_self = _kappa_column("self")

    @admin.display(description=_("bootstrap replicates"))
    def n_boot(self, obj):
        return obj.parameters.get("n_boot", (obj.report.get("bootstrap") or {}).get("replicates"))

    @admin.display(description=_("created by"), ordering="created_by__username")
    def creator(self, obj):
        return username(obj.created_by)

    @admin.display(description=_("batch"))
    def report_batch(self, obj):
        return obj.batch.name if obj.batch else ""

    def has_delete_permission(self, request, obj=None) -> bool:
        return super(ReadOnlyAdmin, self).has_delete_permission(request, obj)


@admin.register(QualityFlag)
class QualityFlagAdmin(admin.ModelAdmin):
    list_display = ["kind_name", "text", "source", "who", "item", "axis_name", "statistic", "threshold", "status",
                    "reviewed_by", "created_at"]  # fmt: skip
    list_display_links = ["kind_name"]
    list_filter = ["status", "source", "kind", "axis"]
    search_fields = ["message", "annotator__username", "dialogue__external_id"]
    list_select_related = ["annotator", "dialogue", "reviewer"]
    fields = [
        "kind_name", "text", "source", "who", "item", "axis_name", "statistic", "threshold", "details", "message",
        "from_report", "created_at", "status", "review_note", "reviewed_by", "reviewed",
    ]  # fmt: skip
    readonly_fields = [
        "kind_name", "text", "source", "who", "item", "axis_name", "statistic", "threshold", "details", "message",
        "from_report", "created_at", "reviewed_by", "reviewed",
    ]  # fmt: skip

    @admin.display(description=_("kind"), ordering="kind")
    def kind_name(self, obj):
        return kind_label(obj.kind)

    @admin.display(description=_("finding"))
    def text(self, obj):
        return Truncator(flag_text(obj)).chars(160)

    @admin.display(description=_("annotator"), ordering="annotator__username")
    def who(self, obj):
        return username(obj.annotator)

    @admin.display(description=_("dialogue"), ordering="dialogue__external_id")
    def item(self, obj):
        return obj.dialogue.external_id if obj.dialogue else ""

    @admin.display(description=_("axis"), ordering="axis")
    def axis_name(self, obj):
        return AXIS_NAMES.get(obj.axis, obj.axis)

    @admin.display(description=_("reviewer"))
    def reviewed_by(self, obj):
        return username(obj.reviewer)

    @admin.display(description=_("reviewed at"), ordering="reviewed_at")
    def reviewed(self, obj):
        return local_time(obj.reviewed_at)

    @admin.display(description=_("report"))
    def from_report(self, obj):
        if obj.report is None:
            return ""
        return f"#{obj.report_id} {obj.report.source} ({local_time(obj.report.created_at)})"

    def has_add_permission(self, request) -> bool:
        return False

    def save_model(self, request, obj, form, change):
        if "status" in form.changed_data:
            obj.reviewer, obj.reviewed_at = request.user, timezone.now()
        super().save_model(request, obj, form, change)
