"""Spreadsheet downloads from the agreement dashboard: the export commands' .xlsx and CSV files; researchers only."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.io import sheets
from annotation.models import Annotation, Dialogue
from annotation.review.services import adjudication_record
from tests.annotation.dashboard.test_dashboard import batch, researcher_client  # noqa: F401
from tests.annotation.io.test_sheets_export import csv_rows, xlsx_rows
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

XLSX = sheets.XLSX_CONTENT_TYPE
CSV = "text/csv; charset=utf-8"
# (path, URL name, content type, file name for batch "b1")
DOWNLOADS = [
    ("ratings.xlsx", "download-ratings-xlsx", XLSX, "b1-ratings.xlsx"),
    ("ratings.csv", "download-ratings-csv", CSV, "b1-ratings.csv"),
    ("consensus.xlsx", "download-consensus-xlsx", XLSX, "b1-consensus.xlsx"),
    ("consensus.csv", "download-consensus-csv", CSV, "b1-consensus.csv"),
    ("rejected.csv", "download-rejected-csv", CSV, "b1-rejected.csv"),
]


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def _url(stored, path: str) -> str:
    return f"/research/agreement/{stored.pk}/{path}"


@pytest.mark.parametrize(("path", "name", "content_type", "filename"), DOWNLOADS)
def test_each_download_is_an_attachment_named_after_the_batch(
    researcher_client,  # noqa: F811
    batch,  # noqa: F811
    path,
    name,
    content_type,
    filename,
):
    assert reverse(f"annotation:{name}", args=[batch.pk]) == _url(batch, path)
    response = researcher_client.get(_url(batch, path))
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == f'attachment; filename="{filename}"'
    assert body(response)


def test_the_dashboard_links_every_spreadsheet_download(researcher_client, batch):  # noqa: F811
    html = researcher_client.get(f"/research/agreement/?batch={batch.pk}").content.decode()
    for path, _name, _type, _file in DOWNLOADS:
        kind = path.replace(".", "-")
        assert f'href="{_url(batch, path)}" download data-download="{kind}"' in html
    assert "Ratings (Excel workbook)" in html and "Rejected items with their reasons (CSV)" in html


def test_the_ratings_are_the_export_annotations_files(researcher_client, batch, tmp_path):  # noqa: F811
    call_command("export_annotations", "-o", str(tmp_path / "r.xlsx"), "--format", "xlsx", "--batch", "b1")
    call_command("export_annotations", "-o", str(tmp_path / "r.csv"), "--format", "csv", "--batch", "b1")
    served = xlsx_rows(body(researcher_client.get(_url(batch, "ratings.xlsx"))), sheets.RATINGS_SHEET)
    assert served == xlsx_rows(tmp_path / "r.xlsx", sheets.RATINGS_SHEET)
    assert len(served) == Annotation.objects.filter(dialogue__batch=batch).count()
    assert body(researcher_client.get(_url(batch, "ratings.csv"))) == (tmp_path / "r.csv").read_bytes()


def _without_stamp(rows: list[dict]) -> list[dict]:
    for row in rows:
        assert row.pop("timestamp").endswith("Z")
    return rows


def test_consensus_and_rejected_are_the_export_consensus_files(researcher_client, batch, tmp_path):  # noqa: F811
    call_command("export_consensus", "-o", str(tmp_path / "c.xlsx"), "--format", "xlsx", "--batch", "b1")
    call_command("export_consensus", "-o", str(tmp_path / "c.csv"), "--format", "csv", "--batch", "b1")
    workbook = body(researcher_client.get(_url(batch, "consensus.xlsx")))
    assert _without_stamp(xlsx_rows(workbook, sheets.CONSENSUS_SHEET)) == _without_stamp(
        xlsx_rows(tmp_path / "c.xlsx", sheets.CONSENSUS_SHEET)
    )
    rejected = xlsx_rows(workbook, sheets.REJECTED_SHEET)
    assert rejected and rejected == xlsx_rows(tmp_path / "c.xlsx", sheets.REJECTED_SHEET)
    served = csv_rows(body(researcher_client.get(_url(batch, "consensus.csv"))))
    assert served and _without_stamp(served) == _without_stamp(csv_rows((tmp_path / "c.csv").read_bytes()))
    assert (
        body(researcher_client.get(_url(batch, "rejected.csv")))
        == (tmp_path / "rejected" / "low_agreement.csv").read_bytes()
    )


def test_an_adjudication_reason_is_served_formula_safe(client, disputed_batch):
    researcher = make_user("@res", "researcher")
    item = Dialogue.objects.get(external_id="dialogue_001")
    reason = '=HYPERLINK("http://x","理由")'
    adjudication_record(dialogue=item, axis="self", score=5, reason=reason, user=researcher)
    client.force_login(researcher)
    served = xlsx_rows(body(client.get(_url(disputed_batch, "consensus.xlsx"))), sheets.CONSENSUS_SHEET)
    [row] = [r for r in served if r["self_adjudicated"] == 5]
    assert row["self_adjudicated_reason"] == "'" + reason and row["self_adjudicated_by"] == "'@res"
    [line] = [r for r in csv_rows(body(client.get(_url(disputed_batch, "consensus.csv")))) if r["self_adjudicated"]]
    assert line["self_adjudicated_reason"].startswith("'=") and line["self_adjudicated_by"] == "'@res"


@pytest.mark.parametrize("path", [path for path, *_ in DOWNLOADS])
def test_downloads_are_for_researchers_only(client, annotator, batch, path):  # noqa: F811
    response = client.get(_url(batch, path))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login") + "?next=")
    client.force_login(annotator)
    assert client.get(_url(batch, path)).status_code == 403


@pytest.mark.parametrize("path", [path for path, *_ in DOWNLOADS])
def test_an_unknown_batch_is_not_found(researcher_client, batch, path):  # noqa: F811
    assert researcher_client.get(f"/research/agreement/{batch.pk + 999}/{path}").status_code == 404


def test_a_batch_without_ratings_has_no_consensus_but_an_empty_ratings_sheet(researcher_client, jsonl):  # noqa: F811
    from annotation.models import Batch
    from tests.annotation.conftest import dialogue

    call_command("import_dialogues", str(jsonl([dialogue(1)])), batch="empty")
    empty = Batch.objects.get(name="empty")
    for path in ("consensus.xlsx", "consensus.csv", "rejected.csv"):
        assert researcher_client.get(_url(empty, path)).status_code == 404
    assert xlsx_rows(body(researcher_client.get(_url(empty, "ratings.xlsx"))), sheets.RATINGS_SHEET) == []
    assert body(researcher_client.get(_url(empty, "ratings.csv"))) == (
        "\ufeff" + ",".join(sheets.RATING_COLUMNS) + "\r\n"
    ).encode("utf-8")


def test_a_post_is_refused(researcher_client, batch):  # noqa: F811
    assert researcher_client.post(_url(batch, "ratings.xlsx")).status_code == 405
