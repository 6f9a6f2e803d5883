"""The job that imports a large uploaded dialogue file into its batch (``annotation.dialogues_upload``).

Queued by the workspace's upload views (``dialogues_upload_enqueue``); the batch page polls it. On
a file with problems nothing is stored, the job fails, and its ``result`` keeps the problems (file,
line, JSON path, message) for the batch page's table.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext_lazy

from annotation.io.imports import MAX_IGNORED_KEYS
from annotation.models import Batch
from annotation.workspace.uploads import (
    UPLOAD_FOLDER,
    SavedUpload,
    UploadRejected,
    dialogues_upload_import,
    import_summary_text,
    upload_discard,
)
from core.job_display import register_job_display, register_job_messages
from core.job_runner import JobRefused
from core.jobs import job_handler
from core.models import Job
from core.services import job_enqueue
from core.uploads import NOTHING_KEPT, discard_on_end

DIALOGUES_UPLOAD = "annotation.dialogues_upload"


OPTIONS = ("update", "force_text_change", "ignore_unknown_keys")


def dialogues_upload_enqueue(
    *,
    upload: SavedUpload,
    batch: Batch,
    user,
    update: bool = False,
    force_text_change: bool = False,
    ignore_unknown_keys: bool = False,
) -> Job:
    params = {"batch_id": batch.pk, **upload.job_params(), "update": update, "force_text_change": force_text_change,
              "ignore_unknown_keys": ignore_unknown_keys}  # fmt: skip
    return job_enqueue(kind=DIALOGUES_UPLOAD, params=params, user=user)


@job_handler(
    DIALOGUES_UPLOAD,
    kept=NOTHING_KEPT,
    on_ended=discard_on_end(UPLOAD_FOLDER),
)
def dialogues_upload(job, progress) -> dict:
    """Params ``{"batch_id", "file" (below VAR_DIR), "name" (the user's file name), "lines", "update",
    "force_text_change", "ignore_unknown_keys"}`` (the last three as the batch page's options; false when
    absent). The result lists the unknown fields left out (``ignored_keys``: the most frequent, with counts)."""
    batch = Batch.objects.filter(pk=job.params.get("batch_id")).first()
    if batch is None:
        raise ValueError(f"params.batch_id: no batch with id {job.params.get('batch_id')!r} (deleted?)")
    upload = SavedUpload.from_job(job.params, folder=UPLOAD_FOLDER)
    try:
        total = max(upload.lines, 1)
        progress(0, total, f"checking and storing {upload.lines} lines of {upload.name}", force=True)
        try:
            options = {name: job.params.get(name) is True for name in OPTIONS}
            summary = dialogues_upload_import(upload=upload, batch_name=batch.name, **options)
        except UploadRejected as exc:
            # The runner saves this job object's result with the failure: the batch page lists the problems.
            job.result = {"batch_id": batch.pk, "file": upload.name, "problems": exc.problems,
                          "truncated": exc.truncated}  # fmt: skip
            raise JobRefused(f"{upload.name}: {len(exc.problems)} problem(s); nothing was stored") from None
        # No progress report after the import: it would check for a cancel request, and the dialogues are stored.
    finally:
        upload_discard(upload.path)
    return {
        "batch_id": batch.pk,
        "batch_name": batch.name,
        "file": upload.name,
        "created": summary.created,
        "updated": summary.updated,
        "unchanged": summary.unchanged,
        "ignored_keys": dict(list(summary.ignored_keys.items())[:MAX_IGNORED_KEYS]),
    }


def _upload_summary(result: dict) -> tuple[str, str | None]:
    counts = {key: result.get(key, 0) for key in ("created", "updated", "unchanged")}
    ignored = result.get("ignored_keys") if isinstance(result.get("ignored_keys"), dict) else None
    text = import_summary_text(**counts, batch_name=result["batch_name"], ignored_keys=ignored)
    return text, reverse("annotation:batch", args=[result["batch_id"]])


register_job_display(DIALOGUES_UPLOAD, gettext_lazy("Dialogue upload"), _upload_summary)


register_job_messages(
    (
        r"checking and storing (?P<n>\d+) lines of (?P<file>.+)",
        gettext_lazy("Checking and storing %(n)s lines of %(file)s…"),
    ),
)
