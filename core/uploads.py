"""Uploaded files kept for a moment under VAR_DIR: copied in a folder of their own, counted, then removed.

The pages keep an upload so that a large one can be handed to a worker (a job carries the path
below VAR_DIR). The file keeps a safe form of the user's name; the user's own name is returned
beside it for messages and problem tables.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext_lazy

from core.upload_limits import RefusedUpload, UploadNotStored, UploadTooLarge, disk_free, limit_bytes

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class KeptUpload:
    path: Path
    name: str  # the name the user's file had
    size: int  # bytes
    lines: int  # newline-separated lines (a last line without a newline counts)
    head: bytes  # the first bytes (up to 4): what kind of file it is


@dataclass(frozen=True)
class TextUpload:
    """A kept text upload as its import and its job see it: where it is, the user's name for it, its size in
    bytes and its lines. Each kind says when it ``is_large`` (handed to a worker) with its own thresholds."""

    path: Path
    name: str  # the name the user's file had
    size: int  # bytes
    lines: int

    @property
    def relative_path(self) -> str:
        """The path below VAR_DIR, as a job's parameters carry it."""
        return self.path.relative_to(settings.VAR_DIR).as_posix()

    def job_params(self) -> dict:
        """What a job needs to find the file again (``from_job``)."""
        return {"file": self.relative_path, "name": self.name, "lines": self.lines}

    @classmethod
    def of(cls, kept: KeptUpload):
        return cls(path=kept.path, name=kept.name, size=kept.size, lines=kept.lines)

    @classmethod
    def from_job(cls, params: dict, *, folder: Path):
        """The upload a job's ``params`` name (``job_params``); ``ValueError`` unless it is a file under ``folder``."""
        path = kept_path(params.get("file", ""), folder=folder)
        name = str(params.get("name") or path.name)
        return cls(path=path, name=name, size=path.stat().st_size, lines=int(params.get("lines") or 0))


def safe_name(name: str, default: str) -> str:
    """``name``'s last part with only letters, digits, ``.``, ``-`` and ``_`` (at most 100), never hidden."""
    name = re.sub(r"[^\w.-]", "_", Path(name or "").name)[:100].lstrip(".")
    return name or default


def upload_keep(uploaded, *, folder: Path, default_name: str) -> KeptUpload:
    """Copy ``uploaded`` (a Django UploadedFile) into a new folder under ``VAR_DIR/folder``, counting as it goes.

    A file dropped over its size limit (``core.upload_limits.RefusedUpload``) raises its refusal, and nothing is
    kept.
    """
    if isinstance(uploaded, RefusedUpload):
        raise uploaded.refusal
    target = Path(settings.VAR_DIR) / folder / uuid.uuid4().hex
    path = target / safe_name(uploaded.name, default_name)
    size = lines = 0
    head, last = b"", b"\n"
    with _kept_or_removed(target, name=Path(uploaded.name or path.name).name):
        target.mkdir(parents=True, mode=0o700)
        with open_for_writing(path) as handle:
            for chunk in uploaded.chunks():
                handle.write(chunk)
                size += len(chunk)
                lines += chunk.count(b"\n")
                head = head or chunk[:4]
                last = chunk[-1:] or last
    if last != b"\n":
        lines += 1  # a last line without a newline
    return KeptUpload(path=path, name=Path(uploaded.name or path.name).name, size=size, lines=lines, head=head)


def stream_keep(read, *, folder: Path, name: str, setting: str) -> KeptUpload:
    """Copy a request body (``read(n)`` until it returns ``b""``) into a new folder under ``VAR_DIR/folder``, counting
    as it goes, as ``upload_keep`` does for a form's file. Past ``setting``'s limit the copy is removed and
    ``UploadTooLarge`` raised: nothing is kept."""
    limit = limit_bytes(setting)
    target = Path(settings.VAR_DIR) / folder / uuid.uuid4().hex
    path = target / safe_name(name, "upload")
    size = lines = 0
    head, last = b"", b"\n"
    with _kept_or_removed(target, name=name):
        target.mkdir(parents=True, mode=0o700)
        with open_for_writing(path) as handle:
            while chunk := read(CHUNK_BYTES):
                size += len(chunk)
                if size > limit:
                    raise UploadTooLarge(setting=setting, size=size, names=[name])
                handle.write(chunk)
                lines += chunk.count(b"\n")
                head = head or chunk[:4]
                last = chunk[-1:]
    if last != b"\n":
        lines += 1  # a last line without a newline
    return KeptUpload(path=path, name=name, size=size, lines=lines, head=head)


CHUNK_BYTES = 256 * 1024


def open_for_writing(path: Path):
    """The file a kept upload is written to (tests put a full disk behind it)."""
    return path.open("wb")


@contextmanager
def _kept_or_removed(target: Path, *, name: str):
    """On any failure while copying into ``target``, remove it whole; a write error (a full disk) becomes the
    upload's refusal (``UploadNotStored``), so nothing half-written stays to fill the disk for the next upload."""
    try:
        yield
    except OSError as exc:
        shutil.rmtree(target, ignore_errors=True)
        logger.error("an upload could not be written to %s: %s", target, exc)
        free = disk_free(settings.VAR_DIR)
        raise UploadNotStored(error=exc, where="VAR_DIR", free=free, names=[name], field="file") from exc
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


@contextmanager
def scratch_copies(uploads, *, prefix: str, names: list[str] | None = None):
    """Copies of ``uploads`` (Django UploadedFiles) for a request that parses them and keeps nothing: yields
    ``(folder, paths)``, each file in a folder of its own (``<folder>/<n>/<name>``, named ``names[n]``, by default
    as its upload was named), under ``FILE_UPLOAD_TEMP_DIR``; all removed on leaving. A disk that cannot hold them
    is the upload's refusal (``UploadNotStored``: 507, naming that setting), not a server error."""
    failed: tuple[OSError, str] | None = None
    with tempfile.TemporaryDirectory(prefix=prefix, dir=settings.FILE_UPLOAD_TEMP_DIR or None) as folder:
        paths = []
        for number, upload in enumerate(uploads):
            name = names[number] if names else Path(upload.name or "upload").name or "upload"
            path = Path(folder) / str(number) / name
            try:
                path.parent.mkdir()
                with open_for_writing(path) as handle:
                    for chunk in upload.chunks():
                        handle.write(chunk)
            except OSError as exc:
                failed = (exc, upload.name or name)
                break
            paths.append(path)
        if failed is None:
            yield Path(folder), paths
    if failed is not None:  # the folder is gone: the free space is what the next upload finds
        error, shown = failed
        logger.error("an upload could not be written to FILE_UPLOAD_TEMP_DIR: %s", error)
        free = disk_free(settings.FILE_UPLOAD_TEMP_DIR or tempfile.gettempdir())
        where = "FILE_UPLOAD_TEMP_DIR"
        raise UploadNotStored(error=error, where=where, free=free, names=[shown], field="file") from error


def upload_discard(path: Path, *, folder: Path) -> None:
    """Remove a kept upload and its own folder (only ever a folder directly under ``VAR_DIR/folder``)."""
    root = (Path(settings.VAR_DIR) / folder).resolve()
    parent = path.resolve().parent
    if parent.parent == root:
        shutil.rmtree(parent, ignore_errors=True)


def job_upload_discard(params: dict, *, folder: Path) -> None:
    """Remove the kept upload a job's ``params`` name, if it is still there (a job that ended without its handler:
    cancelled before it started, or failed after its worker died)."""
    try:
        path = kept_path(params.get("file", ""), folder=folder)
    except ValueError:
        return  # removed already (its handler ran), or never kept
    upload_discard(path, folder=folder)


# What a failed upload job leaves stored (``core.jobs.job_handler``'s ``kept``): an import is all or nothing.
NOTHING_KEPT = gettext_lazy(
    "Nothing of the file was stored: an upload stores all of its lines or none. Upload it again."
)


def discard_on_end(folder: Path):
    """A job kind's ``on_ended`` (``core.jobs.job_handler``): the kept upload its parameters name is removed."""

    def ended(job, reason: str) -> None:
        job_upload_discard(job.params, folder=folder)

    return ended


def kept_path(relative: str, *, folder: Path) -> Path:
    """The kept upload a job names by its path below VAR_DIR; ``ValueError`` unless it is a file under ``folder``."""
    root = (Path(settings.VAR_DIR) / folder).resolve()
    path = (Path(settings.VAR_DIR) / str(relative or "")).resolve()
    if root not in path.parents or not path.is_file():
        raise ValueError(f"params.file: no uploaded file at {relative!r} (removed, or not an upload)")
    return path
