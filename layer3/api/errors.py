"""The Layer3 API's refusals: ``{"success": false, "error", "field"?}`` with the status code."""

from __future__ import annotations

from rest_framework.response import Response


def error_response(code: int, message: str, field: str | None = None, **extra) -> Response:
    body = {"success": False, "error": message, **extra}
    if field is not None:
        body["field"] = field
    return Response(body, status=code)
