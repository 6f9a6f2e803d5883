"""``{{ flag|flag_text }}``, ``{{ kind|flag_kind }}``: quality flags in the reader's language (dashboard.flag_text)."""

from django import template

from annotation.dashboard.flag_text import flag_text as _flag_text
from annotation.dashboard.flag_text import kind_label

register = template.Library()


@register.filter
def flag_text(flag) -> str:
    return _flag_text(flag)


@register.filter
def flag_kind(kind) -> str:
    return kind_label(str(kind))
