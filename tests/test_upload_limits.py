"""Every file upload has a size limit from settings (issue 27): over it the upload is refused before anything
reads it (413 JSON on the API, a form error on the pages), nothing is stored, and no copy of it is left.

Each surface is tried with its limit at 1 KB: a 2 KB file is dropped as it streams in (the request's length
is within the limit plus the form's allowance), a 100 KB one is refused from the request's length alone.
Django keeps uploads over 512 bytes in temporary files here, in a folder of the test's own that must be
empty afterwards, as must VAR_DIR's upload folders.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver

from annotation.models import Batch, Dialogue
from core.upload_limits import FORM_ALLOWANCE, ROUTE_LIMITS, RefusedUpload, UploadTooLarge
from core.uploads import upload_keep
from tests.annotation.api.support import make_batch, token_client
from tests.annotation.conftest import dialogue
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

KB = 1024
SMALL, LARGE = 2 * KB, 100 * KB  # dropped as it streams; refused from the request's length


def _counts() -> dict[str, int]:
    """Rows of every table (the many-to-many ones too)."""
    return {m._meta.label: m.objects.count() for m in apps.get_models(include_auto_created=True)}


def _files_under(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()] if folder.exists() else []


@pytest.fixture
def spool(settings, tmp_path):
    """Uploads over 512 bytes go to temporary files in a folder of this test; VAR_DIR is the test's own."""
    settings.VAR_DIR = tmp_path / "var"
    settings.VAR_DIR.mkdir()
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "incoming")
    Path(settings.FILE_UPLOAD_TEMP_DIR).mkdir()
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 512
    yield tmp_path
    assert _files_under(tmp_path / "incoming") == [], "a temporary copy of the upload was left"
    assert _files_under(tmp_path / "var" / "uploads") == [], "a kept copy of the upload was left"


def _client(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    client.cookies["django_language"] = "en"
    return client


def _padded(lines: list[str], size: int) -> bytes:
    """``lines`` (JSONL) repeated with new ids up to at least ``size`` bytes."""
    out, number = [], 0
    while sum(len(line) for line in out) < size:
        for line in lines:
            record = json.loads(line)
            record["id"] = f"{record['id']}-{number}"
            out.append(json.dumps(record, ensure_ascii=False).encode() + b"\n")
            number += 1
    return b"".join(out)


def dialogues_jsonl(size: int, prefix: str = "up") -> bytes:
    return _padded([json.dumps(dialogue(0, id=prefix), ensure_ascii=False)], size)


def trials_jsonl(size: int) -> bytes:
    from layer3.demo.generator import generate_trials

    return _padded([json.dumps(t, ensure_ascii=False) for t in generate_trials(2, seed=3)], size)


def _assert_api_413(response, *, setting: str, size: int | None = None) -> str:
    assert response.status_code == 413, response.content[:500]
    body = response.json()
    assert body["success"] is False and body["error"] == body["detail"]
    assert body["problems"] == [{"path": "file", "message": body["error"]}]
    assert setting in body["error"] and "1.0\xa0KB (1,024 bytes)" in body["error"]
    if size is not None:
        assert f"({size:,} bytes)" in body["error"]
    return body["error"]


def _assert_form_error(response, *, setting: str, size: int) -> str:
    html = response.content.decode()
    assert response.status_code == 413, html[:500]
    assert setting in html and "1.0\xa0KB (1,024 bytes)" in html and f"({size:,} bytes)" in html
    return html


# --- the routes ---------------------------------------------------------------------------------------------


def _view_names(resolver=None, namespace: str = "") -> set[str]:
    names = set()
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names |= _view_names(pattern, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(f"{namespace}{pattern.name}")
    return names


def test_every_route_named_in_the_limits_exists_and_every_setting_is_a_positive_size(settings):
    assert set(ROUTE_LIMITS) <= _view_names()
    for setting in set(ROUTE_LIMITS.values()):
        assert isinstance(getattr(settings, setting), int) and getattr(settings, setting) > 0


def test_the_defaults():
    from django.conf import settings

    assert settings.UPLOAD_MAX_BYTES_TRIALS == 50 * 1024 * 1024
    assert settings.UPLOAD_MAX_BYTES_DIALOGUES == 50 * 1024 * 1024
    assert settings.UPLOAD_MAX_BYTES_SPREADSHEET == 50 * 1024 * 1024
    assert settings.UPLOAD_MAX_BYTES_GOLD == 20 * 1024 * 1024
    assert settings.UPLOAD_MAX_BYTES_RULES == 256 * 1024
    assert settings.FILE_UPLOAD_HANDLERS[0] == "core.upload_limits.LimitedUploadHandler"


def test_a_refused_upload_cannot_be_read_or_kept(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    refusal = UploadTooLarge(setting="UPLOAD_MAX_BYTES_RULES", size=5000, names=["x.yaml"])
    refused = RefusedUpload(name="x.yaml", size=5000, refusal=refusal)
    for read in (refused.read, refused.chunks, refused.readline, lambda: list(refused)):
        with pytest.raises(UploadTooLarge):
            read()
    refused.close()  # the request closes its files: nothing to do
    with pytest.raises(UploadTooLarge):
        upload_keep(refused, folder=Path("uploads") / "x", default_name="x")
    assert _files_under(tmp_path) == []


def test_the_sheet_limit_follows_the_setting_at_each_use():
    from annotation.spreadsheets.uploads import max_upload_bytes, upload_limits

    with override_settings(UPLOAD_MAX_BYTES_SPREADSHEET=3 * 1024 * 1024):
        limit = max_upload_bytes()
        assert limit == 3 * 1024 * 1024 and upload_limits()["max_mb"] == 3
        over, at = 3 * 1024 * 1024 + 1, 3 * 1024 * 1024  # an upload's size on the left, as a form compares it
        assert over > limit and not at > limit and limit >= at


# --- Layer3: POST /api/experiment/batch/ --------------------------------------------------------------------


@pytest.mark.parametrize("size", [SMALL, LARGE])
@override_settings(UPLOAD_MAX_BYTES_TRIALS=KB)
def test_a_trial_log_over_its_limit_is_refused_with_413_and_nothing_is_stored(researcher, spool, size):
    data = trials_jsonl(size)
    client = _client(researcher)
    before = _counts()
    response = client.post("/api/experiment/batch/", {"name": "big", "file": SimpleUploadedFile("trials.jsonl", data)})
    _assert_api_413(response, setting="UPLOAD_MAX_BYTES_TRIALS", size=len(data) if size == SMALL else None)
    assert _counts() == before


def test_a_trial_log_within_its_limit_is_stored(researcher, spool):
    data = trials_jsonl(SMALL)
    with override_settings(UPLOAD_MAX_BYTES_TRIALS=len(data)):
        response = _client(researcher).post(
            "/api/experiment/batch/", {"name": "ok", "file": SimpleUploadedFile("trials.jsonl", data)}
        )
    assert response.status_code == 201 and response.json()["data"]["created"] == data.count(b"\n")


@override_settings(UPLOAD_MAX_BYTES_TRIALS=KB)
def test_a_trial_log_and_its_catalogue_count_together(researcher, spool):
    data = trials_jsonl(800)
    catalogue = SimpleUploadedFile("widgets.json", json.dumps(["mind_map"] * 40).encode())
    client = _client(researcher)
    before = _counts()
    response = client.post(
        "/api/experiment/batch/",
        {"name": "both", "file": SimpleUploadedFile("trials.jsonl", data), "widgetCatalogue": catalogue},
    )
    assert response.status_code == 413 and "widgets.json" in response.json()["error"]
    assert _counts() == before


# --- the annotation API: batches/{id}/dialogues/ and batches/ ----------------------------------------------


@pytest.mark.parametrize("size", [SMALL, LARGE])
@pytest.mark.parametrize("auth", ["session", "token"])
@override_settings(UPLOAD_MAX_BYTES_DIALOGUES=KB)
def test_dialogues_over_their_limit_are_refused_with_413_and_nothing_is_stored(researcher, spool, size, auth):
    batch = make_batch("target", n_items=1)
    client = _client(researcher) if auth == "session" else token_client(researcher)
    client.cookies["django_language"] = "en"
    data = dialogues_jsonl(size)
    before = _counts()
    response = client.post(
        f"/api/v1/annotation/batches/{batch.pk}/dialogues/", {"file": SimpleUploadedFile("d.jsonl", data)}
    )
    _assert_api_413(response, setting="UPLOAD_MAX_BYTES_DIALOGUES", size=len(data) if size == SMALL else None)
    assert _counts() == before


@override_settings(UPLOAD_MAX_BYTES_DIALOGUES=KB)
def test_the_files_of_one_api_request_count_together(researcher, spool):
    batch = make_batch("target", n_items=1)
    files = [SimpleUploadedFile(f"{n}.jsonl", dialogues_jsonl(600, prefix=f"f{n}")) for n in range(2)]
    client = _client(researcher)
    before = _counts()
    response = client.post(f"/api/v1/annotation/batches/{batch.pk}/dialogues/", {"file": files})
    assert response.status_code == 413 and "1.jsonl" in response.json()["error"]
    assert _counts() == before


def test_a_new_batch_comes_with_its_dialogues_in_one_request(researcher, spool):
    data = dialogues_jsonl(SMALL)
    response = _client(researcher).post(
        "/api/v1/annotation/batches/",
        {"name": "with-file", "annotations_per_item": "2", "file": SimpleUploadedFile("d.jsonl", data)},
    )
    assert response.status_code == 201, response.content
    batch = Batch.objects.get(name="with-file")
    assert response.json()["n_items"] == data.count(b"\n") == Dialogue.objects.filter(batch=batch).count()
    assert batch.annotations_per_item == 2


@pytest.mark.parametrize(
    "case", ["invalid file", "settings refused", "dialogues stored already", "over the limit", "unknown field"]
)
def test_a_new_batch_with_a_refused_file_stores_nothing(researcher, spool, case):
    """The batch, its chosen annotators and its dialogues are one transaction: a refusal leaves no empty batch."""
    make_user("not-an-annotator")
    client = _client(researcher)
    data = dialogues_jsonl(SMALL)
    if case == "dialogues stored already":
        first = {"name": "first", "file": SimpleUploadedFile("d.jsonl", data)}
        assert client.post("/api/v1/annotation/batches/", first).status_code == 201
    fields = {"name": "new", "file": SimpleUploadedFile("d.jsonl", data)}
    if case == "invalid file":
        fields["file"] = SimpleUploadedFile("d.jsonl", data + b'{"id": "x", "user": 3}\n')
    elif case == "settings refused":
        fields["annotators"] = "not-an-annotator"
    elif case == "unknown field":
        fields["annotation_per_item"] = "2"
    before = _counts()
    with override_settings(UPLOAD_MAX_BYTES_DIALOGUES=KB if case == "over the limit" else 1024 * KB):
        response = client.post("/api/v1/annotation/batches/", fields)
    expected = {"over the limit": 413, "settings refused": 404, "dialogues stored already": 409}.get(case, 400)
    assert response.status_code == expected, response.content  # an unknown annotator: 404; nothing new: 409
    assert response.json()["success"] is False
    assert _counts() == before
    assert not Batch.objects.filter(name="new").exists()


# --- the research pages: a new batch, more dialogues --------------------------------------------------------


@pytest.mark.parametrize("size", [SMALL, LARGE])
@override_settings(UPLOAD_MAX_BYTES_DIALOGUES=KB)
def test_a_new_batch_s_file_over_its_limit_is_a_form_error_and_nothing_is_stored(researcher, spool, size):
    data = dialogues_jsonl(size)
    client = _client(researcher)
    before = _counts()
    response = client.post(
        "/research/batches/new/",
        {"name": "page-batch", "annotations_per_item": "3", "file": SimpleUploadedFile("d.jsonl", data)},
    )
    html = _assert_form_error(response, setting="UPLOAD_MAX_BYTES_DIALOGUES", size=len(data))
    assert 'value="page-batch"' in html  # the form keeps what was typed
    assert _counts() == before


@pytest.mark.parametrize("size", [SMALL, LARGE])
@override_settings(UPLOAD_MAX_BYTES_DIALOGUES=KB)
def test_more_dialogues_over_their_limit_are_a_form_error_and_nothing_is_stored(researcher, spool, size):
    batch = make_batch("page", n_items=1)
    data = dialogues_jsonl(size)
    client = _client(researcher)
    before = _counts()
    response = client.post(f"/research/batches/{batch.pk}/", {"file": SimpleUploadedFile("d.jsonl", data)})
    _assert_form_error(response, setting="UPLOAD_MAX_BYTES_DIALOGUES", size=len(data))
    assert _counts() == before


@override_settings(UPLOAD_MAX_BYTES_DIALOGUES=KB)
def test_a_page_checks_its_csrf_token_though_the_file_is_dropped(researcher, spool):
    client = _client(researcher, enforce_csrf_checks=True)
    response = client.post("/research/batches/new/", {"name": "x", "file": SimpleUploadedFile("d.jsonl", b"x" * LARGE)})
    assert response.status_code == 403
    page = client.get("/research/batches/new/")
    token = page.context["csrf_token"]
    before = _counts()
    response = client.post(
        "/research/batches/new/",
        {"csrfmiddlewaretoken": str(token), "name": "x", "annotations_per_item": "3",
         "file": SimpleUploadedFile("d.jsonl", b"x" * LARGE)},
    )  # fmt: skip
    _assert_form_error(response, setting="UPLOAD_MAX_BYTES_DIALOGUES", size=LARGE)
    assert _counts() == before


# --- gold items, rating sheets, Director rules ---------------------------------------------------------------


@pytest.mark.parametrize("size", [SMALL, LARGE])
@override_settings(UPLOAD_MAX_BYTES_GOLD=KB)
def test_a_gold_file_over_its_limit_is_a_form_error_and_nothing_is_stored(researcher, spool, size):
    from tests.annotation.collection.test_training_services import gold_row

    data = _padded([json.dumps(gold_row(1))], size)
    client = _client(researcher)
    before = _counts()
    response = client.post("/training/gold/", {"file": SimpleUploadedFile("gold.jsonl", data)})
    _assert_form_error(response, setting="UPLOAD_MAX_BYTES_GOLD", size=len(data))
    assert _counts() == before


@pytest.mark.parametrize("size", [SMALL, LARGE])
@override_settings(UPLOAD_MAX_BYTES_SPREADSHEET=KB)
def test_a_rating_sheet_over_its_limit_is_a_form_error_and_nothing_is_stored(researcher, spool, size):
    from tests.helpers import make_qualified_annotator

    batch = make_batch("sheet", n_items=1)
    annotator = make_qualified_annotator("ann_q")
    data = b"id,social\r\n" + b"dialogue_000,1\r\n" * (size // 16 + 1)
    client = _client(researcher)
    before = _counts()
    response = client.post(
        f"/research/batches/{batch.pk}/sheet/", {"file": SimpleUploadedFile("s.csv", data), "annotator": annotator.pk}
    )
    html = response.content.decode()
    assert response.status_code == 400 and "uploads are limited to 1.0\xa0KB" in html
    assert _counts() == before


@pytest.mark.parametrize("size", [SMALL, LARGE])
@override_settings(UPLOAD_MAX_BYTES_RULES=KB)
def test_a_rule_set_over_its_limit_is_refused_before_it_is_read(researcher, spool, size):
    from director.sessions.services import evaluate_line, verdict_store

    # The comparison form shows once a verdict is stored.
    verdict_store(evaluate_line(text="その考えはすごいです、本当に正しいですね。", speaker="ayu", llm=False))
    data = b"# padding\n" * (size // 10 + 1)
    client = _client(researcher)
    before = _counts()
    response = client.post("/research/director/statistics/compare/", {"rules": SimpleUploadedFile("rules.yaml", data)})
    html = response.content.decode()
    assert response.status_code == 413 and "data-compare-error" in html
    assert "UPLOAD_MAX_BYTES_RULES" in html and f"({len(data):,} bytes)" in html
    assert _counts() == before


def test_the_allowance_for_a_form_s_other_fields_is_small():
    assert FORM_ALLOWANCE <= 64 * KB < LARGE
