"""The fake OpenAI server, driven by the real `openai` SDK over HTTP on 127.0.0.1."""

import http.client
import json
import threading
import time

import openai
import pytest

from tests.fakes.openai_server import DEFAULT_ANSWER, FakeOpenAI, Reply

MESSAGES = [{"role": "system", "content": "judge"}, {"role": "user", "content": "hello world!"}]  # 5 + 12 chars


@pytest.fixture
def server():
    with FakeOpenAI() as fake:
        yield fake


def make_client(server: FakeOpenAI, **kw) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test", base_url=server.base_url, max_retries=0, **kw)


def ask(client: openai.OpenAI, **kw):
    return client.chat.completions.create(model=kw.pop("model", "judge-model"), messages=MESSAGES, **kw)


def test_default_answer_and_usage(server):
    completion = ask(make_client(server))

    content = completion.choices[0].message.content
    assert json.loads(content) == DEFAULT_ANSWER
    assert completion.choices[0].message.role == "assistant"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "judge-model"
    assert completion.id == "chatcmpl-fake-1"
    assert completion.usage.prompt_tokens == 17 // 2
    assert completion.usage.completion_tokens == len(content) // 2
    assert completion.usage.total_tokens == 17 // 2 + len(content) // 2


def test_scripted_replies_are_consumed_in_order(server):
    server.script(
        Reply.json({"score": 0, "label": "ビミョー"}),
        Reply.malformed(),
        Reply(content="x", usage=(100, 7)),
    )
    client = make_client(server)

    first, second, third, fourth = (ask(client) for _ in range(4))

    assert first.choices[0].message.content == '{"score": 0, "label": "ビミョー"}'
    assert second.choices[0].message.content == "not json at all"
    assert (third.usage.prompt_tokens, third.usage.completion_tokens, third.usage.total_tokens) == (100, 7, 107)
    assert json.loads(fourth.choices[0].message.content) == DEFAULT_ANSWER  # queue empty: default again
    assert server.pending == 0


def test_default_reply_callable_sees_the_request():
    seen = []

    def reply(request):
        seen.append(request["model"])
        return Reply(content=request["messages"][-1]["content"].upper())

    with FakeOpenAI(default_reply=reply) as server:
        completion = ask(make_client(server), model="m1")
    assert completion.choices[0].message.content == "HELLO WORLD!"
    assert seen == ["m1"]


def test_rate_limited_carries_retry_after(server):
    server.script(Reply.rate_limited(retry_after=3))

    with pytest.raises(openai.RateLimitError) as caught:
        ask(make_client(server))

    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "3"
    assert caught.value.code == "rate_limit_exceeded"


def test_rate_limited_without_retry_after(server):
    server.script(Reply.rate_limited(retry_after=None))
    with pytest.raises(openai.RateLimitError) as caught:
        ask(make_client(server))
    assert "retry-after" not in caught.value.response.headers


def test_server_error(server):
    server.script(Reply.server_error(), Reply.server_error(503))
    client = make_client(server)
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client)
    assert caught.value.status_code == 500
    with pytest.raises(openai.InternalServerError) as caught:
        ask(client)
    assert caught.value.status_code == 503


def test_bad_request(server):
    server.script(Reply.bad_request("messages too long", param="messages"))
    with pytest.raises(openai.BadRequestError) as caught:
        ask(make_client(server))
    assert caught.value.status_code == 400
    assert caught.value.param == "messages"
    assert caught.value.type == "invalid_request_error"
    assert "messages too long" in str(caught.value)


def test_hang_longer_than_client_timeout_times_out(server):
    server.script(Reply.hang(3))
    started = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        ask(make_client(server, timeout=0.3))
    assert time.monotonic() - started < 2


def test_short_hang_answers_normally(server):
    server.script(Reply.hang(0.1))
    completion = ask(make_client(server, timeout=5))
    assert json.loads(completion.choices[0].message.content) == DEFAULT_ANSWER


def test_json_schema_rejected_when_unsupported():
    response_format = {
        "type": "json_schema",
        "json_schema": {"name": "verdict", "schema": {"type": "object", "properties": {"score": {"type": "integer"}}}},
    }
    with FakeOpenAI(json_schema=False) as server:
        server.script(Reply.json({"score": 1}))
        client = make_client(server)
        with pytest.raises(openai.BadRequestError) as caught:
            ask(client, response_format=response_format)
        assert caught.value.param == "response_format"
        assert server.pending == 1  # the rejection consumed no scripted reply
        # json_object is still accepted and gets the scripted reply
        completion = ask(client, response_format={"type": "json_object"})
        assert json.loads(completion.choices[0].message.content) == {"score": 1}
        assert server.request_count == 2
        assert server.requests[0]["json"]["response_format"]["type"] == "json_schema"


def test_json_object_rejected_when_unsupported():
    with FakeOpenAI(json_object=False) as server:
        with pytest.raises(openai.BadRequestError) as caught:
            ask(make_client(server), response_format={"type": "json_object"})
        assert caught.value.param == "response_format"


def test_models_list(server):
    models = make_client(server).models.list()
    assert [model.id for model in models.data] == ["fake-model"]
    assert models.data[0].owned_by == "fake"


def test_concurrent_requests_do_not_serialise():
    with FakeOpenAI(latency=0.2) as server:
        client = make_client(server)
        results, errors = [], []

        def worker():
            try:
                results.append(ask(client))
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker) for _ in range(32)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        in_flight = server.max_in_flight

    assert errors == []
    assert len(results) == 32
    assert len({completion.id for completion in results}) == 32
    # Served at once, not one after another: several answers were pending together, and the 32 took less
    # than 32 latencies (a wall-clock bound a busy machine cannot break, unlike a tight one).
    assert in_flight >= 4
    assert elapsed < 32 * 0.2


def test_requests_are_recorded_with_headers(server):
    ask(make_client(server))
    make_client(server).models.list()

    chat, models = server.requests
    assert chat["method"] == "POST"
    assert chat["path"] == "/v1/chat/completions"
    assert chat["headers"]["authorization"] == "Bearer sk-test"
    assert chat["json"]["model"] == "judge-model"
    assert chat["json"]["messages"] == MESSAGES
    assert models == {
        "path": "/v1/models",
        "method": "GET",
        "json": None,
        "headers": models["headers"],
        "at": models["at"],
    }
    assert chat["status"] == 200 and chat["at"] <= chat["answered"] <= models["at"]
    assert server.request_count == 2 and server.max_in_flight == 1

    server.script(Reply.malformed())
    server.reset()
    assert server.request_count == 0
    assert server.pending == 0


def raw_request(server: FakeOpenAI, method: str, path: str, body: bytes | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_invalid_json_and_unknown_path(server):
    status, body = raw_request(server, "POST", "/v1/chat/completions", b"{not json")
    assert status == 400
    assert body["error"]["type"] == "invalid_request_error"

    status, body = raw_request(server, "GET", "/v1/embeddings")
    assert status == 404
    assert "message" in body["error"]

    assert [r["json"] for r in server.requests] == [None, None]


def test_body_is_sent_verbatim(server):
    server.script(
        Reply(status=202, body='{"raw": true}', headers={"X-Extra": "1"}), Reply(body={"not": "a completion"})
    )
    response = make_client(server).chat.completions.with_raw_response.create(model="m", messages=MESSAGES)
    assert response.status_code == 202
    assert response.headers["x-extra"] == "1"
    assert response.http_response.text == '{"raw": true}'

    status, body = raw_request(server, "POST", "/v1/chat/completions", b"{}")
    assert (status, body) == (200, {"not": "a completion"})


def test_stop_is_prompt_while_a_handler_sleeps():
    server = FakeOpenAI().start()
    server.script(Reply.hang(30))
    client = make_client(server, timeout=0.2)
    with pytest.raises(openai.APITimeoutError):
        ask(client)
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 1
