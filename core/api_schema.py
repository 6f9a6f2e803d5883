"""How the OpenAPI schema describes this API beyond what drf-spectacular infers (``DEFAULT_SCHEMA_CLASS``).

- The two ways to authenticate (session cookie, ``Authorization: Token``).
- The one error body (``core.api_errors``) as a component, ``Error``, and every refusal an operation can answer
  documented with it: 401 always (every operation needs a user), 403 where a role is needed or the method writes
  (the session's CSRF check), 404 where the path names an object, 400 where there are query parameters or a body,
  413 and 415 where there is a body. A view documents the others (409, a 404 for an object named in the query or
  body) with ``error_responses``.
- A text of a request body holds no NUL character, and a required one (a ``CharField`` that may not be blank) at
  least one character that is not white space (``pattern: NOT_BLANK_TEXT``), as DRF reads it: white space is
  trimmed, then an empty text refused.
- A request body refuses the fields it does not take (``additionalProperties: false``).
- A serializer may add to its request component, and a field to its schema: ``schema_extra`` (a dict, or a callable
  returning one, merged in; a serializer's ``required`` names are added and its ``properties`` merged by name), for
  what fields alone cannot say (one of two fields, a PATCH body that needs one, the characters of the rule set).
"""

from __future__ import annotations

from django.core.validators import RegexValidator
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema_field
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
# Texts of a request: no NUL character (core.json_strict and DRF refuse it; PostgreSQL cannot store it) and, where
# one is required, a character that Python's str.strip() keeps. The white space is spelled out (every character of
# str.isspace()): "\\s" reads differently in Python's re, in schemathesis' ASCII reading and in the Rust regex engine
# of jsonschema-rs.
_WHITE_SPACE = "".join(
    f"\\u{code:04x}" for code in (*range(0x09, 0x0E), *range(0x1C, 0x21), 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
                                  0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
)  # fmt: skip
NO_NUL = r"^[^\x00]*$"
NOT_BLANK_TEXT = rf"^[^\x00]*[^\x00{_WHITE_SPACE}][^\x00]*$"


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "core.api_auth.SessionAuthenticationWithChallenge"
    name = "sessionAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid",
                "description": "the browser's login session (writes also need the CSRF token)"}  # fmt: skip


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "core.api_tokens.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <key>` with a key from your page of API tokens (/account/tokens/)"}  # fmt: skip


# --- the error body ------------------------------------------------------------------------------


@extend_schema_field({"type": "boolean", "enum": [False]})
class FalseField(serializers.BooleanField):
    pass


class ProblemSerializer(serializers.Serializer):
    path = serializers.CharField(
        allow_null=True,
        help_text="where: a JSON path ($.history[0].text), a field (scores.social), a query parameter or header, "
        "a form field (file); null for the request as a whole",
    )
    message = serializers.CharField(help_text="what is wrong and what is accepted, in the request's language")
    file = serializers.CharField(required=False, help_text="uploads: the file the problem is in, as it was named")
    line = serializers.IntegerField(
        required=False, allow_null=True, help_text="uploads: the line of that file (null: the file as a whole)"
    )


class ErrorItemSerializer(serializers.Serializer):
    field = serializers.CharField(allow_null=True, help_text="the annotation API's older name of path")
    message = serializers.CharField()


class ErrorSerializer(serializers.Serializer):
    """Every refusal under /api/: the same sentence in ``error`` and ``detail``, and each place refused."""

    success = FalseField()
    error = serializers.CharField(help_text="what was wrong and what would be accepted")
    detail = serializers.CharField(help_text="the same sentence as error")
    problems = ProblemSerializer(many=True, min_length=1, help_text="every place refused (at least one)")
    field = serializers.CharField(required=False, help_text="the first field refused (a validation error)")
    errors = ErrorItemSerializer(many=True, required=False, help_text="annotation API: problems as {field, message}")
    truncated = serializers.BooleanField(required=False, help_text="uploads: more problems were found than listed")
    total = serializers.IntegerField(required=False, help_text="uploads: how many problems were found")


_REFUSALS = {
    400: ("Invalid input: each place refused is named, with what is accepted",
          {"path": "scores.social", "message": "expected a whole number from 1 to 5"}),
    401: ("Not logged in and no valid token",
          {"path": None, "message": "Authentication credentials were not provided."}),
    403: ("The role (or qualification, or the CSRF token of a session) this needs is missing",
          {"path": None, "message": "This API is for users with the researcher role."}),
    404: ("No such object (in the path, or named in the query or body), or not one of yours",
          {"path": None, "message": "no batch with id 42"}),
    409: ("The state of the object does not allow it now", {"path": None, "message": "batch pilot-01 is paused"}),
    413: ("The body is over its limit (DATA_UPLOAD_MAX_MEMORY_SIZE, or the upload setting named); nothing was read",
          {"path": None, "message": "The request body is too large."}),
    415: ("A body of a media type this operation does not take", {"path": None, "message": "Unsupported media type."}),
    507: ("The server's disk could not hold the upload (full, or a write error): nothing was stored or kept",
          {"path": "file", "message": "ratings.jsonl could not be stored: the server's disk holding VAR_DIR is full "
           "(0 bytes free). Nothing was stored and nothing of it was kept; ask the operator to free space, then "
           "upload it again."}),
}  # fmt: skip


def _example(problem: dict) -> dict:
    text = f"{problem['path']}: {problem['message']}" if problem["path"] else problem["message"]
    return {"success": False, "error": text, "detail": text, "problems": [problem]}


def error_response(code: int, description: str | None = None) -> OpenApiResponse:
    default, problem = _REFUSALS[code]
    return OpenApiResponse(
        ErrorSerializer,
        description=description or default,
        examples=[OpenApiExample(str(code), value=_example(problem), response_only=True, status_codes=[str(code)])],
    )


def error_responses(*codes: int) -> dict[int, OpenApiResponse]:
    """The refusals ``codes`` as documented responses (the usual ones are added to every operation anyway)."""
    return {code: error_response(code) for code in codes}


# --- the schema class ----------------------------------------------------------------------------


def _takes_a_file(schema: dict) -> bool:
    """A body that is a file, or a form with a file field (written to disk as it arrives)."""
    if schema.get("format") == "binary":
        return True
    fields = list(schema.get("properties", {}).values())
    return any(f.get("format") == "binary" or f.get("items", {}).get("format") == "binary" for f in fields)


class AutoSchema(SpectacularAutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation["responses"]
        for code in self._refusals(operation):
            if str(code) not in responses:
                responses[str(code)] = self._get_response_for_code(error_response(code), str(code))
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def _refusals(self, operation: dict) -> list[int]:
        codes = [401]
        try:  # the view's own choice for this method (a viewset may choose per action)
            permissions = [type(permission) for permission in self.view.get_permissions()]
        except Exception:
            permissions = list(getattr(self.view, "permission_classes", []))
        if self.method not in SAFE_METHODS or any(p is not IsAuthenticated for p in permissions):
            codes.append(403)
        if "{" in self.path:
            codes.append(404)
        body = "requestBody" in operation
        if body or any(p.get("in") == "query" for p in operation.get("parameters", [])):
            codes.append(400)
        if body:
            codes += [413, 415]
            if any(_takes_a_file(media.get("schema", {})) for media in operation["requestBody"]["content"].values()):
                codes.append(507)  # core.upload_limits.UploadNotStored
        return codes

    def _get_request_for_media_type(self, serializer, direction="request"):
        schema, required = super()._get_request_for_media_type(serializer, direction)
        if isinstance(serializer, serializers.BaseSerializer) or (
            isinstance(serializer, type) and issubclass(serializer, serializers.BaseSerializer)
        ):
            extra = _extra(serializer() if isinstance(serializer, type) else serializer)
            required = required or bool(extra.get("required") or extra.get("minProperties"))  # a PATCH that needs one
        elif isinstance(serializer, dict):  # a schema given as it is (a multipart form)
            required = required or bool(serializer.get("required"))
        return schema, required

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if isinstance(schema, dict) and not isinstance(field, serializers.BaseSerializer):  # a serializer: its own
            schema.update(_extra(field))
        if (
            direction == "request"
            and isinstance(field, serializers.CharField)
            and isinstance(schema, dict)
            and schema.get("type") == "string"
            and not {"pattern", "enum", "format"} & schema.keys()
            and not any(isinstance(v, RegexValidator) for v in field.validators)  # its own pattern, added later
        ):
            if field.allow_blank:  # drf-spectacular then offers "" as the other branch of a oneOf: "" must not match
                schema["pattern"] = r"^[^\x00]+$"
            else:
                schema["pattern"] = NOT_BLANK_TEXT if field.trim_whitespace else NO_NUL
        return schema

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if direction != "request":
            return schema
        schema["additionalProperties"] = False  # every body of this API refuses a field it does not take
        extra = _extra(serializer)
        required = [*schema.get("required", []), *extra.pop("required", [])]
        for name, more in extra.pop("properties", {}).items():
            schema["properties"][name] = {**schema["properties"][name], **more}
        schema.update(extra)
        if required:
            schema["required"] = sorted(set(required))
        return schema


def _extra(owner) -> dict:
    """``owner.schema_extra``: a dict, or a callable returning one (read when the schema is made); a copy."""
    extra = getattr(owner, "schema_extra", None)
    if callable(extra):
        extra = extra()
    return dict(extra or {})
