"""Admin of researchers' review: adjudications of disputed axes and annotators' comments on items."""

from django import forms
from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from annotation.admin.common import ReadOnlyAdmin, local_time, username
from annotation.axes import AXES, SCORES
from annotation.guidelines.scale import AXIS_NAMES, LEVEL_LABELS
from annotation.models import Adjudication, ItemComment
from annotation.review.services import MAX_COMMENT, adjudication_record, item_comment_resolve


def _score_choices():
    return [("", _("no decision"))] + [(str(score), f"{score} · {LEVEL_LABELS[score]}") for score in SCORES]


class AdjudicationForm(forms.ModelForm):
    """An admin's override of one axis of an item's consensus, with the reason (the same record as the item page's
    adjudication in the research workspace).

    The form checks what the service would refuse (axis, score 1–5, a reason) and that the decision changes
    something; ``AdjudicationAdmin.save_model`` then stores it through ``adjudication_record``.
    """

    axis = forms.ChoiceField(label=_("axis"), choices=[(axis, AXIS_NAMES[axis]) for axis in AXES])
    score = forms.TypedChoiceField(
        label=_("adjudicated score"), choices=_score_choices, coerce=int, empty_value=None, required=False,
        help_text=_(
            "The score replaces the computed consensus on this axis; the computed value stays beside it in the "
            "exports. No decision withdraws the decision in force."
        ),
    )  # fmt: skip
    reason = forms.CharField(
        label=_("reason"), max_length=MAX_COMMENT, widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": _("Give a reason: it is kept with the decision.")},
    )  # fmt: skip

    class Meta:
        model = Adjudication
        fields = ["dialogue", "axis", "score", "reason"]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        dialogue, axis, score = data["dialogue"], data["axis"], data["score"]
        in_force = (
            Adjudication.objects.filter(dialogue=dialogue, axis=axis)
            .order_by("-decided_at", "-pk")
            .values_list("score", flat=True)
            .first()
        )
        if score == in_force:  # also: withdrawing where nothing is in force
            raise forms.ValidationError(
                _(
                    "Nothing changed: choose a score that differs from the decision in force "
                    "(or no decision to withdraw it)."
                )
            )
        return data


class AxisFilter(admin.SimpleListFilter):
    """The axes by name (the model's choices are the bare keys)."""

    title = _("axis")
    parameter_name = "axis"

    def lookups(self, request, model_admin):
        return [(axis, AXIS_NAMES[axis]) for axis in AXES]

    def queryset(self, request, queryset):
        return queryset.filter(axis=self.value()) if self.value() in AXES else queryset


@admin.register(Adjudication)
class AdjudicationAdmin(admin.ModelAdmin):
    """Researchers' decisions on disputed items. Admins holding the add permission add a decision here (an
    override of one axis's consensus); stored rows are history, never changed or deleted (the latest per item
    and axis holds)."""

    form = AdjudicationForm
    list_display = ["dialogue", "axis_name", "decision", "reason_excerpt", "decider", "decided", "item_page"]
    list_filter = [AxisFilter, "dialogue__batch", ("score", admin.EmptyFieldListFilter)]
    search_fields = ["dialogue__external_id", "reason", "decided_by__username"]
    list_select_related = ["dialogue", "decided_by"]
    date_hierarchy = "decided_at"
    # Not autocomplete_fields: DialogueAdmin's queryset counts ratings (GROUP BY drops the model's ordering),
    # so the autocomplete view would page an unordered list. The raw-id lookup opens the dialogue list.
    raw_id_fields = ["dialogue"]
    add_fields = ["dialogue", "axis", "score", "reason"]
    history_fields = ["dialogue", "axis_name", "decision", "reason", "decider", "decided", "item_page"]

    def get_fields(self, request, obj=None):
        return self.add_fields if obj is None else self.history_fields

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else self.history_fields

    def save_model(self, request, obj, form, change):
        """The decision goes through the service (the item page's path): the record, the lock, the history."""
        data = form.cleaned_data
        stored = adjudication_record(
            dialogue=data["dialogue"], axis=data["axis"], score=data["score"], reason=data["reason"], user=request.user
        )
        obj.pk, obj.decided_by, obj.decided_at, obj.reason = (
            stored.pk,
            stored.decided_by,
            stored.decided_at,
            stored.reason,
        )

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=_("axis"), ordering="axis")
    def axis_name(self, obj):
        return AXIS_NAMES.get(obj.axis, obj.axis)

    @admin.display(description=_("adjudicated score"), ordering="score")
    def decision(self, obj):
        return _("withdrawn") if obj.score is None else obj.score

    @admin.display(description=_("reason"))
    def reason_excerpt(self, obj):
        return Truncator(obj.reason).chars(80)

    @admin.display(description=_("decided by"), ordering="decided_by__username")
    def decider(self, obj):
        return username(obj.decided_by)

    @admin.display(description=_("decided at"), ordering="decided_at")
    def decided(self, obj):
        return local_time(obj.decided_at)

    @admin.display(description=_("item page"))
    def item_page(self, obj):
        """The workspace's item page: the ratings, and the consensus with the computed value beside the decision."""
        url = reverse("annotation:item", args=[obj.dialogue.batch_id, obj.dialogue_id])
        return format_html('<a href="{}">{}</a>', url, _("ratings and consensus"))


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
