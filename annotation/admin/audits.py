"""Admin of the judge audits: the audits, and every person's 0–2 rating with its history (read only).

Audits are drawn and closed on the researchers' pages (``/research/audits/``) and rated through the queue;
here admins look them up, e.g. to see who rated what and when, or to find an item by its trial.
"""

from django.contrib import admin
from django.db.models import Count
from django.utils.translation import gettext_lazy as _

from annotation.admin.common import NoWrites, ReadOnlyAdmin, local_time, username
from annotation.models import AuditRating, AuditRatingEdit, JudgeAudit


@admin.register(JudgeAudit)
class JudgeAuditAdmin(ReadOnlyAdmin):
    list_display = ["name", "source_batch", "kind", "item_count", "per_item", "status", "created"]
    list_filter = ["kind", "status", "source_batch"]
    search_fields = ["name", "source_batch"]
    readonly_fields = ["name", "kind", "source_batch", "per_item", "requested_size", "seed", "population",
                       "design", "status", "created_by", "created_at"]  # fmt: skip

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_items=Count("items"))

    @admin.display(description=_("items"), ordering="_items")
    def item_count(self, obj):
        return obj._items

    @admin.display(description=_("created at"), ordering="created_at")
    def created(self, obj):
        return local_time(obj.created_at)


class AuditRatingEditInline(NoWrites, admin.TabularInline):
    model = AuditRatingEdit
    extra = 0
    fields = ["edited", "editor", "old_score", "new_score", "reason"]
    readonly_fields = fields

    @admin.display(description=_("edited at"))
    def edited(self, obj):
        return local_time(obj.edited_at)

    @admin.display(description=_("edited by"))
    def editor(self, obj):
        return username(obj.edited_by)


@admin.register(AuditRating)
class AuditRatingAdmin(ReadOnlyAdmin):
    list_display = ["item_key", "audit_name", "rater", "score", "seconds_spent", "rated"]
    list_filter = ["item__audit", "score"]
    search_fields = ["item__key", "item__trial_id", "annotator__username"]
    list_select_related = ["item__audit", "annotator"]
    readonly_fields = ["item", "annotator", "score", "comment", "seconds_spent", "created_at", "updated_at"]
    inlines = [AuditRatingEditInline]

    @admin.display(description=_("unit"), ordering="item__key")
    def item_key(self, obj):
        return obj.item.key

    @admin.display(description=_("audit"), ordering="item__audit__name")
    def audit_name(self, obj):
        return obj.item.audit.name

    @admin.display(description=_("annotator"), ordering="annotator__username")
    def rater(self, obj):
        return username(obj.annotator)

    @admin.display(description=_("timestamp"), ordering="created_at")
    def rated(self, obj):
        return local_time(obj.created_at)
