"""The job that checks and stores a large uploaded rating sheet (``annotation.sheet_upload``).

Queued by the spreadsheet pages (``sheet_upload_enqueue``), which follow it. On a sheet with
problems nothing is stored, the job fails, and its ``result`` keeps the problems (sheet, row,
column, header, value, English message, and the template and parameters it was filled from) for
the page's table, which shows them in the language of whoever looks at it. Such a refused sheet is the
user's to mend: the worker logs it as one warning line (``JobRefused``), not as an error.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils.translation import gettext_lazy

from annotation.io.rating_uploads import RuleOptions
from annotation.models import Batch
from annotation.spreadsheets.imports import SheetRejected
from annotation.spreadsheets.uploads import (
    ANNOTATOR_PAGE,
    RESEARCHER_PAGE,
    UPLOAD_FOLDER,
    SavedSheet,
    problem_rows,
    sheet_summary_text,
    sheet_upload_discard,
    sheet_upload_import,
    summary_overrides,
)
from core.job_display import register_job_display, register_job_messages
from core.job_runner import JobRefused
from core.jobs import job_handler
from core.models import Job
from core.services import job_enqueue
from core.uploads import discard_on_end, kept_path

SHEET_UPLOAD = "annotation.sheet_upload"


def sheet_upload_enqueue(
    *, upload: SavedSheet, batch: Batch, user, annotator=None, dry_run: bool = False, page: str = ANNOTATOR_PAGE,
    rules: RuleOptions | None = None,
) -> Job:  # fmt: skip
    """Queue the check (and, unless ``dry_run``, the storing) of a kept sheet; ``user`` is who uploaded it, and
    ``rules`` the overrides a researcher chose (the page follows the job: ``page``)."""
    if page not in (ANNOTATOR_PAGE, RESEARCHER_PAGE):
        raise ValueError(f"page must be {ANNOTATOR_PAGE!r} or {RESEARCHER_PAGE!r}; got {page!r}")
    if rules is not None and page != RESEARCHER_PAGE:
        raise ValueError("only a researcher's upload overrides the batch's rules")
    params = {"batch_id": batch.pk, "file": upload.relative_path, "name": upload.name, "rows": upload.rows,
              "annotator_id": annotator.pk if annotator is not None else None, "dry_run": dry_run,
              "page": page, **(rules.params() if rules is not None else {})}  # fmt: skip
    return job_enqueue(kind=SHEET_UPLOAD, params=params, user=user)


def _kept_upload(params: dict) -> SavedSheet:
    path = kept_path(params.get("file", ""), folder=UPLOAD_FOLDER)
    rows = int(params.get("rows") or 0)
    return SavedSheet(path=path, name=str(params.get("name") or path.name), size=path.stat().st_size, rows=rows)


@job_handler(
    SHEET_UPLOAD,
    kept=gettext_lazy("Nothing of the sheet was stored: a sheet stores all of its rows or none. Upload it again."),
    on_ended=discard_on_end(UPLOAD_FOLDER),
)
def sheet_upload(job, progress) -> dict:
    """Params ``{"batch_id", "file" (below VAR_DIR), "name" (the user's file name), "rows", "annotator_id"
    (or null: the workbook names its annotator), "dry_run", "page" ("annotator" or "researcher")}``, and on the
    researchers' page the overrides (``RuleOptions``: "allow_over_quota", "allow_unqualified_annotators",
    "reason"), recorded as the job's creator's with the job's id."""
    params = job.params
    batch = Batch.objects.filter(pk=params.get("batch_id")).first()
    if batch is None:
        raise ValueError(f"params.batch_id: no batch with id {params.get('batch_id')!r} (deleted?)")
    annotator = None
    if params.get("annotator_id") is not None:
        annotator = get_user_model().objects.filter(pk=params["annotator_id"]).first()
        if annotator is None:
            raise ValueError(f"params.annotator_id: no user with id {params['annotator_id']!r} (deleted?)")
    upload = _kept_upload(params)
    page = params.get("page") if params.get("page") == RESEARCHER_PAGE else ANNOTATOR_PAGE
    dry_run = params.get("dry_run") is True
    try:
        progress(0, max(upload.rows, 1), f"checking {'' if dry_run else 'and storing '}{upload.name}", force=True)
        try:
            summary = sheet_upload_import(
                upload=upload, batch=batch, annotator=annotator, dry_run=dry_run, page=page, user=job.created_by,
                rules=RuleOptions.from_params(params) if page == RESEARCHER_PAGE else None, job_id=job.pk,
            )  # fmt: skip
        except SheetRejected as exc:
            # The runner saves this job object's result with the failure: the page lists the problems.
            job.result = {"batch_id": batch.pk, "file": upload.name, "page": page,
                          "problems": problem_rows(exc.problems)}  # fmt: skip
            raise JobRefused(f"{upload.name}: {len(exc.problems)} problem(s); nothing was stored") from None
        # No progress report after the import: it would check for a cancel request, and the ratings are stored.
    finally:
        sheet_upload_discard(upload.path)
    return {
        "batch_id": batch.pk,
        "batch_name": batch.name,
        "file": upload.name,
        "page": page,
        "annotator": summary.annotator,
        "created": summary.created,
        "updated": summary.updated,
        "unchanged": summary.unchanged,
        "skipped": summary.skipped,
        "comments": summary.comments,
        "dry_run": summary.dry_run,
        **summary_overrides(summary),
    }


def _upload_summary(result: dict) -> tuple[str, str | None]:
    counts = {key: int(result.get(key, 0)) for key in ("created", "updated", "unchanged", "skipped", "comments")}
    text = sheet_summary_text(**counts, dry_run=result.get("dry_run") is True, overridden=result.get("overridden"),
                              override=result.get("override"))  # fmt: skip
    name = "annotation:batch" if result.get("page") == RESEARCHER_PAGE else "annotation:sheet"
    return text, reverse(name, args=[result["batch_id"]])


register_job_display(SHEET_UPLOAD, gettext_lazy("Spreadsheet upload"), _upload_summary)


register_job_messages(
    (r"checking and storing (?!\d+ lines of )(?P<file>.+)", gettext_lazy("Checking and storing %(file)s…")),
    (r"checking (?!and storing )(?P<file>.+)", gettext_lazy("Checking %(file)s…")),
)
