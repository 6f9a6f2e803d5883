"""Serializer fields that read a JSON body as strictly as the import files: a number is a JSON number.

DRF's ``IntegerField`` and ``FloatField`` take ``"0.5"`` and ``"3"`` (and ``true`` as 1); a file of
ratings refuses those, so the API does too. A form or multipart body has only strings: there the
fields read text as DRF does (a serializer given no request reads strictly).
"""

from __future__ import annotations

from rest_framework import serializers


def _json_body(field: serializers.Field) -> bool:
    """Whether the data came from a JSON body: yes unless the serializer's request says otherwise."""
    request = field.context.get("request")
    if request is None:
        return True
    content_type = getattr(request, "content_type", "") or ""
    return content_type.split(";")[0].strip() in ("application/json", "")


class _JsonNumber:
    """``to_internal_value`` refuses a string, a boolean or a container where a JSON body needs a number."""

    def to_internal_value(self, data):
        if _json_body(self) and (isinstance(data, bool) or not isinstance(data, (int, float))):
            self.fail("not_a_number", type=_type(data))
        return super().to_internal_value(data)


class StrictIntegerField(_JsonNumber, serializers.IntegerField):
    default_error_messages = {"not_a_number": "expected a JSON number (an integer), got {type}"}


class StrictFloatField(_JsonNumber, serializers.FloatField):
    default_error_messages = {"not_a_number": "expected a JSON number, got {type}"}


def _type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return f"the string {value[:20]!r}"
    return "an array" if isinstance(value, list) else "an object"
