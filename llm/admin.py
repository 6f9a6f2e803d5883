from django.contrib import admin

from llm.models import LLMCacheEntry, LLMCall, LLMRun


class ReadOnlyAdmin(admin.ModelAdmin):
    """The ledger is written by runs only: viewable, not editable."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(LLMRun)
class LLMRunAdmin(ReadOnlyAdmin):
    list_display = ("started_at", "prompt", "model", "items", "requests", "cache_hits", "succeeded", "parse_errors",
                    "errors", "not_evaluated", "cost_jpy", "cost_usd", "stopped_by_budget")  # fmt: skip
    list_filter = ("prompt", "model", "stopped_by_budget")


@admin.register(LLMCall)
class LLMCallAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "prompt", "model", "status", "attempts", "tokens_in", "tokens_out", "latency_ms",
                    "cost_jpy")  # fmt: skip
    list_filter = ("status", "prompt", "model")
    search_fields = ("cache_key", "error")


@admin.register(LLMCacheEntry)
class LLMCacheEntryAdmin(ReadOnlyAdmin):
    list_display = ("cache_key", "status", "claimed_by", "claimed_at", "call")
    list_filter = ("status",)
    search_fields = ("cache_key", "claimed_by")
    raw_id_fields = ("call",)
