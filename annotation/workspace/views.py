"""Researchers' batch workspace: the batch list, a new batch from a file, the batch page (with more
dialogues and the progress of a large upload) and the batch's settings. Researchers only."""

from __future__ import annotations

import uuid
from urllib.parse import urlencode

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from annotation.collection.progress import quota_shortfall
from annotation.io.rating_uploads import UploadRejected as RatingsRejected
from annotation.io.rating_uploads import (
    ratings_file_keep,
    ratings_summary_text,
    ratings_upload_discard,
    ratings_upload_enqueue,
    ratings_upload_import,
    summary_counts,
)
from annotation.io.records import MAX_PROBLEMS
from annotation.models import Batch
from annotation.workspace import selectors
from annotation.workspace.forms import BatchCreateForm, BatchSettingsForm, DialogueAddForm, RatingsUploadForm
from annotation.workspace.status import STATUS_HELP, STATUS_LABELS
from annotation.workspace.upload_jobs import dialogues_upload_enqueue
from annotation.workspace.uploads import (
    LARGE_UPLOAD_BYTES,
    LARGE_UPLOAD_LINES,
    UploadRejected,
    dialogues_upload_import,
    import_summary_text,
    upload_discard,
    upload_save,
)
from core.permissions import researcher_required

BATCH_PAGE = "annotation/workspace/batch.html"
RATINGS_PREFIX = "ratings"  # the ratings form's fields beside the dialogues form's: ratings-file, ratings-update


def _batch_url(batch: Batch, **params) -> str:
    url = reverse("annotation:batch", args=[batch.pk])
    return f"{url}?{urlencode(params)}" if params else url


def _limits() -> dict:
    return {
        "large_mb": LARGE_UPLOAD_BYTES // (1024 * 1024),
        "large_lines": f"{LARGE_UPLOAD_LINES:,}",
        "max_problems": MAX_PROBLEMS,
    }


def _status(form, problems) -> int:
    """413 for a file over its limit (refused before it was read), 400 for a file's problems, else 200."""
    if form.is_bound and form.has_error("file", "too_large"):
        return 413
    return 400 if problems else 200


def _take_upload(
    request, *, uploaded, batch: Batch | None, new_batch: dict | None, batch_name: str, options: dict | None = None
):
    """Store an uploaded file's dialogues: a redirect when stored or queued, else the problems (nothing stored).

    A large file goes to a worker: its batch (a new one with its settings) exists at once, empty until
    the job has stored the dialogues, and the batch page follows the job.
    """
    options = options or {}
    upload = upload_save(uploaded)
    if upload.is_large:
        try:
            with transaction.atomic():
                if batch is None:
                    batch = Batch.objects.create(name=batch_name, **new_batch)
                job = dialogues_upload_enqueue(upload=upload, batch=batch, user=request.user, **options)
        except BaseException:
            upload_discard(upload.path)
            raise
        messages.info(
            request,
            _("%(file)s (%(lines)s lines) is being imported by a worker; its progress is shown below.")
            % {"file": upload.name, "lines": f"{upload.lines:,}"},
        )
        return redirect(_batch_url(batch, job=job.pk)), None
    try:
        summary = dialogues_upload_import(upload=upload, batch_name=batch_name, new_batch=new_batch, **options)
    except UploadRejected as exc:
        return None, {"rows": exc.problems, "truncated": exc.truncated, "file": upload.name}
    finally:
        upload_discard(upload.path)
    batch = batch or Batch.objects.get(name=batch_name)
    counts = {"created": summary.created, "updated": summary.updated, "unchanged": summary.unchanged}
    text = import_summary_text(**counts, batch_name=batch.name, ignored_keys=summary.ignored_keys)
    (messages.success if summary.created else messages.warning)(request, text)
    return redirect(_batch_url(batch)), None


@researcher_required
@require_GET
def batch_list(request):
    return render(request, "annotation/workspace/batches.html", {"rows": selectors.batch_rows()})


@researcher_required
@require_http_methods(["GET", "POST"])
def batch_create(request):
    problems = None
    if request.method == "POST":
        form = BatchCreateForm(request.POST, request.FILES)
        if form.is_valid():
            response, problems = _take_upload(
                request,
                uploaded=form.cleaned_data["file"],
                batch=None,
                new_batch=form.batch_settings(),
                batch_name=form.cleaned_data["name"],
                options={name: form.cleaned_data[name] for name in BatchCreateForm.OPTIONS},
            )
            if response is not None:
                return response
    else:
        form = BatchCreateForm()
    context = {"form": form, "problems": problems, **_limits()}
    return render(request, "annotation/workspace/batch_create.html", context, status=_status(form, problems))


def _requested_job_id(request):
    if "job" not in request.GET:
        return None
    try:
        return uuid.UUID(request.GET["job"])
    except ValueError:
        raise Http404("not a job id") from None


def _vary(response):
    patch_vary_headers(response, ("HX-Request",))
    return response


@researcher_required
@require_http_methods(["GET", "POST"])
def batch_detail(request, pk: int):
    """The batch page; a POST adds the dialogues of an uploaded file to the batch."""
    batch = get_object_or_404(Batch, pk=pk)
    job_id = _requested_job_id(request)
    job = selectors.upload_job(batch, job_id)
    if job_id is not None and job is None:
        raise Http404("no such upload job for this batch")
    if request.htmx and not request.htmx.history_restore_request and job_id is not None:
        # The upload panel polling its job: the problems when it failed; a whole-page refresh
        # (new counts) once it succeeded.
        response = render(request, f"{BATCH_PAGE}#upload-followup", {"batch": batch, "job": job, **_limits()})
        if job.status == job.Status.SUCCEEDED:
            response["HX-Refresh"] = "true"
        return _vary(response)
    problems = None
    form = DialogueAddForm()
    if request.method == "POST":
        form = DialogueAddForm(request.POST, request.FILES)
        if form.is_valid():
            options = {name: form.cleaned_data[name] for name in DialogueAddForm.OPTIONS}
            response, problems = _take_upload(
                request, uploaded=form.cleaned_data["file"], batch=batch, new_batch=None, batch_name=batch.name,
                options=options,
            )  # fmt: skip
            if response is not None:
                return response
    return _batch_page(request, batch, job=job, form=form, problems=problems, status=_status(form, problems))


def _batch_page(request, batch: Batch, *, job=None, form=None, problems=None, ratings_form=None,
                ratings_problems=None, status: int = 200):  # fmt: skip
    context = {
        "batch": batch,
        "counts": selectors.batch_counts(batch),
        "report": selectors.latest_report(batch),
        "job": job,
        "form": form or DialogueAddForm(),
        "problems": problems,
        "ratings_form": ratings_form or RatingsUploadForm(prefix=RATINGS_PREFIX),
        "ratings_problems": ratings_problems,
        "status_help": STATUS_HELP[batch.status],
        "status_label": STATUS_LABELS[batch.status],
        "shortfall": _stored_shortfall(batch),
        **_limits(),
    }
    return _vary(render(request, BATCH_PAGE, context, status=status))


@researcher_required
@require_http_methods(["GET", "POST"])
def batch_ratings_upload(request, pk: int):
    """The batch page's "Upload ratings": the import of ``manage.py import_annotations``, restricted to this batch.

    A small file is imported at once (the batch page with a summary, or with every problem located); a large
    one by a worker, whose progress the batch page shows. A refused file leaves this address in the address
    bar: a GET of it (a reload, a shared link) goes to the batch page's upload form.
    """
    batch = get_object_or_404(Batch, pk=pk)
    if request.method == "GET":
        return redirect(f"{_batch_url(batch)}#ratings-upload")
    form = RatingsUploadForm(request.POST, request.FILES, prefix=RATINGS_PREFIX)
    if not form.is_valid():
        page = {"job": selectors.upload_job(batch), "ratings_form": form}
        return _batch_page(request, batch, **page, status=_status(form, None))
    options = {"batch": batch, "user": request.user, "dry_run": form.cleaned_data["dry_run"],
               "update": form.cleaned_data["update"], "surface": "page", "rules": form.rule_options()}  # fmt: skip
    upload = ratings_file_keep(form.cleaned_data["file"])
    if upload.is_large:
        job = ratings_upload_enqueue(upload=upload, **options)
        messages.info(
            request,
            _("%(file)s (%(lines)s lines) is being imported by a worker; its progress is shown below.")
            % {"file": upload.name, "lines": f"{upload.lines:,}"},
        )
        return redirect(_batch_url(batch, job=job.pk))
    try:
        summary = ratings_upload_import(upload=upload, **options)
    except RatingsRejected as exc:
        problems = {"rows": exc.problems, "truncated": exc.truncated, "file": upload.name}
        page = {"job": selectors.upload_job(batch), "ratings_form": form, "ratings_problems": problems}
        return _batch_page(request, batch, **page, status=400)
    finally:
        ratings_upload_discard(upload)
    text = ratings_summary_text({"file": upload.name, **summary_counts(summary)})
    stored = summary.created or summary.updated
    (messages.success if stored and not summary.dry_run else messages.info)(request, text)
    return redirect(_batch_url(batch))


def _stored_shortfall(batch: Batch) -> tuple[int, int] | None:
    """(quota, chosen) when the stored settings can never complete the batch (saved with "Save anyway")."""
    chosen = list(batch.annotators.values_list("pk", flat=True)) if batch.restricted else []
    return quota_shortfall(restricted=batch.restricted, quota=batch.annotations_per_item, chosen=chosen)


@researcher_required
@require_http_methods(["GET", "POST"])
def batch_settings(request, pk: int):
    batch = get_object_or_404(Batch, pk=pk)
    if request.method == "POST":
        form = BatchSettingsForm(request.POST, instance=batch)
        if form.is_valid():
            form.save()
            messages.success(request, _("The settings of batch %(name)s were saved.") % {"name": batch.name})
            return redirect(_batch_url(batch))
    else:
        form = BatchSettingsForm(instance=batch)
    status_choices = [{"widget": widget, "help": STATUS_HELP[widget.data["value"]]} for widget in form["status"]]
    context = {"batch": batch, "form": form, "status_choices": status_choices, "shortfall": _stored_shortfall(batch)}
    return render(request, "annotation/workspace/settings.html", context)
