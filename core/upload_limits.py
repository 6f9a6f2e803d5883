"""The size limit of every file upload, applied while the request body streams in.

Each upload surface has its limit in a setting (``UPLOAD_MAX_BYTES_*``, README "Upload limits"):
``ROUTE_LIMITS`` names the setting of each route that takes files. ``LimitedUploadHandler`` runs
before Django's own upload handlers (``FILE_UPLOAD_HANDLERS``) and counts the bytes of the
request's files as they arrive. Once they pass the limit nothing more is kept: Django's handlers
drop what they held (the temporary file is removed), the rest is read and discarded, and the
file's place in ``request.FILES`` holds a ``RefusedUpload`` (its name and size, no content) so a
form can say what was refused. Under ``/api/`` a request whose ``Content-Length`` alone is over
the limit is not read at all. Either way ``upload_refusal(request)`` is the refusal; the views
answer 413 (JSON) or a form error, before anything parses the file.

The limit counts the bytes of all files of one request together (one file on every surface but
the API's, which may carry several); the other fields of a form may add ``FORM_ALLOWANCE`` to the
request's length.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import tempfile

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopFutureHandlers, TemporaryFileUploadHandler
from django.http import QueryDict
from django.template.defaultfilters import filesizeformat
from django.utils.datastructures import MultiValueDict
from django.utils.translation import gettext as _

from core.api_errors import error_body

logger = logging.getLogger(__name__)

# The setting that limits the files of each route taking uploads (its URL name).
ROUTE_LIMITS = {
    "layer3-api-batch-upload": "UPLOAD_MAX_BYTES_TRIALS",  # POST /api/experiment/batch/
    "layer3:upload": "UPLOAD_MAX_BYTES_TRIALS",  # the Layer3 upload page (/research/layer3/upload/)
    "annotation-api:batches": "UPLOAD_MAX_BYTES_DIALOGUES",  # POST /api/v1/annotation/batches/ with a file
    "annotation-api:batch-dialogues": "UPLOAD_MAX_BYTES_DIALOGUES",
    "annotation:batch-create": "UPLOAD_MAX_BYTES_DIALOGUES",  # /research/batches/new/
    "annotation:batch": "UPLOAD_MAX_BYTES_DIALOGUES",  # the batch page's "add dialogues"
    "annotation:gold-items": "UPLOAD_MAX_BYTES_GOLD",  # /training/gold/
    "annotation:sheet": "UPLOAD_MAX_BYTES_SPREADSHEET",  # an annotator's filled sheet
    "annotation:batch-sheet": "UPLOAD_MAX_BYTES_SPREADSHEET",  # a researcher's upload of anyone's sheet
    "annotation-api:annotations-import": "UPLOAD_MAX_BYTES_RATINGS",  # POST /api/v1/annotation/annotations/import/
    "annotation:batch-ratings": "UPLOAD_MAX_BYTES_RATINGS",  # the batch page's "upload ratings"
    "director:stats-compare": "UPLOAD_MAX_BYTES_RULES",  # the Director's rules comparison
}
SETTINGS = tuple(dict.fromkeys(ROUTE_LIMITS.values()))
# What a form's other fields and the multipart framing may add to a request beyond its files.
FORM_ALLOWANCE = 64 * 1024


def limit_bytes(setting: str) -> int:
    return int(getattr(settings, setting))


def _route_setting(request) -> str:
    """The setting limiting ``request``'s files: its route's, else (a route taking no files, or one not listed
    yet) the largest limit of all."""
    match = getattr(request, "resolver_match", None)
    setting = ROUTE_LIMITS.get(match.view_name) if match is not None else None
    return setting or max(SETTINGS, key=limit_bytes)


def _answers_json(request) -> bool:
    return request.path_info.startswith("/api/")


class UploadRefused(RequestDataTooBig):
    """An upload that was not kept: ``message`` says why in people's words, ``status`` is the HTTP answer.

    A ``RequestDataTooBig``: should a view not answer it, ``core.storage_errors`` does (and Django would answer
    400).
    """

    status = 413
    names: list[str]
    field: str | None

    @property
    def message(self) -> str:
        raise NotImplementedError

    def body(self, field: str = "file") -> dict:
        """The API's error body (``{"success": false, "error", "detail", "problems": [{"path", "message"}]}``)."""
        message = self.message
        return error_body(message, [{"path": self.field or field, "message": message}])


class UploadTooLarge(UploadRefused):
    """Files over their limit; ``message`` says how large they are, the limit and its setting."""

    def __init__(self, *, setting: str, size: int, names: list[str] | None = None, field: str | None = None):
        self.setting = setting
        self.limit = limit_bytes(setting)
        self.size = size  # bytes: the files', or the whole request's when it was refused unread
        self.names = names or []  # the refused files as the user named them; none when refused unread
        self.field = field  # the form field of the first refused file
        super().__init__(f"upload of {size} bytes over {setting}={self.limit}")

    @property
    def message(self) -> str:
        values = {
            "name": ", ".join(self.names),
            "size": filesizeformat(self.size),
            "bytes": f"{self.size:,}",
            "limit": filesizeformat(self.limit),
            "limit_bytes": f"{self.limit:,}",
            "setting": self.setting,
        }
        if self.names:
            text = _(
                "The upload %(name)s is %(size)s (%(bytes)s bytes); uploads here are limited to %(limit)s "
                "(%(limit_bytes)s bytes) by the setting %(setting)s. Nothing was stored."
            )
        else:
            text = _(
                "The upload is %(size)s (%(bytes)s bytes); uploads here are limited to %(limit)s "
                "(%(limit_bytes)s bytes) by the setting %(setting)s. Nothing was stored."
            )
        return text % values


class UploadNotStored(UploadRefused):
    """An upload the server could not write (a full disk, a quota, any write error): closed and removed, nothing
    stored. ``where`` names the setting of the folder it was written to (``VAR_DIR``, ``FILE_UPLOAD_TEMP_DIR``),
    not its path; the path and the error go to the log (``core.storage_errors.log_write_error``)."""

    status = 507  # Insufficient Storage

    def __init__(self, *, error: OSError, where: str, free: int | None, names: list[str] | None = None,
                 field: str | None = None):  # fmt: skip
        self.error = error
        self.where = where
        self.free = free  # bytes free on that disk when it failed, if known
        self.names = names or []
        self.field = field
        self.disk_full = error.errno in DISK_FULL
        super().__init__(f"upload not stored in {where}: {type(error).__name__} errno {error.errno}")

    @property
    def message(self) -> str:
        error = os.strerror(self.error.errno) if self.error.errno else type(self.error).__name__
        free = filesizeformat(self.free) if self.free is not None else "?"
        values = {"name": ", ".join(self.names) or _("the upload"), "where": self.where, "free": free, "error": error}
        if self.disk_full:
            text = _(
                "%(name)s could not be stored: the server's disk holding %(where)s is full (%(free)s free). Nothing "
                "was stored and nothing of it was kept; ask the operator to free space, then upload it again."
            )
        else:
            text = _(
                "%(name)s could not be stored: writing it to the server's disk holding %(where)s failed (%(error)s). "
                "Nothing was stored and nothing of it was kept; ask the operator to check that disk, then upload "
                "it again."
            )
        return text % values


# errno values meaning "no room": no space left, a quota reached, a file too large for the filesystem.
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def disk_free(folder) -> int | None:
    try:
        return shutil.disk_usage(folder).free
    except OSError:
        return None


class RefusedUpload(UploadedFile):
    """A file dropped as it streamed in: its name and size, no content. Reading it raises its refusal."""

    def __init__(self, *, name: str, size: int, refusal: UploadRefused, content_type=None, charset=None):
        super().__init__(file=None, name=name, content_type=content_type, size=size, charset=charset)
        self.refusal = refusal

    def _refuse(self, *args, **kwargs):
        raise self.refusal

    read = readline = readlines = chunks = multiple_chunks = open = __iter__ = _refuse

    @property
    def closed(self) -> bool:
        return True

    def close(self) -> None:  # the request closes its files at the end: nothing is open
        pass


def _record(request, refusal: UploadRefused) -> None:
    if request is not None and getattr(request, "upload_too_large", None) is None:
        request.upload_too_large = refusal


class LimitedUploadHandler(FileUploadHandler):
    """First of ``FILE_UPLOAD_HANDLERS``: passes file chunks on to Django's handlers while the request's files
    are within their limit, and drops them from then on (see the module's text)."""

    def __init__(self, request=None):
        super().__init__(request)
        self.setting = _route_setting(request)
        self.limit = limit_bytes(self.setting)
        self.total = 0  # bytes of the request's files so far
        self.file_size = 0
        self.dropping = False  # the present file is dropped
        self.drop_all = False  # every file is dropped: the request's length is over the limit
        self.refusal: UploadTooLarge | None = None

    def _refuse(self, *, size: int, field: str | None) -> UploadTooLarge:
        if self.refusal is None:
            self.refusal = UploadTooLarge(setting=self.setting, size=size, field=field)
            _record(self.request, self.refusal)
        return self.refusal

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        if content_length <= self.limit + FORM_ALLOWANCE:
            return None
        if _answers_json(self.request):
            # Not read at all: the API's 413 names the request's length.
            self._refuse(size=content_length, field=None)
            return QueryDict(encoding=encoding), MultiValueDict()
        # A page reads on (the form's other fields and its CSRF token), dropping every file and counting it.
        self.drop_all = True
        return None

    def new_file(self, field_name, file_name, *args, **kwargs):
        super().new_file(field_name, file_name, *args, **kwargs)
        self.file_size = 0
        self.dropping = self.drop_all or self.refusal is not None
        if self.dropping:
            self._refuse(size=0, field=field_name)  # its size is counted as it streams
            raise StopFutureHandlers  # Django's handlers keep no copy of it

    def receive_data_chunk(self, raw_data, start):
        self.file_size += len(raw_data)
        self.total += len(raw_data)
        if not self.dropping and self.total > self.limit:
            self.dropping = True
            self._refuse(size=self.total, field=self.field_name)
            later = self.request.upload_handlers if self.request is not None else []
            for handler in later[later.index(self) + 1 :] if self in later else []:
                handler.upload_interrupted()  # the temporary file holding the first part is removed
        return None if self.dropping else raw_data

    def file_complete(self, file_size):
        if not self.dropping:
            return None
        refusal = self.refusal
        refusal.names.append(self.file_name)
        refusal.field = refusal.field or self.field_name
        return RefusedUpload(
            name=self.file_name, size=self.file_size, refusal=refusal, content_type=self.content_type,
            charset=self.charset,
        )  # fmt: skip

    def upload_complete(self):
        if self.refusal is not None and self.refusal.names:
            self.refusal.size = self.total  # every file's bytes, counted to the end
        return None


class TemporaryFileHandler(TemporaryFileUploadHandler):
    """Django's handler for files above ``FILE_UPLOAD_MAX_MEMORY_SIZE``, which a write error never turns into a
    server error or a file left open on disk.

    When the temporary file cannot be created or written (``FILE_UPLOAD_TEMP_DIR``'s disk is full, a quota, an
    I/O error), it is closed and removed at once, the rest of the file is read and dropped, and the file's place
    in ``request.FILES`` holds a ``RefusedUpload`` whose refusal (``UploadNotStored``) says so: views answer it
    as they answer a file over its limit (``upload_refusal``), and the next upload finds the disk as it was.
    """

    def new_file(self, *args, **kwargs):
        self.failed: OSError | None = None
        try:
            super().new_file(*args, **kwargs)  # names the file's field, then creates the temporary file
        except OSError as exc:
            self._fail(exc)
            raise StopFutureHandlers from None  # no later handler keeps it either

    def receive_data_chunk(self, raw_data, start):
        if self.failed is None:
            try:
                self.file.write(raw_data)
            except OSError as exc:
                self._fail(exc)
        return None

    def file_complete(self, file_size):
        if self.failed is None:
            try:
                return super().file_complete(file_size)  # flushes what the file still buffers
            except OSError as exc:
                self._fail(exc)
        refusal = self.refusal
        refusal.names.append(self.file_name)
        return RefusedUpload(name=self.file_name, size=file_size, refusal=refusal, content_type=self.content_type,
                             charset=self.charset)  # fmt: skip

    def upload_interrupted(self):
        self._discard()

    def _discard(self) -> None:
        """Close and remove the temporary file; a close that fails to flush (a full disk) still removes it."""
        file = getattr(self, "file", None)
        if file is None:
            return
        path = file.temporary_file_path()
        with contextlib.suppress(OSError):
            file.close()
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)

    def _fail(self, exc: OSError) -> None:
        self.failed = exc
        self._discard()
        folder = settings.FILE_UPLOAD_TEMP_DIR or tempfile.gettempdir()
        logger.error("an upload could not be written to %s: %s", folder, exc)
        self.refusal = UploadNotStored(
            error=exc, where="FILE_UPLOAD_TEMP_DIR", free=disk_free(folder), field=self.field_name
        )
        _record(self.request, self.refusal)


def upload_refusal(request, setting: str | None = None) -> UploadRefused | None:
    """The refusal of ``request``'s files (a Django or DRF request; its body is parsed if it was not), or None.

    Besides what the handler recorded, the files found are checked against ``setting`` (default: the
    route's), so a view checks its limit even where the handler was not installed.
    """
    files = request.FILES
    recorded = getattr(getattr(request, "_request", request), "upload_too_large", None)
    if recorded is not None:
        return recorded
    setting = setting or _route_setting(getattr(request, "_request", request))
    uploads = [(field, upload) for field, values in files.lists() for upload in values]
    total = sum(upload.size or 0 for _field, upload in uploads)
    if total <= limit_bytes(setting):
        return None
    names = [upload.name for _field, upload in uploads]
    return UploadTooLarge(setting=setting, size=total, names=names, field=uploads[0][0])


def upload_size_error(upload, setting: str) -> str | None:
    """A form's message for an uploaded file over ``setting``'s limit (or dropped as it streamed: too large, or not
    written to the server's disk), else None."""
    if isinstance(upload, RefusedUpload):
        return upload.refusal.message
    if upload is not None and (upload.size or 0) > limit_bytes(setting):
        return UploadTooLarge(setting=setting, size=upload.size, names=[upload.name]).message
    return None
