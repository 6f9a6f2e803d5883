"""Admin of the imported data: batches, dialogues and the texts they had before an import changed them."""

from django.contrib import admin
from django.db.models import Count
from django.utils.html import format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from annotation.admin.common import NoWrites, ReadOnlyAdmin
from annotation.models import Batch, Dialogue, DialogueRevision, GoldItem


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
        return super(NoWrites, self).has_delete_permission(request, obj)  # goes with its dialogue


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


@admin.register(GoldItem)
class GoldItemAdmin(admin.ModelAdmin):
    list_display = ["external_id", "set", "position", "social_gold", "avoidant_gold", "mechanical_gold", "self_gold"]
    list_filter = ["set"]
    search_fields = ["external_id", "user_text", "response_text", "explanation"]
