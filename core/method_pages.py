"""A page of the site for a method the address does not take (405), instead of the browser's bare error.

Django's ``require_POST``/``require_http_methods`` answer an empty ``HttpResponseNotAllowed``; opened from the
address bar (a reload, a shared link) that is Chromium's "HTTP ERROR 405" without the site around it. Pages get
``templates/405.html`` with the same status and ``Allow`` header; the API (``/api/``) keeps its JSON
(``core.api_errors``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme


class MethodNotAllowedPageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code != 405 or request.path.startswith("/api/") or response.streaming or response.content:
            return response
        back = request.META.get("HTTP_REFERER", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            back = ""
        if urlsplit(back).path == request.path:  # a form that posts to its own address: no link back to here
            back = ""
        page = render(request, "405.html", {"method": request.method, "back": back}, status=405)
        page["Allow"] = response["Allow"]
        return page
