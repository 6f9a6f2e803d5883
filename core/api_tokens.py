"""Personal API tokens: creating, revoking, and authenticating a request by one (DRF)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed

from core.models import ApiToken

KEY_PREFIX = "jaiml_"
TOUCH_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often per token
MAX_ACTIVE = 20


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """A new token of ``user`` and its key (shown once; only the digest is stored)."""
    name = name.strip()
    if not name:
        raise ValueError("name the token (what it is for), e.g. 'export script'")
    if len(name) > 100:
        raise ValueError("at most 100 characters for the name")
    if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= MAX_ACTIVE:
        raise ValueError(f"at most {MAX_ACTIVE} active tokens; revoke one you no longer use")
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, prefix=key[: len(KEY_PREFIX) + 4], digest=_digest(key))
    return token, key


def token_revoke(*, user, token_id: int) -> ApiToken:
    token = ApiToken.objects.get(pk=token_id, user=user)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


class TokenAuthentication(BaseAuthentication):
    """``Authorization: Token <key>`` (or ``Bearer <key>``); no CSRF token needed, as no cookie is involved."""

    keywords = (b"token", b"bearer")

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in self.keywords:
            return None
        if len(parts) != 2:
            raise AuthenticationFailed("Authorization: expected 'Token <key>'")
        try:
            key = parts[1].decode()
        except UnicodeError:
            raise AuthenticationFailed("Authorization: the key has characters a token never has") from None
        token = ApiToken.objects.select_related("user").filter(digest=_digest(key)).first()
        if token is None or token.revoked_at is not None or not token.user.is_active:
            raise AuthenticationFailed("unknown or revoked token")
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > TOUCH_EVERY:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request) -> str:
        return 'Token realm="api"'
