"""Researchers' side of the judge audits: the list of audits, drawing a new one, closing and reopening."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotation.audits import selectors_research, services
from annotation.audits.forms import AuditCreateForm
from annotation.models import JudgeAudit
from core.judge_audits import AuditSourceError, evaluated_batch_names
from core.permissions import researcher_required
from core.redirects import redirect_back


def _back(request):
    """Where the form was posted from (the Layer3 batch page or the audit list), if it is this site."""
    return redirect_back(request, "annotation:audit-list")


@require_GET
@researcher_required
def audit_list(request):
    return render(
        request,
        "annotation/audit_research/list.html",
        {
            "rows": selectors_research.audit_rows(),
            "form": AuditCreateForm(initial={"size": 200, "per_item": 3}, batch_names=evaluated_batch_names()),
        },
    )


@require_POST
@researcher_required
def audit_create(request):
    form = AuditCreateForm(request.POST)
    if not form.is_valid():
        problems = "; ".join(f"{form.fields[name].label}: {' '.join(errors)}" for name, errors in form.errors.items())
        messages.error(request, _("The audit was not created. %(problems)s") % {"problems": problems})
        return _back(request)
    data = form.cleaned_data
    try:
        audit = services.judge_audit_create(
            batch=data["batch"],
            kind=data["kind"],
            size=data["size"],
            per_item=data["per_item"],
            seed=data["seed"],
            user=request.user,
        )
    except (AuditSourceError, ValueError) as error:
        messages.error(request, _("The audit was not created: %(error)s") % {"error": error})
        return _back(request)
    messages.success(
        request,
        _("Audit “%(name)s” created: %(items)s items, %(per_item)s ratings each. Annotators find it in their queue.")
        % {"name": audit.name, "items": audit.items.count(), "per_item": audit.per_item},
    )
    return _back(request)


@require_POST
@researcher_required
def audit_status(request, audit_id: int, status: str):
    audit = get_object_or_404(JudgeAudit, pk=audit_id)
    if status == JudgeAudit.Status.CLOSED:
        services.judge_audit_close(audit)
        messages.success(request, _("Audit “%(name)s” closed: it hands out no more items.") % {"name": audit.name})
    else:
        services.judge_audit_reopen(audit)
        messages.success(request, _("Audit “%(name)s” reopened.") % {"name": audit.name})
    return redirect(reverse("annotation:audit-list"))
