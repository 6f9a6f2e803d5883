"""The Director in Django admin: sessions, attempts and verdicts to look at (turns and checks write them)."""

from django.contrib import admin
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from director.models import DirectorSession, RetryVerdict, UtteranceAttempt

TEXT_CHARS = 60  # of a line in a list


class ReadOnlyAdmin(admin.ModelAdmin):
    """Sessions, attempts and verdicts are records of what the Director judged: viewable, never edited by hand."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(DirectorSession)
class DirectorSessionAdmin(ReadOnlyAdmin):
    list_display = ["id", "title", "speaker_list", "accepted_turns", "rules_version", "created_at"]
    search_fields = ["title", "scene"]

    @admin.display(description=_("speakers"))
    def speaker_list(self, obj):
        return ", ".join(obj.speakers) if isinstance(obj.speakers, list) else obj.speakers

    @admin.display(description=_("accepted turns"))
    def accepted_turns(self, obj):
        return obj.state.get("turn", 0) if isinstance(obj.state, dict) else None


@admin.register(UtteranceAttempt)
class UtteranceAttemptAdmin(ReadOnlyAdmin):
    list_display = ["session", "turn", "number", "speaker", "short_text", "shown"]
    list_filter = ["shown", "speaker", "source"]
    list_select_related = ["session"]

    @admin.display(description=_("text"))
    def short_text(self, obj):
        return Truncator(obj.text).chars(TEXT_CHARS)


@admin.register(RetryVerdict)
class RetryVerdictAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "speaker", "status", "rules_status", "review_status", "short_text"]
    list_filter = ["status", "speaker", "review_status", "rules_version"]
    search_fields = ["text"]

    @admin.display(description=_("text"))
    def short_text(self, obj):
        return Truncator(obj.text).chars(TEXT_CHARS)
