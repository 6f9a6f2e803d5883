"""Downloads from the agreement dashboard: ratings, consensus and rejected items, the report; researchers only."""

import json

import pytest

from annotation.models import Annotation
from tests.annotation.dashboard.test_dashboard import batch, report, researcher_client  # noqa: F401

pytestmark = pytest.mark.django_db


def lines(response) -> list[dict]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return [json.loads(line) for line in body.decode().splitlines()]


def test_the_dashboard_links_every_download(researcher_client, report):  # noqa: F811
    html = researcher_client.get(f"/research/agreement/?batch={report.batch_id}").content.decode()
    for kind in ("ratings", "consensus", "rejected", "report"):
        assert f'data-download="{kind}"' in html


def test_ratings_are_the_export_annotations_lines(researcher_client, batch):  # noqa: F811
    response = researcher_client.get(f"/research/agreement/{batch.pk}/ratings.jsonl")
    rows = lines(response)
    assert len(rows) == Annotation.objects.filter(dialogue__batch=batch).count()
    assert set(rows[0]) >= {"id", "annotator_id", "annotations", "confidence"}
    assert 'filename="b1-ratings.jsonl"' in response["Content-Disposition"]


def without_stamp(rows: list[dict]) -> list[dict]:
    """The consensus lines without their generation time (the two files are written moments apart)."""
    for row in rows:
        assert row.pop("timestamp").endswith("Z")
    return rows


def test_consensus_and_rejected_are_the_export_consensus_files(researcher_client, batch, tmp_path):  # noqa: F811
    from django.core.management import call_command

    call_command("export_consensus", "--output", str(tmp_path / "c.jsonl"), "--batch", "b1")
    expected = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text(encoding="utf-8").splitlines()]
    assert expected
    served = lines(researcher_client.get(f"/research/agreement/{batch.pk}/consensus.jsonl"))
    assert without_stamp(served) == without_stamp(expected)
    rejected = (tmp_path / "rejected" / "low_agreement.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines(researcher_client.get(f"/research/agreement/{batch.pk}/rejected.jsonl")) == [
        json.loads(line) for line in rejected
    ]
    assert researcher_client.get(f"/research/agreement/{batch.pk}/other.jsonl").status_code == 404


def test_the_report_is_the_stored_one(researcher_client, report):  # noqa: F811
    response = researcher_client.get(f"/research/agreement/{report.batch_id}/report.json")
    assert json.loads(response.content) == report.report


def test_downloads_are_for_researchers(client, annotator, batch):  # noqa: F811
    client.force_login(annotator)
    for url in ("ratings.jsonl", "consensus.jsonl", "report.json"):
        assert client.get(f"/research/agreement/{batch.pk}/{url}").status_code == 403
