"""Django admin of the annotation app: every column and label through gettext, every time in the site's zone.

Columns on foreign keys and times are display methods: the models' ``__str__`` print times with
``strftime`` (UTC) and some foreign keys have no verbose name, so listing them as plain fields would show
English labels and UTC times. Data texts are escaped by the admin (nothing here is marked safe except
``format_html_join`` output, which escapes its pieces). History (edits, adjudications, comments, queue
assignments, training answers) is read only.
"""

from django.contrib import admin
from django.db.models import Count
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html_join
from django.utils.text import Truncator, format_lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from annotation.axes import AXES
from annotation.dashboard.flag_text import flag_text, kind_label
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import (
    Adjudication,
    AgreementReport,
    Annotation,
    AnnotationEdit,
    AnnotatorProfile,
    Assignment,
    Batch,
    Dialogue,
    DialogueRevision,
    GoldItem,
    ItemComment,
    QualificationAttempt,
    QualityFlag,
    TrainingAnswer,
)
from annotation.review.services import item_comment_resolve
from annotation.services import annotation_update, annotation_values


def local_time(value) -> str:
    """An aware datetime as people in the site's time zone read it ('' for None)."""
    return "" if value is None else date_format(timezone.localtime(value), "Y-m-d H:i")


def _username(user) -> str:
    return "" if user is None else user.get_username()


class ReadOnlyAdmin(admin.ModelAdmin):
    """History: listed, searched and opened, never added, changed or deleted here."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Batch)
class BatchAdmin(admin.ModelAdmin):
    list_display = ["name", "status", "annotations_per_item", "dialogue_count", "created_at"]
    list_filter = ["status"]
    search_fields = ["name", "description"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_dialogues=Count("dialogues"))

    @admin.display(description=_("number of dialogues"), ordering="_dialogues")
    def dialogue_count(self, obj):
        return obj._dialogues


@admin.register(DialogueRevision)
class DialogueRevisionAdmin(ReadOnlyAdmin):
    """The text a dialogue had before an import changed it."""

    list_display = ["dialogue", "changed_at", "source", "ratings", "user_excerpt"]
    search_fields = ["dialogue__external_id", "user_text", "response_text", "source"]
    list_select_related = ["dialogue"]
    readonly_fields = ["dialogue", "changed_at", "source", "user_text", "response_text", "context", "ratings"]

    @admin.display(description=_("previous user utterance"))
    def user_excerpt(self, obj):
        return Truncator(obj.user_text).chars(40)

    def has_delete_permission(self, request, obj=None) -> bool:
        return super(ReadOnlyAdmin, self).has_delete_permission(request, obj)  # goes with its dialogue


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


class EditColumns:
    """The columns of a rating's edit history (AnnotationEdit's fields have no verbose names)."""

    @admin.display(description=_("edited at"), ordering="edited_at")
    def edited(self, obj):
        return local_time(obj.edited_at)

    @admin.display(description=_("edited by"))
    def editor(self, obj):
        return _username(obj.edited_by)

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
        return _username(obj.user)

    def has_add_permission(self, request) -> bool:
        return False  # made with the user (sign-up, imports)


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
        return _username(obj.created_by)

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
        return _username(obj.annotator)

    @admin.display(description=_("dialogue"), ordering="dialogue__external_id")
    def item(self, obj):
        return obj.dialogue.external_id if obj.dialogue else ""

    @admin.display(description=_("axis"), ordering="axis")
    def axis_name(self, obj):
        return AXIS_NAMES.get(obj.axis, obj.axis)

    @admin.display(description=_("reviewer"))
    def reviewed_by(self, obj):
        return _username(obj.reviewer)

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
