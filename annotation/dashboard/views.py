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
from annotation.dashboard import ci_method, llm_card, selectors
from annotation.job_handlers import AGREEMENT_REPORT, LLM_RATE
from annotation.llm_rater import UNAVAILABLE_OFFLINE, LLMRaterUnavailable, llm_rate_estimate
from annotation.models import Batch
from core.models import Job
from core.permissions import researcher_required
from core.query_params import QueryParamError, parse_id, required_id
from core.refusals import FRAGMENT, bad_request, field_problem
from core.services import job_enqueue
from llm import services as gateway

PAGE = "annotation/dashboard/page.html"


def _int_or_404(value: str) -> int:
    number = parse_id(value)
    if number is None:
        raise Http404(f"not a batch id: {value[:40]!r}")
    return number


def _chosen_batch(request, batches: list[Batch]) -> Batch | None:
    if "batch" not in request.GET:
        return selectors.default_batch(batches)
    wanted = _int_or_404(request.GET["batch"])
    for batch in batches:
        if batch.pk == wanted:
            return batch
    raise Http404(f"no batch with id {wanted}")


def posted_batch(request, fragment: str = FRAGMENT) -> tuple[Batch | None, object]:
    """The batch of a POST's ``batch`` field, or the 400 refusing the field (missing, not an id, given twice),
    which an HTMX request gets as ``fragment``; an id of no batch is a 404."""
    try:
        batch_id = required_id(request.POST, "batch")
    except QueryParamError as error:
        return None, bad_request(request, field_problem(error), fragment=fragment)
    batch = Batch.objects.filter(pk=batch_id).first()
    if batch is None:
        raise Http404(f"no batch with id {batch_id}")
    return batch, None


def _requested_job(request, key: str = "job", kind: str = AGREEMENT_REPORT) -> Job | None:
    if key not in request.GET:
        return None
    try:
        job_id = uuid.UUID(request.GET[key])
    except ValueError:
        raise Http404("not a job id") from None
    job = Job.objects.filter(pk=job_id, kind=kind).first()
    if job is None:
        raise Http404(f"no such {kind} job")
    return job


def _vary(response):
    patch_vary_headers(response, ("HX-Request",))  # one URL, two bodies: keep caches apart
    return response


def _reload_when_stored(response, job: Job):
    """Once the recompute has stored its report, the page reloads itself (HTMX's ``HX-Refresh``): the new report,
    its table and heat map replace the old ones and the stale-report banner goes, without a click."""
    if job.status == Job.Status.SUCCEEDED:
        response["HX-Refresh"] = "true"
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
        return _vary(_reload_when_stored(render(request, f"{PAGE}#recompute-followup", {"job": job}), job))
    llm_job = _requested_job(request, "llm_job", LLM_RATE)
    if fragment and llm_job is not None:  # the LLM card polling for the end of its run
        return _vary(render(request, f"{PAGE}#llm-followup", {"job": llm_job}))
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
            "accepted_flags": context["report"].report.get("accepted_flags") if context["report"] else None,
            "flags": selectors.open_flags(batch, request.user),
            "job": job or selectors.running_job(batch),
            "stale": selectors.ratings_changed_since(batch, context["report"]) if context["report"] else False,
            "recompute_n_boot": N_BOOT,  # what the button below asks for (the job's n_boot)
            "activity_url": reverse("annotation:activity", args=[batch.pk]),
            "llm": llm_card.llm_card(batch, context["report"]),
            "ci_method": ci_method.dashboard_ci_method(context["report"], batch) if context["report"] else None,
        }
        if llm_job is not None:
            context["llm"]["job"] = llm_job
    return _vary(render(request, PAGE, context))


@researcher_required
@require_POST
def recompute(request):
    batch, refusal = posted_batch(request, f"{PAGE}#recompute-error")
    if refusal:
        return refusal
    if not selectors.batch_has_ratings(batch):
        error = _("Batch %(name)s has no ratings yet, so there is nothing to compute.") % {"name": batch.name}
        if request.htmx:
            return render(request, f"{PAGE}#recompute-error", {"error": error})
        messages.error(request, error)
        return redirect(_dashboard_url(batch.pk))
    job = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": batch.pk, "n_boot": N_BOOT}, user=request.user)
    if request.htmx:
        job.refresh_from_db()  # a worker may have finished it already
        return _reload_when_stored(render(request, f"{PAGE}#recompute-job", {"job": job}), job)
    return redirect(_dashboard_url(batch.pk, job=job.pk))


# --- the LLM rater (issue 18): estimate first, then a run on a worker ----------------------------------------


def _llm_refusal(request, batch: Batch | None, error: str, status: int = 200):
    if request.htmx:
        return render(request, f"{PAGE}#llm-error", {"error": error}, status=status)
    messages.error(request, error)
    return redirect(_dashboard_url(batch.pk) if batch else reverse("annotation:dashboard"))


def _llm_request(request):
    """The batch and the form's model, budget and currency, or the response refusing them."""
    batch, refusal = posted_batch(request, f"{PAGE}#llm-error")
    if refusal:
        return batch, None, refusal
    if not gateway.configured():  # the page shows no form then; a stale page or a script may still post
        return batch, None, _llm_refusal(request, batch, _(UNAVAILABLE_OFFLINE), status=409)
    run, error = llm_card.parse_run_form(request.POST)
    if error:
        return batch, None, _llm_refusal(request, batch, error)
    return batch, run, None


@researcher_required
@require_POST
def llm_estimate(request):
    batch, run, refusal = _llm_request(request)
    if refusal:
        return refusal
    try:
        estimate = llm_rate_estimate(batch=batch, model=run.model)
    except LLMRaterUnavailable as error:
        return _llm_refusal(request, batch, _(str(error)), status=409)
    cost = estimate.estimate.cost_jpy if run.currency == "JPY" else estimate.estimate.cost_usd
    context = {
        "batch": batch,
        "run": run,
        "estimate": estimate,
        "cost": cost,
        "over_budget": run.budget is not None and cost > run.budget,
    }
    if request.htmx:
        return render(request, f"{PAGE}#llm-estimate", context)
    return render(request, "annotation/dashboard/llm_estimate_page.html", context)


@researcher_required
@require_POST
def llm_run(request):
    batch, run, refusal = _llm_request(request)
    if refusal:
        return refusal
    job = job_enqueue(kind=LLM_RATE, params={"batch_id": batch.pk, **run.params, "force": False}, user=request.user)
    if request.htmx:
        return render(request, f"{PAGE}#llm-job", {"job": job})
    return redirect(_dashboard_url(batch.pk, llm_job=job.pk))
