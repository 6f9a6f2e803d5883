"""The navigation: one registry feeds the top bar and the home page cards, filtered by role."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.urls import get_script_prefix, reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from core.roles import ADMIN, ANNOTATOR, RESEARCHER, user_roles


@dataclass(frozen=True)
class NavItem:
    key: str
    label: str | Promise
    url_name: str
    role: str | None  # None: every logged-in user
    description: str | Promise = ""
    on_home: bool = True

    @property
    def url(self) -> str:
        return _url(get_script_prefix(), self.url_name)


@lru_cache(maxsize=64)
def _url(script_prefix: str, url_name: str) -> str:
    """``reverse(url_name)`` once per script prefix (the top bar shows these on every page)."""
    return reverse(url_name)


NAV_ITEMS: list[NavItem] = [
    NavItem("home", _("Home"), "home", None, on_home=False),
    NavItem(
        "annotate",
        _("Annotate"),
        "annotation:queue",
        ANNOTATOR,
        _("Rate dialogues on the four sycophancy axes, one item at a time, with the keyboard."),
    ),
    NavItem(
        "training",
        _("Training"),
        "annotation:training",
        ANNOTATOR,
        _("Practice items with feedback, and the qualification test that opens the work queue."),
    ),
    NavItem(
        "history",
        _("My ratings"),
        "annotation:history",
        ANNOTATOR,
        _("Your past ratings; correct one when you change your mind (the change is kept in the history)."),
    ),
    NavItem(
        "my-feedback",
        _("My feedback"),
        "annotation:feedback",
        ANNOTATOR,
        _("Your month: agreement with the consensus and the others, bias, speed, flags, the items to discuss."),
    ),
    NavItem(
        "guidelines",
        _("Guidelines"),
        "annotation:guidelines",
        None,
        _("The four axes, levels and markers, reference examples and edge cases."),
    ),
    NavItem(
        "batches",
        _("Batches"),
        "annotation:workspace",
        RESEARCHER,
        _("Create batches by upload, set quotas and who rates them, review items and adjudicate disputes."),
    ),
    NavItem(
        "agreement",
        _("Agreement"),
        "annotation:dashboard",
        RESEARCHER,
        _("Inter-annotator agreement per batch: kappa, alpha and AC2 with confidence intervals, pairs, weekly trend."),
    ),
    NavItem(
        "feedback",
        _("Feedback"),  # short: the researchers' top bar is full at 1366 px
        "annotation:feedback",
        RESEARCHER,
        _("The month of every annotator for the feedback meeting: one table, the heat maps, printable and as CSV."),
    ),
    NavItem(
        "gold",
        _("Gold items"),
        "annotation:gold-items",
        RESEARCHER,
        _("Import practice and test items with gold scores; see the qualification results."),
    ),
    NavItem(
        "layer3",
        _("Layer3"),
        "layer3:batches",
        RESEARCHER,
        _("Semantic validation of generated UI specs: the eleven metrics per model config, tests, tables, figures."),
    ),
    NavItem(
        "director",
        _("Director"),
        "director:check",
        RESEARCHER,
        _("Check lines of the sisters' dialogue against the Director's rules; sessions and verdict statistics."),
    ),
    NavItem(
        "system",
        _("System status"),
        "system",
        RESEARCHER,
        _("Database, task queue and LLM endpoint configuration; check that a worker answers."),
    ),
    NavItem(
        "api-docs",
        _("API docs"),
        "api-redoc",
        RESEARCHER,
        _("The REST API's reference (Redoc) and Swagger UI; tokens for scripts on your user page."),
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
