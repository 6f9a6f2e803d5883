"""``GET batch/<batchId>/export/trials.jsonl|csv`` (issue 31): a batch's trials with their metrics, streamed; the CSV
is ``layer3-export?format=csv`` byte for byte, the NDJSON the JSON export's trials one per line."""

import csv
import io
import json

import pytest

from core.spreadsheet_cells import neutralise_formula
from layer3.models import Batch, TrialLog
from tests.layer3.api.test_api import api, batch, evaluated  # noqa: F401

pytestmark = pytest.mark.django_db

BASE = "/api/experiment/batch/"
HOSTILE = '=HYPERLINK("http://x")<script>alert("x")</script>'


def _body(response) -> bytes:
    assert response.status_code == 200 and response.streaming, response.status_code
    return b"".join(response.streaming_content)


def test_the_csv_is_the_layer3_export_csv_byte_for_byte(api, evaluated):  # noqa: F811
    for query in ("", "?modelConfig=A"):
        served = api.get(f"{BASE}b/export/trials.csv{query}")
        export = api.get(f"{BASE}b/layer3-export?format=csv" + query.replace("?", "&"))
        assert _body(served) == _body(export)
        assert served["Content-Disposition"] == export["Content-Disposition"]
        assert served["Content-Type"] == "text/csv; charset=utf-8"
    assert api.get(f"{BASE}b/export/trials.csv")["Content-Disposition"] == 'attachment; filename="layer3-b.csv"'
    by_id = api.get(f"{BASE}{evaluated.pk}/export/trials.csv")  # the batch's id or its name
    assert _body(by_id).startswith(b"\xef\xbb\xbfid,modelConfig,status,")


def test_the_ndjson_is_the_json_exports_trials_one_per_line(api, evaluated):  # noqa: F811
    served = api.get(f"{BASE}b/export/trials.jsonl")
    assert served["Content-Type"] == "application/x-ndjson; charset=utf-8"
    assert served["Content-Disposition"] == 'attachment; filename="layer3-b.jsonl"'
    text = _body(served).decode("utf-8")
    assert text.endswith("\n") and "\r" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    document = json.loads(_body(api.get(f"{BASE}b/layer3-export?format=json&includeRawData=true")))
    assert lines == document["trials"] and len(lines) == 20
    assert all(set(line) == {"id", "modelConfig", "layer3Metrics"} for line in lines)
    with_metrics = TrialLog.objects.filter(batch=evaluated, layer3_metrics__isnull=False).count()
    assert sum(line["layer3Metrics"] is not None for line in lines) == with_metrics >= 19
    only_a = [json.loads(line) for line in _body(api.get(f"{BASE}b/export/trials.jsonl?modelConfig=A")).splitlines()]
    assert only_a == [line for line in lines if line["modelConfig"] == "A"] and only_a
    named = api.get(f"{BASE}b/export/trials.jsonl?modelConfig=A")["Content-Disposition"]
    assert named == 'attachment; filename="layer3-b-A.jsonl"'


def test_a_batch_not_evaluated_yet_answers_its_trials_unevaluated(api, batch):  # noqa: F811
    lines = [json.loads(line) for line in _body(api.get(f"{BASE}b/export/trials.jsonl")).splitlines()]
    assert len(lines) == TrialLog.objects.filter(batch=batch).count() and all(
        line["layer3Metrics"] is None for line in lines
    )
    text = _body(api.get(f"{BASE}b/export/trials.csv")).decode("utf-8").removeprefix("\ufeff")
    assert {row["status"] for row in csv.DictReader(io.StringIO(text))} == {"unevaluated"}


def test_hostile_text_survives_escaped(api, evaluated):  # noqa: F811
    first = TrialLog.objects.filter(batch=evaluated).order_by("external_id").first()
    TrialLog.objects.filter(pk=first.pk).update(external_id=HOSTILE)
    lines = _body(api.get(f"{BASE}b/export/trials.jsonl")).decode("utf-8").splitlines()
    assert sum(json.loads(line)["id"] == HOSTILE for line in lines) == 1
    assert any(json.dumps(HOSTILE, ensure_ascii=False) in line for line in lines)
    text = _body(api.get(f"{BASE}b/export/trials.csv")).decode("utf-8").removeprefix("\ufeff")
    ids = [row["id"] for row in csv.DictReader(io.StringIO(text))]
    assert neutralise_formula(HOSTILE) in ids and HOSTILE not in ids


@pytest.mark.parametrize("name", ["trials.jsonl", "trials.csv"])
def test_refusals_are_json(client, annotator, api, batch, name):  # noqa: F811
    from django.test import Client

    anonymous = Client().get(f"{BASE}b/export/{name}")
    assert anonymous.status_code == 401 and anonymous.json()["success"] is False
    outsider = Client()
    outsider.force_login(annotator)
    assert outsider.get(f"{BASE}b/export/{name}").status_code == 403
    missing = api.get(f"{BASE}nope/export/{name}", headers={"Accept": "text/csv"})
    assert missing.status_code == 404 and "nope" in missing.json()["error"]
    unknown = api.get(f"{BASE}b/export/{name}?modelConfig=Z")
    assert unknown.status_code == 404 and unknown.json()["field"] == "modelConfig"
    assert "A" in unknown.json()["error"]
    assert _body(api.get(f"{BASE}b/export/{name}", headers={"Accept": "text/csv"}))
    assert Batch.objects.count() == 1
