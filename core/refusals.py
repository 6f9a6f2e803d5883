"""A page request the site cannot take as it is (400): the message says which field and what is accepted.

A page's forms always send their fields, so such a request comes from a stale page, a hand-made URL or a
script; it gets the site's page with the message (an HTMX request the message alone, or the page's own
error partial), never a traceback.
"""

from __future__ import annotations

from django.shortcuts import render
from django.utils.translation import gettext as _

from core.query_params import QueryParamError

PAGE = "core/bad_request.html"
FRAGMENT = f"{PAGE}#refusal"


def field_problem(error: QueryParamError) -> str:
    """``error`` in the reader's language, naming its field: ``Field "batch": missing: expected ...``."""
    return _("Field “%(field)s”: %(problem)s.") % {"field": error.name, "problem": error.translated(_)}


def bad_request(request, message: str, *, fragment: str = FRAGMENT, context: dict | None = None):
    """The 400 answer to a page or HTMX request: the whole page, or for HTMX ``fragment`` (a partial that
    shows ``error``, by default this page's own) with the message."""
    template = fragment if request.htmx else PAGE
    return render(request, template, {"error": message, **(context or {})}, status=400)
