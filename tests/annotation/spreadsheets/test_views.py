"""The rating sheet in the browser: who may download and upload what, the summary, the problems table
(nothing stored), CSRF, the size limit, and large sheets checked and stored by a job."""

import csv
import io
import logging

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.utils import translation
from openpyxl import load_workbook

import annotation.spreadsheets.uploads as sheet_uploads
from annotation.axes import AXES
from annotation.models import Annotation, Batch, Dialogue, ItemComment
from annotation.spreadsheets import layout
from annotation.spreadsheets.upload_jobs import SHEET_UPLOAD, sheet_upload
from annotation.spreadsheets.uploads import sheet_summary_text
from core.job_display import job_summary
from core.job_runner import job_run
from core.jobs import Progress
from core.models import Job
from tests.annotation.conftest import dialogue
from tests.helpers import make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
HTMX = {"HX-Request": "true"}
COLUMN = {key: index + 1 for index, key in enumerate(layout.KEYS)}


@pytest.fixture
def batch(jsonl):
    """Batch "sheet" of six dialogues, open to every annotator."""
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(6)])), batch="sheet")
    return Batch.objects.get(name="sheet")


@pytest.fixture
def other_batch(jsonl):
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(50, 53)])), batch="other")
    return Batch.objects.get(name="other")


def _client(user, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    client.cookies["django_language"] = "en"  # assert on the English msgids whatever the catalogue holds
    return client


@pytest.fixture
def ann():
    return make_qualified_annotator("ann_q")


@pytest.fixture
def ann_client(ann):
    return _client(ann)


@pytest.fixture
def res_client(researcher):
    return _client(researcher)


def _urls(batch) -> dict[str, str]:
    return {
        "template": f"/annotate/{batch.pk}/sheet.xlsx",
        "page": f"/annotate/{batch.pk}/sheet/",
        "batch_template": f"/research/batches/{batch.pk}/sheet.xlsx",
        "batch_page": f"/research/batches/{batch.pk}/sheet/",
    }


def _download(client, batch) -> bytes:
    response = client.get(_urls(batch)["template"])
    assert response.status_code == 200 and response["Content-Type"] == XLSX
    return response.content


def _fill(content: bytes, rows: dict[str, tuple], *, texts: dict[str, str] | None = None, comment=None) -> bytes:
    """The workbook with ``rows`` ({id: four scores, None for a blank}) filled in; ``texts`` ({id: new user
    text}) edits a locked text."""
    book = load_workbook(io.BytesIO(content))
    sheet = book[layout.RATINGS_SHEET]
    for row in range(2, sheet.max_row + 1):
        key = sheet.cell(row=row, column=COLUMN["id"]).value
        for axis, score in zip(AXES, rows.get(key, ()), strict=False):
            sheet.cell(row=row, column=COLUMN[axis]).value = score
        if texts and key in texts:
            sheet.cell(row=row, column=COLUMN["user"]).value = texts[key]
        if comment and key in comment:
            sheet.cell(row=row, column=COLUMN["comment"]).value = comment[key]
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _file(data: bytes, name="sheet.xlsx") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=XLSX if name.endswith(".xlsx") else "text/csv")


def _csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows([list(layout.HEADERS), *rows])
    return out.getvalue().encode("utf-8")


def _csv_row(i: int, scores=("1", "2", "3", "4")) -> list[str]:
    """A CSV row of ``dialogue(i)`` with its locked texts as stored."""
    data = dialogue(i)
    row = [""] * len(layout.KEYS)
    texts = {"id": data["id"], "context": layout.context_text(data["context"]), "user": data["user"],
             "response": data["response"]}  # fmt: skip
    for key, text in texts.items():
        row[layout.KEYS.index(key)] = text
    for axis, score in zip(AXES, scores, strict=True):
        row[layout.KEYS.index(axis)] = score
    return row


def _stored(username="ann_q") -> dict[str, tuple]:
    return {
        a.dialogue.external_id: (tuple(getattr(a, f"{axis}_score") for axis in AXES), a.source)
        for a in Annotation.objects.filter(annotator__username=username).select_related("dialogue")
    }


def _uploads_left() -> list:
    folder = sheet_uploads.Path(sheet_uploads.settings.VAR_DIR) / sheet_uploads.UPLOAD_FOLDER
    return list(folder.glob("*/*")) if folder.exists() else []


GOOD = {"dialogue_000": (1, 2, 3, 4), "dialogue_002": (5, 5, 5, 5), "dialogue_004": (2, 2, 1, 1)}
THREE_ERRORS = {"dialogue_001": (7, 1, 1, 1), "dialogue_003": (1, 2, 3, None), "dialogue_005": (1, 1, 1, 1)}


# ---------------------------------------------------------------------------------------------- who may


def test_anonymous_users_are_sent_to_the_login_page(client, batch):
    for url in _urls(batch).values():
        for method in (client.get, client.post):
            response = method(url)
            assert response.status_code == 302 and response["Location"].startswith("/login/"), url


def test_an_annotator_cannot_use_the_researchers_urls(ann_client, batch):
    urls = _urls(batch)
    assert ann_client.get(urls["batch_template"], {"annotator": "1"}).status_code == 403
    assert ann_client.get(urls["batch_page"]).status_code == 403
    assert ann_client.post(urls["batch_page"], {"file": _file(_csv([_csv_row(0)]), "x.csv")}).status_code == 403
    assert not Annotation.objects.exists()


def test_a_researcher_cannot_use_the_annotators_urls(res_client, batch):
    urls = _urls(batch)
    assert res_client.get(urls["template"]).status_code == 403
    assert res_client.get(urls["page"]).status_code == 403
    assert res_client.post(urls["page"], {"file": _file(_csv([_csv_row(0)]), "x.csv")}).status_code == 403


def test_an_unqualified_annotator_is_sent_to_training_as_the_rating_page_does(batch):
    client = _client(make_user("ann_new", "annotator"))
    for url in (_urls(batch)["template"], _urls(batch)["page"], f"/annotate/{batch.pk}/"):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"] == "/training/", url


def test_a_batch_closed_or_restricted_to_others_is_not_found_for_an_annotator(ann_client, batch):
    batch.restricted = True
    batch.save()
    batch.annotators.add(make_user("ann_chosen", "annotator"))
    assert ann_client.get(_urls(batch)["template"]).status_code == 404
    assert ann_client.get(_urls(batch)["page"]).status_code == 404
    batch.restricted, batch.status = False, Batch.Status.CLOSED
    batch.save()
    assert ann_client.get(_urls(batch)["page"]).status_code == 404
    assert ann_client.get("/annotate/999999/sheet.xlsx").status_code == 404


# ---------------------------------------------------------------------------------------------- annotators


def test_the_annotator_downloads_their_own_workbook(ann_client, batch):
    response = ann_client.get(_urls(batch)["template"])
    assert response["Content-Disposition"] == 'attachment; filename="sheet-ann_q.xlsx"'
    assert "no-store" in response["Cache-Control"]
    book = load_workbook(io.BytesIO(response.content))
    assert {layout.RATINGS_SHEET, layout.GUIDE_SHEET, layout.META_SHEET} <= set(book.sheetnames)
    meta = {row[0]: row[1] for row in book[layout.META_SHEET].iter_rows(values_only=True) if row[0] in layout.META_KEYS}
    assert meta["annotator"] == "ann_q" and str(meta["batch_id"]) == str(batch.pk) and meta["batch"] == "sheet"
    ids = [row[0] for row in book[layout.RATINGS_SHEET].iter_rows(min_row=2, values_only=True)]
    assert ids == [f"dialogue_{i:03d}" for i in range(6)]


def test_a_japanese_batch_name_gives_an_encoded_file_name(ann_client, batch):
    batch.name = "冬の対話/2"
    batch.save()
    disposition = ann_client.get(_urls(batch)["template"])["Content-Disposition"]
    assert disposition.startswith("attachment; filename*=utf-8''") and "%E5%86%AC" in disposition
    assert "/" not in disposition.split("''", 1)[1]


def test_a_text_no_cell_can_hold_sends_back_to_the_page_with_the_reason(ann_client, res_client, batch, ann):
    Dialogue.objects.filter(external_id="dialogue_003").update(response_text="長" * 40_000)
    response = ann_client.get(_urls(batch)["template"], follow=True)
    assert response.redirect_chain == [(_urls(batch)["page"], 302)]
    assert "The sheet could not be made: item &#x27;dialogue_003&#x27;, field &#x27;response&#x27;: 40000" in (
        response.content.decode()
    )
    response = res_client.get(_urls(batch)["batch_template"], {"annotator": ann.pk})
    assert response.status_code == 302 and response["Location"] == _urls(batch)["batch_page"]


def test_the_sheet_page_offers_the_download_and_the_upload(ann_client, batch):
    html = ann_client.get(_urls(batch)["page"]).content.decode()
    assert "Rate in a spreadsheet" in html
    assert f'href="/annotate/{batch.pk}/sheet.xlsx"' in html
    assert 'enctype="multipart/form-data"' in html and 'name="dry_run"' in html and "csrfmiddlewaretoken" in html
    listing = ann_client.get("/annotate/").content.decode()
    assert f'href="/annotate/{batch.pk}/sheet/" data-sheet="sheet"' in listing


def test_a_good_sheet_is_stored_with_its_summary_and_a_second_upload_changes_nothing(ann_client, batch):
    data = _fill(_download(ann_client, batch), GOOD, comment={"dialogue_002": "長い応答"})
    response = ann_client.post(_urls(batch)["page"], {"file": _file(data)})
    assert response.status_code == 302 and response["Location"] == _urls(batch)["page"]
    assert _stored() == {key: (scores, "spreadsheet") for key, scores in GOOD.items()}
    assert ItemComment.objects.get().text == "長い応答"
    page = ann_client.get(response["Location"]).content.decode()
    assert "3 ratings stored (3 new, 3 rows left blank). 1 comment sent." in page
    assert _uploads_left() == []

    again = ann_client.post(_urls(batch)["page"], {"file": _file(data)}, follow=True).content.decode()
    assert "0 ratings stored (3 unchanged, 3 rows left blank)." in again


def test_check_only_stores_nothing_and_says_what_would_be_stored(ann_client, batch):
    data = _fill(_download(ann_client, batch), GOOD)
    page = ann_client.post(_urls(batch)["page"], {"file": _file(data), "dry_run": "on"}, follow=True)
    assert "Checked, no problems: 3 ratings would be stored (3 new, 3 rows left blank). Nothing was stored (check " \
           "only)." in page.content.decode()  # fmt: skip
    assert not Annotation.objects.exists()


def test_a_sheet_with_three_errors_lists_all_three_and_stores_nothing(ann_client, batch):
    data = _fill(_download(ann_client, batch), {**GOOD, **THREE_ERRORS}, texts={"dialogue_005": "書き換えた発話"})
    response = ann_client.post(_urls(batch)["page"], {"file": _file(data, "mine.xlsx")})
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-problems="3"' in html and "mine.xlsx: 3 problems found. Nothing was stored." in html
    assert 'data-row="3" data-column="E"' in html and "must be an integer from 1 to 5, got &#x27;7&#x27;" in html
    assert 'data-row="5" data-column="H"' in html and "blank on a partly filled row" in html
    assert 'data-row="7" data-column=""' in html and "the locked texts of this row were changed" in html
    assert "<code>E</code>" in html and layout.HEADERS[layout.KEYS.index("social")] in html
    assert not Annotation.objects.exists() and _uploads_left() == []


def test_problem_values_are_escaped(ann_client, batch):
    data = _csv([_csv_row(0, scores=("<script>alert(1)</script>", "1", "1", "1"))])
    response = ann_client.post(_urls(batch)["page"], {"file": _file(data, "<img src=x onerror=alert(2)>.csv")})
    html = response.content.decode()
    assert response.status_code == 400
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(2)&gt;.csv: 1 problem found." in html


def test_an_annotator_cannot_store_another_annotators_sheet(ann_client, batch):
    others = _fill(_client(make_qualified_annotator("ann_third")).get(_urls(batch)["template"]).content, GOOD)
    response = ann_client.post(_urls(batch)["page"], {"file": _file(others)})
    assert response.status_code == 400 and "this sheet was made for &#x27;ann_third&#x27;" in response.content.decode()
    assert not Annotation.objects.exists()


def test_an_annotators_csv_is_stored_as_theirs(ann_client, batch):
    response = ann_client.post(_urls(batch)["page"], {"file": _file(_csv([_csv_row(1), _csv_row(2)]), "mine.csv")})
    assert response.status_code == 302
    assert _stored() == {"dialogue_001": ((1, 2, 3, 4), "spreadsheet"), "dialogue_002": ((1, 2, 3, 4), "spreadsheet")}


def test_a_sheet_of_another_batch_stores_nothing(ann_client, batch, other_batch):
    data = _fill(_download(ann_client, other_batch), {"dialogue_050": (1, 1, 1, 1)})
    response = ann_client.post(_urls(batch)["page"], {"file": _file(data)})
    assert response.status_code == 400
    assert "this is a sheet of batch &#x27;other&#x27;, not of &#x27;sheet&#x27;" in response.content.decode()
    assert not Annotation.objects.exists()


def test_an_empty_post_or_a_file_over_the_limit_is_refused_beside_the_field(ann_client, batch, settings):
    response = ann_client.post(_urls(batch)["page"], {})
    assert response.status_code == 400 and "This field is required." in response.content.decode()
    settings.UPLOAD_MAX_BYTES_SPREADSHEET = 100
    response = ann_client.post(_urls(batch)["page"], {"file": _file(_csv([_csv_row(0)]), "big.csv")})
    html = response.content.decode()
    assert response.status_code == 400 and "uploads are limited to 100\xa0bytes" in html
    assert not Annotation.objects.exists() and _uploads_left() == []


@pytest.mark.parametrize("role", ["annotator", "researcher"])
def test_a_post_without_the_csrf_token_is_refused(batch, ann, researcher, role):
    user, url = (ann, _urls(batch)["page"]) if role == "annotator" else (researcher, _urls(batch)["batch_page"])
    client = _client(user, enforce_csrf_checks=True)
    response = client.post(url, {"file": _file(_csv([_csv_row(0)]), "x.csv"), "annotator": ann.pk})
    assert response.status_code == 403
    assert not Annotation.objects.exists()


# ---------------------------------------------------------------------------------------------- large sheets


def test_a_large_sheet_goes_to_a_job_that_stores_it_and_the_page_follows_it(ann_client, batch, monkeypatch):
    monkeypatch.setattr(sheet_uploads, "LARGE_UPLOAD_BYTES", 1000)
    data = _fill(_download(ann_client, batch), GOOD)
    response = ann_client.post(_urls(batch)["page"], {"file": _file(data)})
    job = Job.objects.get(kind=SHEET_UPLOAD)
    assert response.status_code == 302 and response["Location"] == f"{_urls(batch)['page']}?job={job.pk}"
    assert job.params["annotator_id"] == job.created_by.pk and job.params["page"] == "annotator"
    assert not Annotation.objects.exists()  # the worker stores them
    page = ann_client.get(response["Location"]).content.decode()
    assert "is being checked by a worker" in page and f'hx-get="{_urls(batch)["page"]}?job={job.pk}"' in page

    job_run(job_id=job.pk)  # what the worker does
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert _stored() == {key: (scores, "spreadsheet") for key, scores in GOOD.items()}
    assert (job.result["created"], job.result["skipped"]) == (3, 3) and _uploads_left() == []
    poll = ann_client.get(response["Location"], headers=HTMX)
    assert "<html" not in poll.content.decode() and "hx-trigger" not in poll.content.decode()
    with translation.override("en"):
        assert job_summary(job) == ("3 ratings stored (3 new, 3 rows left blank).", _urls(batch)["page"])
    # Another annotator cannot follow it.
    stranger = _client(make_qualified_annotator("ann_stranger"))
    assert stranger.get(response["Location"]).status_code == 404


def test_a_large_csv_with_problems_fails_its_job_and_the_page_lists_them(ann_client, batch, monkeypatch):
    monkeypatch.setattr(sheet_uploads, "LARGE_UPLOAD_ROWS", 2)
    data = _csv([_csv_row(0), _csv_row(1, scores=("9", "1", "1", "1")), _csv_row(2, scores=("1", "", "1", "1"))])
    response = ann_client.post(_urls(batch)["page"], {"file": _file(data, "big.csv")})
    job = Job.objects.get(kind=SHEET_UPLOAD)
    assert job.params["rows"] == data.count(b"\n") - 1  # lines less the header (a context cell holds two)
    running = ann_client.get(response["Location"], headers=HTMX).content.decode()
    assert 'hx-trigger="every 2s"' in running
    job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "2 problem(s); nothing was stored" in job.error
    assert [(p["row"], p["column"]) for p in job.result["problems"]] == [(3, "E"), (4, "F")]
    assert not Annotation.objects.exists()
    html = ann_client.get(response["Location"], headers=HTMX).content.decode()
    assert 'data-problems="2"' in html and "big.csv: 2 problems found." in html and "hx-trigger" not in html


def test_a_refused_sheet_job_is_logged_as_one_warning_line_without_traceback(ann_client, batch, monkeypatch, caplog):
    monkeypatch.setattr(sheet_uploads, "LARGE_UPLOAD_ROWS", 0)
    commented = _csv_row(1)
    commented[layout.KEYS.index("comment")] = '=HYPERLINK("http://x","y")'
    data = _csv([_csv_row(0, scores=("9", "1", "1", "1")), commented])
    ann_client.post(_urls(batch)["page"], {"file": _file(data, "big.csv")})
    job = Job.objects.get(kind=SHEET_UPLOAD)
    with caplog.at_level(logging.INFO):
        job_run(job_id=job.pk)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "big.csv: 2 problem(s); nothing was stored" in job.error
    assert [(p["row"], p["column"]) for p in job.result["problems"]] == [(2, "E"), (3, "M")]
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [(r.name, r.levelno) for r in records] == [("core.job_runner", logging.WARNING)]
    assert records[0].exc_info is None and "\n" not in records[0].getMessage() and "Traceback" not in caplog.text
    assert "big.csv: 2 problem(s); nothing was stored" in records[0].getMessage()


def test_a_researchers_large_check_only_upload_stores_nothing(res_client, batch, ann, monkeypatch):
    monkeypatch.setattr(sheet_uploads, "LARGE_UPLOAD_ROWS", 0)
    data = _csv([_csv_row(0)])
    response = res_client.post(_urls(batch)["batch_page"], {"file": _file(data, "x.csv"), "annotator": ann.pk,
                                                            "dry_run": "on"})  # fmt: skip
    job = Job.objects.get(kind=SHEET_UPLOAD)
    assert response["Location"] == f"{_urls(batch)['batch_page']}?job={job.pk}"
    result = sheet_upload(job, Progress(lambda *args: None, lambda: False))
    assert result["dry_run"] and result["created"] == 1 and result["annotator"] == "ann_q"
    assert not Annotation.objects.exists()
    job.status, job.result = Job.Status.SUCCEEDED, result
    with translation.override("en"):
        text, url = job_summary(job)
    assert text.endswith("Nothing was stored (check only).") and url == f"/research/batches/{batch.pk}/"
    assert res_client.get(response["Location"]).status_code == 200  # researchers follow any sheet job of the batch


def test_a_job_of_another_batch_or_no_job_is_not_found(ann_client, batch, other_batch):
    assert ann_client.get(_urls(batch)["page"], {"job": "not-a-uuid"}).status_code == 404
    assert ann_client.get(_urls(batch)["page"], {"job": "6f1c1c8e-9d5e-4d43-9a55-0d6f1f1b2c3d"}).status_code == 404


# ---------------------------------------------------------------------------------------------- researchers


def test_a_researcher_downloads_any_annotators_template(res_client, batch, ann):
    response = res_client.get(_urls(batch)["batch_template"], {"annotator": ann.pk})
    assert response.status_code == 200 and response["Content-Type"] == XLSX
    assert response["Content-Disposition"] == 'attachment; filename="sheet-ann_q.xlsx"'
    meta = {row[0]: row[1] for row in load_workbook(io.BytesIO(response.content))[layout.META_SHEET].iter_rows(
        values_only=True)}  # fmt: skip
    assert meta["annotator"] == "ann_q"


def test_a_template_for_no_annotator_a_non_annotator_an_unchosen_one_or_a_closed_batch_is_refused(
    res_client, batch, ann, researcher
):
    url = _urls(batch)["batch_template"]
    for params in ({}, {"annotator": "x"}, {"annotator": researcher.pk}, {"annotator": 999999}):
        response = res_client.get(url, params)
        assert response.status_code == 400 and "Choose an annotator of this batch" in response.content.decode()
    batch.restricted = True
    batch.save()
    assert res_client.get(url, {"annotator": ann.pk}).status_code == 400
    batch.annotators.add(ann)
    assert res_client.get(url, {"annotator": ann.pk}).status_code == 200
    batch.status = Batch.Status.CLOSED
    batch.save()
    response = res_client.get(url, {"annotator": ann.pk})
    assert response.status_code == 400 and "This batch is closed" in response.content.decode()


def test_the_batch_page_has_a_spreadsheets_card(res_client, batch, ann):
    make_user("ann_plain", "annotator")
    html = res_client.get(f"/research/batches/{batch.pk}/").content.decode()
    card = html[html.index('data-card="spreadsheets"') :]
    assert f'action="/research/batches/{batch.pk}/sheet.xlsx"' in card
    assert f'action="/research/batches/{batch.pk}/sheet/"' in card and "csrfmiddlewaretoken" in card
    assert f'<option value="{ann.pk}">ann_q</option>' in card and ">ann_plain</option>" in card
    assert 'id="sheet-annotator"' in card and 'id="sheet-up-file"' in card  # apart from the page's own "id_file"


def test_a_researcher_uploads_a_workbook_for_the_annotator_it_names(res_client, ann_client, batch):
    data = _fill(_download(ann_client, batch), GOOD)
    response = res_client.post(_urls(batch)["batch_page"], {"file": _file(data)})
    assert response.status_code == 302 and response["Location"] == f"/research/batches/{batch.pk}/"
    assert set(_stored()) == set(GOOD)
    page = res_client.get(response["Location"]).content.decode()
    assert "Sheet of ann_q: 3 ratings stored (3 new, 3 rows left blank)." in page


def test_a_researchers_csv_needs_the_annotator_and_a_mismatching_choice_is_a_problem(res_client, ann_client, batch,
                                                                                      ann):  # fmt: skip
    url = _urls(batch)["batch_page"]
    data = _csv([_csv_row(3)])
    response = res_client.post(url, {"file": _file(data, "x.csv")})
    assert response.status_code == 400 and "a CSV does not say whose ratings it holds" in response.content.decode()
    assert res_client.post(url, {"file": _file(data, "x.csv"), "annotator": ann.pk}).status_code == 302
    assert set(_stored()) == {"dialogue_003"}
    other = make_user("ann_other", "annotator")
    workbook = _fill(_download(ann_client, batch), GOOD)
    response = res_client.post(url, {"file": _file(workbook), "annotator": other.pk})
    assert response.status_code == 400 and "this sheet was made for &#x27;ann_q&#x27;" in response.content.decode()
    assert set(_stored()) == {"dialogue_003"} and not _stored("ann_other")


# ---------------------------------------------------------------------------------------------- summary text


@pytest.mark.parametrize(
    ("counts", "text"),
    [
        ({"created": 1, "updated": 0, "unchanged": 0, "skipped": 0}, "1 rating stored (1 new)."),
        ({"created": 9, "updated": 3, "unchanged": 5, "skipped": 1, "comments": 2},
         "12 ratings stored (9 new, 3 changed, 5 unchanged, 1 row left blank). 2 comments sent."),
        ({"created": 0, "updated": 0, "unchanged": 0, "skipped": 4}, "0 ratings stored (4 rows left blank)."),
        ({"created": 1200, "updated": 0, "unchanged": 0, "skipped": 0, "comments": 1, "dry_run": True},
         "Checked, no problems: 1,200 ratings would be stored (1,200 new). Nothing was stored (check only)."),
    ],
)  # fmt: skip
def test_the_summary_in_peoples_words(counts, text):
    with translation.override("en"):
        assert sheet_summary_text(**counts) == text
