"""``batches/{id}/export/...`` (issue 31): a batch's ratings, consensus and rejected items streamed, byte for byte the
dashboard's downloads, for researchers only, with JSON refusals."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

import pytest

from annotation.models import Annotation, Dialogue
from annotation.review.services import adjudication_record
from core.spreadsheet_cells import neutralise_formula
from tests.annotation.api.support import API, logged_in, make_batch, token_client

pytestmark = pytest.mark.django_db

FILES = ["ratings.jsonl", "ratings.csv", "consensus.jsonl", "consensus.csv", "rejected.jsonl", "rejected.csv"]
HOSTILE = '=HYPERLINK("http://x")<script>alert("x")</script>'


class _FixedNow(datetime):
    @classmethod
    def now(cls, tz=None):
        return datetime(2025, 1, 31, 9, 40, tzinfo=UTC)


@pytest.fixture
def batch(disputed_batch, researcher, monkeypatch):
    """The disputed batch, one dialogue id and one adjudication reason hostile; merges stamped at a fixed time."""
    monkeypatch.setattr("annotation.aggregation.consensus.datetime", _FixedNow)
    Dialogue.objects.filter(batch=disputed_batch, external_id="dialogue_001").update(external_id=HOSTILE)
    decided = Dialogue.objects.get(batch=disputed_batch, external_id="dialogue_002")  # dialogue_000 stays rejected
    adjudication_record(dialogue=decided, axis="social", score=3, reason=HOSTILE, user=researcher)
    return disputed_batch


def _body(response) -> bytes:
    assert response.streaming
    return b"".join(response.streaming_content)


@pytest.mark.parametrize(
    ("name", "query"),
    [(name, query) for name in FILES for query in ("", "?include_llm=0", "?include_llm=1")
     if not (name.startswith("ratings") and query)],  # include_llm is a parameter of the merged files
)  # fmt: skip
def test_every_file_is_the_dashboards_download_byte_for_byte(res, batch, name, query):
    api = res.get(f"{API}batches/{batch.pk}/export/{name}{query}")
    page = res.get(f"/research/agreement/{batch.pk}/{name}{query}")
    assert api.status_code == 200 and page.status_code == 200
    dashboard = b"".join(page.streaming_content) if page.streaming else page.content
    assert _body(api) == dashboard and dashboard
    assert api["Content-Disposition"] == page["Content-Disposition"]
    assert api["Content-Type"] == page["Content-Type"]
    suffix = "-with-llm" if query.endswith("1") else ""
    stem, extension = name.split(".")
    expected = f"adj-{stem}{suffix if stem != 'ratings' else ''}.{extension}"
    assert api["Content-Disposition"] == f'attachment; filename="{expected}"'


def test_the_ratings_are_every_rating_of_the_batch_and_hostile_text_survives(res, batch):
    make_batch("other", n_items=2)  # another batch's dialogues stay out
    lines = _body(res.get(f"{API}batches/{batch.pk}/export/ratings.jsonl")).decode().splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == Annotation.objects.filter(dialogue__batch=batch).count() == 18
    assert sum(row["id"] == HOSTILE for row in rows) == 3  # JSON escapes what it must; the text comes back whole
    assert json.dumps(HOSTILE, ensure_ascii=False) in lines[[row["id"] for row in rows].index(HOSTILE)]
    text = _body(res.get(f"{API}batches/{batch.pk}/export/ratings.csv")).decode("utf-8")
    assert text.startswith("\ufeff") and "\r\n" in text
    table = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert len(table) == 18 and sum(row["id"] == neutralise_formula(HOSTILE) for row in table) == 3
    assert neutralise_formula(HOSTILE) != HOSTILE and not any(row["id"].startswith("=") for row in table)


def test_the_consensus_carries_the_adjudication_reason_escaped(res, batch):
    rows = [json.loads(line) for line in _body(res.get(f"{API}batches/{batch.pk}/export/consensus.jsonl")).splitlines()]
    decided = next(row for row in rows if row["id"] == "dialogue_002")
    assert decided["adjudicated"]["social"]["reason"] == HOSTILE
    text = _body(res.get(f"{API}batches/{batch.pk}/export/consensus.csv")).decode("utf-8")
    table = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    row = next(row for row in table if row["id"] == "dialogue_002")
    assert row["social_adjudicated_reason"] == neutralise_formula(HOSTILE)


def test_scripts_download_with_a_token_whatever_they_accept(researcher, batch):
    script = token_client(researcher)
    for name, accept in (("ratings.csv", "text/csv"), ("ratings.jsonl", "application/x-ndjson"),
                         ("rejected.csv", "*/*"), ("consensus.jsonl", "application/json")):  # fmt: skip
        response = script.get(f"{API}batches/{batch.pk}/export/{name}", headers={"Accept": accept})
        assert response.status_code == 200 and _body(response), name


@pytest.mark.parametrize("name", FILES)
def test_anonymous_401_annotators_403_in_json(client, qualified, batch, name):
    anonymous = client.get(f"{API}batches/{batch.pk}/export/{name}")
    assert anonymous.status_code == 401 and anonymous.json()["success"] is False
    annotator = logged_in(qualified).get(f"{API}batches/{batch.pk}/export/{name}")
    assert annotator.status_code == 403 and annotator["Content-Type"] == "application/json"


@pytest.mark.parametrize("name", FILES)
def test_an_unknown_batch_is_a_404_in_json(res, name):
    response = res.get(f"{API}batches/999/export/{name}", headers={"Accept": "text/csv"})
    assert response.status_code == 404 and response.json()["error"] == "no batch with id 999"


@pytest.mark.parametrize("name", [n for n in FILES if not n.startswith("ratings")])
@pytest.mark.parametrize("value", ["2", "yes", "", "true"])
def test_a_bad_include_llm_is_a_400_naming_it(res, batch, name, value):
    response = res.get(f"{API}batches/{batch.pk}/export/{name}", {"include_llm": value})
    body = response.json()
    assert response.status_code == 400 and body["field"] == "include_llm"
    if value:  # empty: refused as every empty parameter is (issue 41), in the reader's language
        assert "accepted 0" in body["error"]


def test_a_batch_without_ratings(res):
    empty = make_batch("empty", n_items=2)
    assert _body(res.get(f"{API}batches/{empty.pk}/export/ratings.jsonl")) == b""
    header = _body(res.get(f"{API}batches/{empty.pk}/export/ratings.csv")).decode("utf-8")
    assert header.startswith("\ufeffid,annotator_id,timestamp,source,") and header.count("\r\n") == 1
    response = res.get(f"{API}batches/{empty.pk}/export/consensus.csv")
    assert response.status_code == 404 and "no ratings yet" in response.json()["error"]
