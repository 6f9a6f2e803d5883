"""Who may call what: the same roles and qualification gate as the pages.

Researchers (and staff) read and manage everything; annotators work through the queue only after
passing the qualification test (``qualification_required`` on the rating pages) and read and edit
their own ratings (the history pages need the role only). Anonymous requests get 401 before any of
these run (``IsAuthenticated`` and the challenge of the session authentication).
"""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from annotation.collection.qualification import qualification_of
from annotation.collection.training import (
    QUALIFICATION_EXPIRED_MESSAGE,
    QUALIFICATION_REQUIRED_MESSAGE,
    is_qualified,
)
from core.permissions import IsAnnotator, IsResearcher
from core.roles import ANNOTATOR, RESEARCHER, has_role

__all__ = [
    "IsAnnotator",
    "IsQualified",
    "IsQualifiedOrFinishing",
    "IsResearcher",
    "IsResearcherOrAnnotator",
    "IsResearcherOrQualifiedAnnotator",
]


def is_researcher(request) -> bool:
    return has_role(request.user, RESEARCHER)


class IsResearcherOrAnnotator(BasePermission):
    message = "This API is for users with the researcher or annotator role."

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and (has_role(user, RESEARCHER) or has_role(user, ANNOTATOR)))


class IsQualified(BasePermission):
    """After ``IsAnnotator``: the annotator has passed the qualification test (staff count as qualified)."""

    def has_permission(self, request, view) -> bool:
        current = qualification_of(request.user)
        if current.qualified:
            return True
        self.message = str(QUALIFICATION_EXPIRED_MESSAGE if current.expired else QUALIFICATION_REQUIRED_MESSAGE)
        return False


class IsQualifiedOrFinishing(BasePermission):
    """As ``IsQualified``, but an annotator whose qualification expired gets through, as on the web pages: an open
    reservation may still be fetched and submitted. ``request.qualification`` tells the view to hand out nothing
    new."""

    def has_permission(self, request, view) -> bool:
        current = qualification_of(request.user)
        request.qualification = current
        if current.qualified or current.expired:
            return True
        self.message = str(QUALIFICATION_REQUIRED_MESSAGE)
        return False


class IsResearcherOrQualifiedAnnotator(IsResearcherOrAnnotator):
    """Researchers; annotators once qualified (the batch list is the queue's first page)."""

    def has_permission(self, request, view) -> bool:
        if not super().has_permission(request, view):
            return False
        if is_researcher(request) or is_qualified(request.user):
            return True
        self.message = str(QUALIFICATION_REQUIRED_MESSAGE)
        return False
