"""A full disk during an upload (issue 41): a clear refusal naming the disk, no file left, and the next upload works.

Two places an upload is written: Django's temporary file for a file above FILE_UPLOAD_MAX_MEMORY_SIZE
(``core.upload_limits.TemporaryFileHandler``, in FILE_UPLOAD_TEMP_DIR) and the copy kept under VAR_DIR for the
import or its job (``core.uploads``). ENOSPC is injected into each with a file that writes real bytes until
its room runs out; where this machine lets the test mount a 2 MB tmpfs, the same happens on a real full disk.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest
from django.core.files import uploadedfile
from django.core.files.uploadedfile import SimpleUploadedFile

import core.uploads
from annotation.models import Annotation, Dialogue
from tests.annotation.api.support import API, make_batch, token_client
from tests.annotation.conftest import dialogue, rating
from tests.helpers import make_user

pytestmark = pytest.mark.django_db
RATINGS = API + "annotations/import/"
DIALOGUES = API + "batches/{pk}/dialogues/"


class NoRoomFile:
    """A real file that takes ``room`` bytes, then fails as a full disk does (the bytes before it stay written)."""

    def __init__(self, real, room: int) -> None:
        self._real, self._room = real, room

    def write(self, data) -> int:
        if len(data) > self._room:
            self._real.write(data[: self._room])
            self._room = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._room -= len(data)
        return self._real.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._real.close()

    def __getattr__(self, name):
        return getattr(self._real, name)


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def ratings_jsonl(batch, n: int, annotator: str = "ann_disk") -> bytes:
    rows = [rating(0, annotator, id=f"{batch.name}_{i % 3:03d}") for i in range(n)]
    return ("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n").encode()


def dialogues_jsonl(n: int, prefix: str) -> bytes:
    return "".join(json.dumps(dialogue(i, id=f"{prefix}-{i}"), ensure_ascii=False) + "\n" for i in range(n)).encode()


@pytest.fixture
def folders(settings, tmp_path):
    settings.VAR_DIR = tmp_path / "var"
    settings.VAR_DIR.mkdir()
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "incoming")
    Path(settings.FILE_UPLOAD_TEMP_DIR).mkdir()
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # above it, Django writes a temporary file
    return tmp_path


@pytest.fixture
def script(db):
    client = token_client(make_user("res_disk", "researcher"))
    client.cookies["django_language"] = "en"
    return client


def assert_refused_for_a_full_disk(response, where: str) -> dict:
    assert response.status_code == 507, response.content
    body = response.json()
    assert body["success"] is False and body["problems"][0]["path"] == "file"
    assert f"disk holding {where} is full" in body["detail"] and "Nothing was stored" in body["detail"]
    return body


def test_the_kept_copy_meets_a_full_disk_then_the_next_upload_is_stored(folders, script, monkeypatch):
    batch = make_batch("disk", n_items=3)
    full = lambda path: NoRoomFile(path.open("wb"), room=300)  # noqa: E731
    monkeypatch.setattr(core.uploads, "open_for_writing", full)
    body = ratings_jsonl(batch, 40)
    response = script.post(f"{RATINGS}?batch={batch.pk}", body, content_type="application/x-ndjson")
    assert_refused_for_a_full_disk(response, "VAR_DIR")
    assert files_under(folders / "var") == [], "the half-written copy was removed"
    assert not Annotation.objects.exists()
    monkeypatch.undo()  # the operator freed space
    response = script.post(f"{RATINGS}?batch={batch.pk}", ratings_jsonl(batch, 3), content_type="application/x-ndjson")
    assert response.status_code == 201, response.content
    assert Annotation.objects.count() == 3 and files_under(folders / "var") == []


def test_the_temporary_file_meets_a_full_disk_then_the_next_upload_is_stored(folders, script, monkeypatch):
    batch = make_batch("disk", n_items=0)
    real = tempfile.NamedTemporaryFile
    monkeypatch.setattr(
        uploadedfile.tempfile, "NamedTemporaryFile", lambda *a, **k: NoRoomFile(real(*a, **k), room=2000)
    )
    big = SimpleUploadedFile("big.jsonl", dialogues_jsonl(200, "big"), content_type="application/x-ndjson")
    response = script.post(DIALOGUES.format(pk=batch.pk), {"file": big})
    body = assert_refused_for_a_full_disk(response, "FILE_UPLOAD_TEMP_DIR")
    assert "big.jsonl" in body["detail"]
    assert files_under(folders / "incoming") == [], "the temporary file was closed and removed"
    assert not Dialogue.objects.exists()
    monkeypatch.undo()
    again = SimpleUploadedFile("again.jsonl", dialogues_jsonl(200, "again"), content_type="application/x-ndjson")
    response = script.post(DIALOGUES.format(pk=batch.pk), {"file": again})
    assert response.status_code == 201, response.content
    assert Dialogue.objects.count() == 200 and files_under(folders / "incoming") == []


def test_a_page_upload_that_meets_a_full_disk_says_so_in_the_form(folders, monkeypatch, client):
    batch = make_batch("disk", n_items=0)
    client.force_login(make_user("res_page", "researcher"))
    client.cookies["django_language"] = "en"
    real = tempfile.NamedTemporaryFile
    monkeypatch.setattr(
        uploadedfile.tempfile, "NamedTemporaryFile", lambda *a, **k: NoRoomFile(real(*a, **k), room=2000)
    )
    big = SimpleUploadedFile("big.jsonl", dialogues_jsonl(200, "big"), content_type="application/x-ndjson")
    response = client.post(f"/research/batches/{batch.pk}/", {"file": big})
    page = response.content.decode()
    assert response.status_code in (413, 507), page[:500]
    assert "disk holding FILE_UPLOAD_TEMP_DIR is full" in page
    assert files_under(folders / "incoming") == [] and not Dialogue.objects.exists()


def test_a_kept_copy_on_a_page_that_meets_a_full_disk_gets_the_site_page_not_a_500(folders, monkeypatch, client):
    batch = make_batch("disk", n_items=0)
    client.force_login(make_user("res_page", "researcher"))
    client.cookies["django_language"] = "ja"
    monkeypatch.setattr(core.uploads, "open_for_writing", lambda path: NoRoomFile(path.open("wb"), room=10))
    small = SimpleUploadedFile("small.jsonl", dialogues_jsonl(3, "s"), content_type="application/x-ndjson")
    response = client.post(f"/research/batches/{batch.pk}/", {"file": small}, HTTP_REFERER="http://testserver/x/")
    page = response.content.decode()
    assert response.status_code == 507, page[:500]
    assert "data-upload-refused" in page and "VAR_DIR" in page and 'href="http://testserver/x/"' in page
    assert files_under(folders / "var") == [] and not Dialogue.objects.exists()


# --- a real full disk ------------------------------------------------------------------------------------------


def _mount_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None or os.geteuid() != 0:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True)
    return done.returncode == 0


@pytest.fixture
def small_disk(settings, tmp_path):
    """VAR_DIR and FILE_UPLOAD_TEMP_DIR on one 2 MB filesystem (a tmpfs: root may mount one here)."""
    disk = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    if not _mount_tmpfs(disk, "2m"):
        pytest.skip("mounting a tmpfs needs root; the injected ENOSPC tests above cover the same code")
    try:
        settings.VAR_DIR = disk / "var"
        settings.VAR_DIR.mkdir()
        settings.FILE_UPLOAD_TEMP_DIR = str(disk / "incoming")
        Path(settings.FILE_UPLOAD_TEMP_DIR).mkdir()
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_on_a_2_mb_disk_5_mb_and_3_mb_uploads_are_refused_and_a_3_line_dry_run_still_works(small_disk, script):
    batch = make_batch("disk", n_items=3)
    free = shutil.disk_usage(small_disk).free
    five = SimpleUploadedFile("five.jsonl", ratings_jsonl(batch, 26_000), content_type="application/x-ndjson")
    assert five.size > 5_000_000
    response = script.post(f"{RATINGS}?batch={batch.pk}", {"file": five})
    assert response.status_code == 507 and "is full" in response.json()["detail"], response.content
    three = SimpleUploadedFile("three.jsonl", dialogues_jsonl(16_000, "d"), content_type="application/x-ndjson")
    assert three.size > 3_000_000
    response = script.post(DIALOGUES.format(pk=batch.pk), {"file": three})
    assert response.status_code == 507 and "is full" in response.json()["detail"], response.content
    # A body streamed straight into VAR_DIR meets the same disk.
    response = script.post(
        f"{RATINGS}?batch={batch.pk}", ratings_jsonl(batch, 12_000), content_type="application/x-ndjson"
    )
    assert response.status_code == 507 and "VAR_DIR" in response.json()["detail"], response.content
    assert files_under(small_disk) == [] and shutil.disk_usage(small_disk).free == free
    response = script.post(
        f"{RATINGS}?batch={batch.pk}&dry_run=true", ratings_jsonl(batch, 3), content_type="application/x-ndjson"
    )
    assert response.status_code == 200 and response.json()["created"] == 3, response.content
    assert not Annotation.objects.exists() and not Dialogue.objects.exclude(batch=batch).exists()


def test_a_copy_a_request_parses_meets_a_full_disk_then_the_next_upload_is_stored(folders, script, monkeypatch):
    """The API's dialogue upload parses copies in FILE_UPLOAD_TEMP_DIR (core.uploads.scratch_copies)."""
    batch = make_batch("disk", n_items=0)
    monkeypatch.setattr(core.uploads, "open_for_writing", lambda path: NoRoomFile(path.open("wb"), room=100))
    small = SimpleUploadedFile("small.jsonl", dialogues_jsonl(5, "s"), content_type="application/x-ndjson")
    response = script.post(DIALOGUES.format(pk=batch.pk), {"file": small})
    assert_refused_for_a_full_disk(response, "FILE_UPLOAD_TEMP_DIR")
    assert files_under(folders / "incoming") == [] and not Dialogue.objects.exists()
    monkeypatch.undo()
    again = SimpleUploadedFile("again.jsonl", dialogues_jsonl(5, "s"), content_type="application/x-ndjson")
    response = script.post(DIALOGUES.format(pk=batch.pk), {"file": again})
    assert response.status_code == 201 and Dialogue.objects.count() == 5, response.content
