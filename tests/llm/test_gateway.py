"""The LLM gateway against a real HTTP fake of the OpenAI API, driven by the real SDK."""

import logging
import time

import pytest

from llm import prompts
from llm.models import LLMCall, LLMRun
from llm.prompts import Prompt
from llm.services import Budget, Item, calibration, estimate, judge
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.llm.conftest import SECRET

pytestmark = pytest.mark.django_db
GV = "layer3.gv_relevance@1"
USEFUL = {"score": 2, "label": "useful", "reasoning": "具体的"}


def _items(n=1, concern="転職するか迷っています"):
    return [
        Item(f"item-{i}", {"concernText": concern, "generatedText": f"転職のメリット {i}", "widgetType": "list"})
        for i in range(n)
    ]


def test_a_call_is_parsed_stored_and_priced(fake_llm):
    report = judge(GV, _items())
    [result] = report.results
    assert result.status == "ok" and result.parsed["score"] == 2
    assert result.evaluator_model == "fake-model" and not result.cached
    request = fake_llm.requests[-1]["json"]
    assert request["temperature"] == 0.0 and request["model"] == "fake-model"
    assert request["response_format"]["type"] == "json_schema"
    assert "転職するか迷っています" in request["messages"][1]["content"]
    call = LLMCall.objects.get()
    assert call.status == "ok" and call.attempts == 1 and call.tokens_in > 0 and call.tokens_out > 0
    assert call.cost_usd == pytest.approx((call.tokens_in * 1.0 + call.tokens_out * 2.0) / 1e6)
    assert call.cost_jpy == pytest.approx((call.tokens_in * 150.0 + call.tokens_out * 300.0) / 1e6)
    assert call.request["params"]["temperature"] == 0.0 and call.json_mode == "json_schema"
    run = LLMRun.objects.get()
    assert run.succeeded == 1 and run.requests == 1 and run.cost_usd == pytest.approx(call.cost_usd)


def test_the_second_identical_call_is_a_cache_hit_without_any_request(fake_llm):
    first = judge(GV, _items(3))
    seen = fake_llm.request_count
    second = judge(GV, _items(3))
    assert fake_llm.request_count == seen == 3
    assert all(r.cached and r.status == "ok" for r in second.results)
    assert second.cache_hits == 3 and second.requests == 0 and second.cost_usd == 0
    assert [r.parsed for r in second.results] == [r.parsed for r in first.results]
    assert LLMCall.objects.count() == 3


def test_the_same_question_twice_in_one_run_is_asked_once(fake_llm):
    variables = {"concernText": "転職するか迷っています", "generatedText": "項目1", "widgetType": "list"}
    items = [Item("a", variables), Item("b", {**variables, "generatedText": "転職のメリット"}), Item("c", variables)]
    assert estimate(GV, items).calls == 2
    report = judge(GV, items)
    assert len(fake_llm.requests) == 2 and LLMCall.objects.count() == 2
    assert [r.key for r in report.results] == ["a", "b", "c"]
    assert report.results[2].parsed == report.results[0].parsed and report.results[2].cached
    assert report.results[2].call_id == report.results[0].call_id and report.cache_hits == 1


def test_force_bypasses_the_cache_but_still_writes(fake_llm):
    judge(GV, _items())
    again = judge(GV, _items(), force=True)
    assert fake_llm.request_count == 2 and not again.results[0].cached
    assert LLMCall.objects.count() == 2


@pytest.fixture
def two_versions():
    text = "Judge {{concernText}} / {{generatedText}} / {{widgetType}}"
    base = prompts.get(GV)
    made = [
        prompts.register(Prompt("tests.judge", v, base.system, text + ("" if v == 1 else " (v2)"), base.schema))
        for v in (1, 2)
    ]
    yield made
    for prompt in made:
        prompts._REGISTRY.pop(prompt.ref)


def test_a_different_prompt_version_is_a_cache_miss(fake_llm, two_versions):
    judge("tests.judge@1", _items())
    judge("tests.judge@1", _items())
    assert fake_llm.request_count == 1
    judge("tests.judge@2", _items())
    assert fake_llm.request_count == 2


def test_a_prompt_version_cannot_be_registered_twice_with_different_text(two_versions):
    changed = Prompt("tests.judge", 1, "other system text", two_versions[0].user, two_versions[0].schema)
    with pytest.raises(prompts.PromptError, match="new version"):
        prompts.register(changed)


def test_429_is_retried_after_the_retry_after_header(fake_llm):
    fake_llm.script(Reply.rate_limited(retry_after=1), Reply.json(USEFUL))
    started = time.monotonic()
    [result] = judge(GV, _items()).results
    assert result.status == "ok" and time.monotonic() - started >= 1.0
    call = LLMCall.objects.get()
    assert call.attempts == 2 and [a["status"] for a in call.request["attempts"]] == [429, 200]


@pytest.mark.parametrize("failure", [Reply.server_error(500), Reply.server_error(503), Reply.hang(2.0)])
def test_5xx_and_timeouts_are_retried(fake_llm, settings, failure):
    settings.LLM_TIMEOUT_SECONDS = 0.5
    fake_llm.script(failure, Reply.json(USEFUL))
    [result] = judge(GV, _items()).results
    assert result.status == "ok" and LLMCall.objects.get().attempts == 2


def test_400_is_not_retried_and_becomes_this_items_error(fake_llm):
    fake_llm.script(Reply.bad_request("model does not exist", param="model"))
    report = judge(GV, _items(2))
    statuses = sorted(r.status for r in report.results)
    assert statuses == ["error", "ok"]  # the other item still ran
    failed = LLMCall.objects.get(status="error")
    assert failed.attempts == 1 and "BadRequestError" in failed.error and fake_llm.request_count == 2


def test_retries_end_with_an_error_result_not_an_exception(fake_llm, settings):
    settings.LLM_MAX_RETRIES = 2
    fake_llm.script(*[Reply.server_error(500)] * 3)
    [result] = judge(GV, _items()).results
    assert result.status == "error" and "InternalServerError" in result.error
    assert LLMCall.objects.get().attempts == 3 and LLMRun.objects.get().errors == 1


def test_malformed_json_is_asked_again_once_then_recorded_as_a_parse_error(fake_llm):
    fake_llm.script(Reply.malformed("I think it is useful."), Reply.malformed('{"score": 7}'))
    [result] = judge(GV, _items()).results
    assert result.status == "parse_error" and "$.score" in result.error
    second = fake_llm.requests[1]["json"]["messages"]
    assert second[-2] == {"role": "assistant", "content": "I think it is useful."}
    assert "could not be used" in second[-1]["content"] and "not JSON" in second[-1]["content"]
    call = LLMCall.objects.get()
    assert call.status == "parse_error" and call.attempts == 2 and call.response_raw == '{"score": 7}'
    assert fake_llm.request_count == 2


def test_a_reask_that_succeeds_and_code_fences_are_accepted(fake_llm):
    fake_llm.script(
        Reply.malformed('{"score": 2, "label": "generic", "reasoning": "x"}'),  # label does not match the score
        Reply(content='```json\n{"score": 1, "label": "generic", "reasoning": "x"}\n```'),
    )
    [result] = judge(GV, _items()).results
    assert result.status == "ok" and result.parsed == {"score": 1, "label": "generic", "reasoning": "x"}
    assert "does not match score 2" in fake_llm.requests[1]["json"]["messages"][-1]["content"]


@pytest.mark.parametrize(("schema", "json_object", "mode"), [(False, True, "json_object"), (False, False, "prompt")])
def test_json_mode_falls_back_when_the_endpoint_refuses_it(settings, schema, json_object, mode):
    with FakeOpenAI(json_schema=schema, json_object=json_object) as server:
        settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_PRICES = server.base_url, "fake-model", {}
        report = judge(GV, _items(2))
    assert all(r.status == "ok" for r in report.results)
    assert set(LLMCall.objects.values_list("json_mode", flat=True)) == {mode}


def test_the_budget_stops_the_run_cleanly(fake_llm, settings):
    settings.LLM_MAX_CONCURRENCY = 1
    probe = estimate(GV, _items(1))
    per_call = probe.cost_jpy
    report = judge(GV, _items(10), budget=Budget(per_call * 3.5, "JPY"))
    counts = report.counts
    assert counts.get("not_evaluated", 0) > 0 and counts.get("ok", 0) >= 1
    assert report.stopped_by_budget and LLMRun.objects.get().stopped_by_budget
    assert fake_llm.request_count == counts["ok"] == LLMCall.objects.count()
    assert report.cost_jpy <= per_call * 3.5 * 1.5  # the estimate is calibrated, not exact
    assert all(r.error == "budget reached before this item" for r in report.results if r.status == "not_evaluated")


def test_a_zero_budget_makes_no_call(fake_llm):
    report = judge(GV, _items(3), budget=Budget(0.0, "USD"))
    assert report.counts == {"not_evaluated": 3} and fake_llm.request_count == 0


def test_secrets_appear_in_no_log_no_error_and_no_row(fake_llm, caplog):
    caplog.set_level(logging.DEBUG)
    fake_llm.script(Reply.bad_request(f"bad key {SECRET}"), Reply.server_error(500), Reply.json(USEFUL))
    judge(GV, _items(2))
    assert fake_llm.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"  # it was sent...
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "llm layer3.gv_relevance@1" in logged  # attempts are logged
    assert SECRET not in logged  # ...but never logged
    for call in LLMCall.objects.all():
        assert SECRET not in f"{call.request} {call.error} {call.response_raw} {call.endpoint}"


def test_concurrency_is_bounded(settings):
    with FakeOpenAI(latency=0.2) as server:
        settings.LLM_BASE_URL, settings.LLM_MODEL, settings.LLM_PRICES = server.base_url, "fake-model", {}
        settings.LLM_MAX_CONCURRENCY = 4
        started = time.monotonic()
        judge(GV, _items(8))
        bounded = time.monotonic() - started
        settings.LLM_MAX_CONCURRENCY = 8
        started = time.monotonic()
        judge(GV, _items(8), force=True)
        wide = time.monotonic() - started
    assert bounded >= 0.4 and wide < bounded


def test_requests_per_minute_spaces_the_calls(fake_llm, settings):
    settings.LLM_REQUESTS_PER_MINUTE = 600  # one every 0.1 s
    started = time.monotonic()
    judge(GV, _items(5))
    assert time.monotonic() - started >= 0.4


def test_the_estimate_is_calibrated_by_the_ledger(fake_llm):
    items = _items(4)
    before = estimate(GV, items)
    assert before.calls == 4 and before.calibration == 1.0 and before.priced
    judge(GV, items[:2])
    after = estimate(GV, items)
    calls = LLMCall.objects.all()
    expected = sum(c.tokens_in for c in calls) / sum(c.estimated_tokens_in for c in calls)
    assert after.calibration == pytest.approx(min(5.0, max(0.2, expected))) == calibration("fake-model")
    assert after.cached == 2 and after.calls == 2


def test_without_an_endpoint_the_offline_baseline_answers_and_says_so(settings):
    settings.LLM_BASE_URL = ""
    report = judge(GV, _items(2))
    assert report.backend == "baseline" and report.model == "baseline-tfidf@1"
    assert all(r.evaluator_model == "baseline-tfidf@1" and r.parsed["score"] in (0, 1, 2) for r in report.results)
    assert not LLMCall.objects.exists()


def test_a_missing_variable_is_named():
    with pytest.raises(prompts.PromptError, match="widgetType"):
        prompts.get(GV).render({"concernText": "a", "generatedText": "b"})
