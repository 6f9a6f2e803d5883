"""One error shape for the whole API: ``{"success": false, "error", "detail", "problems": [{"path", "message"}]}``.

Every refusal under ``/api/`` answers JSON in the request's language, whoever made it:

- ``api_exception_handler`` (DRF's ``EXCEPTION_HANDLER``): DRF's exceptions, a refused JSON body
  (``core.api_parsers``) with one problem per place, validation errors by field;
- ``ApiErrorMiddleware``: what comes from outside a DRF view (Django's 400/403/404/413 pages, an
  error body in an older shape, an unexpected exception: a JSON 500 that tells nothing of the server).

``error`` and ``detail`` hold the same sentence (``error`` is the seeds' key, ``detail`` DRF's);
``problems`` lists each place refused, ``path`` being a JSON path (``$.history[0].text``), a query
parameter (``?session``), a form field (``file``) or null for the request as a whole.
"""

from __future__ import annotations

import json
import logging

from django.core import signals
from django.core.exceptions import BadRequest, PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, JsonResponse
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.views import exception_handler

from core.api_parsers import JsonBodyError
from core.jsonl import InputError
from core.problem_text import problem_message

logger = logging.getLogger("django.request")


def error_body(detail: str, problems: list[dict] | None = None, **extra) -> dict:
    """The API's error body; ``problems`` default to the whole request refused with ``detail``."""
    if problems is None:
        problems = [{"path": None, "message": detail}]
    return {"success": False, "error": detail, "detail": detail, "problems": problems, **extra}


def input_problems(error: InputError) -> list[dict]:
    return [{"path": problem.path, "message": problem_message(problem)} for problem in error.problems]


def validation_problems(detail, path: str = "") -> list[dict]:
    """``[{path, message}]`` from DRF's nested validation detail (dicts by field, lists by index)."""
    if isinstance(detail, dict):
        found = []
        for key, value in detail.items():
            if isinstance(key, int):
                found += validation_problems(value, f"{path}[{key}]")
                continue
            name = "" if key == "non_field_errors" else str(key)
            found += validation_problems(value, f"{path}.{name}" if path and name else (name or path))
        return found
    if isinstance(detail, list):
        if all(not isinstance(item, (dict, list)) for item in detail):
            return [{"path": path or None, "message": str(item)} for item in detail]
        found = []
        for index, item in enumerate(detail):
            if item:
                found += validation_problems(item, f"{path}[{index}]")
        return found
    return [{"path": path or None, "message": str(detail)}]


def api_exception_handler(exc, context):
    """DRF's handler, answering in the shape above."""
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, JsonBodyError):
        problems = input_problems(exc.input_error)
        detail = f"{exc.detail} {problems[0]['path']}: {problems[0]['message']}"
        response.data = error_body(detail, problems)
    elif isinstance(exc, exceptions.ValidationError):
        problems = validation_problems(exc.detail) or [{"path": None, "message": _("invalid input")}]
        text = "; ".join(f"{p['path']}: {p['message']}" if p["path"] else p["message"] for p in problems)
        response.data = error_body(text, problems)
    else:
        data = response.data
        detail = data.get("detail", data) if isinstance(data, dict) else data
        response.data = error_body(str(detail))
    return response


# --- outside DRF --------------------------------------------------------------------------------


def _reason(status: int) -> str:
    reasons = {
        400: _("Bad request."),
        401: _("Authentication credentials were not provided."),
        403: _("You do not have permission to perform this action."),
        404: _("Not found."),
        405: _("Method not allowed."),
        413: _("The request body is too large."),
        415: _("Unsupported media type."),
    }
    return reasons.get(status, _("Internal server error.") if status >= 500 else _("The request was refused."))


def _shaped(body: dict, status: int) -> dict:
    """An error body of an older shape (``error``/``field``/``errors``, or DRF's ``detail``) in the one shape."""
    detail = body.get("detail") if isinstance(body.get("detail"), str) else None
    detail = detail or (body.get("error") if isinstance(body.get("error"), str) else None) or _reason(status)
    problems = body.get("problems")
    if not (isinstance(problems, list) and all(isinstance(p, dict) and "path" in p for p in problems)):
        errors = body.get("errors")
        if isinstance(errors, list) and all(isinstance(e, dict) and "message" in e for e in errors):
            problems = [{"path": e.get("field", e.get("path")), "message": str(e["message"])} for e in errors]
        else:
            field = body.get("field")
            message = detail.removeprefix(f"{field}: ") if isinstance(field, str) else detail
            problems = [{"path": field, "message": message}]
    extra = {key: value for key, value in body.items() if key not in ("problems",)}
    return {**extra, "success": False, "error": extra.get("error", detail), "detail": detail, "problems": problems}


class ApiErrorMiddleware:
    """Under ``/api/``: every error response JSON in the one shape, and no HTML or traceback."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code < 400 or not request.path.startswith("/api/") or response.streaming:
            return response
        body = getattr(response, "data", None)  # a DRF response, whatever renderer it chose (the schema's YAML)
        if body is None and response.get("Content-Type", "").startswith("application/json"):
            try:
                body = json.loads(response.content)
            except ValueError:
                body = None
        if (
            isinstance(body, dict)
            and {"problems", "detail", "success"} <= body.keys()
            and response.get("Content-Type", "").startswith("application/json")
        ):
            return response
        shaped = _shaped(body if isinstance(body, dict) else {}, response.status_code)
        return self._reply(shaped, response)

    @staticmethod
    def _reply(body: dict, original) -> JsonResponse:
        reply = JsonResponse(body, status=original.status_code, json_dumps_params={"ensure_ascii": False})
        for header in ("WWW-Authenticate", "Retry-After", "Allow", "Vary", "Content-Language"):
            if header in original:
                reply[header] = original[header]
        return reply

    def process_exception(self, request, exc):
        if not request.path.startswith("/api/"):
            return None
        if isinstance(exc, Http404):
            return JsonResponse(error_body(_reason(404)), status=404)
        if isinstance(exc, PermissionDenied):
            return JsonResponse(error_body(_reason(403)), status=403)
        if isinstance(exc, RequestDataTooBig):
            return JsonResponse(error_body(_reason(413)), status=413)
        if isinstance(exc, (SuspiciousOperation, BadRequest)):
            return JsonResponse(error_body(_reason(400)), status=400)
        # A server error: logged with its traceback (secrets redacted by the logging filter), signalled
        # as Django does (the test client re-raises it), answered without any detail of the server.
        logger.error("Internal Server Error: %s", request.path, exc_info=exc, extra={"status_code": 500})
        signals.got_request_exception.send(sender=None, request=request)
        return JsonResponse(error_body(_reason(500)), status=500)
