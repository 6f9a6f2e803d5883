"""``{{ flag|flag_text }}``, ``{{ kind|flag_kind }}``, ``{{ axes|axis_names }}``: quality flags in the reader's
language (dashboard.flag_text); ``{{ stamp|parse_stamp|date:"…" }}`` for an ISO timestamp text."""

from datetime import datetime

from django import template
from django.utils.translation import gettext

from annotation.axes import AXES
from annotation.dashboard.flag_text import flag_text as _flag_text
from annotation.dashboard.flag_text import kind_label
from annotation.guidelines.scale import AXIS_NAMES

register = template.Library()


@register.filter
def flag_text(flag) -> str:
    return _flag_text(flag)


@register.filter
def flag_kind(kind) -> str:
    return kind_label(str(kind))


@register.filter
def axis_names(axes) -> str:
    """Axis codes as people call them, joined (every axis: "all axes")."""
    axes = tuple(axes or ())
    if set(axes) == set(AXES):
        return gettext("all axes")
    return gettext(", ").join(str(AXIS_NAMES.get(axis, axis)) for axis in axes)


@register.filter
def parse_stamp(value):
    """An ISO timestamp text (as the exports write it) as a datetime for ``|date``; None when it is not one."""
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None
