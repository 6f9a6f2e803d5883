"""The roles of this project: group names, and who holds which.

Annotators rate dialogues; researchers import data, compute statistics and run evaluations;
staff users are the admins and may do everything a researcher may.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

ANNOTATOR = "annotator"
RESEARCHER = "researcher"
ADMIN = "admin"  # not a group: staff users hold it
GROUP_ROLES = (ANNOTATOR, RESEARCHER)
ROLE_LABELS = {ANNOTATOR: _("Annotator"), RESEARCHER: _("Researcher"), ADMIN: _("Admin")}

_CACHE_ATTR = "_jaiml_roles"


def _roles_of(user, group_names) -> frozenset[str]:
    names = {name for name in group_names if name in GROUP_ROLES}
    if user.is_staff:
        names.update({ADMIN, RESEARCHER})
    return frozenset(names)


def remember_roles(user, group_names) -> None:
    """Keep the roles of a freshly loaded user, given the names of their groups (see core.auth_backends)."""
    setattr(user, _CACHE_ATTR, _roles_of(user, group_names) if user.is_active else frozenset())


def user_roles(user) -> frozenset[str]:
    """The roles of ``user``, looked up once per user object (i.e. once per request)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return frozenset()
    cached = getattr(user, _CACHE_ATTR, None)
    if cached is None:
        cached = _roles_of(user, user.groups.filter(name__in=GROUP_ROLES).values_list("name", flat=True))
        setattr(user, _CACHE_ATTR, cached)
    return cached


def has_role(user, role: str) -> bool:
    return role in user_roles(user)
