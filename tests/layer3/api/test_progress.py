"""The layer3-progress stream read by a real SSE client (httpx-sse) from a live server."""

import json

import httpx
import pytest
from django.core.management import call_command
from httpx_sse import connect_sse

from layer3.models import Batch, Layer3Run
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import layer3_run_create, layer3_run_execute

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def session(live_server, client, researcher):
    client.force_login(researcher)
    cookies = {"sessionid": client.cookies["sessionid"].value}
    with httpx.Client(base_url=live_server.url, cookies=cookies, timeout=20) as http:
        yield http


@pytest.fixture
def batch(trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    settings.LAYER3_SSE_SECONDS = 3
    call_command("import_trials", str(trials_file), "--batch", "b")
    return Batch.objects.get(name="b")


def events(http, headers=None):
    with connect_sse(http, "GET", "/api/experiment/batch/b/layer3-progress", headers=headers or {}) as source:
        assert source.response.headers["content-type"].startswith("text/event-stream")
        # a block with only `retry:` (the reconnection delay) is not an event
        return [(event.event, event.id, json.loads(event.data)) for event in source.iter_sse() if event.data]


def test_a_client_connecting_after_the_run_gets_complete_at_once(session, batch):
    run = layer3_run_execute(run=layer3_run_create(batch=batch, options=EvaluationOptions()))
    received = events(session)
    names = [name for name, _id, _data in received]
    assert names[-1] == "complete" and names.count("error") == 1 and "progress" in names
    error = next(data for name, _id, data in received if name == "error")
    assert set(error) == {"logId", "kind", "error", "message"} and (error["logId"], error["kind"]) == (
        "D-00003",
        "spec",
    )
    assert error["error"].startswith("generatedData.reactiveBindings.bindings[0].source: found string")
    progress = next(data for name, _id, data in received if name == "progress")
    assert (progress["current"], progress["total"], progress["percentage"]) == (19, 19, 100.0)
    assert set(progress) == {"current", "total", "percentage", "currentLogId", "metrics"}
    _name, event_id, complete = received[-1]
    batch.refresh_from_db()
    assert complete["success"] is True and complete["summary"] == batch.layer3_results
    assert complete["elapsedMs"] == Layer3Run.objects.get(pk=run.pk).elapsed_ms
    counts = ("evaluatedCount", "errorCount", "skippedCount", "unjudgedCount", "judgeFailures")
    assert [complete[key] for key in counts] == [18, 1, 0, 0, 0]
    # Reconnecting after complete: 204, which stops a browser's EventSource
    response = session.get("/api/experiment/batch/b/layer3-progress", headers={"Last-Event-ID": event_id})
    assert response.status_code == 204


def test_a_reconnect_with_last_event_id_resumes_after_it(session, batch):
    run = layer3_run_create(batch=batch, options=EvaluationOptions())
    first = events(session)  # queued: nothing happens within the bounded stream
    assert first == []
    layer3_run_execute(run=run)
    received = events(session)
    error_id = next(event_id for name, event_id, _data in received if name == "error")
    resumed = events(session, headers={"Last-Event-ID": error_id})
    assert [name for name, _id, _data in resumed] == ["progress", "complete"]


def test_the_stream_reports_only_the_latest_run_s_problems_in_the_reader_s_language(session, batch):
    layer3_run_execute(run=layer3_run_create(batch=batch, options=EvaluationOptions()))
    layer3_run_execute(run=layer3_run_create(batch=batch, options=EvaluationOptions(force=True)))
    received = events(session, headers={"Accept-Language": "ja"})
    errors = [data for name, _id, data in received if name == "error"]
    assert [error["logId"] for error in errors] == ["D-00003"]  # once: the first run's problem is not replayed
    assert "受け付ける形式" in errors[0]["message"] and '"nodot" が見つかりました' in errors[0]["message"]
    third = layer3_run_create(batch=batch, options=EvaluationOptions())  # nothing left to do: no problem of its own
    layer3_run_execute(run=third)
    assert "error" not in [name for name, _id, _data in events(session)]


def test_a_started_run_that_has_not_counted_its_targets_sends_no_progress(session, batch):
    """A stream that polls between the worker's start and its count must not report 0 of 0 as 100%."""
    from django.utils import timezone

    run = layer3_run_create(batch=batch, options=EvaluationOptions())
    Layer3Run.objects.filter(pk=run.pk).update(status=Layer3Run.Status.RUNNING, started_at=timezone.now())
    assert events(session) == []
    Layer3Run.objects.filter(pk=run.pk).update(status=Layer3Run.Status.QUEUED, started_at=None)
    layer3_run_execute(run=Layer3Run.objects.get(pk=run.pk))
    progress = [data["percentage"] for name, _id, data in events(session) if name == "progress"]
    assert progress == [100.0]


def test_the_stream_is_for_researchers_only(live_server, client, annotator, batch):
    anonymous = httpx.get(f"{live_server.url}/api/experiment/batch/b/layer3-progress")
    assert anonymous.status_code == 401
    client.force_login(annotator)
    cookies = {"sessionid": client.cookies["sessionid"].value}
    denied = httpx.get(f"{live_server.url}/api/experiment/batch/b/layer3-progress", cookies=cookies)
    assert denied.status_code == 403


def test_a_batch_without_a_run_is_404(session, batch):
    assert session.get("/api/experiment/batch/b/layer3-progress").status_code == 404
