"""The quality-flag list's filters, with the kinds, axes and batches named as people call them."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from annotation.axes import AXES
from annotation.dashboard.flag_text import KIND_LABELS, kind_label
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import Batch, QualityFlag
from core.query_params import parse_id


class KindFilter(admin.SimpleListFilter):
    title = _("kind")
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        present = set(QualityFlag.objects.values_list("kind", flat=True).distinct())
        known = [kind for kind in KIND_LABELS if kind in present]
        return [(kind, kind_label(kind)) for kind in known + sorted(present - set(known))]

    def queryset(self, request, queryset):
        return queryset.filter(kind=self.value()) if self.value() else queryset


class AxisFilter(admin.SimpleListFilter):
    title = _("axis")
    parameter_name = "axis"

    def lookups(self, request, model_admin):
        return [(axis, AXIS_NAMES[axis]) for axis in AXES] + [("-", _("all axes (no single axis)"))]

    def queryset(self, request, queryset):
        if self.value() == "-":
            return queryset.filter(axis="")
        return queryset.filter(axis=self.value()) if self.value() in AXES else queryset


class BatchFilter(admin.SimpleListFilter):
    """The batch of the flag's item, rating or report (``flag_batch``, annotated by the admin's queryset)."""

    title = _("batch")
    parameter_name = "batch"

    def lookups(self, request, model_admin):
        return [(str(pk), name) for pk, name in Batch.objects.order_by("name").values_list("pk", "name")] + [
            ("-", _("report over all batches"))
        ]

    def queryset(self, request, queryset):
        if self.value() == "-":
            return queryset.filter(flag_batch__isnull=True)
        if parse_id(self.value()) is not None:
            return queryset.filter(flag_batch=parse_id(self.value()))
        return queryset
