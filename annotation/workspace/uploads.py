"""Dialogue files uploaded in the browser: kept under VAR_DIR, then imported in the request or by a job.

A small file is imported while the browser waits; a large one (``is_large``) by a worker
(``annotation.workspace.upload_jobs``). Either way the import is the ``import_dialogues`` one: every
line is checked first and any problem stores nothing. The problems name the file as the user
uploaded it, not the path it was kept under.
"""

from __future__ import annotations

from pathlib import Path

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext

from annotation.io.imports import ImportSummary, dialogues_import, ignored_keys_text
from annotation.io.records import InputError, Problem
from annotation.models import Batch
from core.problem_text import problem_row
from core.uploads import TextUpload, upload_keep
from core.uploads import upload_discard as kept_discard

# Above either limit an upload is imported by a worker, with progress on the batch page.
LARGE_UPLOAD_BYTES = 2 * 1024 * 1024
LARGE_UPLOAD_LINES = 5_000
UPLOAD_FOLDER = Path("uploads") / "dialogues"  # under VAR_DIR
# The problems' hints name the import's options as the batch page offers them (msgids).
OPTION_NAMES = {
    "update": gettext_noop("the option “Replace dialogues whose text changed”"),
    "force_text_change": gettext_noop("the option “… even those already rated”"),
    "ignore_unknown_keys": gettext_noop("the option “Ignore unknown fields”"),
}


class SavedUpload(TextUpload):
    """A kept dialogue file."""

    @property
    def is_large(self) -> bool:
        return self.size > LARGE_UPLOAD_BYTES or self.lines > LARGE_UPLOAD_LINES


class UploadRejected(Exception):
    """An upload that stored nothing; ``problems`` are rows for the problems table."""

    def __init__(self, problems: list[dict], *, truncated: bool = False) -> None:
        self.problems = problems
        self.truncated = truncated
        super().__init__(f"{len(problems)} problem(s); nothing was stored")


def upload_save(uploaded) -> SavedUpload:
    """Copy an uploaded file to a folder of its own under VAR_DIR, counting its bytes and lines."""
    kept = upload_keep(uploaded, folder=UPLOAD_FOLDER, default_name="dialogues.jsonl")
    return SavedUpload.of(kept)


def upload_discard(path: Path) -> None:
    """Remove a kept upload and its folder (only ever a folder under VAR_DIR/uploads/dialogues)."""
    kept_discard(path, folder=UPLOAD_FOLDER)


def problem_rows(problems: list[Problem], *, upload: SavedUpload) -> list[dict]:
    """Rows of the problems table: file (as the user named it), line, JSON path and message."""
    return [problem_row(p, names={str(upload.path): upload.name}) for p in problems]


def dialogues_upload_import(
    *,
    upload: SavedUpload,
    batch_name: str,
    new_batch: dict | None = None,
    update: bool = False,
    force_text_change: bool = False,
    ignore_unknown_keys: bool = False,
) -> ImportSummary:
    """Import an uploaded file into ``batch_name``; with ``new_batch`` (the batch's settings) create the batch.

    One transaction: a new batch exists only if its dialogues were stored. A new batch with no new
    dialogue (every one of them is stored already) is refused rather than left empty. ``update``,
    ``force_text_change`` and ``ignore_unknown_keys`` are the import's options (replace changed dialogues,
    even rated ones; leave out keys beyond the format's fields instead of refusing their lines).
    """
    options = {"update": update, "force_text_change": force_text_change, "option_names": OPTION_NAMES,
               "ignore_unknown_keys": ignore_unknown_keys}  # fmt: skip
    try:
        with transaction.atomic():
            if new_batch is not None:
                Batch.objects.create(name=batch_name, **new_batch)
            summary = dialogues_import(paths=[upload.path], batch_name=batch_name, **options)
            if new_batch is not None and not summary.created:
                template = gettext_noop(
                    "all %(n)s dialogue(s) of this file are stored already (their ids are taken), so the new "
                    "batch would be empty; add new dialogues or upload to the batch that holds them"
                )
                problem = Problem.of(upload.name, None, "$.id", template, n=summary.unchanged + summary.updated)
                raise UploadRejected([problem_row(problem)])
    except InputError as exc:
        raise UploadRejected(problem_rows(exc.problems, upload=upload), truncated=exc.truncated) from None
    return summary


def import_summary_text(
    *, created: int, unchanged: int, batch_name: str, updated: int = 0, ignored_keys: dict | None = None
) -> str:
    """What an import did, in people's words: "12,000 dialogues imported into batch X." (and what was kept, and
    the unknown fields left out: ``ignored_keys``, key → lines)."""
    values = {"n": f"{created:,}", "name": batch_name, "unchanged": f"{unchanged:,}", "updated": f"{updated:,}"}
    if not created and not updated:
        return _("Nothing new for batch %(name)s: all %(unchanged)s dialogues were stored already.") % values
    sentences = []
    if created:
        sentences.append(_("%(n)s dialogues imported into batch %(name)s.") % values)
        if updated:
            sentences.append(_("%(updated)s changed dialogues were replaced (their old texts are kept).") % values)
    else:
        sentences.append(
            _("%(updated)s changed dialogues of batch %(name)s were replaced (their old texts are kept).") % values
        )
    if unchanged:
        sentences.append(_("%(unchanged)s were stored already and left as they were.") % values)
    if ignored_keys:
        sentences.append(_("Unknown fields ignored: %(keys)s.") % {"keys": ignored_keys_text(ignored_keys)})
    text = sentences[0]
    for sentence in sentences[1:]:  # Japanese runs sentences on without a space
        text = pgettext("two sentences", "%(first)s %(second)s") % {"first": text, "second": sentence}
    return text
