"""The researcher agreement dashboard: latest report of a batch, pairwise heat map, weekly kappa, recompute job."""

from __future__ import annotations

import uuid
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from annotation.aggregation.reports import N_BOOT
from annotation.axes import AXES
from annotation.dashboard import selectors
from annotation.job_handlers import AGREEMENT_REPORT
from annotation.models import Batch
from core.models import Job
from core.permissions import researcher_required
from core.services import job_enqueue

PAGE = "annotation/dashboard/page.html"


def _int_or_404(value: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise Http404(f"not a batch id: {value!r}") from None


def _chosen_batch(request, batches: list[Batch]) -> Batch | None:
    if "batch" not in request.GET:
        return selectors.default_batch(batches)
    wanted = _int_or_404(request.GET["batch"])
    for batch in batches:
        if batch.pk == wanted:
            return batch
    raise Http404(f"no batch with id {wanted}")


def _requested_job(request) -> Job | None:
    if "job" not in request.GET:
        return None
    try:
        job_id = uuid.UUID(request.GET["job"])
    except ValueError:
        raise Http404("not a job id") from None
    job = Job.objects.filter(pk=job_id, kind=AGREEMENT_REPORT).first()
    if job is None:
        raise Http404("no such recompute job")
    return job


def _vary(response):
    patch_vary_headers(response, ("HX-Request",))  # one URL, two bodies: keep caches apart
    return response


def _dashboard_url(batch_id: int, **params) -> str:
    return f"{reverse('annotation:dashboard')}?{urlencode({'batch': batch_id, **params})}"


@researcher_required
@require_GET
def dashboard(request):
    # A history restore after a cache miss wants the whole page, not the fragment.
    fragment = bool(request.htmx) and not request.htmx.history_restore_request
    job = _requested_job(request)
    if fragment and job is not None:  # the recompute panel polling for the end of its job
        return _vary(render(request, f"{PAGE}#recompute-followup", {"job": job}))
    batches = selectors.batch_choices()
    batch = _chosen_batch(request, batches)
    axis = request.GET.get("axis") if request.GET.get("axis") in AXES else AXES[0]
    context = {"batches": batches, "batch": batch, "axis": axis, "axis_label": selectors.AXIS_LABELS[axis]}
    if batch is not None:
        report = selectors.latest_report(batch)
        context |= {
            "axis_tabs": [{"axis": a, "label": selectors.AXIS_LABELS[a]} for a in AXES],
            "report": report,
            "bootstrap": selectors.report_bootstrap(report) if report else None,
            "heat_map": selectors.heat_map(report, axis) if report else None,
            "weekly": selectors.weekly_plot(batch, axis) if batch.n_ratings else None,
        }
    if fragment:  # an axis tab
        return _vary(render(request, f"{PAGE}#axis-detail", context))
    if batch is not None:
        context |= {
            "summaries": selectors.axis_summaries(context["report"]) if context["report"] else [],
            "flags": selectors.open_flags(batch, request.user),
            "job": job or selectors.running_job(batch),
            "stale": selectors.ratings_changed_since(batch, context["report"]) if context["report"] else False,
            "recompute_n_boot": N_BOOT,  # what the button below asks for (the job's n_boot)
            "activity_url": reverse("annotation:activity", args=[batch.pk]),
        }
    return _vary(render(request, PAGE, context))


@researcher_required
@require_POST
def recompute(request):
    batch = Batch.objects.filter(pk=_int_or_404(request.POST.get("batch"))).first()
    if batch is None:
        raise Http404("no such batch")
    if not selectors.batch_has_ratings(batch):
        error = _("Batch %(name)s has no ratings yet, so there is nothing to compute.") % {"name": batch.name}
        if request.htmx:
            return render(request, f"{PAGE}#recompute-error", {"error": error})
        messages.error(request, error)
        return redirect(_dashboard_url(batch.pk))
    job = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": batch.pk, "n_boot": N_BOOT}, user=request.user)
    if request.htmx:
        return render(request, f"{PAGE}#recompute-job", {"job": job})
    return redirect(_dashboard_url(batch.pk, job=job.pk))
