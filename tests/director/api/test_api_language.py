"""The Director API's refusals in the reader's language (#28): Japanese by default, English when chosen.

The field and the JSON path are the client's names and stay as they are in either language.
"""

import pytest
from django.conf import settings

import director.api.views as views
from director.models import DirectorSession
from director.sessions.services import TurnConflict

pytestmark = pytest.mark.django_db

GET = object()

FIELDS = "text, speaker, history, scene, llm, language"


@pytest.fixture
def api(client, researcher):
    client.force_login(researcher)
    return client


@pytest.fixture
def session_id(api):
    response = api.post("/api/director/sessions", {"scene": "s", "llmReview": False}, content_type="application/json")
    return response.json()["session"]["id"]


def call(client, url, body=GET, language=None):
    """``body`` posted as JSON (a GET without one), with the language switch's cookie when ``language``."""
    if language:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    if body is GET:
        return client.get(url)
    return client.post(url, body, content_type="application/json")


def assert_refusal(response, status, field, path, message):
    """The whole body: the message in ``error``/``detail`` after the field, and under ``problems``."""
    assert response.status_code == status, response.content[:300]
    body = response.json()
    error = f"{field}: {message}" if field else message
    assert body["success"] is False and body["error"] == error and body["detail"] == error, body
    assert body["problems"] == [{"path": path, "message": message}]
    assert body.get("field") == field


CHECK = "/api/director/check"
CASES = {
    "unknown field": (
        CHECK, {"text": "x", "speaker": "ayu", "colour": 1}, 400, "colour", "$.colour",
        f"不明な項目です。使える項目: {FIELDS}", f"unknown field; accepted: {FIELDS}",
    ),
    "wrong type": (
        CHECK, {"text": 1, "speaker": "ayu"}, 400, "text", "$.text", "文字列が必要です", "expected a string",
    ),
    "too long": (
        CHECK, {"text": "あ" * 2001, "speaker": "ayu"}, 400, "text", "$.text",
        "2000 文字までです", "at most 2000 characters",
    ),
    "nested": (
        CHECK, {"text": "x", "speaker": "ayu", "history": [{"speaker": "ayu", "text": 3}]}, 400,
        "history[0].text", "$.history[0].text", "文字列が必要です", "expected a string",
    ),
    "whole body": (CHECK, [1, 2], 400, "$", "$", "JSON オブジェクトが必要です", "expected a JSON object"),
    "query": (
        "/api/director/verdicts?status=MAYBE", GET, 400, "status", "?status",
        "PASS, WARN, RETRY, MODIFY のいずれかが必要ですが、'MAYBE' でした",
        "expected one of PASS, WARN, RETRY, MODIFY, got 'MAYBE'",
    ),
    "query given twice": (
        "/api/director/verdicts?status=PASS&status=WARN", GET, 400, "status", "?status",
        "2 回指定されています。1 回だけ指定してください", "given 2 times; give it once",
    ),
    "missing session": (
        "/api/director/sessions/999", GET, 404, None, None, "セッション 999 はありません", "no session 999",
    ),
    "missing session's turn": (
        "/api/director/sessions/999/turns", {}, 404, None, None, "セッション 999 はありません", "no session 999",
    ),
    "same speaker twice": (
        "/api/director/sessions", {"scene": "s", "speakers": ["yana", "yana"]}, 400, "speakers", "$.speakers",
        "ayu, yana のうち異なる 2 人のキャラクター ID が必要です",
        "expected two different character ids from ayu, yana",
    ),
    "retries out of range": (
        "/api/director/sessions", {"scene": "s", "maxRetries": 99}, 400, "maxRetries", "$.maxRetries",
        "0 から 10 までの整数が必要ですが、99 でした", "expected a whole number from 0 to 10, got 99",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("language", [None, "ja", "en"])
def test_a_bad_request_is_refused_in_the_readers_language(api, case, language):
    url, body, status, field, path, japanese, english = CASES[case]
    response = call(api, url, body, language)
    assert_refusal(response, status, field, path, english if language == "en" else japanese)


@pytest.mark.parametrize(
    ("body", "field"),
    [({"text": "x", "speaker": "taro"}, "speaker"),
     ({"text": "x", "speaker": "ayu", "history": [{"speaker": "taro", "text": "やあ"}]}, "history[0].speaker")],
)  # fmt: skip
@pytest.mark.parametrize("language", [None, "en"])
def test_an_unknown_speaker_is_named_where_it_was_given(api, body, field, language):
    answer = call(api, CHECK, body, language).json()
    message = answer["problems"][0]["message"]
    assert answer["field"] == field and answer["problems"][0]["path"] == f"$.{field}"
    if language == "en":
        assert message.startswith("unknown speaker 'taro'; known: ") and "ayu (あゆ)" in message
    else:
        assert message.startswith("話者 'taro' は不明です。使える話者: ") and "yana (やな)" in message
    assert answer["error"] == f"{field}: {message}"


@pytest.mark.parametrize(
    ("language", "message"),
    [(None, "セッションは現在ターン 0 です（5 ではありません）"), ("en", "the session is at turn 0, not 5")],
    ids=["ja", "en"],
)
def test_a_turn_for_another_turn_is_a_conflict_in_the_readers_language(api, session_id, language, message):
    response = call(api, f"/api/director/sessions/{session_id}/turns", {"text": "x", "expectedTurn": 5}, language)
    assert_refusal(response, 409, None, None, message)


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (None, "その間にこのセッションの別のターンが保存されました。次のターンをもう一度依頼してください"),
        ("en", "another turn of this session was stored meanwhile; ask for the next turn again"),
    ],
    ids=["ja", "en"],
)
def test_a_turn_stored_meanwhile_is_a_conflict_in_the_readers_language(api, session_id, monkeypatch, language, message):
    def stored_meanwhile(**_kwargs):
        raise TurnConflict("another turn of this session was stored meanwhile; ask for the next turn again")

    monkeypatch.setattr(views, "turn_run", stored_meanwhile)
    response = call(api, f"/api/director/sessions/{session_id}/turns", {"text": "x"}, language)
    assert_refusal(response, 409, None, None, message)


@pytest.mark.parametrize(
    ("language", "message"),
    [
        (None, "台詞の生成には LLM エンドポイント（LLM_BASE_URL）が必要です。台詞を text で指定してください"),
        ("en", "generating lines needs an LLM endpoint (LLM_BASE_URL); give the line as text"),
    ],
    ids=["ja", "en"],
)
def test_no_endpoint_to_generate_with_in_the_readers_language(api, session_id, settings, language, message):
    settings.LLM_BASE_URL = ""
    response = call(api, f"/api/director/sessions/{session_id}/turns", {}, language)
    assert_refusal(response, 400, "text", "$.text", message)
    assert DirectorSession.objects.get(pk=session_id).state["turn"] == 0


def test_the_services_refusals_are_known_by_their_field():
    from django.utils import translation

    from director.api.refusals import services_refusal

    outside = services_refusal(ValueError("speaker: this session's characters are yana, ayu"), "speaker",
                               speakers=["yana", "ayu"])  # fmt: skip
    other = services_refusal(ValueError("session state: topic: expected a string, got 3"), "speaker")
    with translation.override("en"):
        assert (outside.field, outside.translated(translation.gettext)) == (
            "speaker", "this session's characters are yana, ayu")  # fmt: skip
        assert (other.field, other.message) == ("speaker", "session state: topic: expected a string, got 3")
    with translation.override("ja"):
        assert outside.translated(translation.gettext) == "このセッションのキャラクターは yana, ayu です"
