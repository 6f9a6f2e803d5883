"""The user's page of API tokens: create one (its key shown once), see when each was last used, revoke."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from core.api_tokens import token_create, token_revoke
from core.models import ApiToken
from core.roles import RESEARCHER, has_role


@require_http_methods(["GET", "POST"])
def tokens(request):
    """Any logged-in user (the login middleware sends others to the login page)."""
    context: dict = {}
    if request.method == "POST":
        try:
            token, key = token_create(user=request.user, name=request.POST.get("name", ""))
        except ValueError as exc:
            context["error"] = str(exc)
        else:
            context |= {"new_token": token, "new_key": key}
    context["tokens"] = ApiToken.objects.filter(user=request.user)
    context["reads_api_docs"] = has_role(request.user, RESEARCHER)  # the documentation pages are researchers'
    response = render(request, "core/tokens.html", context)
    response["Cache-Control"] = "private, no-store"  # the key is on this page once
    return response


@require_POST
def token_revoke_view(request, token_id: int):
    try:
        token = token_revoke(user=request.user, token_id=token_id)
    except ApiToken.DoesNotExist:
        messages.error(request, _("No such token of yours."))
    else:
        messages.success(request, _("Token %(name)s revoked: scripts using it are refused from now on.") % {
            "name": token.name})  # fmt: skip
    return redirect("api-tokens")
