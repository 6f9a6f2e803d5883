"""Query parameters of the list endpoints, read strictly: a bad value is a 400 naming the parameter.

A filter that silently matched nothing because of a typo (``?batch=seven``) would read as "no data";
so a malformed number, date or choice, and for researchers an unknown batch or username, are refused
with what would be accepted.
"""

from __future__ import annotations

from datetime import datetime, time

from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter

from annotation.api.errors import invalid
from annotation.models import Batch
from core import query_params

TRUE, FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off", "")


def _given(params, name: str) -> str | None:
    value = params.get(name)
    return None if value is None or value.strip() == "" else value.strip()


def whole_number(params, name: str) -> int | None:
    try:
        return query_params.whole_number(params, name)
    except query_params.QueryParamError as exc:
        raise invalid(name, exc.translated(gettext)) from None


def choice(params, name: str, choices) -> str | None:
    value = _given(params, name)
    if value is not None and value not in choices:
        raise invalid(name, f"expected one of {', '.join(choices)}, got {value!r}")
    return value


def moment(params, name: str) -> datetime | None:
    """An ISO 8601 time (``2025-01-31T09:00:00+09:00``) or date (midnight, in the site's time zone)."""
    value = _given(params, name)
    if value is None:
        return None
    try:
        parsed = parse_datetime(value.replace(" ", "+"))  # "+09:00" arrives as " 09:00" when not URL-encoded
        if parsed is None and (day := parse_date(value)) is not None:
            parsed = datetime.combine(day, time.min)
    except ValueError:
        parsed = None
    if parsed is None:
        raise invalid(
            name, f"expected an ISO 8601 date or time such as 2025-01-31 or 2025-01-31T09:00:00Z, got {value!r}"
        )
    return timezone.make_aware(parsed) if timezone.is_naive(parsed) else parsed


def boolean(value, name: str) -> bool:
    """A form field's true/false (``dry_run=true``); JSON booleans pass as they are."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise invalid(name, f"expected true or false, got {value!r}")


def batch_id(params, name: str = "batch") -> int | None:
    """A batch id that exists (researchers' filters)."""
    pk = whole_number(params, name)
    if pk is not None and not Batch.objects.filter(pk=pk).exists():
        raise invalid(name, f"no batch with id {pk}")
    return pk


def username(params, name: str = "annotator", *, check: bool = True) -> str | None:
    value = _given(params, name)
    if value is not None and check and not get_user_model().objects.filter(username=value).exists():
        raise invalid(name, f"no user named {value!r}")
    return value


BATCH = OpenApiParameter("batch", int, description="only this batch (its id)")
ANNOTATOR = OpenApiParameter("annotator", str, description="only this annotator (username)")
SINCE = OpenApiParameter(
    "since", str, description="only those created or changed at or after this ISO 8601 time or date"
)
