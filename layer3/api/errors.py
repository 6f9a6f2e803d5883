"""The Layer3 API's refusals: ``{"success": false, "error", "field"?}`` with the status code (``ApiErrorMiddleware``
adds ``detail`` and ``problems``: the API's one shape)."""

from __future__ import annotations

from rest_framework.response import Response

from core.api_query import QueryRefused


def error_response(code: int, message: str, field: str | None = None, **extra) -> Response:
    body = {"success": False, "error": message, **extra}
    if field is not None:
        body["field"] = field
    return Response(body, status=code)


def query_refused(exc: QueryRefused) -> Response:
    """400 naming the query parameter refused (``core.api_query``), in the reader's language."""
    return error_response(400, f"{exc.name}: {exc.translated()}", exc.name)
