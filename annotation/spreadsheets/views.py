"""The rating sheet in the browser: an annotator's own template and upload (under /annotate/), any annotator's
for researchers (under /research/batches/). A small sheet is stored while the browser waits; a large one
by a job that the page follows. Either way a sheet with a problem stores nothing and lists them all."""

from __future__ import annotations

import io
import re
import uuid

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from annotation.collection.queue import batch_open_to, batches_visible_to
from annotation.collection.training import qualification_required
from annotation.models import Batch
from annotation.spreadsheets.forms import BatchSheetUploadForm, SheetUploadForm, TemplateForm
from annotation.spreadsheets.imports import SheetRejected
from annotation.spreadsheets.layout import GUIDE_SHEET
from annotation.spreadsheets.services import template_write
from annotation.spreadsheets.upload_jobs import SHEET_UPLOAD, sheet_upload_enqueue
from annotation.spreadsheets.uploads import (
    ANNOTATOR_PAGE,
    RESEARCHER_PAGE,
    problem_rows,
    sheet_summary_text,
    sheet_upload_discard,
    sheet_upload_import,
    sheet_upload_save,
    summary_overrides,
    upload_limits,
)
from core.models import Job
from core.permissions import annotator_required, researcher_required

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
ANNOTATOR_TEMPLATE = "annotation/spreadsheets/annotator.html"
BATCH_TEMPLATE = "annotation/spreadsheets/batch.html"
FOLLOWUP_TEMPLATE = "annotation/spreadsheets/_followup.html"
_UNSAFE_IN_FILE_NAMES = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]')


def _template_response(request, batch: Batch, annotator, *, page_url: str) -> HttpResponse:
    """``annotator``'s sheet of ``batch`` as an attachment named "<batch>-<username>.xlsx"; back to ``page_url``
    with the reason when a text of the batch cannot be written into a cell."""
    buffer = io.BytesIO()
    try:
        template_write(buffer, batch=batch, annotator=annotator)
    except ValueError as exc:
        messages.error(request, _("The sheet could not be made: %(reason)s") % {"reason": exc})
        return redirect(page_url)
    response = HttpResponse(buffer.getvalue(), content_type=XLSX)
    name = _UNSAFE_IN_FILE_NAMES.sub("_", f"{batch.name}-{annotator.get_username()}")[:150]
    response["Content-Disposition"] = content_disposition_header(True, f"{name}.xlsx")
    patch_cache_control(response, private=True, no_store=True)  # it holds the annotator's ratings
    return response


def _followed_job(request, batch: Batch, *, owner=None) -> Job | None:
    """The sheet upload job named by ``?job=`` (of this batch, and ``owner``'s when given), or None without one."""
    if "job" not in request.GET:
        return None
    try:
        job_id = uuid.UUID(request.GET["job"])
    except ValueError:
        raise Http404("not a job id") from None
    jobs = Job.objects.filter(pk=job_id, kind=SHEET_UPLOAD, params__batch_id=batch.pk)
    if owner is not None:
        jobs = jobs.filter(created_by=owner)
    job = jobs.first()
    if job is None:
        raise Http404("no such sheet upload for this batch")
    return job


def _polled(request, job: Job | None) -> bool:
    return job is not None and bool(request.htmx) and not request.htmx.history_restore_request


def _vary(response):
    patch_vary_headers(response, ("HX-Request",))
    return response


def _take_sheet(request, form, *, batch: Batch, annotator, page: str, done_url: str, follow_url: str):
    """Store an uploaded sheet: a redirect when stored, checked or queued, else the problems (nothing stored).
    On the researchers' page the form's overrides of the batch's rules go with it."""
    dry_run = form.cleaned_data["dry_run"]
    rules = form.rule_options() if page == RESEARCHER_PAGE else None
    upload = sheet_upload_save(form.cleaned_data["file"])
    if upload.is_large:
        try:
            with transaction.atomic():
                job = sheet_upload_enqueue(upload=upload, batch=batch, user=request.user, annotator=annotator,
                                           dry_run=dry_run, page=page, rules=rules)  # fmt: skip
        except BaseException:
            sheet_upload_discard(upload.path)
            raise
        messages.info(
            request,
            _("%(file)s (about %(rows)s rows) is being checked by a worker; its progress is shown below.")
            % {"file": upload.name, "rows": f"{upload.rows:,}"},
        )
        return redirect(f"{follow_url}?job={job.pk}"), None
    try:
        summary = sheet_upload_import(upload=upload, batch=batch, annotator=annotator, dry_run=dry_run, page=page,
                                      user=request.user, rules=rules)  # fmt: skip
    except SheetRejected as exc:
        return None, {"rows": problem_rows(exc.problems), "file": upload.name}
    finally:
        sheet_upload_discard(upload.path)
    text = sheet_summary_text(
        created=summary.created, updated=summary.updated, unchanged=summary.unchanged, skipped=summary.skipped,
        comments=summary.comments, dry_run=summary.dry_run, **summary_overrides(summary),
    )  # fmt: skip
    if page == RESEARCHER_PAGE:
        text = _("Sheet of %(annotator)s: %(summary)s") % {"annotator": summary.annotator, "summary": text}
    stored = (summary.created or summary.updated) and not summary.dry_run
    (messages.success if stored else messages.info)(request, text)
    return redirect(done_url), None


# ---------------------------------------------------------------------------------------------- annotators


def _visible_batch(user, batch_id: int) -> Batch:
    """A batch the annotator's list shows (not closed; open to everyone or chosen for them), else 404."""
    batch = batches_visible_to(user).filter(pk=batch_id).first()
    if batch is None:
        raise Http404("no such batch for you")
    return batch


@annotator_required
@qualification_required
@require_GET
def annotator_template(request, batch_id: int):
    """The logged-in annotator's own sheet of the batch."""
    batch = _visible_batch(request.user, batch_id)
    return _template_response(request, batch, request.user, page_url=reverse("annotation:sheet", args=[batch.pk]))


@annotator_required
@qualification_required
@require_http_methods(["GET", "POST"])
def annotator_sheet(request, batch_id: int):
    """The page "Rate in a spreadsheet": the download, how to fill it in, and the upload of the filled sheet."""
    batch = _visible_batch(request.user, batch_id)
    page_url = reverse("annotation:sheet", args=[batch.pk])
    job = _followed_job(request, batch, owner=request.user)
    if _polled(request, job):
        return _vary(render(request, FOLLOWUP_TEMPLATE, {"job": job, "follow_url": page_url}))
    form, problems = SheetUploadForm(), None
    if request.method == "POST":
        form = SheetUploadForm(request.POST, request.FILES)
        if form.is_valid():
            response, problems = _take_sheet(
                request, form, batch=batch, annotator=request.user, page=ANNOTATOR_PAGE, done_url=page_url,
                follow_url=page_url,
            )  # fmt: skip
            if response is not None:
                return response
    context = {
        "batch": batch,
        "form": form,
        "problems": problems,
        "job": job,
        "follow_url": page_url,
        "open_to_me": batch_open_to(batch=batch, annotator=request.user),
        "guide_sheet": GUIDE_SHEET,
        **upload_limits(),
    }
    status = 400 if request.method == "POST" else 200  # a POST only gets here with problems or form errors
    return _vary(render(request, ANNOTATOR_TEMPLATE, context, status=status))


# ---------------------------------------------------------------------------------------------- researchers


def _batch_page(request, batch: Batch, *, template_form=None, upload_form=None, problems=None, job=None, status=200):
    context = {
        "batch": batch,
        "template_form": template_form or TemplateForm(batch=batch),
        "upload_form": upload_form or BatchSheetUploadForm(batch=batch),
        "problems": problems,
        "job": job,
        "follow_url": reverse("annotation:batch-sheet", args=[batch.pk]),
        **upload_limits(),
    }
    return _vary(render(request, BATCH_TEMPLATE, context, status=status))


@researcher_required
@require_GET
def batch_template(request, pk: int):
    """Any annotator's sheet of the batch (``?annotator=<user id>``); the batch's sheet page when refused."""
    batch = get_object_or_404(Batch, pk=pk)
    form = TemplateForm(request.GET, batch=batch)
    if batch.status != Batch.Status.CLOSED and form.is_valid():
        page_url = reverse("annotation:batch-sheet", args=[batch.pk])
        return _template_response(request, batch, form.cleaned_data["annotator"], page_url=page_url)
    return _batch_page(request, batch, template_form=form, status=400)


@researcher_required
@require_http_methods(["GET", "POST"])
def batch_sheet(request, pk: int):
    """The batch's spreadsheets: anyone's template, and the upload of anyone's filled sheet."""
    batch = get_object_or_404(Batch, pk=pk)
    page_url = reverse("annotation:batch-sheet", args=[batch.pk])
    job = _followed_job(request, batch)
    if _polled(request, job):
        return _vary(render(request, FOLLOWUP_TEMPLATE, {"job": job, "follow_url": page_url}))
    if request.method != "POST":
        return _batch_page(request, batch, job=job)
    form = BatchSheetUploadForm(request.POST, request.FILES, batch=batch)
    problems = None
    if form.is_valid():
        response, problems = _take_sheet(
            request, form, batch=batch, annotator=form.cleaned_data["annotator"], page=RESEARCHER_PAGE,
            done_url=reverse("annotation:batch", args=[batch.pk]), follow_url=page_url,
        )  # fmt: skip
        if response is not None:
            return response
    return _batch_page(request, batch, upload_form=form, problems=problems, status=400)
