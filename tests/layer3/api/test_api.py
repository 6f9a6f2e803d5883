"""The seed's Layer3 REST API (002 §5): shapes and defaults key by key, and every refusal."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from core.job_runner import job_run
from layer3.models import Batch, Layer3Run, TrialLog

pytestmark = pytest.mark.django_db

SEED_REQUEST_DEFAULTS = {
    "evaluateGV": True,
    "evaluateW2WRType": True,
    "evaluateW2WRSemantic": False,
    "evaluateDiversity": True,
    "evaluateComplexity": True,
    "useLLMJudge": False,
    "forceReEvaluate": False,
    "modelConfigs": [],
}


@pytest.fixture
def batch(trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("import_trials", str(trials_file), "--batch", "b", "--experiment", "exp-1")
    return Batch.objects.get(name="b")


@pytest.fixture
def evaluated(batch):
    call_command("evaluate_layer3", "b", "--judge", "baseline")
    batch.refresh_from_db()
    return batch


@pytest.fixture
def api(client, researcher):
    client.force_login(researcher)
    return client


@pytest.fixture
def worker(monkeypatch):
    """Queued jobs run at commit in this process (the real-worker flow is tested in tests/layer3/runs)."""
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: job_run(job_id=job_id))


URLS = [
    ("post", "/api/experiment/batch/b/evaluate-layer3"),
    ("get", "/api/experiment/batch/b/layer3-results"),
    ("get", "/api/experiment/batch/b/layer3-export"),
    ("get", "/api/experiment/batch/b/statistics"),
    ("post", "/api/experiment/batch/"),
]


@pytest.mark.parametrize(("method", "url"), URLS)
def test_anonymous_requests_get_401_and_annotators_403(client, annotator, batch, method, url):
    assert getattr(client, method)(url).status_code == 401
    client.force_login(annotator)
    assert getattr(client, method)(url).status_code == 403


def test_starting_a_run_answers_202_with_the_seed_shape_and_runs_it(
    api, batch, worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/api/experiment/batch/b/evaluate-layer3", {"judge": "baseline"}, content_type="application/json"
        )
    assert response.status_code == 202
    body = response.json()
    assert body["success"] is True and set(body) == {"success", "data", "jobId", "runId", "links"}
    data = body["data"]
    assert list(data) == [
        "batchId",
        "batchName",
        "runId",
        "status",
        "totalTargets",
        "skippedCount",
        "evaluatedCount",
        "errorCount",
        "elapsedMs",
        "plan",
        "warnings",
        "options",
    ]
    assert (data["batchId"], data["batchName"], data["totalTargets"], data["skippedCount"]) == (
        str(batch.pk),
        "b",
        19,
        0,
    )
    # counts a queued run cannot know yet are null, not 0: the stream's complete event and the run carry them
    assert (data["evaluatedCount"], data["errorCount"], data["elapsedMs"]) == (None, None, None)
    assert data["plan"]["blocks"]["generatedValueRelevance"]["compute"] == 19 and data["warnings"] == []
    assert body["links"] == {
        "job": f"/jobs/{body['jobId']}/",
        "progress": f"/api/experiment/batch/{batch.pk}/layer3-progress",
        "results": f"/api/experiment/batch/{batch.pk}/layer3-results",
    }
    options = data["options"]
    assert {key: options[key] for key in SEED_REQUEST_DEFAULTS} == SEED_REQUEST_DEFAULTS
    assert options["llmModel"] == "" or isinstance(options["llmModel"], str)
    run = Layer3Run.objects.get(pk=body["runId"])
    assert str(run.job_id) == body["jobId"] and run.status == "succeeded" and run.evaluated_count == 18


def test_the_batch_is_found_by_id_too_and_an_unknown_one_is_404(api, batch):
    assert api.get(f"/api/experiment/batch/{batch.pk}/statistics").status_code == 200
    response = api.get("/api/experiment/batch/nope/statistics")
    assert response.status_code == 404 and "no batch named 'nope'" in response.json()["error"]
    response = api.get(f"/api/experiment/batch/{batch.pk + 100}/statistics")
    assert response.status_code == 404 and f"no batch with id {batch.pk + 100}" in response.json()["error"]


def test_a_batch_named_like_another_batch_s_id_cannot_be_made(api, batch, trials_file):
    with open(trials_file, "rb") as handle:
        response = api.post("/api/experiment/batch/", {"name": str(batch.pk), "file": handle})
    assert response.status_code == 400
    assert "only digits" in json.dumps(response.json(), ensure_ascii=False)
    assert not Batch.objects.filter(name=str(batch.pk)).exists()


def test_a_second_run_while_one_is_alive_is_409_with_the_running_one(api, batch):
    first = api.post("/api/experiment/batch/b/evaluate-layer3", {}, content_type="application/json").json()
    response = api.post("/api/experiment/batch/b/evaluate-layer3", {}, content_type="application/json")
    assert response.status_code == 409
    assert response.json()["data"] == {"runId": first["runId"], "jobId": first["jobId"], "status": "queued"}


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"evaluateGV": "true"}, "evaluateGV", "expected true or false, got a string"),
        ({"forceReEvaluate": 1}, "forceReEvaluate", "expected true or false, got a number"),
        ({"evaluateGv": True}, "evaluateGv", "unknown field; accepted: evaluateGV"),
        ({"modelConfigs": "A"}, "modelConfigs", "expected a list"),
        ({"judge": "gpt"}, "judge", "expected one of none, baseline, llm"),
        ({"budget": -1}, "budget", "expected a number from 0 to 1000000000000"),
        ({"budget": 10**13}, "budget", "expected a number from 0 to 1000000000000"),
        ({"llmModel": " "}, "llmModel", "printable ASCII characters"),
        ({"llmModel": "モデル"}, "llmModel", "printable ASCII characters"),
        ({"modelConfigs": [" "]}, "modelConfigs", "expected a list"),
        ("null", "$", "expected a JSON object"),
        ({"useLLMJudge": True}, "useLLMJudge", "set LLM_BASE_URL"),
        ([1, 2], "$", "expected a JSON object"),
    ],
)
def test_a_bad_request_is_400_naming_the_field(api, batch, body, field, message):
    response = api.post("/api/experiment/batch/b/evaluate-layer3", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["field"] == field and message in response.json()["error"]
    assert not Layer3Run.objects.exists()


def test_a_model_config_the_batch_has_no_trials_of_is_404_naming_it(api, batch):
    """Issue 41: like an id of no object (the schema cannot list a batch's model configurations)."""
    response = api.post("/api/experiment/batch/b/evaluate-layer3", {"modelConfigs": ["Z"]}, "application/json")
    assert response.status_code == 404 and response.json()["field"] == "modelConfigs"
    assert "has no model config Z; it has A, B, C, D, E" in response.json()["error"]
    for url in ("layer3-results", "layer3-export", "export/trials.csv"):
        response = api.get(f"/api/experiment/batch/b/{url}?modelConfig=Z")
        assert response.status_code == 404 and response.json()["field"] == "modelConfig", url
    assert not Layer3Run.objects.exists()


def test_post_needs_the_csrf_token(researcher, batch):
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    response = client.post("/api/experiment/batch/b/evaluate-layer3", {}, content_type="application/json")
    assert response.status_code == 403 and not Layer3Run.objects.exists()


def test_results_have_the_seed_shape(api, evaluated):
    body = api.get("/api/experiment/batch/b/layer3-results").json()
    data = body["data"]
    assert list(data) == [
        "batchId", "batchName", "experimentId", "evaluatedAt", "overall", "byModel", "summary", "widgetTypes"
    ]  # fmt: skip
    assert data["overall"] == evaluated.layer3_results and data["experimentId"] == "exp-1"
    assert [set(entry) for entry in data["byModel"]] == [{"modelConfig", "trialCount", "judge", "layer3"}] * 5
    assert data["byModel"][0]["judge"] == {"gv": "baseline:baseline-tfidf@1:layer3.gv_relevance@1", "w2wr": None}
    assert set(data["overall"]) == {
        "gvContentRelevance", "w2wrTypeDistribution", "w2wrSemanticCorrectness", "widgetDiversity", "graphComplexity"
    }  # fmt: skip
    summary = data["summary"]
    assert (summary["totalEvaluated"], summary["totalUnevaluated"]) == (19, 0)
    assert summary["avgEvaluationTimeMs"] > 0


def test_results_details_are_paginated_and_filtered(api, evaluated):
    url = "/api/experiment/batch/b/layer3-results?includeDetails=true&pageSize=3&page=2&modelConfig=A"
    details = api.get(url).json()["data"]["details"]
    assert details["count"] == 4 and details["page"] == 2 and len(details["results"]) == 1
    stored = TrialLog.objects.get(external_id=details["results"][0]["id"])
    assert details["results"][0]["layer3Metrics"] == stored.layer3_metrics
    assert api.get("/api/experiment/batch/b/layer3-results?includeDetails=maybe").status_code == 400
    assert api.get("/api/experiment/batch/b/layer3-results?modelConfig=Z").status_code == 404


def test_statistics_with_either_correction(api, evaluated):
    body = api.get("/api/experiment/batch/b/statistics").json()
    assert set(body) == {"layer3Comparisons", "summary"} and body["summary"]["layer3"]["correction"] == "bonferroni"
    assert body["layer3Comparisons"] == evaluated.layer3_statistics["layer3Comparisons"]
    holm = api.get("/api/experiment/batch/b/statistics?correction=holm").json()
    assert holm["summary"]["layer3"]["correction"] == "holm"
    assert api.get("/api/experiment/batch/b/statistics?correction=sidak").status_code == 400


def test_statistics_use_the_seed_s_family_unless_another_is_asked_for(api, evaluated):
    seed = api.get("/api/experiment/batch/b/statistics").json()["summary"]["layer3"]
    assert (seed["family"], seed["familySize"], seed["comparisons"]) == ("seed", 110, 110)
    assert seed["adjustedAlpha"] == 0.05 / 110 and seed["performedTests"] < 110  # W2WR semantic was not judged
    run = api.get("/api/experiment/batch/b/statistics?family=tests-run").json()["summary"]["layer3"]
    assert run["familySize"] == seed["performedTests"] and run["adjustedAlpha"] == 0.05 / seed["performedTests"]
    layers = api.get("/api/experiment/batch/b/statistics?family=210").json()
    assert layers["summary"]["layer3"]["familySize"] == 210
    rows = {(c["metric"], c["modelA"], c["modelB"]): c for c in layers["layer3Comparisons"]}
    performed = rows[("GC_NC", "A", "B")]
    assert performed["adjustedPValue"] == min(1.0, performed["pValue"] * 210)
    for bad in ("five", "0", "", " seed", "SEED", "1" * 19):
        response = api.get(f"/api/experiment/batch/b/statistics?family={bad}")
        assert response.status_code == 400 and response.json()["field"] == "family", bad
    response = api.get("/api/experiment/batch/b/statistics?family=3")  # fewer than the tests this batch's data has
    assert response.status_code == 409 and response.json()["field"] == "family"


def test_a_proportion_comparison_carries_the_cluster_bootstrap_interval(api, evaluated):
    rows = api.get("/api/experiment/batch/b/statistics").json()["layer3Comparisons"]
    gv = next(c for c in rows if c["metric"] == "GV_UR" and c["pValue"] is not None)
    low, high = gv["clusterBootstrapCi"]
    assert low <= gv["difference"] <= high and gv["zCi"][0] < gv["zCi"][1]
    assert gv["judgeA"] == gv["judgeB"] == "baseline:baseline-tfidf@1:layer3.gv_relevance@1"
    automatic = next(c for c in rows if c["metric"] == "GC_NC")
    assert (automatic["judgeA"], automatic["clusterBootstrapCi"]) == (None, None)


def test_the_export_follows_the_correction_and_family_asked_for(api, evaluated):
    response = api.get("/api/experiment/batch/b/layer3-export?format=json&correction=holm&family=tests-run")
    summary = json.loads(b"".join(response.streaming_content))["statistics"]["summary"]
    assert (summary["correction"], summary["family"]) == ("holm", "tests-run")
    response = api.get("/api/experiment/batch/b/layer3-export?format=markdown&family=nope")
    assert response.status_code == 400 and response.json()["field"] == "family"


def test_exports_are_downloads_named_for_the_batch(api, evaluated):
    response = api.get("/api/experiment/batch/b/layer3-export?format=csv")
    assert response.status_code == 200 and response["Content-Disposition"] == 'attachment; filename="layer3-b.csv"'
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode().lstrip("\ufeff"))))
    assert len(rows) == 20
    raw = api.get("/api/experiment/batch/b/layer3-export?format=json&includeRawData=true")
    document = json.loads(b"".join(raw.streaming_content))
    assert len(document["trials"]) == 20 and document["overall"] == evaluated.layer3_results
    latex = api.get("/api/experiment/batch/b/layer3-export?format=latex")
    assert latex["Content-Disposition"].endswith('layer3-b.tex"')
    assert api.get("/api/experiment/batch/b/layer3-export?format=pdf").status_code == 400


def test_uploading_a_trial_log_creates_the_batch(api, trials_file):
    with trials_file.open("rb") as handle:
        response = api.post("/api/experiment/batch/", {"name": "up", "experimentId": "e", "file": handle})
    assert response.status_code == 201
    assert response.json()["data"]["created"] == 20 and Batch.objects.get(name="up").experiment_id == "e"


def test_an_upload_may_name_the_widget_catalogue_and_a_bad_one_stores_nothing(api, trials_file, tmp_path):
    catalogue = tmp_path / "widgets.json"
    catalogue.write_text('["brainstorm_cards", "mind_map"]', encoding="utf-8")
    with trials_file.open("rb") as handle, catalogue.open("rb") as types:
        response = api.post("/api/experiment/batch/", {"name": "up", "file": handle, "widgetCatalogue": types})
    assert response.status_code == 201 and Batch.objects.get(name="up").widget_catalogue == [
        "brainstorm_cards",
        "mind_map",
    ]
    catalogue.write_text('["a", "a"]', encoding="utf-8")
    with trials_file.open("rb") as handle, catalogue.open("rb") as types:
        response = api.post("/api/experiment/batch/", {"name": "up2", "file": handle, "widgetCatalogue": types})
    problem = response.json()["problems"][0]
    assert response.status_code == 400 and problem["file"] == "widgets.json" and "listed twice" in problem["message"]
    assert str(tmp_path) not in json.dumps(response.json()) and not Batch.objects.filter(name="up2").exists()


def test_an_upload_with_a_bad_line_stores_nothing_and_names_it(api, tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"id": "t1", "modelConfig": "A", "stage": "3", "inputText": "x", "generatedData": {}}\n')
    with path.open("rb") as handle:
        response = api.post("/api/experiment/batch/", {"name": "up", "file": handle})
    assert response.status_code == 400
    problem = response.json()["problems"][0]
    assert (problem["file"], problem["line"], problem["path"]) == ("mine.jsonl", 1, "$.stage")
    assert not Batch.objects.filter(name="up").exists()
    assert api.post("/api/experiment/batch/", {"name": "up"}).json()["field"] == "file"


def test_a_repeated_trial_id_points_at_the_uploaded_file_not_the_server_s_copy(api, tmp_path):
    line = '{"id": "t1", "modelConfig": "A", "stage": 3, "inputText": "x", "generatedData": {}}\n'
    path = tmp_path / "mine.jsonl"
    path.write_text(line + line)
    with path.open("rb") as handle:
        response = api.post("/api/experiment/batch/", {"name": "up", "file": handle})
    assert response.status_code == 400
    messages = [p["message"] for p in response.json()["problems"]]
    assert any("first at mine.jsonl:1" in m for m in messages), messages
    assert not any("layer3-upload-" in m for m in messages)


@pytest.mark.parametrize("url", ["layer3-results", "statistics", "layer3-export", "judge-calibration",
                                 "export/trials.csv", "layer3-progress"])  # fmt: skip
def test_a_batch_id_holding_a_nul_character_is_a_404(api, batch, url):
    """No name holds one, and PostgreSQL cannot compare a text holding one (a 500 before issue 41)."""
    response = api.get(f"/api/experiment/batch/b%00c/{url}")
    assert response.status_code == 404 and response.json()["success"] is False
