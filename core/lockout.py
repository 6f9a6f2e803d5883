"""The page a locked-out login gets (django-axes calls this; see AXES_* in the settings)."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import render


def lockout_response(request, original_response=None, credentials=None):
    minutes = max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    context = {"failure_limit": settings.AXES_FAILURE_LIMIT, "cooloff_minutes": minutes}
    return render(request, "registration/locked_out.html", context, status=429)
