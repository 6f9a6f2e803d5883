"""Admin of the import overrides: ratings imports let past a batch's rules, who allowed it and why (read only)."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.admin.common import ReadOnlyAdmin, local_time
from annotation.models import ImportOverride, ImportOverrideRating

_RULES = dict(ImportOverrideRating.Rule.choices)


def _rules_text(counts) -> str:
    """``quota (ratings per item): 2, qualification: 1`` in the admin's language."""
    if not isinstance(counts, dict):
        return ""
    return ", ".join(f"{_RULES.get(rule, rule)}: {n}" for rule, n in counts.items())


@admin.register(ImportOverride)
class ImportOverrideAdmin(ReadOnlyAdmin):
    list_display = ["created", "by_name", "surface", "batch_names", "rules", "files"]
    list_filter = ["surface"]
    search_fields = ["by_name", "reason", "batch_names", "files"]
    fields = ["created", "created_by", "by_name", "surface", "job_id", "batch", "batch_names", "files", "rules",
              "reason", "ratings_link"]  # fmt: skip
    readonly_fields = fields

    @admin.display(description=_("created at"), ordering="created_at")
    def created(self, obj):
        return local_time(obj.created_at)

    @admin.display(description=_("ratings per rule"))
    def rules(self, obj):
        return _rules_text(obj.counts)

    @admin.display(description=_("ratings let in"))
    def ratings_link(self, obj):
        n = obj.ratings.count()
        url = reverse("admin:annotation_importoverriderating_changelist") + f"?override__id__exact={obj.pk}"
        return format_html('<a href="{}">{}</a>', url, gettext("%(n)s rating(s)") % {"n": n})


@admin.register(ImportOverrideRating)
class ImportOverrideRatingAdmin(ReadOnlyAdmin):
    list_display = ["override", "rating", "rule", "line"]
    list_filter = ["rule", "override"]
    search_fields = ["annotation__dialogue__external_id", "annotation__annotator__username", "line"]
    list_select_related = ["override", "annotation__dialogue", "annotation__annotator"]
    fields = ["override", "rating", "rule", "line"]
    readonly_fields = fields

    @admin.display(description=_("rating"))
    def rating(self, obj):
        url = reverse("admin:annotation_annotation_change", args=[obj.annotation_id])
        text = f"{obj.annotation.dialogue.external_id} / {obj.annotation.annotator.get_username()}"
        return format_html('<a href="{}">{}</a>', url, text)


def overrides_of_rating(annotation) -> str:
    """On a rating's page: the import overrides that let it in (or replaced it), linked; "" when none."""
    links = ImportOverrideRating.objects.filter(annotation=annotation).select_related("override")
    return format_html_join(
        ", ",
        '<a href="{}">{}</a> ({}: {})',
        (
            (reverse("admin:annotation_importoverride_change", args=[link.override_id]), str(link.override),
             _RULES.get(link.rule, link.rule), link.override.reason)
            for link in links
        ),
    )  # fmt: skip
