from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from core.models import DemoLoad, Job

admin.site.site_header = _("JAIML research administration")
admin.site.site_title = _("JAIML admin")


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["kind", "status", "progress_done", "progress_total", "created_by", "created_at", "finished_at"]
    list_filter = ["status", "kind"]
    search_fields = ["id", "kind", "message", "error"]
    readonly_fields = [field.name for field in Job._meta.fields]
    date_hierarchy = "created_at"

    def has_add_permission(self, request) -> bool:
        return False  # jobs are started from the pages that own them


@admin.register(DemoLoad)
class DemoLoadAdmin(admin.ModelAdmin):
    list_display = ["part", "loaded_at", "summary"]
