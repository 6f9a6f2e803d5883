"""Rating sheets uploaded in the browser: kept under VAR_DIR, then checked and stored in the request or by a job.

A small sheet is stored while the browser waits; a large one (``is_large``) by a worker
(``annotation.spreadsheets.upload_jobs``). Either way it is ``sheet_import``: all or nothing, every
problem located. A sheet uploaded on one batch's page must be a sheet of that batch: one of another
batch stores nothing either. The problems name the file as the user uploaded it. A researcher's upload
offers the overrides of the batch's quota and qualification (with a reason, recorded); an annotator's
own upload offers none.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from annotation.io.rating_uploads import OPTION_NAMES, RuleOptions, overrides_sentence
from annotation.models import Batch
from annotation.spreadsheets.imports import SheetImportSummary, SheetRejected, sheet_import
from annotation.spreadsheets.problems import SHEET_OF_ANOTHER_BATCH
from annotation.spreadsheets.reader import ZIP_MAGIC, SheetProblem
from core.upload_limits import limit_bytes
from core.uploads import upload_discard, upload_keep

# Above either limit a sheet is checked and stored by a worker, with its progress on the page.
LARGE_UPLOAD_BYTES = 2 * 1024 * 1024
LARGE_UPLOAD_ROWS = 5_000
# A workbook's rows are not counted before it is read: estimated from its size (a filled template
# of short Japanese dialogues takes 300 to 800 bytes a row).
XLSX_BYTES_PER_ROW = 300


def max_upload_bytes() -> int:
    """The largest sheet accepted (``UPLOAD_MAX_BYTES_SPREADSHEET``, read at each use); larger ones are refused
    before they are kept."""
    return limit_bytes("UPLOAD_MAX_BYTES_SPREADSHEET")


UPLOAD_FOLDER = Path("uploads") / "sheets"  # under VAR_DIR
ANNOTATOR_PAGE, RESEARCHER_PAGE = "annotator", "researcher"  # who uploads: the annotator, or a researcher for anyone
_MB = 1024 * 1024


@dataclass(frozen=True)
class SavedSheet:
    path: Path
    name: str  # the name the user's file had
    size: int
    rows: int  # data rows: counted in a CSV, estimated from the size of a workbook

    @property
    def is_large(self) -> bool:
        return self.size > LARGE_UPLOAD_BYTES or self.rows > LARGE_UPLOAD_ROWS

    @property
    def relative_path(self) -> str:
        """The path below VAR_DIR, as a job's parameters carry it."""
        return self.path.relative_to(settings.VAR_DIR).as_posix()


def upload_limits() -> dict:
    """The limits as the pages state them: large from ``large_mb`` MB or ``large_rows`` rows, at most ``max_mb``."""
    return {
        "large_mb": LARGE_UPLOAD_BYTES // _MB,
        "large_rows": f"{LARGE_UPLOAD_ROWS:,}",
        "max_mb": max_upload_bytes() // _MB,
    }


def sheet_upload_save(uploaded) -> SavedSheet:
    """Copy an uploaded sheet to a folder of its own under VAR_DIR, counting its bytes and (CSV) lines."""
    kept = upload_keep(uploaded, folder=UPLOAD_FOLDER, default_name="sheet.xlsx")
    rows = kept.size // XLSX_BYTES_PER_ROW if kept.head == ZIP_MAGIC else max(kept.lines - 1, 0)  # less the header
    return SavedSheet(path=kept.path, name=kept.name, size=kept.size, rows=rows)


def sheet_upload_discard(path: Path) -> None:
    """Remove a kept sheet and its folder (only ever a folder under VAR_DIR/uploads/sheets)."""
    upload_discard(path, folder=UPLOAD_FOLDER)


def sheet_upload_import(
    *, upload: SavedSheet, batch: Batch, annotator=None, dry_run: bool = False, page: str = ANNOTATOR_PAGE,
    user=None, rules: RuleOptions | None = None, job_id=None,
) -> SheetImportSummary:  # fmt: skip
    """``sheet_import`` of a kept sheet that must be a sheet of ``batch``; raises ``SheetRejected``.

    ``annotator`` as ``sheet_import`` takes it (required for a CSV; a workbook made for someone else is
    a problem). A sheet of another batch is rolled back and rejected: nothing is stored. On the researchers'
    ``page`` the problems name the overrides of the quota and the qualification, and ``rules`` may choose them
    (by ``user``, recorded, with ``job_id`` when a worker stores the sheet); the annotators' page offers none.
    """
    options = {}
    if page == RESEARCHER_PAGE:
        overrides = (rules or RuleOptions()).overrides(user, job_id=job_id)
        options = {"overrides": overrides, "option_names": OPTION_NAMES["page"], "job_id": job_id}
    with transaction.atomic():
        summary = sheet_import(path=upload.path, name=upload.name, annotator=annotator, dry_run=dry_run, **options)
        if summary.batch and summary.batch != batch.name:
            problem = SheetProblem.of(
                upload.name, None, None, None, "", SHEET_OF_ANOTHER_BATCH, batch=repr(summary.batch),
                page_batch=repr(batch.name),
            )  # fmt: skip
            raise SheetRejected([problem])
    return summary


def summary_overrides(summary: SheetImportSummary) -> dict:
    """What the overrides let in and their record, as a job's result keeps them (``sheet_summary_text``)."""
    override = None
    if summary.override_id is not None:
        override = {"id": summary.override_id, "by": summary.override_by, "reason": summary.override_reason}
    return {"overridden": dict(summary.overridden), "override": override}


def problem_rows(problems: list[SheetProblem]) -> list[dict]:
    """Rows of the problems table (plain dicts: a job's result keeps them)."""
    return [asdict(problem) for problem in problems]


def sheet_summary_text(
    *, created: int, updated: int, unchanged: int, skipped: int, comments: int = 0, dry_run: bool = False,
    overridden: dict | None = None, override: dict | None = None,
) -> str:  # fmt: skip
    """What a sheet upload did, in people's words: "12 ratings stored (9 new, 3 changed, 4 rows left blank).",
    and what overrides of the batch's rules let in (``overridden``: ratings per rule; ``override``: its record)."""
    stored = created + updated
    details = [
        text % {"n": f"{count:,}"}
        for count, text in (
            (created, _("%(n)s new")),
            (updated, _("%(n)s changed")),
            (unchanged, _("%(n)s unchanged")),
            (skipped, ngettext("%(n)s row left blank", "%(n)s rows left blank", skipped)),
        )
        if count
    ]
    if dry_run:
        head = ngettext(
            "Checked, no problems: %(n)s rating would be stored",
            "Checked, no problems: %(n)s ratings would be stored",
            stored,
        )
    else:
        head = ngettext("%(n)s rating stored", "%(n)s ratings stored", stored)
    head %= {"n": f"{stored:,}"}
    if details:
        details_text = pgettext("list separator", ", ").join(details)
        text = pgettext("summary with details", "%(summary)s (%(details)s).") % {
            "summary": head,
            "details": details_text,
        }
    else:
        text = pgettext("summary without details", "%(summary)s.") % {"summary": head}
    sentences = [text]
    if comments and not dry_run:
        sentences.append(ngettext("%(n)s comment sent.", "%(n)s comments sent.", comments) % {"n": f"{comments:,}"})
    if dry_run:
        sentences.append(_("Nothing was stored (check only)."))
    if sentence := overrides_sentence(overridden, override, dry_run=dry_run):
        sentences.append(sentence)
    for sentence in sentences[1:]:  # Japanese runs sentences on without a space
        text = pgettext("two sentences", "%(first)s %(second)s") % {"first": text, "second": sentence}
    return text
