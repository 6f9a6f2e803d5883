"""Role checks for views (decorators) and for the REST API (DRF permission classes)."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from rest_framework.permissions import BasePermission

from core.roles import ANNOTATOR, RESEARCHER, ROLE_LABELS, has_role


def role_required(role: str):
    """Allow only users holding ``role``; others get 403 (anonymous users go to the login page)."""

    def decorator(view_func):
        @wraps(view_func)
        def wrapper(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not has_role(request.user, role):
                raise PermissionDenied(
                    _("This page is for users with the %(role)s role.") % {"role": ROLE_LABELS[role]}
                )
            return view_func(request, *args, **kwargs)

        wrapper.required_role = role
        return wrapper

    return decorator


researcher_required = role_required(RESEARCHER)
annotator_required = role_required(ANNOTATOR)


class _HasRole(BasePermission):
    role = ""

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and has_role(request.user, self.role))


class IsResearcher(_HasRole):
    role = RESEARCHER
    message = "This API is for users with the researcher role."


class IsAnnotator(_HasRole):
    role = ANNOTATOR
    message = "This API is for users with the annotator role."
