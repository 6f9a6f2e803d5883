"""Project middleware: login everywhere by default, and Japanese unless the user chose otherwise."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequiredMiddleware
from django.http import JsonResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers

from core.api_auth import SessionAuthenticationWithChallenge


class LoginRequiredMiddleware(DjangoLoginRequiredMiddleware):
    """Every view needs a login unless decorated with ``login_not_required``.

    API clients get a JSON 401 instead of a redirect to the HTML login page.
    """

    def handle_no_permission(self, request, view_func):
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": "Authentication credentials were not provided."}, status=401)
            response["WWW-Authenticate"] = SessionAuthenticationWithChallenge().authenticate_header(request)
            return response
        return super().handle_no_permission(request, view_func)


class CookieLocaleMiddleware:
    """Activate the language chosen with the language switch (a cookie), else ``LANGUAGE_CODE``.

    Unlike Django's LocaleMiddleware it ignores the browser's Accept-Language header: the UI
    is Japanese by default for everyone, English when a user switches to it.
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.supported = {code for code, _label in settings.LANGUAGES}

    def __call__(self, request):
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
        language = chosen if chosen in self.supported else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        patch_vary_headers(response, ("Cookie",))
        return response


class PrivatePagesMiddleware:
    """Pages for a logged-in user are theirs alone: ``Cache-Control: private, no-store``.

    No shared cache keeps them, and the browser's back button after logging out shows no one's data.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and "Cache-Control" not in response.headers:
            response.headers["Cache-Control"] = "private, no-store"
        return response
