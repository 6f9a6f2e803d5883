"""Trial logs uploaded over HTTP (the Layer3 upload page and ``POST /api/experiment/batch/``), kept on disk.

An upload is kept under ``VAR_DIR/uploads/trials`` (with its widget catalogue, when given, in the same
folder), then imported by ``trials_import``, the service of ``manage.py import_trials``: every line is
checked first, any problem stores nothing, and each problem is located as the user knows the file
(its name, the line, the JSON path). A file above ``LAYER3_UPLOAD_JOB_BYTES`` is imported by a worker
(``layer3.io.upload_jobs``), so no web process parses a large log.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError
from django.utils.translation import gettext_noop

from core.jsonl import InputError, Problem
from core.problem_text import problem_row
from core.uploads import TextUpload, kept_path, safe_name, upload_discard, upload_keep
from layer3.io.imports import TrialImportSummary, trials_import

TRIALS_UPLOAD = "layer3.trials_upload"  # the job kind that imports a large upload (layer3.io.upload_jobs)
UPLOAD_FOLDER = Path("uploads") / "trials"  # under VAR_DIR
DEFAULT_NAME = "trials.jsonl"
CATALOGUE_FOLDER = "catalogue"  # beside the kept trial log, in the same folder
DEFAULT_CATALOGUE_NAME = "catalogue.txt"
# ``trials_import`` names the problems of its options as the command does (--batch, --experiment); the page
# names its fields instead (msgids). The API keeps the command's names, as its small uploads always have.
OPTION_NAMES = {
    "api": {},
    "page": {"--batch": gettext_noop("Batch name"), "--experiment": gettext_noop("Experiment id")},
}


def job_threshold() -> int:
    """Bytes above which a trial log is imported by a worker (the setting, read at each use)."""
    return int(settings.LAYER3_UPLOAD_JOB_BYTES)


@dataclass(frozen=True)
class TrialsUpload(TextUpload):
    """A kept trial log, and its widget catalogue's user name when one was uploaded beside it."""

    catalogue_name: str | None = None

    @property
    def is_large(self) -> bool:
        return self.size > job_threshold()

    @property
    def catalogue_path(self) -> Path | None:
        if self.catalogue_name is None:
            return None
        return self.path.parent / CATALOGUE_FOLDER / safe_name(self.catalogue_name, DEFAULT_CATALOGUE_NAME)

    def job_params(self) -> dict:
        return {**super().job_params(), "catalogue_name": self.catalogue_name}

    @classmethod
    def from_job(cls, params: dict, *, folder: Path = UPLOAD_FOLDER) -> TrialsUpload:
        path = kept_path(params.get("file", ""), folder=folder)
        name = str(params.get("name") or path.name)
        catalogue = params.get("catalogue_name")
        return cls(path=path, name=name, size=path.stat().st_size, lines=int(params.get("lines") or 0),
                   catalogue_name=str(catalogue) if catalogue is not None else None)  # fmt: skip


class UploadRejected(Exception):
    """An upload that stored nothing: ``problems`` are rows (``core.problem_text.problem_row``), at most
    ``core.jsonl.MAX_PROBLEMS``; ``total`` is how many were found."""

    def __init__(self, problems: list[dict], *, truncated: bool = False, total: int | None = None) -> None:
        self.problems = problems
        self.truncated = truncated
        self.total = max(total or 0, len(problems))
        super().__init__(f"{self.total} problem(s); nothing was stored")


def trials_upload_keep(uploaded, *, catalogue=None) -> TrialsUpload:
    """Keep a trial log (a Django UploadedFile) and its widget catalogue in a folder of their own under VAR_DIR.
    A refused file raises its ``core.upload_limits.UploadRefused`` (nothing is kept)."""
    kept = upload_keep(uploaded, folder=UPLOAD_FOLDER, default_name=DEFAULT_NAME)
    upload = TrialsUpload(path=kept.path, name=kept.name, size=kept.size, lines=kept.lines)
    if catalogue is None:
        return upload
    catalogue_name = Path(catalogue.name or DEFAULT_CATALOGUE_NAME).name or DEFAULT_CATALOGUE_NAME
    upload = TrialsUpload(path=kept.path, name=kept.name, size=kept.size, lines=kept.lines,
                          catalogue_name=catalogue_name)  # fmt: skip
    try:
        upload.catalogue_path.parent.mkdir(mode=0o700)
        with upload.catalogue_path.open("wb") as handle:
            for chunk in catalogue.chunks():
                handle.write(chunk)
    except BaseException:
        trials_upload_discard(upload)
        raise
    return upload


def trials_upload_discard(upload: TrialsUpload) -> None:
    """Remove a kept upload's folder (the trial log and its catalogue)."""
    upload_discard(upload.path, folder=UPLOAD_FOLDER)


def trials_upload_import(
    *, upload: TrialsUpload, batch_name: str, experiment_id: str | None = None, dry_run: bool = False,
    surface: str = "page",
) -> TrialImportSummary:  # fmt: skip
    """``trials_import`` of a kept upload; ``UploadRejected`` with every problem located as the user knows the
    files (their names; the batch name and experiment id as ``surface`` names its fields) when anything is wrong:
    nothing is stored then."""
    names = {str(upload.path): upload.name}
    if upload.catalogue_path is not None:
        names[str(upload.catalogue_path)] = upload.catalogue_name
    try:
        return trials_import(
            paths=[upload.path], batch_name=batch_name, experiment_id=experiment_id, dry_run=dry_run,
            catalogue_path=upload.catalogue_path,
        )  # fmt: skip
    except InputError as exc:
        rows = [_located(problem_row(p, names=names), surface) for p in exc.problems]
        raise UploadRejected(rows, truncated=exc.truncated, total=exc.total) from None
    except IntegrityError:
        # Another upload stored trials of the same batch and ids, or created the batch, meanwhile.
        template = gettext_noop(
            "the batch changed while this file was being imported (another upload into it at the same time); "
            "nothing was stored, upload the file again"
        )
        raise UploadRejected([problem_row(Problem.of(upload.name, None, "$", template))]) from None


def _located(row: dict, surface: str) -> dict:
    """A problem of the import's options (``--batch``, ``--experiment``) names the field of ``surface`` instead."""
    field = OPTION_NAMES.get(surface, {}).get(row["file"])
    return {**row, "file": field, "option": True} if field is not None else row
