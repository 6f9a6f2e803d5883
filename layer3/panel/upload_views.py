"""The Layer3 upload page: a trial log from the browser, into a new or existing batch. Researchers only.

A small file is imported while the browser waits (the batch page opens with a summary, or this page lists
every problem located; nothing is stored then). A dry run shows what would be stored. A file above
``LAYER3_UPLOAD_JOB_BYTES`` is imported by a worker (``layer3.io.upload_jobs``): the upload's job page
follows its progress, then links to the batch or lists the problems.
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods

from core.jsonl import MAX_PROBLEMS
from core.models import Job
from core.permissions import researcher_required
from layer3.io.upload_jobs import TRIALS_UPLOAD, summary_counts, trials_summary_text, trials_upload_enqueue
from layer3.io.uploads import (
    UploadRejected,
    job_threshold,
    trials_upload_discard,
    trials_upload_import,
    trials_upload_keep,
)
from layer3.panel.upload_form import TrialsUploadForm

PAGE = "layer3/panel/upload.html"
JOB_PAGE = "layer3/panel/upload_job.html"


def _limits() -> dict:
    return {"job_bytes": job_threshold(), "max_problems": MAX_PROBLEMS}


@researcher_required
@require_http_methods(["GET", "POST"])
def upload(request):
    problems = dry_run = None
    if request.method == "POST":
        form = TrialsUploadForm(request.POST, request.FILES)
        if form.is_valid():
            response, problems, dry_run = _take(request, form)
            if response is not None:
                return response
    else:
        form = TrialsUploadForm()
    status = 413 if form.too_large else 400 if problems or form.errors else 200
    context = {"form": form, "problems": problems, "dry_run": dry_run, **_limits()}
    return render(request, PAGE, context, status=status)


def _take(request, form: TrialsUploadForm):
    """(a redirect, None, None) when stored or queued; (None, problems, None) when refused (nothing stored);
    (None, None, the dry run's outcome) for a dry run of a small file."""
    data = form.cleaned_data
    options = {"batch_name": data["name"], "experiment_id": data["experiment_id"] or None, "dry_run": data["dry_run"]}
    upload = trials_upload_keep(data["file"], catalogue=data["widget_catalogue"])
    if upload.is_large:
        job = trials_upload_enqueue(upload=upload, user=request.user, surface="page", **options)
        return redirect(reverse("layer3:upload-job", args=[job.pk])), None, None
    try:
        summary = trials_upload_import(upload=upload, surface="page", **options)
    except UploadRejected as exc:
        return None, {"rows": exc.problems, "truncated": exc.truncated, "total": exc.total, "file": upload.name}, None
    finally:
        trials_upload_discard(upload)
    result = {"file": upload.name, **summary_counts(summary, batch_name=data["name"])}
    if summary.dry_run:
        return None, None, {"text": trials_summary_text(result), "result": result}
    (messages.success if summary.created else messages.info)(request, trials_summary_text(result))
    return redirect(reverse("layer3:batch", args=[result["batch_id"]])), None, None


@researcher_required
@require_GET
def upload_job(request, job_id):
    """An upload's job: its progress (the jobs' own partial), then the batch's link or the located problems."""
    job = get_object_or_404(Job.objects.select_related("created_by"), pk=job_id, kind=TRIALS_UPLOAD)
    context = {"job": job, **_limits()}
    if request.htmx and not request.htmx.history_restore_request:
        response = render(request, f"{JOB_PAGE}#upload-followup", context)
    else:
        response = render(request, JOB_PAGE, context)
    patch_vary_headers(response, ("HX-Request",))
    return response
