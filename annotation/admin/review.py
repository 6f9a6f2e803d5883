"""Admin of researchers' review: adjudications of disputed axes and annotators' comments on items."""

from django.contrib import admin
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from annotation.admin.common import ReadOnlyAdmin
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import Adjudication, ItemComment
from annotation.review.services import item_comment_resolve


@admin.register(Adjudication)
class AdjudicationAdmin(ReadOnlyAdmin):
    """Researchers' decisions on disputed items; rows are history (the latest per item and axis holds)."""

    list_display = ["dialogue", "axis_name", "decision", "reason_excerpt", "decided_by", "decided_at"]
    list_filter = ["axis", "dialogue__batch", ("score", admin.EmptyFieldListFilter)]
    search_fields = ["dialogue__external_id", "reason", "decided_by__username"]
    list_select_related = ["dialogue", "decided_by"]
    date_hierarchy = "decided_at"

    @admin.display(description=_("axis"), ordering="axis")
    def axis_name(self, obj):
        return AXIS_NAMES.get(obj.axis, obj.axis)

    @admin.display(description=_("adjudicated score"), ordering="score")
    def decision(self, obj):
        return _("withdrawn") if obj.score is None else obj.score

    @admin.display(description=_("reason"))
    def reason_excerpt(self, obj):
        return Truncator(obj.reason).chars(80)


class ResolvedFilter(admin.SimpleListFilter):
    title = _("resolved")
    parameter_name = "resolved"

    def lookups(self, request, model_admin):
        return [("yes", _("resolved")), ("no", _("unresolved"))]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(resolved_at__isnull=self.value() == "no")
        return queryset


@admin.register(ItemComment)
class ItemCommentAdmin(ReadOnlyAdmin):
    """Annotators' notes on items. Read only, except that a comment can be marked resolved (an action)."""

    list_display = ["dialogue", "author", "problem", "text_excerpt", "created_at", "is_resolved", "resolved_at"]
    list_filter = ["problem", ResolvedFilter, "dialogue__batch"]
    search_fields = ["dialogue__external_id", "text", "author__username"]
    list_select_related = ["dialogue", "author"]
    actions = ["mark_resolved"]

    @admin.display(description=_("comment"))
    def text_excerpt(self, obj):
        return Truncator(obj.text).chars(80)

    @admin.display(description=_("resolved"), boolean=True, ordering="resolved_at")
    def is_resolved(self, obj):
        return obj.resolved_at is not None

    def has_resolve_permission(self, request) -> bool:
        return request.user.has_perm("annotation.change_itemcomment")

    @admin.action(description=_("Mark the selected comments resolved"), permissions=["resolve"])
    def mark_resolved(self, request, queryset):
        open_comments = list(queryset.filter(resolved_at__isnull=True))
        for comment in open_comments:
            item_comment_resolve(comment=comment)
        self.message_user(
            request,
            ngettext("%(n)d comment marked resolved.", "%(n)d comments marked resolved.", len(open_comments))
            % {"n": len(open_comments)},
        )
