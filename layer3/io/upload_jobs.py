"""The job that imports a large uploaded trial log (``layer3.trials_upload``), and what an upload did in words.

Queued by the Layer3 upload page and by ``POST /api/experiment/batch/`` (202) for a file above
``LAYER3_UPLOAD_JOB_BYTES``. On a file with problems nothing is stored, the job fails, and its
``result`` keeps the located problems for the upload's job page and the API.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from core.job_display import register_job_display, register_job_messages
from core.job_runner import JobRefused
from core.jobs import job_handler
from core.models import Job
from core.services import job_enqueue
from core.uploads import NOTHING_KEPT, discard_on_end
from layer3.io.imports import TrialImportSummary
from layer3.io.uploads import (
    OPTION_NAMES,
    TRIALS_UPLOAD,
    UPLOAD_FOLDER,
    TrialsUpload,
    UploadRejected,
    trials_upload_discard,
    trials_upload_import,
)
from layer3.models import Batch


def trials_upload_enqueue(
    *, upload: TrialsUpload, batch_name: str, experiment_id: str | None, user, dry_run: bool = False,
    surface: str = "page",
) -> Job:  # fmt: skip
    """The job importing a kept upload in a worker; the kept files are discarded when it cannot be queued."""
    params = {**upload.job_params(), "batch_name": batch_name, "experiment_id": experiment_id, "dry_run": dry_run,
              "surface": surface}  # fmt: skip
    try:
        return job_enqueue(kind=TRIALS_UPLOAD, params=params, user=user)
    except BaseException:
        trials_upload_discard(upload)
        raise


@job_handler(TRIALS_UPLOAD, kept=NOTHING_KEPT, on_ended=discard_on_end(UPLOAD_FOLDER))
def trials_upload(job, progress) -> dict:
    """Params ``{"file" (below VAR_DIR), "name" (the user's file name), "lines", "catalogue_name" (or null),
    "batch_name", "experiment_id" (or null), "dry_run", "surface" ("page" or "api": how the problems name the
    batch name and experiment id)}``. The result: ``summary_counts`` with the batch's id, or the problems."""
    params = job.params
    upload = TrialsUpload.from_job(params)
    batch_name = str(params.get("batch_name") or "")
    experiment = params.get("experiment_id")
    surface = params.get("surface") if params.get("surface") in OPTION_NAMES else "page"
    base = {"batch_name": batch_name, "file": upload.name}
    try:
        progress(0, max(upload.lines, 1), f"checking and storing {upload.lines} lines of {upload.name}", force=True)
        try:
            summary = trials_upload_import(
                upload=upload, batch_name=batch_name, experiment_id=experiment if isinstance(experiment, str) else None,
                dry_run=params.get("dry_run") is True, surface=surface,
            )  # fmt: skip
        except UploadRejected as exc:
            # The runner saves this job object's result with the failure: the job's page lists the problems.
            job.result = {**base, "problems": exc.problems, "truncated": exc.truncated, "total": exc.total}
            raise JobRefused(f"{upload.name}: {exc.total} problem(s); nothing was stored") from None
        # No progress report after the import: it would check for a cancel request, and the trials are stored.
    finally:
        trials_upload_discard(upload)
    return {**base, **summary_counts(summary, batch_name=batch_name)}


def summary_counts(summary: TrialImportSummary, *, batch_name: str) -> dict:
    """What an import did, as a job keeps it and the pages tell it (``trials_summary_text``)."""
    batch = Batch.objects.filter(name=batch_name).only("pk").first()
    return {"batch_id": batch.pk if batch else None, "batch_name": batch_name, "created": summary.created,
            "unchanged": summary.unchanged, "dry_run": summary.dry_run,
            "widget_types_added": list(summary.widget_types_added), "recomputed": summary.recomputed}  # fmt: skip


def trials_summary_text(result: dict) -> str:
    """What an upload of trials did (or would do, in a dry run), in people's words."""
    values = {"created": f"{result.get('created', 0):,}", "unchanged": f"{result.get('unchanged', 0):,}",
              "name": result.get("batch_name", ""), "file": result.get("file") or ""}  # fmt: skip
    dry_run = bool(result.get("dry_run"))
    if dry_run:
        text = _(
            "Dry run of %(file)s, nothing was stored: %(created)s trials would be stored in batch %(name)s, "
            "%(unchanged)s are stored already."
        )
    elif result.get("created"):
        text = _("%(created)s trials stored in batch %(name)s; %(unchanged)s were stored already.")
    else:
        text = _("Nothing new for batch %(name)s: all %(unchanged)s trials were stored already.")
    text %= values
    added = [str(t) for t in result.get("widget_types_added") or []]
    if added:
        more = {"types": ", ".join(added), "n": f"{result.get('recomputed', 0):,}"}
        recomputed = bool(result.get("recomputed"))
        if dry_run and recomputed:
            sentence = _(
                "Widget types outside the catalogue that |W| (the denominator of widget diversity) would count: "
                "%(types)s; the widget diversity of %(n)s stored trials would change and be recomputed."
            )
        elif dry_run:
            sentence = _("Widget types outside the catalogue that |W| (the denominator of widget diversity) would "
                         "count: %(types)s.")  # fmt: skip
        elif recomputed:
            sentence = _(
                "Widget types outside the catalogue now counted in |W| (the denominator of widget diversity): "
                "%(types)s; the widget diversity of %(n)s stored trials changed and was recomputed."
            )
        else:
            sentence = _("Widget types outside the catalogue counted in |W| (the denominator of widget diversity): "
                         "%(types)s.")  # fmt: skip
        text = pgettext("two sentences", "%(first)s %(second)s") % {"first": text, "second": sentence % more}
    return text


def _job_summary(result: dict) -> tuple[str, str | None]:
    url = reverse("layer3:batch", args=[result["batch_id"]]) if result.get("batch_id") else None
    return trials_summary_text(result), url


register_job_display(TRIALS_UPLOAD, gettext_lazy("Trial-log upload"), _job_summary)
register_job_messages(
    (
        r"checking and storing (?P<n>\d+) lines of (?P<file>.+)",
        gettext_lazy("Checking and storing %(n)s lines of %(file)s…"),
    ),
)
