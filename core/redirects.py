"""Where a form goes back to after a POST: its ``next`` field when that is a path on this site."""

from __future__ import annotations

import unicodedata

from django.http import HttpResponseRedirect
from django.shortcuts import resolve_url
from django.utils.http import url_has_allowed_host_and_scheme


def posted_next(request, default: str) -> str:
    """The POSTed ``next`` when it is a path of this site (``/...``, no scheme, no other host, no control
    character), else ``default`` (a URL or a URL name). A ``next`` such as ``abc`` is neither followed nor
    taken for a view name, and one holding a line break never reaches a response header."""
    target = request.POST.get("next", "")
    if (
        target.startswith("/")
        and not any(unicodedata.category(char).startswith("C") for char in target)
        and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure())
    ):
        return target
    return resolve_url(default)


def redirect_back(request, default: str) -> HttpResponseRedirect:
    return HttpResponseRedirect(posted_next(request, default))
