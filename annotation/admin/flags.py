"""Admin of quality flags: the review that decides what leaves the consensus.

Admins review here (``/admin/``); researchers an admin gave the review permission review the same pages on
the review site (``/review/``, :mod:`annotation.admin.sites`). A decision (accept, dismiss with a note,
reopen) goes through :func:`annotation.review.flags.flags_review`, which keeps every decision as a review
row: who, when, from which status, and the note.
"""

from django import forms
from django.contrib import admin
from django.contrib.admin import helpers
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from annotation.admin import flag_display
from annotation.admin.common import ReadOnlyAdmin, local_time, username
from annotation.admin.flag_filters import AxisFilter, BatchFilter, KindFilter
from annotation.dashboard.flag_text import flag_text, kind_explanation, kind_label, rounded
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import Batch, QualityFlag, QualityFlagReview
from annotation.review.flags import can_review_flags, flags_review
from annotation.review.selectors import flag_batch_expression
from annotation.review.services import MAX_COMMENT, ReviewError

PREVIEW_TEMPLATE = "admin/annotation/qualityflag/_decision_preview.html"
DISMISS_NOTE_REQUIRED = _("A note is required to dismiss a flag: say why the finding does not hold.")


class ReviewNoteForm(forms.Form):
    """The note of a bulk review action (required to dismiss)."""

    note = forms.CharField(label=_("Review note"), widget=forms.Textarea(attrs={"rows": 3}), required=False,
                           max_length=MAX_COMMENT)  # fmt: skip

    def __init__(self, *args, note_required: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.note_required = note_required
        self.fields["note"].required = note_required
        self.fields["note"].error_messages["required"] = DISMISS_NOTE_REQUIRED


class FlagReviewForm(forms.ModelForm):
    """The review part of a flag's page: its status and note; a dismissal needs a note."""

    class Meta:
        model = QualityFlag
        fields = ["status", "review_note"]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("status") == QualityFlag.Status.DISMISSED and not (cleaned.get("review_note") or "").strip():
            self.add_error("review_note", DISMISS_NOTE_REQUIRED)
        return cleaned


class FlagReviewInline(admin.TabularInline):
    """The flag's review history (read only)."""

    model = QualityFlagReview
    extra = 0
    can_delete = False
    fields = ["when", "who", "old_status", "new_status", "note"]
    readonly_fields = fields
    ordering = ["-reviewed_at", "-pk"]

    @admin.display(description=_("reviewed at"))
    def when(self, obj):
        return local_time(obj.reviewed_at)

    @admin.display(description=_("reviewer"))
    def who(self, obj):
        return username(obj.reviewer)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_view_permission(self, request, obj=None) -> bool:
        return can_review_flags(request.user)


@admin.register(QualityFlag)
class QualityFlagAdmin(admin.ModelAdmin):
    form = FlagReviewForm
    list_display = ["kind_name", "status", "finding", "who", "item", "axis_name", "statistic_and_threshold", "created"]
    list_display_links = ["kind_name"]
    list_filter = ["status", KindFilter, BatchFilter, ("annotator", admin.RelatedOnlyFieldListFilter), AxisFilter,
                   "source"]  # fmt: skip
    search_fields = ["message", "annotator__username", "dialogue__external_id", "annotation__dialogue__external_id",
                     "review_note"]  # fmt: skip
    list_select_related = ["annotator", "dialogue", "reviewer", "annotation__annotator", "annotation__dialogue"]
    list_per_page = 50
    inlines = [FlagReviewInline]
    actions = ["accept_flags", "dismiss_flags", "reopen_flags"]
    fieldsets = [
        (None, {"fields": ["kind_name", "finding_full", "explanation", "statistic_value", "threshold_value",
                           "who", "item", "batch_name", "axis_name", "from_report", "created"]}),
        (_("Consensus"), {"fields": ["consensus_effect", "decision_effect", "affected_ratings"]}),
        (_("Dialogue and ratings"), {"fields": ["dialogue_text", "item_ratings", "other_flags"]}),
        (_("Review"), {"fields": ["status", "review_note", "reviewed_by", "reviewed"]}),
        (_("Stored record"), {"classes": ["collapse"], "fields": ["source", "message", "details"]}),
    ]  # fmt: skip
    readonly_fields = [
        "kind_name", "finding_full", "explanation", "statistic_value", "threshold_value", "who", "item", "batch_name",
        "axis_name", "from_report", "created", "consensus_effect", "decision_effect", "affected_ratings",
        "dialogue_text", "item_ratings", "other_flags", "reviewed_by", "reviewed", "source", "message", "details",
    ]  # fmt: skip

    class Media:
        css = {"all": ["css/admin_flags.css"]}

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(flag_batch=flag_batch_expression())
            .select_related("report", "annotation__annotator", "annotation__dialogue")
        )

    # --- who may do what -----------------------------------------------------------------------------------

    def has_module_permission(self, request) -> bool:
        return can_review_flags(request.user)

    def has_view_permission(self, request, obj=None) -> bool:
        return can_review_flags(request.user)

    def has_change_permission(self, request, obj=None) -> bool:
        return can_review_flags(request.user)

    def has_review_permission(self, request) -> bool:
        return can_review_flags(request.user)

    def has_add_permission(self, request) -> bool:
        return False  # flags come from the checks

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # a flag is a record; recomputation removes open flags whose finding is gone

    # --- columns -------------------------------------------------------------------------------------------

    @admin.display(description=_("kind"), ordering="kind")
    def kind_name(self, obj):
        return kind_label(obj.kind)

    @admin.display(description=_("finding"))
    def finding(self, obj):
        return Truncator(flag_text(obj)).chars(120)

    @admin.display(description=_("finding"))
    def finding_full(self, obj):
        return flag_text(obj)

    @admin.display(description=_("what it measures"))
    def explanation(self, obj):
        return kind_explanation(obj.kind) or "—"

    @admin.display(description=_("statistic"), ordering="statistic")
    def statistic_value(self, obj):
        return rounded(obj.statistic)

    @admin.display(description=_("threshold"), ordering="threshold")
    def threshold_value(self, obj):
        return rounded(obj.threshold)

    @admin.display(description=_("statistic / threshold"), ordering="statistic")
    def statistic_and_threshold(self, obj):
        if obj.statistic is None and obj.threshold is None:
            return "—"
        return f"{rounded(obj.statistic)} / {rounded(obj.threshold)}"

    @admin.display(description=_("annotator"), ordering="annotator__username")
    def who(self, obj):
        return username(flag_display.flag_annotator(obj))

    @admin.display(description=_("dialogue"), ordering="dialogue__external_id")
    def item(self, obj):
        dialogue = flag_display.flag_item(obj)
        return dialogue.external_id if dialogue is not None else ""

    @admin.display(description=_("batch"))
    def batch_name(self, obj):
        if obj.flag_batch is None:
            return _("all batches")
        return Batch.objects.filter(pk=obj.flag_batch).values_list("name", flat=True).first() or ""

    @admin.display(description=_("axis"), ordering="axis")
    def axis_name(self, obj):
        return AXIS_NAMES.get(obj.axis, obj.axis) if obj.axis else _("all axes")

    @admin.display(description=_("reviewer"), ordering="reviewer__username")
    def reviewed_by(self, obj):
        return username(obj.reviewer)

    @admin.display(description=_("reviewed at"), ordering="reviewed_at")
    def reviewed(self, obj):
        return local_time(obj.reviewed_at)

    @admin.display(description=_("created at"), ordering="created_at")
    def created(self, obj):
        return local_time(obj.created_at)

    @admin.display(description=_("report"))
    def from_report(self, obj):
        if obj.report is None:
            return ""
        return f"#{obj.report_id} {obj.report.source} ({local_time(obj.report.created_at)})"

    @admin.display(description=_("effect on the consensus"))
    def consensus_effect(self, obj):
        return flag_display.consensus_effect(obj)

    @admin.display(description=_("what the decision does"))
    def decision_effect(self, obj):
        """The preview of the review page (items leaving or joining, figures now → after) for the decision that
        changes something: accepting an open or dismissed flag, dismissing an accepted one."""
        accepted = obj.status == QualityFlag.Status.ACCEPTED
        status = QualityFlag.Status.DISMISSED if accepted else QualityFlag.Status.ACCEPTED
        preview = flag_display.decision_preview(QualityFlag.objects.filter(pk=obj.pk), status)
        if not preview.batches:
            return "—"
        lead = _("If this flag is dismissed (or reopened):") if accepted else _("If this flag is accepted:")
        return render_to_string(PREVIEW_TEMPLATE, {"preview": preview, "lead": lead})

    @admin.display(description=_("affected ratings"))
    def affected_ratings(self, obj):
        return flag_display.affected(obj, self.admin_site.name)

    @admin.display(description=_("dialogue"))
    def dialogue_text(self, obj):
        return flag_display.dialogue_text(obj)

    @admin.display(description=_("all ratings of the item"))
    def item_ratings(self, obj):
        return flag_display.item_ratings(obj, self.admin_site.name)

    @admin.display(description=_("the annotator's other flags"))
    def other_flags(self, obj):
        return flag_display.other_flags(obj, self.admin_site.name)

    # --- review --------------------------------------------------------------------------------------------

    def save_model(self, request, obj, form, change):
        # The decision goes through the service so that the review history keeps it.
        flags_review(flags=[obj], status=obj.status, note=obj.review_note, user=request.user)

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    @admin.action(description=_("Accept the selected flags (leave what they flag out of the consensus)"),
                  permissions=["review"])  # fmt: skip
    def accept_flags(self, request, queryset):
        return self._review(request, queryset, QualityFlag.Status.ACCEPTED, "accept_flags")

    @admin.action(description=_("Dismiss the selected flags (a note is required)"), permissions=["review"])
    def dismiss_flags(self, request, queryset):
        return self._review(request, queryset, QualityFlag.Status.DISMISSED, "dismiss_flags")

    @admin.action(description=_("Reopen the selected flags"), permissions=["review"])
    def reopen_flags(self, request, queryset):
        return self._review(request, queryset, QualityFlag.Status.OPEN, "reopen_flags")

    def _review(self, request, queryset, status: str, action: str):
        """First a page with the selected flags and a note (required to dismiss); then the decision."""
        note_required = status == QualityFlag.Status.DISMISSED
        if "apply" in request.POST:
            form = ReviewNoteForm(request.POST, note_required=note_required)
            if form.is_valid():
                try:
                    changed = flags_review(flags=queryset, status=status, note=form.cleaned_data["note"],
                                           user=request.user)  # fmt: skip
                except ReviewError as exc:
                    form.add_error("note", str(exc))
                else:
                    for flag in changed:
                        self.log_change(request, flag, [{"changed": {"fields": ["status", "review_note"]}}])
                    text = self._done_message(status, len(changed), queryset.count())
                    if changed:
                        text += " " + _("The agreement reports of their batches are being recomputed.")
                    self.message_user(request, text)
                    return None
        else:
            form = ReviewNoteForm(note_required=note_required)
        flags = list(queryset.select_related("annotator", "dialogue")[:200])
        context = {
            **self.admin_site.each_context(request),
            "title": {
                QualityFlag.Status.ACCEPTED: _("Accept quality flags"),
                QualityFlag.Status.DISMISSED: _("Dismiss quality flags"),
                QualityFlag.Status.OPEN: _("Reopen quality flags"),
            }[status],
            "opts": self.model._meta,
            "form": form,
            "flags": [
                (flag, kind_label(flag.kind), flag_text(flag), flag_display.consensus_effect(flag)) for flag in flags
            ],
            "count": queryset.count(),
            # What the decision does to the consensus and κ, before it is taken (issue 30).
            "preview": flag_display.decision_preview(queryset, status),
            "action": action,
            "status": status,
            "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
            "select_across": request.POST.get("select_across", "0"),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "index_url": reverse(f"{self.admin_site.name}:index"),
            "changelist_url": reverse(f"{self.admin_site.name}:annotation_qualityflag_changelist"),
        }
        return TemplateResponse(request, "admin/annotation/qualityflag/review_action.html", context)

    @staticmethod
    def _done_message(status: str, changed: int, selected: int) -> str:
        messages = {
            QualityFlag.Status.ACCEPTED: ngettext(
                "%(n)d flag accepted; what it flags is left out of the consensus.",
                "%(n)d flags accepted; what they flag is left out of the consensus.",
                changed,
            ),
            QualityFlag.Status.DISMISSED: ngettext("%(n)d flag dismissed.", "%(n)d flags dismissed.", changed),
            QualityFlag.Status.OPEN: ngettext("%(n)d flag reopened.", "%(n)d flags reopened.", changed),
        }
        text = messages[status] % {"n": changed}
        if changed < selected:
            text += " " + ngettext(
                "%(n)d was already in that state.", "%(n)d were already in that state.", selected - changed
            ) % {"n": selected - changed}
        return text


@admin.register(QualityFlagReview)
class QualityFlagReviewAdmin(ReadOnlyAdmin):
    """Every review decision on every flag: the audit trail."""

    list_display = ["when", "flag_kind", "flag_link", "who", "old_status", "new_status", "note_excerpt"]
    list_filter = ["new_status", ("reviewer", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["note", "reviewer__username", "flag__annotator__username", "flag__dialogue__external_id"]
    list_select_related = ["flag", "reviewer"]
    date_hierarchy = "reviewed_at"

    @admin.display(description=_("reviewed at"), ordering="reviewed_at")
    def when(self, obj):
        return local_time(obj.reviewed_at)

    @admin.display(description=_("kind"))
    def flag_kind(self, obj):
        return kind_label(obj.flag.kind)

    @admin.display(description=_("quality flag"))
    def flag_link(self, obj):
        url = reverse(f"{self.admin_site.name}:annotation_qualityflag_change", args=[obj.flag_id])
        return format_html('<a href="{}">#{}</a>', url, obj.flag_id)

    @admin.display(description=_("reviewer"), ordering="reviewer__username")
    def who(self, obj):
        return username(obj.reviewer)

    @admin.display(description=_("review note"))
    def note_excerpt(self, obj):
        return Truncator(obj.note).chars(80)

    def has_module_permission(self, request) -> bool:
        return can_review_flags(request.user)

    def has_view_permission(self, request, obj=None) -> bool:
        return can_review_flags(request.user)
