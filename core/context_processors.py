from functools import partial

from core.nav import visible_items
from core.roles import ROLE_LABELS, user_roles


def _role_labels(user) -> list:
    return [ROLE_LABELS[role] for role in sorted(user_roles(user))]


def navigation(request) -> dict:
    """The top bar's items. Callables: the template calls them only where it shows the bar (not in HTMX fragments)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": [], "role_labels": []}
    match = getattr(request, "resolver_match", None)  # resolved once by the request handler
    return {
        "nav_items": partial(visible_items, user),
        "nav_current": match.view_name if match is not None else "",
        "role_labels": partial(_role_labels, user),
    }
