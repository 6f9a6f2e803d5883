"""What the annotation app's admin pages share: times in the site's zone, user names, read-only history."""

from django.contrib import admin
from django.utils import timezone
from django.utils.formats import date_format


def local_time(value) -> str:
    """An aware datetime as people in the site's time zone read it ('' for None)."""
    return "" if value is None else date_format(timezone.localtime(value), "Y-m-d H:i")


def username(user) -> str:
    return "" if user is None else user.get_username()


class NoWrites:
    """A model admin or inline that never adds, changes or deletes."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyAdmin(NoWrites, admin.ModelAdmin):
    """History: listed, searched and opened, never added, changed or deleted here."""
