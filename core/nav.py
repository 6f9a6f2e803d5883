"""The navigation: one registry feeds the top bar and the home page cards, filtered by role."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from core.roles import ADMIN, RESEARCHER, user_roles


@dataclass(frozen=True)
class NavItem:
    key: str
    label: str | Promise
    url_name: str
    role: str | None  # None: every logged-in user
    description: str | Promise = ""
    on_home: bool = True


NAV_ITEMS: list[NavItem] = [
    NavItem("home", _("Home"), "home", None, on_home=False),
    NavItem(
        "system",
        _("System status"),
        "system",
        RESEARCHER,
        _("Database, task queue and LLM endpoint configuration; check that a worker answers."),
    ),
    NavItem(
        "admin",
        _("Admin"),
        "admin:index",
        ADMIN,
        _("Users, roles and stored data in Django admin."),
    ),
]


def visible_items(user) -> list[NavItem]:
    roles = user_roles(user)
    return [item for item in NAV_ITEMS if item.role is None or item.role in roles]
