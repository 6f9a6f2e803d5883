"""Project middleware: login everywhere by default, and Japanese unless the user chose otherwise."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequiredMiddleware
from django.http import JsonResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers


class LoginRequiredMiddleware(DjangoLoginRequiredMiddleware):
    """Every view needs a login unless decorated with ``login_not_required``.

    API clients get a JSON 401 instead of a redirect to the HTML login page.
    """

    def handle_no_permission(self, request, view_func):
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": "Authentication credentials were not provided."}, status=401)
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
