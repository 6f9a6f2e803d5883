from functools import partial

from django.utils.translation import get_language

from core.nav import visible_items
from core.roles import ROLE_LABELS, user_roles


def _role_labels(user) -> list:
    return [ROLE_LABELS[role] for role in sorted(user_roles(user))]


def _chrome_key(request, user) -> str | None:
    """What the top bar shows depends on: the user, their roles, the language, the page, and the CSRF
    secret of the browser (the bar's forms carry a token derived from it). None before the browser has
    a secret: a token made during the render would belong to a secret the key does not name."""
    secret = request.META.get("CSRF_COOKIE")
    if not secret:
        return None
    roles = ",".join(sorted(user_roles(user)))
    return f"{user.pk}|{user.get_username()}|{roles}|{get_language()}|{request.get_full_path()}|{secret}"


def navigation(request) -> dict:
    """The top bar's items. Callables: the template calls them only where it shows the bar (not in HTMX fragments)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": [], "role_labels": [], "chrome_key": None}
    match = getattr(request, "resolver_match", None)  # resolved once by the request handler
    return {
        "nav_items": partial(visible_items, user),
        "nav_current": match.view_name if match is not None else "",
        "role_labels": partial(_role_labels, user),
        "chrome_key": partial(_chrome_key, request, user),  # the top bar is cached per this key (base.html)
    }
