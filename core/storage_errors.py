"""What a request meets when an upload is not kept or the server's disk is full: an answer that says so, not a 500.

Views answer the refusals they expect (a file over its limit, ``core.upload_limits.upload_refusal``). This
middleware answers the rest, wherever they are raised: an ``UploadRefused`` (``UploadNotStored`` when a kept
copy could not be written under ``VAR_DIR``: ``core.uploads``), and any ``OSError`` meaning "no room" (no space
left, a quota) in an exception or its causes. Under ``/api/`` in the API's error shape, elsewhere as a page of
the site, with the status of the refusal (413, or 507 Insufficient Storage). Whatever was half-written has been
removed where it was written (``core.uploads``, ``core.upload_limits.TemporaryFileHandler``).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme

from core.upload_limits import DISK_FULL, UploadNotStored, UploadRefused, disk_free

logger = logging.getLogger(__name__)


def disk_full_error(exc: BaseException) -> OSError | None:
    """The "no room" ``OSError`` among ``exc`` and its causes, if any."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno in DISK_FULL:
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def refusal_of(exc: BaseException) -> UploadRefused | None:
    if isinstance(exc, UploadRefused):
        return exc
    full = disk_full_error(exc)
    if full is None:
        return None
    logger.error("the server's disk is full: %s", full)
    return UploadNotStored(error=full, where="VAR_DIR", free=disk_free(settings.VAR_DIR))


class StorageErrorMiddleware:
    """Answers an upload refusal or a full disk that no view answered (see the module's text)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exc):
        refusal = refusal_of(exc)
        if refusal is None:
            return None
        if request.path.startswith("/api/"):
            return JsonResponse(refusal.body(), status=refusal.status, json_dumps_params={"ensure_ascii": False})
        back = request.META.get("HTTP_REFERER", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            back = ""
        context = {"message": refusal.message, "back": back}
        return render(request, "core/upload_refused.html", context, status=refusal.status)
