"""Redoc's script, served by this site with its one outside address replaced by a local file.

The Redoc bundle of drf-spectacular-sidecar shows an "API docs by Redocly" link whose logo it loads from
``cdn.redoc.ly``; the Content Security Policy (images from this site only) blocks it and the console
reports a violation. This view serves the same bundle with that address pointing at a copy of the logo
in this site's static files (``static/img/redoc-logo-mini.svg``), so the page makes no outside request
and the policy stays as strict as it is.
"""

from __future__ import annotations

import functools
import hashlib

from django.contrib.staticfiles import finders
from django.http import HttpResponse, HttpResponseNotModified
from django.templatetags.static import static
from django.views.decorators.http import require_GET

REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
REDOC_LOGO_URL = "https://cdn.redoc.ly/redoc/logo-mini.svg"
LOCAL_LOGO = "img/redoc-logo-mini.svg"


@functools.cache
def redoc_script() -> tuple[bytes, str]:
    """(the bundle with the logo's address made local, its ETag); read once per process."""
    path = finders.find(REDOC_BUNDLE)
    if path is None:
        raise FileNotFoundError(f"{REDOC_BUNDLE} (drf-spectacular-sidecar) is not installed")
    with open(path, encoding="utf-8") as bundle:
        text = bundle.read()
    body = text.replace(REDOC_LOGO_URL, static(LOCAL_LOGO)).encode("utf-8")
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


@require_GET
def redoc_script_view(request):
    body, etag = redoc_script()
    if request.headers.get("If-None-Match") == etag:
        response = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["ETag"] = etag
    response["Cache-Control"] = "private, max-age=86400"
    return response
