"""Shared pieces of the OpenAPI description: the error body and the usual refusals, with examples."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers


class ErrorItemSerializer(serializers.Serializer):
    field = serializers.CharField(allow_null=True, help_text="JSON path of the field or query parameter")
    message = serializers.CharField()


class ErrorSerializer(serializers.Serializer):
    success = serializers.BooleanField(default=False)
    error = serializers.CharField(help_text="what was wrong and what would be accepted")
    field = serializers.CharField(required=False, help_text="the first bad field (validation errors)")
    errors = ErrorItemSerializer(many=True, required=False, help_text="every problem (validation errors)")


_DESCRIPTIONS = {
    400: ("Invalid input: the fields are named", {"success": False, "error": "scores.social: expected a whole number from 1 to 5, got 7", "field": "scores.social", "errors": [{"field": "scores.social", "message": "expected a whole number from 1 to 5, got 7"}]}),  # noqa: E501
    401: ("Not logged in and no valid token", {"success": False, "error": "Authentication credentials were not provided."}),  # noqa: E501
    403: ("The role (or qualification) this needs is missing", {"success": False, "error": "This API is for users with the researcher role."}),  # noqa: E501
    404: ("No such object, or not one of yours", {"success": False, "error": "no batch with id 42"}),
    409: ("The state of the batch or item does not allow it", {"success": False, "error": "batch pilot-01 is paused: it hands out no items until a researcher opens it again"}),  # noqa: E501
}  # fmt: skip


def error_responses(*codes: int) -> dict[int, OpenApiResponse]:
    """The usual refusals (401 and 403 always) as documented responses with an example each."""
    found = {}
    for code in sorted({401, 403, *codes}):
        description, example = _DESCRIPTIONS[code]
        found[code] = OpenApiResponse(
            ErrorSerializer, description=description, examples=[OpenApiExample(f"{code}", value=example)]
        )
    return found
