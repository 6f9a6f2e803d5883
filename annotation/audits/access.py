"""Who may rate a judge audit: an annotator who has read that kind's short guidelines (GV or W2WR).

A judge audit is rated on its own 0–2 scale, so it asks for its own instructions, read and acknowledged
once per kind, not for the sycophancy qualification test (README, *Judge calibration*). Staff users
count as having read them. What was acknowledged is remembered in the session, so a rating page asks
the database once per kind and session.
"""

from __future__ import annotations

from functools import wraps

from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect

from annotation.models import AuditGuidelinesRead, JudgeAudit

_SESSION_KEY = "annotation.audit_guidelines_read"


def has_read_guidelines(user, kind: str) -> bool:
    if user.is_staff:
        return True
    return AuditGuidelinesRead.objects.filter(annotator=user, kind=kind).exists()


def has_read_guidelines_in_session(request, kind: str) -> bool:
    """``has_read_guidelines``, remembered in the session once true."""
    remembered = request.session.get(_SESSION_KEY) or {}
    if kind in remembered.get(str(request.user.pk), []):
        return True
    read = has_read_guidelines(request.user, kind)
    if read:
        kinds = sorted({*remembered.get(str(request.user.pk), []), kind})
        request.session[_SESSION_KEY] = {str(request.user.pk): kinds}
    return read


def guidelines_required(view_func):
    """Send a rater who has not acknowledged the audit kind's guidelines to them (after login: use under
    ``annotator_required``). The view takes ``audit_id``."""

    @wraps(view_func)
    def wrapper(request, *args, audit_id: int, **kwargs):
        kind = JudgeAudit.objects.filter(pk=audit_id).values_list("kind", flat=True).first()
        if kind is None:
            get_object_or_404(JudgeAudit, pk=audit_id)  # raises Http404
        if not has_read_guidelines_in_session(request, kind):
            url = reverse("annotation:audit-guidelines", args=[audit_id])
            if getattr(request, "htmx", False):
                return HttpResponseClientRedirect(url)
            return redirect(url)
        return view_func(request, *args, audit_id=audit_id, **kwargs)

    return wrapper
