"""Serializer input read as strictly as the import files: a JSON value of the field's own type, no unknown field.

DRF's fields coerce: ``CharField`` takes ``0`` as ``"0"``, ``BooleanField`` takes ``0``, ``"yes"`` and ``"on"``,
``IntegerField`` and ``FloatField`` take ``"3"`` and ``"0.5"``. A file of ratings refuses those, and so does the
API: ``StrictInputMixin`` refuses, by field, a value whose JSON type is not the field's (the schema's ``type``),
and a field the serializer does not take (a misspelt setting silently ignored would leave a script believing it
changed something). A form or multipart body has only strings: there the fields read text as DRF does (a
serializer given no request reads strictly, as a JSON body).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext, gettext_lazy, gettext_noop
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.validators import BatchNameValidator

NOT_ACCEPTED = gettext_noop("not a field this accepts; accepted: %(accepted)s")
WRONG_TYPE = gettext_noop("expected %(expected)s, got %(got)s")
_KINDS = {
    "string": gettext_noop("a string"),
    "boolean": gettext_noop("true or false"),
    "integer": gettext_noop("a whole number"),
    "number": gettext_noop("a number"),
    "array": gettext_noop("an array"),
    "object": gettext_noop("an object"),
    "null": gettext_noop("null"),
}


def _json_body(field: serializers.Field) -> bool:
    """Whether the data came from a JSON body: yes unless the serializer's request says otherwise."""
    request = field.context.get("request")
    if request is None:
        return True
    content_type = getattr(request, "content_type", "") or ""
    return content_type.split(";")[0].strip() in ("application/json", "")


def json_kind(value) -> str:
    """The JSON type of a decoded value: string, boolean, integer, number, array, object or null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"  # 3.0 is an integer to JSON Schema
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def expected_kind(field: serializers.Field) -> str | None:
    """The JSON type ``field`` reads (None: any)."""
    if isinstance(field, serializers.BooleanField):
        return "boolean"
    if isinstance(field, serializers.ChoiceField) and not isinstance(field, serializers.MultipleChoiceField):
        return "string" if all(isinstance(key, str) for key in field.choices) else None
    if isinstance(field, serializers.CharField):
        return "string"
    if isinstance(field, serializers.IntegerField):
        return "integer"
    if isinstance(field, (serializers.FloatField, serializers.DecimalField)):
        return "number"
    if isinstance(field, (serializers.ListField, serializers.ListSerializer, serializers.MultipleChoiceField)):
        return "array"
    if isinstance(field, (serializers.Serializer, serializers.DictField)):
        return "object"
    return None


def type_problem(field: serializers.Field, value) -> str | None:
    """Why ``value`` is not of ``field``'s JSON type, in the reader's language; None when it is (or is null)."""
    expected, got = expected_kind(field), json_kind(value)
    if expected is None or got == "null" or got == expected or (expected == "number" and got == "integer"):
        return None
    return gettext(WRONG_TYPE) % {"expected": gettext(_KINDS[expected]), "got": gettext(_KINDS[got])}


class StrictInputMixin:
    """For serializers: an unknown or read-only field, or a value of another JSON type, is a 400 naming it."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            writable = sorted(name for name, field in self.fields.items() if not field.read_only)
            unknown = [key for key in data if key not in writable]
            if unknown:
                message = gettext(NOT_ACCEPTED) % {"accepted": ", ".join(writable)}
                raise serializers.ValidationError({key: [message] for key in unknown})
            if _json_body(self):
                wrong = {
                    key: [problem] for key, value in data.items() if (problem := type_problem(self.fields[key], value))
                }
                if wrong:
                    raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A JSON ``true``/``false`` (``StrictInputMixin`` refuses other JSON types); in a form, ``true`` or ``false`` as
    JSON spells them, not DRF's ``1``, ``yes``, ``on``, ``t`` and the like."""

    TRUE_VALUES = {True, "true"}
    FALSE_VALUES = {False, "false"}
    NULL_VALUES = set()
    default_error_messages = {"invalid": gettext_lazy("expected true or false")}

    def to_internal_value(self, data):
        if isinstance(data, int) and not isinstance(data, bool):  # 1 == True in a set: not a boolean
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field(
    {"type": "string", "format": "batch-name", "minLength": 1, "maxLength": 100,
     "description": "1 to 100 printable characters (surrounding spaces are dropped): no control or format "
     "characters, no / or \\, not only dots"}
)  # fmt: skip
class BatchNameField(serializers.CharField):
    """A batch name (``core.names``); the schema's format ``batch-name`` says what ``core.names`` checks."""

    SCHEMA = {"type": "string", "format": "batch-name", "minLength": 1, "maxLength": 100}

    def __init__(self, **kwargs):
        super().__init__(max_length=100, validators=[BatchNameValidator(limit=100)], **kwargs)


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
