"""Switching a batch's agreement report to another CI method (percentile or BCa bootstrap): a recompute job."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotation.aggregation.agreement import CI_METHODS
from annotation.aggregation.reports import N_BOOT
from annotation.dashboard import selectors
from annotation.dashboard.views import posted_batch
from annotation.job_handlers import AGREEMENT_REPORT
from core.permissions import researcher_required
from core.refusals import bad_request
from core.services import job_enqueue


@researcher_required
@require_POST
def ci_method_switch(request):
    """Recompute the batch's report with ``ci_method`` (the same replicates as its latest report); later
    recomputes, the weekly one included, keep that method."""
    batch, refusal = posted_batch(request)
    if refusal is not None:
        return refusal
    method = request.POST.get("ci_method")
    if method not in CI_METHODS:
        given = repr((method or "")[:40])
        return bad_request(
            request,
            _("Field “%(field)s”: expected one of %(accepted)s, got %(value)s.")
            % {"field": "ci_method", "accepted": ", ".join(CI_METHODS), "value": given},
        )
    dashboard = reverse("annotation:dashboard")
    if not selectors.batch_has_ratings(batch):
        messages.error(
            request, _("Batch %(name)s has no ratings yet, so there is nothing to compute.") % {"name": batch.name}
        )
        return redirect(f"{dashboard}?{urlencode({'batch': batch.pk})}")
    latest = selectors.latest_report(batch)
    n_boot = int(latest.parameters.get("n_boot", N_BOOT)) if latest else N_BOOT
    params = {"batch_id": batch.pk, "n_boot": n_boot or N_BOOT, "ci_method": method}
    job = job_enqueue(kind=AGREEMENT_REPORT, params=params, user=request.user)
    return redirect(f"{dashboard}?{urlencode({'batch': batch.pk, 'job': job.pk})}")
