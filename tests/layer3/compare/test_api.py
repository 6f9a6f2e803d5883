"""The comparison endpoints: two runs of one batch, two batches, exports, refusals in the API's shape, the schema."""

import csv
import io

import pytest
import yaml
from django.core.management import call_command

from layer3.models import Batch, Layer3Run, TrialLog
from tests.layer3.compare.runs import run

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(researcher_client):
    return researcher_client


def test_two_runs_compare_as_json(api, batch):
    first, second = run(batch, evaluate_gv=False), run(batch, judge="baseline", force=True)
    response = api.get(f"/api/experiment/batch/b/runs/{first.pk}/compare/{second.pk}?sort=trial")
    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["kind"], data["a"]["runId"], data["b"]["runJudge"]) == ("runs", first.pk, "baseline")
    assert data["matching"]["pairs"] == 19 and len(data["rows"]) == 55
    assert data["summary"]["familySize"] == 55
    trials = [row["trialA"] for row in data["changed"]]
    assert trials == sorted(trials)


def test_an_export_downloads_with_its_media_type(api, batch):
    first, second = run(batch), run(batch, judge="baseline", force=True)
    for fmt, media in (("csv", "text/csv"), ("markdown", "text/markdown"), ("latex", "application/x-tex")):
        response = api.get(f"/api/experiment/batch/{batch.pk}/runs/{first.pk}/compare/{second.pk}?format={fmt}")
        assert response.status_code == 200 and response["Content-Type"].startswith(media)
        assert "attachment" in response["Content-Disposition"]
    text = api.get(f"/api/experiment/batch/b/runs/{first.pk}/compare/{second.pk}?format=csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {row["section"] for row in rows} >= {"test", "changed"}


def test_two_batches_compare_with_unmatched_trials_listed(api, batch, trials_file, tmp_path):
    call_command("import_trials", str(trials_file), "--batch", "v2", "--experiment", "exp-1")
    v2 = Batch.objects.get(name="v2")
    TrialLog.objects.filter(batch=v2, external_id="A-00000").update(external_id="A-renamed")
    TrialLog.objects.filter(batch=v2, external_id="B-00001").delete()
    response = api.get(f"/api/experiment/batch/b/compare-batch/{v2.pk}")
    data = response.json()["data"]
    assert response.status_code == 200 and data["kind"] == "batches"
    assert data["matching"]["pairsByKey"] == 1 and data["matching"]["pairs"] == 18
    assert data["unmatched"] == [{"side": "A", "trialId": "B-00001", "modelConfig": "B", "reason": "no_counterpart"}]


def test_refusals_answer_the_api_error_shape(api, batch):
    first = run(batch)
    other = Batch.objects.create(name="other")
    elsewhere = Layer3Run.objects.create(batch=other, options={}, status="succeeded")
    cases = [
        (f"/api/experiment/batch/b/runs/{first.pk}/compare/{elsewhere.pk}", 404, "run_b"),
        (f"/api/experiment/batch/b/runs/{first.pk}/compare/{first.pk}?sort=size", 400, "sort"),
        (f"/api/experiment/batch/b/runs/{first.pk}/compare/{first.pk}?format=", 400, "format"),
        ("/api/experiment/batch/b/compare-batch/nope", 404, None),
    ]
    for url, code, field in cases:
        response = api.get(url)
        body = response.json()
        assert response.status_code == code, url
        assert body["success"] is False and body["error"] and "problems" in body
        assert body.get("field") == field


def test_researchers_only(client, annotator, batch):
    first = run(batch)
    url = f"/api/experiment/batch/b/runs/{first.pk}/compare/{first.pk}"
    assert client.get(url).status_code in (401, 403)
    client.force_login(annotator)
    assert client.get(url).status_code == 403


def test_the_openapi_schema_documents_both_endpoints(api):
    schema = yaml.safe_load(api.get("/api/schema/").content)
    runs = schema["paths"]["/api/experiment/batch/{batch_id}/runs/{run_a}/compare/{run_b}"]["get"]
    batches = schema["paths"]["/api/experiment/batch/{batch_id}/compare-batch/{other_batch_id}"]["get"]
    for operation in (runs, batches):
        assert {"200", "400", "404"} <= set(operation["responses"])
        assert {"application/json", "text/csv", "text/markdown", "application/x-tex"} <= set(
            operation["responses"]["200"]["content"]
        )
        assert {p["name"] for p in operation["parameters"]} >= {"format", "sort"}
    assert "ComparisonAnswer" in schema["components"]["schemas"]
