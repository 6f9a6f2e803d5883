"""API authentication: the browser's session, answered with 401 (not 403) when there is none."""

from __future__ import annotations

from django.urls import reverse
from rest_framework.authentication import SessionAuthentication


class SessionAuthenticationWithChallenge(SessionAuthentication):
    """Django's session cookie; an anonymous request gets 401 with a ``WWW-Authenticate`` challenge.

    DRF answers 403 when the first authentication class names no challenge. Sessions have no
    registered HTTP scheme, so the challenge names the scheme ``Session`` and where to log in.
    """

    def authenticate_header(self, request) -> str:
        return f'Session realm="api", login="{reverse("login")}"'
