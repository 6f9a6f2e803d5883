"""The Director's REST API (#15): every endpoint, its shapes and its 400/403/404/409 answers."""

import pytest

from director.models import DirectorSession, RetryVerdict
from tests.director.sessions.test_turns import PASSING_AYU, PASSING_YANA, RETRY_LINE, WARN_AYU, Director, review
from tests.llm.conftest import fake_llm  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(client, researcher):
    client.force_login(researcher)
    return client


def post(client, url, body):
    return client.post(url, body, content_type="application/json")


ENDPOINTS = [
    ("post", "/api/director/check", {"text": "x", "speaker": "ayu"}),
    ("post", "/api/director/sessions", {"scene": "s"}),
    ("get", "/api/director/sessions/1", None),
    ("post", "/api/director/sessions/1/turns", {}),
    ("get", "/api/director/verdicts", None),
]


@pytest.mark.parametrize(("method", "url", "body"), ENDPOINTS)
def test_annotators_get_403_and_anonymous_401(client, annotator, method, url, body):
    call = (lambda: post(client, url, body)) if method == "post" else (lambda: client.get(url))
    assert call().status_code in (401, 403)
    client.force_login(annotator)
    assert call().status_code == 403


def test_check_without_llm_returns_the_hard_rules_and_stores_the_verdict(api):
    response = post(api, "/api/director/check", {"text": RETRY_LINE, "speaker": "あゆ"})
    assert response.status_code == 200
    verdict = response.json()["verdict"]
    assert verdict["status"] == "RETRY" and verdict["speaker"] == "ayu" and verdict["review"]["status"] == "off"
    assert {f["rule"] for f in verdict["findings"]} == {"setting"}
    assert RetryVerdict.objects.filter(session=None).count() == 1


def test_check_with_history_finds_the_topic_loop(api):
    history = [{"speaker": "ayu", "text": "カフェは静かですね。落ち着きますね。"},
               {"speaker": "yana", "text": "カフェはいいよね！"}]  # fmt: skip
    response = post(api, "/api/director/check", {"text": "カフェは駅から近いです。便利ですね。", "speaker": "ayu",
                                                 "history": history})  # fmt: skip
    verdict = response.json()["verdict"]
    assert verdict["status"] == "WARN" and "topic_loop_turns" in {f["rule"] for f in verdict["findings"]}


def test_check_with_the_llm_review(api, fake_llm):  # noqa: F811
    Director(fake_llm).reviews.append(review(4, 4, 3, 3, 4))
    verdict = post(api, "/api/director/check", {"text": PASSING_AYU, "speaker": "ayu", "llm": True}).json()["verdict"]
    assert verdict["status"] == "WARN" and verdict["review"]["average"] == 3.6
    assert set(verdict["review"]["scores"]) == {"frame", "roleplay", "connection", "density", "naturalness"}


def test_check_answers_the_interventions_the_next_turn_would_get_with_their_sources(api, fake_llm):  # noqa: F811
    Director(fake_llm).reviews.append(review(4, 4, 3, 3, 4))
    body = post(api, "/api/director/check", {"text": WARN_AYU, "speaker": "ayu", "llm": True}).json()
    assert body["verdict"]["status"] == "WARN"
    assert [entry["source"] for entry in body["interventions"]] == [
        *(f"rule:{f['rule']}" for f in body["verdict"]["findings"] if f["status"] == "WARN"),
        "review:connection",
        "review:density",
    ]
    assert body["interventions"][0]["source"] == "rule:praise"
    assert body["interventions"][-1] == {"text": "情報密度: density 3", "source": "review:density"}
    assert post(api, "/api/director/check", {"text": RETRY_LINE, "speaker": "ayu"}).json()["interventions"] == []


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"speaker": "ayu"}, "text"),
        ({"text": "x", "speaker": "taro"}, "speaker"),
        ({"text": "x", "speaker": "ayu", "llm": "yes"}, "llm"),
        ({"text": "x", "speaker": "ayu", "colour": 1}, "colour"),
        ({"text": "x", "speaker": "ayu", "history": [{"speaker": "ayu"}]}, "history[0].text"),
        ({"text": "x", "speaker": "ayu", "language": "de"}, "language"),
        ([1, 2], "$"),
    ],
)
def test_check_names_the_bad_field(api, body, field):
    response = post(api, "/api/director/check", body)
    assert response.status_code == 400 and response.json()["field"] == field


def test_sessions_create_read_and_turns(api, settings):
    settings.LLM_BASE_URL = ""
    created = post(api, "/api/director/sessions", {"scene": "雨の日", "speakers": ["ayu", "yana"], "llmReview": False})
    assert created.status_code == 201
    session_id = created.json()["session"]["id"]
    turn = post(api, f"/api/director/sessions/{session_id}/turns", {"text": WARN_AYU, "expectedTurn": 0}).json()
    assert turn["accepted"] and turn["shownAttempt"] == 1 and turn["attempts"][0]["verdict"]["status"] == "WARN"
    assert turn["stateAfter"]["turn"] == 1 and turn["stateAfter"]["interventions"]["ayu"]
    stale = post(api, f"/api/director/sessions/{session_id}/turns", {"text": PASSING_YANA, "expectedTurn": 0})
    assert stale.status_code == 409
    retry = post(api, f"/api/director/sessions/{session_id}/turns", {"text": RETRY_LINE}).json()
    assert not retry["accepted"] and retry["flag"] == "all_retry" and retry["stateAfter"] == turn["stateAfter"]
    detail = api.get(f"/api/director/sessions/{session_id}").json()["session"]
    assert [len(t["attempts"]) for t in detail["turns"]] == [1, 1] and detail["state"]["turn"] == 1
    generate = post(api, f"/api/director/sessions/{session_id}/turns", {})
    assert generate.status_code == 400 and generate.json()["field"] == "text" and "LLM_BASE_URL" in generate.text


@pytest.mark.parametrize(
    ("body", "field"),
    [({}, "scene"), ({"scene": "s", "speakers": ["yana"]}, "speakers"),
     ({"scene": "s", "maxRetries": 99}, "maxRetries"), ({"scene": "s", "speakers": ["yana", "taro"]}, "speakers")],
)  # fmt: skip
def test_session_create_names_the_bad_field(api, body, field):
    response = post(api, "/api/director/sessions", body)
    assert response.status_code == 400 and response.json()["field"] == field
    assert not DirectorSession.objects.exists()


def test_unknown_session_is_404(api):
    assert api.get("/api/director/sessions/999").status_code == 404
    assert post(api, "/api/director/sessions/999/turns", {}).status_code == 404


def test_verdicts_are_filtered_and_paginated(api):
    for text, speaker in [(RETRY_LINE, "ayu"), (PASSING_AYU, "ayu"), (PASSING_YANA, "yana"), (WARN_AYU, "ayu")]:
        post(api, "/api/director/check", {"text": text, "speaker": speaker})
    everything = api.get("/api/director/verdicts").json()
    assert everything["count"] == 4
    assert api.get("/api/director/verdicts?status=RETRY").json()["count"] == 1
    assert api.get("/api/director/verdicts?rule=praise").json()["count"] == 1
    assert api.get("/api/director/verdicts?speaker=yana").json()["count"] == 1
    assert api.get("/api/director/verdicts?since=2999-01-01T00:00:00Z").json()["count"] == 0
    page = api.get("/api/director/verdicts?pageSize=3").json()
    assert len(page["results"]) == 3 and page["next"]
    for query, field in [("status=MAYBE", "status"), ("session=x", "session"), ("since=yesterday", "since")]:
        response = api.get(f"/api/director/verdicts?{query}")
        assert response.status_code == 400 and response.json()["field"] == field


def test_the_schema_documents_the_director_api(api):
    schema = api.get("/api/schema/").content.decode()
    for path in ("/api/director/check", "/api/director/sessions/{session_id}/turns", "/api/director/verdicts"):
        assert path in schema
