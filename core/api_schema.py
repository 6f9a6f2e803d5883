"""How the OpenAPI schema names this site's two ways to authenticate (drf-spectacular extensions)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "core.api_auth.SessionAuthenticationWithChallenge"
    name = "sessionAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid",
                "description": "the browser's login session (writes also need the CSRF token)"}  # fmt: skip


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "core.api_tokens.TokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Token <key>` with a key from your page of API tokens (/account/tokens/)"}  # fmt: skip
