"""Admin of the stored agreement reports (read only: a report is a record of one computation)."""

from django.contrib import admin
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from annotation.admin.common import NoWrites, ReadOnlyAdmin, username
from annotation.axes import AXES
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import AgreementReport


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
        return super(NoWrites, self).has_delete_permission(request, obj)
