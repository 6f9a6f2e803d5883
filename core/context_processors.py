from django.urls import resolve
from django.urls.exceptions import Resolver404

from core.nav import visible_items
from core.roles import ROLE_LABELS, user_roles


def navigation(request) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_items": [], "role_labels": []}
    try:
        current = resolve(request.path_info).view_name
    except Resolver404:
        current = ""
    roles = user_roles(user)
    return {
        "nav_items": visible_items(user),
        "nav_current": current,
        "role_labels": [ROLE_LABELS[role] for role in sorted(roles)],
    }
