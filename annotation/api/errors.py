"""Error bodies of the annotation API: ``{"success": false, "error", "detail", "problems", "field"?, "errors"?}``.

``detail`` and ``problems`` are the whole API's shape (``core.api_errors``); ``field`` and ``errors``
are this API's older keys, kept for its clients.

Every refusal is JSON with one readable ``error``. A validation error also names the first bad field
as a JSON path (``scores.social``) and lists every problem under ``errors`` as ``{field, message}``,
so a script can point at all of them at once.
"""

from __future__ import annotations

from rest_framework import exceptions, status
from rest_framework.views import exception_handler

from core.api_errors import api_exception_handler as core_exception_handler
from core.api_errors import validation_problems
from core.api_parsers import JsonBodyError


class ApiError(exceptions.APIException):
    """A refusal with a status, a message and extra keys for the body (``outcome``, ``problems``, ...)."""

    def __init__(self, message: str, *, code: int = status.HTTP_400_BAD_REQUEST, field: str | None = None, **extra):
        super().__init__(detail=message)
        self.status_code = code
        self.field = field
        self.extra = extra


def conflict(message: str, **extra) -> ApiError:
    return ApiError(message, code=status.HTTP_409_CONFLICT, **extra)


def not_found(message: str) -> exceptions.NotFound:
    return exceptions.NotFound(message)


def invalid(field: str, message: str) -> exceptions.ValidationError:
    """A validation error of one field (a JSON path such as ``scores.social`` or a query parameter)."""
    return exceptions.ValidationError({field: [message]})


def _flatten(detail) -> list[dict]:
    """``[{field, message}]`` from DRF's nested error detail (``core.api_errors.validation_problems``)."""
    return [{"field": p["path"], "message": p["message"]} for p in validation_problems(detail)]


def _text(problem: dict) -> str:
    return f"{problem['field']}: {problem['message']}" if problem["field"] else problem["message"]


def api_exception_handler(exc, context):
    if isinstance(exc, JsonBodyError):  # a body refused before any field is read: the project's shape
        return core_exception_handler(exc, context)
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        problems = _flatten(exc.detail) or [{"field": None, "message": "invalid input"}]
        body = {"success": False, "error": "; ".join(_text(p) for p in problems), "errors": problems}
        if problems[0]["field"]:
            body["field"] = problems[0]["field"]
    else:
        detail = response.data.get("detail", response.data) if isinstance(response.data, dict) else response.data
        body = {"success": False, "error": str(detail)}
        if isinstance(exc, ApiError):
            if exc.field:  # "field: message", as a validation error reads; the problem holds the message
                body["field"] = exc.field
                body["errors"] = [{"field": exc.field, "message": str(detail).removeprefix(f"{exc.field}: ")}]
                body["error"] = _text(body["errors"][0])
            body.update(exc.extra)
    body["detail"] = body["error"]
    if "problems" not in body:  # an upload's located problems ({file, line, path, message}) stay as they are
        errors = body.get("errors") or [{"field": body.get("field"), "message": body["error"]}]
        body["problems"] = [{"path": p["field"], "message": p["message"]} for p in errors]
    response.data = body
    return response


class ApiErrorsMixin:
    """For the views of this API: errors answer in the shape above."""

    def get_exception_handler(self):
        return api_exception_handler
